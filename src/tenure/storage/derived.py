"""What a reader derives from a database's data and asks again and again (the class hierarchy as
what-breaks walks it, the dynamic call sites every what-breaks reads), kept in memory while the data stays as it
was (`Database.data_version`): a long-lived process (the MCP server, a watcher) reads it once per
change instead of once per question."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from tenure.storage.database import Database

T = TypeVar("T")

_KEPT: weakref.WeakKeyDictionary[Database, dict[Hashable, tuple[object, Any]]] = weakref.WeakKeyDictionary()
_MAKING: weakref.WeakKeyDictionary[Database, dict[Hashable, threading.Lock]] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def derived(db: Database, key: Hashable, make: Callable[[], T], version: Hashable | None = None) -> T:
    """`make()`, kept per database and `key` until the data changes (`Database.data_version`), or until
    `version` changes when the caller reads a narrower part of the data (the symbols only: a write to
    another store's tables keeps it). Threads asking for one key at once make it once (a server's
    warm-up and its first call). The value is shared: never mutate it."""
    if version is None:
        version = db.data_version()
    if version is None:
        return make()
    with _LOCK:
        making = _MAKING.setdefault(db, {}).setdefault(key, threading.Lock())
    with making:
        with _LOCK:
            held = _KEPT.setdefault(db, {}).get(key)
        if held is not None and held[0] == version:
            return held[1]
        value = make()  # (a write while it reads moves the version: the next call makes it again)
        with _LOCK:
            _KEPT[db][key] = (version, value)
        return value
