"""The documentation cannot drift from the code it describes."""

from __future__ import annotations

from pathlib import Path

import pytest
from cogapp import Cog

DOCS = Path(__file__).parent.parent / "docs"
REGENERATE = "cog -r docs/cli.md"


def test_the_cli_reference_is_what_every_command_says_in_its_help(capsys: pytest.CaptureFixture[str]) -> None:
    status = Cog().main(["cog", "--check", "--diff", str(DOCS / "cli.md")])  # (--diff: cogapp 3.5)
    out = capsys.readouterr()
    assert status == 0, f"docs/cli.md is not what the commands' --help says: run `{REGENERATE}`\n{out.out}{out.err}"


def test_the_cli_reference_has_a_section_for_every_command_and_subcommand() -> None:
    """(A generator that lost commands would pass the check above once regenerated.)"""
    import click

    from tenure.cli import COMMANDS, command_of

    headings = {line.lstrip("#").strip() for line in (DOCS / "cli.md").read_text().splitlines()
                if line.startswith(("## ", "### ", "#### "))}
    for name in COMMANDS:
        command = command_of(name)
        subcommands = list(command.commands) if isinstance(command, click.Group) else []
        assert {f"tenure {name}", *(f"tenure {name} {sub}" for sub in subcommands)} <= headings, name
