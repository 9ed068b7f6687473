"""Cold processes, warm ones (a watcher's) and worker processes build the same graph: a cold update
reads only the symbols it looks up, workers read nothing from the store, and a warm indexer notices
another process that indexed in between."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tenure import Tenure
from tenure.structural import workers
from tenure.structural.resolve import ProjectIndex, SymbolInfo, python
from tenure.structural.store import StructuralStore
from tests.incremental_support import BASE, EDITS, SHAPES, clean_index, snapshot, spy, write


def in_this_process_only(read: Callable) -> Callable:
    """`read`, failing when called from a forked process (a resolve worker)."""
    parent = os.getpid()

    def guarded(store: StructuralStore, *args: str) -> object:
        assert os.getpid() == parent, "a resolve worker read the store"
        return read(store, *args)

    return guarded


def test_a_cold_update_reads_only_the_symbols_it_looks_up_and_equals_a_warm_index_of_all(
    make_repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`tenure index` after an edit is a fresh process: it reads the symbols its resolution looks
    up rather than all of them (45k on Django), and makes the graph a warmed indexer (a watcher's,
    which holds every symbol) makes of the same edits."""
    whole_reads: list[StructuralStore] = []
    spy(monkeypatch, StructuralStore, "all_symbols", lambda store, **_: whole_reads.append(store))
    cold_root, warm_root = make_repo(BASE, name="cold"), make_repo(BASE, name="warm")
    with Tenure.open(warm_root, discover=False) as warm:
        warm.index()
        while not warm.warm(0.05):
            pass
        with Tenure.open(cold_root, discover=False) as cold:
            cold.index()
        for path, content in EDITS:
            write(cold_root, path, content)
            write(warm_root, path, content)
            warm.index()
            with Tenure.open(cold_root, discover=False) as cold:
                cold.index()
                assert snapshot(cold) == snapshot(warm), f"after editing {path}"
        # the warmed indexer read them all once, when it warmed; no cold run did
        assert whole_reads == [warm.structural]


