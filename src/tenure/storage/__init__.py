"""Storage: the one database a project's stores share, behind a small API.

The stores speak portable SQL with `?` placeholders through :class:`Database`; a backend
(today SQLite, later PostgreSQL) owns connections, transactions and dialect details.
"""

from tenure.storage.database import Database, StorageError, query_in
from tenure.storage.migrations import Migrations
from tenure.storage.sqlite import SQLiteDatabase, open_database

__all__ = ["Database", "Migrations", "SQLiteDatabase", "StorageError", "open_database", "query_in"]
