"""The embedding model's evidence for `related_by_intent`: the code elements (modules, classes) whose
description means something close to the text, by the vectors selection keeps for them
(:mod:`tenure.namespace.selection`, embedded in the background after an index). A query embeds only
the text: an element without a vector yet is counted in ``degraded``, never embedded on the spot.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np

from tenure.namespace.intent import Evidence, Found, Gathered
from tenure.namespace.selection import CANDIDATE_KINDS, SEMANTIC_MIN, ElementVectors, candidates
from tenure.namespace.symbol_terms import symbol_terms
from tenure.namespace.symbols import index_state
from tenure.storage import Database

WEIGHT = 1.5  # per unit of cosine above SEMANTIC_MIN: the right element scores 0.2-0.5, so up to ~0.45
KEPT_S = 30.0  # the stored vectors are read again at most this often (a backfill adds them meanwhile)


class ElementEmbeddings:
    """An `EvidenceProvider` over the code elements' vectors (kept by the caller: `ElementVectors`)."""

    def __init__(self, db: Database, root: Path, vectors: ElementVectors) -> None:
        self.db = db
        self.root = root
        self.vectors = vectors
        self._kept: tuple[str, float, list[str], np.ndarray, int, int] | None = None
        self._lock = threading.Lock()

    def _matrix(self) -> tuple[list[str], np.ndarray, int, int]:
        """The elements with a vector of their current code, their vectors as rows, how many have none,
        and how many there are."""
        state = index_state(self.db)
        with self._lock:
            kept = self._kept
            if kept is None or kept[0] != state or time.monotonic() - kept[1] > KEPT_S:
                stored = self.vectors.stored()
                if stored:
                    rows = candidates(self.db)
                    current = [(r.element, stored[r.element][1]) for r in rows
                               if r.element in stored and stored[r.element][0] == r.fingerprint
                               and stored[r.element][1].size]
                    missing = sum(1 for r in rows if r.element not in stored
                                  or stored[r.element][0] != r.fingerprint)
                    total = len(rows)
                else:  # (no vector at all: the elements are counted, not read)
                    index = symbol_terms(self.db, self.root)
                    current, total = [], sum(1 for kind in index.kinds if kind in CANDIDATE_KINDS)
                    missing = total
                matrix = np.stack([v for _, v in current]) if current else np.zeros((0, 1), dtype=np.float32)
                kept = self._kept = (state, time.monotonic(), [e for e, _ in current], matrix, missing, total)
            return kept[2], kept[3], kept[4], kept[5]

    def gather(self, text: str) -> Gathered:
        if not self.vectors.configured():
            return Gathered(degraded=("no embedding model: the meaning of the code was not read (names and words "
                                      "only)",))
        elements, matrix, missing, total = self._matrix()
        degraded = (f"the meaning of {missing} of {total} code elements is not read yet (`tenure backfill` "
                    "embeds them)",) if missing else ()
        query = self.vectors.embed([text]) if elements else None  # (no element to compare: no model run)
        if query is None:
            return Gathered(degraded=degraded)
        cosines = matrix @ query[0]
        found = tuple(Found(e, Evidence("embedding", f"its code means something close to the text (cosine "
                                        f"{c:.2f})", WEIGHT * (c - SEMANTIC_MIN)))
                      for e, c in zip(elements, cosines.tolist(), strict=True) if c >= SEMANTIC_MIN)
        return Gathered(found, degraded)
