"""Evidence from other sources (lsp, bytecode, di, trace) merges with tree-sitter's graph when read:
confirmations lift the tier, refutations keep the edge with provenance, new edges appear, and none of
it is lost when tree-sitter re-resolves the file."""

from __future__ import annotations

from tenure import Tenure
from tenure.structural.store import SourceEdge

FILES = {
    "app/__init__.py": "",
    "app/shapes.py": (
        "class Circle:\n"
        "    def area(self):\n"
        "        return 3\n"
        "\n\n"
        "class Square:\n"
        "    def area(self):\n"
        "        return 4\n"
    ),
    "app/report.py": (
        "def report(shape):\n"
        "    return shape.area()\n"  # untyped receiver: ambiguous between Circle.area and Square.area
    ),
}
CIRCLE, SQUARE = "app.shapes.Circle.area", "app.shapes.Square.area"


def dependant(result: dict, symbol: str) -> dict:
    return next(d for d in result["dependants"] if d["symbol"] == symbol)


def test_a_checker_narrows_an_ambiguous_call_to_its_real_target(make_indexed_repo) -> None:
    with Tenure.open(make_indexed_repo(FILES), discover=False) as t:
        assert dependant(t.what_breaks(CIRCLE), "app.report.report")["tier"] == "ambiguous"
        t.structural.replace_source_edges("lsp", "app/report.py", [
            SourceEdge("app.report.report", CIRCLE, "calls", "resolved", line=2),
            SourceEdge("app.report.report", SQUARE, "calls", "resolved", verdict="refutes", line=2),
        ])
        circle = dependant(t.what_breaks(CIRCLE), "app.report.report")
        assert (circle["tier"], circle["sources"]) == ("resolved", ["lsp", "tree-sitter"])

        square = t.what_breaks(SQUARE)
        assert square["dependants"] == []
        assert [(r["symbol"], r["tier"], r["refuted_by"]) for r in square["refuted"]] == [
            ("app.report.report", "ambiguous", ["lsp"])
        ]


def test_an_edge_only_another_source_knows_is_a_dependant_with_that_source(make_indexed_repo) -> None:
    with Tenure.open(make_indexed_repo(FILES), discover=False) as t:
        t.structural.add_source_edges("trace", "traces.jsonl", [
            SourceEdge("service:frontend", CIRCLE, "http", "observed", context="frontend", count=3,
                       first_seen="2026-11-01T00:00:00Z", last_seen="2026-11-02T00:00:00Z"),
        ])
        t.structural.add_source_edges("trace", "traces.jsonl", [
            SourceEdge("service:frontend", CIRCLE, "http", "observed", context="frontend", count=2,
                       first_seen="2026-10-30T00:00:00Z", last_seen="2026-11-01T00:00:00Z"),
        ])
        (edge,) = [e for e in t.export_edges() if e["src"] == "service:frontend"]
        assert (edge["tier"], edge["sources"], edge["count"]) == ("observed", ["trace"], 5)
        assert (edge["first_seen"], edge["last_seen"]) == ("2026-10-30T00:00:00Z", "2026-11-02T00:00:00Z")
        result = t.what_breaks(CIRCLE)
        assert dependant(result, "service:frontend")["relation"] == "http"
        assert "1 HTTP caller (1 observed)" in result["summary"]["text"]


def test_other_sources_survive_a_re_resolve_of_the_file(make_indexed_repo) -> None:
    root = make_indexed_repo(FILES)
    with Tenure.open(root, discover=False) as t:
        t.structural.replace_source_edges("lsp", "app/report.py", [
            SourceEdge("app.report.report", CIRCLE, "calls", "resolved", line=2),
        ])
        (root / "app/shapes.py").write_text((root / "app/shapes.py").read_text() + "\n\ndef extra():\n    pass\n")
        t.index()
        assert dependant(t.what_breaks(CIRCLE), "app.report.report")["tier"] == "resolved"


def test_dynamic_sites_two_sources_saw_count_once(make_indexed_repo) -> None:
    files = {"app/__init__.py": "", "app/x.py": "def f():\n    pass\n\n\ndef g(name):\n    return getattr(f, name)()\n"}
    with Tenure.open(make_indexed_repo(files), discover=False) as t:
        before = t.what_breaks("app.x.f")["summary"]["dynamic_anywhere"]
        assert before >= 1
        t.structural.replace_source_edges("bytecode", "x.class", [
            SourceEdge("app.x.g", None, "calls", "dynamic", line=6),
            SourceEdge("app.x.f", None, "calls", "dynamic", line=2),
        ])
        assert t.what_breaks("app.x.f")["summary"]["dynamic_anywhere"] == before + 1
        assert t.status()["dynamic_anywhere"]["count"] == before + 1
