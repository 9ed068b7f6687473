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
