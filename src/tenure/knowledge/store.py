"""The knowledge schema (its own migrations) and the row helpers the pipeline steps share.

Everything extracted is attributed to the chunk it came from (mentions, links), and a chunk to its
document, so deleting or editing a document retracts exactly what it gave (foreign keys cascade).
Entities, relationships and reports are derived: each keeps the hash of what it was made from, and a
step redoes only those whose inputs changed. Rows name symbols by fqn so every store can join them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Any

from tenure.storage import Database, Migrations
from tenure.words import counted

migrations = Migrations("knowledge")
CHUNK = 500  # bound on `IN (...)` lists: SQLite allows 999 parameters per statement by default


@migrations
def m001_initial(db: Database) -> None:
    db.execute(
        """CREATE TABLE knowledge_documents (
            id INTEGER PRIMARY KEY,
            key TEXT NOT NULL UNIQUE,         -- doc:<path> | pr:<n> | issue:<n> | commit:<sha>
            kind TEXT NOT NULL,               -- adr postmortem rfc design changelog readme doc | pr issue | commit
            origin TEXT NOT NULL,             -- documents | threads | history: the source that found it
            path TEXT,                        -- the file it was read from (documents, thread exports)
            ref TEXT NOT NULL,                -- how answers cite it: ADR-0003, docs/x.rst, #412, commit 1a2b3c4
            title TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            tokens INTEGER NOT NULL,
            sections INTEGER NOT NULL,
            thin INTEGER NOT NULL DEFAULT 0,  -- too little content to extract from (kept, counted)
            thin_reason TEXT,
            authored_at TEXT,
            meta TEXT NOT NULL DEFAULT '{}'   -- JSON: author, state, files, ...
        )"""
    )
    db.execute(
        """CREATE TABLE knowledge_chunks (
            id INTEGER PRIMARY KEY,
            document_id INTEGER NOT NULL REFERENCES knowledge_documents(id) ON DELETE CASCADE,
            ordinal INTEGER NOT NULL,
            section TEXT NOT NULL,            -- the heading path, 'Design Decisions > Thread Locals'
            line INTEGER NOT NULL,            -- first line in the file (1-based); 0 where lines do not apply
            text TEXT NOT NULL,
            tokens INTEGER NOT NULL,
            text_hash TEXT NOT NULL,
            model_state TEXT,                 -- NULL: no model read it yet | done | failed
            model_reason TEXT                 -- why it failed
        )"""
    )
    db.execute("CREATE INDEX knowledge_chunks_document ON knowledge_chunks(document_id)")
    db.execute(
        """CREATE TABLE knowledge_mentions (  -- an entity named in a chunk
            chunk_id INTEGER NOT NULL REFERENCES knowledge_chunks(id) ON DELETE CASCADE,
            entity TEXT NOT NULL,             -- the entity's key (entity_key of its name)
            mode TEXT NOT NULL,               -- offline | model: what extracted it
            name TEXT NOT NULL,               -- as written
            type TEXT NOT NULL,
            description TEXT NOT NULL,        -- offline: the sentence that names it; model: its description
            PRIMARY KEY (chunk_id, entity, mode)
        )"""
    )
    db.execute("CREATE INDEX knowledge_mentions_entity ON knowledge_mentions(entity)")
    db.execute(
        """CREATE TABLE knowledge_links (     -- a relationship claimed in a chunk
            chunk_id INTEGER NOT NULL REFERENCES knowledge_chunks(id) ON DELETE CASCADE,
            source TEXT NOT NULL,
            target TEXT NOT NULL,
            mode TEXT NOT NULL,
            description TEXT NOT NULL,        -- offline: the sentence both are named in; model: its claim
            weight REAL NOT NULL,
            PRIMARY KEY (chunk_id, source, target, mode)
        )"""
    )
    db.execute("CREATE INDEX knowledge_links_pair ON knowledge_links(source, target)")
    db.execute(
        """CREATE TABLE knowledge_entities (
            key TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            type TEXT NOT NULL,
            description TEXT NOT NULL,
            mode TEXT NOT NULL,               -- offline: extractive | model: summarised by a model
            inputs_hash TEXT NOT NULL,        -- hash of the mentions it was made from
            mentions INTEGER NOT NULL,
            degree INTEGER NOT NULL DEFAULT 0
        )"""
    )
    db.execute(
        """CREATE TABLE knowledge_entity_symbols (  -- the join (SPEC 2.5): an entity's phrase -> symbols
            entity TEXT NOT NULL REFERENCES knowledge_entities(key) ON DELETE CASCADE,
            fqn TEXT NOT NULL,
            tier TEXT NOT NULL,               -- exact | strong | weak
            how TEXT NOT NULL,
            PRIMARY KEY (entity, fqn)
        )"""
    )
    db.execute("CREATE INDEX knowledge_entity_symbols_fqn ON knowledge_entity_symbols(fqn)")
    db.execute(
        """CREATE TABLE knowledge_relationships (
            source TEXT NOT NULL REFERENCES knowledge_entities(key) ON DELETE CASCADE,
            target TEXT NOT NULL REFERENCES knowledge_entities(key) ON DELETE CASCADE,
            description TEXT NOT NULL,
            weight REAL NOT NULL,
            mode TEXT NOT NULL,
            inputs_hash TEXT NOT NULL,
            mentions INTEGER NOT NULL,
            PRIMARY KEY (source, target)
        )"""
    )
    db.execute("CREATE INDEX knowledge_relationships_target ON knowledge_relationships(target)")
    db.execute(
        """CREATE TABLE knowledge_communities (
            id TEXT PRIMARY KEY,              -- hash of level and members: the same members keep the id
            level INTEGER NOT NULL,
            parent TEXT,
            size INTEGER NOT NULL
        )"""
    )
    db.execute(
        """CREATE TABLE knowledge_community_members (
            community TEXT NOT NULL REFERENCES knowledge_communities(id) ON DELETE CASCADE,
            entity TEXT NOT NULL,
            PRIMARY KEY (community, entity)
        )"""
    )
    db.execute("CREATE INDEX knowledge_community_members_entity ON knowledge_community_members(entity)")
    db.execute(
        """CREATE TABLE knowledge_reports (
            community TEXT PRIMARY KEY REFERENCES knowledge_communities(id) ON DELETE CASCADE,
            title TEXT NOT NULL,
            summary TEXT NOT NULL,
            findings TEXT NOT NULL,           -- JSON [{summary, explanation, citations: [chunk ids]}]
            rating REAL NOT NULL,
            mode TEXT NOT NULL,               -- offline: extractive | model
            inputs_hash TEXT NOT NULL
        )"""
    )
    db.execute(
        """CREATE TABLE knowledge_calls (     -- every model answer, by the hash of its exact input
            key TEXT PRIMARY KEY,
            step TEXT NOT NULL,
            model TEXT NOT NULL,
            prompt_tokens INTEGER NOT NULL,
            completion_tokens INTEGER NOT NULL,
            answer TEXT NOT NULL,
            created_at TEXT NOT NULL
        )"""
    )
    db.execute(
        """CREATE TABLE knowledge_vectors (
            kind TEXT NOT NULL,               -- entity | report | chunk
            item TEXT NOT NULL,
            model TEXT NOT NULL,              -- provider name: vectors of different models never mix
            text_hash TEXT NOT NULL,
            vector BLOB NOT NULL,             -- float32, unit length
            PRIMARY KEY (kind, item)
        )"""
    )
    db.execute("CREATE TABLE IF NOT EXISTS knowledge_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")


@migrations
def m002_commit_symbols(db: Database) -> None:
    db.execute(
        """CREATE TABLE knowledge_commit_symbols (  -- what a commit document's diff touched (tenure.history)
            document_id INTEGER NOT NULL REFERENCES knowledge_documents(id) ON DELETE CASCADE,
            fqn TEXT NOT NULL,
            how TEXT NOT NULL,                -- how the history mapped the diff to it: span, hunk, carried, ...
            PRIMARY KEY (document_id, fqn)
        )"""
    )
    db.execute("CREATE INDEX knowledge_commit_symbols_fqn ON knowledge_commit_symbols(fqn)")


@migrations
def m003_dirty_entities(db: Database) -> None:
    # entities whose mentions or links changed since the last merge: the merge redoes only these
    db.execute("CREATE TABLE knowledge_dirty (entity TEXT PRIMARY KEY)")
    db.execute("""INSERT INTO knowledge_meta (key, value) VALUES ('merge_all', 'true')
                  ON CONFLICT (key) DO UPDATE SET value = excluded.value""")  # a store built before: all once


@migrations
def m004_source_hash(db: Database) -> None:
    # the digest of a document file's text as last read: an unchanged file is not split into sections again
    db.execute("ALTER TABLE knowledge_documents ADD COLUMN source_hash TEXT")


@migrations
def m005_touched(db: Database) -> None:
    # entities whose description, relationships or existence the merge changed, kept until the reports
    # took them in: the join, the communities and the reports look at these only, and a build stopped in
    # between still finds them. (A store built before: everything once, as `touched_all` says.)
    db.execute("CREATE TABLE knowledge_touched (entity TEXT PRIMARY KEY)")
    db.execute("""INSERT INTO knowledge_meta (key, value) VALUES ('touched_all', 'true')
                  ON CONFLICT (key) DO UPDATE SET value = excluded.value""")
    # what an update looks up instead of reading whole tables: what still waits for a model's summary,
    # the links that end at a changed entity, the documents of one source
    db.execute("CREATE INDEX knowledge_entities_pending ON knowledge_entities(key) WHERE inputs_hash = ''")
    db.execute("CREATE INDEX knowledge_relationships_pending ON knowledge_relationships(source) WHERE inputs_hash = ''")
    db.execute("CREATE INDEX knowledge_links_target ON knowledge_links(target)")
    db.execute("CREATE INDEX knowledge_documents_origin ON knowledge_documents(origin)")


def mark_dirty(db: Database, keys: Iterable[str]) -> None:
    db.executemany("INSERT INTO knowledge_dirty (entity) VALUES (?) ON CONFLICT DO NOTHING", [(k,) for k in keys])


def mark_chunks_dirty(db: Database, chunk_ids: Sequence[int]) -> None:
    """The entities of chunks about to go (their mentions and the ends of their links)."""
    sql = f"SELECT entity FROM knowledge_mentions WHERE chunk_id IN {db.each}"
    keys = {r["entity"] for r in db.query(sql, (db.many(chunk_ids),))}
    for row in db.query(f"SELECT source, target FROM knowledge_links WHERE chunk_id IN {db.each}",
                        (db.many(chunk_ids),)):
        keys.update((row["source"], row["target"]))
    mark_dirty(db, keys)


def touch(db: Database, keys: Iterable[str] | None) -> None:
    """Record entities the merge changed (None: all of them) for the steps after it."""
    if keys is None:
        set_meta(db, "touched_all", True)
    else:
        db.executemany("INSERT INTO knowledge_touched (entity) VALUES (?) ON CONFLICT DO NOTHING", [(k,) for k in keys])


def touched(db: Database) -> set[str] | None:
    """The entities changed since the reports last took them in (None: all)."""
    if get_meta(db, "touched_all"):
        return None
    return {r[0] for r in db.rows("SELECT entity FROM knowledge_touched")}


def untouch(db: Database) -> None:
    """The reports took every change in."""
    db.execute("DELETE FROM knowledge_touched")
    set_meta(db, "touched_all", False)


def digest(*parts: str) -> str:
    """A stable hash of text parts (separated, so ('ab', 'c') and ('a', 'bc') differ)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return h.hexdigest()


