"""Analyses of other modules are made once and reused while what they read answers alike: in a warm
process, from the store in a new one, and among resolve workers; a kept analysis of another format or
of other facts is not used."""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec
import pytest

from tenure import Tenure
from tenure.structural import workers
from tenure.structural.report import IndexReport
from tenure.structural.resolve import ProjectIndex, ProjectView
from tenure.structural.resolve import answers as resolve_answers
from tenure.structural.resolve.python.analysed import Analysed, kept_analysis
from tests.incremental_support import SHAPES, clean_index, default_rewritten, edit_shapes, forget_analyses, snapshot


def test_a_warm_analysis_is_reused_while_its_answers_hold_and_redone_when_they_change(
    make_repo, tmp_path: Path
) -> None:
    shapes = SHAPES["app/shapes.py"]
    root = make_repo(SHAPES)

    def area_callers() -> list[str]:
        return [e["dst"] for e in t.export_edges() if e["src"] == "app.use.run" and e["dst"].endswith(".area")]

    with Tenure.open(root, discover=False) as t:  # one warm process, as watch mode keeps it
        t.index()
        assert area_callers() == ["app.shapes.Circle.area"]
        (root / "app/shapes.py").write_text(shapes + "\n\ndef unrelated():\n    return 0\n")
        report = t.index()
        # shapes.py itself; factory.py reads shapes.py's analysis (`return Circle`), which gives what
        # it gave before: it is spared, as is use.py, which only looks up items that were there
        assert (report.files_resolved, report.files_verified, report.files_spared) == (1, 0, 1)
        assert area_callers() == ["app.shapes.Circle.area"]
        assert snapshot(t) == clean_index(root, tmp_path)
        (root / "app/shapes.py").write_text(shapes.replace("return Circle", "return Square"))
        t.index()
        assert area_callers() == ["app.shapes.Square.area"]
        assert snapshot(t) == clean_index(root, tmp_path)


def test_a_warmed_indexer_checks_an_edits_dependants_without_analysing_modules_again(
    make_repo, tmp_path: Path, analysed: list[str]
) -> None:
    root = make_repo(SHAPES)
    with Tenure.open(root, discover=False) as t:
        t.index()

    forget_analyses()  # a process that did not run the analyses: a watcher started on an index
    with Tenure.open(root, discover=False) as t:
        t.structural.drop_analyses()  # (as a full index in worker processes leaves it: none kept)
        t.index()
        report = edit_shapes(t, default_rewritten(), analysed)
        assert (report.files_resolved, report.files_verified) == (1, 2)
        assert "app.factory" in analysed  # verifying use.py asked about make(), whose module was never analysed here

    forget_analyses()
    with Tenure.open(root, discover=False) as t:
        t.structural.drop_analyses()
        t.index()
        while not t.warm(0.05):
            pass
        report = edit_shapes(t, default_rewritten(2), analysed)
        assert (report.files_resolved, report.files_verified) == (1, 2)
        assert analysed == ["app.shapes"]  # the edited module alone: the warm analyses' answers were checked
        assert snapshot(t) == clean_index(root, tmp_path)


def test_a_new_process_takes_the_analyses_an_earlier_one_kept_once_what_they_read_is_checked(
    make_repo, tmp_path: Path, analysed: list[str]
) -> None:
    root = make_repo(SHAPES)
    with Tenure.open(root, discover=False) as t:
        t.index()  # (serial on so few files: analyses are made here, and kept)

    def index_in_a_new_process(shapes: str) -> IndexReport:
        forget_analyses()
        with Tenure.open(root, discover=False) as t:
            return edit_shapes(t, shapes, analysed)

    def area_callers() -> list[str]:
        with Tenure.open(root, discover=False) as t:
            return [e["dst"] for e in t.export_edges() if e["src"] == "app.use.run" and e["dst"].endswith(".area")]

    # factory.py's kept analysis read shapes.py: asked again, its answers hold
    report = index_in_a_new_process(default_rewritten())
    assert (report.files_resolved, report.files_verified) == (1, 2)
    assert "app.factory" not in analysed
    assert area_callers() == ["app.shapes.Circle.area"]
    # ... and now they do not: factory.py is analysed again, use.py resolved again
    report = index_in_a_new_process(SHAPES["app/shapes.py"].replace("return Circle", "return Square"))
    assert "app.factory" in analysed
    assert area_callers() == ["app.shapes.Square.area"]
    with Tenure.open(root, discover=False) as t:
        assert snapshot(t) == clean_index(root, tmp_path)


