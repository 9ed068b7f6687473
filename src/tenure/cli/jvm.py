"""Commands of the JVM sources: add a beans file or a jar / class directory by hand (`tenure index`
finds the ones inside the repository by itself)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from tenure.cli.common import JsonOpt, RepoOpt, console, escape, open_project, refused

di_app = typer.Typer(help="Dependency-injection wiring (Spring Boot /actuator/beans, Spring AOT).",
                     no_args_is_help=True)
bytecode_app = typer.Typer(help="Compiled JVM code (class directories, jars).", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(di_app, name="di")
    app.add_typer(bytecode_app, name="bytecode")


@di_app.command("ingest")
def di_ingest(
    file: Annotated[Path, typer.Argument(help="JSON saved from /actuator/beans.")],
    profile: Annotated[str, typer.Option("--profile", "-p", help="The profile it was taken under (names the "
                                                                 "context of its edges).")] = "",
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Add a Spring Boot beans file: injects edges, and interface calls the wiring decides."""
    from tenure.structural.jvm.di import BeansFileError  # the JVM stack: imported by its own commands only
    from tenure.structural.jvm.source import ingest_beans

    with open_project(repo) as t, refused(BeansFileError, OSError):
        report = ingest_beans(t.source_context, file, profile)
    _print(report, as_json)


@bytecode_app.command("ingest")
def bytecode_ingest(
    path: Annotated[Path, typer.Argument(help="A jar or a directory of class files.")],
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Add a jar or class directory outside the usual places; it is read again on every index."""
    from tenure.structural.jvm.discover import JvmInputError  # (as above)
    from tenure.structural.jvm.source import ingest_classpath

    with open_project(repo) as t, refused(JvmInputError):
        report = ingest_classpath(t.source_context, path)
    _print(report, as_json)


def _print(report: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(report))
    else:
        console.print(escape(", ".join(f"{k} {v}" for k, v in report.items())))
