"""Commands of the episodic store: history (a symbol's timeline; a memory's versions by id), ci record,
pr ingest, epoch mark/list."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer

from tenure.api import Tenure
from tenure.cli.common import JsonOpt, RepoOpt, console, emit, escape, project
from tenure.cli.memories import print_versions
from tenure.memories import MemoriesError

ci_app = typer.Typer(help="Outcomes from the build system: test reports, exit codes.", no_args_is_help=True)
pr_app = typer.Typer(help="Pull requests from GitHub CLI exports, as episodes with their outcomes.",
                     no_args_is_help=True)
epoch_app = typer.Typer(help="Architecture epochs: episodes before one leave retrieval.", no_args_is_help=True)
MEMORY_ID = re.compile(r"^#?\d+$")


def register(app: typer.Typer) -> None:
    app.command()(history)
    app.add_typer(ci_app, name="ci")
    app.add_typer(pr_app, name="pr")
    app.add_typer(epoch_app, name="epoch")


def history(
    target: Annotated[str, typer.Argument(help="A symbol (full name or unique suffix); a memory id (12, #12) shows "
                                               "that memory's versions.")],
    show_all: Annotated[bool, typer.Option("--all", help="Also the attempts about code restructured since, each "
                                                         "with the reason.")] = False,
    memory: Annotated[bool, typer.Option("--memory", help="TARGET is a memory's title: show its versions.")] = False,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=200, help="Kinds of attempt shown.")] = 10,
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """What happened when we tried before: past attempts on a symbol and its close dependants, failures first.
    A memory id (or, with --memory or when no symbol has the name, a memory's title) shows its versions."""
    with project(repo, reads=True) as t:
        if memory or MEMORY_ID.match(target.strip()) or _memory_title(t, target):
            emit(t.memories.history(target), as_json, print_versions)
            return
        result = t.episodes.what_happened_before(target, show_all, limit)
    emit(result, as_json, _print_timeline)


def _memory_title(t: Tenure, target: str) -> bool:
    """Whether `target` names no symbol and no past attempt, but a memory's title (how `tenure history
    TITLE` read before it became the episodic timeline)."""
    if t.find_symbol(target).how != "none" or t.episodes.known_symbol(target):
        return False
    try:
        t.memories.history(target)
    except MemoriesError:
        return False
    return True


def _print_timeline(r: dict) -> None:
    console.print(f"[bold]{escape(r['text'])}[/bold]")
    for note in r["notes"]:
        console.print(f"[dim]{escape(note)}[/dim]")
    for g in r["groups"]:
        kinds = ", ".join(f"{n} {cls}" for cls, n in g["verdicts"].items())
        sweep = " [dim]sweeps (diffs over many files or symbols), ranked last[/dim]" if g.get("sweep") else ""
        console.print(f"\n[bold]{g['verdict'].upper()}[/bold] ×{g['size']} ({kinds}), {g['first'][:10]} … "
                      f"{g['latest'][:10]}, score {g['score']}{sweep}")
        for a in g["attempts"]:
            _print_attempt(a)
    expired = r.get("expiredAttempts", [])
    if expired:
        console.print(f"\n[bold]restructured since[/bold] ({len(expired)}: out of retrieval, kept in history)")
        for a in expired:
            _print_attempt(a)
            for why in a["expired"]:
                console.print(f"      [dim]expired: {escape(why)}[/dim]")


def _print_attempt(a: dict) -> None:
    v = a["verdict"]
    said = v["verdict"] + (f" ({v['confidence']:.2f}, {v['source']})" if v["confidence"] is not None else "")
    ref = a["ref"][:10] if a["kind"] == "commit" else f"#{a['ref']}" if a["kind"] == "pr" else a["ref"]
    from tenure.episodic.timeline import qualifiers  # (the history's model: loaded only to print one)

    near = qualifiers(a)
    console.print(f"  {a['when'][:10]} {a['kind']} {ref} {escape(a['actor'])}: {escape(a['task'] or '(session)')} — "
                  f"{escape(said)}{near}")
    console.print(f"      [dim]{escape(', '.join(a['symbols'][:4]))}{' …' if len(a['symbols']) > 4 else ''} "
                  f"({', '.join(a['how'])})[/dim]")
    if a.get("dated"):  # (a date git holds that cannot be when it was made)
        console.print(f"      [dim]{escape(a['dated'])}[/dim]")
    for x in a["evidence"]:
        console.print(f"      {escape(_evidence_line(x))}")
    for c in a["conclusions"]:
        console.print(f"      [italic]conclusion ({c['confidence']:.2f} after {c['ageDays']:.0f} days, "
                      f"{escape(c['author'])}): {escape(c['text'])}[/italic]")


def _evidence_line(x: dict) -> str:
    head = f"{x['source']}: {x['verdict']} ({x['confidence']:.2f})"
    if x.get("revert"):  # the revert's own words are the lesson (git's "This reverts commit" line is not)
        lesson = " ".join(line.strip() for line in (x.get("body") or "").splitlines()
                          if line.strip() and not line.startswith("This reverts commit"))
        return f"{head} by {x['revert'][:10]} \"{x['subject']}\"" + (f" — {lesson[:300]}" if lesson else "")
    if x.get("fix"):
        return f"{head} by {x['fix'][:10]} \"{x['subject']}\""
    if x.get("reviewers"):
        return f"{head}: " + "; ".join(f"{r['author']}: {r['words'][:160]}" for r in x["reviewers"])
    if "counts" in x:
        tests = ", ".join(t["test"] for t in x.get("tests", [])[:5])
        counts = x["counts"]
        return (f"{head}: {counts['failed']} failed, {counts['passed']} passed" + (f" — {tests}" if tests else "")
                + (f" [{x['run']}]" if x.get("run") else ""))
    if x.get("pr"):
        return f"{head}: pull request #{x['pr']}" + (f" {x['url']}" if x.get("url") else "")
    return head


@ci_app.command("record")
def ci_record(
    junit: Annotated[Path | None, typer.Option("--junit", help="A JUnit XML report.")] = None,
    pytest_json: Annotated[Path | None, typer.Option("--pytest-json", help="pytest-json-report's JSON, or "
                                                                            "pytest-reportlog's JSON lines.")] = None,
    exit_code: Annotated[int | None, typer.Option("--exit-code", help="The test command's exit status (with "
                                                                       "--failed for the failing test ids).")] = None,
    failed: Annotated[list[str] | None, typer.Option("--failed", help="A failing test id; repeat.")] = None,
    commit: Annotated[str | None, typer.Option("--commit", help="The commit tested (default: HEAD).")] = None,
    session: Annotated[str | None, typer.Option("--session", "-s", help="The work session that ran them.")] = None,
    run: Annotated[str | None, typer.Option("--run", help="The CI run (an id or URL), kept as evidence.")] = None,
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Record a test run's outcome (high confidence, never decaying), mapped to the symbols under test."""
    given = [k for k, v in (("junit", junit), ("pytest-json", pytest_json), ("exit-code", exit_code)) if v is not None]
    if len(given) != 1:
        console.print("[red]error:[/red] name one of --junit FILE, --pytest-json FILE or --exit-code N")
        raise typer.Exit(2)
    with project(repo) as t:
        if session:
            t.memories.session(session)  # (an unknown session is refused with what to do)
        result = t.episodes.record_tests(given[0], junit or pytest_json, exit_code, failed or [], commit, session, run)
        if result["recorded"]:
            result["rules"] = t.rules_store.mine()
    emit(result, as_json, _print_recorded)
    if not result["recorded"]:
        raise typer.Exit(2)


def _print_recorded(r: dict) -> None:
    if not r["recorded"]:
        console.print(f"[red]not recorded:[/red] {escape(r['why'])}")
    else:
        about = f"session {r['about']['session']}" if r["about"]["session"] else f"commit {r['about']['commit'][:10]}"
        console.print(f"recorded outcome #{r['outcome']} of {about}: {r['verdict']} ({r['passed']} passed, "
                      f"{r['failed']} failed, {r['skipped']} skipped; {r['source']}, confidence {r['confidence']})")
        for test in r["tests"]:
            under = f" — tests {', '.join(test['underTest'][:4])}" if test["underTest"] else ""
            console.print(f"  {escape(test['test'])}: {escape(test['fqn'] or 'not found in the index')}{escape(under)}")
    for problem in r["problems"]:
        console.print(f"[yellow]{escape(problem)}[/yellow]")


@pr_app.command("ingest")
def pr_ingest(
    export: Annotated[Path, typer.Argument(help="`gh pr list --state all --json number,title,state,author,createdAt,"
                                                "mergedAt,closedAt,mergeCommit,commits,files,reviews,url > prs.json`")],
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Pull requests as episodes: merged, closed unmerged, changes requested (with the reviewers' words)."""
    with project(repo) as t:
        result = t.episodes.ingest_pull_requests(export)
        result["rules"] = t.rules_store.mine()
    emit(result, as_json, _print_ingested)


def _print_ingested(r: dict) -> None:
    console.print(f"{r['pullRequests']} pull requests: {r['merged']} merged, {r['rejected']} closed unmerged, "
                  f"{r['open']} open; {r['changesRequested']} with changes requested")
    for problem in r["problems"]:
        console.print(f"[yellow]{escape(problem)}[/yellow]")


@epoch_app.command("mark")
def epoch_mark(
    label: Annotated[str, typer.Argument(help='What changed, e.g. "moved to event sourcing".')],
    author: Annotated[str | None, typer.Option(help="Who marks it.")] = None,
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Mark an architecture epoch: the lessons before it leave retrieval (`history --all` still shows them)."""
    with project(repo) as t:
        from tenure.memories.api import default_author

        result = t.episodes.mark_epoch(label, author or default_author())
    emit(result, as_json, lambda r: console.print(
        f"epoch {r['epoch']} \"{escape(r['label'])}\" at {r['at'][:19]}: {r['episodesBefore']} earlier episodes "
        "leave retrieval"))


@epoch_app.command("list")
def epoch_list(repo: RepoOpt = Path("."), as_json: JsonOpt = False) -> None:
    """The epochs marked, oldest first."""
    with project(repo, reads=True) as t:
        result = {"epochs": t.episodes.epochs()}
    emit(result, as_json, _print_epochs)


def _print_epochs(r: dict) -> None:
    if not r["epochs"]:
        console.print("no epochs marked")
    for e in r["epochs"]:
        console.print(f"{e['epoch']} {e['at'][:19]} {escape(e['label'])} ({escape(e['author'])})")
