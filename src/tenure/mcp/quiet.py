"""When a server is quiet: a middleware (the SDK's `ServerMiddleware`) that counts the messages being
handled and when the last one was, so that background work (loading the embedding model) waits for a
quiet moment rather than take the interpreter from an answer. Imports nothing of the SDK: `serve`
makes one before the SDK is loaded."""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

POLL_S = 0.05  # (how often a waiter looks again while a message is handled, at least)


class Quiet:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._handling = 0
        self._last = time.monotonic()

    async def __call__(self, ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        with self._lock:
            self._handling += 1
        try:
            return await call_next(ctx)
        finally:
            with self._lock:
                self._handling -= 1
                self._last = time.monotonic()

    def wait(self, quiet_s: float, stop: threading.Event) -> bool:
        """Block until no message has been handled for `quiet_s`, counted from this call at the
        earliest (a client's first requests come at once as a server begins to answer; an agent then
        waits for its model); False when `stop` was set first."""
        begun = time.monotonic()
        while True:
            with self._lock:
                handling, left = self._handling > 0, quiet_s - (time.monotonic() - max(self._last, begun))
            if not handling and left <= 0:
                return True
            if stop.wait(max(quiet_s, POLL_S) if handling else left):
                return False
