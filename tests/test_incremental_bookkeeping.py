"""What checking dependants read is recorded once, at the update or (a watcher's) at its next idle
poll; what a process that died left unrecorded is resolved again, and a watcher's deferred bookkeeping
is dropped when another process indexed first."""

from __future__ import annotations

from pathlib import Path

from tenure import Tenure
from tenure.structural.store import StructuralStore
from tests.incremental_support import SHAPES, clean_index, default_rewritten, forget_analyses, snapshot, spy


def test_a_check_that_reads_what_an_earlier_processs_check_recorded_records_nothing_again(
    make_repo, tmp_path: Path, monkeypatch
) -> None:
    root = make_repo(SHAPES)
    with Tenure.open(root, discover=False) as t:
        t.index()
    offered: list[int] = []
    spy(monkeypatch, StructuralStore, "keep_verified", lambda self, verified, digests=None: offered.append(
        sum(len(keys) + len(missing) for _, keys, missing in verified.values())))
    for n in range(3):  # each in a process of its own: an unrelated function added to shapes.py
        (root / "app/shapes.py").write_text(default_rewritten(n + 1))
        forget_analyses()
        with Tenure.open(root, discover=False) as t:
            assert t.index().files_verified == 2
    assert offered[0] > 0 and offered[1:] == [0, 0]
    with Tenure.open(root, discover=False) as t:
        assert snapshot(t) == clean_index(root, tmp_path)


def test_dependants_checked_by_a_process_that_died_before_its_bookkeeping_are_resolved_again(
    make_repo, tmp_path: Path
) -> None:
    root = make_repo(SHAPES)
    shapes = SHAPES["app/shapes.py"]
    t = Tenure.open(root, discover=False)
    t.index()
    (root / "app/shapes.py").write_text(default_rewritten())
    report = t.index(changed_paths={"app/shapes.py"}, defer_bookkeeping=True)
    assert (report.files_resolved, report.files_verified) == (1, 2)
    t.db.close()  # dies: what checking factory.py and use.py read was never recorded
    with Tenure.open(root, discover=False) as t:
        (root / "app/shapes.py").write_text(default_rewritten(2))
        report = t.index()
        assert (report.files_resolved, report.files_verified) == (3, 0)  # shapes.py, and the two never recorded
        assert snapshot(t) == clean_index(root, tmp_path)
        (root / "app/shapes.py").write_text(shapes.replace("return Circle", "return Square"))
        t.index()
        assert snapshot(t) == clean_index(root, tmp_path)


def test_deferred_bookkeeping_is_dropped_when_another_process_indexed_first(make_repo, tmp_path: Path) -> None:
    root = make_repo(SHAPES)
    shapes = SHAPES["app/shapes.py"]
    with Tenure.open(root, discover=False) as watcher:
        watcher.index()
        (root / "app/shapes.py").write_text(default_rewritten())
        watcher.index(changed_paths={"app/shapes.py"}, defer_bookkeeping=True)
        with Tenure.open(root, discover=False) as other:  # e.g. `tenure index` from a shell
            (root / "app/factory.py").write_text(SHAPES["app/factory.py"] + "\n# edited\n")
            report = other.index()
            # factory.py (its comment alone would touch no reader), and use.py, whose check the watcher
            # has not recorded yet: resolved again here
            assert (report.files_resolved, report.files_verified) == (2, 0)
        watcher.flush()  # too late: its checks are stale, and dropped
        (root / "app/shapes.py").write_text(shapes.replace("return Circle", "return Square"))
        watcher.index(changed_paths={"app/shapes.py"}, defer_bookkeeping=True)
        watcher.flush()
        assert snapshot(watcher) == clean_index(root, tmp_path)