def test_analyses_made_in_worker_processes_are_kept_for_the_next_process(
    make_repo, monkeypatch, analysed: list[str]
) -> None:
    root = make_repo(SHAPES)
    monkeypatch.setattr(workers, "PARALLEL_THRESHOLD", 1)  # a full index in worker processes
    with Tenure.open(root, discover=False) as t:
        t.index()
        assert t.structural.load_analysis("app/factory.py") is not None
    monkeypatch.setattr(workers, "PARALLEL_THRESHOLD", 10_000)
    analysed.clear()
    (root / "app/shapes.py").write_text(default_rewritten())
    forget_analyses()
    with Tenure.open(root, discover=False) as t:
        assert t.index().files_verified == 2
    assert "app.factory" not in analysed


class _WorkersInThisProcess:
    """The pool `resolve_all` forks, played here: each batch runs as a worker of its own would,
    with no analysis it made itself (a worker has only what the others shared)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        pass

    def __enter__(self) -> _WorkersInThisProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def map(self, work: Callable, batches: list) -> Iterator:
        for batch in batches:
            forget_analyses()
            yield work(batch)


def _play_the_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """`resolve_all` in batches given to `_WorkersInThisProcess`, whatever the machine's cores (on one it
    would resolve every file in order itself, and a test comparing with that would compare it with itself)."""
    monkeypatch.setattr(workers, "PARALLEL_THRESHOLD", 1)
    monkeypatch.setattr(workers, "fork_context", object)  # (`resolve_all` asks only that there is one)
    monkeypatch.setattr(workers, "process_pool", _WorkersInThisProcess)
    monkeypatch.setattr(workers.os, "cpu_count", lambda: 2)


def test_a_module_one_worker_analysed_is_read_not_analysed_again_by_the_others(
    make_repo, monkeypatch, analysed: list[str], tmp_path: Path
) -> None:
    """Twenty files read `app.factory`'s analysis: two batches of 16, as two workers, one analysis."""
    users = {f"app/use{n}.py": SHAPES["app/use.py"].replace("def run", f"def run{n}") for n in range(20)}
    root = make_repo({**SHAPES, **users})
    _play_the_workers(monkeypatch)
    forget_analyses()
    with Tenure.open(root, discover=False) as t:
        t.index()
        assert analysed.count("app.factory") == 1
        got = snapshot(t)
    monkeypatch.setattr(workers, "PARALLEL_THRESHOLD", 10_000)
    assert got == clean_index(root, tmp_path)


def test_a_resolve_worker_keeps_an_analysis_with_its_questions_then_lets_them_go(
    make_repo, monkeypatch, tmp_path: Path
) -> None:
    """A worker's index never changes, so the questions an analysis asked are needed only in the kept
    copy (a later process checks it by them): the worker holds the analysis without them."""
    # (one batch: the in-process worker's analyses are still here when the index is done)
    users = {f"app/use{n}.py": SHAPES["app/use.py"].replace("def run", f"def run{n}") for n in range(10)}
    root = make_repo({**SHAPES, **users})
    _play_the_workers(monkeypatch)
    forget_analyses()
    with Tenure.open(root, discover=False) as t:
        t.index()
        view = ProjectView(ProjectIndex(load_facts=t.structural.load_facts, load_analysis=t.structural.load_analysis))
        kept = kept_analysis(t.structural.load_facts("app/factory.py"), view)  # type: ignore[arg-type]
        got = snapshot(t)
    assert kept is not None and kept.answers  # (the questions a later process checks it by)
    held = [hit for hit in Analysed._cache.values() if hit.facts.path == "app/factory.py"]
    assert held and all(hit.answers is None for hit in held)  # the last worker's copy: without them
    monkeypatch.setattr(workers, "PARALLEL_THRESHOLD", 10_000)
    assert got == clean_index(root, tmp_path)


