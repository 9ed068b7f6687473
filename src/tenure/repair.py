"""`tenure repair`: a damaged project database made sound again, losing nothing that cannot be rebuilt.

The database holds two kinds of state, decided table by table (`STORES`). Derived: the graph and every
other structural table (files, symbols, edges, analyses, language-server verdicts, the trace linker's
span index) and the knowledge store's documents, entities and reports, which an index of the repository
builds again. Kept, because nothing else holds them: memories with their history, links and usage, work
sessions and the project's id and key id (which key file decrypts the memories); the episodes (sessions,
pull requests, commits), CI outcomes, conclusions and epochs; the git history as read (commits rebased
or reset away are no longer in git); the rules with every change of them; the record of what a team
push copied; the model's answers (a knowledge build takes its extractions from them again without a
call). Imported threads are files in
the state directory, which a repair does not touch.

A repair copies the damaged files aside first, builds a fresh database, copies every readable row
of the kept tables into it (storage/salvage.py), puts it in place and indexes the repository. The
copy stays: rows that could not be read may still be recovered from it by hand.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from tenure.episodic.store import migrations as episodic_schema
from tenure.history.store import migrations as history_schema
from tenure.knowledge.citations import checkout_migrations as knowledge_checkout_schema
from tenure.knowledge.store import migrations as knowledge_schema
from tenure.memories.checkout_store import checkout_migrations as memories_checkout_schema
from tenure.memories.store import migrations as memories_schema
from tenure.procedural.store import migrations as procedural_schema
from tenure.state import DB_NAME, STATE_DIR
from tenure.storage import Migrations, StorageError, open_database
from tenure.storage.salvage import salvage
from tenure.structural.lsp.state import migrations as lsp_schema
from tenure.structural.store import migrations as structural_schema
from tenure.structural.traces.spans import migrations as spans_schema
from tenure.team.push import migrations as team_schema

KEPT, DERIVED = True, False
# Every store's schema, and what a repair does with each table it makes: KEPT (its readable rows copied)
# or DERIVED (built again by the index that follows); one decision for a whole store, or one per table.
# A table without a decision stops a repair before anything is moved (a new table must be decided).
STORES: list[tuple[Migrations, bool | dict[str, bool]]] = [
    (structural_schema, DERIVED), (lsp_schema, DERIVED), (spans_schema, DERIVED),
    (history_schema, KEPT), (episodic_schema, KEPT), (memories_schema, KEPT),
    (procedural_schema, {"rules": KEPT, "rule_events": KEPT,
                         # (counted again from the episodes by the next mining, which says again what it read)
                         "rule_evidence": DERIVED, "procedural_meta": DERIVED}),
    (knowledge_schema, {"knowledge_calls": KEPT, **dict.fromkeys((
        "knowledge_documents", "knowledge_chunks", "knowledge_mentions", "knowledge_links", "knowledge_entities",
        "knowledge_entity_symbols", "knowledge_relationships", "knowledge_communities",
        "knowledge_community_members", "knowledge_reports", "knowledge_vectors", "knowledge_meta",
        "knowledge_commit_symbols", "knowledge_dirty", "knowledge_touched",
        # (what the code's comments cite, and the names they were read for: read from the code again)
        "knowledge_code_files", "knowledge_code_citations", "knowledge_code_reads", "knowledge_code_names"), DERIVED)}),
    # which database this one is to the team database's record of what it pushed: lost, a push would
    # copy everything again
    (team_schema, KEPT),
    # what the stores derive from the checkout's code: here, the tables the stores above made already
    (knowledge_checkout_schema, DERIVED), (memories_checkout_schema, KEPT),
]
_SIDE_FILES = ("-wal", "-shm")  # SQLite's write-ahead log and its index: part of the database


def repair(root: Path, index: Callable[[], dict]) -> dict:
    """Repair the database of the project at `root`; `index()` rebuilds the derived tables in the
    repaired one. Returns what was kept, what could not be read, and where the copy is."""
    database = root / STATE_DIR / DB_NAME
    if not database.exists():
        raise StorageError(f"there is no database to repair at {database}: `tenure index` makes one")
    backup = database.parent / f"backup-{datetime.now(UTC).strftime('%Y%m%dT%H%M%S%fZ')}"
    backup.mkdir()
    for name in (DB_NAME, *(DB_NAME + side for side in _SIDE_FILES)):
        if (database.parent / name).exists():
            shutil.copy2(database.parent / name, backup / name)
    fresh = database.with_name(DB_NAME + ".repairing")
    _remove(fresh)
    made = _fresh_schema(fresh)
    integrity, found = salvage(backup / DB_NAME, fresh, [table for table, kept in made.items() if kept])
    _remove(database)  # the log of the damaged database must not be replayed into the fresh one
    fresh.replace(database)
    # a commit lost with a damaged page is read from git again: without tips, the index reads every
    # commit it reaches (those kept are skipped by their sha)
    history_lost = any(f.unreadable or f.dropped for t, f in found.items() if t.startswith("history_"))
    repaired = open_database(database)
    try:
        kept_meta = {r["key"] for r in repaired.query("SELECT key FROM memory_meta")}
        if history_lost:
            repaired.execute("DELETE FROM history_tips")
    finally:
        repaired.close()
    return {"backup": str(backup), "integrity": integrity, "kept": [f.as_dict() for f in found.values()],
            "key_record_lost": bool(found["memories"].rows) and not {"project_id", "key_id"} <= kept_meta,
            "history_read_again": history_lost, "model_answers": found["knowledge_calls"].rows,
            "rebuilt": [table for table, kept in made.items() if not kept], "index": index()}


def _fresh_schema(path: Path) -> dict[str, bool]:
    """Make every store's tables in a new database at `path`: {table: kept}, in the order made."""
    db = open_database(path)
    try:
        made: dict[str, bool] = {}
        for schema, decided in STORES:
            before = db.table_names()
            schema.apply(db)
            for table in (t for t in db.table_names() if t not in before and not t.startswith("_")):  # (_migrations)
                if isinstance(decided, dict) and table not in decided:
                    raise StorageError(f"tenure repair does not know whether to keep or rebuild the table {table}: "
                                       "the database was not changed (a defect of this tenure: report it)")
                made[table] = decided[table] if isinstance(decided, dict) else decided
        return made
    finally:
        db.close()


def _remove(database: Path) -> None:
    for path in (database, *(database.with_name(database.name + side) for side in _SIDE_FILES)):
        path.unlink(missing_ok=True)
