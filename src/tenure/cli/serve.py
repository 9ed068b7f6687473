"""`tenure serve`: the MCP server over stdio (the default) or streamable HTTP."""

from __future__ import annotations

import threading
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tenure.cli.common import AllowHostOpt, RepoOpt, check_listen, err, escape, open_project
from tenure.collector import cyclic_gc_paused
from tenure.http_guard import TOKEN_ENV

if TYPE_CHECKING:
    from tenure.api import Tenure
    from tenure.mcp.quiet import Quiet

PREPARE_WAIT_S = 10.0  # a server waits this long at most for its first answer's preparation before it answers
WARM_QUIET_S = 0.5  # ... and loads the embedding model once it has handled no message for this long


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
    check = check_listen(host, port, token, allow_host) if http else None
    with open_project(repo) as t:
        from tenure.mcp.quiet import Quiet

        stop, answers_ready, serving, quiet = threading.Event(), threading.Event(), threading.Event(), Quiet()
        # what the first answers need is loaded while the SDK is imported, and waited for (within a bound)
        threading.Thread(target=t.watch_freshness, args=(stop,), name="freshness", daemon=True).start()
        threading.Thread(target=_prepare, args=(t, answers_ready, serving, quiet, stop), name="prepare",
                         daemon=True).start()
        # (no cyclic collection while the SDK's thousands of models and the first answer's pages load, and
        # what survives is frozen: no full pass walks it again, as the first large answer would)
        with cyclic_gc_paused(freeze_survivors=True):
            from tenure.mcp.server import build_server  # the SDK takes a second to import: only here
            from tenure.mcp.transport import MCP_PATH, run_http, run_stdio

            server = build_server(t, middleware=[quiet])
            answers_ready.wait(PREPARE_WAIT_S)
        serving.set()
        try:
            if check:
                err.print(f"tenure MCP server on http://{host}:{port}{MCP_PATH} for {t.root} (answers to "
                          f"{escape(', '.join(check.names))})")
                run_http(server, host, port, token, check)
            else:
                run_stdio(server)
        finally:
            stop.set()


def _prepare(t: Tenure, answers_ready: threading.Event, serving: threading.Event, quiet: Quiet,
             stop: threading.Event) -> None:
    """A what-breaks answered once (its modules, pages and dynamic sites: the server waits for this
    before it answers), then the embedding model loaded (the first session_start's) once the server
    answers and has a quiet moment: loaded sooner, it would take the interpreter from the SDK's import,
    which `initialize` waits for, or from the client's first calls. The files are watched meanwhile
    (`Tenure.watch_freshness`, another thread), so that answers need no freshness check until one
    changes. A step that fails is left to the answer that needs it, which says why."""
    with suppress(Exception):  # (the same failure reaches the agent with the answer that meets it)
        t.prepare_answers()
    answers_ready.set()
    serving.wait()
    if quiet.wait(WARM_QUIET_S, stop):
        with suppress(Exception):
            t.memories.vectors.warm()
