"""What every tool returns: the API's dict as structured content, and the same as compact JSON text
(clients that show the agent only text get it at half the tokens of indented JSON)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent


def structured(data: dict[str, Any], error: bool = False, text: str | None = None) -> CallToolResult:
    """`error`: the request could not be answered as asked (a name that is unknown or not unique); the
    data still says why and what to ask instead. `text`: what the agent reads instead of the data as JSON
    (an answer packed to a budget: the data holds it, and its items again, structured)."""
    if text is None:
        text = json.dumps(data, separators=(",", ":"), ensure_ascii=False, default=str)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data, is_error=error)


@contextmanager
def refusals(*errors: type[Exception]) -> Iterator[None]:
    """The API's refusals reach the agent as tool errors with their message (it says what to do);
    anything else is a crash and stays one."""
    try:
        yield
    except errors as exc:
        raise ToolError(str(exc)) from exc
