"""`tenure setup CLIENT`: point a coding agent at tenure; `tenure hook …`: what its hooks run."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from tenure.api import find_root
from tenure.cli.common import JsonOpt, RepoOpt, console, emit, err, escape, project, refused
from tenure.files import RefusedWrite
from tenure.setup import hooks
from tenure.setup.clients import CLIENTS
from tenure.setup.edits import SetupConflict
from tenure.setup.install import install, preview, uninstall

hook_app = typer.Typer(help="Run by coding agents' hooks (Claude Code passes the event as JSON on stdin).",
                       no_args_is_help=True)
ClientArg = Annotated[str | None, typer.Argument(help=f"One of: {', '.join(CLIENTS)}.", show_default=False)]


def register(app: typer.Typer) -> None:
    app.command()(setup)
    app.add_typer(hook_app, name="hook")


def setup(
    client: ClientArg = None,
    show: Annotated[bool, typer.Option("--print", help="Show what would be written; write nothing.")] = False,
    remove: Annotated[bool, typer.Option("--uninstall", help="Remove exactly what tenure setup wrote "
                                                             "(for CLIENT, or for every client).")] = False,
    bridge: Annotated[bool, typer.Option("--bridge", help="Also add `@AGENTS.md` to CLAUDE.md.")] = False,
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Write the MCP configuration (and Claude Code's hooks) for a coding agent; merges, never clobbers."""
    root = find_root(repo)
    if client is not None and client not in CLIENTS:
        err.print(f"[red]error:[/red] unknown client {client!r}: use one of {', '.join(CLIENTS)}")
        raise typer.Exit(2)
    if remove:
        result = uninstall(root, client)
        emit(result, as_json, _print_removed)
        return
    if client is None:
        err.print(f"[red]error:[/red] name a client: tenure setup {'|'.join(CLIENTS)} (or --uninstall)")
        raise typer.Exit(2)
    with refused(SetupConflict, RefusedWrite):
        if show:
            emit(preview(client, root, Path.home(), bridge), as_json, _print_planned)
            return
        result = install(client, root, Path.home(), bridge)
    emit(result, as_json, _print_installed)


def _print_installed(result: dict) -> None:
    for path in result["written"]:
        console.print(f"wrote {escape(path)}")
    for path in result["alreadyPresent"]:
        console.print(f"{escape(path)} already has it")
    if result["offer"]:
        console.print(f"[yellow]{escape(result['offer'])}[/yellow]")
    console.print("undo with `tenure setup --uninstall`")


def _print_removed(result: dict) -> None:
    for line in result["removed"] or ["nothing recorded: tenure setup wrote nothing here"]:
        console.print(escape(line))


def _print_planned(planned: list[dict]) -> None:
    for p in planned:
        if p["writes"] is None:
            console.print(f"{escape(p['path'])} already has it")
        else:  # the change, as a diff of the file: exactly what `tenure setup` without --print writes
            console.print(escape(p["diff"]), end="", soft_wrap=True, highlight=False)
    console.print("(nothing written; without --print tenure writes this, and records it in .tenure/setup.json "
                  "for `tenure setup --uninstall`)")


@hook_app.command("session-start")
def hook_session_start(repo: RepoOpt = Path(".")) -> None:
    """SessionStart: open a work session and print its briefing (Claude Code adds it to the context)."""
    payload = hooks.read_payload()
    with project(Path(payload.get("cwd") or repo)) as t:
        sys.stdout.write(hooks.session_start(t, payload))


@hook_app.command("post-tool-use")
def hook_post_tool_use(repo: RepoOpt = Path(".")) -> None:
    """PostToolUse (Bash): record what the session ran, and a test run's verdict, into the open work session."""
    with refused():
        err.print(escape(hooks.record_tool_use(repo, hooks.read_payload())))


@hook_app.command("session-end")
def hook_session_end(repo: RepoOpt = Path(".")) -> None:
    """SessionEnd: close the work session the agent left open (its outcome memory says so)."""
    payload = hooks.read_payload()
    with project(Path(payload.get("cwd") or repo)) as t:
        err.print(escape(hooks.session_end(t, payload)))
