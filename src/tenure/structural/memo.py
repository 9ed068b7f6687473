"""Memo tables for the hot paths of dependency tracking (keys, their filter bits, their stored ids):
each value is made once, and looking it up again stays in C (a dict lookup, not a Python call); and
tables kept only within a scope (what one step of an index run read, for the next steps of that run)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Memo(dict[K, V], Generic[K, V]):
    """key -> make(key), made on the first lookup; emptied past `limit` entries (a watcher that runs
    for days meets ever new keys)."""

    def __init__(self, make: Callable[[K], V], limit: int = 1 << 20) -> None:
        super().__init__()
        self.make, self.limit = make, limit

    def __missing__(self, key: K) -> V:
        if len(self) > self.limit:
            self.clear()
        value = self[key] = self.make(key)
        return value


class Scope(Generic[K, V]):
    """A table that exists within `opened()` (the outermost of nested ones), None outside: what a step
    read, kept for the steps after it in the same scope and dropped at its end."""

    def __init__(self) -> None:
        self.table: dict[K, V] | None = None

    @contextlib.contextmanager
    def opened(self) -> Iterator[None]:
        outer = self.table is None
        if outer:
            self.table = {}
        try:
            yield
        finally:
            if outer:
                self.table = None
