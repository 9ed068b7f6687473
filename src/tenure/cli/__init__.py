"""The `tenure` command: a thin layer over :class:`tenure.Tenure`, one module per store."""

from __future__ import annotations

import typer

from tenure.cli import enrich, jvm, memories, serve, setup, structural, traces, ui

app = typer.Typer(help="Memory for coding agents: what breaks, why, what happened before.", no_args_is_help=True)
structural.register(app)
enrich.register(app)
memories.register(app)
serve.register(app)
setup.register(app)
ui.register(app)
jvm.register(app)
traces.register(app)

if __name__ == "__main__":
    app()
