"""Commands of the memories store: remember, recall, confirm, supersede, history, review, brief, map,
session start/lease/end, backfill."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tenure.cli.common import (
    BackgroundOpt,
    JsonOpt,
    RepoOpt,
    ScopeOpt,
    console,
    emit,
    err,
    escape,
    new_table,
    plain,
    project,
    with_progress,
)
from tenure.memories import KINDS
from tenure.memories.briefing import line
from tenure.state import EMBED_LOCK, process_lock, state_dir
from tenure.words import counted

session_app = typer.Typer(help="Work sessions: start with a briefing and leases, end with an outcome.",
                          no_args_is_help=True)

ElementOpt = Annotated[list[str] | None, typer.Option(
    "--element", "-e", help="Symbol (full name or unique suffix), module:NAME, path:DIR/, service:NAME, doc:NAME "
                            "or project. Repeat for several.")]
SessionOpt = Annotated[str | None, typer.Option("--session", "-s", help="Work session id (logs what was served).")]


def register(app: typer.Typer) -> None:
    for command in (remember, recall, confirm, supersede, review, brief, backfill):
        app.command()(command)
    app.command("map")(map_cmd)
    app.add_typer(session_app, name="session")


def remember(
    content: Annotated[str, typer.Argument(help="The fact, in one or a few sentences. [[Title]] links others.")],
    kind: Annotated[str, typer.Option("--kind", "-k", help="note, convention or pitfall.")] = "note",
    element: ElementOpt = None,
    title: Annotated[str | None, typer.Option("--title", "-t", help="Makes it addressable as [[Title]].")] = None,
    supersedes: Annotated[str | None, typer.Option(help="Id or title of the memory this one replaces.")] = None,
    author: Annotated[str | None, typer.Option(help="Who says so, e.g. claude-code/sarah.")] = None,
    session: SessionOpt = None,
    scope: ScopeOpt = "project",
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Remember a fact about an element (the project when none is named)."""
    with project(repo) as t:
        result = t.memories.remember(content, kind, element, title, supersedes, author, session, scope)
    emit(result, as_json, _print_written)


def _print_written(r: dict) -> None:
    org = " (organisation scope)" if r.get("scope") == "org" else ""
    if r["deduplicated"]:
        console.print(f"already known as #{r['id']}{org}: confirmed it "
                      f"({counted(r['confirmations'], 'confirmation')})")
    else:
        console.print(f"remembered #{r['id']}{org}")
    if r.get("note"):
        console.print(f"[yellow]{escape(r['note'])}[/yellow]")
    for s in r["similarTo"]:
        title = f" {escape(s['title'])}" if s["title"] else ""
        differs = f"; it names {_listed(s['differs']['existing'])}, this {_listed(s['differs']['written'])}" \
            if s.get("differs") else ""
        console.print(f"  similar to #{s['id']}{title} ({s['similarity']}{escape(differs)}): pass "
                      f"--supersedes {s['id']} if this replaces it")
    for link in r.get("links", []):
        if link["kind"] == "pending":
            console.print(f"  [[{escape(link['target'])}]] is pending: it attaches when a memory with that title "
                          "is written")


def _listed(specifics: list[str]) -> str:
    return ", ".join(specifics) if specifics else "none of them"


def recall(
    query: Annotated[str, typer.Argument(help="What you want to know, in your words.")] = "",
    session: SessionOpt = None,
    element: ElementOpt = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=200)] = 10,
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Recall memories by meaning; every result explains its score."""
    with project(repo, reads=True) as t:
        result = t.memories.recall(query, session, element, limit)
    emit(result, as_json, _print_recall)


def _print_recall(r: dict) -> None:
    console.print(f"[dim]{escape(r['note'])}[/dim]")
    if not r["results"]:
        console.print("nothing matches; `tenure remember` what you learn")
    for m in r["results"]:
        console.print(f"#{m['id']} score {m['score']:.3f} " + escape(line(m)))
        console.print(f"    [dim]{escape(factors(m['explain']))}[/dim]")


def factors(e: dict) -> str:
    rel = e["relevance"]
    relevance = (f"terms {rel['terms']:.2f}" if rel["semantic"] is None
                 else f"0.55×semantic {rel['semantic']:.2f} + 0.45×terms {rel['terms']:.2f}")
    return (f"{relevance} × kind {e['kind']['factor']} × freshness {e['freshness']['factor']:.2f} "
            f"({counted(round(e['freshness']['days']), 'day')}) × citations {e['citations']['factor']:.2f} "
            f"({e['citations']['declared']} declared, {e['citations']['inferred']} inferred) × ignored "
            f"{e['ignored']['factor']} ({counted(e['ignored']['sessions_served'], 'session')} served) "
            f"× drift {e['drift']['factor']}")


def confirm(
    memory: Annotated[str, typer.Argument(help="Id or title.")],
    author: Annotated[str | None, typer.Option(help="Who checked it.")] = None,
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Confirm a memory still holds: freshness restarts, a drift warning clears."""
    with project(repo) as t:
        result = t.memories.confirm(memory, author)
    emit(result, as_json, lambda r: console.print(
        f"confirmed #{r['id']} ({counted(r['confirmations'], 'confirmation')})"
        + ("; drift warning cleared" if r["clearedDrift"] else "")))


