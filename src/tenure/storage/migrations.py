"""Versioned schema migrations, in the style of simonw/llm's migrations.py.

Each store keeps its own ordered list; a migration runs once, inside a transaction, and its name
is recorded in `_migrations`. Never edit a released migration: add a new one.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from datetime import UTC, datetime

from tenure.storage.database import Database, StorageError

MigrationFn = Callable[[Database], None]


class Migrations:
    def __init__(self, store: str) -> None:
        self.store = store
        self._steps: list[tuple[str, MigrationFn]] = []
        # connections known to be up to date: a store opened once per lookup (thousands per report) reads
        # `_migrations` once per connection, not every time
        self._current: weakref.WeakSet[Database] = weakref.WeakSet()

    def __call__(self, fn: MigrationFn) -> MigrationFn:
        self._steps.append((f"{self.store}:{fn.__name__}", fn))
        return fn

    def apply(self, db: Database) -> list[str]:
        """Apply every pending migration; returns the names applied now. With none pending, only
        reads: a process opening the project (a query) does not wait for another's write lock."""
        if db in self._current or self._all_applied(db):
            self._current.add(db)
            return []
        db.execute(
            "CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
        )
        applied = []
        for name, fn in self._steps:
            with db.transaction():
                # Checked inside the write transaction: two processes opening a fresh project at
                # once must not both run the same step.
                if db.query("SELECT 1 FROM _migrations WHERE name = ?", (name,)):
                    continue
                fn(db)
                db.execute("INSERT INTO _migrations (name, applied_at) VALUES (?, ?)",
                           (name, datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")))
            applied.append(name)
        self._current.add(db)
        return applied

    def _all_applied(self, db: Database) -> bool:
        """Whether nothing is pending; a database a newer build migrated further is refused (this
        build would write past columns and tables it does not know)."""
        if not db.table_exists("_migrations"):
            return False
        prefix = f"{self.store}:"  # (not a LIKE pattern: `_` in a store's name would match any character)
        done = {r["name"] for r in db.query("SELECT name FROM _migrations") if r["name"].startswith(prefix)}
        known = {name for name, _ in self._steps}
        if unknown := sorted(done - known):
            raise StorageError(f"this project's database was written by a newer tenure (its migration {unknown[0]} "
                               "is unknown to this one): upgrade tenure to use it")
        return known <= done
