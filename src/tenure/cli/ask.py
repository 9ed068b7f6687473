"""`tenure ask`: SPEC §2.6's question — what breaks, why, what happened before and the rules — as one
answer packed to a token budget."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tenure.ask.pack import DEFAULT_BUDGET, MIN_BUDGET
from tenure.cli.common import JsonOpt, RepoOpt, emit, plain, project, stdin_text


def register(app: typer.Typer) -> None:
    app.command("ask")(ask)


def ask(
    question: Annotated[str, typer.Argument(help="The change and what you want to know, e.g. \"I am changing the "
                                                 "settlement retry policy. What breaks, why is it 3, and has anyone "
                                                 "tried this before?\" (`-` reads it from stdin)")],
    budget: Annotated[int, typer.Option("--budget", min=MIN_BUDGET, help="Tokens the answer may take.")]
    = DEFAULT_BUDGET,
    offline: Annotated[bool, typer.Option("--offline", help="No synthesis even when a model is configured.")] = False,
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """One answer from every store: what breaks, why it is this way, what happened before, the rules that
    apply and the pitfalls; each item with its store, tier, source and confidence."""
    if question == "-":
        question = stdin_text()
    with project(repo, reads=True) as t:
        result = t.ask(question, budget, offline)
    emit(result, as_json, lambda r: print(plain(r["text"]), end=""))
