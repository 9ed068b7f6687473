"""The embedded default backend: one SQLite file per project, WAL, foreign keys on."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from functools import cache
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from tenure.storage.database import DatabaseDamaged, DatabaseLocked, DatabaseUnavailable, Row, StorageError

if TYPE_CHECKING:
    import msgspec

# A writer waits this long for another process's write lock before giving up with a clear error.
BUSY_TIMEOUT_S = 30.0

# SQLite's primary result codes (https://sqlite.org/rescode.html) by what they mean to a user.
_LOCKED = frozenset({5, 6})  # BUSY, LOCKED
_DAMAGED = frozenset({11, 26})  # CORRUPT, NOTADB
# PERM, NOMEM, READONLY, IOERR, FULL, CANTOPEN, PROTOCOL, NOLFS, AUTH
_UNAVAILABLE = frozenset({3, 7, 8, 10, 13, 14, 15, 22, 23})


def storage_error(exc: sqlite3.Error, message: str | None = None) -> StorageError:
    """sqlite3's error as the storage layer's own type (its message kept, unless one is given)."""
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    if code in _LOCKED:
        kind: type[StorageError] = DatabaseLocked
    elif code in _DAMAGED:
        kind = DatabaseDamaged
    elif code in _UNAVAILABLE or isinstance(exc, sqlite3.OperationalError):
        kind = DatabaseUnavailable
    else:  # a statement the database refused (a constraint, a misuse): the store's mistake
        kind = StorageError
    return kind(message or str(exc))


class _Translated:
    """`with _TRANSLATED:` raises sqlite3's errors as the storage layer's types (a class, not a
    generator-based context manager: it wraps every statement, hot paths included)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if isinstance(exc, sqlite3.Error):
            raise storage_error(exc) from exc


_TRANSLATED = _Translated()
_CACHE_KIB, _SMALL_CACHE_KIB = -65536, -8192  # page cache sizes (`cache_size`: negative is KiB)


@cache
def _json() -> msgspec.json.Encoder:
    """Made by the first `many`: msgspec (with the typing_extensions and inspect it loads) is a third of
    the start of a hook that records a shell command and never asks for many values."""
    import msgspec

    return msgspec.json.Encoder()


def _vector(data: bytes) -> Any:
    """A VECTOR column's bytes as the float32 array they were written from (as pgvector's column reads)."""
    import numpy as np  # (here: a process that reads no vector never loads NumPy)

    if len(data) % 4:  # (raised from inside the cursor: NumPy's own error would name no database)
        raise DatabaseDamaged(f"a stored vector is damaged ({len(data)} bytes, not a whole number of float32s)")
    return np.frombuffer(data, dtype="<f4")


sqlite3.register_converter("VECTOR", _vector)


