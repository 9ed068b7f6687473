"""`tenure serve`: the MCP server over stdio (the default) or streamable HTTP."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Annotated

import typer

from tenure.cli.common import AllowHostOpt, RepoOpt, check_listen, err, escape, open_project
from tenure.http_guard import TOKEN_ENV


def register(app: typer.Typer) -> None:
    app.command()(serve)


def serve(
    http: Annotated[bool, typer.Option("--http", help="Streamable HTTP instead of stdio.")] = False,
    host: Annotated[str, typer.Option(
        help="Address to bind (HTTP). Any but 127.0.0.1, localhost and ::1 needs --token.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (HTTP).")] = 8765,
    token: Annotated[str | None, typer.Option(envvar=TOKEN_ENV, show_envvar=True,
                                              help="Bearer token every HTTP request must carry.")] = None,
    allow_host: AllowHostOpt = None,
    repo: RepoOpt = Path("."),
) -> None:
    """Serve this project's memory to coding agents over MCP."""
    from tenure.mcp.server import build_server  # the SDK takes seconds to import: only here
    from tenure.mcp.transport import MCP_PATH, run_http, run_stdio

    check = check_listen(host, port, token, allow_host) if http else None
    with open_project(repo) as t:
        server = build_server(t)
        # the embedding model loads while the client connects, not in its first session_start
        threading.Thread(target=t.memories.vectors.warm, name="warm-embeddings", daemon=True).start()
        if check:
            err.print(f"tenure MCP server on http://{host}:{port}{MCP_PATH} for {t.root} (answers to "
                      f"{escape(', '.join(check.names))})")
            run_http(server, host, port, token, check)
        else:
            run_stdio(server)
