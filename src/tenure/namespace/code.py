"""The code as the structural index holds it, for the stores that map lines and names onto symbols
(history, episodes): which files are indexed with which content, the spans of their symbols, the
fingerprints and edges of symbols. Read through :class:`StructuralStore`, never by SQL of its tables."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from tenure.storage import Database
from tenure.structural.store import StructuralStore

PARSED = ("ok", "partial")
NOT_TOUCHED = frozenset({"lambda"})  # an edit inside a lambda is an edit of the function around it


@dataclass(frozen=True)
class Span:
    fqn: str
    name: str
    kind: str
    start: int
    end: int


@dataclass(frozen=True)
class IndexedFile:
    path: str
    language: str
    module: str
    content_hash: str  # blake2b-128 of the content the index parsed (structural/indexer.py)


def indexed_files(db: Database) -> dict[str, IndexedFile]:
    """Every parsed file of the index by path."""
    return {p: IndexedFile(p, r["language"] or "", r["module"] or "", r["content_hash"] or "")
            for p, r in StructuralStore(db).files().items() if r["parse_status"] in PARSED}


def spans_of(db: Database, paths: list[str]) -> dict[str, list[Span]]:
    """The symbols of each file that an edit can touch, outermost first (by start, longest first)."""
    found: dict[str, list[Span]] = defaultdict(list)
    for path, fqn, name, kind, start, end in StructuralStore(db).symbol_spans(paths):
        if kind not in NOT_TOUCHED:
            found[path].append(Span(fqn, name, kind, start or 1, max(end or 0, start or 1)))
    return dict(found)


def fingerprints(db: Database, fqns: list[str]) -> dict[str, str]:
    """fqn -> content fingerprint of the symbols that exist."""
    return StructuralStore(db).fingerprints(fqns=fqns)


def neighbours(db: Database, fqns: list[str]) -> dict[str, set[str]]:
    """fqn -> the symbols it has an edge to or from (calls, imports, inheritance …), tree-sitter's."""
    found: dict[str, set[str]] = {f: set() for f in fqns}
    for src, dst, relation in StructuralStore(db).edge_ends(fqns):
        if src in found:
            found[src].add(f"{relation}>{dst}")
        if dst in found:
            found[dst].add(f"{relation}<{src}")
    return found


def callees(db: Database, fqn: str) -> list[str]:
    """What a function calls or instantiates (targets the index knows), in name order."""
    return sorted({dst for src, dst, relation in StructuralStore(db).edge_ends([fqn])
                   if src == fqn and relation in ("calls", "instantiates") and dst != fqn})
