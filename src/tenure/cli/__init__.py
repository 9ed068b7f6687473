"""The `tenure` command: a thin layer over :class:`tenure.Tenure`, one module per store.

A command's module is imported, and its click command built, only when that command runs (click's
"lazily loading subcommands"): typer reads every command's signature and annotations to build it,
and building all 27 with their modules' imports was a third of the start of every `tenure index`."""

from __future__ import annotations

import importlib

import click
import typer
from typer.core import TyperGroup
from typer.main import get_command_name, get_group

# Every command of `tenure`, in the order `--help` lists them, and the module of tenure.cli whose
# `register(app)` adds it (tests/test_cli_polish.py checks that the two agree).
COMMANDS: dict[str, str] = {
    "index": "structural", "what-breaks": "structural", "find": "structural", "resolve": "resolve",
    "status": "structural",
    "enrich": "enrich",
    "remember": "memories", "recall": "memories", "confirm": "memories", "supersede": "memories",
    "history": "episodic", "review": "memories", "brief": "memories", "backfill": "memories",
    "map": "memories",
    "serve": "serve", "setup": "setup", "ui": "ui",
    "export": "structural", "session": "memories", "hook": "setup",
    "di": "jvm", "bytecode": "jvm", "traces": "traces", "repair": "repair",
    "why": "knowledge", "knowledge": "knowledge", "ask": "ask",
    "ci": "episodic", "pr": "episodic", "epoch": "episodic", "rules": "procedural",
    "team": "team",
}


def command_of(name: str) -> click.Command:
    """Command `name` as its module registers it, built alone."""
    app = typer.Typer()
    importlib.import_module(f"tenure.cli.{COMMANDS[name]}").register(app)
    app.registered_commands = [
        c for c in app.registered_commands if (c.name or get_command_name(c.callback.__name__)) == name
    ]
    app.registered_groups = [g for g in app.registered_groups if g.name == name]
    return get_group(app).commands[name]


class _LazyGroup(TyperGroup):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands and name in COMMANDS:
            self.commands[name] = command_of(name)
        return self.commands.get(name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and args[0] not in COMMANDS:  # a typo: typer suggests from the commands built
            for name in COMMANDS:
                self.get_command(ctx, name)
        return super().resolve_command(ctx, args)


app = typer.Typer(
    cls=_LazyGroup, help="Memory for coding agents: what breaks, why, what happened before.", no_args_is_help=True
)


@app.callback()
def _tenure() -> None:
    """(A callback makes typer build a group with no command registered: they come from COMMANDS.)"""


if __name__ == "__main__":
    app()
