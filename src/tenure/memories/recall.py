"""Recall: relevance of every live memory to a query, then the SPEC §3 factors on the best of them.

Relevance is computed for all memories in one pass (a matrix product and one indexed term query);
the ranking factors are then applied to the CANDIDATES most relevant ones, which bounds the work per
recall at any number of memories.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from tenure.memories import ranking
from tenure.memories.store import parse_stamp, query_in
from tenure.memories.usage import usage_of
from tenure.memories.vectors import Vectors
from tenure.storage import Database

CANDIDATES = 400


@dataclass
class Hit:
    id: int
    explain: dict
    via: dict | None = None
    links: list[dict] = field(default_factory=list)

    @property
    def score(self) -> float:
        return self.explain["score"]


@dataclass
class Query:
    """A query prepared once: its hashed terms and (when there is a provider) its unit vector."""

    terms: set[str]
    vector: np.ndarray | None
    empty: bool


def term_overlaps(db: Database, query_terms: set[str], within: set[int] | None) -> dict[int, float]:
    """Share of the query's terms each memory holds, for every memory holding at least one."""
    if not query_terms:
        return {}
    rows = query_in(db, "SELECT memory_id, COUNT(*) AS n FROM memory_terms WHERE term IN ({placeholders})"
                        " GROUP BY memory_id", sorted(query_terms))
    return {r["memory_id"]: r["n"] / len(query_terms) for r in rows if within is None or r["memory_id"] in within}


def cosines(vectors: Vectors, query_vector: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    ids, matrix = vectors.matrix()
    if query_vector is None or not len(ids):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    return ids, matrix @ query_vector


def relevances(db: Database, vectors: Vectors, query: Query, within: set[int] | None,
               live: set[int]) -> dict[int, tuple[float | None, float]]:
    """(cosine or None, term overlap) for the CANDIDATES most relevant live memories."""
    if query.empty:
        pool = live if within is None else live & within
        return dict.fromkeys(sorted(pool)[-CANDIDATES * 4:], (None, 1.0))
    overlaps = term_overlaps(db, query.terms, within)
    ids, cos = cosines(vectors, query.vector)
    found: dict[int, tuple[float | None, float]] = {m: (None, o) for m, o in overlaps.items() if m in live}
    for memory_id, c in zip(ids.tolist(), cos.tolist(), strict=True):
        if memory_id in live and (within is None or memory_id in within):
            found[memory_id] = (c, overlaps.get(memory_id, 0.0))
    best = sorted(found, key=lambda m: ranking.relevance(*found[m]), reverse=True)[:CANDIDATES]
    return {m: found[m] for m in best if ranking.relevance(*found[m]) > 0}


def signals(db: Database, memory_ids: list[int]) -> dict[int, ranking.Signals]:
    usage = usage_of(db, memory_ids)
    rows = query_in(db, "SELECT id, kind, confirmed_at, drifted_at, verify FROM memories WHERE id IN ({placeholders})",
                    memory_ids)
    return {
        r["id"]: ranking.Signals(
            kind=r["kind"], last_true=parse_stamp(r["confirmed_at"]), drifted_at=parse_stamp(r["drifted_at"]),
            drifted=bool(r["verify"]),
            citations_declared=usage[r["id"]].declared, citations_inferred=usage[r["id"]].inferred,
            sessions_served=usage[r["id"]].sessions_served, impressions=usage[r["id"]].impressions,
        )
        for r in rows
    }


def rank(db: Database, found: dict[int, tuple[float | None, float]], now: datetime) -> list[Hit]:
    """Every factor applied; best first (ties: the newer memory first)."""
    facts = signals(db, list(found))
    hits = [Hit(m, ranking.explain(*found[m], facts[m], now)) for m in found if m in facts]
    return sorted(hits, key=lambda h: (-h.score, -h.id))
