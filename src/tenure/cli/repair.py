"""`tenure repair`: make a damaged project database sound again, keeping memories, sessions and the
key's record, and rebuilding the graph (see tenure.repair)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from tenure.api import Tenure, find_root
from tenure.cli.common import JsonOpt, RepoOpt, console, err, escape, refused, with_progress
from tenure.storage import StorageError
from tenure.words import counted


def register(app: typer.Typer) -> None:
    app.command()(repair)


def repair(repo: RepoOpt = Path("."), as_json: JsonOpt = False) -> None:
    """Repair a damaged database: every readable row only it holds kept, the rest rebuilt.

    Kept: memories, sessions, episodes, CI outcomes, conclusions, epochs, rules, the history read, model
    answers; rebuilt by an index: the graph and the knowledge store.

    The damaged files are copied aside first. Stop the project's servers and watchers before."""
    from tenure.repair import repair as repair_database  # (its stores' modules: only when it runs)

    root = find_root(repo)

    def rebuild() -> dict:
        with Tenure.open(root, discover=False) as t:
            return with_progress(lambda progress: t.index(progress=progress), quiet=as_json).as_dict()

    with refused(StorageError):
        result = repair_database(root, rebuild)
    if as_json:
        print(json.dumps(result, indent=2))
        return
    console.print(f"the damaged database is copied to {escape(result['backup'])} (SQLite said: "
                  f"{escape(result['integrity'])})")
    for table in result["kept"]:
        if not (table["before"] or table["rows"] or table["unreadable"]):
            continue  # (an empty table, kept empty)
        before = "?" if table["before"] is None else table["before"]
        console.print(f"{table['table']}: {before} -> {table['rows']} rows kept" + "".join(
            f"; unreadable: ids {_span(u['after'], u['through'])}" for u in table["unreadable"])
            + (f"; {table['dropped']} dropped (what they belonged to was lost)" if table["dropped"] else "")
            + (f"; {counted(table['cleared'], 'reference')} to a lost row cleared" if table["cleared"] else ""))
    if any(table["unreadable"] for table in result["kept"]):
        console.print(f"the rows that could not be read stay in the copy (`sqlite3 {escape(result['backup'])}/"
                      "tenure.db .recover` may read more of them)")
    if result["key_record_lost"]:
        err.print("[yellow]the record of this project's id and key id was unreadable:[/yellow] set TENURE_KEY to "
                  "the key the memories were written with (a file in ~/.config/tenure/) before using them")
    if result["history_read_again"]:
        console.print("rows of the git history were unreadable: the index read every commit again")
    if result["model_answers"]:
        console.print(f"{counted(result['model_answers'], 'model answer')} kept: `tenure knowledge build` takes "
                      "what it asks again from them (no call for the same input)")
    index = result["index"]
    console.print(f"rebuilt from the repository: {counted(index['files_seen'], 'file')}, "
                  f"{counted(index['symbols'], 'symbol')}, {counted(index['edges'], 'edge')} "
                  f"({', '.join(result['rebuilt'])}); traces and wiring ingested by hand come "
                  "back when their files are ingested again")


def _span(after: int | None, through: int | None) -> str:
    if after is None:
        return "all" if through is None else f"through {through}"
    return f"after {after}" + ("" if through is None else f" through {through}")
