"""The storage API every store is written against."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

Row = dict[str, Any]


class StorageError(RuntimeError):
    """The database could not be opened or written; the message says what to do."""


class Database(Protocol):
    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; returns the last inserted row id (0 when none)."""

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        """Like `query`, as tuples in the order selected: for hot paths that read many rows."""

    def iter_query(self, sql: str, params: Sequence[Any] = ()) -> Iterator[Row]: ...

    def transaction(self) -> AbstractContextManager[None]:
        """All writes inside commit together or not at all; nests as savepoints."""

    def first_fill(self) -> AbstractContextManager[None]:
        """A transaction that fills a database holding no data yet: a backend may write it the way
        that is fastest for a bulk load, as long as it stays all-or-nothing."""

    def deferred_indexes(self, *tables: str, keep: Collection[str] = ()) -> AbstractContextManager[None]:
        """Secondary indexes of these tables, but those named in `keep`, are rebuilt once after a
        bulk write."""

    def table_exists(self, name: str) -> bool: ...

    def close(self) -> None: ...


IN_CHUNK = 500  # bound on `IN (...)` lists: SQLite allows 999 parameters per statement by default


def query_in(db: Database, sql: str, values: Iterable[Any], params: Sequence[Any] = ()) -> list[Row]:
    """Run `sql` with `{placeholders}` replaced by a `?` list, in chunks; `params` come after the list."""
    values = list(values)
    rows: list[Row] = []
    for i in range(0, len(values), IN_CHUNK):
        chunk = values[i : i + IN_CHUNK]
        rows.extend(db.query(sql.format(placeholders=", ".join("?" * len(chunk))), [*chunk, *params]))
    return rows


def get_value(db: Database, table: str, key: str) -> str | None:
    """A value of a store's key/value table (`key TEXT PRIMARY KEY, value TEXT`)."""
    rows = db.query(f"SELECT value FROM {table} WHERE key = ?", (key,))
    return rows[0]["value"] if rows else None


def set_value(db: Database, table: str, key: str, value: str) -> None:
    db.execute(f"INSERT INTO {table} (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
               (key, value))
