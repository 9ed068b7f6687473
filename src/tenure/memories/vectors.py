"""Memory vectors: best effort, stored turned by the scope's keyed rotation, ranked where they are kept.

An embedding can be inverted into much of the text it came from, so no vector is stored in the model's
space: each is turned by the orthogonal matrix its scope's key derives (`Cipher.rotate`). A rotation
keeps every inner product, so the database ranks the stored vectors against the query turned the same
way exactly as the model's vectors would rank (docs/team.md says what the rotation hides and what not).
Where the ranking runs follows the backend: PostgreSQL ranks them itself (pgvector's exact `<#>` over
the project's rows, under row-level security: `ServerSearch`); a project's SQLite file is read once per
process into one matrix per scope (`LocalSearch`). Vectors of different models never mix: a memory
without a vector of the current model is backfilled by `backfill`, and until then ranked on terms alone.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from functools import cached_property
from typing import Any, Protocol

import numpy as np
from threadpoolctl import ThreadpoolController

from tenure.memories.crypto import Cipher
from tenure.memories.store import SCOPES
from tenure.storage import Database

RESTORE_BATCH = 1000
_BLAS = ThreadpoolController()


class Provider(Protocol):
    name: str

    def embed(self, texts: list[str]) -> np.ndarray: ...


AUTO: Any = object()  # "ask tenure.embeddings for the configured provider"
Scored = dict[int, float]  # memory id -> cosine to the query


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
        self._complete_upto = 0  # every memory up to this id has a vector of the model (or is retired)
        self._last_query: tuple[str | None, np.ndarray | None] = (None, None)
        self._restored = False  # memory_vectors' encrypted rows of the readable scopes were moved

    @cached_property
    def _search(self) -> ServerSearch | LocalSearch:
        return ServerSearch(self.db) if self.db.ranks_on_server else LocalSearch(self.db)

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

    def put(self, memory_id: int, vector: np.ndarray, scope: str) -> None:
        assert self.provider is not None
        cipher = self._cipher(scope)
        assert cipher is not None  # (a memory is written only with its scope's key)
        store(self.db, memory_id, self.provider.name, cipher.rotate(vector), scope)

    # ranking ------------------------------------------------------------------------------------
    def nearest(self, query: np.ndarray, limit: int, within: Collection[int] | None,
                retired: Collection[int]) -> Scored:
        """The `limit` memories of the readable scopes closest to `query` (the model's vector),
        leaving out `retired` and, given `within`, any memory outside it: exact."""
        turned = self._turned(query)
        return self._search.nearest(turned, self._model(), limit, within, retired) if turned else {}

    def cosines(self, query: np.ndarray, memory_ids: Collection[int]) -> Scored:
        """The cosines of these memories to `query` (those with a vector of the model)."""
        turned = self._turned(query)
        return self._search.cosines(turned, self._model(), memory_ids) if turned and memory_ids else {}

    def above(self, vector: np.ndarray, scope: str, threshold: float) -> Scored:
        """The memories of `scope` whose cosine to `vector` is at least `threshold`."""
        cipher = self._cipher(scope)
        if self.provider is None or cipher is None:
            return {}
        return self._search.above({scope: cipher.rotate(vector)}, self._model(), threshold)

    def _turned(self, query: np.ndarray) -> dict[str, np.ndarray]:
        """The query as each readable scope's vectors are stored: turned by that scope's key."""
        if self.provider is None:
            return {}
        return {scope: cipher.rotate(query) for scope in SCOPES if (cipher := self._cipher(scope)) is not None}

    def _model(self) -> str:
        assert self.provider is not None
        return self.provider.name

    # filling in ---------------------------------------------------------------------------------
    def missing(self, limit: int) -> list[int]:
        """Live memories that have no vector of the current model yet, oldest first. Only memories
        newer than the last complete check are read: one range of an index that leads with the project
        on a team's server (a MAX(id) there walked every newer row of the other projects, and a join
        planned once for any id read all the project's vectors), and their vectors only when there are
        any. A memory superseded before it got a vector needs none: its successor is newer."""
        if self.provider is None:
            return []
        # (sorted here: an ORDER BY id lets the planner walk the primary key, and through it every newer
        # row of the other projects, to spare a sort)
        newer = sorted(self.db.rows("SELECT id, scope FROM memories WHERE id > ? AND superseded_by IS NULL",
                                    (self._complete_upto,)))
        if not newer:
            return []
        have = {memory_id for (memory_id,) in self.db.rows(
            f"SELECT memory_id FROM memory_embeddings WHERE model = ? AND memory_id IN {self.db.each}",
            (self.provider.name, self.db.many([memory_id for memory_id, _ in newer])))}
        wanting = [memory_id for memory_id, scope in newer if memory_id not in have and self._cipher(scope) is not None]
        if not wanting:
            self._complete_upto = newer[-1][0]
        return wanting[:limit]

    def restore(self) -> int:
        """Move the vectors stored encrypted before vectors were stored turned (`memory_vectors`,
        memories migration 9, which holds no key to do it) into `memory_embeddings`: decrypted and
        turned by the first process holding the scope's key, once. Returns how many were moved."""
        if self._restored:
            return 0
        readable = [scope for scope in SCOPES if self._cipher(scope) is not None]
        moved = 0
        while rows := self.db.query(f"SELECT memory_id, model, vector, scope FROM memory_vectors"
                                    f" WHERE scope IN {self.db.each} ORDER BY memory_id LIMIT ?",
                                    (self.db.many(readable), RESTORE_BATCH)):
            with self.db.transaction():
                for r in rows:
                    cipher = self._cipher(r["scope"])
                    assert cipher is not None
                    plain = np.frombuffer(cipher.decrypt_bytes(r["vector"], "vector"), dtype=np.float32)
                    store(self.db, r["memory_id"], r["model"], cipher.rotate(plain), r["scope"], replace=False)
                self.db.execute(f"DELETE FROM memory_vectors WHERE memory_id IN {self.db.each}",
                                (self.db.many([r["memory_id"] for r in rows]),))
            moved += len(rows)
        self._restored = True
        return moved


def store(db: Database, memory_id: int, model: str, turned: np.ndarray, scope: str, replace: bool = True) -> None:
    """A memory's turned vector. `written`: one past the last write of its scope, taken under the write
    lock, so every process that holds vectors reads this one at its next search, whichever memory it
    belongs to; counted per scope (on the team database a project sees its own rows and the
    organisation's). `replace=False`: a vector the memory already has is kept (it is newer)."""
    update = "DO UPDATE SET model = excluded.model, embedding = excluded.embedding, written = excluded.written" \
        if replace else "DO NOTHING"
    db.execute(
        "INSERT INTO memory_embeddings (memory_id, model, embedding, scope, written) VALUES (?, ?, ?, ?,"
        " (SELECT COALESCE(MAX(written), 0) + 1 FROM memory_embeddings WHERE scope = ?))"
        f" ON CONFLICT (memory_id) {update}",
        (memory_id, model, db.vector(turned), scope, scope),
    )


class ServerSearch:
    """The team database ranks: pgvector's exact inner product (`<#>`, the negative of it) over the
    rows of the project and of its organisation that row-level security shows, no approximate index
    (one shared by the projects loses most of a project's answer under the filter: docs/team.md)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def nearest(self, turned: dict[str, np.ndarray], model: str, limit: int, within: Collection[int] | None,
                retired: Collection[int]) -> Scored:
        each = self.db.each
        inside = f" AND memory_id IN {each}" if within is not None else ""
        part = (f"(SELECT memory_id, embedding <#> ? AS distance FROM memory_embeddings WHERE scope = ? AND model = ?"
                f" AND memory_id NOT IN {each}{inside} ORDER BY distance LIMIT ?)")
        params: list[Any] = []
        for scope, query in turned.items():
            params += [self.db.vector(query), scope, model, self.db.many(sorted(retired)),
                       *([self.db.many(sorted(within))] if within is not None else []), limit]
        found = self.db.rows(" UNION ALL ".join([part] * len(turned)), params)
        return dict(sorted(((m, -d) for m, d in found), key=lambda x: -x[1])[:limit])

    def cosines(self, turned: dict[str, np.ndarray], model: str, memory_ids: Collection[int]) -> Scored:
        part = (f"SELECT memory_id, embedding <#> ? FROM memory_embeddings WHERE scope = ? AND model = ?"
                f" AND memory_id IN {self.db.each}")
        ids = self.db.many(sorted(memory_ids))
        params = [p for scope, query in turned.items() for p in (self.db.vector(query), scope, model, ids)]
        return {m: -d for m, d in self.db.rows(" UNION ALL ".join([part] * len(turned)), params)}

    def above(self, turned: dict[str, np.ndarray], model: str, threshold: float) -> Scored:
        [(scope, query)] = turned.items()
        return {m: -d for m, d in self.db.rows(
            "SELECT memory_id, distance FROM (SELECT memory_id, embedding <#> ? AS distance FROM memory_embeddings"
            " WHERE scope = ? AND model = ?) AS scored WHERE distance <= ?",
            (self.db.vector(query), scope, model, -threshold))}


class LocalSearch:
    """A project's own file: its vectors read once per process into one matrix per scope, and at each
    search what was written since (by any process: a new memory, one backfilled, one embedded again);
    a query is one matrix product per scope."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._ids = {scope: np.zeros(0, dtype=np.int64) for scope in SCOPES}
        self._matrix: dict[str, np.ndarray | None] = dict.fromkeys(SCOPES)
        self._seen_written = dict.fromkeys(SCOPES, 0)  # the last vector write of each scope read

    def nearest(self, turned: dict[str, np.ndarray], model: str, limit: int, within: Collection[int] | None,
                retired: Collection[int]) -> Scored:
        ids, cos = self._scored(turned, model)
        if not len(ids):
            return {}
        excluded = np.isin(ids, np.fromiter(retired, dtype=np.int64, count=len(retired)))
        if within is not None:
            excluded |= ~np.isin(ids, np.fromiter(within, dtype=np.int64, count=len(within)))
        cos[excluded] = -np.inf
        top = np.argpartition(-cos, limit)[:limit] if len(cos) > limit else np.arange(len(cos))
        return {int(ids[k]): float(cos[k]) for k in top if cos[k] > -np.inf}

    def cosines(self, turned: dict[str, np.ndarray], model: str, memory_ids: Collection[int]) -> Scored:
        """(only the rows of `memory_ids` multiplied: a recall asks for a few hundred of them)"""
        self._read(list(turned), model)
        asked = np.fromiter(memory_ids, dtype=np.int64, count=len(memory_ids))
        found: Scored = {}
        for scope, query in turned.items():
            if (matrix := self._matrix[scope]) is not None:
                wanted = np.isin(self._ids[scope], asked)
                found.update(zip(self._ids[scope][wanted].tolist(), (matrix[wanted] @ query).tolist(), strict=True))
        return found

    def above(self, turned: dict[str, np.ndarray], model: str, threshold: float) -> Scored:
        ids, cos = self._scored(turned, model)
        close = cos >= threshold
        return {int(m): float(c) for m, c in zip(ids[close], cos[close], strict=True)}

    def _scored(self, turned: dict[str, np.ndarray], model: str) -> tuple[np.ndarray, np.ndarray]:
        """(memory ids, cosines) of every vector of the scopes of `turned`."""
        self._read(list(turned), model)
        ids, cos = [], []
        with _BLAS.limit(limits=1, user_api="blas"):  # (one product of a few MB: threads would only wait)
            for scope, query in turned.items():
                if (matrix := self._matrix[scope]) is not None:
                    ids.append(self._ids[scope])
                    cos.append(matrix @ query)
        if not ids:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        return np.concatenate(ids), np.concatenate(cos)

    def _read(self, scopes: list[str], model: str) -> None:
        """Read what was written since the last call (one indexed range per scope: an OR of the scopes
        would read the whole table)."""
        part = ("SELECT memory_id, embedding, written, scope FROM memory_embeddings"
                " WHERE scope = ? AND written > ? AND model = ?")
        rows = self.db.rows(" UNION ALL ".join([part] * len(scopes)) + " ORDER BY written",
                            [p for scope in scopes for p in (scope, self._seen_written[scope], model)])
        for scope in scopes:
            mine = [r for r in rows if r[3] == scope]
            if not mine:
                continue
            self._seen_written[scope] = max(r[2] for r in mine)
            ids = np.array([r[0] for r in mine], dtype=np.int64)
            fresh = np.array([r[1] for r in mine])  # (np.stack makes a view of each: 10x slower at 100k)
            held = self._matrix[scope]
            if held is None:
                self._ids[scope], self._matrix[scope] = ids, fresh
            else:  # a memory read again (embedded anew) replaces its copy
                kept = ~np.isin(self._ids[scope], ids)
                self._ids[scope] = np.concatenate([self._ids[scope][kept], ids])
                self._matrix[scope] = np.vstack([held[kept], fresh])


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
