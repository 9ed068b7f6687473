"""`tenure resolve`: a phrase or a task text -> the symbols it is about, tiered (SPEC 2.5)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tenure.cli.common import JsonOpt, RepoOpt, console, emit, err, escape, project, stdin_text
from tenure.words import counted

TIER_STYLE = {"exact": "green", "strong": "cyan", "weak": "yellow", "unresolved": "red"}


def register(app: typer.Typer) -> None:
    app.command("resolve")(resolve_cmd)


def resolve_cmd(
    text: Annotated[str, typer.Argument(help="A phrase (\"the settlement retry policy\") or a task text; - reads "
                                             "it from stdin")],
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=200, help="Matches listed.")] = 10,
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """The symbols TEXT is about: exact (named), strong (one class, folded), weak (a ranked set to check) or
    unresolved (kept, never forced onto a symbol), each with why it matched."""
    if text == "-":
        text = stdin_text()
    if not text.strip():
        err.print("[red]error:[/red] the text is empty: give a phrase or a task text (- reads it from stdin)")
        raise typer.Exit(2)
    with project(repo, reads=True) as t:
        result = t.resolve(text, limit).as_dict()
    emit(result, as_json, _print)
    if result["tier"] == "unresolved":
        raise typer.Exit(1)


def _print(result: dict) -> None:
    style = TIER_STYLE[result["tier"]]
    shown = len(result["matches"])
    more = f" (the first {shown} of {result['total']})" if result["total"] > shown else ""
    # The answer's tier is its best match's: the matches below it (the text's neighbours in the graph, by
    # meaning) are counted apart, or "exact: 16 symbols" reads as sixteen symbols named verbatim.
    top = sum(m["tier"] == result["tier"] for m in result["matches"])
    if top == result["total"]:
        count = counted(top, "symbol")
    elif top < shown:  # (those not shown rank below the weaker ones shown)
        count = f"{counted(top, 'symbol')} and {counted(result['total'] - top, 'weaker match')}"
    else:  # every one shown is at the answer's tier; those not shown are not known to be
        count = f"{counted(top, 'symbol')} shown"
    console.print(f"[{style}]{result['tier']}[/{style}]: {count}{more}")
    for m in result["matches"]:
        tier = TIER_STYLE[m["tier"]]
        console.print(f"- [{tier}]{m['tier']:<6}[/{tier}] [bold]{escape(m['symbol'])}[/bold] {m['kind']} "
                      f"{escape(m['path'])}:{m['line']}  score {m['score']:.2f}")
        for e in m["why"][:4]:
            console.print(f"    {e['kind']}: {escape(e['detail'])}")
    for phrase in result["unresolved"]:
        console.print(f"[red]unresolved[/red]: {escape(phrase)} (no symbol: kept as a constraint)")
    for note in result["degraded"]:
        console.print(f"[dim]degraded: {escape(note)}[/dim]")