class SQLiteDatabase:
    each = "(SELECT value FROM json_each(?))"
    many_projects = False  # (one checkout's file: its shared stores and what it derives from its code)
    ranks_on_server = False  # (vectors and term counts are ranked in the process, from the local file)

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path) if str(path) != ":memory:" else None
        try:
            self._conn = sqlite3.connect(
                str(path), timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False,
                detect_types=sqlite3.PARSE_DECLTYPES,  # (VECTOR columns read as arrays)
            )
        except sqlite3.Error as exc:
            raise storage_error(exc, f"cannot open the database at {path}: {exc}") from exc
        self._lock = threading.RLock()
        self._depth = 0
        # A 64 MB page cache (the default is 2 MB) keeps index B-trees in memory during bulk writes.
        with _TRANSLATED:
            for pragma in ("journal_mode=WAL", "foreign_keys=ON", "synchronous=NORMAL", f"cache_size={_CACHE_KIB}"):
                self._conn.execute(f"PRAGMA {pragma}")

    def vector(self, values: Any) -> bytes:
        return values.astype("<f4").tobytes()

    def many(self, values: Iterable[Any]) -> str:
        """A JSON array, which `each` unpacks with json_each."""
        listed = values if isinstance(values, list | tuple) else list(values)
        if listed and isinstance(listed[0], bytes | bytearray):  # JSON would carry them as base64 text: no match
            raise TypeError("Database.many carries text and integers, not bytes")
        return _json().encode(listed).decode()

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        with self._lock, _TRANSLATED:
            self._conn.execute(sql, params)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with self._lock, _TRANSLATED:
            self._conn.executemany(sql, rows)

    def insert_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> list[Any]:
        with self._lock, _TRANSLATED:
            return [returned[0] if (returned := self._conn.execute(sql, row).fetchone()) else None for row in rows]

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        with self._lock, _TRANSLATED:
            cur = self._conn.execute(sql, params)
            # zip over plain tuples builds dicts in about half the time sqlite3.Row + dict() takes.
            columns = [d[0] for d in cur.description or ()]
            return [dict(zip(columns, r, strict=True)) for r in cur]

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        with self._lock, _TRANSLATED:
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
            self.execute("BEGIN IMMEDIATE" if outer else f"SAVEPOINT {name}")
            self._depth += 1
            try:
                yield
            except BaseException:
                self._depth -= 1
                self.execute("ROLLBACK" if outer else f"ROLLBACK TO {name}")
                if not outer:
                    self.execute(f"RELEASE {name}")
                raise
            self._depth -= 1
            self.execute("COMMIT" if outer else f"RELEASE {name}")

    def bulk(self) -> AbstractContextManager[None]:
        return self.transaction()  # (every statement is a call into the library: nothing to batch)

    def reading(self) -> AbstractContextManager[None]:
        return nullcontext()  # (one connection already)

    @contextmanager
    def first_fill(self) -> Iterator[None]:
        """Written through a rollback journal instead of the WAL: the pages of a fresh database need
        no journal, while the WAL would write each page twice (to the log, then the checkpoint) —
        a third of a second of Django's first index. Still all-or-nothing: a process killed
        half-way leaves a journal that the next open rolls back. Back to WAL afterwards; when
        another connection has the database open the switch is refused and the WAL is used.
        Nor are foreign keys checked: each row it writes refers to rows it wrote itself, and the check
        is a lookup per row (0.27 s of the 1.2 s that Django's 277,604 edges and 691,519 reads take to
        write); it deletes nothing another row refers to, which the keys would cascade to. (Switched
        outside the transaction: inside one SQLite ignores the switch.)"""
        with self._lock:
            try:
                switched = self._conn.execute("PRAGMA journal_mode=DELETE").fetchone()[0] == "delete"
            except sqlite3.OperationalError:  # another connection has it open
                switched = False
            self.execute("PRAGMA foreign_keys=OFF")
            try:
                with self.transaction():
                    yield
            finally:
                self.execute("PRAGMA foreign_keys=ON")
                if switched:
                    self.execute("PRAGMA journal_mode=WAL")

    @contextmanager
    def small_cache(self) -> Iterator[None]:
        """8 MiB instead of 64 inside: what an index writes while its resolve workers run is appended
        (edges, reads), which a large cache does not speed up."""
        self.execute(f"PRAGMA cache_size={_SMALL_CACHE_KIB}")
        self.execute("PRAGMA shrink_memory")
        try:
            yield
        finally:
            self.execute(f"PRAGMA cache_size={_CACHE_KIB}")

    @contextmanager
    def deferred_indexes(self, *tables: str, keep: Collection[str] = ()) -> Iterator[None]:
        """Drop the tables' secondary indexes (but those named in `keep`) for a bulk write and build
        them again after it: one sort per index instead of a B-tree insert per row. Use inside a
        transaction."""
        indexes = [ix for ix in self.query(
            f"SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN {self.each}",
            (self.many(tables),),
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

    def table_names(self) -> list[str]:
        return [r["name"] for r in self.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")]

    def data_version(self) -> tuple[int, int] | None:
        # PRAGMA data_version moves with other connections' commits only; total_changes counts this one's
        # rows. Inside this connection's open transaction: None (what it wrote may yet be rolled back).
        with self._lock, _TRANSLATED:
            if self._conn.in_transaction:
                return None
            return self._conn.execute("PRAGMA data_version").fetchone()[0], self._conn.total_changes

    @property
    def where(self) -> str:
        return f"SQLite file {self.path}" if self.path else "SQLite in memory (no project state yet)"

    def server(self) -> str:
        return f"SQLite {self.rows('SELECT sqlite_version()')[0][0]}"

    def close(self) -> None:
        with self._lock, _TRANSLATED:
            self._conn.close()


def open_database(path: Path | str) -> SQLiteDatabase:
    if str(path) != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    return SQLiteDatabase(path)
