"""Exports of the graph, so anyone can score it: every edge as JSON lines, or PyCG's call-graph JSON."""

from __future__ import annotations

from collections.abc import Iterator

from tenure.namespace.tiers import Relation
from tenure.storage import Database

_EDGES_SQL = """
SELECT e.src_fqn, e.dst_fqn, e.dst_name, e.relation, e.tier, e.path, e.line, e.detail,
       (SELECT group_concat(source) FROM edge_sources s WHERE s.edge_id = e.id) AS sources
FROM edges e ORDER BY e.path, e.line, e.src_fqn, e.dst_fqn
"""


def edges(db: Database) -> Iterator[dict]:
    for r in db.iter_query(_EDGES_SQL):
        yield {
            "src": r["src_fqn"], "dst": r["dst_fqn"], "name": r["dst_name"], "relation": r["relation"],
            "tier": r["tier"], "sources": sorted((r["sources"] or "").split(",")), "path": r["path"],
            "line": r["line"], "detail": r["detail"],
        }


def pycg(db: Database, language: str = "python") -> dict[str, list[str]]:
    """`{caller: [callees]}` as the PyCG benchmark expects: every function, method and module of the
    language is a key (callee-less ones too); only call edges with a known target count."""
    graph: dict[str, set[str]] = {
        r["fqn"]: set()
        for r in db.query(
            "SELECT fqn FROM symbols WHERE language = ? AND kind IN ('module', 'function', 'method', 'lambda')",
            (language,),
        )
    }
    for r in db.query(
        "SELECT e.src_fqn, e.dst_fqn FROM edges e JOIN files f ON f.id = e.file_id "
        "WHERE f.language = ? AND e.relation = ? AND e.dst_fqn IS NOT NULL",
        (language, Relation.CALLS.value),
    ):
        graph.setdefault(r["src_fqn"], set()).add(r["dst_fqn"])
    return {k: sorted(v) for k, v in sorted(graph.items())}
