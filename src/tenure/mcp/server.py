"""Builds the MCP server from what every store contributes (see tenure.mcp.tools)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcp.server.context import ServerMiddleware
from mcp.server.mcpserver import MCPServer

from tenure import __version__
from tenure.api import Tenure
from tenure.mcp.registry import Registry, ToolsMadeOnFirstUse
from tenure.mcp.tools import STORES

# Sent once at initialisation; kept short because it costs the agent's context like a tool does.
INSTRUCTIONS = (
    "tenure is this repository's memory. Start with session_start (it returns the briefing), pass its "
    "session id to recall, and end with session_end naming the memory ids you relied on. "
    "Before changing a symbol, ask what_breaks. Write what the next agent must know with remember."
)


def build_server(tenure: Tenure, middleware: Sequence[ServerMiddleware[Any]] = ()) -> MCPServer:
    registry = Registry()
    for store in STORES:
        store.register(registry, tenure)
    server = MCPServer("tenure", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING",
                       resources=registry.resources, middleware=middleware)
    # (the SDK's constructor takes tools made already; its manager of them, replaced by one that makes
    # them when first asked, is what the server lists, looks up and calls them through)
    server._tool_manager = ToolsMadeOnFirstUse(registry.tools)
    return server
