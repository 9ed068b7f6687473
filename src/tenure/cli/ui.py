"""`tenure ui`: the knowledge map, review queue and memory detail in a browser, on loopback."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tenure.cli.common import RepoOpt, check_port, err, open_project

HOST = "127.0.0.1"  # never anything else: the page reads and writes memories without a login


def register(app: typer.Typer) -> None:
    app.command()(ui)


def ui(port: Annotated[int, typer.Option(help="Port on 127.0.0.1.")] = 8766, repo: RepoOpt = Path(".")) -> None:
    """Serve the web page for this project at http://127.0.0.1:PORT/."""
    import uvicorn  # with the web app: only this command needs them

    from tenure.web.app import create_app

    check_port(HOST, port)
    with open_project(repo) as t:
        err.print(f"tenure for {t.root}: open http://{HOST}:{port}/ (Ctrl-C to stop)")
        uvicorn.run(create_app(t), host=HOST, port=port, log_level="warning")
