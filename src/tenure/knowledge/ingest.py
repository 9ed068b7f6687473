"""Step 1: what the sources found, stored as documents and chunks, with the offline extraction of
every new chunk.

A document whose content is unchanged is not touched. An edited one is chunked again; a chunk whose
text is unchanged keeps its row and everything extracted from it (a model is not asked again), the
others go, and with them (foreign keys cascade) their mentions and links: the retraction the later
steps see as changed inputs. A document its source no longer finds is deleted the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from tenure.knowledge import offline, tokens
from tenure.knowledge.chunking import Chunk, chunk_sections
from tenure.knowledge.config import KnowledgeConfig
from tenure.knowledge.names import CodeNames, chunks_naming
from tenure.knowledge.sources import SourceDocument
from tenure.knowledge.store import delete_keys, digest, get_meta, mark_chunks_dirty, mark_dirty, set_meta
from tenure.storage import Database

Progress = Callable[[str, int, int], None]
BATCH = 200  # documents written per transaction


@dataclass
class IngestReport:
    documents: int = 0
    new: int = 0
    changed: int = 0
    unchanged: int = 0
    removed: int = 0
    chunks_added: int = 0
    chunks_removed: int = 0
    by_origin: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def ingest(db: Database, code: Database, docs: list[SourceDocument], complete_origins: Iterable[str],
           config: KnowledgeConfig, progress: Progress | None = None) -> IngestReport:
    """Store `docs`; documents of an origin in `complete_origins` that are not among them are deleted
    (an origin that failed to list, e.g. no git, keeps what it gave before)."""
    report = IngestReport(documents=len(docs))
    names = CodeNames(db, code)
    _refresh_offline(db, names)
    # (while the next merge takes every entity, marking some of them changed is wasted: a first build)
    dirty = not get_meta(db, "merge_all")
    known = {r[0]: (r[1], r[2], r[3]) for r in db.rows(
        f"SELECT key, id, content_hash, source_hash FROM knowledge_documents WHERE key IN {db.each}",
        (db.many([d.key for d in docs]),))}
    chunking = f"{config.chunk_size}/{config.chunk_overlap}"
    rechunk_all = get_meta(db, "chunking") != chunking
    todo = []
    unsplit = []  # unchanged documents stored before their file's digest was kept: kept now
    for doc in docs:
        report.by_origin[doc.origin] = report.by_origin.get(doc.origin, 0) + 1
        old = known.get(doc.key)
        if doc.known_hash is not None or (old is not None and old[1] == doc.content_hash and not rechunk_all):
            report.unchanged += 1
            if old is not None and doc.source_hash is not None and old[2] != doc.source_hash:
                unsplit.append((doc.source_hash, old[0]))
            continue
        todo.append(doc)
    if unsplit:
        with db.transaction():
            db.executemany("UPDATE knowledge_documents SET source_hash = ? WHERE id = ?", unsplit)
    for start in range(0, len(todo), BATCH):
        with db.transaction():
            for doc in todo[start:start + BATCH]:
                old = known.get(doc.key)
                if old is None:
                    report.new += 1
                else:
                    report.changed += 1
                added, removed = _store(db, doc, old[0] if old else None, config, names, dirty)
                report.chunks_added += added
                report.chunks_removed += removed
        if progress:
            progress("documents", min(start + BATCH, len(todo)), len(todo))
    listed = {d.key for d in docs}
    stale = [r[0] for r in db.rows(f"SELECT key FROM knowledge_documents WHERE origin IN {db.each}",
                                   (db.many(sorted(set(complete_origins))),)) if r[0] not in listed]
    if stale:
        with db.transaction():
            chunks = [r["id"] for r in db.query("SELECT c.id FROM knowledge_chunks c JOIN knowledge_documents d"
                                                    f" ON d.id = c.document_id WHERE d.key IN {db.each}",
                                                        (db.many(stale),))]
            mark_chunks_dirty(db, chunks)
            report.chunks_removed += len(chunks)
            delete_keys(db, "knowledge_documents", "key", stale)
        report.removed = len(stale)
    with db.transaction():
        set_meta(db, "chunking", chunking)
    return report


def _store(db: Database, doc: SourceDocument, document_id: int | None, config: KnowledgeConfig,
           names: CodeNames, dirty: bool) -> tuple[int, int]:
    chunks = [] if doc.thin_reason else chunk_sections(list(doc.sections), config.chunk_size, config.chunk_overlap)
    # (a thin document is never extracted from: nothing needs its count; `knowledge check` counts it)
    counts = [c.tokens for c in chunks]
    size = tokens.NOT_COUNTED if doc.thin_reason or None in counts else sum(c or 0 for c in counts)
    values = (doc.kind, doc.origin, doc.path, doc.ref, doc.title, doc.content_hash, size, len(doc.sections),
              1 if doc.thin_reason else 0, doc.thin_reason, doc.authored_at, json.dumps(doc.meta, sort_keys=True),
              doc.source_hash)
    new = document_id is None
    if document_id is None:
        document_id = db.rows(
            "INSERT INTO knowledge_documents (key, kind, origin, path, ref, title, content_hash, tokens, sections,"
            " thin, thin_reason, authored_at, meta, source_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " RETURNING id",
            (doc.key, *values))[0][0]
    else:
        db.execute("UPDATE knowledge_documents SET kind = ?, origin = ?, path = ?, ref = ?, title = ?,"
                   " content_hash = ?, tokens = ?, sections = ?, thin = ?, thin_reason = ?, authored_at = ?, meta = ?,"
                   " source_hash = ? WHERE id = ?",
                   (*values, document_id))
    if doc.kind == "commit":  # kept queryable by symbol: `why` lists the commits that shaped one
        if not new:
            db.execute("DELETE FROM knowledge_commit_symbols WHERE document_id = ?", (document_id,))
        db.executemany("INSERT INTO knowledge_commit_symbols (document_id, fqn, how) VALUES (?, ?, ?)"
                       " ON CONFLICT DO NOTHING",
                       [(document_id, s["fqn"], s["how"]) for s in doc.meta.get("symbols", [])])
    return _sync_chunks(db, document_id, doc, chunks, names, new, dirty)


def _sync_chunks(db: Database, document_id: int, doc: SourceDocument, chunks: list[Chunk],
                 names: CodeNames, new: bool, dirty: bool) -> tuple[int, int]:
    """Chunks matched to the old ones by text: a kept chunk only moves (ordinal, section, line). A new
    document has none to match, move or retract (a first index: thousands of statements spared)."""
    old: dict[str, list[int]] = {}
    for chunk_id, text_hash in () if new else db.rows("SELECT id, text_hash FROM knowledge_chunks"
                                                      " WHERE document_id = ? ORDER BY ordinal", (document_id,)):
        old.setdefault(text_hash, []).append(chunk_id)
    own = offline.document_entities(doc.kind, doc.ref, doc.title, doc.key, doc.meta)
    added = 0
    kept: list[tuple[int, int, str, int]] = []
    for ordinal, chunk in enumerate(chunks):
        text_hash = digest(chunk.text)
        if old.get(text_hash):
            kept.append((old[text_hash].pop(0), ordinal, chunk.section, chunk.line))
            continue
        chunk_id = db.rows("INSERT INTO knowledge_chunks (document_id, ordinal, section, line, text, tokens, text_hash)"
                           " VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
                           (document_id, ordinal, chunk.section, chunk.line, chunk.text,
                            tokens.NOT_COUNTED if chunk.tokens is None else chunk.tokens,
                            text_hash))[0][0]
        write_offline(db, chunk_id, chunk.text, chunk.section, own, names, dirty)
        added += 1
    removed = [i for ids in old.values() for i in ids]
    if removed:
        mark_chunks_dirty(db, removed)
        delete_keys(db, "knowledge_chunks", "id", removed)
    db.executemany("UPDATE knowledge_chunks SET ordinal = ?, section = ?, line = ? WHERE id = ?",
                   [(ordinal, section, line, chunk_id) for chunk_id, ordinal, section, line in kept])
    return added, len(removed)


def write_offline(db: Database, chunk_id: int, text: str, section: str, own: list[offline.Mention],
                  names: offline.CodeNames | None = None, dirty: bool = True) -> None:
    """The offline extraction of a chunk, stored; `dirty`: its entities are marked for the next merge
    (not needed when that merge takes all of them)."""
    found = offline.extract(text, section, own, names)
    if dirty:
        mark_dirty(db, found.mentions)
    db.executemany(
        "INSERT INTO knowledge_mentions (chunk_id, entity, mode, name, type, description)"
        " VALUES (?, ?, 'offline', ?, ?, ?)",
        [(chunk_id, m.key, m.name, m.type, m.description) for m in found.mentions.values()])
    db.executemany(
        "INSERT INTO knowledge_links (chunk_id, source, target, mode, description, weight)"
        " VALUES (?, ?, ?, 'offline', ?, ?)",
        [(chunk_id, link.source, link.target, link.description, link.weight) for link in found.links.values()])


def _refresh_offline(db: Database, names: CodeNames) -> None:
    """A newer offline extractor reads every chunk again (its output is not a model's: free to redo); so
    does a first index of the code. Symbols named differently since are read again in the chunks that
    write one of their names (knowledge.names)."""
    renamed = names.renamed()
    if get_meta(db, "offline_version") != offline.VERSION or renamed is None:
        chunks = None
    elif renamed:
        chunks = chunks_naming(db, renamed)
    else:
        return
    sql = ("SELECT c.id, c.text, c.section, d.kind, d.ref, d.title, d.key, d.meta FROM knowledge_chunks c"
           " JOIN knowledge_documents d ON d.id = c.document_id")
    rows = db.rows(sql) if chunks is None else [tuple(r.values()) for r in db.query(
        sql + f" WHERE c.id IN {db.each}", (db.many(chunks),))]
    with db.transaction():
        if chunks is None:
            db.execute("DELETE FROM knowledge_mentions WHERE mode = 'offline'")
            db.execute("DELETE FROM knowledge_links WHERE mode = 'offline'")
            set_meta(db, "merge_all", True)
        else:
            mark_chunks_dirty(db, chunks)
            for table in ("knowledge_mentions", "knowledge_links"):
                db.execute(f"DELETE FROM {table} WHERE mode = 'offline' AND chunk_id IN {db.each}", (db.many(chunks),))
        for chunk_id, text, section, kind, ref, title, key, meta in rows:
            write_offline(db, chunk_id, text, section,
                          offline.document_entities(kind, ref, title, key, json.loads(meta)), names,
                          chunks is not None)  # (else every entity is merged: merge_all)
        set_meta(db, "offline_version", offline.VERSION)
        names.record()
