"""Recall: relevance of the live memories to a query, then the SPEC §3 factors on the best of them.

Cosines are ranked where the vectors are kept (vectors.py: the team database's pgvector, or one
matrix product in the process); term overlaps one indexed query. The ranking
factors are applied to the CANDIDATES most relevant memories, which bounds the work per recall at
any number of memories.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import numpy as np

from tenure.memories import ranking
from tenure.memories.store import parse_stamp
from tenure.memories.usage import with_usage
from tenure.memories.vectors import Vectors
from tenure.storage import Database

CANDIDATES = 200
EMPTY_QUERY_POOL = 2000


@dataclass
class Hit:
    id: int
    explain: dict
    via: dict | None = None

    @property
    def score(self) -> float:
        return self.explain["score"]


@dataclass
class Query:
    """A query prepared once: its hashed terms and (when there is a provider) its unit vector. Each
    term is hashed with every key this process reads (the project's, the organisation's): `size`
    is the number of terms, whichever key a memory's were hashed with."""

    terms: set[str]
    vector: np.ndarray | None
    empty: bool
    size: int = 0


def relevances(db: Database, vectors: Vectors, query: Query, within: set[int] | None,
               retired: set[int]) -> dict[int, tuple[float | None, float]]:
    """(cosine or None, term overlap) of the CANDIDATES most relevant live memories.

    The pool is the best CANDIDATES by term overlap and the best CANDIDATES by cosine; relevance is
    computed exactly for the pool. (A memory outside both lists would need a middling cosine and a
    middling overlap at once to belong in the top: the pool makes the cost independent of size.)"""
    if query.empty:
        return dict.fromkeys(newest(db, within, retired), (None, 1.0))
    by_cosine = vectors.nearest(query.vector, CANDIDATES, within, retired) if query.vector is not None else {}
    here = TermCounts.read(db, query.terms) if not db.ranks_on_server and within is None else None
    pool = ((here.top() if here else top_by_terms(db, query.terms, within)) | set(by_cosine)) - retired
    overlaps = here.shares(pool, query.size) if here else overlaps_of(db, query.terms, pool, query.size)
    cosines = by_cosine
    if query.vector is not None and (unscored := pool - set(by_cosine)):
        cosines = {**by_cosine, **vectors.cosines(query.vector, unscored)}
    found = {m: (cosines.get(m), overlaps.get(m, 0.0)) for m in pool}
    best = sorted(found, key=lambda m: ranking.relevance(*found[m]), reverse=True)[:CANDIDATES]
    return {m: found[m] for m in best if ranking.relevance(*found[m]) > 0}


def top_by_terms(db: Database, terms: set[str], within: set[int] | None) -> set[int]:
    """The memories sharing most of the query's terms (all of them inside an element filter)."""
    if not terms:
        return set()
    if within is not None:
        return set(overlaps_of(db, terms, within))
    rows = db.query(f"SELECT memory_id FROM memory_terms WHERE term IN {db.each} GROUP BY memory_id"
                    " ORDER BY COUNT(*) DESC, memory_id DESC LIMIT ?", (db.many(sorted(terms)), CANDIDATES))
    return {r["memory_id"] for r in rows}


class TermCounts:
    """How many of the query's terms each memory holds, counted in the process from its own file: each
    term's memories read as one text, counted with NumPy. The same pool and overlaps as `top_by_terms`
    and `overlaps_of` ask a server for (SQLite's GROUP BY sorts every matching row in a temporary B-tree:
    a common term matches tens of thousands of a large project's memories, 20 ms of a recall)."""

    def __init__(self, counts: np.ndarray) -> None:
        self.counts = counts  # memory id -> terms held

    @classmethod
    def read(cls, db: Database, terms: set[str]) -> TermCounts:
        lists = db.rows(f"SELECT group_concat(memory_id) FROM memory_terms WHERE term IN {db.each} GROUP BY term",
                        (db.many(sorted(terms)),)) if terms else []
        return cls(np.bincount(np.fromstring(",".join(ids for (ids,) in lists), dtype=np.int64, sep=",")
                               if lists else np.zeros(0, dtype=np.int64)))

    def top(self) -> set[int]:
        """The CANDIDATES memories holding most terms (ties at the last place: the newer, as the GROUP BY)."""
        matched = np.flatnonzero(self.counts)
        if len(matched) > CANDIDATES:
            least = np.partition(self.counts[matched], len(matched) - CANDIDATES)[len(matched) - CANDIDATES]
            matched = matched[self.counts[matched] >= least]
            matched = matched[np.lexsort((-matched, -self.counts[matched]))[:CANDIDATES]]
        return set(matched.tolist())

    def shares(self, memory_ids: set[int], size: int) -> dict[int, float]:
        """`overlaps_of`: the share of the query's `size` terms each memory holds (absent: none)."""
        return {m: int(self.counts[m]) / size for m in memory_ids if m < len(self.counts) and self.counts[m]}


def overlaps_of(db: Database, terms: set[str], memory_ids: set[int], size: int = 0) -> dict[int, float]:
    """Share of the query's terms (`size` of them; default: as many as `terms`) each of
    `memory_ids` holds (absent: none)."""
    if not terms or not memory_ids:
        return {}
    rows = db.query(f"SELECT memory_id, COUNT(*) AS n FROM memory_terms WHERE memory_id IN {db.each}"
                    f" AND term IN {db.each} GROUP BY memory_id", (db.many(sorted(memory_ids)), db.many(sorted(terms))))
    return {r["memory_id"]: r["n"] / (size or len(terms)) for r in rows}


def newest(db: Database, within: set[int] | None, retired: set[int]) -> list[int]:
    """An empty query ranks every live memory by its factors alone; the newest EMPTY_QUERY_POOL of
    them are the candidates (all of them when an element filter narrows the pool)."""
    if within is not None:
        return sorted(within - retired)
    return [r["id"] for r in db.query("SELECT id FROM memories WHERE superseded_by IS NULL ORDER BY id DESC LIMIT ?",
                                      (EMPTY_QUERY_POOL,))]


def signals(db: Database, memory_ids: list[int]) -> dict[int, ranking.Signals]:
    return {
        r["id"]: ranking.Signals(
            kind=r["kind"], last_true=parse_stamp(r["confirmed_at"]), drifted_at=parse_stamp(r["drifted_at"]),
            drifted=bool(r["verify"]), citations_declared=usage.declared, citations_inferred=usage.inferred,
            sessions_served=usage.sessions_served, impressions=usage.impressions,
        )
        for r, usage in with_usage(db, memory_ids, ", m.kind, m.confirmed_at, m.drifted_at, m.verify")
    }


def rank(db: Database, found: dict[int, tuple[float | None, float]], now: datetime, limit: int) -> list[Hit]:
    """The best `limit` by every factor (ties: the newer memory first), each explained."""
    facts = signals(db, list(found))
    scores = {m: ranking.score(*found[m], facts[m], now) for m in found if m in facts}
    best = sorted(scores, key=lambda m: (-scores[m], -m))[:limit]
    return [Hit(m, ranking.explain(*found[m], facts[m], now)) for m in best]
