"""Running the server: stdio for clients that spawn it, streamable HTTP for clients that connect."""

from __future__ import annotations

import anyio
import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings

from tenure.http_guard import BearerAuth, HostCheck, check_bind

MCP_PATH = "/mcp"


def run_stdio(server: MCPServer) -> None:
    server.run("stdio")


def run_http(server: MCPServer, host: str, port: int, token: str | None, check: HostCheck) -> None:
    """Serve streamable HTTP at http://host:port/mcp; with a token every request must carry it. The
    SDK checks Host and Origin against `check` on every bind (by itself it does only for the literal
    loopback names)."""
    check_bind(host, token)
    security = TransportSecuritySettings(allowed_hosts=check.hosts, allowed_origins=check.origins)
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host, transport_security=security)
    asgi = BearerAuth(app, token) if token else app
    # (streamable HTTP is plain requests and event streams: no WebSocket protocol is loaded for it)
    config = uvicorn.Config(asgi, host=host, port=port, log_level="warning", lifespan="on", ws="none")
    anyio.run(uvicorn.Server(config).serve)
