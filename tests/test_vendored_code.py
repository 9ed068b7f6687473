"""Vendored and minified code (a library's header, a vendor directory, a minified line) is indexed for
its symbols and its calls by name, not put through the JavaScript value analysis: the index report lists
each such file with why, `status` counts it, its edges are no stronger than names can tell, and an answer
counting calls of a name it uses or defines is a lower bound that names it. `[index] full_analysis` in
tenure.toml forces the full analysis of a path."""

from __future__ import annotations

from dataclasses import replace

import pytest
from typer.testing import CliRunner

from tenure import Tenure
from tenure.cli import app
from tenure.config import ConfigError
from tenure.namespace.tiers import Tier
from tenure.structural import vendored
from tenure.structural.vendored import read_cheaply_because
from tests.gaps_support import unresolved_behind

VENDORED = "static/vendor/tiny.js"
# A library's file as projects ship it: its header names it; `f()` reaches helper only through a value.
PROJECT = {
    VENDORED: ("/*! jQuery v3.7.1 | (c) OpenJS Foundation and other contributors */\n"
               "function helper() { return 1; }\n"
               "function jq(sel) { var f = helper; f(); render(sel); return new Widget(); }\n"),
    "src/app.js": ("export function render(x) { return x; }\n"
                   "export class Widget { draw() { render(1); } }\n"),
}
WHY = "vendored: jquery 3.7.1 header; calls linked by name only"
VENDORING = vendored.vendoring()


def _edges_from(t: Tenure, path: str) -> set[tuple[str, str, str]]:
    return {(e["relation"], e["dst"] or "", e["tier"]) for e in t.export_edges() if e["path"] == path}


def test_a_vendored_file_is_listed_with_why_and_linked_by_name_only(make_repo) -> None:
    root = make_repo(PROJECT)
    with Tenure.open(root, discover=False) as t:
        report = t.index()
        assert report.read_cheaply == [(VENDORED, WHY)]
        assert report.resolved_partly == [] and report.unresolved == []
        assert all(t.find_symbol(f"static/vendor/tiny.{name}").unique for name in ("helper", "jq"))  # (indexed)
        edges = _edges_from(t, VENDORED)
        assert ("calls", "src/app.render", Tier.INFERRED) in edges
        assert ("instantiates", "src/app.Widget", Tier.INFERRED) in edges
        assert not any(dst == "static/vendor/tiny.helper" for _, dst, _ in edges)  # (only a value analysis sees it)
        assert {tier for *_, tier in edges} <= {Tier.INFERRED, Tier.AMBIGUOUS, Tier.DYNAMIC}
        assert [(g["path"], g["status"], g["reason"]) for g in t.status()["unresolved_files"]] == [
            (VENDORED, "read cheaply", WHY)]
    runner = CliRunner()
    status = runner.invoke(app, ["status", "--repo", str(root)])
    assert "1 file not fully resolved (1 read cheaply: vendored, minified or too large code" in (
        status.output)
    index = runner.invoke(app, ["index", str(make_repo(PROJECT, "first"))])  # (a run lists what it resolves)
    assert "1 file read cheaply (vendored or minified code" in index.output, index.output


def test_what_breaks_on_a_name_a_vendored_file_uses_or_defines_is_a_lower_bound_naming_it(make_repo) -> None:
    with Tenure.open(make_repo(PROJECT), discover=False) as t:
        t.index()
        for name in ("render", "helper"):
            summary = t.what_breaks(name)["summary"]
            assert summary["lower_bound"], name
            assert [(g["path"], g["status"]) for g in summary["unresolved_files"]] == [(VENDORED, "read cheaply")]
            assert (f"1 file that names .{name} was not fully resolved (1 read cheaply: vendored, minified or too "
                    f"large code, calls linked by name only or not at all: {VENDORED})") in " ".join(summary["reasons"])
            assert "1 file naming it not fully resolved" in summary["text"]
            assert "complete" not in summary["text"]


def test_full_analysis_in_tenure_toml_puts_a_vendored_path_through_the_value_analysis(make_repo) -> None:
    root = make_repo(PROJECT)
    with Tenure.open(root, discover=False) as t:
        t.index()
    (root / "tenure.toml").write_text('[index]\nfull_analysis = ["static/vendor/*"]\n')
    with Tenure.open(root, discover=False) as t:
        report = t.index()  # (the file is unchanged: the setting alone makes its facts again)
        assert report.read_cheaply == []
        assert ("calls", "static/vendor/tiny.helper", Tier.INFERRED) in _edges_from(t, VENDORED)
        assert t.status()["unresolved_files"] == []
        assert t.what_breaks("helper")["summary"]["unresolved_files"] == []


