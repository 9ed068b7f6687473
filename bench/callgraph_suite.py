"""Score tenure's call graph against any suite of cases in PyCG's ``{caller: [callees]}`` format.

Usage::

    python bench/callgraph_suite.py DIR [--verbose] [--jobs N] [--category C] [--json-out FILE]

A case is every directory under ``DIR`` that holds a ``callgraph.json`` (the expected graph); its
category is the path from ``DIR`` to the case's parent (``args`` of ``DIR/args/call``). The suite is
read where it is and never copied into the repository. Suites of this format: PyCG's own
``micro-benchmark/snippets`` (``bench/pycg_micro.py`` runs it with PyCG beside), SWARM-CG's
``benchmarks/javascript/swarm_js`` and ``benchmarks/python/*`` (github.com/secure-software-engineering/
SWARM-CG), and any suite written after them.

For every case the directory is copied to a temporary one (without ``callgraph.json``), then
``tenure index DIR``, ``tenure export edges --repo DIR --format pycg`` and ``--format jsonl`` run on the
copy. Scoring is PyCG's own: a call graph is the set of (caller, callee) pairs, precision and recall are
micro-averaged over the cases, a case is an exact match when its edge set is the expected one
(``exact (PyCG test)`` also needs the same node keys, as ``micro-benchmark/base.py`` asserts). A case
where tenure fails counts as zero edges and is listed.

Names are compared as the suites write them (tenure's pycg export: dotted module paths, anonymous
functions ``main.<arrow1>``, ``main.<anonymous1>``); a method named with its signature, as Java suites
write it (``pkg.Class:method(int)``), is read as ``pkg.Class.method``. Suites name the runtime's own
functions in several ways (``<builtin>.console.log``, ``<**JSArray**>.join``, ``<global>.eval``): the
line ``without runtime callees`` leaves out every expected and found edge whose callee or caller is
written in angle brackets at its start, i.e. everything but the project's own code.

Each exported edge gets its tier from the jsonl export (the best tier among the records with the same
src and dst; ``unknown`` when no record matches). Per tier: precision = correct edges of that tier /
edges of that tier; recall = true edges found at that tier / all true edges (they add up to the
overall recall).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from common import (
    TIERS,
    best_tier,
    fmt_ratio,
    parse_jsonl,
    print_table,
    ratio,
    run,
    tenure_available,
    tenure_command,
    write_json,
)

Edge = tuple[str, str]
CallGraph = dict[str, list[str]]
# `pkg.Class:method(int, String)` (Java suites) -> `pkg.Class.method`
_SIGNATURE = re.compile(r":([^:()]+)\(.*\)$")
_INDEX = re.compile(r"\.index\.")  # `nested.index.f`: a directory's index module is the directory


@dataclass(frozen=True)
class Case:
    category: str
    name: str
    path: Path
    expected: CallGraph

    @property
    def label(self) -> str:
        return f"{self.category}/{self.name}" if self.category else self.name


@dataclass
class ToolOutput:
    """What one tool produced for one case."""

    graph: CallGraph = field(default_factory=dict)
    tiers: dict[Edge, str] = field(default_factory=dict)
    error: str | None = None


@dataclass
class CaseScore:
    case: Case
    output: ToolOutput
    correct: set[Edge]
    wrong: set[Edge]
    missing: set[Edge]

    @property
    def exact(self) -> bool:
        return not self.wrong and not self.missing and self.output.error is None

    @property
    def exact_strict(self) -> bool:
        return self.exact and set(self.output.graph) == set(self.case.expected)


@dataclass
class Tool:
    name: str
    analyse: Callable[[Case], ToolOutput]
    tiered: bool = False


# --------------------------------------------------------------------------------------------------
# The suite
# --------------------------------------------------------------------------------------------------


def suite_name(name: str) -> str:
    """A name as tenure writes it: a Java suite's `pkg.Class:method(params)` is `pkg.Class.method`."""
    return _SIGNATURE.sub(r".\1", name)


def load_cases(suite: Path) -> list[Case]:
    """Every directory under `suite` holding a callgraph.json, in path order."""
    cases = []
    for expected_path in sorted(suite.rglob("callgraph.json")):
        case_dir = expected_path.parent
        raw = json.loads(expected_path.read_text())
        expected = {suite_name(caller): sorted({suite_name(c) for c in callees}) for caller, callees in raw.items()}
        category = case_dir.parent.relative_to(suite).as_posix()
        cases.append(Case("" if category == "." else category, case_dir.name, case_dir, expected))
    if not cases:
        raise SystemExit(f"no cases (directories holding a callgraph.json) under {suite}")
    return cases


def edges_of(graph: CallGraph) -> set[Edge]:
    return {(caller, callee) for caller, callees in graph.items() for callee in callees}


def score_case(case: Case, output: ToolOutput) -> CaseScore:
    expected = edges_of(case.expected)
    got = edges_of(output.graph)
    return CaseScore(case, output, got & expected, got - expected, expected - got)


def is_runtime(edge: Edge) -> bool:
    """An edge to or from what the suites name in angle brackets: builtins, globals, literal types."""
    return edge[0].startswith("<") or edge[1].startswith("<")


