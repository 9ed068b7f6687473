"""Commands of the structural store: index, what-breaks, find, status, export."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from tenure.api import Tenure, find_root
from tenure.cli.common import (
    JsonOpt,
    RepoOpt,
    console,
    err,
    escape,
    new_table,
    open_project,
    refused,
    with_progress,
)
from tenure.entry import may_build_unseeded
from tenure.structural.gaps import how_unresolved
from tenure.structural.impact import by_dependant
from tenure.structural.report import IndexReport
from tenure.words import counted, plural

STATUS_GAPS = 20  # files not fully resolved that `tenure status` names (--json: all)

export_app = typer.Typer(help="Export the graph so anyone can score it.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.command()(index)
    app.command("what-breaks")(what_breaks_cmd)
    app.command()(find)
    app.command()(status)
    app.add_typer(export_app, name="export")


def index(
    path: Annotated[Path | None, typer.Argument(help="Directory to index (or --repo).", show_default=".")] = None,
    watch: Annotated[bool, typer.Option("--watch", help="Keep following the working tree.")] = False,
    repo: Annotated[Path | None, typer.Option("--repo", "-r", help="Project directory, as for every command "
                                                                    "(default: the current one).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Index a repository (incremental: only changed files are parsed again).

    The project is found as every query finds it: from inside an indexed project (`cd examples &&
    tenure index`) that project is indexed, never a new one nested in it."""
    if path is not None and repo is not None and path.resolve() != repo.resolve():
        err.print(f"[red]error:[/red] {escape(str(path))} and --repo {escape(str(repo))} name two directories: "
                  "give one")
        raise typer.Exit(2)
    start = path or repo or Path(".")
    if not start.is_dir():
        err.print(f"[red]error:[/red] {escape(str(start))} is not a directory")
        raise typer.Exit(2)
    seedless = not watch and may_build_unseeded()  # (`tenure.entry`: restarted seeded when it matters)
    with Tenure.open(find_root(start, by_git=False), discover=False) as t, refused():  # (a bad tenure.toml)
        if t.root != start.resolve() and not as_json:
            console.print(f"indexing the project at {escape(str(t.root))}, which {escape(str(start.resolve()))} "
                          "belongs to")
        report = with_progress(lambda progress: t.index(progress=progress, seedless=seedless), quiet=as_json)
        _print_report(report, as_json, history=t.history_report, embedding=t.embedding_report,
                      knowledge=t.knowledge_report)
        if watch:
            console.print(f"watching {escape(str(t.root))} for changes (Ctrl-C to stop)")
            with contextlib.suppress(KeyboardInterrupt):
                t.watch(lambda r: _print_report(r, as_json, brief=True),
                        on_warmed=None if as_json else _print_warmed)


def _print_warmed(warmed: dict) -> None:
    console.print(f"warmed for the next changes in {warmed['cpu_seconds']:.1f} s CPU: modules other files read "
                  "are analysed")
    for module, error in warmed["failed"][:10]:
        console.print(f"  not analysed ahead (an update that needs it will try again): {escape(module)}: "
                      f"{escape(error)}")


def _print_report(report: IndexReport, as_json: bool, brief: bool = False, history: dict | None = None,
                  embedding: dict | None = None, knowledge: dict | None = None) -> None:
    extra = {name: summary for name, summary in (("history", history), ("embeddings", embedding),
                                                 ("knowledge", knowledge)) if summary}
    if as_json:
        print(json.dumps({**report.as_dict(), **extra}))
        return
    console.print(
        f"indexed {counted(report.files_seen, 'file')} in {report.seconds:.2f}s: {report.files_parsed} parsed, "
        f"{report.files_unchanged} unchanged, {report.files_removed} removed, "
        f"{report.files_resolved} re-resolved"
        + (f", {counted(report.files_verified, 'dependant')} checked and kept" if report.files_verified else "")
        + (f", {report.files_spared} spared (the edited module's analysis reads the same)"
           if report.files_spared else "")
        + f"; {counted(report.symbols, 'symbol')}, {counted(report.edges, 'edge')}"
    )
    if report.listing:
        console.print(f"files listed by {report.listing}")
    for name, summary in [*report.sources.items(), *extra.items()]:
        console.print(escape(f"{name}: " + ", ".join(f"{k} {v}" for k, v in summary.items())))
    if report.unresolved:
        console.print(f"{counted(len(report.unresolved), 'file')} the resolver gave up on (definitions kept, calls "
                      "not linked):")
        for path, why in report.unresolved[:20]:
            console.print(f"  {escape(path)}: {escape(why)}")
    if report.resolved_partly:
        console.print(f"{counted(len(report.resolved_partly), 'file')} resolved partly (the edges found are kept; "
                      "answers counting calls there are lower bounds):")
        for path, why in report.resolved_partly[:20]:
            console.print(f"  {escape(path)}: {escape(why)}")
    if report.read_cheaply:
        console.print(f"{counted(len(report.read_cheaply), 'file')} read cheaply (vendored or minified code: symbols "
                      "and calls by name, no value analysis, which `\\[index] full_analysis` in tenure.toml forces; "
                      "too large: symbols alone):")
        for path, why in report.read_cheaply[:20]:
            console.print(f"  {escape(path)}: {escape(why)}")
        if len(report.read_cheaply) > 20:
            console.print(f"  … {len(report.read_cheaply) - 20} more (`tenure status --json` lists them all)")
    if brief:
        return
    if report.partial:
        console.print(f"{counted(len(report.partial), 'file')} parsed with recovered syntax errors (the code is kept):")
        for path, why in report.partial[:20]:
            console.print(f"  {escape(path)}: {escape(why)}")
    if report.skipped:
        table = new_table("skipped", "reason", title=f"{len(report.skipped)} skipped")
        for path, why in report.skipped[:50]:
            table.add_row(escape(path), escape(why))
        console.print(table)


