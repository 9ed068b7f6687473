"""The sources an index runs after tree-sitter's pass: each sees the project through a context of its
own, runs after the sources whose evidence it reads, and one that fails is reported, never fatal."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from tenure import Tenure
from tenure.structural import sources
from tenure.structural.after_index import SourceContext
from tenure.structural.report import IndexReport


@dataclass
class Recorder:
    """A source that notes when it ran, and what it was given."""

    name: str
    after: tuple[str, ...] = ()
    ran: list[str] = field(default_factory=list)
    given: list[SourceContext] = field(default_factory=list)
    fails: bool = False

    def run(self, context: SourceContext, report: IndexReport) -> dict:
        self.ran.append(self.name)
        self.given.append(context)
        if self.fails:
            raise RuntimeError("no input it can read")
        return {"edges": 1}


def names(listed: list) -> list[str]:
    return [source.name for source in listed]


def test_a_source_runs_after_those_it_names_and_otherwise_in_the_order_listed() -> None:
    listed = [Recorder("lsp", after=("jvm", "traces")), Recorder("coverage"), Recorder("traces"), Recorder("jvm")]
    assert names(sources.in_order(listed)) == ["coverage", "traces", "jvm", "lsp"]
    assert names(sources.in_order([Recorder("b"), Recorder("a")])) == ["b", "a"]


def test_the_language_servers_verify_after_bytecode_and_wiring() -> None:
    ordered = names(sources.after_index_sources())
    assert ordered.index("jvm") < ordered.index("lsp")


@pytest.mark.parametrize(("listed", "message"), [
    ([Recorder("lsp", after=("bytecode",))], "runs after bytecode: no such source"),
    ([Recorder("a", after=("b",)), Recorder("b", after=("a",)), Recorder("c")], "sources a, b each wait"),
], ids=["a source that does not exist", "sources waiting for each other"])
def test_declarations_that_cannot_be_kept_are_refused(listed: list, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        sources.in_order(listed)


def test_each_source_gets_the_projects_context_and_a_failing_one_is_reported(
    make_repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken, working = Recorder("broken", fails=True), Recorder("working", after=("broken",))
    monkeypatch.setattr(sources, "after_index_sources", lambda: [broken, working])
    with Tenure.open(make_repo({"a.py": "def f():\n    return 1\n"}), discover=False) as t:
        report = t.index()
        assert report.sources == {"broken": {"error": "RuntimeError: no input it can read"},
                                  "working": {"edges": 1}}
        assert report.symbols == 2  # tree-sitter's graph stands
        context = working.given[0]
        assert (context.root, context.state_dir, context.db) == (t.root, t.root / ".tenure", t.db)
        assert context.structural is t.structural
