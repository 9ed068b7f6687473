"""Index speed on a real code base: wall time, files/s, peak RSS, incremental update, what-breaks latency.

Usage::

    python bench/index_speed.py [--path DIR] [--samples 200] [--seed 0] [--tenure CMD] [--json-out FILE]

Without ``--path`` the input is Django 5.1.4's sdist (2,788 ``.py`` files), fetched once with
``pip download django==5.1.4 --no-binary :all: --no-deps`` and unpacked under
``$TENURE_BENCH_CACHE`` (default ``/tmp/tenure-bench``). With ``--path`` any directory is indexed.
**The script deletes DIR/.tenure/ to measure a fresh index**, and appends to one ``.py`` file for the
incremental step (the original bytes are restored and re-indexed afterwards).

Measured:

1. full index: ``tenure index DIR`` on a fresh ``.tenure/``, run as a subprocess: wall time, files/s
   (all files under DIR and ``.py`` files), CPU time / wall (2 = both cores busy), peak RSS of the
   largest process (``getrusage(RUSAGE_CHILDREN).ru_maxrss`` in a wrapper process) and of the whole
   process tree (``/proc`` sampled every 20 ms: the sum of RSS, which counts pages shared between
   worker processes once per process, and the sum of PSS, which splits them). The tree is sampled
   in a second fresh index, not the timed one: reading PSS 50 times a second slowed it by 20%;
2. graph size: symbols and edges (and edges per tier), read from ``DIR/.tenure/tenure.db``;
3. re-index with nothing changed, then a one-file update: a comment line appended to a mid-size
   ``.py`` file, timed through the CLI (includes process start) and in-process through the Python API
   (``Tenure.index()`` in a warm process); then a new function appended (symbols change, through the
   API), then its body edited; then, as a watcher: its idle warm-up (``Tenure.warm``, CPU), and a
   comment appended, the function's body edited again, the function removed, each told which path
   changed; then the original restored and re-indexed;
4. ``what-breaks`` at depth 1 through the Python API in one warm process (as an MCP server would
   answer): p50/p95/max over ``--samples`` symbols drawn (seeded) from the symbols that have at least
   one incoming edge, plus the 5 most depended-on symbols; and the CLI's cold latency
   (``tenure what-breaks SYMBOL --repo DIR --json``, process start included) on 3 of them.

Targets (issue 2) are printed beside the figures: full index < 15 s using both cores, peak RSS < 1 GB,
one-file update < 0.5 s, depth-1 what-breaks p95 < 20 ms. For scale, codebase-memory-mcp (C) on
Django on this kind of machine: 41.9 s, 5.7 GB peak RSS, 51k nodes / 309k edges, 51 ms for a depth-1
caller query. Nothing is asserted: the script prints figures.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from common import (
    REFERENCE_S,
    fetch_sdist,
    fmt_bytes,
    fmt_seconds,
    percentile,
    print_table,
    pss_bytes,
    reference_walk,
    run,
    tenure_command,
    to_builtins,
    write_json,
)

from tenure.entry import with_hash_seed
from tenure.state import database_path

DJANGO = ("django", "5.1.4")
TOUCH_LINE = "\n# tenure bench: harmless appended comment\n"
NEW_FUNCTION = "\n\ndef _tenure_bench_added_function():\n    return _tenure_bench_added_function\n"
EDITED_FUNCTION = "\n\ndef _tenure_bench_added_function():\n    return print(_tenure_bench_added_function)\n"
SKIP_DIRS = {".tenure", ".git", "__pycache__", "node_modules", ".venv", "venv"}

# The wrapper runs the command, then reports its own view of the children: wall time and rusage.
_WRAPPER = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
code = subprocess.run(sys.argv[1:]).returncode
wall = time.perf_counter() - start
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print("@@RUSAGE@@" + json.dumps({"rc": code, "wall": wall, "maxrss_kb": u.ru_maxrss,
      "utime": u.ru_utime, "stime": u.ru_stime}), file=sys.stderr)
"""


@dataclass
class Measured:
    """One measured subprocess run."""

    ok: bool
    wall: float
    cpu: float
    maxrss: int  # bytes, largest single process
    tree_rss: int  # bytes, peak of the sampled process-tree RSS sum (shared pages counted per process)
    tree_pss: int  # bytes, peak of the sampled process-tree PSS sum (shared pages split)
    stdout: str
    stderr: str


