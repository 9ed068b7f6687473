"""Drift: the code behind an element changed since a memory about it was last known true.

The structural indexer reports the symbols whose fingerprint changed or that went away. Every live
memory attached to such an element is stamped with the time; a memory last confirmed before its
stamp is demoted (0.6×), queued for review and flagged in briefings. Confirming it clears the flag.
"""

from __future__ import annotations

from datetime import datetime

from tenure.memories.store import add_event, stamp
from tenure.namespace.elements import Place, kind_of, places
from tenure.namespace.symbols import fingerprints, module_files, module_of, symbols_named
from tenure.storage import Database
from tenure.structural.naming import SEPARATORS


def ancestors(fqn: str) -> set[str]:
    """`a.b.C.m` -> {a, a.b, a.b.C, a.b.C.m}: the names a removed symbol could have lived in."""
    return {fqn[:i] for i, ch in enumerate(fqn) if ch in SEPARATORS and i} | {fqn}


def _home_module(code: Database, fqn: str, module_elements: set[str]) -> str | None:
    """The module a removed symbol lived in: the longest name it lived under that is a module."""
    names = ancestors(fqn)
    known = module_elements | set(module_files(code, sorted(names)))
    return max(names & known, key=len, default=None)


def drifted_elements(code: Database, fqns: list[str], elements: set[str]) -> dict[str, str]:
    """Which of `elements` drifted, each with the symbol that made it drift.

    A symbol drifts when its own fingerprint changed (a class's covers its methods); a module when
    its file or any symbol in it changed; a directory when a file under it did. Services, documents
    and the project have no code of their own here and never drift."""
    drifted = set(fqns)
    present = {s.fqn: s for s in symbols_named(code, sorted(drifted))}
    module_elements = {e.partition(":")[2] for e in elements if kind_of(e) == "module"}
    module_cause: dict[str, str] = {}
    for fqn in sorted(drifted):
        row = present.get(fqn)
        for module in ({row.module, fqn} if row else {_home_module(code, fqn, module_elements)} - {None}):
            module_cause.setdefault(module, fqn)
    path_cause = {s.path: fqn for fqn, s in sorted(present.items()) if s.path}
    found: dict[str, str] = {}
    for element in elements:
        kind, name = kind_of(element), element.partition(":")[2]
        if kind == "symbol" and element in drifted:
            found[element] = element
        elif kind == "module" and name in module_cause:
            found[element] = module_cause[name]
        elif kind == "path":
            directory = "" if name == "./" else name
            cause = next((c for p, c in path_cause.items() if p.startswith(directory)), None)
            if cause:
                found[element] = cause
    return found


def on_index(db: Database, code: Database, fqns: list[str], now: datetime) -> list[int]:
    """What an index does for memories (`Memories.on_drift`): stamp drift, in a transaction. `db`
    holds the memories, `code` the checkout's code (one database without a team's)."""
    with db.transaction():
        return stamp_drift(db, code, fqns, now)


def stamp_drift(db: Database, code: Database, fqns: list[str], now: datetime) -> list[int]:
    """Stamp every live memory attached to an element that drifted: named by the index report
    (`fqns`), or whose symbol's fingerprint no longer matches the one recorded when the memory was
    last known true. Returns the ids of the memories stamped."""
    at = stamp(now)
    stamped: dict[int, str] = {}
    if fqns:
        attached = db.query("""SELECT e.memory_id, e.element FROM memory_elements e
                               JOIN memories m ON m.id = e.memory_id WHERE m.superseded_by IS NULL""")
        causes = drifted_elements(code, fqns, {r["element"] for r in attached})
        for r in attached:
            if r["element"] in causes:
                stamped.setdefault(r["memory_id"], f"{r['element']} drifted ({causes[r['element']]} changed)")
    changed = fingerprint_changes(db, code)
    for r in changed:
        stamped.setdefault(r["memory_id"], f"{r['element']} drifted (its code differs from when this was confirmed)")
    events = dict.fromkeys([*fqns, *(symbol_of(r["element"]) for r in changed)])
    db.executemany("INSERT INTO memory_drift_events (fqn, at) VALUES (?, ?)", [(f, at) for f in events])
    for memory_id, why in stamped.items():
        db.execute("UPDATE memories SET drifted_at = ?, verify = 1 WHERE id = ?", (at, memory_id))
        add_event(db, memory_id, now, "drifted", why)
        record_fingerprints(db, code, memory_id)  # stamped once per change, not again at every index
    return sorted(stamped)


def symbol_of(element: str) -> str:
    """The symbol whose fingerprint stands for an element: the symbol itself, or a module's own
    symbol (Python and path-named modules have one: its fingerprint is the file's content hash).
    Other elements name no symbol, unless a source made one of that name (`service:checkout`)."""
    return element.removeprefix("module:")


def record_fingerprints(db: Database, code: Database, memory_id: int) -> None:
    """Remember the code a memory's elements have now (it was just written, confirmed or stamped)."""
    elements = [r["element"] for r in db.query("SELECT element FROM memory_elements WHERE memory_id = ?",
                                               (memory_id,))]
    current = fingerprints(code, {symbol_of(e) for e in elements})
    db.executemany("UPDATE memory_elements SET fingerprint = ? WHERE memory_id = ? AND element = ?",
                   [(current.get(symbol_of(e)), memory_id, e) for e in elements])


def fingerprint_changes(db: Database, code: Database) -> list[dict]:
    """Attachments of live, unflagged memories whose symbol changed or went away since recorded."""
    recorded = db.query(
        """SELECT e.memory_id, e.element, e.fingerprint FROM memory_elements e JOIN memories m ON m.id = e.memory_id
           WHERE m.superseded_by IS NULL AND m.verify = 0 AND e.fingerprint IS NOT NULL
           ORDER BY e.memory_id, e.element""")
    current = fingerprints(code, {symbol_of(r["element"]) for r in recorded})
    return [{"memory_id": r["memory_id"], "element": r["element"]} for r in recorded
            if current.get(symbol_of(r["element"])) != r["fingerprint"]]


def edited_places(db: Database, code: Database, since: datetime, until: datetime, paths: list[str]) -> list[Place]:
    """What a session edited: the symbols that drifted while it was open, and the files it names."""
    fqns = {r["fqn"] for r in db.query("SELECT DISTINCT fqn FROM memory_drift_events WHERE at >= ? AND at <= ?",
                                        (stamp(since), stamp(until)))}
    found = list(places(code, fqns).values())
    for path in dict.fromkeys(p.strip().removeprefix("./") for p in paths if p.strip()):
        module = module_of(code, path)
        found.append(Place(f"path:{path}", frozenset({module} if module else ()), frozenset({path})))
    return found
