"""The PyCG micro-benchmark per tier, before and after LSP enrichment (basedpyright).

Usage::

    python bench/lsp_pycg.py [--suite DIR] [--category NAME ...] [--jobs N] [--verbose] [--json-out FILE]

The suite, the case loading and the scoring are bench/pycg_micro.py's (imported, not copied): every
case is copied to a temporary directory and indexed; "tenure (tree-sitter)" exports its graph as is,
"tenure + lsp" first runs ``tenure enrich`` on the copy (basedpyright checks every inferred and
ambiguous call site, then the references of every function). Precision and recall are micro-averaged
over (caller, callee) pairs; per tier, precision = correct edges of that tier / edges of that tier.

Targets (issue 5): ``resolved`` precision >= 0.99 and overall recall above PyCG 0.0.7's 0.932 measured
on this machine (run ``python bench/pycg_micro.py`` for the PyCG peer in the same run).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from common import run, tenure_available, tenure_command, write_json
from pycg_micro import (
    DEFAULT_PYCG_GIT,
    Case,
    CaseScore,
    Tool,
    ToolOutput,
    extract_suite,
    load_cases,
    make_tenure,
    print_differences,
    print_failures,
    print_overall,
    print_per_tier,
    run_tenure_on,
    run_tool,
    summary_json,
)

RESOLVED_PRECISION_TARGET = 0.99
PYCG_RECALL = 0.932


def make_enriched(cmd: list[str], timeout: float) -> Callable[[Case], ToolOutput]:
    def analyse(case: Case) -> ToolOutput:
        with tempfile.TemporaryDirectory(prefix="tenure-lsp-pycg-") as tmp:
            work = Path(tmp) / case.name
            shutil.copytree(case.path, work, ignore=shutil.ignore_patterns("callgraph.json"))
            indexed = run([*cmd, "index", str(work)], timeout=timeout)
            if not indexed.ok:
                return ToolOutput(error=f"index {indexed.describe_failure()}")
            enriched = run([*cmd, "enrich", "--repo", str(work), "--json"], timeout=timeout)
            if not enriched.ok or '"failed": ""' not in enriched.stdout:
                return ToolOutput(error=f"enrich {enriched.describe_failure()} {enriched.stdout[-300:]}")
            return run_tenure_on(cmd, work, timeout)

    return analyse


def resolved_precision(scores: list[CaseScore]) -> tuple[int, int]:
    edges = correct = 0
    for s in scores:
        for edge in s.correct | s.wrong:
            if s.output.tiers.get(edge) == "resolved":
                edges += 1
                correct += edge in s.correct
    return correct, edges


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", type=Path, help="PyCG's micro-benchmark/ directory")
    parser.add_argument("--pycg-git", type=Path, default=DEFAULT_PYCG_GIT)
    parser.add_argument("--category", action="append", help="only these categories (repeatable)")
    parser.add_argument("--tenure", help="argv prefix running tenure (default: $TENURE_CMD or `tenure`)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--verbose", action="store_true", help="list wrong and missing edges per case")
    parser.add_argument("--after-only", action="store_true", help="skip the tree-sitter-only run")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    os.environ["TENURE_ENRICH"] = "off"  # `tenure index` must not start its own background run here
    cases = load_cases(args.suite or extract_suite(args.pycg_git))
    if args.category:
        cases = [c for c in cases if c.category in set(args.category)]
    cmd = tenure_command(args.tenure)
    if not tenure_available(cmd):
        raise SystemExit(f"tenure is not runnable: {' '.join(cmd)} --help failed")
    print(f"PyCG micro-benchmark: {len(cases)} cases, before and after `tenure enrich` (basedpyright)")
    tools = [Tool("tenure (tree-sitter)", make_tenure(cmd, args.timeout), tiered=True),
             Tool("tenure + lsp", make_enriched(cmd, args.timeout), tiered=True)][int(args.after_only):]
    results = {}
    for tool in tools:
        print(f"running {tool.name} ...", file=sys.stderr, flush=True)
        results[tool.name] = run_tool(tool, cases, args.jobs)
    print_overall(results)
    for tool in tools:
        print_per_tier(tool.name, results[tool.name])
        print_failures(tool.name, results[tool.name])
        if args.verbose:
            print_differences(tool.name, results[tool.name])
    correct, edges = resolved_precision(results["tenure + lsp"])
    tp = sum(len(s.correct) for s in results["tenure + lsp"])
    true = sum(len(s.correct) + len(s.missing) for s in results["tenure + lsp"])
    precision = correct / edges if edges else 0.0
    print(f"\ntargets: resolved precision {precision:.3f} ({correct}/{edges}) >= {RESOLVED_PRECISION_TARGET}: "
          f"{'met' if precision >= RESOLVED_PRECISION_TARGET else 'NOT met'}; overall recall {tp / true:.3f} > "
          f"PyCG {PYCG_RECALL}: {'met' if tp / true > PYCG_RECALL else 'NOT met'}")
    write_json(args.json_out, summary_json(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
