"""Files whose calls are not all linked: the resolver gave up on them (definitions kept, no edges),
resolved them partly (a budget ran out, code nested too deep: the edges it got are kept), or read them
cheaply (vendored or minified code, vendored.py: calls linked by name only). An answer
that counts the calls of a name is a lower bound while such a file names it, and says which files.
The rows are written with the file's edges (store.py, `resolution_gaps`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import msgspec

from tenure.storage import Database
from tenure.structural.facts import decode_facts
from tenure.structural.store import GAVE_UP, PARTIAL, READ_CHEAPLY

__all__ = ["GAVE_UP", "PARTIAL", "READ_CHEAPLY", "Gap", "gaps_naming", "how_unresolved", "resolution_gaps"]

# How each status is said where files not fully resolved are counted.
_SAID = {GAVE_UP: "given up on", PARTIAL: "resolved partly",
         READ_CHEAPLY: "read cheaply: vendored or minified code, calls linked by name only"}


@dataclass(frozen=True)
class Gap:
    path: str
    status: str  # GAVE_UP | PARTIAL | READ_CHEAPLY
    reason: str

    def as_dict(self) -> dict:
        return asdict(self)


def resolution_gaps(db: Database, languages: list[str] | None = None) -> list[Gap]:
    """Every file not fully resolved (of these languages, of all when None), in path order."""
    where, params = ("", ()) if languages is None else (f" WHERE f.language IN {db.each}", (db.many(languages),))
    return [Gap(r["path"], r["status"], r["reason"]) for r in db.query(
        "SELECT f.path, g.status, g.reason FROM resolution_gaps g JOIN files f ON f.id = g.file_id"
        + where + " ORDER BY f.path", params)]


def how_unresolved(statuses: list[str]) -> str:
    """How many files are not fully resolved in each way ("2 given up on, 1 read cheaply (...)")."""
    return ", ".join(f"{n} {said}" for status, said in _SAID.items() if (n := statuses.count(status)))


def gaps_naming(db: Database, languages: list[str], name: str) -> list[Gap]:
    """The files of these languages not fully resolved whose code names `name` (a call, `new`, a super
    type of that name): a call there may reach a symbol of that name and be missing from the graph."""
    gaps = resolution_gaps(db, languages)
    if not gaps:
        return []
    blobs = {r["path"]: r["facts"] for r in db.query(
        f"SELECT f.path, ff.facts FROM file_facts ff JOIN files f ON f.id = ff.file_id WHERE f.path IN {db.each}",
        (db.many([g.path for g in gaps]),))}
    return [g for g in gaps if g.path in blobs and _names(blobs[g.path], name, g.status == READ_CHEAPLY)]


def _names(blob: bytes, name: str, read_cheaply: bool) -> bool:
    """Whether the file's code names `name`; a file read cheaply also when it defines it (its calls
    through variables, `var f = helper; f()`, are not followed: its own functions may be called so)."""
    try:
        facts = decode_facts(blob)
    except msgspec.MsgspecError:  # written by another build: it may name anything
        return True
    return any(ref.name == name for ref in facts.references) or read_cheaply and any(
        d.name == name for d in facts.definitions)
