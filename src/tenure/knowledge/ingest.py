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
        batch = todo[start:start + BATCH]
        with db.bulk():
            new = [doc for doc in batch if doc.key not in known]
            report.new += len(new)
            report.chunks_added += _store_new(db, new, config, names, dirty)
            for doc in batch:
                if doc.key in known:
                    report.changed += 1
                    added, removed = _store(db, doc, known[doc.key][0], config, names, dirty)
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


DOCUMENT_COLUMNS = ("kind, origin, path, ref, title, content_hash, tokens, sections, thin, thin_reason, authored_at,"
                    " meta, source_hash")
DOCUMENT_VALUES = ", ".join("?" * len(DOCUMENT_COLUMNS.split(",")))


def _chunks(doc: SourceDocument, config: KnowledgeConfig) -> list[Chunk]:
    return [] if doc.thin_reason else chunk_sections(list(doc.sections), config.chunk_size, config.chunk_overlap)


def _document_values(doc: SourceDocument, chunks: list[Chunk]) -> tuple:
    """What DOCUMENT_COLUMNS hold of a document chunked into `chunks`."""
    # (a thin document is never extracted from: nothing needs its count; `knowledge check` counts it)
    counts = [c.tokens for c in chunks]
    size = tokens.NOT_COUNTED if doc.thin_reason or None in counts else sum(c or 0 for c in counts)
    return (doc.kind, doc.origin, doc.path, doc.ref, doc.title, doc.content_hash, size, len(doc.sections),
            1 if doc.thin_reason else 0, doc.thin_reason, doc.authored_at, json.dumps(doc.meta, sort_keys=True),
            doc.source_hash)


def _commit_symbols(db: Database, documents: list[tuple[int, SourceDocument]]) -> None:
    """A commit's symbols, kept queryable by symbol: `why` lists the commits that shaped one."""
    db.executemany("INSERT INTO knowledge_commit_symbols (document_id, fqn, how) VALUES (?, ?, ?)"
                   " ON CONFLICT DO NOTHING", [(document_id, s["fqn"], s["how"]) for document_id, doc in documents
                                               if doc.kind == "commit" for s in doc.meta.get("symbols", [])])


def _insert_chunks(db: Database, chunks: list[tuple[int, SourceDocument, int, Chunk]], names: CodeNames,
                   dirty: bool) -> None:
    """New chunks (their document's id, the document, their place in it), in one insert, and what the offline
    extraction finds in each."""
    ids = db.insert_many("INSERT INTO knowledge_chunks (document_id, ordinal, section, line, text, tokens, text_hash)"
                         " VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
                         [(document_id, ordinal, chunk.section, chunk.line, chunk.text,
                           tokens.NOT_COUNTED if chunk.tokens is None else chunk.tokens, digest(chunk.text))
                          for document_id, _, ordinal, chunk in chunks])
    own: dict[int, list[offline.Mention]] = {}
    for chunk_id, (document_id, doc, _, chunk) in zip(ids, chunks, strict=True):
        if document_id not in own:
            own[document_id] = offline.document_entities(doc.kind, doc.ref, doc.title, doc.key, doc.meta)
        write_offline(db, chunk_id, chunk.text, chunk.section, own[document_id], names, dirty)


def _store_new(db: Database, docs: list[SourceDocument], config: KnowledgeConfig, names: CodeNames,
               dirty: bool) -> int:
    """Documents stored for the first time, all at once: one insert of the documents and one of each one's
    chunks (a first build writes thousands: on a server, each insert waiting for its id was a round
    trip); returns how many chunks were added. A new document has no chunk to match, move or retract."""
    chunked = [(doc, _chunks(doc, config)) for doc in docs]
    ids = db.insert_many(f"INSERT INTO knowledge_documents (key, {DOCUMENT_COLUMNS}) VALUES (?, {DOCUMENT_VALUES})"
                         " RETURNING id",
                         [(doc.key, *_document_values(doc, chunks)) for doc, chunks in chunked])
    _commit_symbols(db, list(zip(ids, docs, strict=True)))
    new = [(document_id, doc, ordinal, chunk) for document_id, (doc, chunks) in zip(ids, chunked, strict=True)
           for ordinal, chunk in enumerate(chunks)]
    _insert_chunks(db, new, names, dirty)
    return len(new)


def _store(db: Database, doc: SourceDocument, document_id: int, config: KnowledgeConfig,
           names: CodeNames, dirty: bool) -> tuple[int, int]:
    """A changed document stored again: (chunks added, chunks removed)."""
    chunks = _chunks(doc, config)
    db.execute(f"UPDATE knowledge_documents SET ({DOCUMENT_COLUMNS}) = ({DOCUMENT_VALUES}) WHERE id = ?",
               (*_document_values(doc, chunks), document_id))
    if doc.kind == "commit":
        db.execute("DELETE FROM knowledge_commit_symbols WHERE document_id = ?", (document_id,))
        _commit_symbols(db, [(document_id, doc)])
    return _sync_chunks(db, document_id, doc, chunks, names, dirty)


def _sync_chunks(db: Database, document_id: int, doc: SourceDocument, chunks: list[Chunk],
                 names: CodeNames, dirty: bool) -> tuple[int, int]:
    """Chunks matched to the old ones by text: a kept chunk only moves (ordinal, section, line)."""
    old: dict[str, list[int]] = {}
    for chunk_id, text_hash in db.rows("SELECT id, text_hash FROM knowledge_chunks WHERE document_id = ?"
                                       " ORDER BY ordinal", (document_id,)):
        old.setdefault(text_hash, []).append(chunk_id)
    added: list[tuple[int, SourceDocument, int, Chunk]] = []
    kept: list[tuple[int, int, str, int]] = []
    for ordinal, chunk in enumerate(chunks):
        if old.get(text_hash := digest(chunk.text)):
            kept.append((old[text_hash].pop(0), ordinal, chunk.section, chunk.line))
        else:
            added.append((document_id, doc, ordinal, chunk))
    _insert_chunks(db, added, names, dirty)
    removed = [i for ids in old.values() for i in ids]
    if removed:
        mark_chunks_dirty(db, removed)
        delete_keys(db, "knowledge_chunks", "id", removed)
    db.executemany("UPDATE knowledge_chunks SET ordinal = ?, section = ?, line = ? WHERE id = ?",
                   [(ordinal, section, line, chunk_id) for chunk_id, ordinal, section, line in kept])
    return len(added), len(removed)


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
    with db.bulk():
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
