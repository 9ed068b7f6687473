"""Running the server: stdio for clients that spawn it, streamable HTTP for clients that connect."""

from __future__ import annotations

import json

import anyio
import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import ValidationError

from tenure.http_guard import BearerAuth, HostCheck, check_bind

MCP_PATH = "/mcp"


def run_stdio(server: MCPServer) -> None:
    """As the SDK's `server.run("stdio")`, but a line that is no JSON-RPC message gets an error reply
    (`_unreadable`): the SDK's transport hands the server the parse error, which only logs it, and the
    client waits for ever on a request with a lone surrogate (`"\\ud800"`: JSON, but no Unicode text)."""
    anyio.run(_serve_stdio, server)


async def _serve_stdio(server: MCPServer) -> None:
    lowlevel = server._lowlevel_server  # (what the SDK's own `run_stdio_async` runs)
    async with stdio_server() as (read_stream, write_stream):
        forward, readable = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def answer_unreadable() -> None:
            async with forward:
                async for message in read_stream:
                    if isinstance(message, Exception):
                        await write_stream.send(SessionMessage(_unreadable(message)))
                    else:
                        await forward.send(message)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(answer_unreadable)
            await lowlevel.run(readable, write_stream, lowlevel.create_initialization_options())
            tasks.cancel_scope.cancel()


def _unreadable(error: Exception) -> JSONRPCError:
    """The JSON-RPC error reply to a line the transport could not read as a message: invalid params
    where it is JSON whose strings are no Unicode text (a lone surrogate), invalid request where it is
    JSON but no message, else a parse error; to the request's id where one can be read."""
    given = next((e.get("input") for e in error.errors()), None) if isinstance(error, ValidationError) else None
    try:  # (the line as JSON where it is no JSON to the SDK, else what it read)
        request, json_read = (json.loads(given) if isinstance(given, str) else given), given is not None
    except ValueError:
        request, json_read = None, False
    found = request.get("id") if isinstance(request, dict) else None
    # (an id that is no text is not echoed, and makes the request invalid rather than its params)
    id_read = isinstance(found, str | int) and not isinstance(found, bool) and not _has_surrogate(found)
    ident = found if id_read else None
    if not json_read:
        code, message = PARSE_ERROR, "Parse error: the line is no JSON"
    elif isinstance(request, dict) and (id_read or found is None) and _has_surrogate(request):
        code, message = INVALID_PARAMS, "Invalid params: a string holds a lone surrogate (\\ud800-\\udfff): no text"
    else:
        code, message = INVALID_REQUEST, "Invalid request: JSON, but no JSON-RPC message"
    return JSONRPCError(jsonrpc="2.0", id=ident, error=ErrorData(code=code, message=message))


def _has_surrogate(value: object) -> bool:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, dict):
        return any(_has_surrogate(k) or _has_surrogate(v) for k, v in value.items())
    return isinstance(value, list) and any(_has_surrogate(v) for v in value)


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
