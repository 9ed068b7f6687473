"""A full `tenure index` (code, git history, knowledge store) of a fresh clone, two builds alternating.

    python bench/full_index_ab.py --repo /path/to/flask --baseline /path/to/old/tree/src --runs 3

Each run clones REPO afresh (tenure writes `.tenure/` inside it), indexes it in a new process with one
build's `src` on PYTHONPATH (language servers and the detached embedding off, as for every bench), and
prints the wall time and the CPU (user + sys) of that process and what it waited for, per run and as
medians, with this tree's ratio to the baseline. Issue 29's "flask's full index with history stays
under its current time" is this script with the baseline at 5140309. With `postgres` among the
backends, a PostgreSQL started on loopback (tests/postgres_server.py) holds the shared stores, a fresh
database per run (the server's own CPU is not counted: read the wall time), and each build's PostgreSQL
time is put beside its SQLite time (issue 31: the team backend within ~3x of SQLite).
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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from common import compiled

HERE = Path(__file__).resolve().parent.parent / "src"
INDEX = "import sys; from tenure.entry import main; sys.argv = ['tenure', 'index', '.']; main()"


def one_index(repo: Path, src: Path, scratch: Path, database: str | None = None) -> tuple[float, float]:
    """(wall, CPU) seconds of one full index of a fresh clone of `repo` with the build at `src`
    (`database`: a team database's URL for the shared stores)."""
    clone = scratch / "clone"
    shutil.rmtree(clone, ignore_errors=True)
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    env = {**os.environ, "PYTHONPATH": str(src), "TENURE_ENRICH": "off", "TENURE_EMBED_BACKGROUND": "off"}
    env.pop("TENURE_DATABASE_URL", None)
    if database:
        env["TENURE_DATABASE_URL"] = database
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
    parser.add_argument("--backends", default="sqlite", help="sqlite, postgres or both (comma-separated)")
    args = parser.parse_args()
    backends = [b.strip() for b in args.backends.split(",")]
    for src in (HERE, args.baseline):
        compiled(src)
    builds = {"this tree": HERE, "baseline": args.baseline.resolve()}
    figures: dict[tuple[str, str], list[tuple[float, float]]] = {(b, n): [] for n in builds for b in backends}
    with tempfile.TemporaryDirectory(prefix="tenure-ab-") as scratch, _server(backends) as server:
        for run in range(args.runs):
            for (backend, name), runs in figures.items():
                database = server.new_database() if backend == "postgres" else None
                wall, cpu = one_index(args.repo, builds[name], Path(scratch), database)
                if database:
                    server.drop_database(database)
                runs.append((wall, cpu))
                print(f"run {run + 1} {backend:8} {name:9}  wall {wall:6.2f} s  CPU {cpu:6.2f} s"
                      f"  load {os.getloadavg()[0]:.2f}")
    medians = {key: (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
               for key, runs in figures.items()}
    for (backend, name), (wall, cpu) in medians.items():
        print(f"median {backend:8} {name:9}  wall {wall:6.2f} s  CPU {cpu:6.2f} s")
    for backend in backends:
        (wall, cpu), (base_wall, base_cpu) = medians[backend, "this tree"], medians[backend, "baseline"]
        print(f"{backend}: this tree / baseline: wall {wall / base_wall:.3f}x, CPU {cpu / base_cpu:.3f}x")
    if {"sqlite", "postgres"} <= set(backends):
        for name in builds:
            ratio = medians["postgres", name][0] / medians["sqlite", name][0]
            print(f"{name}: postgres / sqlite wall {ratio:.2f}x")


@contextmanager
def _server(backends: list[str]) -> Iterator[Any]:
    """A PostgreSQL on loopback while the runs need one."""
    if "postgres" not in backends:
        yield None
        return
    sys.path.insert(0, str(HERE.parent))
    from tests.postgres_server import start

    server = start()
    try:
        yield server
    finally:
        server.close()


if __name__ == "__main__":
    main()
