"""Memories: agent- and human-written facts attached to elements (SPEC §3). `Tenure.memories`.

Every verb returns plain dicts (JSON-ready): the CLI and the MCP server are thin layers over them.
"""

from __future__ import annotations

import getpass
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from tenure.memories import briefing, dedupe, drift, knowledge_map, links, ranking, sessions, usage
from tenure.memories.checkout_store import checkout_migrations
from tenure.memories.crypto import Cipher, has_org_key, key_file, load_key, load_org_key, org_key_file
from tenure.memories.errors import KeyProblem, MemoriesError
from tenure.memories.recall import Hit, Query, overlaps_of, rank, relevances
from tenure.memories.store import (
    ORG_SCOPE,
    PROJECT_SCOPE,
    SCOPES,
    add_event,
    ensure_meta,
    get_meta,
    migrations,
    parse_stamp,
    stamp,
)
from tenure.memories.vectors import AUTO, ElementVectors, Provider, Vectors
from tenure.namespace import selection
from tenure.namespace.elements import PROJECT, ElementError, Place, contains, display, kind_of, places, try_resolve
from tenure.namespace.elements import resolve as resolve_element
from tenure.namespace.terms import normalised, terms
from tenure.state import EMBED_LOCK, lock_held, state_dir
from tenure.storage import Database
from tenure.team.organisation import NoOrganisation, organisation, require_organisation
from tenure.words import counted

Clock = Callable[[], datetime]
WRITABLE_KINDS = ("note", "convention", "pitfall")  # session_outcome is written by end_session only
BACKFILL_ON_RECALL = 256  # vectors embedded per recall for memories written before a provider existed
NEIGHBOUR_HITS = 3  # how many top hits pull their linked neighbours along
NEIGHBOURS_PER_HIT = 3
MAX_ID = 2**63 - 1  # SQLite's largest integer: no memory has a larger id
# What a memory may hold, in characters: a fact is a few sentences (a 13 MB one took a minute and
# gigabytes to write, and filled every briefing), a title a name to link it by.
LIMITS = {"content": 16_000, "title": 200, "task": 2_000, "author": 200}
_SHORTER = {
    "content": "say the fact in a few sentences, and link what explains it ([[Title]] of another memory, doc:NAME)",
    "title": "a title is a short name to link the memory by, e.g. 'Ledger rounding'",
    "task": "say the task in a sentence or two",
    "author": "name who says so, e.g. claude-code/sarah",
}
MEMORY_MIN = 0.2  # relevance a recalled memory needs for its elements to count in selection


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class Draft:
    """A write, prepared outside the transaction (vectors can be slow)."""

    kind: str
    content: str
    title: str | None
    elements: list[str]
    author: str
    session: str | None = None
    outcome: str | None = None
    supersedes: int | None = None
    scope: str = PROJECT_SCOPE
    terms: set[str] = field(default_factory=set)
    vector: np.ndarray | None = None