def _guessing_users(count: int) -> dict[str, str]:
    """Files that call `make().area()`, and `shape.area()` of any shape (`named`: every area)."""
    return {f"app/use{n}.py": SHAPES["app/use.py"].replace("def run", f"def run{n}")
            + "\n\ndef guess(shape):\n    return shape.area()\n" for n in range(count)}


def _resolved(root: Path) -> tuple:
    """A fresh process's index of `root`: its graph, stored answers and reads."""
    forget_analyses()
    with Tenure.open(root, discover=False) as t:
        t.index()
        answers = t.db.rows("SELECT f.path, a.answers FROM resolution_answers a JOIN files f ON f.id = a.file_id")
        reads = t.db.rows("SELECT f.path, d.key_id FROM resolution_deps d JOIN files f ON f.id = d.file_id")
        return snapshot(t), sorted(answers), sorted(reads)


def test_a_question_another_file_asked_is_answered_as_computing_it_would(make_repo, monkeypatch) -> None:
    """`resolve` takes a question's answer, log entry and reads from the file that asked it first in
    the same index state (`resolve_answers.ANSWERED`): edges, stored answers and reads come out alike."""
    users = _guessing_users(3)

    def resolved(name: str) -> tuple:
        return _resolved(make_repo({**SHAPES, **users}, name))

    shared = resolved("shared")
    assert any(len(asked) > 1 for asked in resolve_answers.ANSWERED.values())
    shared_or_not = resolve_answers.for_state  # (every question computed: `ANSWERED` finds nothing)
    monkeypatch.setattr(resolve_answers, "for_state",
                        lambda tables, view: {} if tables is resolve_answers.ANSWERED else shared_or_not(tables, view))
    assert resolved("computed") == shared


def test_files_resolved_in_another_order_by_other_workers_store_the_same_graph(make_repo, monkeypatch) -> None:
    """Which file asks a question first (and so fills `ANSWERED` and the analyses the others read), and
    which worker resolves it, leave the edges, stored answers and reads as one process in order makes
    them: an index gives the same graph whatever the scheduling (issue 32: a digest to compare)."""
    users = _guessing_users(20)

    def resolved(name: str) -> tuple:
        return _resolved(make_repo({**SHAPES, **users}, name))

    in_order = resolved("in order")
    resolve_all = workers.resolve_all
    monkeypatch.setattr(workers, "resolve_all",
                        lambda index, todo, scratch=None: resolve_all(index, todo[::-1], scratch))
    assert resolved("backwards") == in_order
    _play_the_workers(monkeypatch)  # batches of 16, each a worker without the others' analyses
    assert resolved("backwards, by workers") == in_order


def test_kept_analyses_of_another_format_or_other_facts_are_not_used(make_repo) -> None:
    root = make_repo(SHAPES)
    with Tenure.open(root, discover=False) as t:
        t.index()
        blob = t.structural.load_analysis("app/factory.py")
        assert blob is not None
        facts = t.structural.load_facts("app/factory.py")
        other = t.structural.load_facts("app/use.py")
        view = ProjectView(ProjectIndex(load_facts=t.structural.load_facts, load_analysis=t.structural.load_analysis))
        assert kept_analysis(facts, view) is not None
        t.structural.save_analyses({"app/use.py": blob})  # made of factory.py's facts, not use.py's
        assert kept_analysis(other, view) is None
        another_format = (99, *msgspec.msgpack.decode(zlib.decompress(blob))[1:])
        t.structural.save_analyses({"app/factory.py": zlib.compress(msgspec.msgpack.encode(another_format))})
        assert kept_analysis(facts, view) is None
        for garbage in (b"\x93\x09garbage", zlib.compress(b"\x93\x09garbage")):
            t.structural.save_analyses({"app/factory.py": garbage})
            assert kept_analysis(facts, view) is None