# --------------------------------------------------------------------------------------------------
# Measuring a subprocess
# --------------------------------------------------------------------------------------------------


def _children_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as handle:
                stat = handle.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    return children


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def tree_memory(root: int) -> tuple[int, int]:
    """(RSS sum, PSS sum) of ``root``'s descendants (the wrapper itself is left out)."""
    children = _children_map()
    rss = pss = 0
    stack = list(children.get(root, []))
    while stack:
        pid = stack.pop()
        rss += _rss(pid)
        pss += pss_bytes(pid)
        stack.extend(children.get(pid, []))
    return rss, pss


def measure(argv: list[str], timeout: float = 3600, sample_memory: bool = True) -> Measured:
    """Run ``argv`` under the rusage wrapper, sampling its process tree's RSS unless told not to
    (reading PSS walks each process's page tables: 50 times a second it slows what it measures)."""
    proc = subprocess.Popen([sys.executable, "-c", _WRAPPER, *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    peak = [0, 0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            rss, pss = tree_memory(proc.pid)
            peak[0], peak[1] = max(peak[0], rss), max(peak[1], pss)
            done.wait(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    if sample_memory:
        sampler.start()
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
    finally:
        done.set()
        if sample_memory:
            sampler.join()
    report, stderr = _split_report(stderr)
    if report is None:
        return Measured(False, 0.0, 0.0, 0, peak[0], peak[1], stdout, stderr)
    return Measured(report["rc"] == 0, report["wall"], report["utime"] + report["stime"],
                    report["maxrss_kb"] * 1024, peak[0], peak[1], stdout, stderr)


def _split_report(stderr: str) -> tuple[dict[str, Any] | None, str]:
    lines = stderr.splitlines()
    for index in range(len(lines) - 1, -1, -1):
        if lines[index].startswith("@@RUSAGE@@"):
            report = json.loads(lines[index][len("@@RUSAGE@@"):])
            return report, "\n".join(lines[:index] + lines[index + 1 :])
    return None, stderr


# --------------------------------------------------------------------------------------------------
# The code base
# --------------------------------------------------------------------------------------------------


def count_files(root: Path) -> tuple[int, int]:
    """(all files, .py files) under root, not descending into tool directories."""
    total = python = 0
    for _dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [name for name in dirnames if name not in SKIP_DIRS]
        total += len(filenames)
        python += sum(1 for name in filenames if name.endswith(".py"))
    return total, python


def pick_midsize_file(root: Path) -> Path:
    """The median-sized .py file between 4 and 40 KB (deterministic)."""
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(name for name in dirnames if name not in SKIP_DIRS)
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if name.endswith(".py") and 4_000 <= path.stat().st_size <= 40_000:
                files.append(path)
    if not files:
        files = sorted(root.rglob("*.py"))
    if not files:
        raise SystemExit(f"no .py file under {root} for the incremental step")
    files.sort(key=lambda path: (path.stat().st_size, str(path)))
    return files[len(files) // 2]


def graph_counts(db_path: Path) -> dict[str, Any]:
    """Files, symbols, edges and edges per tier, straight from the SQLite store (read-only)."""
    counts: dict[str, Any] = {}
    try:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        return {"error": str(exc)}
    counts["db_bytes"] = db_path.stat().st_size  # the WAL is folded in when the indexing process exits
    with db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        for table in ("files", "symbols", "edges"):
            if table in tables:
                counts[table] = db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        if "edges" in tables and "tier" in _columns(db, "edges"):
            counts["edges_by_tier"] = dict(db.execute("SELECT tier, count(*) FROM edges GROUP BY tier"))
    db.close()
    return counts


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


# --------------------------------------------------------------------------------------------------
# The steps
# --------------------------------------------------------------------------------------------------


def full_index(cmd: list[str], root: Path) -> Measured:
    """Two fresh indexes: one timed, one whose process tree's memory is sampled (the sampling
    would slow the timed one); the figures combine both."""
    runs = []
    for sample_memory in (False, True):
        shutil.rmtree(root / ".tenure", ignore_errors=True)
        result = measure([*cmd, "index", str(root)], sample_memory=sample_memory)
        if not result.ok:
            tail = "\n".join(result.stderr.strip().splitlines()[-5:])
            raise SystemExit(f"tenure index failed:\n{tail}")
        runs.append(result)
    timed, sampled = runs
    return replace(timed, tree_rss=sampled.tree_rss, tree_pss=sampled.tree_pss,
                               maxrss=max(timed.maxrss, sampled.maxrss))


def incremental(cmd: list[str], root: Path, target: Path) -> dict[str, float | None]:
    """Times (seconds) of the no-change re-index, the one-file updates and the restore."""
    original = target.read_bytes()
    times: dict[str, float | None] = {}
    times["re-index, nothing changed (CLI)"] = _cli_index(cmd, root)
    warm = attempt("warm-up index (API)", lambda: open_api(root).index())  # index current in this process
    try:
        target.write_bytes(original + TOUCH_LINE.encode())
        times["one file, comment appended (CLI)"] = _cli_index(cmd, root)
        if warm is not None:
            times["one file, comment appended (API, warm)"] = attempt("API update", lambda: _api_index_after(
                root, lambda: target.write_bytes(original + (TOUCH_LINE * 2).encode())))
            changed = {target.relative_to(root).as_posix()}
            times["one file, function added (API, warm)"] = attempt("API update", lambda: _api_index_after(
                root, lambda: target.write_bytes(original + NEW_FUNCTION.encode())))
            times["one file, function body edited (API, warm)"] = attempt("API update", lambda: _api_index_after(
                root, lambda: target.write_bytes(original + EDITED_FUNCTION.encode())))
            # A watcher: told which path changed, and warmed while idle (`Tenure.warm`) before the edits.
            times["watcher's idle warm-up (CPU, not an update)"] = attempt("warm-up", lambda: _warm_up(root))
            # Each edit is made to the state the previous one left.
            for label, text in (("comment appended", EDITED_FUNCTION + TOUCH_LINE),
                                ("function body edited", NEW_FUNCTION), ("function removed", "")):
                times[f"one file, {label} (watch mode: changed paths)"] = attempt(
                    "API update", lambda text=text: _api_index_after(
                        root, lambda: target.write_bytes(original + text.encode()), changed))
    finally:
        target.write_bytes(original)
    times["one file, restored (CLI)"] = _cli_index(cmd, root)
    return times


def attempt(step: str, action: Callable[[], Any]) -> Any:
    """Run one step; on an exception print it and return None (the figure shows as failed)."""
    try:
        return action()
    except Exception as exc:  # noqa: BLE001 - one failing step must not lose the other figures
        print(f"{step} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return None


def _cli_index(cmd: list[str], root: Path) -> float | None:
    result = run([*cmd, "index", str(root)], timeout=3600)
    if not result.ok:
        print(f"tenure index failed: {result.describe_failure()}", file=sys.stderr)
    return result.seconds if result.ok else None


_API: dict[str, Any] = {}


def open_api(root: Path) -> Any:
    """One Tenure handle per run, kept open like a server's (the import is not timed)."""
    if "t" not in _API:
        from tenure import Tenure

        _API["t"] = Tenure.open(root)
    return _API["t"]


def _api_index_after(root: Path, edit: Callable[[], object], changed: set[str] | None = None) -> float:
    """Seconds ``Tenure.index()`` takes in the warm process after ``edit`` changed the tree; with
    ``changed``, told which paths changed, as the file watcher of `tenure index --watch` does, which
    also leaves the bookkeeping of checked dependants to its next idle poll (timed apart, printed)."""
    t = open_api(root)
    edit()
    start = time.perf_counter()
    report = t.index(changed_paths=changed, defer_bookkeeping=changed is not None)
    seconds = time.perf_counter() - start
    t.flush()
    print(f"  update: {report.files_resolved} files resolved, {report.files_verified} verified and kept, "
          f"{report.files_spared} spared, "
          f"{seconds:.3f} s; then idle bookkeeping {time.perf_counter() - start - seconds:.3f} s", file=sys.stderr)
    return seconds


def _warm_up(root: Path) -> float:
    """CPU seconds of a watcher's idle warm-up, run to the end."""
    t = open_api(root)
    start = time.process_time()
    while not t.warm(0.1):
        pass
    return time.process_time() - start


def depended_on(root: Path) -> list[tuple[str, int]]:
    """(symbol, number of incoming edges) for symbols with at least one, from the API's edge export."""
    t = open_api(root)
    incoming: dict[str, int] = {}
    for edge in t.export_edges():
        dst = edge.get("dst")
        if dst:
            incoming[dst] = incoming.get(dst, 0) + 1
    known = _known_symbols(database_path(root))
    return sorted(((name, n) for name, n in incoming.items() if known is None or name in known),
                  key=lambda item: (-item[1], item[0]))


def _known_symbols(db_path: Path) -> set[str] | None:
    try:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        with db:
            columns = _columns(db, "symbols")
            name = next((c for c in ("fqn", "qualified_name", "name") if c in columns), None)
            rows = db.execute(f"SELECT {name} FROM symbols").fetchall() if name else None
        db.close()
    except sqlite3.Error:
        return None
    return {row[0] for row in rows} if rows else None


def query_latency(root: Path, symbols: list[str]) -> tuple[list[float], list[int]]:
    """Per-query seconds and direct-dependant counts of what_breaks(symbol, depth=1), warm process."""
    t = open_api(root)
    t.what_breaks(symbols[0], depth=1)  # warm-up: caches, page cache, first-use imports
    times, sizes = [], []
    for symbol in symbols:
        start = time.perf_counter()
        result = t.what_breaks(symbol, depth=1)
        times.append(time.perf_counter() - start)
        sizes.append(len(to_builtins(result).get("dependants") or []))
    return times, sizes


def cli_latency(cmd: list[str], root: Path, symbols: list[str]) -> list[float]:
    times = []
    for symbol in symbols:
        result = run([*cmd, "what-breaks", symbol, "--repo", str(root), "--depth", "1", "--json"])
        times.append(result.seconds if result.returncode in (0, 1) else float("nan"))
    return times


# --------------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------------


def print_load(when: str) -> None:
    """Timings are only meaningful on an idle machine: show how busy it was."""
    load = os.getloadavg()
    cores = os.cpu_count() or 1
    warning = "  (busy: other work competes for the cores, timings are inflated)" if load[0] > cores / 2 else ""
    print(f"load average {when}: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {cores} cores{warning}")


def print_index_figures(root: Path, files: tuple[int, int], full: Measured, counts: dict[str, Any],
                        reference: float) -> None:
    total, python = files
    slower = reference / REFERENCE_S
    rows = [
        ["full index, wall", fmt_seconds(full.wall), "< 15 s", "41.9 s"],
        [f"  scaled to the issue's machine (/ {slower:.2f})", fmt_seconds(full.wall / slower), "< 15 s", ""],
        ["files/s (all files)", f"{total / full.wall:.0f}", "", ""],
        [".py files/s", f"{python / full.wall:.0f}", "", ""],
        ["CPU time (user + sys, all processes)", fmt_seconds(full.cpu), "", ""],
        ["CPU time / wall (2 = both cores)", f"{full.cpu / full.wall:.2f}", "both cores", ""],
        ["peak RSS, largest process", fmt_bytes(full.maxrss), "< 1 GB", "5.7 GB"],
        # (a page the forked workers share with the parent counts once per process here, once in PSS)
        ["peak RSS, process tree (sampled sum)", fmt_bytes(full.tree_rss), "", ""],
        ["peak PSS, process tree (sampled sum)", fmt_bytes(full.tree_pss), "< 1 GB", ""],
        ["symbols (nodes)", counts.get("symbols", "-"), "", "51k nodes"],
        ["edges", counts.get("edges", "-"), "", "309k edges"],
        ["database file", fmt_bytes(counts["db_bytes"]) if "db_bytes" in counts else "-", "", ""],
    ]
    for tier, n in sorted(counts.get("edges_by_tier", {}).items()):
        rows.append([f"  edges, {tier}", n, "", ""])
    title = f"Full index of {root} ({total} files, {python} .py)"
    print_table(title, ["figure", "tenure", "target", "codebase-memory-mcp"], rows)
    print(f"machine reference: tree-sitter parse + full node walk of the .py files, one process: {reference:.2f} s "
          f"CPU (the issue measured {REFERENCE_S} s on this kind of machine: this one is {slower:.2f}x as slow now)")


def print_incremental(target: Path, root: Path, times: dict[str, float | None]) -> None:
    rows = [[step, fmt_seconds(seconds) if seconds is not None else "failed",
             "< 0.5 s" if step.startswith("one file") and "restored" not in step else ""]
            for step, seconds in times.items()]
    size = target.stat().st_size
    print_table(f"Incremental update of {target.relative_to(root)} ({size} bytes)",
                ["step", "time", "target"], rows)


def print_latency(api: list[float], sizes: list[int], hot: list[tuple[str, float, int]],
                  cli: list[float], cli_symbols: list[str]) -> None:
    rows = [
        ["p50", fmt_seconds(percentile(api, 50)), "", ""],
        ["p95", fmt_seconds(percentile(api, 95)), "< 20 ms", "51 ms (one query)"],
        ["max", fmt_seconds(max(api)), "", ""],
        ["mean", fmt_seconds(statistics.fmean(api)), "", ""],
        ["dependants per answer (mean / max)", f"{statistics.fmean(sizes):.1f} / {max(sizes)}", "", ""],
    ]
    print_table(f"what-breaks depth 1, Python API, warm process ({len(api)} sampled symbols)",
                ["figure", "tenure", "target", "codebase-memory-mcp"], rows)
    print_table("what-breaks depth 1 on the most depended-on symbols (API, warm)",
                ["symbol", "time", "dependants"], [[s, fmt_seconds(t), n] for s, t, n in hot])
    print_table("what-breaks depth 1 through the CLI, cold process (process start included)",
                ["symbol", "time"], [[s, fmt_seconds(t)] for s, t in zip(cli_symbols, cli, strict=True)])


# --------------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--path", type=Path, help="directory to index (default: Django 5.1.4's sdist)")
    parser.add_argument("--tenure", help="command that runs the tenure CLI (default: tenure on PATH)")
    parser.add_argument("--samples", type=int, default=200, help="symbols for the latency figures")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json-out", type=Path, help="also write the figures as JSON")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    root = (args.path or fetch_sdist(*DJANGO)).resolve()
    cmd = tenure_command(args.tenure)
    files = count_files(root)
    print_load("before")
    print(f"indexing {root} with {' '.join(cmd)} ...", file=sys.stderr, flush=True)
    full = full_index(cmd, root)
    reference = reference_walk(root)
    counts = graph_counts(database_path(root))
    print_index_figures(root, files, full, counts, reference)

    target = pick_midsize_file(root)
    times = incremental(cmd, root, target)
    print_incremental(target, root, times)

    ranked = attempt("reading edges (API)", lambda: depended_on(root)) or []
    if not ranked:
        print("\nno symbol with an incoming edge (or the API failed): latency not measured")
        return 1
    sample = random.Random(args.seed).sample([name for name, _ in ranked], min(args.samples, len(ranked)))
    hot_names = [name for name, _ in ranked[:5]]
    measured = attempt("what_breaks (API)", lambda: (query_latency(root, sample), query_latency(root, hot_names)))
    if measured is None:
        return 1
    (api, sizes), (hot_times, hot_sizes) = measured
    hot = list(zip(hot_names, hot_times, hot_sizes, strict=True))
    cli_symbols = [hot_names[0], *sample[:2]]
    cli = cli_latency(cmd, root, cli_symbols)
    print_latency(api, sizes, hot, cli, cli_symbols)
    print_load("after")

    write_json(args.json_out, {
        "path": str(root), "files": files[0], "py_files": files[1], "reference_walk_s": reference,
        "full_index": asdict(full) | {
            "stdout": None, "stderr": None}, "graph": counts, "incremental": times,
        "incremental_file": str(target), "what_breaks_api": {
            "n": len(api), "p50": percentile(api, 50), "p95": percentile(api, 95), "max": max(api)},
        "what_breaks_cli": dict(zip(cli_symbols, cli, strict=True)),
    })
    return 0


if __name__ == "__main__":
    with_hash_seed([__file__, *sys.argv[1:]])  # the warm API process sees the graph `tenure index` builds
    sys.exit(main())
