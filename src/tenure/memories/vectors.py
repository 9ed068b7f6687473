"""Memory vectors: best effort, encrypted at rest, held in memory per process for recall.

Vectors can be inverted into much of the text they came from, so they are encrypted like the
content itself. Vectors of different models never mix: a memory without a vector of the current
model is backfilled by `backfill`, and until then it is ranked on terms alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from tenure.memories.crypto import Cipher
from tenure.memories.store import ORG_SCOPE, PROJECT_SCOPE, SCOPES
from tenure.storage import Database


class Provider(Protocol):
    name: str

    def embed(self, texts: list[str]) -> np.ndarray: ...


AUTO: Any = object()  # "ask tenure.embeddings for the configured provider"


def configured_provider() -> tuple[Provider | None, str]:
    """The configured embedding provider, or None and why not."""
    try:
        from tenure.embeddings import get_provider
    except ImportError:
        return None, "no embedding provider is installed"
    try:
        provider = get_provider()
    except Exception as exc:  # a broken provider must degrade recall, never break it
        return None, f"the embedding provider failed to load: {exc}"
    return provider, "" if provider else "no embedding provider is configured"


class Vectors:
    def __init__(self, db: Database, cipher: Callable[[str], Cipher | None],
                 provider: Provider | None | Any = AUTO) -> None:
        """`cipher(scope)`: the cipher of a memory scope, None when this process cannot read it (no
        organisation key): such vectors are left out."""
        self.db = db
        self._cipher = cipher
        self._provider = provider
        self._why_none = "" if provider is not None else "no embedding provider was given"
        self._ids = np.zeros(0, dtype=np.int64)
        self._matrix: np.ndarray | None = None
        self._seen_written = dict.fromkeys(SCOPES, 0)  # the last vector write of each scope `matrix` read
        self._complete_upto = 0  # every memory up to this id has a vector of the model (or is retired)
        self._last_query: tuple[str | None, np.ndarray | None] = (None, None)

    @property
    def provider(self) -> Provider | None:
        if self._provider is AUTO:
            self._provider, self._why_none = configured_provider()
        return self._provider

    @property
    def mode(self) -> str:
        return "semantic" if self.provider else "lexical"

    def mode_note(self) -> str:
        if self.provider:
            return f"semantic + lexical (embeddings: {self.provider.name})"
        return f"lexical only: {self._why_none}; ranked by term overlap"

    def warm(self) -> None:
        """Load the model ahead of the first query: a server does this in a thread as it starts, so
        that its first `session_start` does not wait for the weights. Touches no database."""
        self.embed(["warm up"])

    def embed(self, texts: list[str]) -> np.ndarray | None:
        """Unit vectors for `texts`, or None when there is no working provider (then: lexical)."""
        provider = self.provider
        if provider is None or not texts:
            return None
        last = self._last_query
        if len(texts) == 1 and last[0] == texts[0]:
            return last[1]  # (one briefing asks for its task's vector three times: selection, meaning, recall)
        try:
            vectors = np.asarray(provider.embed(texts), dtype=np.float32)
        except Exception as exc:  # an unreachable endpoint degrades this call to lexical
            self._why_none = f"the embedding provider failed: {exc}"
            return None
        if len(texts) == 1:
            vectors.flags.writeable = False  # (shared by the callers that ask again)
            self._last_query = (texts[0], vectors)
        return vectors

    def put(self, memory_id: int, vector: np.ndarray, scope: str = PROJECT_SCOPE) -> None:
        assert self.provider is not None
        cipher = self._cipher(scope)
        assert cipher is not None  # (a memory is written only with its scope's key)
        blob = cipher.encrypt(np.asarray(vector, dtype=np.float32).tobytes(), "vector")
        # (`written`: one past the last write of its scope, taken under the write lock, so every process
        # that holds vectors reads this one at its next `matrix`, whichever memory it belongs to; counted
        # per scope: on the team database each project sees its own and the organisation's rows)
        self.db.execute(
            "INSERT INTO memory_vectors (memory_id, model, vector, scope, written) VALUES (?, ?, ?, ?,"
            " (SELECT COALESCE(MAX(written), 0) + 1 FROM memory_vectors WHERE scope = ?)) ON CONFLICT (memory_id)"
            " DO UPDATE SET model = excluded.model, vector = excluded.vector, written = excluded.written",
            (memory_id, self.provider.name, blob, scope, scope),
        )

    def matrix(self) -> tuple[np.ndarray, np.ndarray]:
        """(memory ids, unit vectors) of every memory with a vector of the current model, each once.
        Vectors written since the last call (by any process, for any memory: a new one, one filled
        in by a backfill, one embedded again) are read and decrypted once."""
        provider = self.provider
        if provider is None:
            return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
        seen = self._seen_written
        # (one indexed range per scope: an OR of the two would read the whole table on every recall)
        part = ("SELECT memory_id, vector, written, scope FROM memory_vectors"
                " WHERE scope = ? AND written > ? AND model = ?")
        rows = self.db.query(f"{part} UNION ALL {part} ORDER BY written", (
            PROJECT_SCOPE, seen[PROJECT_SCOPE], provider.name, ORG_SCOPE, seen[ORG_SCOPE], provider.name))
        if rows:
            self._append(rows)
        if self._matrix is None:
            return self._ids, np.zeros((0, 0), dtype=np.float32)
        return self._ids, self._matrix

    def _append(self, rows: list[dict]) -> None:
        for r in rows:
            self._seen_written[r["scope"]] = max(self._seen_written[r["scope"]], r["written"])
        ciphers = {scope: self._cipher(scope) for scope in {r["scope"] for r in rows}}
        rows = [r for r in rows if ciphers[r["scope"]] is not None]
        if not rows:
            return
        plain = b"".join(ciphers[r["scope"]].decrypt_bytes(r["vector"], "vector") for r in rows)  # type: ignore[union-attr]
        fresh = np.frombuffer(plain, dtype=np.float32).reshape(len(rows), -1)
        ids = np.array([r["memory_id"] for r in rows], dtype=np.int64)
        if self._matrix is None:
            self._ids, self._matrix = ids, fresh
        else:  # a memory read again (embedded anew) replaces its copy
            kept = ~np.isin(self._ids, ids)
            self._ids = np.concatenate([self._ids[kept], ids])
            self._matrix = np.vstack([self._matrix[kept], fresh])

    def missing(self, limit: int) -> list[int]:
        """Live memories that have no vector of the current model yet, oldest first. Only memories
        newer than the last complete check are looked at: a recall does not scan the whole table."""
        if self.provider is None:
            return []
        newest = self.db.query("SELECT COALESCE(MAX(id), 0) AS n FROM memories")[0]["n"]
        if newest <= self._complete_upto:
            return []  # (nothing written since the last check: no second round trip, which costs on a server)
        readable = [scope for scope in SCOPES if self._cipher(scope) is not None]
        rows = self.db.query(
            f"""SELECT m.id FROM memories m LEFT JOIN memory_vectors v ON v.memory_id = m.id AND v.model = ?
               WHERE m.id > ? AND m.superseded_by IS NULL AND v.memory_id IS NULL AND m.scope IN {self.db.each}
               ORDER BY m.id LIMIT ?""",
            (self.provider.name, self._complete_upto, self.db.many(readable), limit),
        )
        if not rows:
            self._complete_upto = newest
        return [r["id"] for r in rows]


def element_fingerprints(db: Database) -> dict[str, str]:
    """element -> the fingerprint of the code its kept vector and terms were both made from (a
    vector of any model: a model changed is rare, and `tenure backfill` then embeds again)."""
    return dict(db.rows("SELECT v.element, v.fingerprint FROM element_vectors v JOIN element_terms t"
                        " ON t.element = v.element AND t.fingerprint = v.fingerprint"))


class ElementVectors:
    """Vectors of elements' descriptions and the terms of their code, for selection
    (`tenure.namespace.selection.ElementVectors`), kept in `element_vectors` and `element_terms` by
    the fingerprint of the code they were made from. Plain: made from code, which the repository
    holds anyway."""

    def __init__(self, db: Database, vectors: Vectors | None) -> None:
        self.db = db
        self.vectors = vectors  # None: terms only (an index keeps them without the embedding stack)

    def embed(self, texts: list[str]) -> np.ndarray | None:
        return self.vectors.embed(texts) if self.vectors else None

    def configured(self) -> bool:
        return self.vectors is not None and self.vectors.provider is not None

    def stored(self) -> dict[str, tuple[str, np.ndarray]]:
        if self.vectors is None or self.vectors.provider is None:
            return {}
        return {r["element"]: (r["fingerprint"], np.frombuffer(r["vector"], dtype=np.float32))
                for r in self.db.query("SELECT element, fingerprint, vector FROM element_vectors WHERE model = ?",
                                       (self._model(),))}

    def stored_terms(self) -> dict[str, tuple[str, str]]:
        return {element: (fingerprint, terms) for element, fingerprint, terms in
                self.db.rows("SELECT element, fingerprint, terms FROM element_terms")}

    def store_terms(self, terms: list[tuple[str, str, str]]) -> None:
        with self.db.transaction():
            self.db.executemany(
                "INSERT INTO element_terms (element, fingerprint, terms) VALUES (?, ?, ?) ON CONFLICT (element)"
                " DO UPDATE SET fingerprint = excluded.fingerprint, terms = excluded.terms", terms)

    def store(self, vectors: list[tuple[str, str, np.ndarray]]) -> None:
        if self.vectors is None or self.vectors.provider is None or not vectors:
            return
        model = self._model()
        with self.db.transaction():
            self.db.executemany(
                "INSERT INTO element_vectors (element, fingerprint, model, vector) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (element) DO UPDATE SET fingerprint = excluded.fingerprint, model = excluded.model,"
                " vector = excluded.vector",
                [(element, fingerprint, model, vector.tobytes()) for element, fingerprint, vector in vectors],
            )

    def _model(self) -> str:
        assert self.vectors is not None
        provider = self.vectors.provider
        assert provider is not None  # (asked only after `embed` gave a vector)
        return provider.name