def what_breaks_cmd(
    symbol: Annotated[str, typer.Argument(help="Full name or unique suffix, e.g. SettlementService.retry")],
    depth: Annotated[int, typer.Option("--depth", "-d", min=1, max=10)] = 1,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="Dependants listed (the summary counts all).")]
    = 50,
    show_all: Annotated[bool, typer.Option("--all", help="List every dependant.")] = False,
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """What a change to SYMBOL breaks: the summary (a lower bound, and why), then its dependants, one row
    each with the sites it depends at, its tier and sources. --json gives every site."""
    with open_project(repo, create=False) as t:
        result = t.what_breaks(symbol, depth)
    if as_json:
        print(json.dumps(result, indent=2))
    else:
        _print_impact(result, None if show_all else limit)
    if result["symbol"] is None:
        raise typer.Exit(1)


def _where(row: dict) -> str:
    """The sites, a file named once (`a.py:3, 7; b.py:12`), and how often a trace saw the edge (trace
    edges have no site of their own)."""
    lines: dict[str, list[str]] = {}
    for site in row["sites"]:
        if site["path"]:
            lines.setdefault(site["path"], []).append(str(site["line"]))
    seen = f"seen {row['count']}x, last {row['last_seen']}" if row.get("count") and row.get("last_seen") else ""
    return "; ".join(x for x in (*(f"{path}:{', '.join(ls)}" for path, ls in lines.items()), seen) if x)


def _tiers(row: dict) -> str:
    if len(row["tiers"]) == 1:
        return row["tier"]
    return ", ".join(f"{n} {tier}" for tier, n in row["tiers"].items())


def _print_impact(result: dict, limit: int | None) -> None:
    summary = result["summary"]
    if result["symbol"] is None:
        err.print(f"[yellow]{escape(summary['text'])}[/yellow]")
        if result["matches"]:
            err.print("name one of them in full, e.g. `tenure what-breaks " + escape(result["matches"][0]["fqn"]) + "`")
        else:
            err.print(escape(_not_found_hint(result["freshness"])))
        return
    console.print(f"[bold]{escape(result['symbol'])}[/bold]")
    if result["lookup"] == "inherited":
        console.print(escape(result["lookup_message"]))
    console.print(escape(summary["text"]))
    _print_places("dynamic call site", "that may reach it (by what it looks up)",
                  [f"{s['path']}:{s['line']}  {s['detail']}" for s in summary["dynamic_sites"]])
    _print_places("site", "taking it as a value (what calls it from there is not followed)",
                  [f"{e['path']}:{e['line']}  {e['detail']}" for e in summary["escapes"]])
    _print_places("file", "naming it, not fully resolved (calls there may be missing)",
                  [f"{g['path']}: {g['status']}: {g['reason']}" for g in summary["unresolved_files"]])
    rows = by_dependant(result["dependants"])
    if rows:
        table = new_table("depth", "dependant", "relation", "tier", "sources", "sites", "where")
        for row in rows[:limit]:
            context = escape(f" [{', '.join(row['contexts'])}]") if row["contexts"] else ""  # profiles DI names
            table.add_row(str(row["depth"]), escape(row["symbol"]), row["relation"], _tiers(row),
                          escape(",".join(row["sources"])) + context, str(len(row["sites"])), escape(_where(row)))
        console.print(table)
    refuted = by_dependant(result["refuted"])
    for row in refuted[:limit]:
        console.print(f"[dim]ruled out by {escape(', '.join(row['refuted_by']))}: {escape(row['symbol'])} "
                      f"({row['tier']} name match, {escape(_where(row))})[/dim]")
    hidden = max(len(rows) - (limit or len(rows)), 0) + max(len(refuted) - (limit or len(refuted)), 0)
    if hidden:
        console.print(f"… {hidden} more {plural('dependant', hidden)} (--all lists them; --json gives every site)")
    console.print(f"[dim]{escape(result['freshness']['text'])}[/dim]")


