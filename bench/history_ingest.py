"""Git history ingestion and the `history` question on a real repository (issue 22, item 7).

A clone of the repository is set one first-parent commit back and indexed (structural only); then,
each step in a fresh process (peak RSS is the process's own):

- whole history: `GitHistory.update()` reads every commit (streaming `git log`, reverts, thin
  messages) and maps the diffs onto the index's symbols; then the episodes are made from it and the
  rules mined (what `tenure index` adds to an index);
- one new commit: the clone moves to the real HEAD, the index follows (structural only), and the
  history reads the one new commit (and maps the files it changed again);
- `history` latency: `what_happened_before` in a warm process for a seeded sample of symbols with
  past attempts, p50/p95; the most touched symbol (a package: every attempt inside it) apart; and once
  through the CLI, process start included;
- `GitHistory.touching` (every commit that touched a symbol, whole commits with their files and
  symbols) on the ten symbols the most commits touched, p50/p95.

The peer in the same run is git itself: the same `git log` (raw, zero-context patch, first-parent
merge diffs) written to /dev/null, the floor any reader of git's output stands on.

    python bench/history_ingest.py [--git DIR] [--sample 50] [--json-out FILE]

`--git` is any clone with history; by default pallets/flask is cloned from the mirror the machine
keeps (`--mirror`, default /work/.mirror/pallets+flask/repo) into $TENURE_BENCH_CACHE.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import CACHE_DIR, fmt_bytes, percentile, print_table, run, tenure_command, write_json  # noqa: E402

MIRROR = Path("/work/.mirror/pallets+flask/repo")
STEP = """
import json, resource, sys, time
from tenure import Tenure
with Tenure.open(sys.argv[1], discover=False) as t:
    start = time.perf_counter()
    report = t.history.update()
    read = time.perf_counter() - start
    start = time.perf_counter()
    episodes = t.episodes.sync()
    rules = t.rules_store.mine()
    after = time.perf_counter() - start
    mapped = t.db.query("SELECT how, COUNT(*) AS n, COUNT(DISTINCT commit_id) AS commits FROM history_symbols"
                        " GROUP BY how ORDER BY how")
print(json.dumps({"report": report, "read": read, "episodes_seconds": after, "episodes": episodes,
                  "rules": len(rules["candidatesNew"]), "promoted": len(rules["promoted"]), "mapped": mapped,
                  "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                  "cpu": sum(getattr(resource.getrusage(who), f) for who in (resource.RUSAGE_SELF,
                             resource.RUSAGE_CHILDREN) for f in ("ru_utime", "ru_stime"))}))
"""
QUERY = """
import json, random, sys, time
from tenure import Tenure
with Tenure.open(sys.argv[1], discover=False) as t:
    fqns = [r["fqn"] for r in t.db.query("SELECT DISTINCT s.fqn FROM episode_symbols s ORDER BY s.fqn")]
    busiest = t.db.query("SELECT fqn FROM episode_symbols GROUP BY fqn ORDER BY COUNT(*) DESC LIMIT 1")
    sample = random.Random(22).sample(fqns, min(int(sys.argv[2]), len(fqns)))  # (the busiest is timed apart)
    start = time.perf_counter()
    t.episodes.what_happened_before(sample[0])  # the first call loads the stores
    first = time.perf_counter() - start
    times, live, expired = [], 0, 0
    for fqn in sample:
        for _ in range(5):
            start = time.perf_counter()
            result = t.episodes.what_happened_before(fqn)
            times.append(time.perf_counter() - start)
        live += result["attempts"]
        expired += result["expired"]
    start = time.perf_counter()
    widest = t.episodes.what_happened_before(busiest[0]["fqn"], include_expired=True)
    widest_s = time.perf_counter() - start
    touched = [r["fqn"] for r in t.db.query("SELECT fqn FROM history_symbols GROUP BY fqn ORDER BY COUNT(*) DESC"
                                            " LIMIT 10")]  # the busiest: packages, the app class and its module
    touching, touching_commits = [], 0
    for fqn in touched:
        for _ in range(5):
            start = time.perf_counter()
            found = t.history.touching([fqn])
            touching.append(time.perf_counter() - start)
        touching_commits = max(touching_commits, len(found))
print(json.dumps({"touching": touching, "touching_most": touching_commits, "times": times, "first": first,
                  "symbols": len(sample), "busiest": busiest[0]["fqn"],
                  "widest": widest_s, "widest_attempts": widest["attempts"] + widest["expired"], "live": live,
                  "expired": expired}))