def supersede(
    memory: Annotated[str, typer.Argument(help="Id or title of the memory that no longer holds.")],
    content: Annotated[str, typer.Argument(help="What is true now.")],
    title: Annotated[str | None, typer.Option("--title", "-t")] = None,
    kind: Annotated[str | None, typer.Option("--kind", "-k")] = None,
    element: ElementOpt = None,
    author: Annotated[str | None, typer.Option()] = None,
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Replace a memory: the old version leaves recall and stays in history."""
    with project(repo) as t:
        result = t.memories.supersede(memory, content, title, kind, element, author)
    emit(result, as_json, _print_written)


def print_versions(r: dict) -> None:
    """A memory's versions (`tenure history ID`: cli/episodic.py)."""
    for v in r["versions"]:
        state = "live" if v["id"] == r["live"] else f"superseded by #{v['supersededBy']}"
        console.print(f"[bold]#{v['id']}[/bold] ({state}) " + escape(line(v, limit=None)))
        for e in v["events"]:
            console.print(f"    {e['at'][:19]} {e['event']} {escape(e['detail'])}")


def review(repo: RepoOpt = Path("."), as_json: JsonOpt = False) -> None:
    """Memories to look at: drifted (their code changed) and ignored (served, never cited)."""
    with project(repo, reads=True) as t:
        result = t.memories.review()
    emit(result, as_json, _print_review)


def _print_review(r: dict) -> None:
    if not r["items"]:
        console.print("nothing to review")
        return
    for m in r["items"]:
        console.print(f"#{m['id']} " + escape(line(m)))
        for reason in m["reasons"]:
            console.print(f"    {escape(reason)}")
    console.print(escape(r["whatToDo"]))


def brief(
    task_words: Annotated[str | None, typer.Argument(metavar="[TASK]", help="What you are about to do.",
                                                     show_default=False)] = None,
    task: Annotated[str | None, typer.Option("--task", help="The same, as an option.")] = None,
    session: SessionOpt = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=100)] = 12,
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """The briefing an agent reads before it starts: pitfalls first, drift warnings in words."""
    if task_words and task and task_words != task:
        raise typer.BadParameter("give the task once: as TASK or as --task, not both")
    task = task_words or task
    with project(repo, reads=True) as t:
        result = t.brief(task, session, limit)
    emit(result, as_json, lambda r: print(plain(r["text"]), end=""))


