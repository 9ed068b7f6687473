"""Recall and precision of the graph on the annotated fixtures (tests/fixtures/graph/), per case.

    python bench/graph_fixtures.py [--prefix java_] [--classes] [--relation calls] [--json-out FILE]

Each annotation says which edges the language's semantics give on its line (test_graph_fixtures.py
describes them); `known-wrong` markers are ignored here: what counts is what the language gives.
An expected edge is (path, line, relation, target); every edge tenure exports for a fixture counts
towards precision, on an annotated line or not. Tiers are reported, not scored: a right target
`ambiguous` among wrong ones costs precision, not recall.

`--classes` compiles each case with javac first (into target/classes), so the graph is tree-sitter's
merged with the class files'; edges a checker ruled out are left out, and so are bytecode's dispatch
candidates (`ambiguous` edges to every implementation of a virtual call: a different claim from "this
line calls that method", which the annotations make).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from common import REPO, fmt_ratio, print_table, ratio, write_json

sys.path.insert(0, str(REPO))
from tenure import Tenure  # noqa: E402
from tenure.structural.graph import DISPATCH_DETAIL  # noqa: E402
from tests.graph_annotations import expectations  # noqa: E402

CASES = REPO / "tests" / "fixtures" / "graph"
Edge = tuple[str, int, str, str]  # (path, line, relation, target: "?" when unknown)


def expected_edges(case: Path, relation: str) -> set[Edge]:
    return {(path, line, rel, target) for (path, line, rel), a in expectations(case).items()
            if rel == relation for target in a.right.targets}


def found_edges(case: Path, relation: str, classes: bool, work: Path) -> dict[Edge, str]:
    """Every edge of the relation tenure gives the case, with its tier."""
    repo = work / case.name
    shutil.copytree(case, repo)
    if classes:
        sources = sorted(str(p) for p in repo.rglob("*.java"))
        subprocess.run(["javac", "-d", str(repo / "target" / "classes"), *sources], check=True, capture_output=True)
    found: dict[Edge, str] = {}
    with Tenure.open(repo, discover=False) as t:
        t.index()
        for e in t.export_edges():
            if e["relation"] != relation or (e["refuted_by"] and e["tier"] != "resolved"):
                continue
            if e["sources"] == ["bytecode"] and e["detail"].startswith(DISPATCH_DETAIL):
                continue
            found[(e["path"], e["line"], e["relation"], e["dst"] or "?")] = e["tier"]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--prefix", default="java_", help="cases whose folder name starts so (default java_)")
    parser.add_argument("--classes", action="store_true", help="compile each case with javac first")
    parser.add_argument("--relation", default="calls")
    parser.add_argument("--verbose", action="store_true", help="list every missed and every wrong edge")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    if args.classes and shutil.which("javac") is None:
        sys.exit("--classes needs javac on PATH")
    cases = sorted(p for p in CASES.iterdir() if p.is_dir() and p.name.startswith(args.prefix))
    rows, report = [], {}
    total = Counter()
    tiers: Counter[tuple[str, bool]] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            expected = expected_edges(case, args.relation)
            found = found_edges(case, args.relation, args.classes, Path(tmp))
            right = expected & found.keys()
            for edge, tier in found.items():
                tiers[tier, edge in expected] += 1
            counts = {"expected": len(expected), "found": len(found), "right": len(right)}
            total.update(counts)
            report[case.name] = {**counts, "missed": sorted(map(list, expected - found.keys())),
                                 "wrong": sorted(map(list, found.keys() - expected))}
            rows.append([case.name, len(expected), len(found), len(right), fmt_ratio(ratio(len(right), len(expected))),
                         fmt_ratio(ratio(len(right), len(found)))])
            if args.verbose:
                for edge in sorted(expected - found.keys()):
                    print(f"  missed {case.name}/{edge[0]}:{edge[1]} {edge[3]}")
                for edge in sorted(found.keys() - expected):
                    print(f"  wrong  {case.name}/{edge[0]}:{edge[1]} {edge[3]} [{found[edge]}]")
    rows.append(["all", total["expected"], total["found"], total["right"],
                 fmt_ratio(ratio(total["right"], total["expected"])), fmt_ratio(ratio(total["right"], total["found"]))])
    what = "tree-sitter + class files" if args.classes else "source only"
    print_table(f"{args.relation} edges of the {args.prefix}* fixtures, {what}",
                ["case", "expected", "found", "right", "recall", "precision"], rows)
    by_tier = [[t, tiers[t, True], tiers[t, False], fmt_ratio(ratio(tiers[t, True], tiers[t, True] + tiers[t, False]))]
               for t in sorted({t for t, _ in tiers})]
    print_table("found edges by tier", ["tier", "right", "wrong", "precision"], by_tier)
    write_json(args.json_out, {"relation": args.relation, "classes": args.classes, "cases": report,
                               "recall": ratio(total["right"], total["expected"]),
                               "precision": ratio(total["right"], total["found"])})


if __name__ == "__main__":
    main()
