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
import fcntl
import hashlib
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from tenure.storage import Database, Migrations

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


class LspState:
    def __init__(self, db: Database) -> None:
        self.db = db
        migrations.apply(db)

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
            (path, content_hash, sites_hash, server, datetime.now(UTC).isoformat(timespec="seconds")),
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


@contextlib.contextmanager
def enrich_lock(state_dir: Path) -> Iterator[bool]:
    """Hold the project's enrichment lock while inside; yields False (and holds nothing) when another
    process has it. An advisory flock: it goes away with the process, so a crash never leaves it held."""
    state_dir.mkdir(exist_ok=True)
    fd = os.open(state_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        yield True
    finally:
        os.close(fd)


def lock_held(state_dir: Path) -> bool:
    with enrich_lock(state_dir) as acquired:
        return not acquired


def files_verified(db: Database) -> int:
    """How many files a language server has verified (0 when enrichment never ran here)."""
    if not db.table_exists("lsp_files"):
        return 0
    return db.query("SELECT COUNT(*) AS n FROM lsp_files")[0]["n"]
