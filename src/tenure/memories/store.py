"""The memories schema (its own migrations) and the few row helpers every module shares.

Secret text (titles, contents, session tasks) is stored only as AES-GCM blobs, vectors turned by the
key's rotation (vectors.py); what stays readable is structure: kinds, elements, timestamps, counts,
and keyed hashes of terms and titles.
"""

from __future__ import annotations

from datetime import datetime

from tenure.memories.checkout_store import ELEMENT_TERMS, ELEMENT_VECTORS
from tenure.storage import Database, Migrations, get_value

migrations = Migrations("memories")
PROJECT_SCOPE, ORG_SCOPE = "project", "org"
SCOPES = (PROJECT_SCOPE, ORG_SCOPE)


@migrations
def m001_initial(db: Database) -> None:
    db.execute(
        """CREATE TABLE memories (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,              -- note | convention | pitfall | session_outcome
            title BLOB,                      -- encrypted
            content BLOB NOT NULL,           -- encrypted
            title_key TEXT,                  -- keyed hash of the normalised title (addressing, links)
            content_key TEXT NOT NULL,       -- keyed hash of the normalised content (dedupe without vectors)
            author TEXT NOT NULL,
            session_id TEXT,                 -- the work session that wrote it
            outcome TEXT,                    -- session_outcome: success | failure | partial | abandoned
            created_at TEXT NOT NULL,
            confirmed_at TEXT NOT NULL,      -- last known true: creation or latest confirmation
            confirmations INTEGER NOT NULL DEFAULT 0,
            drifted_at TEXT,                 -- latest drift stamp of one of its elements
            verify INTEGER NOT NULL DEFAULT 0,  -- 1: stamped after it was last confirmed (by operation order)
            supersedes INTEGER REFERENCES memories(id),
            superseded_by INTEGER REFERENCES memories(id)
        )"""
    )
    db.execute("CREATE INDEX memories_title ON memories(title_key)")
    db.execute("CREATE INDEX memories_content ON memories(content_key)")
    db.execute(
        """CREATE TABLE memory_elements (
            memory_id INTEGER NOT NULL REFERENCES memories(id),
            element TEXT NOT NULL,
            PRIMARY KEY (memory_id, element)
        )"""
    )
    db.execute("CREATE INDEX memory_elements_element ON memory_elements(element)")
    db.execute(
        """CREATE TABLE memory_terms (
            term TEXT NOT NULL,              -- keyed hash of a stemmed term
            memory_id INTEGER NOT NULL REFERENCES memories(id),
            PRIMARY KEY (term, memory_id)
        )"""
    )
    db.execute("CREATE INDEX memory_terms_memory ON memory_terms(memory_id)")
    db.execute(
        """CREATE TABLE memory_vectors (
            memory_id INTEGER PRIMARY KEY REFERENCES memories(id),
            model TEXT NOT NULL,             -- provider name: vectors of different models never mix
            vector BLOB NOT NULL             -- encrypted float32
        )"""
    )
    db.execute(
        """CREATE TABLE memory_links (
            id INTEGER PRIMARY KEY,
            source_id INTEGER NOT NULL REFERENCES memories(id),
            target_key TEXT NOT NULL,        -- keyed hash of the normalised [[target]]
            kind TEXT NOT NULL,              -- memory | element | decision | pending
            target_id INTEGER REFERENCES memories(id),
            element TEXT
        )"""
    )
    db.execute("CREATE INDEX memory_links_source ON memory_links(source_id)")
    db.execute("CREATE INDEX memory_links_target ON memory_links(target_id)")
    db.execute("CREATE INDEX memory_links_pending ON memory_links(target_key) WHERE kind = 'pending'")
    db.execute(
        """CREATE TABLE memory_events (
            id INTEGER PRIMARY KEY,
            memory_id INTEGER NOT NULL REFERENCES memories(id),
            at TEXT NOT NULL,
            event TEXT NOT NULL,             -- created | confirmed | deduplicated | drifted | superseded | cited
            detail TEXT NOT NULL DEFAULT ''  -- never secret text
        )"""
    )
    db.execute("CREATE INDEX memory_events_memory ON memory_events(memory_id)")
    db.execute(
        """CREATE TABLE memory_sessions (
            id TEXT PRIMARY KEY,
            agent TEXT NOT NULL,
            task BLOB NOT NULL,              -- encrypted
            started_at TEXT NOT NULL,
            ended_at TEXT,
            outcome TEXT,
            outcome_memory_id INTEGER REFERENCES memories(id)
        )"""
    )
    db.execute(
        """CREATE TABLE memory_leases (
            session_id TEXT NOT NULL REFERENCES memory_sessions(id),
            element TEXT NOT NULL,
            acquired_at TEXT NOT NULL,
            PRIMARY KEY (session_id, element)
        )"""
    )
    db.execute("CREATE INDEX memory_leases_element ON memory_leases(element)")
    db.execute(
        """CREATE TABLE memory_impressions (
            session_id TEXT NOT NULL,
            memory_id INTEGER NOT NULL REFERENCES memories(id),
            first_at TEXT NOT NULL,
            last_at TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (session_id, memory_id)
        )"""
    )
    db.execute("CREATE INDEX memory_impressions_memory ON memory_impressions(memory_id)")
    db.execute(
        """CREATE TABLE memory_citations (
            session_id TEXT NOT NULL,
            memory_id INTEGER NOT NULL REFERENCES memories(id),
            how TEXT NOT NULL,               -- declared (usedMemories) | inferred (the session edited its element)
            at TEXT NOT NULL,
            PRIMARY KEY (session_id, memory_id)
        )"""
    )
    db.execute("CREATE INDEX memory_citations_memory ON memory_citations(memory_id)")
    db.execute("CREATE TABLE memory_drift_events (id INTEGER PRIMARY KEY, fqn TEXT NOT NULL, at TEXT NOT NULL)")
    db.execute("CREATE INDEX memory_drift_events_at ON memory_drift_events(at)")
    db.execute(ELEMENT_VECTORS)
    db.execute("CREATE TABLE memory_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")


