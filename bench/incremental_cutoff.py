"""One-file updates in a watcher on a real code base: definition edits, with and without the early cutoff.

Usage::

    python bench/incremental_cutoff.py [--path DIR] [--hubs A,B,...] [--sample 40] [--seed 0] [--json-out FILE]

Without ``--path`` the input is Django 5.1.4's sdist (see ``index_speed.py``), copied to a temporary
directory. Everything runs in one process, as ``tenure index --watch`` does: a full index, then
updates told which path changed (``Tenure.index(changed_paths=...)``). Each edit appends a function
to a file (its symbols change, so every file that read the module is a dependant to check), then
changes that function's body, then removes it again. Printed, in order:

1. the first edit of the first hub file right after the full index, before any warm-up: the full
   index analysed modules in worker processes, so this process analyses them for the first time;
2. the idle warm-up a watcher then does (``Tenure.warm``): CPU seconds and the process's RSS;
3. each hub file (default: five modules most of Django reads): the three edits in turn. The first
   edit of each is the first time this process checks those questions;
4. ``--sample`` files drawn (seeded) from all ``.py`` files, one function added to each: median,
   90th percentile and maximum update time, and how many took over 0.5 s;
5. the peer, in the same run: the first hub file's edits with every dependant resolved again (the same
   indexer without the cutoff);
6. a second watcher, a process of its own started on the same index once the first has stopped:
   the first hub file's edits before its warm-up (it takes the analyses the first one kept in the
   store instead of making them), then its warm-up.

Times are CPU seconds of this process and its workers, and wall seconds, of the update; the bookkeeping
a watcher then does at its next idle poll (``Tenure.flush``: the reads checking added) is timed apart.
The run also times the issue's yardstick of the machine (tree-sitter parse and node walk of every
``.py`` file: 2.5 s where the issue was measured), since shared machines change speed. Nothing is
asserted.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import REFERENCE_S, cpu_seconds, fetch_sdist, print_table, reference_walk, write_json

from tenure.entry import with_hash_seed

HUBS = ["django/db/utils.py", "django/core/exceptions.py", "django/conf/__init__.py", "django/db/models/base.py",
        "django/utils/functional.py"]
_ADDED = "\n\ndef _tenure_bench_added_function():\n    return _tenure_bench_added_function\n"
_EDITED = "\n\ndef _tenure_bench_added_function():\n    return print(_tenure_bench_added_function)\n"
EDITS = {"function added": _ADDED, "function body edited": _EDITED, "function removed": ""}
TARGET_S = 0.5


def rss_mb() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * resource.getpagesize() >> 20


def update(t: Any, root: Path, rel: str, original: bytes, text: str) -> dict:
    """One watched update, timed; then its bookkeeping, which a watcher does at its next idle poll."""
    (root / rel).write_bytes(original + text.encode())
    cpu, wall = cpu_seconds(), time.perf_counter()
    report = t.index(changed_paths={rel}, defer_bookkeeping=True)
    done, idle = cpu_seconds(), time.perf_counter()
    t.flush()
    return {"file": rel, "resolved": report.files_resolved, "verified": report.files_verified,
            "cpu_s": done - cpu, "wall_s": idle - wall, "idle_cpu_s": cpu_seconds() - done}


def edits(t: Any, root: Path, rel: str, label: str) -> list[dict]:
    original = (root / rel).read_bytes()
    try:
        return [{**update(t, root, rel, original, text), "step": label, "edit": edit} for edit, text in EDITS.items()]
    finally:
        (root / rel).write_bytes(original)


def measure(root: Path, hubs: list[str], sample: int, seed: int) -> dict:
    from tenure import Tenure
    from tenure.structural.resolve.python import resolver

    out: dict[str, Any] = {}
    with Tenure.open(root, discover=False) as t:
        print("full index ...", file=sys.stderr)
        t.index()
        out["after_index_rss_mb"] = rss_mb()
        rows = edits(t, root, hubs[0], "before warm-up")
        cpu = cpu_seconds()
        print("warming ...", file=sys.stderr)
        while not t.warm(0.1):
            pass
        out["warm_up_cpu_s"], out["warmed_rss_mb"] = cpu_seconds() - cpu, rss_mb()
        for rel in hubs:
            rows += edits(t, root, rel, "warm")
        out["hubs"] = rows
        python_files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py") if ".tenure" not in p.parts)
        drawn = random.Random(seed).sample(python_files, min(sample, len(python_files)))
        print(f"{len(drawn)} sampled files ...", file=sys.stderr)
        out["sample"] = []
        for rel in drawn:
            original = (root / rel).read_bytes()
            try:
                out["sample"].append(update(t, root, rel, original, _ADDED))
            finally:
                (root / rel).write_bytes(original)
                t.index(changed_paths={rel})
        out["end_rss_mb"] = rss_mb()
        resolver.verify = lambda items, view: {}  # the peer: every dependant is resolved again
        try:
            out["peer"] = edits(t, root, hubs[0], "peer: all resolved again")
        finally:
            del resolver.verify
            t.index(changed_paths={hubs[0]})
    return out


def second_watcher(root: Path, hub: str) -> dict:
    """Run in a process of its own (`--second-watcher`): a watcher started on an index another one
    kept analyses in. Its first edits, then its warm-up."""
    from tenure import Tenure

    with Tenure.open(root, discover=False) as t:
        t.index()
        rows = edits(t, root, hub, "second watcher, before warm-up")
        cpu = cpu_seconds()
        while not t.warm(0.1):
            pass
        return {"rows": rows, "warm_up_cpu_s": cpu_seconds() - cpu, "warmed_rss_mb": rss_mb()}


def report(out: dict) -> None:
    rows = out["hubs"] + out["peer"] + out["second"]["rows"]
    print_table(
        "One-file definition edits in a watcher (Tenure.index(changed_paths=...), one process)",
        ["file", "step", "edit", "resolved", "verified", "CPU", "wall", "then idle: CPU"],
        [(r["file"], r["step"], r["edit"], r["resolved"], r["verified"], f"{r['cpu_s']:.2f} s",
          f"{r['wall_s']:.2f} s", f"{r['idle_cpu_s']:.2f} s") for r in rows],
    )
    print(f"\nwarm-up: {out['warm_up_cpu_s']:.1f} s CPU; process RSS {out['after_index_rss_mb']} MB after the "
          f"index, {out['warmed_rss_mb']} MB warmed, {out['end_rss_mb']} MB after every update above")
    print(f"second watcher's warm-up, taking the analyses the first one kept: {out['second']['warm_up_cpu_s']:.1f} s "
          f"CPU, RSS {out['second']['warmed_rss_mb']} MB warmed")
    slower = out["reference_walk_s"] / REFERENCE_S
    print(f"machine reference: tree-sitter parse + full node walk of the .py files: {out['reference_walk_s']:.2f} s "
          f"CPU (the issue measured {REFERENCE_S} s on this kind of machine: this one is {slower:.2f}x as slow now)")
    sample = out["sample"]
    if len(sample) >= 2:
        cpu = sorted(r["cpu_s"] for r in sample)
        wall = sorted(r["wall_s"] for r in sample)
        over = sum(w > TARGET_S for w in wall)
        print(f"{len(sample)} sampled files, a function added to each: CPU median {statistics.median(cpu):.3f} s, "
              f"p90 {statistics.quantiles(cpu, n=10)[-1]:.3f} s, max {cpu[-1]:.3f} s; wall median "
              f"{statistics.median(wall):.3f} s, max {wall[-1]:.3f} s; {over} over {TARGET_S} s wall "
              f"(target: a one-file update < {TARGET_S} s)")
        worst = sorted(sample, key=lambda r: -r["wall_s"])[:3]
        print("slowest: " + "; ".join(f"{r['file']} ({r['verified']} dependants checked, {r['wall_s']:.2f} s)"
                                      for r in worst))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--path", type=Path, help="a project to measure instead of Django's sdist")
    parser.add_argument("--hubs", default=",".join(HUBS), help="files to edit, relative to the project")
    parser.add_argument("--sample", type=int, default=40, help="how many other files get one edit each")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json-out", type=Path)
    parser.add_argument("--second-watcher", type=Path, help=argparse.SUPPRESS)  # (the run's own subprocess)
    args = parser.parse_args()
    if args.second_watcher:
        print(json.dumps(second_watcher(args.second_watcher, args.hubs.split(",")[0])))
        return
    source = args.path or fetch_sdist("django", "5.1.4")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / source.name
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(".tenure"))
        out = measure(root, args.hubs.split(","), args.sample, args.seed)
        print("second watcher ...", file=sys.stderr)
        out["second"] = json.loads(subprocess.run(
            [sys.executable, __file__, "--second-watcher", str(root), "--hubs", args.hubs],
            check=True, capture_output=True, text=True).stdout.splitlines()[-1])
        out["reference_walk_s"] = reference_walk(root)
    report(out)
    write_json(args.json_out, out)


if __name__ == "__main__":
    with_hash_seed([__file__, *sys.argv[1:]])  # as the `tenure` command runs
    main()
