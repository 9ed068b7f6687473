"""A full `tenure index` (code, git history, knowledge store) of a fresh clone, two builds alternating.

    python bench/full_index_ab.py --repo /path/to/flask --baseline /path/to/old/tree/src --runs 3

Each run clones REPO afresh (tenure writes `.tenure/` inside it), indexes it in a new process with one
build's `src` on PYTHONPATH (language servers and the detached embedding off, as for every bench), and
prints the wall time and the CPU (user + sys) of that process and what it waited for, per run and as
medians, with this tree's ratio to the baseline. Issue 29's "flask's full index with history stays
under its current time" is this script with the baseline at 5140309.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent / "src"
INDEX = "import sys; from tenure.entry import main; sys.argv = ['tenure', 'index', '.']; main()"


def one_index(repo: Path, src: Path, scratch: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one full index of a fresh clone of `repo` with the build at `src`."""
    clone = scratch / "clone"
    shutil.rmtree(clone, ignore_errors=True)
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    env = {**os.environ, "PYTHONPATH": str(src), "TENURE_ENRICH": "off", "TENURE_EMBED_BACKGROUND": "off"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", INDEX], cwd=clone, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, required=True, help="a git repository (cloned for each run)")
    parser.add_argument("--baseline", type=Path, required=True, help="another build's src directory")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for src in (HERE, args.baseline):  # (compiled once: PYTHONDONTWRITEBYTECODE would compile every run)
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(src)], check=True, stdout=subprocess.DEVNULL)
    builds = {"this tree": HERE, "baseline": args.baseline.resolve()}
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name in builds}
    with tempfile.TemporaryDirectory(prefix="tenure-ab-") as scratch:
        for run in range(args.runs):
            for name, src in builds.items():
                wall, cpu = one_index(args.repo, src, Path(scratch))
                figures[name].append((wall, cpu))
                print(f"run {run + 1} {name:9}  wall {wall:6.2f} s  CPU {cpu:6.2f} s  load {os.getloadavg()[0]:.2f}")
    medians = {name: (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
               for name, runs in figures.items()}
    for name, (wall, cpu) in medians.items():
        print(f"median {name:9}  wall {wall:6.2f} s  CPU {cpu:6.2f} s")
    (wall, cpu), (base_wall, base_cpu) = medians["this tree"], medians["baseline"]
    print(f"this tree / baseline: wall {wall / base_wall:.3f}x, CPU {cpu / base_cpu:.3f}x")


if __name__ == "__main__":
    main()