"""


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def python_step(code: str, *args: str) -> dict:
    result = run([sys.executable, "-c", code, *args], timeout=1800)
    if not result.ok:
        raise SystemExit(f"step failed: {result.describe_failure()}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--git", type=Path, help="a git clone with history (default: flask from --mirror)")
    parser.add_argument("--mirror", type=Path, default=MIRROR)
    parser.add_argument("--sample", type=int, default=50, help="symbols asked `history` of")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    os.environ["TENURE_ENRICH"] = "off"
    work = CACHE_DIR / "history-bench"
    shutil.rmtree(work, ignore_errors=True)
    source = args.git or args.mirror
    if not source.exists():
        raise SystemExit(f"{source} does not exist: fetch pallets/flask (a bare mirror or a clone) and pass --git")
    subprocess.run(["git", "clone", "-q", str(source), str(work)], check=True)
    head = git(work, "rev-parse", "HEAD").strip()
    git(work, "reset", "-q", "--hard", "HEAD^1")
    commits = int(git(work, "rev-list", "--count", "HEAD").strip())
    print(f"{source}: {commits + 1} commits at {head[:12]}; benchmark clone at HEAD^1 in {work}")
    print(f"machine: {os.getloadavg()[0]:.2f} load (1 min), {os.cpu_count()} cores")

    env = {**os.environ, "TENURE_HISTORY": "off"}
    index = subprocess.run([*tenure_command(), "index", str(work), "--json"], capture_output=True, text=True, env=env)
    if index.returncode != 0:
        raise SystemExit(f"tenure index failed: {index.stderr[-500:]}")
    start = time.perf_counter()
    subprocess.run(["git", "-C", str(work), "-c", "core.quotePath=false", "log", "--reverse", "--topo-order",
                    "--format=%H%x00%P%x00%an%x00%ae%x00%aI%x00%cI%x00%B", "--raw", "--no-abbrev", "-M",
                    "--diff-merges=first-parent", "-p", "-U0", "HEAD"], stdout=subprocess.DEVNULL, check=True)
    floor = time.perf_counter() - start

    whole = python_step(STEP, str(work))
    git(work, "merge", "-q", "--ff-only", head)
    subprocess.run([*tenure_command(), "index", str(work), "--json"], capture_output=True, text=True, env=env,
                   check=True)
    one = python_step(STEP, str(work))
    query = python_step(QUERY, str(work), str(args.sample))
    cli = run([*tenure_command(), "history", query["busiest"], "--json", "--repo", str(work)], timeout=120)

    r = whole["report"]
    rate = r["commits_new"] / whole["read"] if whole["read"] else 0
    print_table("whole history", ["step", "figure"], [
        ("commits read", r["commits_new"]), ("thin", r["thin"]), ("reverts", r["reverts"]),
        ("files mapped", r["files_mapped"]),
        ("read + map (GitHistory.update)", f"{whole['read']:.2f} s ({rate:,.0f} commits/s)"),
        ("CPU of the process and its git", f"{whole['cpu']:.2f} s"),
        ("episodes + rules", f"{whole['episodes_seconds']:.2f} s ({whole['episodes']})"),
        ("peak RSS", fmt_bytes(whole["rss"])), ("git log alone (the floor)", f"{floor:.2f} s")])
    print_table("symbols touched, by how they were mapped", ["how", "rows", "commits"],
                [(m["how"], m["n"], m["commits"]) for m in whole["mapped"]])
    print_table("one new commit", ["step", "figure"], [
        ("commits read", one["report"]["commits_new"]), ("files mapped again", one["report"]["files_mapped"]),
        ("GitHistory.update", f"{one['read'] * 1000:.0f} ms"),
        ("episodes + rules", f"{one['episodes_seconds'] * 1000:.0f} ms"), ("peak RSS", fmt_bytes(one["rss"]))])
    times = query["times"]
    print_table(f"history latency (warm API, {query['symbols']} symbols x 5)", ["figure", "value"], [
        ("p50", f"{percentile(times, 50) * 1000:.1f} ms"), ("p95", f"{percentile(times, 95) * 1000:.1f} ms"),
        ("max", f"{max(times) * 1000:.1f} ms"), ("first call (loads the stores)", f"{query['first'] * 1000:.0f} ms"),
        (f"widest ({query['busiest']}, --all: {query['widest_attempts']} attempts)",
         f"{query['widest'] * 1000:.0f} ms"),
        ("CLI, process start included", f"{cli.seconds:.2f} s" + ("" if cli.ok else f" ({cli.describe_failure()})")),
        ("attempts live / expired over the sample", f"{query['live']} / {query['expired']}")])
    touching = query["touching"]
    print_table("GitHistory.touching on the 10 busiest symbols (x 5)", ["figure", "value"], [
        ("p50", f"{percentile(touching, 50) * 1000:.1f} ms"), ("p95", f"{percentile(touching, 95) * 1000:.1f} ms"),
        ("most commits returned", query["touching_most"])])
    write_json(args.json_out, {"whole": whole, "one": one, "query": query, "git_log_floor": floor,
                               "cli_seconds": cli.seconds, "load": os.getloadavg()})


if __name__ == "__main__":
    main()
