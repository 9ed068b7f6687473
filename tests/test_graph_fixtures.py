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
Where the targets of one line differ in tier, each carries its own:

    self.step()  # calls: shapes.Base.step [inferred], shapes.Square.step [ambiguous]

The check is strict: an edge of a relation on a line that has no annotation for that relation fails
too, so every edge the resolvers make in a fixture is one somebody checked.

An annotation says what the language's semantics give. Where the resolver gives something else today,
a `known-wrong` annotation beside it says exactly what it gives, and why:

    # known-wrong calls: a.Foo.run, b.Bar.run [ambiguous] because the cast's type is not read
    cast(Bar, obj).run()  # calls: b.Bar.run [inferred]

The line then passes while the resolver gives exactly the known-wrong edges, and each such line is
also an expected failure of its own (`pytest -rx` lists them with their reasons), which fails as
soon as the resolver gives the right edges: then the marker is removed.
A new case is a new folder, not new test code. A case holding `javac.md` is compiled with javac into
its target/classes before it is indexed: its annotations describe the graph with bytecode's edges.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tenure.api import Tenure
from tenure.structural.resolve import ProjectIndex, ProjectView, python
from tenure.structural.resolve.python import analysed, flows
from tests.conftest import FIXTURES
from tests.graph_annotations import Got, Key, described, expectations

CASES = sorted(p for p in (FIXTURES / "graph").iterdir() if p.is_dir())
COMPILED = "javac.md"


@pytest.fixture
def indexed_case(indexed, tmp_path: Path) -> Callable[[Path], Tenure]:
    """Index a case as `indexed` does, compiled first when it says so (COMPILED)."""

    def make(case: Path) -> Tenure:
        if not (case / COMPILED).exists():
            return indexed(case)
        if shutil.which("javac") is None:
            pytest.skip("javac missing: .ci/run installs openjdk-17")
        built = tmp_path / "compiled" / case.name
        shutil.copytree(case, built)
        sources = sorted(str(p) for p in built.rglob("*.java"))
        subprocess.run(["javac", "-d", str(built / "target" / "classes"), *sources], check=True, capture_output=True)
        return indexed(built)  # (copied with their times: the class files stay newer than their sources)

    return make
def edges_by_line(t: Tenure) -> dict[Key, Got]:
    actual: dict[Key, Got] = {}
    for e in t.export_edges():
        target = e["dst"] if e["dst"] is not None else "?"
        actual.setdefault((e["path"], e["line"], e["relation"]), {})[target] = e["tier"]
    return actual


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fixture_edges_match_annotations(case: Path, indexed_case) -> None:
    expected = expectations(case)
    assert expected, f"{case.name} has no annotations"
    actual = edges_by_line(indexed_case(case))
    problems = []
    for key in sorted(expected.keys() | actual.keys(), key=lambda k: (k[0], k[1] or 0, k[2])):
        path, line, relation = key
        got = actual.get(key, {})
        where = f"{path}:{line} {relation}"
        if (a := expected.get(key)) is None:
            problems.append(f"{where}: not annotated, got {described(got)}")
        elif a.today is None:
            if not a.right.match(got):
                problems.append(f"{where}: expected {a.right}, got {described(got)}")
        elif a.right.match(got):
            problems.append(f"{where}: now right ({a.right}): remove its known-wrong marker")
        elif not a.today.match(got):
            problems.append(f"{where}: expected {a.right} (known wrong today: {a.today}), got {described(got)}")
    assert not problems, "\n".join(problems)


KNOWN_WRONG = [
    pytest.param(case, key, id=f"{case.name}:{key[0]}:{key[1]}:{key[2]}",
                 marks=pytest.mark.xfail(raises=AssertionError, strict=True, reason=a.because))
    for case in CASES for key, a in expectations(case).items() if a.today is not None
]


@pytest.mark.parametrize(("case", "key"), KNOWN_WRONG)
def test_edges_marked_known_wrong_are_right(case: Path, key: Key, indexed_case) -> None:
    right = expectations(case)[key].right
    got = edges_by_line(indexed_case(case)).get(key, {})
    assert right.match(got), f"expected {right}, got {described(got)}"


PYTHON_CASES = [c for c in CASES if c.name.startswith("python_")]


def resolve_python_files(t: Tenure, load_analysis: Callable | None = None) -> dict[str, list[str]]:
    """Every Python file's edges, resolved again over the stored facts as a new process would."""
    store = t.structural
    rows = t.db.query("SELECT path, module, language FROM files WHERE parse_status IN ('ok', 'partial')")
    python.forget_analyses()
    index = ProjectIndex(load_facts=store.load_facts, lazy=store, load_analysis=load_analysis)  # type: ignore[arg-type]
    for r in rows:
        index.add_module(r["module"], r["path"])
    return {r["path"]: sorted(map(repr, python.resolver.resolve(index.facts(r["path"]), ProjectView(index))))
            for r in rows if r["language"] == "python"}


@pytest.mark.parametrize("case", PYTHON_CASES, ids=[c.name for c in PYTHON_CASES])
def test_python_edges_are_the_same_from_analyses_an_earlier_process_kept(case: Path, indexed, monkeypatch) -> None:
    t = indexed(case)  # (resolved in this process, so so few files: the analyses it made are kept)
    taken: list[str] = []
    kept = analysed.kept_analysis

    def taking(facts: object, view: ProjectView) -> object:
        hit = kept(facts, view)  # type: ignore[arg-type]
        if hit is not None:
            taken.append(facts.path)  # type: ignore[attr-defined]
        return hit

    monkeypatch.setattr(analysed, "kept_analysis", taking)
    assert resolve_python_files(t, t.structural.load_analysis) == resolve_python_files(t)
    assert bool(taken) == bool(t.db.rows("SELECT COUNT(*) FROM file_analyses")[0][0])


@pytest.mark.parametrize("case", PYTHON_CASES, ids=[c.name for c in PYTHON_CASES])
def test_python_edges_are_the_same_when_one_decoded_flow_is_kept(case: Path, indexed, monkeypatch) -> None:
    t = indexed(case)
    every_flow_kept = resolve_python_files(t)
    monkeypatch.setattr(flows, "FLOWS_CACHE_SIZE", 1)  # each module's flow is decoded again when read again
    assert resolve_python_files(t) == every_flow_kept
