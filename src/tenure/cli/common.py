"""What every command module shares: the consoles, common options, opening the project."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from tenure.api import Tenure
from tenure.storage import StorageError

# Piped output is read by agents and scripts: give tables room rather than truncating names.
console = Console(width=None if sys.stdout.isatty() else 200)
err = Console(stderr=True)

RepoOpt = Annotated[Path, typer.Option("--repo", "-r", help="Project directory (default: the current one).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]


def open_project(repo: Path) -> Tenure:
    try:
        return Tenure.open(repo)
    except StorageError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
