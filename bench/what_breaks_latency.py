"""`what-breaks` warm latency through the Python API on an indexed project, beside a baseline build,
alternating, and whether the two builds' answers are the same.

    python bench/what_breaks_latency.py --path DIR [--baseline SRC:DIR2] [--samples 50] [--seed 0]
                                        [--rounds 5] [--answers-out FILE] [--json-out FILE]

DIR must be indexed (`tenure index DIR`). The symbols are index_speed.py's: the same seed draws the same
`--samples` symbols from those with an incoming edge, and the 5 most depended-on are timed apart. Each
round asks, in a fresh process per build, one warm-up question and then each symbol once at depth 1
(`Tenure.what_breaks`, as an MCP server answers): wall and CPU (the thread's) per question. Printed per
build: p50 / p95 / max over the sample (the median of the rounds' figures) and each hot symbol's median.

`--baseline SRC:DIR2`: another build's `src/` (e.g. a `git worktree` of an older commit) and its own
indexed copy of the project (`cp -a DIR DIR2` before either build opens it: an older build refuses a
database a newer one migrated). The builds alternate (A, B, A, B …) so both meet the same load, and
their full JSON answers of the first round (but `freshness`, which says when it was asked) are compared
symbol by symbol: how many changed, and where. Nothing is asserted: the script prints figures.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO, percentile, print_table, to_builtins, write_json  # noqa: E402

HOT = 5


def ask(project: Path, names: list[str]) -> dict:
    """In this process (the build on PYTHONPATH): per symbol, [wall s, CPU s] and the answer."""
    from tenure import Tenure

    t = Tenure.open(project)
    t.what_breaks(names[0], depth=1)  # warm-up: imports, page cache, what is kept between questions
    times, answers = {}, {}
    for name in names:
        wall, cpu = time.perf_counter(), time.thread_time()
        answer = t.what_breaks(name, depth=1)
        times[name] = [time.perf_counter() - wall, time.thread_time() - cpu]
        answer.pop("freshness", None)
        answers[name] = to_builtins(answer)
    return {"times": times, "answers": answers}


def symbols(project: Path, samples: int, seed: int) -> tuple[list[str], list[str]]:
    """index_speed.py's sample and its most depended-on symbols."""
    from index_speed import depended_on

    ranked = depended_on(project)
    return (random.Random(seed).sample([name for name, _ in ranked], min(samples, len(ranked))),
            [name for name, _ in ranked[:HOT]])


def run_build(src: Path, project: Path, names_file: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run([sys.executable, __file__, "--worker", str(project), str(names_file)], env=env,
                          capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise SystemExit(f"the build at {src} failed on {project}:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def differences(before: dict, after: dict) -> list[str]:
    """The symbols whose answers differ, each with the top-level keys (and summary keys) that do."""
    out = []
    for name in before:
        a, b = before[name], after.get(name)
        if a == b:
            continue
        keys = sorted(k for k in {*a, *(b or {})} if a.get(k) != (b or {}).get(k))
        summary = sorted(k for k in {*a.get("summary", {}), *(b or {}).get("summary", {})}
                         if a.get("summary", {}).get(k) != (b or {}).get("summary", {}).get(k))
        out.append(f"{name}: {', '.join(keys)}" + (f" (summary: {', '.join(summary)})" if summary else ""))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", type=Path, required=True, help="an indexed project")
    parser.add_argument("--baseline", help="SRC:DIR2, another build's src/ and its own indexed copy of the project")
    parser.add_argument("--samples", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--answers-out", type=Path, help="write this build's answers (first round) as JSON")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    project = args.path.resolve()
    sys.path.insert(0, str(REPO / "src"))  # (the sample is drawn by this tree)
    builds = {"this tree": (REPO / "src", project)}
    if args.baseline:
        src, _, copy = args.baseline.partition(":")
        builds = {"baseline": (Path(src).resolve(), Path(copy).resolve()), **builds}
    sample, hot = symbols(project, args.samples, args.seed)
    load_before = os.getloadavg()
    runs: dict[str, list[dict]] = {label: [] for label in builds}
    with tempfile.TemporaryDirectory() as scratch:
        names_file = Path(scratch) / "names.json"
        names_file.write_text(json.dumps(sample + [n for n in hot if n not in sample]))
        for _ in range(args.rounds):
            for label, (src, copy) in builds.items():  # alternating: both builds meet the same load
                runs[label].append(run_build(src, copy, names_file))
    load_after = os.getloadavg()
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f} on {os.cpu_count()} cores; "
          f"{len(sample)} sampled symbols, {args.rounds} rounds, each build in a fresh process per round")
    figures: dict[str, dict] = {}
    for label, rounds in runs.items():
        row = {}
        for i, what in enumerate(("wall", "cpu")):
            per_round = [[r["times"][n][i] for n in sample] for r in rounds]
            row[what] = {q: statistics.median(percentile(values, p) for values in per_round)
                         for q, p in (("p50", 50), ("p95", 95), ("max", 100))}
        row["hot"] = {n: statistics.median(r["times"][n][0] for r in rounds) for n in hot}
        figures[label] = row
    print_table("what-breaks depth 1, Python API, warm: the sample (median of the rounds)",
                ["build", "wall p50", "wall p95", "wall max", "CPU p50", "CPU p95", "CPU max"],
                [[label, *(f"{row[w][q] * 1000:.1f} ms" for w in ("wall", "cpu") for q in ("p50", "p95", "max"))]
                 for label, row in figures.items()])
    print_table("the most depended-on symbols (wall, median of the rounds)", ["symbol", *figures],
                [[n, *(f"{figures[label]['hot'][n] * 1000:.1f} ms" for label in figures)] for n in hot])
    slow = sorted(sample, key=lambda n: -statistics.median(r["times"][n][0] for r in runs["this tree"]))[:5]
    print_table("the slowest sampled symbols, this tree (wall, median of the rounds)", ["symbol", *figures],
                [[n, *(f"{statistics.median(r['times'][n][0] for r in runs[label]) * 1000:.1f} ms"
                       for label in figures)] for n in slow])
    answers = runs["this tree"][0]["answers"]
    if args.answers_out:
        args.answers_out.write_text(json.dumps(answers, sort_keys=True))
    changed = differences(runs["baseline"][0]["answers"], answers) if args.baseline else None
    if changed is not None:
        print(f"\nanswers compared with the baseline's: {len(answers)} symbols, {len(changed)} changed")
        for line in changed:
            print(f"  {line}")
    write_json(args.json_out, {"figures": figures, "changed": changed, "load": [load_before, load_after]})
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        print(json.dumps(ask(Path(sys.argv[2]), json.loads(Path(sys.argv[3]).read_text()))))
    else:
        sys.exit(main())
