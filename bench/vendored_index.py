"""A full `tenure index` of Django 5.1.4's sdist (2,788 .py + 111 .js files) with vendored and minified
code read cheaply (vendored.py: jQuery, select2, xregexp under `admin/static/admin/js/vendor`), beside
the same build told to analyse everything fully (`[index] full_analysis = ["*"]` in tenure.toml: what
every index did before), in the same run; and the same for `django/contrib/admin/static` alone (the
JavaScript part).

    python bench/vendored_index.py [--runs 2] [--javascript-only]

Each case gets its own git repository (a copy of the tree, one commit); the two modes take turns (a
change in the load of a shared machine weighs on both alike), each a fresh index (`.tenure/` removed)
run as `tenure index` with enrichment, knowledge, history and background embedding off. Printed per
run: CPU seconds of the process tree (user + sys of the waited-for children), wall seconds, the load
average when it started, and the files read cheaply. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import fetch_sdist, print_table  # noqa: E402

QUIET = {"TENURE_ENRICH": "off", "TENURE_KNOWLEDGE": "off", "TENURE_HISTORY": "off",
         "TENURE_EMBED_BACKGROUND": "off"}
MODES = {"vendored read cheaply": "", "everything fully analysed": '[index]\nfull_analysis = ["*"]\n'}


def repository(source: Path, into: Path, settings: str) -> Path:
    shutil.copytree(source, into)
    if settings:
        (into / "tenure.toml").write_text(settings)
    git = ["git", "-C", str(into), "-c", "user.email=bench@tenure", "-c", "user.name=bench"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "tree"], check=True)
    return into


def index(repo: Path) -> tuple[float, float, int]:
    """(CPU seconds of the process tree, wall seconds, files read cheaply) of a fresh index."""
    shutil.rmtree(repo / ".tenure", ignore_errors=True)
    env = {**os.environ, **QUIET}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(["tenure", "index", str(repo)], check=True, capture_output=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    status = subprocess.run(["tenure", "status", "--json", "--repo", str(repo)], check=True, capture_output=True,
                            env=env, text=True)
    gaps = json.loads(status.stdout)["unresolved_files"]
    return cpu, wall, sum(1 for g in gaps if g["status"] == "read cheaply")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--javascript-only", action="store_true", help="only django/contrib/admin/static")
    args = parser.parse_args()
    django = fetch_sdist("django", "5.1.4")
    cases = {"Django 5.1.4": django, "django/contrib/admin/static": django / "django/contrib/admin/static"}
    if args.javascript_only:
        del cases["Django 5.1.4"]
    rows = []
    with tempfile.TemporaryDirectory(prefix="tenure-vendored-") as tmp:
        for case, source in cases.items():
            repos = {mode: repository(source, Path(tmp) / f"{case.replace('/', '_')}-{n}", settings)
                     for n, (mode, settings) in enumerate(MODES.items())}
            for run in range(1, args.runs + 1):
                for mode, repo in repos.items():
                    load = os.getloadavg()[0]
                    cpu, wall, cheap = index(repo)
                    rows.append((case, mode, run, f"{cpu:.1f}", f"{wall:.1f}", f"{load:.1f}", cheap))
    print_table("tenure index, CPU of the process tree", ["tree", "mode", "run", "CPU s", "wall s", "load", "cheap"],
                rows)


if __name__ == "__main__":
    main()
