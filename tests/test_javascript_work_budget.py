"""A JavaScript file's analysis has a work budget as well as an evaluation budget: one statement can
cost without bound (hono's CommonJS jsx/dom: a require cycle between its hooks and its renderer, whose
functions are replayed by their callers over ever longer paths through their parameters, ran for more
than ten minutes). Spent, the analysis stops, and every file that read it is stored `partial` with the
reason, its answers lower bounds, as a spent evaluation budget does."""

from __future__ import annotations

from tenure import Tenure
from tenure.structural.resolve.javascript import analysis

# hono's pattern, small: two modules requiring each other, the renderer walking a tree of nodes through
# its parameters (children of children, their elements' styles), the hooks calling it back.
CYCLE = {
    "hooks.js": """var render = require("./render");
const useState = (initial) => {
  const [, node] = render.buildDataStack.at(-1);
  const update = (value) => { render.update(node.c, node); };
  return [initial, update];
};
module.exports = { useState };
""",
    "render.js": """var hooks = require("./hooks");
const buildDataStack = [];
const update = (context, node) => { build(context, node, node.vC); apply(node); };
const build = (context, node, children) => {
  for (const child of children) {
    child.pC = node.vC;
    build(context, child, child.vC);
    child.f(context);
  }
};
const apply = (node) => {
  node.vC.forEach((c) => apply(c));
  node.e.style.setProperty("color", "red");
};
module.exports = { update, buildDataStack, build };
""",
    "client.js": """var hooks = require("./hooks");
var render = require("./render");
const [count, setCount] = hooks.useState(0);
setCount(1);
render.update({}, { vC: [], e: {} });
""",
}


def _calls(t: Tenure) -> set[tuple[str, str]]:
    return {(e["path"], e["dst"]) for e in t.export_edges() if e["relation"] == "calls"}


def test_a_require_cycle_within_its_work_budget_is_resolved_whole(make_repo) -> None:
    with Tenure.open(make_repo(CYCLE), discover=False) as t:
        report = t.index()
        assert report.resolved_partly == [] and report.unresolved == []
        assert {("client.js", "render.update"), ("client.js", "hooks.useState.update"),
                ("hooks.js", "render.update"), ("render.js", "render.build")} <= _calls(t)


def test_a_spent_work_budget_stops_the_analysis_and_marks_its_readers_partial(make_repo, monkeypatch) -> None:
    monkeypatch.setattr(analysis, "WORK_PER_STATEMENT", 0)
    monkeypatch.setattr(analysis, "WORK_BASE", 60)  # (as a pathological module would spend it)
    with Tenure.open(make_repo(CYCLE), discover=False) as t:
        report = t.index()
        assert report.unresolved == []  # (stopped, not failed: the edges found are kept)
        partly = dict(report.resolved_partly)
        assert "render: work budget spent with" in partly["client.js"]
        assert "still to evaluate" in partly["client.js"]
        assert ("client.js", "render.update") in _calls(t)
        summary = t.what_breaks("render.update")["summary"]
        assert summary["lower_bound"]
        assert ("client.js", "partial") in {(g["path"], g["status"]) for g in summary["unresolved_files"]}
        assert "client.js" in {g["path"] for g in t.status()["unresolved_files"]}

