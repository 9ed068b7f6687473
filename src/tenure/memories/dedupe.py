"""Writing the same fact twice confirms it (SPEC §3).

With vectors: cosine above 0.94 to a live memory is the same fact; 0.82 to 0.94 is a near miss,
returned in `similarTo`. Without vectors the rule is lexical: an identical normalised content
(same words, any case, spacing or punctuation) is the same fact, and memories sharing at least 60%
of their terms (Jaccard) are near misses. Session outcomes are episodes: never merged, never matched.

A sentence model reads "the ledger 1 rounds half-even" and "the ledger 2 rounds half-even" as the
same sentence (cosine 0.98): what tells such facts apart is what it hardly sees, the numbers,
versions, sizes and identifiers they name (`specifics`). Above 0.94, a memory naming other
specifics is a near miss, never the same fact; every near miss says which specifics differ.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import numpy as np

from tenure.memories.vectors import Vectors
from tenure.storage import Database

DUPLICATE_COSINE = 0.94
SIMILAR_COSINE = 0.82
SIMILAR_JACCARD = 0.6
SHOWN = 5  # near misses returned


# A token: word characters, joined by the separators of versions, dotted names, paths and ids
# (`3.0.3`, `os.path`, `src/app.py`, `ADR-17`); text in backticks is code whatever it looks like.
_TOKEN = re.compile(r"[A-Za-z0-9_$]+(?:(?:[.:/-]|::)[A-Za-z0-9_$]+)*")
_CODE = re.compile(r"`([^`]+)`")
_HUMP = re.compile(r"[a-z][A-Z]")  # camelCase, PascalCase
_DOTTED = re.compile(r"\w\w(?:\.|::)\w|\w(?:\.|::)\w\w")  # `os.path`, `app.py`, not `e.g`


def specifics(text: str) -> frozenset[str]:
    """The numbers, versions, sizes and identifiers `text` names (lower-cased): `1`, `8kb`,
    `3.0.3`, `adr-17`, `max_retries`, `orderprocessor`, `flask.app`, anything in backticks.
    Plain words, even hyphenated (`half-even`) or in capitals, are not specifics."""
    found = {token.lower() for token in _TOKEN.findall(text) if _specific(token)}
    found |= {token.lower() for code in _CODE.findall(text) for token in _TOKEN.findall(code)}
    return frozenset(found)


def _specific(token: str) -> bool:
    return (any(c.isdigit() or c in "_$" for c in token) or _HUMP.search(token) is not None
            or _DOTTED.search(token) is not None)


def differences(written: frozenset[str], existing: frozenset[str]) -> dict | None:
    """What only the memory being written names and what only the existing one does; None when they
    name the same specifics."""
    if written == existing:
        return None
    return {"written": sorted(written - existing), "existing": sorted(existing - written)}


def same_content(db: Database, content_key: str, exclude: int | None) -> int | None:
    for r in db.query("SELECT id FROM memories WHERE content_key = ? AND superseded_by IS NULL"
                      " AND kind != 'session_outcome' ORDER BY id", (content_key,)):
        if r["id"] != exclude:
            return r["id"]
    return None


def by_vector(db: Database, vectors: Vectors, vector: np.ndarray, exclude: int | None,
              differs: Callable[[int], bool], scope: str) -> tuple[tuple[int, float] | None, list[tuple[int, float]]]:
    """(the closest live memory of `scope` above 0.94 that `differs` does not tell apart, with its
    cosine, or None; else the near misses, closest first). An organisation's fact never merges into a
    project's, nor the other way."""
    close = vectors.above(vector, scope, SIMILAR_COSINE)
    if not close:
        return None, []
    live = live_ids(db, list(close), exclude, scope)
    ranked = sorted(((m, cos) for m, cos in close.items() if m in live), key=lambda x: -x[1])
    for memory_id, similarity in ranked:
        if similarity <= DUPLICATE_COSINE:
            break
        if not differs(memory_id):
            return (memory_id, similarity), []
    return None, ranked[:SHOWN]


def by_terms(db: Database, terms: set[str], exclude: int | None, scope: str) -> list[tuple[int, float]]:
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
    live = live_ids(db, [m for m, j in jaccard.items() if j >= SIMILAR_JACCARD], exclude, scope)
    return sorted(((m, jaccard[m]) for m in live), key=lambda x: -x[1])[:SHOWN]


def live_ids(db: Database, ids: list[int], exclude: int | None, scope: str) -> set[int]:
    rows = db.query(f"SELECT id FROM memories WHERE id IN {db.each} AND superseded_by IS NULL"
                    " AND kind != 'session_outcome' AND scope = ?", (db.many(ids), scope))
    return {r["id"] for r in rows} - {exclude}
