"""The call graph, tested the way jedi tests inference: small fixture repositories under
fixtures/graph/<case>/ with the expected edges written beside the code.

An annotation is a comment, trailing the line it speaks of or alone on the line above it:

    handle(job)  # calls: settlement.api.handle [inferred]
    # calls: a.Foo.run, b.Bar.run [ambiguous]
    obj.run()
    getattr(obj, name)()  # calls: ? [dynamic]
    x.save()  # calls: -          (no edge at all)

Relations: calls, instantiates, inherits, implements, imports. The listed targets must be exactly the
targets of that relation's edges on that line (so a wrong extra edge fails), each with the tier given.
A new case is a new folder, not new test code.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tenure.api import Tenure
from tenure.structural.resolve import ProjectIndex, ProjectView, python
from tests.conftest import FIXTURES

CASES = sorted(p for p in (FIXTURES / "graph").iterdir() if p.is_dir())
ANNOTATION = re.compile(
    r"(?:#|//|--|;)\s*(calls|instantiates|inherits|implements|imports)\s*:\s*(.+?)\s*(?:\[(\w+)\])?\s*(?:\*/)?$"
)


def expectations(root: Path) -> dict[tuple[str, int, str], tuple[set[str], str | None]]:
    """(path, line, relation) -> (expected targets, expected tier)."""
    expected = {}
    for f in sorted(root.rglob("*")):
        if not f.is_file() or f.name.endswith((".md", ".toml")):
            continue
        rel = f.relative_to(root).as_posix()
        pending: list[tuple[str, set[str], str | None]] = []
        for lineno, line in enumerate(f.read_text("utf-8", "replace").splitlines(), start=1):
            m = ANNOTATION.search(line)
            code_part = line[: m.start()].strip() if m else line.strip()
            if m:
                targets = {t.strip() for t in m.group(2).split(",")} - {"-"}
                item = (m.group(1), targets, m.group(3))
                if code_part:
                    expected[(rel, lineno, item[0])] = (item[1], item[2])
                else:
                    pending.append(item)
                continue
            if pending and code_part:
                for relation, targets, tier in pending:
                    expected[(rel, lineno, relation)] = (targets, tier)
                pending = []
    return expected


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fixture_edges_match_annotations(case: Path, indexed) -> None:
    t = indexed(case)
    expected = expectations(case)
    assert expected, f"{case.name} has no annotations"
    actual: dict[tuple[str, int, str], dict[str, str]] = {}
    for e in t.export_edges():
        key = (e["path"], e["line"], e["relation"])
        actual.setdefault(key, {})[e["dst"] if e["dst"] is not None else "?"] = e["tier"]
    problems = []
    for (path, line, relation), (targets, tier) in sorted(expected.items()):
        got = actual.get((path, line, relation), {})
        if set(got) != targets:
            problems.append(f"{path}:{line} {relation}: expected {sorted(targets)}, got {sorted(got)}")
        elif tier and any(t != tier for t in got.values()):
            problems.append(f"{path}:{line} {relation}: expected tier {tier}, got {got}")
    assert not problems, "\n".join(problems)


PYTHON_CASES = [c for c in CASES if c.name.startswith("python_")]


def resolve_python_files(t: Tenure, load_analysis: Callable | None = None) -> dict[str, list[str]]:
    """Every Python file's edges, resolved again over the stored facts as a new process would."""
    store = t.structural
    rows = t.db.query("SELECT path, module, language FROM files WHERE parse_status IN ('ok', 'partial')")
    python.Analysed._cache.clear()
    python._FLOWS.clear()
    index = ProjectIndex(load_facts=store.load_facts, lazy=store, load_analysis=load_analysis)  # type: ignore[arg-type]
    for r in rows:
        index.add_module(r["module"], r["path"])
    return {r["path"]: sorted(map(repr, python.resolve(index.facts(r["path"]), ProjectView(index))))
            for r in rows if r["language"] == "python"}


@pytest.mark.parametrize("case", PYTHON_CASES, ids=[c.name for c in PYTHON_CASES])
def test_python_edges_are_the_same_from_analyses_an_earlier_process_kept(case: Path, indexed, monkeypatch) -> None:
    t = indexed(case)  # (resolved in this process, so so few files: the analyses it made are kept)
    taken: list[str] = []
    kept = python._kept

    def taking(facts: object, view: ProjectView) -> object:
        hit = kept(facts, view)  # type: ignore[arg-type]
        if hit is not None:
            taken.append(facts.path)  # type: ignore[attr-defined]
        return hit

    monkeypatch.setattr(python, "_kept", taking)
    assert resolve_python_files(t, t.structural.load_analysis) == resolve_python_files(t)
    assert bool(taken) == bool(t.db.rows("SELECT COUNT(*) FROM file_analyses")[0][0])


@pytest.mark.parametrize("case", PYTHON_CASES, ids=[c.name for c in PYTHON_CASES])
def test_python_edges_are_the_same_when_one_decoded_flow_is_kept(case: Path, indexed, monkeypatch) -> None:
    t = indexed(case)
    every_flow_kept = resolve_python_files(t)
    monkeypatch.setattr(python, "FLOWS_CACHE_SIZE", 1)  # each module's flow is decoded again when read again
    assert resolve_python_files(t) == every_flow_kept
