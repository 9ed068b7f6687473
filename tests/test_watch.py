"""`tenure index --watch`: a change on disk reaches the graph without a full rescan."""

from __future__ import annotations

import queue
import shutil
import threading
import time

from tenure import Tenure
from tenure.storage import StorageError


def test_watch_reindexes_only_the_changed_file(make_repo) -> None:
    root = make_repo({"a.py": "def f():\n    pass\n", "b.py": "def g():\n    pass\n"})
    updates: queue.Queue = queue.Queue()
    stop = threading.Event()
    with Tenure.open(root, discover=False) as t:
        t.index()
        watcher = threading.Thread(target=t.watch, args=(updates.put, stop), daemon=True)
        watcher.start()
        time.sleep(0.5)  # let the watcher start before the edit
        (root / "b.py").write_text("from a import f\n\n\ndef g():\n    return f()\n")
        report = updates.get(timeout=20)
        stop.set()
        watcher.join(timeout=10)
        assert report.files_parsed == 1
        assert report.files_seen == 2
        assert ("b.g", "a.f") in {(e["src"], e["dst"]) for e in t.export_edges()}


def test_an_idle_watcher_warms_its_indexer_then_still_takes_changes(make_repo) -> None:
    root = make_repo({"a.py": "def f():\n    pass\n", "b.py": "from a import f\n\n\ndef g():\n    return f()\n"})
    updates: queue.Queue = queue.Queue()
    warmed: queue.Queue = queue.Queue()
    stop = threading.Event()
    with Tenure.open(root, discover=False) as t:
        t.index()
        watcher = threading.Thread(target=t.watch, args=(updates.put, stop, warmed.put), daemon=True)
        watcher.start()
        done = warmed.get(timeout=20)  # no change pending: it warmed, and said so once
        # f's returns are read again (still nothing)
        (root / "a.py").write_text("def f():\n    return g()\n\n\ndef g():\n    pass\n")
        report = updates.get(timeout=20)
        stop.set()
        watcher.join(timeout=10)
        assert done["cpu_seconds"] >= 0 and done["failed"] == [] and warmed.empty()
        assert report.files_parsed == 1 and report.files_verified == 1  # b.py checked, not resolved again


def test_a_watcher_whose_database_is_deleted_stops_and_says_so(make_repo) -> None:
    root = make_repo({"a.py": "def f():\n    pass\n"})
    failed: queue.Queue = queue.Queue()
    stop = threading.Event()
    with Tenure.open(root, discover=False) as t:
        t.index()

        def watch() -> None:
            try:
                t.watch(lambda report: None, stop)
            except StorageError as exc:
                failed.put(str(exc))

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        time.sleep(0.3)
        shutil.rmtree(root / ".tenure")  # `git clean -fdx`: updates written now would reach nobody
        error = failed.get(timeout=20)
        stop.set()
        watcher.join(timeout=10)
        assert "was deleted or replaced while watching" in error