def _print_places(noun: str, what: str, places: list[str], shown: int = 5) -> None:
    """The first few places behind a count of the summary, and how many more (--json gives all)."""
    if not places:
        return
    console.print(f"{counted(len(places), noun)} {what}:")
    for place in places[:shown]:
        console.print(f"  {escape(place)}")
    if len(places) > shown:
        console.print(f"  … {len(places) - shown} more (--json lists them all)")


def _not_found_hint(freshness: dict) -> str:
    if not freshness["indexed_at"]:
        return "this project is not indexed yet: run `tenure index` in it (or pass --repo with the indexed project)"
    return (f"{freshness['text']}. Check the spelling, try a shorter suffix with `tenure find`, or run `tenure index` "
            "if the code is new")


def find(
    symbol: Annotated[str, typer.Argument(help="Full name or suffix.")],
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Find symbols by full name or suffix."""
    with open_project(repo, create=False) as t:
        lookup = t.find_symbol(symbol)
        freshness = t.freshness() if not lookup.matches else None
    if as_json:  # nothing found: how fresh the index is tells a name not there from a project not indexed
        print(json.dumps({**lookup.as_dict(), **({"freshness": freshness} if freshness is not None else {})}))
        if freshness is not None:
            raise typer.Exit(1)
        return
    if freshness is not None:
        err.print(escape(lookup.message()))
        err.print(escape(_not_found_hint(freshness)))
        raise typer.Exit(1)
    cut = f" (the first {len(lookup.matches)} of {lookup.total})" if lookup.total > len(lookup.matches) else ""
    inherited = any(m.member_of for m in lookup.matches)
    table = new_table("symbol", "kind", "where", *(["inherited by"] if inherited else []),
                      title=f"{lookup.how} match{cut}")
    for m in lookup.matches:
        by = [escape(m.member_of)] if inherited else []
        table.add_row(escape(m.fqn), m.kind, escape(f"{m.path}:{m.line}"), *by)
    console.print(table)
    if lookup.how == "inherited":
        console.print(escape(lookup.message()))


def status(repo: RepoOpt = Path("."), as_json: JsonOpt = False) -> None:
    """How fresh the index is, and the dynamic call sites that may reach anything (no answer counts them)."""
    with open_project(repo, create=False) as t:
        info = t.status()
    if as_json:
        print(json.dumps(info))
        return
    console.print(escape(info["text"]))
    gaps = info["unresolved_files"]
    if gaps:
        how = how_unresolved([g["status"] for g in gaps])
        console.print(f"{counted(len(gaps), 'file')} not fully resolved ({how}): an answer counting calls "
                      "of a name they use is a lower bound")
        for gap in gaps[:STATUS_GAPS]:
            console.print(f"  {escape(gap['path'])}: {gap['status']}: {escape(gap['reason'])}")
        if len(gaps) > STATUS_GAPS:
            console.print(f"  … {len(gaps) - STATUS_GAPS} more (--json lists them all)")
    enrichment = info["enrichment"]
    console.print(escape(enrichment["text"] + (f"; log {enrichment['log']}" if enrichment["run"] else "")))
    dynamic = info["dynamic_anywhere"]
    if dynamic["count"]:
        console.print(f"{counted(dynamic['count'], 'dynamic call site')} may reach anything (what-breaks counts "
                      "only those that may reach its symbol, by the objects or names they look up):")
        for site in dynamic["sites"]:
            console.print(f"  {escape(site['path'])}:{site['line']}  {escape(site['detail'])}")
        if dynamic["count"] > len(dynamic["sites"]):
            console.print(f"  … {dynamic['count'] - len(dynamic['sites'])} more")


@export_app.command("edges")
def export_edges(
    fmt: Annotated[str, typer.Option("--format", "-f", help="jsonl (every edge) or pycg ({caller: [callees]}).")]
    = "jsonl",
    repo: RepoOpt = Path("."),
) -> None:
    """Print every edge of the graph."""
    with open_project(repo, create=False) as t:
        freshness = t.freshness()
        if not freshness["indexed_at"]:  # (said on stderr: the export itself is empty, and valid)
            err.print(f"[yellow]{escape(freshness['text'])}[/yellow]")
        if fmt == "jsonl":
            for edge in t.export_edges():
                sys.stdout.write(json.dumps(edge) + "\n")
        elif fmt == "pycg":
            print(json.dumps(t.export_pycg(), indent=2))
        else:
            err.print(f"[red]error:[/red] unknown format {escape(repr(fmt))}: use jsonl or pycg")
            raise typer.Exit(2)


