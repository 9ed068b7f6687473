"""`tenure index --watch`: a change on disk reaches the graph without a full rescan."""

from __future__ import annotations

import queue
import shutil
import threading

from tenure import Tenure
from tenure.storage import StorageError

WAIT_S = 30  # generous: a signal that does not come within this fails the test, it never orders it
# A warm-up follows an update at the watcher's next idle poll (WARM_POLL_MS): waited for this long
# where the test fails while the signal does not come, to keep that failure from costing WAIT_S.
NEXT_IDLE_S = 10

A = "def f():\n    pass\n"
B_READS_A = "from a import f\n\n\ndef g():\n    return f()\n"


def watching(t: Tenure, stop: threading.Event, on_update=lambda report: None, on_warmed=None,
             target=None) -> tuple[threading.Thread, threading.Event]:
    """A watcher thread, and an event set once it first warmed: by then it is watching the tree
    (it warms at its first idle poll), so an edit made after it is seen."""
    warmed = threading.Event()

    def signal(done: dict) -> None:
        warmed.set()
        if on_warmed:
            on_warmed(done)

    thread = threading.Thread(target=target or t.watch, args=(on_update, stop, signal), daemon=True)
    thread.start()
    assert warmed.wait(WAIT_S), "the watcher never said it warmed"
    return thread, warmed


def stopped(thread: threading.Thread, stop: threading.Event) -> None:
    stop.set()
    thread.join(WAIT_S)
    assert not thread.is_alive()


def test_watch_reindexes_only_the_changed_file(make_repo) -> None:
    root = make_repo({"a.py": A, "b.py": "def g():\n    pass\n"})
    updates: queue.Queue = queue.Queue()
    stop = threading.Event()
    with Tenure.open(root, discover=False) as t:
        t.index()
        watcher, _ = watching(t, stop, updates.put)
        (root / "b.py").write_text(B_READS_A)
        report = updates.get(timeout=WAIT_S)
        stopped(watcher, stop)
        assert report.changed_paths == ["b.py"]
        assert report.files_parsed == 1
        assert report.files_seen == 2
        assert ("b.g", "a.f") in {(e["src"], e["dst"]) for e in t.export_edges()}


def test_an_idle_watcher_warms_its_indexer_then_still_takes_changes(make_repo) -> None:
    root = make_repo({"a.py": A, "b.py": B_READS_A})
    events: queue.Queue = queue.Queue()  # what the watcher said, in the order it said it
    stop = threading.Event()
    with Tenure.open(root, discover=False) as t:
        t.index()
        watcher, _ = watching(t, stop, lambda report: events.put(("update", report)),
                              lambda done: events.put(("warmed", done)))
        # f's returns are read again (still nothing)
        (root / "a.py").write_text("def f():\n    return g()\n\n\ndef g():\n    pass\n")
        said = [events.get(timeout=WAIT_S) for _ in range(2)]
        stopped(watcher, stop)
        assert [kind for kind, _ in said] == ["warmed", "update"]  # no change pending: it warmed, and said so
        (_, done), (_, report) = said
        assert done["cpu_seconds"] > 0  # it did the work (a.py, which b.py reads, analysed ahead)
        assert done["failed"] == []
        assert events.empty()  # once: its own update did not make it warm again
        assert report.files_parsed == 1 and report.files_verified == 1  # b.py checked, not resolved again


def test_a_watcher_warms_again_and_says_so_once_another_process_has_indexed(make_repo) -> None:
    root = make_repo({"a.py": A, "b.py": B_READS_A})
    events: queue.Queue = queue.Queue()
    stop = threading.Event()
    with Tenure.open(root, discover=False) as t:
        t.index()
        watcher, _ = watching(t, stop, lambda report: events.put(("update", report)),
                              lambda done: events.put(("warmed", done)))
        assert events.get(timeout=WAIT_S)[0] == "warmed"
        with Tenure.open(root, discover=False) as other:
            other.index()  # the watcher's index is now behind the store's: its next update builds a new one
        (root / "a.py").write_text("def f():\n    return 1\n")
        assert events.get(timeout=WAIT_S)[0] == "update"
        try:
            again = events.get(timeout=NEXT_IDLE_S)
        except queue.Empty:
            again = None
        stopped(watcher, stop)
        assert again is not None and again[0] == "warmed", "the new index was warmed without a word"
        assert again[1]["cpu_seconds"] > 0 and again[1]["failed"] == []


def test_a_watcher_whose_database_is_deleted_stops_and_says_so(make_repo) -> None:
    root = make_repo({"a.py": A})
    failed: queue.Queue = queue.Queue()
    stop = threading.Event()
    with Tenure.open(root, discover=False) as t:
        t.index()

        def watch(on_update, stop, on_warmed) -> None:
            try:
                t.watch(on_update, stop, on_warmed)
            except StorageError as exc:
                failed.put(str(exc))

        watcher, _ = watching(t, stop, target=watch)
        shutil.rmtree(root / ".tenure")  # `git clean -fdx`: updates written now would reach nobody
        error = failed.get(timeout=WAIT_S)
        watcher.join(WAIT_S)
        assert not watcher.is_alive()  # it stopped by itself: nothing set `stop`
        assert "was deleted or replaced while watching" in error