def test_a_cold_update_resolved_in_worker_processes_equals_a_clean_reindex(
    make_repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Resolve workers are forked over the index and cannot see the open transaction: a cold
    process reads every symbol (and facts) in the parent before they start, and no worker reads the
    store."""
    for method in ("symbols_with", "load_facts", "load_analysis", "facts_digest"):
        monkeypatch.setattr(StructuralStore, method, in_this_process_only(getattr(StructuralStore, method)))
    root = make_repo(BASE)
    cleans = tmp_path / "cleans"
    cleans.mkdir()
    with Tenure.open(root, discover=False) as t:
        t.index()
    monkeypatch.setattr(workers, "PARALLEL_THRESHOLD", 1)  # even one file is resolved by workers
    for path, content in EDITS:
        write(root, path, content)
        with Tenure.open(root, discover=False) as cold:
            cold.index()
            assert snapshot(cold) == clean_index(root, cleans), f"after editing {path}"


def test_a_first_index_in_worker_processes_reads_back_none_of_the_symbols_it_stored(
    make_repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parent holds every symbol before the workers start; those it has just stored come from
    memory, the same as the store would give them."""
    read_back: list[SymbolInfo] = []
    real = StructuralStore.all_symbols
    monkeypatch.setattr(StructuralStore, "all_symbols",
                        lambda store, **kwargs: read_back.extend(real(store, **kwargs)) or iter(read_back))
    monkeypatch.setattr(workers, "PARALLEL_THRESHOLD", 1)
    with Tenure.open(make_repo(BASE), discover=False) as t:
        t.index()
        stored = list(real(t.structural))
    assert read_back == [] and stored


def test_an_index_completed_runs_after_it_was_made_holds_no_symbol_of_a_file_deleted_since(make_repo) -> None:
    """A process that indexes again keeps its index, and completes it when it warms: the symbols a
    run held in memory for it are dropped with their file."""
    with Tenure.open(make_repo({"a.py": "def kept():\n    return 1\n", "b.py": "def gone():\n    return 2\n"}),
                     discover=False) as t:
        t.index()
        (t.root / "b.py").unlink()
        t.index()
        while not t.warm(0.05):
            pass
        index = t._indexer._index
        assert index is not None and index.lazy is None
        assert [s.fqn for s in index.named("kept")] == ["a.kept"] and index.named("gone") == []


def test_a_module_that_fails_to_warm_is_reported_and_warming_goes_on(make_repo, tmp_path: Path, monkeypatch) -> None:
    root = make_repo(SHAPES)

    def failing(module: str, view: object) -> None:
        if module == "app.factory":
            raise RuntimeError("analysis failed")
        python.PythonResolver.warm(module, view)

    monkeypatch.setattr(python.resolver, "warm", failing)
    with Tenure.open(root, discover=False) as t:
        t.index()
        while not t.warm(0.05):
            pass
        assert t.warming_failed == [("app.factory", "RuntimeError: analysis failed")]
        (root / "app/shapes.py").write_text(SHAPES["app/shapes.py"] + "\n\ndef unrelated():\n    return 0\n")
        t.index(changed_paths={"app/shapes.py"})
        assert snapshot(t) == clean_index(root, tmp_path)


def test_a_warm_indexer_notices_another_process_indexed_in_between(make_repo, tmp_path: Path) -> None:
    root = make_repo(BASE)
    cleans = tmp_path / "cleans"
    cleans.mkdir()
    with Tenure.open(root, discover=False) as first, Tenure.open(root, discover=False) as second:
        first.index()  # `first` keeps its symbol index warm from here on
        (root / "app/util.py").write_text("from app.models import tax\n\n\ndef helper():\n    return tax(1)\n")
        second.index()  # another process brings the database forward
        (root / "app/models.py").write_text("def tax(x):\n    return x\n\n\ndef levy():\n    return 1\n")
        first.index()
        assert snapshot(first) == clean_index(root, cleans)


def test_an_index_another_process_indexed_past_is_not_warmed_until_a_run_rebuilds_it(make_repo) -> None:
    root = make_repo(SHAPES)
    with Tenure.open(root, discover=False) as first, Tenure.open(root, discover=False) as second:
        first.index()
        (root / "app/shapes.py").write_text(SHAPES["app/shapes.py"] + "\n\ndef levy():\n    return 0\n")
        second.index()  # `first` holds shapes.py's symbols as its own run stored them: no `levy`
        assert first.warm(10.0)  # nothing to warm in an index that is out of date
        assert first._indexer._index.lazy is not None  # not completed from the symbols it held
        (root / "app/use.py").write_text(SHAPES["app/use.py"] + "\n\ndef again():\n    return run()\n")
        first.index(changed_paths={"app/use.py"})  # a new index, of the store as it is now
        assert not first.warm(0.0)  # warmed again, from the start
        while not first.warm(1.0):
            pass
        index = first._indexer._index
        assert index.lazy is None and [s.fqn for s in index.named("levy")] == ["app.shapes.levy"]


def test_an_index_tells_what_changed_after_a_state_and_nothing_before_it() -> None:
    index = ProjectIndex(load_facts=lambda path: None)
    index.add_module("app.a", "app/a.py")
    index.add(SymbolInfo("app.a.f", "f", "function", "python", "app/a.py", 1, "app.a", "app.a"))
    index.add_module("app.b", "app/b.py")
    first = index.epoch
    index.remove_file("app/a.py")  # a's new state: g instead of f
    index.add_module("app.a", "app/a.py")
    index.add(SymbolInfo("app.a.g", "g", "function", "python", "app/a.py", 1, "app.a", "app.a"))
    second = index.epoch
    index.remove_file("app/b.py")  # b goes
    # (a's file went and came back: its module's existence is logged too, which only asks again more)
    assert set(index.changed_since(first)) == {("facts", "app.a"), ("items", "app.a"), ("exists", "app.a"),
                                              ("named", "f"), ("named", "g"),
                                              ("facts", "app.b"), ("items", "app.b"), ("exists", "app.b")}
    assert set(index.changed_since(second)) == {("facts", "app.b"), ("items", "app.b"), ("exists", "app.b")}
    assert index.changed_since(index.epoch) == []


def test_the_workers_share_analyses_inside_the_state_directory_and_a_killed_indexs_folder_is_removed(
    make_repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tenure writes only inside the project and its state directory: the folder where the resolve
    workers leave each other their analyses is made there, and removed after them. One that an index
    killed mid-run left behind (its process gone) is removed by the next; a running index's is not."""
    root = make_repo(BASE)
    state = root / ".tenure"
    state.mkdir()
    killed = state / f"tenure-analyses-{2**22 + 12345}-x1"  # (above pid_max: no such process)
    running = state / f"tenure-analyses-{os.getpid()}-x2"
    for folder in (killed, running):
        folder.mkdir()
        (folder / "analysis").write_bytes(b"kept")
    made: list[dict] = []
    real = tempfile.TemporaryDirectory
    monkeypatch.setattr(tempfile, "TemporaryDirectory", lambda **kwargs: made.append(kwargs) or real(**kwargs))
    monkeypatch.setattr(workers, "PARALLEL_THRESHOLD", 1)
    with Tenure.open(root, discover=False) as t:
        t.index()
    assert [kwargs["dir"] for kwargs in made] == [str(state)]
    assert not killed.exists() and running.exists()
    assert [p.name for p in state.glob("tenure-analyses-*")] == [running.name]  # (the index's own removed)
