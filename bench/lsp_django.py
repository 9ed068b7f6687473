"""Enrichment cost on a large project: wall time per file, call sites per second and the language
server's peak memory while `tenure enrich` verifies Django 5.1.4 (sdist) with basedpyright.

Usage::

    python bench/lsp_django.py [--path DIR] [--budget 1200] [--tenure CMD] [--json-out FILE]

The sdist is fetched as bench/index_speed.py fetches it and copied to ``$TENURE_BENCH_CACHE/lsp-django/``
(indexed from scratch there, so index_speed.py's copy is left alone). Then ``tenure enrich`` runs as a
subprocess while ``/proc`` is sampled every 0.2 s: the peak RSS of the server's process tree (node) and
of tenure itself. A full run takes hours on 2 shared cores, so after ``--budget`` seconds the run is
stopped with SIGTERM, which also proves the interruption path: every verified file was committed in its
own transaction, the server processes end with it, and the next ``tenure enrich`` continues where this
one stopped. The figures are then measured ones (files and call sites verified, per-file time) and one
extrapolation, marked as such: the wall time for the whole project at the measured rate.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

from common import CACHE_DIR, fetch_sdist, fmt_bytes, print_table, run, tenure_command, write_json
from index_speed import DJANGO, _children_map, _rss

from tenure.state import database_path


def descendants(pid: int) -> list[int]:
    children = _children_map()
    out, stack = [], list(children.get(pid, []))
    while stack:
        child = stack.pop()
        out.append(child)
        stack.extend(children.get(child, []))
    return out


def counts(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as con:
        one = lambda sql: con.execute(sql).fetchone()[0]  # noqa: E731
        return {
            "python files": one("SELECT COUNT(*) FROM files WHERE language = 'python' AND parse_status != 'skipped'"),
            "verified files": one("SELECT COUNT(*) FROM lsp_files") if one(
                "SELECT COUNT(*) FROM sqlite_master WHERE name = 'lsp_files'") else 0,
            "lsp confirms": one("SELECT COUNT(*) FROM source_edges WHERE source = 'lsp' AND verdict = 'confirms'"),
            "lsp refutes": one("SELECT COUNT(*) FROM source_edges WHERE source = 'lsp' AND verdict = 'refutes'"),
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--path", type=Path, help="a Python project instead of Django's sdist")
    parser.add_argument("--budget", type=float, default=1200, help="seconds before the run is stopped")
    parser.add_argument("--tenure", help="argv prefix running tenure (default: $TENURE_CMD or `tenure`)")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    os.environ["TENURE_ENRICH"] = "off"  # this script starts the enrichment itself
    cmd = tenure_command(args.tenure)
    source = (args.path or fetch_sdist(*DJANGO)).resolve()
    root = CACHE_DIR / "lsp-django" / source.name
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(source, root, ignore=shutil.ignore_patterns(".tenure"))
    indexed = run([*cmd, "index", str(root)], timeout=3600)
    if not indexed.ok:
        raise SystemExit(f"index failed: {indexed.describe_failure()}")
    print(f"indexed {root} in {indexed.seconds:.1f}s")

    started = time.perf_counter()
    enrich = subprocess.Popen([*cmd, "enrich", "--repo", str(root), "--json"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    peak = {"server": 0, "tenure": 0}
    seen: set[int] = set()
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            tree = descendants(enrich.pid)
            seen.update(tree)
            peak["server"] = max(peak["server"], sum(_rss(pid) for pid in tree))
            peak["tenure"] = max(peak["tenure"], _rss(enrich.pid))
            done.wait(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        stdout, _ = enrich.communicate(timeout=args.budget)
        stopped = False
    except subprocess.TimeoutExpired:
        enrich.send_signal(signal.SIGTERM)  # `tenure enrich` closes its servers on SIGTERM
        stdout, _ = enrich.communicate(timeout=120)
        stopped = True
    wall = time.perf_counter() - started
    done.set()
    sampler.join()
    time.sleep(1)
    survivors = [pid for pid in seen if Path(f"/proc/{pid}").exists()]
    figures = counts(database_path(root))
    verified, total = figures["verified files"], figures["python files"]
    per_file = wall / verified if verified else None
    report = json.loads(stdout) if stdout.strip().startswith("{") else None
    rows = [
        ["stopped after budget" if stopped else "completed", f"{wall:.0f} s"],
        ["files verified", f"{verified} of {total}"],
        ["lsp verdicts (confirms / refutes)", f"{figures['lsp confirms']} / {figures['lsp refutes']}"],
        ["wall per verified file", f"{per_file:.2f} s" if per_file else "-"],
        ["server peak RSS (process tree)", fmt_bytes(peak["server"])],
        ["tenure enrich peak RSS", fmt_bytes(peak["tenure"])],
        ["server processes left after the run", str(len(survivors))],
    ]
    if stopped and per_file:
        rows.append(["whole project at this rate (extrapolated)", f"{per_file * total / 3600:.1f} h"])
    print_table("tenure enrich on " + root.name + " (basedpyright)", ["figure", "value"], rows)
    if report:
        print(report["text"])
    write_json(args.json_out, {"wall": wall, "stopped": stopped, "peak": peak, "counts": figures,
                               "survivors": survivors, "report": report})
    return 0


if __name__ == "__main__":
    sys.exit(main())