@pytest.mark.parametrize(("toml", "said"), [
    ('[index]\nfull_analysis = "static/vendor/*"\n', "[index] full_analysis must be a list of path globs"),
    ("index = 3\n", "`index` must be a table ([index])"),  # (was read as no [index] at all)
])
def test_a_full_analysis_setting_that_is_no_list_of_globs_is_refused(make_repo, toml: str, said: str) -> None:
    root = make_repo({**PROJECT, "tenure.toml": toml})
    with Tenure.open(root, discover=False) as t:
        try:
            t.index()
        except ConfigError as exc:
            assert said in str(exc)
        else:
            raise AssertionError("a string where a list belongs was taken")
    refused = CliRunner().invoke(app, ["index", str(root)])
    assert refused.exit_code == 2 and said in refused.output


def test_vendored_code_is_told_by_header_path_or_a_long_line_and_only_in_the_table_s_languages() -> None:
    plain = b"export function f() { return 1 }\n"
    assert read_cheaply_because("javascript", "src/app.js", plain) == ""
    assert read_cheaply_because("javascript", "lib/select2.js", b"/*!\n * Select2 4.0.13\n */\n" + plain) == (
        "vendored: select2 4.0.13 header")
    assert read_cheaply_because("javascript", "dist/app.min.js", plain) == "vendored: path matches *.min.js"
    assert read_cheaply_because("typescript", "web/vendor/x.ts", plain) == "vendored: path matches */vendor/*"
    assert read_cheaply_because("javascript", "dist/bundle.js", b"var a=1;" * 300) == (
        "minified: a line of 2,000 characters or more")
    names = ", ".join(f"a{n} as b{n}" for n in range(300))
    assert read_cheaply_because("typescript", "build/index.d.ts", f"export {{ {names} }};\n".encode()) == ""
    assert read_cheaply_because("python", "pkg/vendor/six.py", plain) == ""  # (its resolver has no cheaper pass)
    assert read_cheaply_because("javascript", "dist/app.min.js", plain, ("dist/*",)) == ""


# A generated table of calls, in a project with the module it calls.
TABLE = {
    "helpers.py": "def g(x):\n    return x\n",
    "table.py": ("from helpers import g\n\n\nclass Row(object):\n    def cell(self):\n        return g(1)\n\n\n"
                 "def build():\n    return Row().cell() + g(2) + g(3)\n"),
}

def test_a_file_too_large_is_indexed_for_its_symbols_and_answers_on_names_it_calls_are_a_lower_bound(
        make_repo, monkeypatch) -> None:
    # a file of hundreds of thousands of calls (a generated table: 300,000 cost 6 s and 500 MB in one worker)
    # is cut at a number of syntax nodes, here made small: its symbols, imports and bases kept, no call linked
    monkeypatch.setattr(vendored, "vendoring", lambda: replace(VENDORING, max_syntax_nodes=40))
    with Tenure.open(make_repo(TABLE), discover=False) as t:
        report = t.index()
        nodes = int(report.read_cheaply[0][1].split()[2].replace(",", ""))
        assert report.read_cheaply == [
            ("table.py", f"too large: {nodes:,} syntax nodes (more than 40); calls not linked")]
        assert all(t.find_symbol(f"table.{name}").unique for name in ("Row", "Row.cell", "build"))
        assert {relation for relation, _, _ in _edges_from(t, "table.py")} == {"imports"}
        assert unresolved_behind(t, "helpers.g") == [("table.py", "read cheaply")]


def test_a_java_file_too_large_links_no_call_and_is_said_to_be_read_cheaply(make_repo, monkeypatch) -> None:
    # (the Java resolver has edges of its own: the cut reached it too)
    monkeypatch.setattr(vendored, "vendoring", lambda: replace(VENDORING, max_syntax_nodes=40))
    root = make_repo({
        "src/Helper.java": "class Helper { static int g() { return 1; } }\n",
        "src/Table.java": ("class Table {\n  int build() {\n"
                           "    return Helper.g() + Helper.g() + Helper.g() + Helper.g();\n  }\n"
                           "  int more() {\n    return Helper.g() + build();\n  }\n}\n"),
    })
    with Tenure.open(root, discover=False) as t:
        report = t.index()
        assert [path for path, _ in report.read_cheaply] == ["src/Table.java"]
        assert "calls" not in {relation for relation, _, _ in _edges_from(t, "src/Table.java")}
