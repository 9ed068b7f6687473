"""Step 6: embeddings of entity descriptions, community reports and chunks (tenure.embeddings: the
packaged all-MiniLM-L6-v2 by default), the entry points of queries, searched in process (one matrix
product). Only items whose text changed are embedded again; vectors of items that are gone are
deleted; each batch is committed (a stopped build keeps what it embedded)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tenure.embeddings import EmbeddingError, EmbeddingProvider
from tenure.knowledge.store import digest
from tenure.storage import Database

KINDS = ("entity", "report", "chunk")  # in the order they are embedded: the cheap entry points first
BATCH = 64

_TEXTS = {
    "entity": "SELECT key, name || ': ' || description FROM knowledge_entities",
    "report": "SELECT community, title || '. ' || summary FROM knowledge_reports",
    "chunk": "SELECT CAST(id AS TEXT), section || '\n' || text FROM knowledge_chunks",
}


def embed(db: Database, provider: EmbeddingProvider, progress: Callable[[str, int, int], None] | None = None) -> dict:
    report: dict[str, dict] = {}
    for kind in KINDS:
        texts = {item: text for item, text in db.rows(_TEXTS[kind])}
        stored = {item: (model, h) for item, model, h in
                  db.rows("SELECT item, model, text_hash FROM knowledge_vectors WHERE kind = ?", (kind,))}
        todo = [(item, text) for item, text in sorted(texts.items())
                if stored.get(item) != (provider.name, digest(text))]
        gone = [item for item in stored if item not in texts]
        with db.transaction():
            for part in range(0, len(gone), 500):
                db.executemany("DELETE FROM knowledge_vectors WHERE kind = ? AND item = ?",
                               [(kind, item) for item in gone[part:part + 500]])
        failed = None
        for start in range(0, len(todo), BATCH):
            batch = todo[start:start + BATCH]
            try:
                vectors = provider.embed([text for _, text in batch])
            except EmbeddingError as exc:
                failed = str(exc)
                break
            with db.transaction():
                db.executemany(
                    "INSERT INTO knowledge_vectors (kind, item, model, text_hash, vector) VALUES (?, ?, ?, ?, ?)"
                    " ON CONFLICT (kind, item) DO UPDATE SET model = excluded.model, text_hash = excluded.text_hash,"
                    " vector = excluded.vector",
                    [(kind, item, provider.name, digest(text), vector.astype(np.float32).tobytes())
                     for (item, text), vector in zip(batch, vectors, strict=True)])
            if progress:
                progress(f"embeddings ({kind})", min(start + BATCH, len(todo)), len(todo))
        report[kind] = {"items": len(texts), "embedded": len(todo) if failed is None else None, "removed": len(gone),
                        **({"failed": failed} if failed else {})}
        if failed:
            break
    return {"model": provider.name, **report}


@dataclass
class Vectors:
    """The vectors of one kind in memory: items and a unit-row matrix."""

    items: list[str]
    matrix: np.ndarray

    @classmethod
    def load(cls, db: Database, kind: str, model: str) -> Vectors:
        rows = db.rows("SELECT item, vector FROM knowledge_vectors WHERE kind = ? AND model = ? ORDER BY item",
                       (kind, model))
        if not rows:
            return cls([], np.zeros((0, 0), dtype=np.float32))
        return cls([r[0] for r in rows], np.vstack([np.frombuffer(r[1], dtype=np.float32) for r in rows]))

    def nearest(self, query: np.ndarray, k: int) -> list[tuple[str, float]]:
        if not self.items:
            return []
        scores = self.matrix @ query.astype(np.float32)
        top = np.argsort(-scores)[:k]
        return [(self.items[i], float(scores[i])) for i in top]


