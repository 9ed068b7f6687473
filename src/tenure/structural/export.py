"""Exports of the graph, so anyone can score it: every edge as JSON lines, or PyCG's call-graph JSON."""

from __future__ import annotations

from collections.abc import Iterator

from tenure.namespace.tiers import Relation
from tenure.storage import Database
from tenure.structural.graph import all_edges


def edges(db: Database) -> Iterator[dict]:
    """Every edge, merged over all sources (graph.py)."""
    for edge in all_edges(db):
        yield edge.as_dict()


def pycg(db: Database, language: str = "python") -> dict[str, list[str]]:
    """`{caller: [callees]}` as the PyCG benchmark expects: every function, method and module of the
    language is a key (callee-less ones too); only call edges with a known target count."""
    rows = db.query("SELECT fqn, kind FROM symbols WHERE language = ?", (language,))
    callers = {r["fqn"] for r in rows}
    graph: dict[str, set[str]] = {
        r["fqn"]: set() for r in rows if r["kind"] in ("module", "function", "method", "lambda")
    }
    for e in all_edges(db):
        if e.relation == Relation.CALLS and e.dst is not None and not e.refuted and e.src in callers:
            graph.setdefault(e.src, set()).add(e.dst)
    return {k: sorted(v) for k, v in sorted(graph.items())}
