"""Every source asked for what it holds now: documents, exported threads, commits. A source that
cannot list (no git, a history not read) says why; what it gave before is kept."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tenure.knowledge.config import KnowledgeConfig
from tenure.knowledge.sources import Skipped, SourceDocument, documents, threads
from tenure.knowledge.store import get_meta
from tenure.storage import Database
from tenure.structural.discover import discover as repository_files


@dataclass
class Discovered:
    documents: list[SourceDocument] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    complete: set[str] = field(default_factory=set)  # origins that listed everything they hold
    history: dict = field(default_factory=dict)  # what reading the history did, or why it could not


def discover(db: Database, code: Database, root: Path, config: KnowledgeConfig, incremental: bool = True) -> Discovered:
    """`incremental`: the history gives only the commits since the last build (see commits.read); `code`:
    the checkout's database, which holds its git history."""
    found = Discovered()
    listed = repository_files(root).paths
    for item in documents.read(root, documents.candidates(root, config, listed),
                               _stored_documents(db, config) if incremental else None):
        _take(found, item)
    for glob in config.documents:  # (a glob matches the repository's own files only)
        if glob.startswith("/") or ".." in glob.split("/"):
            found.skipped.append(Skipped(glob, "outside the repository: documents are read only inside it"))
    found.complete.add("documents")
    for item in threads.read(root, config.threads):
        _take(found, item)
    found.complete.add("threads")
    if config.history:
        from tenure.knowledge.sources import commits  # (git and the history tables: only when asked for)

        docs, found.history, every = commits.read(code, root, get_meta(db, "history_head") if incremental else None,
                                                  get_meta(db, "history_mapping"))
        found.documents += docs
        if every:
            found.complete.add("history")
    else:
        found.history = {"available": False, "reason": "[knowledge] history = false"}
    return found


def _stored_documents(db: Database, config: KnowledgeConfig) -> dict[str, tuple[str, str]]:
    """path -> (source_hash, content_hash) of the document files stored, while their chunks are cut as
    configured (another chunking re-stores every document: each must then be read whole)."""
    if get_meta(db, "chunking") != f"{config.chunk_size}/{config.chunk_overlap}":
        return {}
    return {path: (source, content) for path, source, content in db.rows(
        "SELECT path, source_hash, content_hash FROM knowledge_documents WHERE origin = 'documents'"
        " AND source_hash IS NOT NULL")}


def _take(found: Discovered, item: SourceDocument | Skipped) -> None:
    if isinstance(item, Skipped):
        found.skipped.append(item)
    else:
        found.documents.append(item)
