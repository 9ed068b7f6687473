"""What enrichment has verified: per file, the content and call sites it was checked at, and by
which server; plus the lock that keeps one enrichment running per project.

Rows the lsp source writes to `source_edges` use two origins per file: the file itself (its call
sites, asked `definition`) and `refs:<path>` (its symbols, asked `references` / `implementation`,
which may point into other files). A file is re-verified when its content hash or the tree-sitter
edges of its call sites changed; `invalidate` drops the verdicts of changed and deleted files at
once (cheap SQL, run after every index) so a stale confirmation never counts on the query path.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from tenure.state import process_alive, process_lock
from tenure.storage import Database, Migrations
from tenure.words import counted

SOURCE = "lsp"
REFS_PREFIX = "refs:"
LOCK_FILE = "enrich.lock"
migrations = Migrations("lsp")


@migrations
def m001_verified_files(db: Database) -> None:
    db.execute(
        """CREATE TABLE lsp_files (
            path TEXT PRIMARY KEY,
            content_hash TEXT NOT NULL,   -- files.content_hash when it was verified
            sites_hash TEXT NOT NULL,     -- hash of tree-sitter's edges out of it then (re-resolution changes it)
            server TEXT NOT NULL,         -- name and version from the server's initialize result
            verified_at TEXT NOT NULL
        )"""
    )


@migrations
def m002_failures(db: Database) -> None:
    # Why the last run gave a language up, until `tenure index` has said it once.
    db.execute("CREATE TABLE lsp_failures (language TEXT PRIMARY KEY, reason TEXT NOT NULL)")


@migrations
def m003_runs(db: Database) -> None:
    # Each enrichment that had files to verify, as it goes: `tenure status` and answers say what runs.
    db.execute(
        """CREATE TABLE lsp_runs (
            id INTEGER PRIMARY KEY,
            pid INTEGER NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT,             -- NULL while it runs (or when its process was killed)
            files_total INTEGER NOT NULL,
            files_done INTEGER NOT NULL DEFAULT 0,
            result TEXT NOT NULL DEFAULT ''
        )"""
    )


@migrations
def m004_bounds_schedules(db: Database) -> None:
    # Each background enrichment an index scheduled: the run stops when a newer index schedules another,
    # or when its index process ended before the index did (killed, crashed).
    db.execute(
        """CREATE TABLE lsp_schedules (
            id INTEGER PRIMARY KEY,
            index_pid INTEGER NOT NULL,
            scheduled_at TEXT NOT NULL,
            index_done INTEGER NOT NULL DEFAULT 0
        )"""
    )


KEPT_RUNS = 20


class LspState:
    def __init__(self, db: Database) -> None:
        self.db = db
        migrations.apply(db)

    def start_run(self, files: int) -> int:
        with self.db.transaction():
            [(run,)] = self.db.rows("INSERT INTO lsp_runs (pid, started_at, files_total) VALUES (?, ?, ?) RETURNING id",
                                    (os.getpid(), _now(), files))
            self.db.execute("DELETE FROM lsp_runs WHERE id <= ?", (run - KEPT_RUNS,))
        return run

    def run_progress(self, run: int, done: int) -> None:
        """(inside the transaction that writes a file's verdicts: the count never runs ahead of them)"""
        self.db.execute("UPDATE lsp_runs SET files_done = ? WHERE id = ?", (done, run))

    def finish_run(self, run: int, result: str) -> None:
        with self.db.transaction():
            self.db.execute("UPDATE lsp_runs SET finished_at = ?, result = ? WHERE id = ?", (_now(), result, run))

    def schedule(self, index_pid: int) -> int:
        """A background run scheduled by the index in `index_pid`; it supersedes every earlier one."""
        with self.db.transaction():
            [(schedule,)] = self.db.rows("INSERT INTO lsp_schedules (index_pid, scheduled_at) VALUES (?, ?)"
                                         " RETURNING id", (index_pid, _now()))
            self.db.execute("DELETE FROM lsp_schedules WHERE id <= ?", (schedule - KEPT_RUNS,))
        return schedule

    def index_done(self, index_pid: int) -> None:
        """The index in `index_pid` finished: what it scheduled may outlive it."""
        with self.db.transaction():
            self.db.execute("UPDATE lsp_schedules SET index_done = 1 WHERE index_pid = ? AND index_done = 0",
                            (index_pid,))

    def why_stop(self, schedule: int) -> str | None:
        """Why a background run of `schedule` must stop now, or None: a newer index scheduled another,
        or its index's process ended before the index finished."""
        if self.db.rows("SELECT 1 FROM lsp_schedules WHERE id > ? LIMIT 1", (schedule,)):
            return "a newer index scheduled another run"
        rows = self.db.rows("SELECT index_pid, index_done FROM lsp_schedules WHERE id = ?", (schedule,))
        if rows and not rows[0][1] and not process_alive(rows[0][0]):
            return f"the index that scheduled it (pid {rows[0][0]}) ended before it finished"
        return None

    def verified(self) -> dict[str, tuple[str, str]]:
        """path -> (content hash, sites hash) it was verified at."""
        return {r["path"]: (r["content_hash"], r["sites_hash"])
                for r in self.db.query("SELECT path, content_hash, sites_hash FROM lsp_files")}

    def servers_by_path(self) -> dict[str, str]:
        return {r["path"]: r["server"] for r in self.db.query("SELECT path, server FROM lsp_files")}

    def mark(self, path: str, content_hash: str, sites_hash: str, server: str) -> None:
        self.db.execute(
            "INSERT INTO lsp_files (path, content_hash, sites_hash, server, verified_at) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (path) DO UPDATE SET content_hash = excluded.content_hash,"
            " sites_hash = excluded.sites_hash, server = excluded.server, verified_at = excluded.verified_at",
            (path, content_hash, sites_hash, server, _now()),
        )

    def record_failures(self, failed: dict[str, str]) -> None:
        with self.db.transaction():
            self.db.execute("DELETE FROM lsp_failures")
            self.db.executemany("INSERT INTO lsp_failures (language, reason) VALUES (?, ?)", failed.items())

    def take_failures(self) -> dict[str, str]:
        """The last run's failures, once: they are forgotten as they are read."""
        with self.db.transaction():
            rows = self.db.query("SELECT language, reason FROM lsp_failures")
            self.db.execute("DELETE FROM lsp_failures")
        return {r["language"]: r["reason"] for r in rows}

    def sites_hashes(self, file_ids: dict[int, str]) -> dict[str, str]:
        """path -> hash of the tree-sitter edges the file produced (what its call sites resolve to now)."""
        import hashlib  # (OpenSSL's: not for every process that opens the project, such as a hook)

        digests = {fid: hashlib.blake2b(digest_size=16) for fid in file_ids}
        for r in self.db.iter_query(
            "SELECT file_id, src_fqn, COALESCE(dst_fqn, ''), relation, tier, line FROM edges"
            " ORDER BY file_id, line, src_fqn, dst_fqn, relation"
        ):
            digest = digests.get(r["file_id"])
            if digest is not None:
                digest.update(repr(tuple(r.values())[1:]).encode())
        return {file_ids[fid]: d.hexdigest() for fid, d in digests.items()}

    def invalidate(self) -> list[str]:
        """Drop the verdicts of files that changed or went away since they were verified (and the
        reference edges found in them for other files' symbols, whose files are then re-verified).
        Returns the paths whose verdicts were dropped."""
        stale = [r["path"] for r in self.db.query(
            "SELECT v.path FROM lsp_files v LEFT JOIN files f ON f.path = v.path"
            " WHERE f.id IS NULL OR f.content_hash IS DISTINCT FROM v.content_hash")]
        if not stale:
            return []
        db, paths = self.db, self.db.many(stale)
        with db.transaction():
            # other files' symbols were referenced from here: their refs: origin is re-asked
            holders = [r["origin"][len(REFS_PREFIX):] for r in db.query(
                f"SELECT DISTINCT origin FROM source_edges WHERE source = ? AND path IN {db.each}"
                f" AND origin LIKE '{REFS_PREFIX}%'", (SOURCE, paths))]
            db.execute(f"DELETE FROM source_edges WHERE source = ? AND path IN {db.each}", (SOURCE, paths))
            origins = stale + [REFS_PREFIX + p for p in stale]
            db.executemany("DELETE FROM source_edges WHERE source = ? AND origin = ?", [(SOURCE, o) for o in origins])
            db.execute(f"DELETE FROM lsp_files WHERE path IN {db.each}", (paths,))
            if holders:
                db.execute(f"UPDATE lsp_files SET sites_hash = '' WHERE path IN {db.each}", (db.many(holders),))
        return stale


def enrich_lock(state_dir: Path) -> contextlib.AbstractContextManager[bool]:
    """Hold the project's enrichment lock while inside; yields False when another process has it."""
    return process_lock(state_dir, LOCK_FILE)


def lock_held(state_dir: Path) -> bool:
    with enrich_lock(state_dir) as acquired:
        return not acquired


def last_run(db: Database) -> dict | None:
    """The latest enrichment: when it started, how many files it had and has done, and how it ended
    (`running` while its process lives; a run whose process died unfinished is `stopped`)."""
    if not db.table_exists("lsp_runs"):
        return None
    rows = db.query("SELECT * FROM lsp_runs ORDER BY id DESC LIMIT 1")
    if not rows:
        return None
    run = rows[0]
    running = run["finished_at"] is None and process_alive(run["pid"])
    return {**run, "running": running, "stopped": run["finished_at"] is None and not running}


def run_text(run: dict | None) -> str:
    if run is None:
        return "lsp enrichment: not run yet"
    files = f"{run['files_done']} of {counted(run['files_total'], 'file')}"
    if run["running"]:
        return f"lsp enrichment running since {run['started_at']} (pid {run['pid']}): {files} verified"
    if run["stopped"]:
        return (f"lsp enrichment stopped at {files} (started {run['started_at']}; its process ended unfinished): "
                "the next `tenure index` schedules the rest")
    return f"lsp enrichment: last run {run['started_at']} to {run['finished_at']}: {run['result']}"


def verified_since(db: Database, when: str, paths: Iterable[str]) -> set[str]:
    """Which of `paths` a language server verified at `when` or later."""
    return {r["path"] for r in db.query(
        f"SELECT path FROM lsp_files WHERE verified_at >= ? AND path IN {db.each}", (when, db.many(set(paths))))}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def files_verified(db: Database) -> int:
    """How many files a language server has verified (0 when enrichment never ran here)."""
    if not db.table_exists("lsp_files"):
        return 0
    return db.query("SELECT COUNT(*) AS n FROM lsp_files")[0]["n"]