def without_runtime(score: CaseScore) -> CaseScore:
    def keep(edges: set[Edge]) -> set[Edge]:
        return {e for e in edges if not is_runtime(e)}

    return CaseScore(score.case, score.output, keep(score.correct), keep(score.wrong), keep(score.missing))


# --------------------------------------------------------------------------------------------------
# tenure
# --------------------------------------------------------------------------------------------------


def make_tenure(cmd: list[str], timeout: float) -> Callable[[Case], ToolOutput]:
    def analyse(case: Case) -> ToolOutput:
        with tempfile.TemporaryDirectory(prefix="tenure-suite-") as tmp:
            work = Path(tmp) / case.name
            shutil.copytree(case.path, work, ignore=shutil.ignore_patterns("callgraph.json"))
            return run_tenure_on(cmd, work, timeout)

    return analyse


def run_tenure_on(cmd: list[str], work: Path, timeout: float) -> ToolOutput:
    indexed = run([*cmd, "index", str(work)], timeout=timeout)
    if not indexed.ok:
        return ToolOutput(error=f"index {indexed.describe_failure()}")
    exported = run([*cmd, "export", "edges", "--repo", str(work), "--format", "pycg"], timeout=timeout)
    if not exported.ok:
        return ToolOutput(error=f"export pycg {exported.describe_failure()}")
    try:
        graph = parse_pycg_json(exported.stdout)
    except ValueError as exc:
        return ToolOutput(error=f"export pycg: unreadable output ({exc})")
    rows = run([*cmd, "export", "edges", "--repo", str(work), "--format", "jsonl"], timeout=timeout)
    tiers = tiers_for(edges_of(graph), parse_jsonl(rows.stdout)) if rows.ok else {}
    return ToolOutput(graph=graph, tiers=tiers)


def parse_pycg_json(text: str) -> CallGraph:
    """Parse a ``{caller: [callees]}`` document, tolerating log lines around the JSON object."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        start, end = text.find("{"), text.rfind("}")
        if start < 0 or end < start:
            raise ValueError("no JSON object on stdout") from None
        data = json.loads(text[start : end + 1])
    if not isinstance(data, dict):
        raise ValueError(f"expected an object, got {type(data).__name__}")
    return {str(caller): sorted({str(callee) for callee in callees}) for caller, callees in data.items()}


def tiers_for(edges: Iterable[Edge], rows: list[dict]) -> dict[Edge, str]:
    """The best tier recorded for each exported (caller, callee) pair in the jsonl export, whose names
    are tenure's (`nested/index.f`): matched as the pycg export writes them (`nested.f`)."""
    seen: dict[Edge, list[str]] = defaultdict(list)
    for row in rows:
        if row.get("src") is not None and row.get("dst") is not None:
            seen[(_as_pycg(str(row["src"])), _as_pycg(str(row["dst"])))].append(str(row.get("tier", "unknown")))
    return {edge: best_tier(seen.get(edge, ["unknown"])) for edge in edges}


def _as_pycg(name: str) -> str:
    """A path-scheme name as the pycg export writes it (export.pycg_name, without the symbol table)."""
    name = name.replace(".[", "[")
    return _INDEX.sub(".", name.replace("/", ".")) if "/" in name else name


def run_tool(tool: Tool, cases: list[Case], jobs: int) -> list[CaseScore]:
    def one(case: Case) -> CaseScore:
        try:
            output = tool.analyse(case)
        except Exception as exc:  # noqa: BLE001 - a crashing case must not stop the benchmark
            output = ToolOutput(error=f"{type(exc).__name__}: {exc}")
        return score_case(case, output)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, cases))


# --------------------------------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------------------------------


def totals(scores: list[CaseScore]) -> tuple[int, int, int]:
    return (sum(len(s.correct) for s in scores), sum(len(s.wrong) for s in scores),
            sum(len(s.missing) for s in scores))


def precision_recall(scores: list[CaseScore]) -> tuple[float | None, float | None]:
    tp, fp, fn = totals(scores)
    return ratio(tp, tp + fp), ratio(tp, tp + fn)


def overall_row(name: str, scores: list[CaseScore]) -> list[object]:
    tp, fp, fn = totals(scores)
    p, r = precision_recall(scores)
    failed = sum(1 for s in scores if s.output.error)
    return [name, f"{len(scores) - failed}/{len(scores)}", tp + fp, tp, fp, fn, fmt_ratio(p), fmt_ratio(r),
            sum(s.exact for s in scores), sum(s.exact_strict for s in scores)]


OVERALL_HEADERS = ["tool", "cases run", "edges", "correct", "wrong", "missing", "precision", "recall",
                   "exact (edges)", "exact (PyCG test)"]


def print_overall(results: dict[str, list[CaseScore]], extra_rows: Iterable[list[object]] = ()) -> None:
    rows = [overall_row(name, scores) for name, scores in results.items()]
    rows += [overall_row(f"{name}, without runtime callees", [without_runtime(s) for s in scores])
             for name, scores in results.items()
             if any(is_runtime(e) for s in scores for e in edges_of(s.case.expected))]
    print_table("Overall (micro-averaged over (caller, callee) pairs)", OVERALL_HEADERS, [*rows, *extra_rows])


