"""Commands of a team's shared database: `team status` (which database answers, and which project
this checkout is in it) and `team push` (this checkout's shared stores copied into it)."""

from __future__ import annotations

from pathlib import Path

import typer

from tenure.cli.common import JsonOpt, RepoOpt, console, emit, escape, project, with_progress
from tenure.words import counted

team_app = typer.Typer(help="A team's shared database: memories, episodes, knowledge and rules on PostgreSQL.",
                       no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(team_app, name="team")


@team_app.command()
def status(repo: RepoOpt = Path("."), as_json: JsonOpt = False) -> None:
    """Which database the shared stores use and whether it answers; the project's name there and how it
    was derived (tenure.toml, the git remote), and the organisation's."""
    with project(repo) as t:
        emit(t.team_status(), as_json, _print_status)


def _print_status(s: dict) -> None:
    answers = f"[green]answers[/green] ({escape(s['server'])})" if s["answers"] else \
        f"[red]does not answer[/red]: {escape(s.get('error', ''))}"
    console.print(f"shared stores: {s['backend']} — {escape(s['database'])}, {answers}")
    console.print(f"  chosen by: {escape(s['chosen'])}")
    console.print(f"project: [bold]{escape(s['project'])}[/bold] — {escape(s['derived'])}")
    if "org" in s:
        console.print(f"organisation: {escape(s['org'] or '(none)')} — {escape(s['orgDerived'])}")
    if s.get("note"):
        console.print(f"  [dim]{escape(s['note'])}[/dim]")
    if not s["answers"]:
        raise typer.Exit(1)


@team_app.command()
def push(repo: RepoOpt = Path("."), as_json: JsonOpt = False) -> None:
    """Copy this project's shared stores from the checkout's own database into the team database:
    memories (organisation-scope ones to the organisation), episodes and outcomes, stated rules, the
    knowledge cache. Run it again at any time: what was copied is not copied twice, and a push that
    was stopped goes on where it stopped."""
    with project(repo) as t:
        result = with_progress(t.team_push, quiet=as_json)
    emit(result, as_json, _print_pushed)


def _print_pushed(r: dict) -> None:
    if not r["rows"]:
        console.print(f"nothing new to push: the team database holds everything of these {r['tables']} tables")
        return
    console.print(f"pushed {counted(r['rows'], 'row')}: " +
                  ", ".join(f"{escape(table)} {n:,}" for table, n in r["copied"].items()))
