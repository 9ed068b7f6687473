"""Print the reference of every `tenure` command and subcommand as Markdown, from their `--help`.

docs/cli.md runs this through cog (`cog -r docs/cli.md`) and tests/test_docs.py checks that the file
is what it would print. A process of its own: typer and rich read the terminal's width and colours
from the environment when they are imported, so they are fixed here first, and the reference reads
the same on every machine and terminal."""

from __future__ import annotations

import os

WIDTH = "100"
for name in ("FORCE_COLOR", "PY_COLORS", "GITHUB_ACTIONS", "CLICOLOR_FORCE"):  # (these turn colours on)
    os.environ.pop(name, None)
os.environ.update(TERMINAL_WIDTH=WIDTH, COLUMNS=WIDTH, NO_COLOR="1", _TYPER_FORCE_DISABLE_TERMINAL="1")

import click  # noqa: E402 (after the environment they read)
from typer.main import get_command  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from tenure.cli import app  # noqa: E402


def commands(group: click.Group, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command's path under `group`, in the order `--help` lists them, each group before its own."""
    found: list[tuple[str, ...]] = [path]
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            found += commands(command, (*path, name))
        elif command is not None:
            found.append((*path, name))
    return found


def reference() -> str:
    runner = CliRunner()
    sections = []
    for path in commands(get_command(app)):  # type: ignore[arg-type]
        result = runner.invoke(app, [*path, "--help"], prog_name="tenure", terminal_width=int(WIDTH))
        assert result.exit_code == 0, (path, result.output)
        text = "\n".join(line.rstrip() for line in result.output.splitlines()).strip("\n")
        heading = "#" * min(len(path) + 2, 4)
        sections.append(f"{heading} tenure {' '.join(path)}".rstrip() + f"\n\n```text\n{text}\n```\n")
    return "\n".join(sections)


if __name__ == "__main__":
    print(reference(), end="")
