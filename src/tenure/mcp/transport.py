"""Running the server: stdio for clients that spawn it, streamable HTTP for clients that connect."""

from __future__ import annotations

import anyio
import uvicorn
from mcp.server.mcpserver import MCPServer

from tenure.mcp.auth import BearerAuth, check_bind

MCP_PATH = "/mcp"


def run_stdio(server: MCPServer) -> None:
    server.run("stdio")


def run_http(server: MCPServer, host: str, port: int, token: str | None) -> None:
    """Serve streamable HTTP at http://host:port/mcp; with a token every request must carry it."""
    check_bind(host, token)
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host)
    asgi = BearerAuth(app, token) if token else app
    config = uvicorn.Config(asgi, host=host, port=port, log_level="warning", lifespan="on")
    anyio.run(uvicorn.Server(config).serve)
