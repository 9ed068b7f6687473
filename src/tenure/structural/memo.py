"""Memo tables for the hot paths of dependency tracking (keys, their filter bits, their stored ids):
each value is made once, and looking it up again stays in C (a dict lookup, not a Python call)."""

from __future__ import annotations

from collections.abc import Callable
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