@migrations
def m002_retired_index(db: Database) -> None:
    # recall excludes superseded memories on every call: find the few of them without a table scan
    db.execute("CREATE INDEX memories_retired ON memories(superseded_by) WHERE superseded_by IS NOT NULL")


@migrations
def m003_element_fingerprints(db: Database) -> None:
    # the code an attachment was last known true against: drift that no index report announced
    # (a process killed between the index and its drift stamping) is found by comparing fingerprints
    db.execute("ALTER TABLE memory_elements ADD COLUMN fingerprint TEXT")


@migrations
def m004_vector_writes(db: Database) -> None:
    # the order vectors were written in: a process holding them reads what was written since, and a
    # vector filled in or embedded again for an older memory is written later, whatever its memory's id
    db.execute("ALTER TABLE memory_vectors ADD COLUMN written INTEGER NOT NULL DEFAULT 0")
    db.execute("UPDATE memory_vectors SET written = memory_id")
    db.execute("CREATE INDEX memory_vectors_written ON memory_vectors(written)")


@migrations
def m005_element_terms(db: Database) -> None:
    # the terms of each element's code, for selection (tenure.namespace.selection): read after an
    # index, so that a briefing's first call does not read the whole project's code
    db.execute(ELEMENT_TERMS)


@migrations
def m006_scope(db: Database) -> None:
    # 'org': the organisation's, encrypted with its key and read by every project of it (on the team
    # database); kept in a project's own database until `tenure team push` carries it there
    db.execute("ALTER TABLE memories ADD COLUMN scope TEXT NOT NULL DEFAULT 'project'")
    db.execute("CREATE INDEX memories_org ON memories(id) WHERE scope = 'org'")


@migrations
def m007_scope_of_parts(db: Database) -> None:
    # the rows an organisation-scope memory is found and shown by (its elements, terms, vector, links)
    # are the organisation's too: on the team database every project of it reads them
    for table in ("memory_elements", "memory_terms", "memory_vectors", "memory_links"):
        db.execute(f"ALTER TABLE {table} ADD COLUMN scope TEXT NOT NULL DEFAULT 'project'")


@migrations
def m008_vector_writes_by_scope(db: Database) -> None:
    # the vectors written since a process last read, per scope: one index range each
    db.execute("CREATE INDEX memory_vectors_scope_written ON memory_vectors(scope, written)")


@migrations
def m009_turned_vectors(db: Database) -> None:
    # vectors the database can rank: turned by the scope key's rotation (Cipher.rotate) instead of
    # encrypted, in a VECTOR column (pgvector's on the team database). memory_vectors' encrypted rows are
    # moved here by the first process that holds their key (Vectors.restore): a migration has none
    db.execute(
        """CREATE TABLE memory_embeddings (
            memory_id INTEGER NOT NULL PRIMARY KEY REFERENCES memories(id),
            model TEXT NOT NULL,             -- provider name: vectors of different models never mix
            embedding VECTOR NOT NULL,       -- float32, turned by the scope's key
            scope TEXT NOT NULL DEFAULT 'project',
            written INTEGER NOT NULL         -- the order of writes per scope: a process reads what is new
        )"""
    )
    db.execute("CREATE INDEX memory_embeddings_scope_written ON memory_embeddings(scope, written)")


@migrations
def m010_newest(db: Database) -> None:
    # the live memories written since a process last looked (Vectors.missing): on a team's server one
    # range of (project, id). Partial: on SQLite an index of every id would repeat the rowid, and a
    # read of rowids alone would go to it instead of the table (storage/salvage.py probes the table)
    db.execute("CREATE INDEX memories_newest ON memories(id) WHERE superseded_by IS NULL")


@migrations
def m011_element_tables_leave_the_team_database(db: Database) -> None:
    # the elements' terms and vectors live in each checkout's own database (checkout_store.py): a team's
    # database made before keeps copies nobody reads. (A checkout's own file is also the memories'
    # database: there they are the checkout's, and stay.)
    if db.many_projects:
        for table in ("element_terms", "element_vectors"):
            db.execute(f"DROP TABLE IF EXISTS {table}")


def stamp(at: datetime) -> str:
    """Timestamps are ISO-8601 UTC with microseconds, so text order is time order."""
    return at.isoformat(timespec="microseconds")


def parse_stamp(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def get_meta(db: Database, key: str) -> str | None:
    return get_value(db, "memory_meta", key)


def ensure_meta(db: Database, key: str, value: str) -> str:
    """Set `key` unless another process already did; returns whichever value won."""
    db.execute("INSERT INTO memory_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING", (key, value))
    return get_meta(db, key) or value


def add_event(db: Database, memory_id: int, at: datetime, event: str, detail: str = "") -> None:
    db.execute("INSERT INTO memory_events (memory_id, at, event, detail) VALUES (?, ?, ?, ?)",
               (memory_id, stamp(at), event, detail))
