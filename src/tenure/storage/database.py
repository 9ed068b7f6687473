"""The storage API every store is written against."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from itertools import chain
from typing import Any, Protocol

Row = dict[str, Any]


class StorageError(RuntimeError):
    """The database could not be opened or written; the message says what to do."""

    remote = False  # a team's database server said it (not the project's own file)


class DatabaseLocked(StorageError):
    """Another process held the database past the wait for it (a long index): trying again works."""


class DatabaseUnavailable(StorageError):
    """The database could not be read or written as it stands: disk full, read-only, no permission,
    an I/O error. Nothing of the statement was kept."""


class DatabaseDamaged(StorageError):
    """The file is not a database this backend can read, or its content is damaged."""


class Database(Protocol):
    each: str
    """SQL for the values of one parameter made by :meth:`many`: a subquery with one column, `value`.
    `WHERE fqn IN {db.each}`, `WHERE path NOT IN {db.each}`, `INSERT … SELECT ?, value FROM {db.each} AS listed`:
    one statement however many values there are."""
    many_projects: bool
    """Whether the database holds the rows of many projects (a team's server, where row-level security shows
    each its own): what a checkout derives from its code never lives there, while a checkout's own file
    holds both."""
    ranks_on_server: bool
    """Whether a server ranks (pgvector's `<#>` over a VECTOR column, exact, under row-level security; a
    GROUP BY over many rows): a store then sends the query and reads the best; else the database is the
    process's own file, and a store may read what it ranks and rank it in the process."""

    def vector(self, values: Any) -> Any:
        """A float32 NumPy array as the parameter of a VECTOR column (or of a vector operator); the
        column reads back as such an array on every backend."""

    def many(self, values: Iterable[Any]) -> Any:
        """Values (text or integers) as the one parameter that `each` reads."""

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        """Run one statement (an insert that needs its row's id says `RETURNING id` and reads it with
        `rows`)."""

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...

    def insert_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> list[Any]:
        """An `INSERT … RETURNING id` once per row, as one batch: each row's id, in order (None where it
        wrote nothing: `ON CONFLICT DO NOTHING`); a server backend waits for the answers once, not once
        per row."""

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        """Like `query`, as tuples in the order selected: for hot paths that read many rows."""

    def iter_query(self, sql: str, params: Sequence[Any] = ()) -> Iterator[Row]: ...

    def transaction(self) -> AbstractContextManager[None]:
        """All writes inside commit together or not at all; nests as savepoints."""

    def bulk(self) -> AbstractContextManager[None]:
        """A transaction for a bulk write: statements whose answers are not read are sent without waiting
        for each (a server backend batches them); a statement that fails fails the block, at the latest
        where it ends."""

    def reading(self) -> AbstractContextManager[None]:
        """The reads inside are one reader's: a backend with a pool of connections runs them on one
        (fewer round trips); nothing is locked, and nothing changes on SQLite."""

    def first_fill(self) -> AbstractContextManager[None]:
        """A transaction that fills a database holding no data yet: a backend may write it the way
        that is fastest for a bulk load, as long as it stays all-or-nothing (SQLite: no foreign keys
        checked, so nothing deleted inside may be a row others refer to)."""

    def deferred_indexes(self, *tables: str, keep: Collection[str] = ()) -> AbstractContextManager[None]:
        """Secondary indexes of these tables, but those named in `keep`, are rebuilt once after a
        bulk write."""

    def small_cache(self) -> AbstractContextManager[None]:
        """The connection's own page cache let go and kept small inside (while worker processes forked
        over this one run: what it holds stays in their memory too); a server backend holds none."""

    def table_exists(self, name: str) -> bool: ...

    def table_names(self) -> list[str]:
        """Every table, in the order they were made."""

    def data_version(self) -> object | None:
        """A value that changes whenever the data may have changed: a commit by any connection, a write
        by this one. What a reader derives from the data may be kept while it stays equal; None when the
        backend cannot tell, or inside this connection's open transaction (then nothing is kept)."""

    @property
    def where(self) -> str:
        """The database in words, without secrets (a file's path, a server's URL without its password)."""

    def server(self) -> str:
        """The engine that answers and its version (a round trip: it raises when none answers)."""

    def close(self) -> None: ...


def get_value(db: Database, table: str, key: str) -> str | None:
    """A value of a store's key/value table (`key TEXT PRIMARY KEY, value TEXT`)."""
    rows = db.query(f"SELECT value FROM {table} WHERE key = ?", (key,))
    return rows[0]["value"] if rows else None


ROWS_PER_INSERT = 32  # (on SQLite 16 to 100 save alike)


def insert_rows(db: Database, head: str, row: str, rows: Sequence[Sequence[Any]], per: int = ROWS_PER_INSERT) -> None:
    """`rows` inserted in their order, `per` rows to a statement: `head` (`INSERT INTO t (a, b) VALUES `),
    then `row` (`(?, ?)`) for each. What a statement costs however many rows it writes (its start and end,
    a statement journal where foreign keys are checked, the library entered and left) is then shared: on
    SQLite a fifth of a small row's insert (23,215 touched symbols: 457M -> 350M instructions)."""
    whole = len(rows) - len(rows) % per
    if whole:
        db.executemany(head + ", ".join([row] * per),
                       [list(chain.from_iterable(rows[at:at + per])) for at in range(0, whole, per)])
    if whole < len(rows):
        db.execute(head + ", ".join([row] * (len(rows) - whole)), list(chain.from_iterable(rows[whole:])))


def set_value(db: Database, table: str, key: str, value: str) -> None:
    db.execute(f"INSERT INTO {table} (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
               (key, value))
