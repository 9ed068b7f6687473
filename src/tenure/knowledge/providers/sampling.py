"""The connected MCP client's own model, through sampling (`sampling/createMessage`): an agent can
build the knowledge graph with its model and no key of tenure's. Used by the `knowledge_build` tool
when the client declared the sampling capability.

The pipeline runs in a worker thread; each call is handed to the server's event loop
(`anyio.from_thread`) and waits there for the client's answer. The MCP specification deprecates
sampling from its 2026-07-28 revision on (SEP-2577); clients that still offer it are served, and the
SDK's deprecation warning is silenced for that call only.
"""

from __future__ import annotations

import warnings
from functools import partial
from typing import Any

import anyio.from_thread
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import ClientCapabilities, SamplingCapability, SamplingMessage, TextContent
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from tenure.knowledge import tokens
from tenure.knowledge.providers.base import Completion, Message, ProviderError


def supports_sampling(ctx: Any) -> bool:
    """Whether the client offers sampling on this connection: it declared the capability, and speaks a
    protocol revision that still lets a server ask it (modern revisions have no server-to-client requests)."""
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return False
    return bool(ctx.session.check_client_capability(ClientCapabilities(sampling=SamplingCapability())))


class SamplingProvider:
    def __init__(self, session: Any, client: str, request_id: Any) -> None:
        self.session = session
        self.request_id = request_id  # calls ride the tool call's own channel (a connection may have no other)
        self.name = f"mcp-sampling:{client}"  # the client's model: its answers are cached under its name

    def complete(self, messages: list[Message], max_tokens: int) -> Completion:
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
        turns = [SamplingMessage(role=m["role"], content=TextContent(type="text", text=m["content"]))
                 for m in messages if m["role"] != "system"]
        ask = partial(self._create, turns, max_tokens, system or None)
        try:
            result = anyio.from_thread.run(ask)
        except Exception as exc:  # the client refused or failed: the build records it like a server's error
            raise ProviderError(f"the MCP client's sampling failed: {exc}") from exc
        content = result.content
        text = content.text if isinstance(content, TextContent) else ""
        if not text:
            raise ProviderError(f"the MCP client's sampling answered no text ({type(content).__name__})")
        return Completion(text, sum(tokens.count(m["content"]) for m in messages), tokens.count(text))

    async def _create(self, turns: list[SamplingMessage], max_tokens: int, system: str | None) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            return await self.session.create_message(turns, max_tokens=max_tokens, system_prompt=system,
                                                     temperature=0, related_request_id=self.request_id)
