"""Files whose calls are not all linked: the resolver gave up on them (definitions kept, no edges),
resolved them partly (a budget ran out, code nested too deep: the edges it got are kept), or read them
cheaply (vendored or minified code, vendored.py: calls linked by name only; too large: not linked). An
answer that counts the calls of a name is a lower bound while such a file references it (a file read
cheaply: or defines it), and says which files. The rows, with those names, are written with the file's edges (store.py,
`resolution_gaps`)."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from tenure.storage import Database
from tenure.structural.store import GAVE_UP, PARTIAL, READ_CHEAPLY, gap_names

__all__ = ["GAVE_UP", "PARTIAL", "READ_CHEAPLY", "Gap", "gaps_naming", "how_unresolved", "names_in",
           "resolution_gaps"]

# How each status is said where files not fully resolved are counted.
_SAID = {GAVE_UP: "given up on", PARTIAL: "resolved partly",
         READ_CHEAPLY: "read cheaply: vendored, minified or too large code, calls linked by name only or not at all"}


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
    return _gaps(db, where, params)


def how_unresolved(statuses: list[str]) -> str:
    """How many files are not fully resolved in each way ("2 given up on, 1 read cheaply (...)")."""
    return ", ".join(f"{n} {said}" for status, said in _SAID.items() if (n := statuses.count(status)))


def gaps_naming(db: Database, languages: list[str], name: str) -> list[Gap]:
    """The files of these languages not fully resolved whose code references `name` (a call, `new`, a
    super type of that name): a call there may reach a symbol of that name and be missing."""
    return _gaps(db, f" WHERE f.language IN {db.each} AND instr(g.names, ?) > 0",
                 (db.many(languages), gap_names([name])))


def _gaps(db: Database, where: str, params: tuple) -> list[Gap]:
    return [Gap(r["path"], r["status"], r["reason"]) for r in db.query(
        "SELECT f.path, g.status, g.reason FROM resolution_gaps g JOIN files f ON f.id = g.file_id"
        + where + " ORDER BY f.path", params)]


_NAME = re.compile(rb"[A-Za-z_$][A-Za-z0-9_$]*")


def names_in(text: bytes) -> set[str]:
    """Every name a file's text holds: those of a file no extractor could read (a call there may reach
    any of them)."""
    return {m.decode() for m in _NAME.findall(text)}