def chunked(items: Sequence[Any], size: int = CHUNK) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def marks(items: Sized) -> str:
    return ", ".join("?" * len(items))


def model_coverage(db: Database, model: str | None) -> dict:
    """How many of the stored text units a model has read, failed on, or not asked about yet, and a
    sentence saying so: "model m read 120 of 480 text units (360 failed); the rest offline"."""
    counts = dict(db.rows("SELECT COALESCE(model_state, 'unread'), COUNT(*) FROM knowledge_chunks GROUP BY 1"))
    read, failed, unread = counts.get("done", 0), counts.get("failed", 0), counts.get("unread", 0)
    text = f"model {model} read {read} of {counted(sum(counts.values()), 'text unit')}"
    if failed or unread:
        left = [f"{failed} failed" if failed else "", f"{unread} not asked yet" if unread else ""]
        text += f" ({', '.join(x for x in left if x)}); the rest offline"
    return {"read": read, "failed": failed, "unread": unread, "total": sum(counts.values()), "text": text}


def get_meta(db: Database, key: str) -> Any:
    rows = db.query("SELECT value FROM knowledge_meta WHERE key = ?", (key,))
    return json.loads(rows[0]["value"]) if rows else None


def set_meta(db: Database, key: str, value: Any) -> None:
    db.execute("INSERT INTO knowledge_meta (key, value) VALUES (?, ?)"
               " ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, json.dumps(value)))


def delete_keys(db: Database, table: str, column: str, keys: Iterable[Any]) -> None:
    keys = list(keys)
    for part in chunked(keys):
        db.execute(f"DELETE FROM {table} WHERE {column} IN ({marks(part)})", tuple(part))



@migrations
def m006_descriptions_by_place(db: Database) -> None:
    # extractive descriptions now order their sentences by document (kind, newest first, key, chunk), not
    # by chunk row id, which an update assigns in another order than a build of everything: a store built
    # before describes every offline entity and relationship again once (no model is asked)
    for table in ("knowledge_entities", "knowledge_relationships"):
        db.execute(f"UPDATE {table} SET inputs_hash = '' WHERE mode = 'offline'")
    db.execute("""INSERT INTO knowledge_meta (key, value) VALUES ('merge_all', 'true')
                  ON CONFLICT (key) DO UPDATE SET value = excluded.value""")


# What knowledge.citations reads from a checkout's code: made here by m007 and, where the checkout's database
# is not the store's (a team's), there by citations.checkout_migrations (without a team database they are
# one database: IF NOT EXISTS)
CODE_CITATION_TABLES = (
    "CREATE TABLE IF NOT EXISTS knowledge_code_files (path TEXT PRIMARY KEY, content_hash TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS knowledge_code_citations (
        path TEXT NOT NULL,
        line INTEGER NOT NULL,
        fqn TEXT NOT NULL,                -- the symbol the comment sits in (its module at module level)
        assigns TEXT NOT NULL,            -- the name the commented line assigns (MAX_RETRIES), or ''
        entity TEXT NOT NULL,             -- the cited entity's key: adr-3, #412, title:<folded title>
        cited TEXT NOT NULL,              -- as written: ADR-0003, #412, [[Settlement retries]]
        kind TEXT NOT NULL,               -- comment | docstring
        text TEXT NOT NULL,               -- the line of the comment
        PRIMARY KEY (path, line, entity)
    )""",
    "CREATE INDEX IF NOT EXISTS knowledge_code_citations_fqn ON knowledge_code_citations(fqn)",
    """CREATE TABLE IF NOT EXISTS knowledge_code_reads (  -- a symbol whose code names a cited name
        path TEXT NOT NULL,               -- the reader's file
        reader TEXT NOT NULL,
        name TEXT NOT NULL,               -- the name the cited assignment assigns
        source TEXT NOT NULL,             -- the file of that assignment
        PRIMARY KEY (reader, name, source)
    )""",
    "CREATE INDEX IF NOT EXISTS knowledge_code_reads_path ON knowledge_code_reads(path)",
)


@migrations
def m007_links_code_citations(db: Database) -> None:
    # links from the code's own prose (knowledge.citations): a comment or docstring citing a decision, a
    # ticket, a PR or a title is an `exact` link from the symbol it sits in; the files read for them, by
    # content hash (an unchanged file is not read again); the symbols of a file that read a cited name
    for statement in CODE_CITATION_TABLES:
        db.execute(statement)
    # the short names of the symbols, each with a digest of its full names, as the chunks were last read
    # for bare code names (knowledge.names): a chunk is read again when a name it has changed
    db.execute("CREATE TABLE knowledge_code_names (name TEXT PRIMARY KEY, digest TEXT NOT NULL)")


@migrations
def m007_bounds_ground_model_claims(db: Database) -> None:
    # a model's mention or link is now kept only where its text unit names it and bears its description
    # out (knowledge.grounding): what a store holds from before is checked once; the entities it named are
    # merged again by the next build, their model relationships rebuilt from the links that remain
    from tenure.knowledge.grounding import bears_out

    texts = {chunk: f"{ref} {title} {section}\n{text}" for chunk, text, section, ref, title in db.rows(
        "SELECT c.id, c.text, c.section, d.ref, d.title FROM knowledge_chunks c"
        " JOIN knowledge_documents d ON d.id = c.document_id WHERE c.model_state = 'done'")}
    names = {(chunk, entity): name for chunk, entity, name in db.rows(
        "SELECT chunk_id, entity, name FROM knowledge_mentions WHERE mode = 'model'")}
    mentions = [(chunk, entity) for chunk, entity, description in db.rows(
        "SELECT chunk_id, entity, description FROM knowledge_mentions WHERE mode = 'model'")
        if not bears_out(texts.get(chunk, ""), [names[chunk, entity]], description)]
    links = [(chunk, source, target) for chunk, source, target, description in db.rows(
        "SELECT chunk_id, source, target, description FROM knowledge_links WHERE mode = 'model'")
        if not bears_out(texts.get(chunk, ""), [names.get((chunk, source), source), names.get((chunk, target), target)],
                         description)]
    db.executemany("DELETE FROM knowledge_mentions WHERE chunk_id = ? AND entity = ? AND mode = 'model'", mentions)
    db.executemany("DELETE FROM knowledge_links WHERE chunk_id = ? AND source = ? AND target = ? AND mode = 'model'",
                   links)
    keys = {entity for _, entity in mentions} | {key for _, source, target in links for key in (source, target)}
    mark_dirty(db, keys)
    for part in chunked(sorted(keys)):
        db.execute(f"DELETE FROM knowledge_relationships WHERE mode = 'model' AND (source IN ({marks(part)})"
                   f" OR target IN ({marks(part)}))", tuple(part) * 2)


@migrations
def m008_code_citations_leave_the_team_database(db: Database) -> None:
    # what the code's comments cite lives in each checkout's own database (citations.checkout_migrations,
    # with its `citations_naming` mark): a team's database made before keeps copies nobody reads. (A
    # checkout's own file is also this store's database: there they are the checkout's, and stay.)
    if db.many_projects:
        for table in ("knowledge_code_reads", "knowledge_code_citations", "knowledge_code_files"):
            db.execute(f"DROP TABLE IF EXISTS {table}")
        db.execute("DELETE FROM knowledge_meta WHERE key = 'citations_naming'")
