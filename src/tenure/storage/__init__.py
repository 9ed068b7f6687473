"""Storage: the one database a project's stores share, behind a small API.

The stores speak portable SQL with `?` placeholders through :class:`Database`; a backend
(today SQLite, later PostgreSQL) owns connections, transactions and dialect details.
"""

from tenure.storage.database import Database, StorageError, get_value, query_in, set_value
from tenure.storage.migrations import Migrations
from tenure.storage.sqlite import SQLiteDatabase, open_database

__all__ = ["Database", "Migrations", "SQLiteDatabase", "StorageError", "get_value", "open_database", "query_in",
           "set_value"]
