"""Storage: the one database a project's stores share, behind a small API.

The stores speak portable SQL with `?` placeholders through :class:`Database` (many values as one
parameter: `IN {db.each}` with `db.many(values)`); a backend (today SQLite, later PostgreSQL) owns
connections, transactions and dialect details, and raises its errors as :class:`StorageError`s.
"""

from tenure.storage.database import (
                                     Database,
                                     DatabaseDamaged,
                                     DatabaseLocked,
                                     DatabaseUnavailable,
                                     StorageError,
                                     get_value,
                                     insert_rows,
                                     set_value,
)
from tenure.storage.derived import derived
from tenure.storage.migrations import Migrations
from tenure.storage.sqlite import SQLiteDatabase, open_database

__all__ = ["Database", "DatabaseDamaged", "DatabaseLocked", "DatabaseUnavailable", "Migrations", "SQLiteDatabase",
           "StorageError", "derived", "get_value", "insert_rows", "open_database", "set_value"]
