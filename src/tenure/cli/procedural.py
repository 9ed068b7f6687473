"""Commands of the procedural store: rules list/add/promote/demote/explain/mine, and running a
situational procedure."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tenure.cli.common import JsonOpt, RepoOpt, ScopeOpt, console, emit, escape, new_table, project
from tenure.words import counted

rules_app = typer.Typer(help="House rules: mined from episodes or stated, promoted into AGENTS.md, demoted.",
                        no_args_is_help=True)
RuleArg = Annotated[int, typer.Argument(help="The rule's number (`tenure rules list`).")]
AuthorOpt = Annotated[str | None, typer.Option(help="Who does it (default: you).")]


def register(app: typer.Typer) -> None:
    app.add_typer(rules_app, name="rules")


def _author(author: str | None) -> str:
    from tenure.memories.api import default_author

    return author or default_author()


@rules_app.command("list")
def rules_list(
    status: Annotated[str | None, typer.Option(help="candidate, promoted or demoted.")] = None,
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Every rule with its counts, promoted first; the situational procedures (MCP tools) of tenure.toml."""
    with project(repo, reads=True) as t:
        result = t.rules_store.list(status)
    emit(result, as_json, _print_list)


def _print_list(r: dict) -> None:
    table = new_table("rule", "status", "for", "against", "says", "source", title=f"{len(r['rules'])} rules")
    for rule in r["rules"]:
        table.add_row(str(rule["id"]), rule["status"], str(rule["successes"]), str(rule["failures"]),
                      escape(rule["text"]), escape(rule["source"]))
    console.print(table)
    if r.get("note"):  # (organisation rules this process holds no key for)
        console.print(f"[yellow]{escape(r['note'])}[/yellow]")
    mined = r.get("mined")
    if mined is None:
        console.print("never mined: `tenure index` or `tenure rules mine` counts the episodes")
    else:
        console.print(f"mined from {counted(mined['changesStood'], 'change')} that stood, "
                      f"{counted(mined['changesFailed'], 'change')} that failed and "
                      f"{counted(mined['testRuns'], 'test run')} in work sessions: {counted(mined['rules'], 'rule')} "
                      "qualified")
        for why in mined["missing"]:
            console.print(f"  missing: {escape(why)}")
    t = r["thresholds"]
    console.print(f"[dim]promoted after {t['promote_after']} episodes for it ({t['min_agreement']:.0%} agreeing, "
                  f"{t['min_explained']} failed without it); demoted after {t['demote_after']} against it "
                  f"({escape('[procedural]')} in tenure.toml)[/dim]")
    for p in r["procedures"]:
        console.print(f"procedure {escape(p['name'])} (MCP tool {p['tool']}): when {escape(p['when'])}: "
                      f"{escape(p['run'])}")
        if p.get("notRun"):
            console.print(f"  [yellow]{escape(p['notRun'])}[/yellow]")


@rules_app.command("add")
def rules_add(
    text: Annotated[str | None, typer.Argument(help="The rule in words.")] = None,
    before: Annotated[str | None, typer.Option("--before", help="An ordering rule: run this …")] = None,
    then: Annotated[str | None, typer.Option("--then", help="… before this (e.g. the test command).")] = None,
    change: Annotated[str | None, typer.Option("--change", help="A co-change rule: when this file changes …")] = None,
    also: Annotated[str | None, typer.Option("--also", help="… this one changes too.")] = None,
    candidate: Annotated[bool, typer.Option("--candidate", help="Let the episodes promote it (not at once).")]
    = False,
    author: AuthorOpt = None,
    scope: ScopeOpt = "project",
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """State a rule; an ordering or co-change rule is counted against the episodes like a mined one."""
    with project(repo) as t:
        result = t.rules_store.add(text, _author(author), before, then, change, also, candidate, scope)
    emit(result, as_json, _print_changed)


@rules_app.command("promote")
def rules_promote(rule: RuleArg, author: AuthorOpt = None, repo: RepoOpt = Path("."), as_json: JsonOpt = False) -> None:
    """Promote a rule into the always-loaded instructions by hand (recorded)."""
    with project(repo) as t:
        result = t.rules_store.promote(rule, _author(author))
    emit(result, as_json, _print_changed)


@rules_app.command("demote")
def rules_demote(
    rule: RuleArg,
    reason: Annotated[str | None, typer.Option(help="Why it no longer holds.")] = None,
    author: AuthorOpt = None,
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Take a rule out of the instructions by hand (recorded; evidence alone does not promote it again)."""
    with project(repo) as t:
        result = t.rules_store.demote(rule, _author(author), reason)
    emit(result, as_json, _print_changed)


def _print_changed(r: dict) -> None:
    rule = r["rule"]
    org = ", organisation scope" if rule["scope"] == "org" else ""
    console.print(f"rule {rule['id']} ({rule['status']}{org}): {escape(rule['text'])}")
    if r.get("note"):
        console.print(f"[yellow]{escape(r['note'])}[/yellow]")
    written = r.get("agentsFile")
    if written and written.get("error"):
        console.print(f"[yellow]{escape(written['error'])}[/yellow]")
    elif written and written["changed"]:
        console.print(f"{escape(written['path'])}: the managed rules section was rewritten")


@rules_app.command("explain")
def rules_explain(rule: RuleArg, repo: RepoOpt = Path("."), as_json: JsonOpt = False) -> None:
    """Why a rule says what it says: every episode counting for or against it, and every change it went through."""
    with project(repo, reads=True) as t:
        result = t.rules_store.explain(rule)
    emit(result, as_json, _print_explained)


def _print_explained(r: dict) -> None:
    rule = r["rule"]
    console.print(f"[bold]rule {rule['id']}[/bold] ({rule['kind']}, {rule['status']}, source {escape(rule['source'])}):"
                  f" {escape(rule['text'])}")
    console.print(f"{rule['successes']} for, {rule['failures']} against")
    for e in r["evidence"]:
        what = f"{e.get('kind', 'episode')} {e.get('ref', e['episode'])}"
        console.print(f"  {e['countsAs']:>7} ×{e['times']} {escape(what[:40])} {escape(e.get('task') or '')[:60]}: "
                      f"{escape(e['why'])}")
    for ev in r["events"]:
        console.print(f"  {ev['at'][:19]} {ev['event']} by {escape(ev['author'])}: {escape(ev['detail'])}")


@rules_app.command("mine")
def rules_mine(repo: RepoOpt = Path("."), as_json: JsonOpt = False) -> None:
    """Count the evidence of every rule again (tenure index, session end and ci record do this)."""
    with project(repo) as t:
        result = t.rules_store.mine()
    emit(result, as_json, lambda r: console.print(
        f"{r['rules']} rules counted: {len(r['candidatesNew'])} new candidates, promoted {r['promoted'] or 'none'}, "
        f"demoted {r['demoted'] or 'none'}"))


@rules_app.command("run")
def rules_run(
    procedure: Annotated[str, typer.Argument(help="A [procedures.NAME] of tenure.toml.")],
    session: Annotated[str | None, typer.Option("--session", "-s", help="Record its test verdict into this "
                                                                        "work session.")] = None,
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Run a situational procedure (what its MCP tool does)."""
    with project(repo) as t:
        result = t.rules_store.run_procedure(procedure, session)
    emit(result, as_json, lambda r: (print(r["output"], end=""), console.print(
        f"{r['procedure']}: exit {r['exitCode']}{' (timed out)' if r['timedOut'] else ''} in {r['seconds']} s")))
    if result["exitCode"] != 0:
        raise typer.Exit(1)
