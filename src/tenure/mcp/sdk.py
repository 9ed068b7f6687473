"""The official MCP SDK, imported with its protocol models built on first use.

The SDK defines some 550 pydantic models (every message of two protocol versions, the client's
among them); building each one's validator as its class is made is most of the second `tenure serve`
spends before it answers `initialize`. pydantic's public `defer_build` setting, set on the base
model while the SDK is imported (and only then), leaves a model's build to its first validation,
serialisation or schema: a server builds those its messages use, the first time each is used. The
validators are pydantic's own, the same as built at import; only when they are built differs.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pydantic

SERVER_MODULE = "mcp.server.mcpserver"  # (its server module imports the transports, the types, the tools)


def import_sdk() -> None:
    """Import the SDK's server, its models built on first use, but for the results a session's first
    calls are answered with (the tool list, then a tool's result), which are built now: a client times
    its first call. Where the SDK is imported already (a test's process) this does nothing: its
    models were built when it was."""
    if SERVER_MODULE in sys.modules:
        return
    with _models_built_on_first_use():
        importlib.import_module(SERVER_MODULE)
    from mcp_types import CallToolResult, ListToolsResult, TextContent, Tool, ToolAnnotations

    for model in (ListToolsResult, Tool, ToolAnnotations, CallToolResult, TextContent):
        model.model_rebuild()


@contextmanager
def _models_built_on_first_use() -> Iterator[None]:
    """Every model class made meanwhile takes `defer_build` from the base model's configuration (a
    class's configuration is read from its bases when it is made, and kept): the SDK's. The other
    threads of a starting server make no pydantic models (tenure's own records are msgspec and
    dataclasses); one made meanwhile would only be built later, as the SDK's are."""
    config = pydantic.BaseModel.model_config
    before = config.get("defer_build")
    config["defer_build"] = True
    try:
        yield
    finally:
        if before is None:
            del config["defer_build"]
        else:
            config["defer_build"] = before
