"""A one-file update through the warm API (`Tenure.index()` in a process that has answered before, as the
watcher's host or an agent's server does), then the first `resolve` after it: this build against a
baseline git revision in the same run, the builds taking turns.

    python bench/warm_update.py --path DIR [--baseline REV] [--runs 3] [--file REL] [--history]

DIR is copied once per build under a temporary directory, its `.tenure/` too (each build catches up
from it: a full index is spared when both builds read the same store), without `.git` unless
`--history` (the README's figures are on Django's sdist, which has no history, and the knowledge store
is off, as in every bench script; `--history` keeps `.git` and turns the knowledge store on, so every
update also brings history and knowledge up to date). Each build runs in a child process with
`PYTHONPATH` = its `src/` and `PYTHONHASHSEED=0`; the parent tells the children in turn to make the
next edit of REL (default `django/db/utils.py`):

- comment: a comment line appended (no name changes);
- function: a new function appended (a new name: what only names decide is made again).

Printed per case, build and run: the update's wall and CPU seconds, then the first `resolve` of a
phrase after it (what a query pays for what the update left undone) and a second one (warm). The
file is restored and indexed again at the end. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO, baseline_src, print_table  # noqa: E402

PHRASE = "the database router"
EDITS = {
    "comment": lambda n: f"\n# tenure bench: a comment {n}\n",
    "function": lambda n: f"\n\ndef _tenure_bench_warm_{n}():\n    return {n}\n",
}


def child(root: Path, rel: str) -> None:
    """Answer the parent's commands: `EDIT case n`, `RESTORE`; one JSON line per command."""
    from tenure import Tenure

    target = root / rel
    original = target.read_bytes()
    with Tenure.open(root, discover=False) as t:
        t.index()
        t.resolve(PHRASE)
        print(json.dumps({"ready": True}), flush=True)
        for line in sys.stdin:
            command = line.split()
            if command[0] == "EDIT":
                with open(target, "a") as out:
                    out.write(EDITS[command[1]](command[2]))
                row = {"update": _timed(t.index), "first resolve": _timed(lambda: t.resolve(PHRASE)),
                       "second resolve": _timed(lambda: t.resolve(PHRASE))}
            else:
                target.write_bytes(original)
                row = {"update": _timed(t.index)}
            print(json.dumps(row), flush=True)


def _timed(work) -> tuple[float, float]:
    """(wall, CPU) seconds of `work` in this process."""
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--path", type=Path, required=True, help="the project to copy and edit (e.g. Django 5.1.4)")
    parser.add_argument("--baseline", default="HEAD", help="git revision to compare with (default HEAD)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--file", default="django/db/utils.py", help="the file edited, relative to DIR")
    parser.add_argument("--history", action="store_true", help="keep .git: the knowledge store is updated too")
    args = parser.parse_args()
    ignored = shutil.ignore_patterns(*(() if args.history else (".git",)))
    with tempfile.TemporaryDirectory() as tmp:
        builds = {f"baseline {args.baseline}": baseline_src(args.baseline, Path(tmp, "baseline")),
                  "this tree": REPO / "src"}
        children = {}
        for i, (name, src) in enumerate(builds.items()):
            root = Path(tmp, f"copy-{i}")
            shutil.copytree(args.path, root, ignore=ignored)
            env = {**os.environ, "PYTHONPATH": str(src), "PYTHONHASHSEED": "0", "TENURE_ENRICH": "off",
                   "TENURE_EMBED_BACKGROUND": "off", "TENURE_KNOWLEDGE": "on" if args.history else "off"}
            subprocess.run([sys.executable, "-m", "tenure.cli", "index", str(root)], env=env, check=True,
                           capture_output=True)
            children[name] = subprocess.Popen([sys.executable, __file__, "--child", str(root), args.file], env=env,
                                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            print(f"{name}: indexed {root}", flush=True)
        for proc in children.values():
            json.loads(proc.stdout.readline())
        results: dict[tuple[str, str], list[dict]] = {}
        for case in EDITS:
            for run in range(args.runs):
                for name, proc in children.items():
                    proc.stdin.write(f"EDIT {case} {run}\n")
                    proc.stdin.flush()
                    results.setdefault((case, name), []).append(json.loads(proc.stdout.readline()))
        for proc in children.values():
            proc.stdin.write("RESTORE\n")
            proc.stdin.flush()
            proc.stdout.readline()
            proc.stdin.close()
            proc.wait()
    rows = []
    for (case, name), runs in results.items():
        cells = [f"{statistics.median(r[k][0] for r in runs):.3f} / {statistics.median(r[k][1] for r in runs):.3f}"
                 for k in ("update", "first resolve", "second resolve")]
        rows.append([case, name, *cells, " ".join(f"{r['update'][1]:.2f}" for r in runs)])
    print_table(f"warm update of {args.file} (medians of {args.runs}; wall / CPU seconds; load "
                f"{os.getloadavg()[0]:.1f})", ["case", "build", "update", "first resolve", "second resolve",
                                                 "update CPU per run"], rows)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(Path(sys.argv[2]), sys.argv[3])
    else:
        main()
