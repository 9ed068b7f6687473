"""Where a full index's CPU goes, stage by stage, this tree against a baseline build, alternating (issue 32,
point 1: the whole-index figure of bench/index_vs_peer.py moves ±12% run to run on a 2-core machine, more
than most single changes; a stage's own CPU, measured in the same run as the baseline's, moves far less).

The tree is the copy bench/index_vs_peer.py indexes (the `.py` and `.js` files of Django 5.1.4's sdist,
committed once; `--path` another). Each run is a fresh process of one build that indexes it from scratch
in-process (`Tenure.index`, as `tenure index` runs it, with the bench's switches: no language server,
knowledge build or detached embedding) with a clock around each stage it reaches:

- parse: `Indexer._store_parsed` (the parse workers and the storing of their facts);
- resolve: `Indexer._resolve` (the resolve workers and the writes of their edges), of it
  `ResolutionWriter.flush`;
- sources: the after-index sources (`run_after_index`);
- history: `Tenure.read_history` (git read, mapped, episodes, rules);
- namespace: `intent.prepare` (words index, phrase ladder) and `Tenure.schedule_embedding` (elements'
  terms);
- the rest of `Tenure.index` and the process's start apart.

Each stage's CPU is the main process's (`time.process_time`) and, apart, that of the worker processes it
waited for (`RUSAGE_CHILDREN`). A stage a build does not have is shown as "-". Medians over the runs, and
the per-run difference of this tree's total to the baseline's run beside it; the builds take turns at
running first in a pair.

    python bench/index_vs_peer.py --runs 1     # once, to make the Django copy (or give --path)
    python bench/index_stages.py [--path DIR] [--runs 5] --baseline 8f001f0c [--json-out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import CACHE_DIR, REPO, baseline_src, compiled, print_table, write_json  # noqa: E402
from index_vs_peer import the_copy  # noqa: E402

# (stage, module, attribute path): the clock is put around each where the build has it
STAGES = [
    ("parse", "tenure.structural.indexer", "Indexer._store_parsed"),
    ("resolve", "tenure.structural.indexer", "Indexer._resolve"),
    ("  of it: edges written", "tenure.structural.store", "ResolutionWriter.flush"),
    ("sources", "tenure.structural.sources", "run_after_index"),
    ("history", "tenure.api", "Tenure.read_history"),
    ("namespace: words, ladder", "tenure.namespace.intent", "prepare"),
    ("namespace: elements' terms", "tenure.api", "Tenure.schedule_embedding"),
]

CHILD = """
import functools, importlib, json, resource, sys, time
started = time.process_time()
from pathlib import Path
from tenure.api import Tenure

def children():
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime

spent = {}
def clocked(stage, fn):
    @functools.wraps(fn)
    def run(*args, **kwargs):
        own, waited = time.process_time(), children()
        try:
            return fn(*args, **kwargs)
        finally:
            was = spent.setdefault(stage, [0.0, 0.0])
            was[0] += time.process_time() - own
            was[1] += children() - waited
    return run

for stage, module, path in json.loads(sys.argv[2]):
    owner = importlib.import_module(module)
    *outer, name = path.split(".")
    for part in outer:
        owner = getattr(owner, part, None)
    if owner is not None and hasattr(owner, name):
        setattr(owner, name, clocked(stage, getattr(owner, name)))
before = time.process_time()
with Tenure.open(Path(sys.argv[1])) as tenure:
    tenure.index()
print(json.dumps({"stages": spent, "start": before - started, "index": time.process_time() - before,
                  "workers": children()}))
"""


def one_run(src: Path, copy: Path) -> dict:
    shutil.rmtree(copy / ".tenure", ignore_errors=True)
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run([sys.executable, "-c", CHILD, str(copy), json.dumps(STAGES)], env=env, cwd=copy,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def rows_of(name: str, runs: list[dict]) -> list[list[str]]:
    def median(values: list[float]) -> str:
        return f"{statistics.median(values):.2f}" if values else "-"

    def stage(label: str, which: int) -> list[float]:
        return [r["stages"][label][which] for r in runs if label in r["stages"]]

    rows = []
    for label, *_ in STAGES:
        rows.append([name, label, median(stage(label, 0)), median(stage(label, 1))])
    top = [label for label, *_ in STAGES if not label.startswith(" ")]
    rest = [r["index"] - sum(r["stages"].get(label, [0.0])[0] for label in top) for r in runs]
    rows.append([name, "rest of Tenure.index", median(rest), ""])
    rows.append([name, "process start, imports", median([r["start"] for r in runs]), ""])
    rows.append([name, "total", median([r["start"] + r["index"] for r in runs]),
                 median([r["workers"] for r in runs])])
    return rows


def total(run: dict) -> float:
    return run["start"] + run["index"] + run["workers"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--path", type=Path, help="the tree (default: Django 5.1.4's sdist)")
    parser.add_argument("--runs", type=int, default=5, help="alternating pairs")
    parser.add_argument("--baseline", required=True, help="git revision of tenure to run beside this tree")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]

    _, copy = the_copy(args.path)
    builds = {"tenure": REPO / "src",
              f"tenure@{args.baseline}": baseline_src(args.baseline, CACHE_DIR / "index_stages" / args.baseline)}
    for src in builds.values():
        compiled(src)
    print(f"{copy}; load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")

    runs: dict[str, list[dict]] = {name: [] for name in builds}
    for i in range(args.runs):
        # (each pair in the other order: a pair's first run was seen to be the slower one)
        for name, src in list(builds.items())[:: 1 if i % 2 == 0 else -1]:
            runs[name].append(one_run(src, copy))
            print(f"  run {i + 1} {name}: {total(runs[name][-1]):.1f} s CPU", file=sys.stderr)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")

    rows = [row for name, measured in runs.items() for row in rows_of(name, measured)]
    print_table(f"CPU seconds of a full index of {copy}, medians of {args.runs} alternating runs",
                ["build", "stage", "main process", "its workers"], rows)
    mine, theirs = runs.values()
    differences = [total(a) - total(b) for a, b in zip(mine, theirs, strict=True)]
    print(f"this tree - baseline, whole process tree, per pair: {', '.join(f'{d:+.1f}' for d in differences)} s "
          f"(median {statistics.median(differences):+.1f} s)")
    write_json(args.json_out, runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
