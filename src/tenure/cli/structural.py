"""Commands of the structural store: index, what-breaks, find, status, export."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from tenure.api import Tenure
from tenure.cli.common import JsonOpt, RepoOpt, console, err, escape, new_table, open_project, with_progress
from tenure.entry import may_build_unseeded
from tenure.structural.report import IndexReport

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
    """Index a repository (incremental: only changed files are parsed again). The project is found as
    every query finds it: from inside an indexed project (`cd examples && tenure index`) that project
    is indexed, never a new one nested in it."""
    if path is not None and repo is not None and path.resolve() != repo.resolve():
        err.print(f"[red]error:[/red] {escape(str(path))} and --repo {escape(str(repo))} name two directories: "
                  "give one")
        raise typer.Exit(2)
    start = path or repo or Path(".")
    if not start.is_dir():
        err.print(f"[red]error:[/red] {escape(str(start))} is not a directory")
        raise typer.Exit(2)
    seedless = not watch and may_build_unseeded()  # (`tenure.entry`: restarted seeded when it matters)
    with Tenure.open(start) as t:
        if t.root != start.resolve() and not as_json:
            console.print(f"indexing the project at {escape(str(t.root))}, which {escape(str(start.resolve()))} "
                          "belongs to")
        report = with_progress(lambda progress: t.index(progress=progress, seedless=seedless), quiet=as_json)
        _print_report(report, as_json, history=t.history_report, embedding=t.embedding_report)
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
                  embedding: dict | None = None) -> None:
    extra = {k: v for k, v in (("history", history), ("embeddings", embedding)) if v}
    if as_json:
        print(json.dumps({**report.as_dict(), **extra}))
        return
    console.print(
        f"indexed {report.files_seen} files in {report.seconds:.2f}s: {report.files_parsed} parsed, "
        f"{report.files_unchanged} unchanged, {report.files_removed} removed, "
        f"{report.files_resolved} re-resolved"
        + (f", {report.files_verified} dependants checked and kept" if report.files_verified else "")
        + (f", {report.files_spared} spared (the edited module's analysis reads the same)"
           if report.files_spared else "")
        + f"; {report.symbols} symbols, {report.edges} edges"
    )
    for name, summary in [*report.sources.items(), *extra.items()]:
        console.print(f"{name}: " + ", ".join(f"{k} {v}" for k, v in summary.items()))
    if report.unresolved:
        console.print(f"{len(report.unresolved)} files their resolver gave up on (their definitions are kept, "
                      "their calls not linked):")
        for path, why in report.unresolved[:20]:
            console.print(f"  {escape(path)}: {escape(why)}")
    if brief:
        return
    if report.partial:
        console.print(f"{len(report.partial)} files parsed with recovered syntax errors (their code is kept):")
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
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """What a change to SYMBOL breaks: its dependants, each with tier and source, and a lower-bound summary."""
    with open_project(repo, create=False) as t:
        result = t.what_breaks(symbol, depth)
    if as_json:
        print(json.dumps(result, indent=2))
    else:
        _print_impact(result)
    if result["symbol"] is None:
        raise typer.Exit(1)


def _where(d: dict) -> str:
    """The call site, and how often a trace saw the edge (trace edges have no site of their own)."""
    seen = f"seen {d['count']}x, last {d['last_seen']}" if d.get("count") and d.get("last_seen") else ""
    site = f"{d['path']}:{d['line']}" if d["path"] else ""
    return "; ".join(x for x in (site, seen) if x)


def _print_impact(result: dict) -> None:
    summary = result["summary"]
    if result["symbol"] is None:
        err.print(f"[yellow]{escape(summary['text'])}[/yellow]")
        if result["matches"]:
            err.print("name one of them in full, e.g. `tenure what-breaks " + escape(result["matches"][0]["fqn"]) + "`")
        else:
            err.print(escape(_not_found_hint(result["freshness"])))
        return
    console.print(f"[bold]{escape(result['symbol'])}[/bold]")
    if result["dependants"]:
        table = new_table("depth", "dependant", "relation", "tier", "sources", "where")
        for d in result["dependants"]:
            context = escape(f" [{', '.join(d['contexts'])}]") if d.get("contexts") else ""  # profiles DI names
            table.add_row(str(d["depth"]), escape(d["symbol"]), d["relation"], d["tier"],
                          escape(",".join(d["sources"])) + context, escape(_where(d)))
        console.print(table)
    for d in result["refuted"]:
        console.print(f"[dim]ruled out by {escape(', '.join(d['refuted_by']))}: {escape(d['symbol'])} "
                      f"({d['tier']} name match, {escape(d['path'])}:{d['line']})[/dim]")
    console.print(escape(summary["text"]))
    console.print(f"[dim]{escape(result['freshness']['text'])}[/dim]")


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
    if as_json:
        print(json.dumps(lookup.as_dict()))
        return
    if freshness is not None:
        err.print(escape(lookup.message()))
        err.print(escape(_not_found_hint(freshness)))
        raise typer.Exit(1)
    cut = f" (the first {len(lookup.matches)} of {lookup.total})" if lookup.total > len(lookup.matches) else ""
    table = new_table("symbol", "kind", "where", title=f"{lookup.how} match{cut}")
    for m in lookup.matches:
        table.add_row(escape(m.fqn), m.kind, escape(f"{m.path}:{m.line}"))
    console.print(table)


def status(repo: RepoOpt = Path("."), as_json: JsonOpt = False) -> None:
    """How fresh the index is."""
    with open_project(repo, create=False) as t:
        info = t.freshness()
    print(json.dumps(info)) if as_json else console.print(escape(info["text"]))


@export_app.command("edges")
def export_edges(
    fmt: Annotated[str, typer.Option("--format", "-f", help="jsonl (every edge) or pycg ({caller: [callees]}).")]
    = "jsonl",
    repo: RepoOpt = Path("."),
) -> None:
    """Print every edge of the graph."""
    with open_project(repo, create=False) as t:
        if fmt == "jsonl":
            for edge in t.export_edges():
                sys.stdout.write(json.dumps(edge) + "\n")
        elif fmt == "pycg":
            print(json.dumps(t.export_pycg(), indent=2))
        else:
            err.print(f"[red]error:[/red] unknown format {escape(repr(fmt))}: use jsonl or pycg")
            raise typer.Exit(2)