class Memories:
    def __init__(self, db: Database, root: Path, clock: Clock | None = None,
                 provider: Provider | None | Any = AUTO, code: Database | None = None) -> None:
        """`db`: the memories' own database (a team's, shared); `code`: the checkout's, which the
        namespace reads the code from (the same one without a team database)."""
        self.db = db
        self.code = code or db
        self.root = Path(root)
        self.clock = clock or utc_now
        migrations.apply(db)
        checkout_migrations.apply(self.code)
        self._cipher: Cipher | None = None
        self._org_cipher: Cipher | None = None
        self.vectors = Vectors(db, self.readable_cipher, provider)
        # `db` is the team database, where organisation-scope content reaches every project of the
        # organisation; a project's own database keeps it until `tenure team push`
        self.team_database = self.code is not self.db
        self._organisation: list[str | None] = []  # (looked up once: it asks git)
        # the always-loaded rules (procedural memory's promoted rules), set by Tenure: part of every briefing
        self.rules: Callable[[], list[str]] | None = None
        # set by Tenure: what opens the organisation's content another store sealed (its rules; None: none is)
        self.org_content_elsewhere: Callable[[], Callable[[Cipher], object] | None] = lambda: None

    # keys ---------------------------------------------------------------------------------------
    def cipher(self, scope: str = PROJECT_SCOPE) -> Cipher:
        """The cipher of a scope: the project's, loaded on first use and checked against the key id
        on record; or the organisation's (`org_cipher`)."""
        if scope == ORG_SCOPE:
            return self.org_cipher()
        if self._cipher is None:
            project_id = ensure_meta(self.db, "project_id", uuid.uuid4().hex)
            recorded = get_meta(self.db, "key_id")
            cipher = Cipher(load_key(project_id, self.root, create=recorded is None))
            recorded = recorded or ensure_meta(self.db, "key_id", cipher.key_id)
            if recorded != cipher.key_id:
                raise KeyProblem(
                    f"this key (id {cipher.key_id}) is not the one these memories were written with (id {recorded}). "
                    f"Set TENURE_KEY to the original key or restore {key_file(project_id)}; "
                    "nothing was read or written.")
            self._cipher = cipher
        return self._cipher

    def org_cipher(self, create: bool = False) -> Cipher:
        """The organisation's cipher (its key: `TENURE_ORG_KEY` or `org-NAME.key`, shared by the team out of band).
        A key is made only by the first organisation-scope write anywhere this database reaches; one that does
        not open the organisation's content already written is refused before anything is read or written."""
        if self._org_cipher is None:
            org = self.organisation()
            if org is None:
                require_organisation(self.root)  # (refuses, saying how to name one)
            assert org is not None
            first = self.db.query("SELECT content FROM memories WHERE scope = 'org' ORDER BY id LIMIT 1")
            opens = (lambda c: c.decrypt(first[0]["content"], "content")) if first else self.org_content_elsewhere()
            teammate = (f"get the organisation's key from a teammate (TENURE_ORG_KEY, or the file {org_key_file(org)});"
                        " nothing was read or written")
            if opens is not None and not has_org_key(org):  # (a new key would not open what is written)
                raise KeyProblem(f"{org}'s organisation content is encrypted with its key, and this process has none: "
                                 + teammate)
            cipher = Cipher(load_org_key(org, self.root, create=create and opens is None),
                            f"the organisation {org}'s key")
            try:
                if opens is not None:
                    opens(cipher)
            except KeyProblem as exc:
                raise KeyProblem(f"this organisation key (id {cipher.key_id}) is not the one {org}'s content was "
                                 f"written with: {teammate}") from exc
            self._org_cipher = cipher
        return self._org_cipher

    def organisation(self) -> str | None:
        if not self._organisation:
            self._organisation.append(organisation(self.root))
        return self._organisation[0]

    def readable_cipher(self, scope: str) -> Cipher | None:
        """The scope's cipher, or None for the organisation's when this process has no organisation
        or no key of it (its memories are then left out, and recall says so)."""
        if scope == ORG_SCOPE and self._org_cipher is None:
            org = self.organisation()
            if org is None or not has_org_key(org):
                return None
        return self.cipher(scope)

    def readable_scopes(self) -> list[str]:
        return [scope for scope in SCOPES if self.readable_cipher(scope) is not None]

    def _cipher_of(self, row: dict) -> Cipher:
        return self.cipher(row["scope"])

    def _hash_terms(self, text: str, scope: str = PROJECT_SCOPE) -> set[str]:
        cipher = self.cipher(scope)
        return {cipher.term_hash(t) for t in terms(text)}

    def _title_key(self, title: str, scope: str = PROJECT_SCOPE) -> str:
        return self.cipher(scope).term_hash(links.title_text(title))

    def _title_keys(self, title: str) -> list[str]:
        """The title hashed with every key this process reads: a title names a memory of either scope."""
        return [self._title_key(title, scope) for scope in self.readable_scopes()]

    # writing ------------------------------------------------------------------------------------
    def remember(self, content: str, kind: str | None = None, elements: Iterable[str] | None = None,
                 title: str | None = None, supersedes: int | str | None = None, author: str | None = None,
                 session: str | None = None, scope: str | None = None) -> dict:
        """Store a fact. Returns {id, deduplicated, similarTo, links}: the same fact written again
        confirms the existing memory instead (deduplicated: true). `scope` 'org': a fact of the
        whole organisation ("all our services retry idempotently"), encrypted with its key; a new
        version keeps the scope of the one it replaces."""
        check_sizes(content=content, title=title, author=author)
        old = self._live_memory(supersedes) if supersedes is not None else None
        scope = scope or (old["scope"] if old else PROJECT_SCOPE)
        if scope not in SCOPES:
            raise MemoriesError(f"scope {scope!r} is not one of {', '.join(SCOPES)}")
        if old and old["scope"] != scope:
            raise MemoriesError(f"memory #{old['id']} is of {old['scope']} scope: its new version cannot be of "
                                f"{scope} scope (write a separate memory instead)")
        if scope == ORG_SCOPE:
            try:
                self.org_cipher(create=True)
            except NoOrganisation as exc:
                raise MemoriesError(str(exc)) from exc
        kind = kind or (old["kind"] if old else "note")
        if kind not in WRITABLE_KINDS:
            raise MemoriesError(f"kind {kind!r} is not one of {', '.join(WRITABLE_KINDS)} "
                                "(session_outcome is written when a work session ends)")
        names = list(elements or [])
        resolved = [self._element(e) for e in names] if names else \
            (self._elements_of(old["id"]) if old else [PROJECT])
        if old and title is None and old["title"]:
            title = self._cipher_of(old).decrypt(old["title"], "title")  # the new version keeps the address
        draft = Draft(kind, content, title, list(dict.fromkeys(resolved)), author or default_author(), session,
                      supersedes=old["id"] if old else None, scope=scope)
        written = self._commit(self._prepare(draft))
        if scope == ORG_SCOPE:
            written["scope"] = ORG_SCOPE
            if not self.team_database:
                written["note"] = ("kept in this project's own database, marked organisation scope: only this "
                                   "project reads it until `tenure team push` carries it to the team database")
        return written

    def supersede(self, old: int | str, content: str, title: str | None = None, kind: str | None = None,
                  elements: Iterable[str] | None = None, author: str | None = None) -> dict:
        """Replace a fact that changed: the old version leaves retrieval and stays in history."""
        return self.remember(content, kind, elements, title, supersedes=old, author=author)

    def confirm(self, ref: int | str, author: str | None = None) -> dict:
        """Someone checked and it still holds: resets freshness, counts it, clears a drift flag."""
        with self.db.transaction():
            row = self._live_memory(ref)
            return self._confirm(row, self.clock(), f"by {author or default_author()}", "confirmed")

    def _confirm(self, row: dict, now: datetime, detail: str, event: str) -> dict:
        was_drifted = bool(row["verify"])
        self.db.execute("UPDATE memories SET confirmed_at = ?, confirmations = confirmations + 1, verify = 0"
                        " WHERE id = ?",
                        (stamp(now), row["id"]))
        add_event(self.db, row["id"], now, event, detail)
        drift.record_fingerprints(self.db, self.code, row["id"])  # confirmed against the code as it is now
        return {"id": row["id"], "confirmations": row["confirmations"] + 1, "clearedDrift": was_drifted}

    def _prepare(self, draft: Draft) -> Draft:
        if not draft.content.strip():
            raise MemoriesError("a memory needs content: say what is true, e.g. "
                                "'the gateway strips headers longer than 8KB'")
        draft.terms = self._hash_terms(" ".join([draft.title or "", draft.content, *map(display, draft.elements)]),
                                       draft.scope)
        vectors = self.vectors.embed([embed_text(draft.title, draft.content)])
        draft.vector = vectors[0] if vectors is not None else None
        return draft

    def _commit(self, draft: Draft) -> dict:
        with self.db.transaction():
            now = self.clock()
            if draft.supersedes is not None:
                self._live_memory(draft.supersedes)  # another process may have superseded it meanwhile
            same, similar = self._neighbours_of(draft)
            if same is not None:
                return self._deduplicate(same, draft, now)
            self._check_title_free(draft)
            memory_id = self._insert(draft, now)
            made = self._link(memory_id, draft)
            return {"id": memory_id, "deduplicated": False, "similarTo": similar, **made}

    def _neighbours_of(self, draft: Draft) -> tuple[dict | None, list[dict]]:
        """(the live memory this draft repeats, or None; the near misses)."""
        if draft.kind == "session_outcome":
            return None, []  # every session's outcome is its own episode
        same = dedupe.same_content(self.db, self._content_key(draft.content, draft.scope), draft.supersedes)
        if same is not None:
            return {"id": same, "similarity": 1.0, "how": "identical content"}, []
        mine = dedupe.specifics(draft.content)
        if draft.vector is None:
            return None, self._describe_similar(dedupe.by_terms(self.db, draft.terms, draft.supersedes, draft.scope),
                                                mine)
        close, similar = dedupe.by_vector(self.db, self.vectors, draft.vector, draft.supersedes,
                                          lambda memory_id: self._specifics(memory_id) != mine, draft.scope)
        if close is not None:
            return {"id": close[0], "similarity": round(close[1], 4), "how": "cosine"}, []
        return None, self._describe_similar(similar, mine)

    def _content_key(self, content: str, scope: str = PROJECT_SCOPE) -> str:
        return self.cipher(scope).term_hash("content:" + normalised(content))

    def _specifics(self, memory_id: int) -> frozenset[str]:
        row = self._rows([memory_id])[0]
        return dedupe.specifics(self._cipher_of(row).decrypt(row["content"], "content"))

    def _describe_similar(self, scored: list[tuple[int, float]], mine: frozenset[str]) -> list[dict]:
        """The near misses, each with the specifics it differs in (`dedupe.differences`) when it does."""
        rows = {r["id"]: r for r in self._rows([i for i, _ in scored])}
        found = []
        for i, s in scored:
            cipher = self._cipher_of(rows[i])
            near = {"id": i, "title": cipher.decrypt(rows[i]["title"], "title") or None, "similarity": round(s, 4)}
            differs = dedupe.differences(mine, dedupe.specifics(cipher.decrypt(rows[i]["content"], "content")))
            found.append({**near, "differs": differs} if differs else near)
        return found

    def _deduplicate(self, same: dict, draft: Draft, now: datetime) -> dict:
        row = self._rows([same["id"]])[0]
        confirmed = self._confirm(row, now, f"the same fact written again by {draft.author} ({same['how']})",
                                  "deduplicated")
        added = [e for e in draft.elements if e not in self._elements_of(row["id"])]
        self._attach(row["id"], added, row["scope"])
        return {"id": row["id"], "deduplicated": True, "similarity": same["similarity"], "similarTo": [],
                "confirmations": confirmed["confirmations"], "elementsAdded": added}

    def _check_title_free(self, draft: Draft) -> None:
        if not draft.title:
            return
        for r in self.db.query("SELECT id FROM memories WHERE title_key = ? AND superseded_by IS NULL",
                               (self._title_key(draft.title, draft.scope),)):
            if r["id"] != draft.supersedes:
                raise MemoriesError(f"memory #{r['id']} already has the title {draft.title!r}: pass "
                                    f"supersedes={r['id']} to replace it, or choose another title")

    def _insert(self, draft: Draft, now: datetime) -> int:
        cipher = self.cipher(draft.scope)
        [(memory_id,)] = self.db.rows(
            """INSERT INTO memories (kind, title, content, title_key, content_key, author, session_id, outcome,
               created_at, confirmed_at, supersedes, scope) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id""",
            (draft.kind, cipher.encrypt(draft.title, "title") if draft.title else None,
             cipher.encrypt(draft.content, "content"),
             self._title_key(draft.title, draft.scope) if draft.title else None,
             self._content_key(draft.content, draft.scope), draft.author, draft.session, draft.outcome,
             stamp(now), stamp(now), draft.supersedes, draft.scope),
        )
        self._attach(memory_id, draft.elements, draft.scope)
        self.db.executemany("INSERT INTO memory_terms (term, memory_id, scope) VALUES (?, ?, ?)",
                            [(t, memory_id, draft.scope) for t in sorted(draft.terms)])
        if draft.vector is not None:
            self.vectors.put(memory_id, draft.vector, draft.scope)
        add_event(self.db, memory_id, now, "created", f"{draft.kind} by {draft.author}")
        if draft.supersedes is not None:
            self.db.execute("UPDATE memories SET superseded_by = ? WHERE id = ?", (memory_id, draft.supersedes))
            add_event(self.db, draft.supersedes, now, "superseded", f"by #{memory_id}")
        return memory_id

    def _attach(self, memory_id: int, elements: list[str], scope: str) -> None:
        self.db.executemany("INSERT INTO memory_elements (memory_id, element, scope) VALUES (?, ?, ?)"
                            " ON CONFLICT DO NOTHING", [(memory_id, e, scope) for e in elements])
        drift.record_fingerprints(self.db, self.code, memory_id)

    def _link(self, memory_id: int, draft: Draft) -> dict:
        found = [links.resolve(t, self._memory_by_title, lambda text: try_resolve(self.code, self.root, text))
                 for t in links.targets(draft.content)]
        links.store(self.db, memory_id, found, self.cipher(draft.scope).term_hash, draft.scope)
        attached = links.attach_pending(self.db, memory_id, self._title_key(draft.title, draft.scope)) \
            if draft.title else 0
        return {"links": [link.as_dict() for link in found], "pendingLinksAttached": attached}

    def memory_titled(self, title: str) -> int | None:
        """The id of the live memory of this title; None when there is none (or none was ever written: no
        key is made to look)."""
        return self._memory_by_title(title) if get_meta(self.db, "key_id") is not None else None

    def _memory_by_title(self, title: str) -> int | None:
        """The live memory of this title: the project's before the organisation's."""
        rows = self.db.query(f"SELECT id FROM memories WHERE title_key IN {self.db.each} AND superseded_by IS NULL"
                             " ORDER BY scope = 'org', id", (self.db.many(self._title_keys(title)),))
        return rows[0]["id"] if rows else None

    # addressing ---------------------------------------------------------------------------------
    def _element(self, text: str) -> str:
        """The element id for what was typed; a name that names nothing is refused like any write."""
        try:
            return resolve_element(self.code, self.root, text)
        except ElementError as exc:
            raise MemoriesError(str(exc)) from exc

    def _rows(self, ids: list[int]) -> list[dict]:
        return self.db.query(f"SELECT * FROM memories WHERE id IN {self.db.each} ORDER BY id", (self.db.many(ids),))

    def _find(self, ref: int | str) -> dict:
        """A memory by id (`12`, `#12`) or by title (the live one, else the latest version)."""
        text = str(ref).strip()
        number = text.lstrip("#")
        if number.isascii() and number.isdigit():  # (not "²": a digit to isdigit, but no number)
            rows = self._rows([int(number)]) if int(number) <= MAX_ID else []  # (past it SQLite cannot bind it)
        else:
            rows = self.db.query(f"SELECT * FROM memories WHERE title_key IN {self.db.each}"
                                 " ORDER BY superseded_by IS NOT NULL, scope = 'org', id DESC",
                                 (self.db.many(self._title_keys(text)),))
        if not rows:
            raise MemoriesError(f"no memory {text!r}: name it by id (see `tenure recall`) or by its exact title")
        return rows[0]

    def _live_memory(self, ref: int | str) -> dict:
        row = self._find(ref)
        if row["superseded_by"] is not None:
            raise MemoriesError(f"memory #{row['id']} was superseded by #{row['superseded_by']}; "
                                f"act on #{self._latest(row['id'])} instead")
        return row

    def _latest(self, memory_id: int) -> int:
        while True:
            row = self._rows([memory_id])[0]
            if row["superseded_by"] is None:
                return memory_id
            memory_id = row["superseded_by"]

    def _elements_of(self, memory_id: int) -> list[str]:
        return [r["element"] for r in self.db.query(
            "SELECT element FROM memory_elements WHERE memory_id = ? ORDER BY element", (memory_id,))]

    def _elements_by_memory(self, ids: list[int]) -> dict[int, list[str]]:
        found: dict[int, list[str]] = {i: [] for i in ids}
        for r in self.db.query(f"SELECT memory_id, element FROM memory_elements WHERE memory_id IN {self.db.each}"
                               " ORDER BY element", (self.db.many(ids),)):
            found[r["memory_id"]].append(r["element"])
        return found

    def describe(self, ids: list[int]) -> dict[int, dict]:
        """Memories as dicts, decrypted: what recall, history and briefings show."""
        now = self.clock()
        elements = self._elements_by_memory(ids)
        found = {}
        for r in self._rows(ids):
            last_true = parse_stamp(r["confirmed_at"])
            cipher = self._cipher_of(r)
            found[r["id"]] = {
                "id": r["id"], "kind": r["kind"], "title": cipher.decrypt(r["title"], "title") or None,
                "content": cipher.decrypt(r["content"], "content"), "elements": elements[r["id"]],
                "author": r["author"], "session": r["session_id"], "outcome": r["outcome"],
                "createdAt": r["created_at"], "confirmedAt": r["confirmed_at"], "confirmations": r["confirmations"],
                "ageDays": int(ranking.age_days(last_true, now)),
                "verify": bool(r["verify"]),
                "driftedAt": r["drifted_at"], "supersedes": r["supersedes"], "supersededBy": r["superseded_by"],
                "scope": r["scope"],
            }
        return found

    def get(self, ref: int | str) -> dict:
        memory_id = self._find(ref)["id"]
        return self.describe([memory_id])[memory_id]

    # recall -------------------------------------------------------------------------------------
    def recall(self, query: str = "", session: str | None = None, elements: Iterable[str] | None = None,
               limit: int = 10) -> dict:
        """The live memories that best match `query` (all of them, ranked, when it is empty), each
        with its score explained. `elements` keeps memories attached within those elements."""
        if limit < 1:
            raise MemoriesError("limit must be at least 1")
        with self.db.reading():  # (on a team's server: one connection for the call, taken and checked once)
            self.backfill(BACKFILL_ON_RECALL)
            hits, unread, outgoing = self._search(query, self._within(elements), limit)
            results = self._with_content(hits, outgoing)
            if session:
                with self.db.transaction():
                    usage.log_impressions(self.db, session, [h["id"] for h in results], self.clock())
        return {"query": query, "mode": self.vectors.mode, "note": self.vectors.mode_note() + self._unread_note(unread),
                "session": session, "results": results}

    def _unread_note(self, unread: int) -> str:
        """What recall left out: `unread` organisation-scope memories this process has no key for."""
        if not unread:
            return ""
        org = self.organisation()
        where = f"TENURE_ORG_KEY or {org_key_file(org)}" if org else "no organisation is configured"
        return f"; {counted(unread, 'organisation-scope memory')} left out: no organisation key here ({where})"

    def _search(self, query: str, within: set[int] | None,
                limit: int) -> tuple[list[Hit], int, links.Outgoing]:
        """The hits, how many live memories were left out for want of their scope's key, and the
        outgoing links read of the hits so far."""
        scopes = self.readable_scopes()
        plain = terms(query)
        q = Query({self.cipher(scope).term_hash(t) for scope in scopes for t in plain}, None, not query.strip(),
                  len(plain))
        if not q.empty:
            vectors = self.vectors.embed([query])
            q.vector = vectors[0] if vectors is not None else None
        # (what this process cannot read counts as retired: it is never a candidate; each part is one
        # partial index's rows, where an OR would read the whole table)
        live = "superseded_by IS NULL"
        left_out = self.db.rows(f"SELECT id, {live} FROM memories WHERE superseded_by IS NOT NULL" + (
            "" if ORG_SCOPE in scopes else f" UNION SELECT id, {live} FROM memories WHERE scope = 'org'"))
        retired = {memory_id for memory_id, _ in left_out}
        found = relevances(self.db, self.vectors, q, within, retired)
        hits = rank(self.db, found, self.clock(), limit)
        linked, outgoing = self._linked(hits, q, retired)
        return hits + linked, sum(1 for _, live in left_out if live), outgoing

    def _within(self, elements: Iterable[str] | None) -> set[int] | None:
        """Ids of memories attached to the given elements or to anything inside them (no filter
        when no element is named)."""
        names = list(elements or [])
        if not names:
            return None
        outer = list(places(self.code, {self._element(e) for e in names}).values())
        attached = self.db.query("SELECT memory_id, element FROM memory_elements")
        inner = places(self.code, {r["element"] for r in attached})
        inside = {e for e, p in inner.items() if any(contains(o, p) for o in outer)}
        return {r["memory_id"] for r in attached if r["element"] in inside}

    def _linked(self, hits: list[Hit], q: Query, retired: set[int]) -> tuple[list[Hit], links.Outgoing]:
        """The linked neighbours of the top hits, each marked with the hit that pulled it in; and the
        outgoing links of every hit (the results show them)."""
        shown = {h.id for h in hits}
        pulled: dict[int, dict] = {}
        # (the links of every hit read at once: a round trip each costs on a team's server)
        outgoing, incoming = links.around(self.db, list(shown), [h.id for h in hits[:NEIGHBOUR_HITS]])
        for hit in hits[:NEIGHBOUR_HITS]:
            mine = ([link for link in outgoing.rows if link["source_id"] == hit.id],
                    [link for link in incoming if link["target_id"] == hit.id])
            for neighbour, how in self._neighbour_ids(hit.id, retired, *mine)[:NEIGHBOURS_PER_HIT]:
                if neighbour not in shown and neighbour not in pulled:
                    pulled[neighbour] = {"from": hit.id, "link": how}
        if not pulled:
            return [], outgoing
        scored = rank(self.db, self._relevance_of(list(pulled), q), self.clock(), len(pulled))
        for h in scored:
            h.via = pulled[h.id]
        return scored, outgoing

    def _neighbour_ids(self, memory_id: int, retired: set[int], outgoing: list[dict],
                       incoming: list[dict]) -> list[tuple[int, str]]:
        found: list[tuple[int, str]] = []
        for link in outgoing:
            if link["kind"] == "memory":
                found.append((self._latest(link["target_id"]), "links to"))
            elif link["element"]:
                found += [(m, f"links to [[{display(link['element'])}]]") for m in self._attached_to(link["element"])]
        found += [(link["source_id"], "linked from") for link in incoming]
        return [(m, how) for m, how in dict.fromkeys(found) if m not in retired and m != memory_id]

    def _attached_to(self, element: str) -> list[int]:
        return [r["memory_id"] for r in self.db.query(
            "SELECT memory_id FROM memory_elements WHERE element = ? ORDER BY memory_id DESC", (element,))]

    def _relevance_of(self, ids: list[int], q: Query) -> dict[int, tuple[float | None, float]]:
        """Relevance of memories that came by link rather than by search."""
        if q.empty:
            return dict.fromkeys(ids, (None, 1.0))
        overlaps = overlaps_of(self.db, q.terms, set(ids), q.size)
        cos = self.vectors.cosines(q.vector, ids) if q.vector is not None else {}
        return {i: (cos.get(i), overlaps.get(i, 0.0)) for i in ids}

    def _with_content(self, hits: list[Hit], outgoing: links.Outgoing) -> list[dict]:
        """The hits described, with their outgoing links (`outgoing`: those already read)."""
        described = self.describe([h.id for h in hits])
        unread = [h.id for h in hits if h.id not in outgoing.of]
        out_links = self._links_by_memory(outgoing.rows + (links.outgoing(self.db, unread) if unread else []))
        return [{**described[h.id], "score": h.score, "explain": h.explain, "via": h.via,
                 "links": out_links.get(h.id, [])} for h in hits]

    @staticmethod
    def _links_by_memory(outgoing: list[dict]) -> dict[int, list[dict]]:
        found: dict[int, list[dict]] = {}
        for link in outgoing:
            found.setdefault(link["source_id"], []).append(
                {"kind": link["kind"], "memory": link["target_id"], "element": link["element"]})
        return found

    def backfill(self, limit: int | None = None) -> int:
        """Embed memories that have no vector of the current model (written before a provider was
        configured, or under another model). Returns how many were embedded."""
        self.vectors.restore()
        done = 0
        while limit is None or done < limit:
            batch = self.vectors.missing(min(64, limit - done) if limit is not None else 64)
            if not batch:
                break
            rows = self.describe(batch)
            vectors = self.vectors.embed([embed_text(rows[i]["title"], rows[i]["content"]) for i in batch])
            if vectors is None:
                break
            with self.db.transaction():
                for memory_id, vector in zip(batch, vectors, strict=True):
                    self.vectors.put(memory_id, vector, rows[memory_id]["scope"])
            done += len(batch)
        return done

    # history and review -------------------------------------------------------------------------
    def history(self, ref: int | str) -> dict:
        """Every version of a fact, oldest first, with what happened to each."""
        first = self._find(ref)["id"]
        while (prev := self._rows([first])[0]["supersedes"]) is not None:
            first = prev
        chain = [first]
        while (nxt := self._rows([chain[-1]])[0]["superseded_by"]) is not None:
            chain.append(nxt)
        described = self.describe(chain)
        events = self.db.query(f"SELECT memory_id, at, event, detail FROM memory_events"
                               f" WHERE memory_id IN {self.db.each} ORDER BY at, id", (self.db.many(chain),))
        usage_by = usage.usage_of(self.db, chain)
        return {"versions": [{**described[i], "usage": usage_by[i].__dict__,
                              "events": [{k: e[k] for k in ("at", "event", "detail")}
                                         for e in events if e["memory_id"] == i]} for i in chain],
                "live": chain[-1]}

    def review(self) -> dict:
        """Memories a person should look at: drifted ones and ignored ones. Nothing is removed:
        confirm what still holds, supersede what changed."""
        readable = self.db.many(self.readable_scopes())
        drifted = [r["id"] for r in self.db.query(
            f"SELECT id FROM memories WHERE superseded_by IS NULL AND verify = 1 AND scope IN {self.db.each}"
            " ORDER BY id",
            (readable,))]
        served = [r["memory_id"] for r in self.db.query(
            f"""SELECT i.memory_id FROM memory_impressions i JOIN memories m ON m.id = i.memory_id
               WHERE m.superseded_by IS NULL AND m.scope IN {self.db.each} GROUP BY i.memory_id HAVING COUNT(*) >= ?""",
            (readable, ranking.IGNORED_SESSIONS))]
        used = usage.usage_of(self.db, served)
        ignored = [m for m in served if used[m].citations == 0]
        ids = sorted(set(drifted) | set(ignored))
        described = self.describe(ids)
        items = [{**described[i], "reasons": review_reasons(described[i], i in ignored, used.get(i)),
                  "impressions": used[i].impressions if i in used else 0} for i in ids]
        return {"items": items, "count": len(items),
                "whatToDo": "confirm a memory that still holds (`tenure confirm ID`); supersede one that changed "
                            "(`tenure supersede ID TEXT`). Nothing is deleted."}

    # drift --------------------------------------------------------------------------------------
    def on_drift(self, fqns: list[str]) -> list[int]:
        """Called by `Tenure.index()` with the symbols whose code changed or went away (also with
        none: fingerprints are compared on every index)."""
        return drift.on_index(self.db, self.code, fqns, self.clock())

    # work sessions ------------------------------------------------------------------------------
    def start_session(self, agent: str, task: str | None = None, elements: Iterable[str] = (),
                      brief: Callable[[str | None, str], dict] | None = None) -> dict:
        """Open a work session: its id, leases on `elements`, and the briefing for its task (the
        general briefing when the task is not known yet, e.g. a hook opening it before the user spoke),
        made by `brief(task, session)` when given (Tenure's, which joins the other stores), else `self.brief`."""
        if not agent.strip() or (task is not None and not task.strip()):
            raise MemoriesError("a work session needs an agent name and, if given, a task, e.g. "
                                "agent='claude-code/sarah' task='make the settlement retry policy configurable'")
        check_sizes(task=task, author=agent)
        resolved = [self._element(e) for e in elements]
        with self.db.transaction():
            now = self.clock()
            session_id = sessions.create(self.db, agent, self.cipher().encrypt(task or "", "task"), now)
            conflicts = sessions.lease(self.db, session_id, resolved, now)
        brief = brief(task, session_id) if brief else self.brief(task, session=session_id)
        return {"session": session_id, "agent": agent, "leases": resolved, "conflicts": conflicts,
                "briefing": brief["text"] + briefing.lease_text(resolved, conflicts), "elements": brief["elements"]}

    def session(self, session: str) -> dict:
        """A work session as it stands (read only): open or ended, its leases and outcome."""
        state = sessions.get(self.db, session)
        return {"session": state.id, "agent": state.agent, "task": self.cipher().decrypt(state.task, "task") or None,
                "open": state.ended_at is None, "started": stamp(state.started_at),
                "ended": stamp(state.ended_at) if state.ended_at else None, "outcome": state.outcome,
                "outcomeMemory": state.outcome_memory_id, "leases": sessions.leased(self.db, session)}

    def lease(self, session: str, elements: Iterable[str]) -> dict:
        resolved = [self._element(e) for e in elements]
        with self.db.transaction():
            sessions.open_session(self.db, session)
            conflicts = sessions.lease(self.db, session, resolved, self.clock())
        return {"session": session, "leases": sessions.leased(self.db, session), "conflicts": conflicts}

    def end_session(self, session: str, summary: str, used: Iterable[int | str] = (), outcome: str = "success",
                    edited: Iterable[str] = (), keep_empty: bool = True) -> dict:
        """Close a session: record the memories it relied on (declared and inferred from what it
        edited) and write one session_outcome memory attached to every element it leased.
        `keep_empty=False`: a session that leased, edited, used and was served nothing closes
        without an outcome memory (there is nothing to remember of it)."""
        check_sizes(content=summary)
        sessions.check_outcome(outcome)
        state = sessions.open_session(self.db, session)
        declared = [self._find(u)["id"] for u in used]
        now = self.clock()
        touched = drift.edited_places(self.db, self.code, state.started_at, now, list(edited))
        empty = not (declared or touched or sessions.leased(self.db, session) or usage.served(self.db, session))
        if empty and not keep_empty:
            with self.db.transaction():
                sessions.open_session(self.db, session)
                sessions.finish(self.db, session, outcome, None, now)
            return {"session": session, "outcomeMemory": None, "outcome": outcome, "elements": [],
                    "citations": {"declared": [], "inferred": []}, "edited": []}
        task = self.cipher().decrypt(state.task, "task")
        title = f"Session {session}: {task}" if task else f"Session {session}"
        draft = self._prepare(Draft("session_outcome", summary, title, self._outcome_elements(session, touched),
                                    state.agent, session, outcome))
        with self.db.transaction():
            sessions.open_session(self.db, session)  # a racing end_session loses here, inside the lock
            usage.cite(self.db, session, declared, usage.DECLARED, now)
            inferred = usage.cite(self.db, session, self._inferred(session, touched, declared), usage.INFERRED, now)
            memory_id = self._insert(draft, now)
            sessions.finish(self.db, session, outcome, memory_id, now)
        return {"session": session, "outcomeMemory": memory_id, "outcome": outcome, "elements": draft.elements,
                "citations": {"declared": declared, "inferred": inferred},
                "edited": sorted(p.element for p in touched)}

    def _outcome_elements(self, session: str, touched: list[Place]) -> list[str]:
        """The leased elements; a session that leased nothing is filed under the modules it edited,
        else under the project."""
        leased = sessions.leased(self.db, session)
        if leased:
            return leased
        modules = sorted({f"module:{m}" for p in touched for m in p.modules})
        return modules or [PROJECT]

    def _inferred(self, session: str, touched: list[Place], declared: list[int]) -> list[int]:
        """Served memories attached to an element the session edited (or to one inside or around it)."""
        if not touched:
            return []
        candidates = [m for m in usage.served(self.db, session) if m not in declared]
        by_memory = self._elements_by_memory(candidates)
        where = places(self.code, {e for es in by_memory.values() for e in es})
        return [m for m in candidates if any(contains(where[e], t) or contains(t, where[e])
                                             for e in by_memory[m] for t in touched)]

    # briefing and map ---------------------------------------------------------------------------
    def select_elements(self, task: str, limit: int = 5) -> list[dict]:
        """The elements a task is about, by meaning: names and code, embeddings, and memories."""
        return self._select(task, limit).elements

    def _select(self, task: str, limit: int) -> selection.Selected:
        hits = self.recall(task, limit=20)["results"] if task.strip() else []
        # while the index's background backfill embeds them, a query leaves them to it
        inline = 0 if lock_held(state_dir(self.root), EMBED_LOCK) else selection.INLINE_EMBED
        return selection.select(self.code, self.root, task, ElementVectors(self.code, self.vectors),
                                memory_signals(hits), limit, inline)

    def prepare_elements(self, progress: Callable[[int, int], None] | None = None) -> dict:
        """Read the terms of the code's elements, and embed the descriptions of those with no vector of
        the current model (what `tenure index` starts in the background, so that a briefing's first
        call reads neither the project's code nor the model's work on it)."""
        return selection.prepare(self.code, self.root, ElementVectors(self.code, self.vectors), progress)

    def brief(self, task: str | None = None, session: str | None = None, limit: int = 12,
              scope: list[dict] | None = None, sections: Sequence[tuple[str, list[str]]] = (),
              around: Sequence[str] = ()) -> dict:
        """The text an agent reads at the start of a session: pitfalls first, drift warnings in words.
        `scope`: the elements the task is about, chosen by the caller (Tenure: by intent, tenure.ask);
        else chosen here, by meaning. It never waits for the project's elements to be embedded: those
        not embedded yet are chosen by name and code alone, and the briefing says how many.
        `sections`: (heading, lines) the caller adds from other stores (decisions, past failures);
        `around`: elements beside the scope whose memories count too (the class of a method in scope)."""
        selected = self._select(task, limit=5) if task and scope is None else None
        scope = scope if scope is not None else (selected.elements if selected else [])
        by_task = self.recall(task or "", session=session, limit=limit)["results"]
        within = list(dict.fromkeys([*(s["element"] for s in scope), *around]))
        by_scope = self.recall("", session=session, elements=within, limit=limit)["results"] if within else []
        memories = briefing.merge(by_task, by_scope, limit=limit)
        rules = self.rules() if self.rules else []
        note = self.vectors.mode_note()
        unread = selected.unembedded if selected else 0
        if unread:
            note += (f"; the meaning of {unread} of {selected.candidates} code elements is not read yet (they are "
                     "embedded in the background after `tenure index`; `tenure backfill` does it now): they were "
                     "matched by name and code only")
        text = briefing.render(task, scope, memories, note, self.review()["count"], rules, sections)
        return {"task": task, "elements": scope, "elementsUnembedded": unread, "memories": memories, "rules": rules,
                "text": text}

    def knowledge_map(self, level: str = "module") -> dict:
        """One cell per element at `level`: what is known, how fresh, pitfalls, and visible gaps."""
        return knowledge_map.build(self.db, self.code, self.root, level, self.clock(), self._titles)

    def _titles(self, ids: list[int]) -> dict[int, str]:
        return {r["id"]: self._cipher_of(r).decrypt(r["title"], "title") or
                self._cipher_of(r).decrypt(r["content"], "content")[:60] for r in self._rows(ids)}