def print_per_category(results: dict[str, list[CaseScore]]) -> None:
    first = next(iter(results.values()))
    categories = sorted({s.case.category for s in first})
    headers = ["category", "cases", "true edges"]
    for name in results:
        headers += [f"{name} P", f"{name} R", f"{name} exact"]
    rows = []
    for category in categories:
        in_cat = [s for s in first if s.case.category == category]
        row: list[object] = [category, len(in_cat), sum(len(edges_of(s.case.expected)) for s in in_cat)]
        for scores in results.values():
            subset = [s for s in scores if s.case.category == category]
            p, r = precision_recall(subset)
            row += [fmt_ratio(p, 2), fmt_ratio(r, 2), f"{sum(s.exact for s in subset)}/{len(subset)}"]
        rows.append(row)
    print_table("Per category", headers, rows)


def print_per_tier(name: str, scores: list[CaseScore]) -> None:
    true_total = sum(len(edges_of(s.case.expected)) for s in scores)
    counts: dict[str, list[int]] = {tier: [0, 0] for tier in TIERS}  # tier -> [edges, correct]
    for s in scores:
        for edge in s.correct | s.wrong:
            tier = s.output.tiers.get(edge, "unknown")
            counts.setdefault(tier, [0, 0])
            counts[tier][0] += 1
            counts[tier][1] += edge in s.correct
    rows = [[tier, edges, correct, edges - correct, fmt_ratio(ratio(correct, edges)),
             fmt_ratio(ratio(correct, true_total))]
            for tier, (edges, correct) in counts.items() if edges or tier != "unknown"]
    headers = ["tier", "edges", "correct", "wrong", "precision", "recall share"]
    print_table(f"{name}: per tier ({true_total} true edges)", headers, rows)
    resolved_wrong = counts["resolved"][0] - counts["resolved"][1]
    print(f"wrong edges at tier 'resolved': {resolved_wrong} (target: 0)")


def print_failures(name: str, scores: list[CaseScore]) -> None:
    failed = [s for s in scores if s.output.error]
    if failed:
        print(f"\n{name}: {len(failed)} case(s) failed (counted as zero edges):")
        for s in failed:
            print(f"  {s.case.label}: {s.output.error}")


def print_differences(name: str, scores: list[CaseScore]) -> None:
    print(f"\n{name}: wrong and missing edges per case")
    for s in scores:
        if s.exact:
            continue
        print(f"  {s.case.label}" + (f"  [failed: {s.output.error}]" if s.output.error else ""))
        for src, dst in sorted(s.wrong):
            tier = s.output.tiers.get((src, dst))
            print(f"    wrong   {src} -> {dst}" + (f"  ({tier})" if tier else ""))
        for src, dst in sorted(s.missing):
            print(f"    missing {src} -> {dst}")


def summary_json(results: dict[str, list[CaseScore]]) -> dict:
    payload = {}
    for name, scores in results.items():
        tp, fp, fn = totals(scores)
        p, r = precision_recall(scores)
        payload[name] = {
            "precision": p, "recall": r, "correct": tp, "wrong": fp, "missing": fn,
            "exact": sum(s.exact for s in scores), "exact_strict": sum(s.exact_strict for s in scores),
            "failed": [s.case.label for s in scores if s.output.error],
        }
    return payload


def report(results: dict[str, list[CaseScore]], tools: list[Tool], verbose: bool, json_out: Path | None,
           extra_rows: Iterable[list[object]] = ()) -> None:
    print_overall(results, extra_rows)
    print_per_category(results)
    for tool in tools:
        if tool.tiered:
            print_per_tier(tool.name, results[tool.name])
    for name, scores in results.items():
        print_failures(name, scores)
        if verbose:
            print_differences(name, scores)
    write_json(json_out, summary_json(results))


# --------------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------------


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """The options of a run over a suite's cases (shared with bench/pycg_micro.py)."""
    parser.add_argument("--tenure", help="command that runs the tenure CLI (default: tenure on PATH)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="cases run in parallel")
    parser.add_argument("--timeout", type=float, default=300, help="seconds per command")
    parser.add_argument("--category", action="append", help="only these categories (repeatable)")
    parser.add_argument("--verbose", "-v", action="store_true", help="list wrong and missing edges")
    parser.add_argument("--json-out", type=Path, help="also write the figures as JSON")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suite", type=Path, help="directory whose subdirectories hold callgraph.json cases")
    add_run_options(parser)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    cases = load_cases(args.suite)
    if args.category:
        cases = [case for case in cases if case.category in set(args.category)]
    print(f"{args.suite}: {len(cases)} cases")
    cmd = tenure_command(args.tenure)
    if not tenure_available(cmd):
        raise SystemExit(f"tenure is not runnable ({' '.join(cmd)} --help failed)")
    tool = Tool("tenure", make_tenure(cmd, args.timeout), tiered=True)
    report({tool.name: run_tool(tool, cases, args.jobs)}, [tool], args.verbose, args.json_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
