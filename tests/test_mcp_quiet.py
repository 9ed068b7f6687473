"""`tenure serve` loads the embedding model in a quiet moment: the server's middleware counts the
messages it is handling, and the loader waits while one is (or until the server stops)."""

from __future__ import annotations

import threading

import anyio
import pytest

from tenure.mcp.quiet import Quiet


def test_the_loader_waits_while_a_message_is_handled_and_goes_once_none_is() -> None:
    quiet, stop = Quiet(), threading.Event()
    seen: list[bool] = []

    async def handler(ctx: object) -> str:
        stop.set()  # (the server stopping while it handles: a quiet moment never came)
        seen.append(await anyio.to_thread.run_sync(quiet.wait, 0.0, stop))
        return "answered"

    assert anyio.run(quiet, "initialize", handler) == "answered"
    assert seen == [False]  # it did not go while the message was handled
    assert quiet.wait(0.0, threading.Event())  # handled: quiet now


def test_a_failing_message_still_ends_its_handling() -> None:
    quiet = Quiet()

    async def handler(ctx: object) -> str:
        raise ValueError("bad params")

    with pytest.raises(ValueError):
        anyio.run(quiet, "tools/call", handler)
    assert quiet.wait(0.0, threading.Event())


def test_a_quiet_moment_is_counted_from_when_the_loader_begins_to_wait() -> None:
    """Long quiet before the server answered (it was starting) is no quiet moment: the loader waits its
    own stretch, as the client's first requests come as soon as the server answers."""
    quiet, stop = Quiet(), threading.Event()
    quiet._last -= 3600  # (an hour without a message: the server has been starting)
    stop.set()
    assert not quiet.wait(0.5, stop)