def check_sizes(**texts: str | None) -> None:
    """Refuse a text over its limit (LIMITS) with what to write instead."""
    for what, text in texts.items():
        if text is not None and len(text) > LIMITS[what]:
            raise MemoriesError(f"a memory's {what} holds at most {LIMITS[what]:,} characters; this one has "
                                f"{len(text):,}: {_SHORTER[what]}")


def memory_signals(hits: list[dict]) -> list[selection.Signal]:
    """What recall of a task says for selection: the elements of the memories that match it."""
    found = []
    for hit in hits:
        rel = hit["explain"]["relevance"]["value"]
        if rel < MEMORY_MIN:
            continue
        name = f"#{hit['id']}" + (f" “{hit['title']}”" if hit["title"] else "")
        found += [(e, rel, f"memory {name} speaks of it") for e in hit["elements"] if kind_of(e) != "project"]
    return found


def embed_text(title: str | None, content: str) -> str:
    return f"{title}\n{content}" if title else content


def default_author() -> str:
    try:
        return f"human/{getpass.getuser()}"
    except (KeyError, OSError):  # no user name in a container without /etc/passwd entry
        return "human/unknown"


def review_reasons(memory: dict, ignored: bool, used: usage.Usage | None) -> list[str]:
    reasons = []
    if memory["verify"]:
        reasons.append(f"drifted: an element it is attached to changed on {memory['driftedAt'][:10]}, after it "
                       "was last confirmed")
    if ignored and used is not None:
        reasons.append(f"ignored: served to {used.sessions_served} sessions ({used.impressions} impressions), "
                       "never cited")
    return reasons
