"""What is still readable of a damaged SQLite table, copied into a sound database (`tenure repair`).

A damaged page makes every statement that reads it fail ("database disk image is malformed"), but a
table is a B-tree: rows on other pages are still reached from the root by rowid. So a table is read
in rowid order, and where the read fails, the next readable rowid is found by probing ahead
(doubling the step, then halving back): only the rows on the damaged pages are lost, and which ids
they had is said (where two damaged pages lie close, the rows between them may be lost too).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

_FIRST = -(2**63)
_LAST = 2**63 - 1


@dataclass
class Salvaged:
    table: str
    rows: int = 0  # copied
    before: int | None = None  # the rows the damaged table held, as SQLite counts them (None: it cannot)
    unreadable: list[tuple[int, int | None]] = field(default_factory=list)  # (after id, through id; None: the end)
    dropped: int = 0  # rows that meant nothing without a row that was lost
    cleared: int = 0  # references to a row that was lost, emptied

    def as_dict(self) -> dict:
        return {"table": self.table, "before": self.before, "rows": self.rows, "dropped": self.dropped,
                "cleared": self.cleared,
                "unreadable": [{"after": None if a == _FIRST else a, "through": b} for a, b in self.unreadable]}


def salvage(damaged: Path, fresh: Path, tables: Iterable[str]) -> tuple[str, dict[str, Salvaged]]:
    """SQLite's own verdict on the `damaged` database file (its first line), and every readable row
    of `tables` copied from it into the database at `fresh` (which has them, empty) in one
    transaction, references to lost rows then settled (`clear_dangling`). The fresh database is left
    in its one file (no log beside it), ready to be moved into place."""
    source = sqlite3.connect(f"file:{damaged}?mode=ro", uri=True)
    target = sqlite3.connect(fresh, isolation_level=None)
    try:
        integrity = _integrity(source)
        target.execute("BEGIN")
        found = {table: copy_readable(source, target, table) for table in tables}
        clear_dangling(target, found)
        target.execute("COMMIT")
        target.execute("PRAGMA journal_mode=DELETE")
    finally:
        source.close()
        target.close()
    return integrity, found


def _integrity(source: sqlite3.Connection) -> str:
    try:
        return source.execute("PRAGMA quick_check").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        return str(exc)


def copy_readable(source: sqlite3.Connection, target: sqlite3.Connection, table: str) -> Salvaged:
    """Copy every readable row of `table` (the columns both databases have) from `source` into the
    same table of `target`. Foreign keys are checked after the copy (see `clear_dangling`)."""
    found = Salvaged(table)
    try:
        columns = [c for c in _columns(source, table) if c in set(_columns(target, table))]
    except sqlite3.DatabaseError:  # the schema itself is unreadable (the file's first page)
        found.unreadable.append((_FIRST, None))
        return found
    if not columns:
        return found
    with contextlib.suppress(sqlite3.DatabaseError):  # (a damaged page of it: not counted)
        found.before = source.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
    names = ", ".join(f'"{c}"' for c in columns)
    insert = f'INSERT OR IGNORE INTO "{table}" (rowid, {names}) VALUES ({", ".join("?" * (len(columns) + 1))})'
    for row in _readable_rows(source, table, names, found):
        target.execute(insert, row)
        found.rows += 1
    return found


def clear_dangling(target: sqlite3.Connection, found: dict[str, Salvaged]) -> None:
    """Rows copied (`found`) that refer to a row that was lost: a reference that may be empty is
    cleared (a memory whose successor was lost is the latest version again), any other such row deleted."""
    for table, rowid, _parent, fk in target.execute("PRAGMA foreign_key_check").fetchall():
        column = next(r[3] for r in target.execute(f'PRAGMA foreign_key_list("{table}")') if r[0] == fk)
        try:
            target.execute(f'UPDATE "{table}" SET "{column}" = NULL WHERE rowid = ?', (rowid,))
            found[table].cleared += 1
        except sqlite3.IntegrityError:  # NOT NULL: the row means nothing without what it referred to
            target.execute(f'DELETE FROM "{table}" WHERE rowid = ?', (rowid,))
            found[table].rows -= 1
            found[table].dropped += 1


def _columns(db: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in db.execute(f'PRAGMA table_info("{table}")')]


def _readable_rows(source: sqlite3.Connection, table: str, names: str, found: Salvaged) -> Iterator[tuple]:
    after = _FIRST
    while True:
        try:
            for row in source.execute(f'SELECT rowid, {names} FROM "{table}" NOT INDEXED WHERE rowid > ?'
                                      ' ORDER BY rowid', (after,)):
                yield row
                after = row[0]
            return
        except sqlite3.DatabaseError:
            resume = _next_readable(source, table, after)
            found.unreadable.append((after, None if resume == _LAST else resume))
            after = resume


def _next_readable(source: sqlite3.Connection, table: str, after: int) -> int:
    """A rowid past `after` from which the table reads again (the end of the rowids: nothing does)."""
    failed, step = after, 1
    while not _reads_after(source, table, readable := min(failed + step, _LAST)):
        if readable == _LAST:
            return _LAST
        failed, step = readable, step * 2
    while readable - failed > 1:  # back to where reading starts to work
        middle = (failed + readable) // 2
        if _reads_after(source, table, middle):
            readable = middle
        else:
            failed = middle
    return readable


def _reads_after(source: sqlite3.Connection, table: str, rowid: int) -> bool:
    try:
        # (NOT INDEXED: the table's own pages; an index holding the rowids would answer without them)
        source.execute(f'SELECT rowid FROM "{table}" NOT INDEXED WHERE rowid > ? ORDER BY rowid LIMIT 1',
                       (rowid,)).fetchall()
        return True
    except sqlite3.DatabaseError:
        return False
