"""A server's freshness check stands while the files are watched and nothing changes; a change (or a
rebuilt index) makes the next answer check again; without the watcher the check is timed again."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import SimpleNamespace

import pytest

import tenure.api
from tenure import Tenure

FILES = {
    "shop/__init__.py": "",
    "shop/orders.py": "class Order:\n    def total(self):\n        return 1\n",
    "shop/checkout.py": "from shop.orders import Order\n\n\ndef checkout():\n    return Order().total()\n",
}
WAIT_S = 20.0  # (a bound on waiting for the watcher, not a measure of it)


def wait_for(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, "the watcher never got there"
        time.sleep(0.02)


@contextmanager
def watched(t: Tenure) -> Iterator[threading.Thread]:
    stop = threading.Event()
    watcher = threading.Thread(target=t.watch_freshness, args=(stop,), daemon=True)
    watcher.start()
    try:
        wait_for(lambda: t._freshness_watched)
        yield watcher
    finally:
        stop.set()
        watcher.join(WAIT_S)


@pytest.fixture
def counted_checks(monkeypatch):
    """Every answer would check the files (no time-to-live); returns the count of checks made."""
    monkeypatch.setattr(tenure.api, "FRESHNESS_TTL_S", 0.0)
    checks = []
    real = Tenure._check_files
    monkeypatch.setattr(Tenure, "_check_files", lambda self, at: checks.append(at) or real(self, at))
    return checks


def test_a_watched_check_stands_until_a_file_changes(make_repo, counted_checks) -> None:
    root = make_repo(FILES)
    with Tenure.open(root, discover=False) as t:
        t.index()
        with watched(t):
            assert t.what_breaks("Order")["freshness"]["files_stale"] == 0
            made = len(counted_checks)
            for _ in range(3):
                assert t.what_breaks("Order")["freshness"]["text"].endswith("up to date")
            assert len(counted_checks) == made  # nothing changed: no stat of the files, no git ls-files

            (root / "shop/orders.py").write_text("class Order:\n    pass\n")
            wait_for(lambda: t.freshness()["files_stale"] == 1)
            assert t.what_breaks("Order")["freshness"]["stale_paths"] == ["shop/orders.py"]


def test_a_watched_check_is_made_again_when_another_process_rebuilt_the_index(make_repo, counted_checks) -> None:
    root = make_repo(FILES)
    with Tenure.open(root, discover=False) as t:
        t.index()
        with watched(t):
            t.freshness()
            made = len(counted_checks)
            t.structural.set_meta("indexed_at", "2030-01-01T00:00:00+00:00")  # as another `tenure index` does
            t.freshness()
            assert len(counted_checks) == made + 1


def test_unwatched_the_check_is_timed_again(make_repo, counted_checks) -> None:
    root = make_repo(FILES)
    with Tenure.open(root, discover=False) as t:
        t.index()
        with watched(t) as watcher:
            pass
        assert not watcher.is_alive() and not t._freshness_watched
        made = len(counted_checks)  # (the watcher's own, as it began)
        t.freshness()
        t.freshness()
        assert len(counted_checks) == made + 2  # (a time-to-live of 0 here: each answer checks)


def test_the_watcher_makes_the_check_that_stands_so_the_first_answer_makes_none(make_repo, counted_checks) -> None:
    """A server prepares its first answer while it starts; the check it made then cannot stand (a file may
    change before the watch begins), so the watcher makes it again as it begins: not the agent's first call."""
    root = make_repo(FILES)
    with Tenure.open(root, discover=False) as t:
        t.index()
        t.freshness()
        with watched(t):
            made = len(counted_checks)
            assert made == 2  # (the one before watching, and the watcher's own)
            assert t.what_breaks("Order")["freshness"]["text"].endswith("up to date")
            assert len(counted_checks) == made


def test_a_server_watches_the_files_from_its_first_quiet_moment_after_its_first_answer_is_prepared(
        make_repo, monkeypatch) -> None:
    """`tenure serve` prepares its first answer (a freshness check among it) before it answers
    `initialize`, and sets up the watches (a tenth of a second of the interpreter on a large tree) only
    once it serves and has had a quiet moment, when it also loads the embedding model."""
    from tenure.cli import serve
    from tenure.mcp.quiet import Quiet

    monkeypatch.setattr(serve, "WARM_QUIET_S", 0.05)
    root = make_repo(FILES)
    with Tenure.open(root, discover=False) as t:
        t.index()
        loaded: list[str] = []
        t.memories = SimpleNamespace(vectors=SimpleNamespace(warm=lambda: loaded.append("model")))
        built, answers_ready, serving, stop = (threading.Event() for _ in range(4))
        preparing = threading.Thread(target=serve._prepare, args=(t, built, answers_ready, serving, Quiet(), stop),
                                     daemon=True)
        preparing.start()
        built.set()
        assert answers_ready.wait(WAIT_S)
        assert t._freshness is not None and not t._freshness_watched and not loaded  # checked; not serving yet
        serving.set()
        wait_for(lambda: t._freshness_watched and loaded == ["model"])
        stop.set()
        preparing.join(WAIT_S)