def map_cmd(
    level: Annotated[str, typer.Option("--level", "-l", help="package, module or service.")] = "module",
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """The knowledge map: one cell per element, what is known, how fresh, and the gaps."""
    with project(repo, reads=True) as t:
        result = t.memories.knowledge_map(level)
    emit(result, as_json, _print_map)


def _print_map(r: dict) -> None:
    table = new_table("element", "memories", "pitfalls", "freshest", "verify", "known", title=r["headline"])
    for c in r["cells"]:
        if c["gap"]:
            table.add_row(escape(c["element"]), "[red]— nothing written —[/red]", "", "", "", "")
            continue
        table.add_row(escape(c["element"]), str(c["memories"]), str(c["pitfalls"]), counted(c["freshestDays"], "day"),
                      str(c["verify"] or ""), escape("; ".join(c["known"])))
    console.print(table)
    if r["projectWide"]["memories"]:
        console.print(f"{counted(r['projectWide']['memories'], 'memory')} about the project as a whole or coarser "
                      "elements")


def backfill(
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
    background: BackgroundOpt = False,
) -> None:
    """Embed the memories written before an embedding provider was configured, and the code's
    elements not embedded yet (`tenure index` starts this in the background; briefings never wait for it)."""
    with project(repo) as t, process_lock(state_dir(t.root), EMBED_LOCK) as acquired:
        if not acquired:
            if background:
                return
            err.print(f"[yellow]a backfill is already running for this project[/yellow] (see "
                      f"{escape(str(state_dir(t.root) / EMBED_LOCK))})")
            raise typer.Exit(1)
        done = t.memories.backfill()
        elements = with_progress(lambda progress: t.memories.prepare_elements(
            (lambda d, n: progress("elements", d, n)) if progress else None), quiet=as_json or background)
        mode = t.memories.vectors.mode_note()
    emit({"embedded": done, "elements": elements, "mode": mode}, as_json,
         lambda r: console.print(f"embedded {r['embedded']} memories and {r['elements']['embedded']} code elements; "
                                 f"{r['mode']}"))


@session_app.command("start")
def session_start(
    agent: Annotated[str, typer.Option("--agent", "-a", help="Who works, e.g. claude-code/sarah.")],
    task: Annotated[str, typer.Option("--task", help="What the session is for.")],
    element: ElementOpt = None,
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Start a work session: prints its id, the leases and the briefing."""
    with project(repo) as t:
        result = t.start_session(agent, task, element or [])
    emit(result, as_json, _print_started)


def _print_started(r: dict) -> None:
    console.print(f"session {r['session']} (pass --session {r['session']} to recall; end it with "
                  f"`tenure session end {r['session']} --summary TEXT`)")
    for c in r["conflicts"]:
        console.print(f"[yellow]{escape(c['element'])} is also leased by session {c['session']} "
                      f"({escape(c['agent'])})[/yellow]")
    print(plain(r["briefing"]), end="")


@session_app.command("lease")
def session_lease(
    session: Annotated[str, typer.Argument(help="Session id.")],
    element: ElementOpt = None,
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Lease more elements for an open session."""
    with project(repo) as t:
        result = t.memories.lease(session, element or [])
    emit(result, as_json, lambda r: console.print(f"leases: {', '.join(r['leases']) or 'none'}"))


@session_app.command("end")
def session_end(
    session: Annotated[str, typer.Argument(help="Session id.")],
    summary: Annotated[str, typer.Option("--summary", help="What was done and what happened.")],
    outcome: Annotated[str, typer.Option("--outcome", help="success, failure, partial or abandoned.")] = "success",
    used: Annotated[list[str] | None, typer.Option("--used", "-u", help="Id of a memory you relied on; repeat.")]
    = None,
    edited: Annotated[list[str] | None, typer.Option("--edited", help="A file you changed; repeat.")] = None,
    conclusion: Annotated[list[str] | None, typer.Option(
        "--conclusion", "-c", help="What you concluded (kept apart from outcomes, low confidence, decaying); repeat.")]
    = None,
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """End a session: records citations, writes one session_outcome memory and the session's episode."""
    with project(repo) as t:
        result = t.end_session(session, summary, used or [], outcome, edited or [], conclusion or [])
    emit(result, as_json, _print_ended)


def _print_ended(r: dict) -> None:
    console.print(f"session {r['session']} ended ({r['outcome']}): outcome memory #{r['outcomeMemory']} on "
                  f"{escape(', '.join(r['elements']))}; cited {r['citations']['declared']} declared, "
                  f"{r['citations']['inferred']} inferred")
    e = r["episode"]
    console.print(f"episode #{e['episode']}: {len(e['touched'])} symbols touched, {len(e['commits'])} commits, "
                  f"{len(e['uncommitted'])} files with uncommitted edits, {e['conclusions']} conclusions")
    for rule in r["rules"]["promoted"]:
        console.print(f"rule {rule} promoted (`tenure rules explain {rule}`)")
    for rule in r["rules"]["demoted"]:
        console.print(f"rule {rule} demoted (`tenure rules explain {rule}`)")


assert "pitfall" in KINDS  # the --kind help above names the writable kinds
