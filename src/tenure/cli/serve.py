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
WARM_QUIET_S = 0.5  # ... and watches the files and loads the model once it has handled no message for this long


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

        stop, built, answers_ready, serving = (threading.Event() for _ in range(4))
        quiet = Quiet()
        # what the first answers need is loaded while the SDK is imported, and waited for (within a bound)
        threading.Thread(target=_prepare, args=(t, built, answers_ready, serving, quiet, stop), name="prepare",
                         daemon=True).start()
        # (no cyclic collection while the SDK's thousands of models and the first answer's pages load, and
        # what survives is frozen: no full pass walks it again, as the first large answer would)
        with cyclic_gc_paused(freeze_survivors=True):
            from tenure.mcp.sdk import import_sdk  # the SDK takes most of a second to import: only here

            import_sdk()  # (first: its protocol models are built on first use)
            from tenure.mcp.server import build_server
            from tenure.mcp.transport import MCP_PATH, run_http, run_stdio

            server = build_server(t, middleware=[quiet])
            built.set()
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


def _prepare(t: Tenure, built: threading.Event, answers_ready: threading.Event, serving: threading.Event,
             quiet: Quiet, stop: threading.Event) -> None:
    """A what-breaks answered once (its modules, pages, dynamic sites and a freshness check, made again
    if the SDK's import outlasted it: the server waits for this before it answers), then, once the
    server answers and has a quiet moment, the files watched (`Tenure.watch_freshness`, another thread:
    answers then need no freshness check until one changes; until it stands, a check is good for
    FRESHNESS_TTL_S) and the embedding model loaded (the first session_start's). Either, sooner, would
    take the interpreter from the SDK's import, which `initialize` waits for (the watches of a large
    tree take a tenth of a second to set up), or from the client's first calls. A step that fails is
    left to the answer that needs it, which says why."""
    with suppress(Exception):  # (the same failure reaches the agent with the answer that meets it)
        t.prepare_answers()
        built.wait(PREPARE_WAIT_S)
        t.freshness()  # (a check stands for FRESHNESS_TTL_S: this one, for the first calls)
    answers_ready.set()
    serving.wait()
    if quiet.wait(WARM_QUIET_S, stop):
        threading.Thread(target=t.watch_freshness, args=(stop,), name="freshness", daemon=True).start()
        with suppress(Exception):
            t.memories.vectors.warm()
