"""Writing the same fact twice confirms it (SPEC §3).

With vectors: cosine above 0.94 to a live memory is the same fact; 0.82 to 0.94 is a near miss,
returned in `similarTo`. Without vectors the rule is lexical: an identical normalised content
(same words, any case, spacing or punctuation) is the same fact, and memories sharing at least 60%
of their terms (Jaccard) are near misses. Session outcomes are episodes: never merged, never matched.
"""

from __future__ import annotations

import math

import numpy as np

from tenure.memories.vectors import Vectors
from tenure.storage import Database

DUPLICATE_COSINE = 0.94
SIMILAR_COSINE = 0.82
SIMILAR_JACCARD = 0.6
SHOWN = 5  # near misses returned


def same_content(db: Database, content_key: str, exclude: int | None) -> int | None:
    for r in db.query("SELECT id FROM memories WHERE content_key = ? AND superseded_by IS NULL"
                      " AND kind != 'session_outcome' ORDER BY id", (content_key,)):
        if r["id"] != exclude:
            return r["id"]
    return None


def by_vector(db: Database, vectors: Vectors, vector: np.ndarray,
              exclude: int | None) -> tuple[tuple[int, float] | None, list[tuple[int, float]]]:
    """(the live memory above 0.94 with its cosine, or None; the near misses, closest first)."""
    ids, matrix = vectors.matrix()
    if not len(ids):
        return None, []
    cos = matrix @ vector
    close = np.flatnonzero((cos >= SIMILAR_COSINE) & (ids >= 0))
    live = live_ids(db, [int(ids[k]) for k in close], exclude)
    ranked = sorted(((int(ids[k]), float(cos[k])) for k in close if int(ids[k]) in live), key=lambda x: -x[1])
    if ranked and ranked[0][1] > DUPLICATE_COSINE:
        return ranked[0], []
    return None, ranked[:SHOWN]


def by_terms(db: Database, terms: set[str], exclude: int | None) -> list[tuple[int, float]]:
    """Near misses by Jaccard overlap of terms. Jaccard ≥ 0.6 needs at least 60% of the draft's
    terms shared, so only those memories are counted."""
    if not terms:
        return []
    needed = math.ceil(SIMILAR_JACCARD * len(terms))
    shared = {r["memory_id"]: r["n"] for r in db.query(
        f"SELECT memory_id, COUNT(*) AS n FROM memory_terms WHERE term IN {db.each} GROUP BY memory_id"
        " HAVING COUNT(*) >= ?", (db.many(sorted(terms)), needed))}
    sizes = {r["memory_id"]: r["n"] for r in db.query(
        f"SELECT memory_id, COUNT(*) AS n FROM memory_terms WHERE memory_id IN {db.each} GROUP BY memory_id",
        (db.many(shared),))}
    jaccard = {m: n / (len(terms) + sizes[m] - n) for m, n in shared.items()}
    live = live_ids(db, [m for m, j in jaccard.items() if j >= SIMILAR_JACCARD], exclude)
    return sorted(((m, jaccard[m]) for m in live), key=lambda x: -x[1])[:SHOWN]


def live_ids(db: Database, ids: list[int], exclude: int | None) -> set[int]:
    rows = db.query(f"SELECT id FROM memories WHERE id IN {db.each} AND superseded_by IS NULL"
                    " AND kind != 'session_outcome'", (db.many(ids),))
    return {r["id"] for r in rows} - {exclude}
