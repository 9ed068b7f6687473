"""The embedded default backend: one SQLite file per project, WAL, foreign keys on."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tenure.storage.database import Row, StorageError

# A writer waits this long for another process's write lock before giving up with a clear error.
BUSY_TIMEOUT_S = 30.0


class SQLiteDatabase:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path) if str(path) != ":memory:" else None
        try:
            self._conn = sqlite3.connect(
                str(path), timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise StorageError(f"cannot open the database at {path}: {exc}") from exc
        self._lock = threading.RLock()
        self._depth = 0
        # A 64 MB page cache (the default is 2 MB) keeps index B-trees in memory during bulk writes.
        for pragma in ("journal_mode=WAL", "foreign_keys=ON", "synchronous=NORMAL", "cache_size=-65536"):
            self._conn.execute(f"PRAGMA {pragma}")

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        with self._lock:
            cur = self._conn.execute(sql, params)
            return cur.lastrowid or 0

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with self._lock:
            self._conn.executemany(sql, rows)

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        with self._lock:
            cur = self._conn.execute(sql, params)
            # zip over plain tuples builds dicts in about half the time sqlite3.Row + dict() takes.
            columns = [d[0] for d in cur.description or ()]
            return [dict(zip(columns, r, strict=True)) for r in cur]

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def iter_query(self, sql: str, params: Sequence[Any] = ()) -> Iterator[Row]:
        return iter(self.query(sql, params))

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self._lock:
            outer = self._depth == 0
            name = f"sp{self._depth}"
            # BEGIN IMMEDIATE takes the write lock up front so two writers queue instead of
            # failing half-way with SQLITE_BUSY on lock upgrade.
            self._conn.execute("BEGIN IMMEDIATE" if outer else f"SAVEPOINT {name}")
            self._depth += 1
            try:
                yield
            except BaseException:
                self._depth -= 1
                self._conn.execute("ROLLBACK" if outer else f"ROLLBACK TO {name}")
                if not outer:
                    self._conn.execute(f"RELEASE {name}")
                raise
            self._depth -= 1
            self._conn.execute("COMMIT" if outer else f"RELEASE {name}")

    @contextmanager
    def first_fill(self) -> Iterator[None]:
        """Written through a rollback journal instead of the WAL: the pages of a fresh database need
        no journal, while the WAL would write each page twice (to the log, then the checkpoint) —
        a third of a second of Django's first index. Still all-or-nothing: a process killed
        half-way leaves a journal that the next open rolls back. Back to WAL afterwards; when
        another connection has the database open the switch is refused and the WAL is used."""
        with self._lock:
            try:
                switched = self._conn.execute("PRAGMA journal_mode=DELETE").fetchone()[0] == "delete"
            except sqlite3.OperationalError:  # another connection has it open
                switched = False
            try:
                with self.transaction():
                    yield
            finally:
                if switched:
                    self._conn.execute("PRAGMA journal_mode=WAL")

    @contextmanager
    def deferred_indexes(self, *tables: str, keep: Collection[str] = ()) -> Iterator[None]:
        """Drop the tables' secondary indexes (but those named in `keep`) for a bulk write and build
        them again after it: one sort per index instead of a B-tree insert per row. Use inside a
        transaction."""
        marks = ", ".join("?" * len(tables))
        indexes = [ix for ix in self.query(
            f"SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ({marks})",
            tables,
        ) if ix["name"] not in keep]
        for ix in indexes:
            self.execute(f"DROP INDEX {ix['name']}")
        try:
            yield
        finally:
            for ix in indexes:
                self.execute(ix["sql"])

    def table_exists(self, name: str) -> bool:
        return bool(
            self.query("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (name,))
        )

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def open_database(path: Path | str) -> SQLiteDatabase:
    if str(path) != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    return SQLiteDatabase(path)
