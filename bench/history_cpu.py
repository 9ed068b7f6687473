"""CPU of the history step of a full index against the `git log` it streams (issue 32, item 6).

A clone of the repository is indexed once by each build without history (`TENURE_HISTORY=off`; the index
is kept as that build's template). Then, alternating, `--runs` times each:

- **git**: the exact `git log` tenure streams (`gitlog.command` + `gitlog.log_arguments`, the
  languages' diff drivers included), output to /dev/null: the floor any reader of it stands on;
- **tenure** (and `--baseline REV`, a build of another revision): a fresh process on a copy of the
  template index runs what `Tenure.read_history` runs, and reports the CPU (user + sys, its own and
  the git processes it waited for) of each step:
  - *read*: `GitHistory.update()` without its mapping: the streamed `git log` parsed (hunks, the
    names changed lines define, survival's reformatted and moved lines), commits and changes stored,
    reverts found;
  - *map*: `GitHistory.remap` (inside `update`): every indexed file's history carried onto today's
    symbols, the blame of today's lines, the touched symbols stored;
  - *episodes + rules*: `episodes.sync()` and `rules_store.mine()` (the rest of `read_history`).
  The history modules and numpy are imported before the clock starts (a full index loads numpy anyway,
  for resolve's terms); their import is reported apart, and so is the whole child process (interpreter
  start, imports, opening the index).

Medians over the runs; the ratios are medians of each run's ratio to the git run beside it. After the
last run of each build every table of its index is hashed (the clock's stamps of a run left out) and the
builds' tables are compared: a speed change must leave what the history step stores as it was.

    python bench/history_cpu.py [--git /work/repos/flask] [--runs 5] [--baseline b015e4a] [--json-out FILE]

`--git` a repository of one commit adding every file (Django 5.1.4 as "init": what a shallow clone or
bench/index_vs_peer.py indexes) measures the other extreme: one diff of the whole tree, every file mapped,
one episode touching every symbol.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import CACHE_DIR, REPO, baseline_src, print_table, write_json  # noqa: E402

SOURCE = Path("/work/repos/flask")
STEP = """
import json, resource, sys, time
from tenure import Tenure
from tenure.history.api import GitHistory

def cpu():
    return sum(getattr(resource.getrusage(who), f) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
               for f in ("ru_utime", "ru_stime"))

mapped = [0.0]
remap = GitHistory.remap
def timed_remap(self, *args, **kwargs):
    start = cpu()
    try:
        return remap(self, *args, **kwargs)
    finally:
        mapped[0] += cpu() - start
GitHistory.remap = timed_remap

with Tenure.open(sys.argv[1], discover=False) as t:
    start = cpu()
    from tenure.history import mapping  # noqa: F401  (numpy: a full index loads it anyway, for resolve)
    imports = cpu() - start
    start, wall = cpu(), time.perf_counter()
    report = t.history.update()
    updated, updated_wall = cpu(), time.perf_counter()
    t.episodes.sync()
    t.rules_store.mine()
    done, done_wall = cpu(), time.perf_counter()
print(json.dumps({"read": updated - start - mapped[0], "map": mapped[0], "episodes": done - updated, "imports": imports,
                  "update_wall": updated_wall - wall, "step_wall": done_wall - wall,
                  "commits": report["commits_new"], "files": report["files_mapped"]}))
"""
COMMAND = """
import json, sys
from pathlib import Path
from tenure.history import gitlog, languages
Path(sys.argv[2]).write_text(languages.attributes())
head = gitlog.git(Path(sys.argv[1]), "rev-parse", "HEAD").strip()
# as GitHistory.update asks for a store with no commits yet
print(json.dumps(gitlog.command(Path(sys.argv[1]), gitlog.log_arguments(["--ignore-missing", head, "--not"]),
                                sys.argv[2])))
"""


# columns holding the wall clock of a run (when a rule was mined, a migration applied; `sealed` signs them too)
_STAMPS = {"at", "applied_at", "created_at", "changed_at", "sealed"}
_DRAWN = {"memory_meta": {"value"}}  # (columns drawn at random per run: the project's id and key id)
STEPS = (  # (label, figure, wall figure)
    ("read (git log + parse + store)", "read", None), ("map onto symbols", "map", None),
    ("read + map: GitHistory.update", "read+map", "update_wall"), ("episodes + rules", "episodes", None),
    ("history step: read_history", "read+map+episodes", "step_wall"),
    ("numpy + history.mapping imported before the clock", "imports", None),
    ("whole process (start, imports, open)", "process", "process_wall"))


def _figure(run: dict, key: str) -> float:
    return sum(run[k] for k in key.split("+"))


def table_digests(state: Path) -> dict[str, tuple[int, str]]:
    """Every table of the index in `state`: (rows, a hash of its rows in key order, `_STAMPS` and `_DRAWN`
    left out)."""
    found = {}
    for path in sorted(state.rglob("*.db")):
        db = sqlite3.connect(path)
        try:
            for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").fetchall():
                columns = [c[1] for c in db.execute(f"PRAGMA table_info('{table}')")
                           if c[1] not in _STAMPS | _DRAWN.get(table, set())]
                digest, rows = hashlib.sha1(), 0
                # (double quotes: a name in single quotes is a string literal there, the same in every row)
                names = ", ".join(f'"{c}"' for c in columns)
                for row in db.execute(f"SELECT {names} FROM \"{table}\" ORDER BY"
                                      f" {', '.join(str(k + 1) for k in range(len(columns)))}"):
                    digest.update(repr(row).encode())
                    rows += 1
                found[f"{path.name}:{table}"] = (rows, digest.hexdigest()[:12])
        finally:
            db.close()
    return found


def tree_cpu(argv: list[str], env: dict | None = None, stdout: int | None = subprocess.PIPE
             ) -> tuple[float, float, str]:
    """(CPU seconds of the process tree, wall seconds, stdout): wait4 on the child itself."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.PIPE, env=env)
    out = proc.stdout.read() if proc.stdout else b""
    err = proc.stderr.read() if proc.stderr else b""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if proc.returncode:
        raise SystemExit(f"{' '.join(argv[:4])} failed: {err.decode(errors='replace')[-800:]}")
    return usage.ru_utime + usage.ru_stime, wall, out.decode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--git", type=Path, default=SOURCE, help="a git repository with history (default: flask)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", help="also run this revision of tenure (e.g. b015e4a), alternating")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    work = CACHE_DIR / "history-cpu"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    repo = work / "repo"
    subprocess.run(["git", "clone", "-q", str(args.git), str(repo)], check=True)
    commits = subprocess.run(["git", "-C", str(repo), "rev-list", "--count", "HEAD"], check=True, capture_output=True,
                             text=True).stdout.strip()
    # the seed `tenure index` fixes for a first index (`tenure.entry`): the CLI's `app()` called from a script
    # keeps its process's seed, and a random one builds another graph (capped value sets) from run to run
    env = {**os.environ, "TENURE_HISTORY": "off", "TENURE_KNOWLEDGE": "off", "TENURE_ENRICH": "off",
           "TENURE_EMBED_BACKGROUND": "off", "TENURE_EMBEDDINGS": "none", "PYTHONPATH": str(REPO / "src"),
           "PYTHONHASHSEED": "0"}
    builds = {"tenure": env}
    if args.baseline:
        builds[f"tenure {args.baseline}"] = {**env, "PYTHONPATH": str(baseline_src(args.baseline, work / "baseline"))}
    # each build indexes its own template: a newer build's migrations are refused by an older one
    templates = {}
    for i, (name, build_env) in enumerate(builds.items()):
        shutil.rmtree(repo / ".tenure", ignore_errors=True)
        index = subprocess.run([sys.executable, "-c", "import sys; from tenure.cli import app; sys.argv[0] = 'tenure';"
                                " app()", "index", str(repo), "--json"], env=build_env, capture_output=True, text=True)
        if index.returncode:
            raise SystemExit(f"{name}: tenure index failed: {index.stderr[-800:]}")
        templates[name] = work / f"template-{i}"
        shutil.copytree(repo / ".tenure", templates[name])
    git_log = json.loads(subprocess.run([sys.executable, "-c", COMMAND, str(repo), str(work / "attributes")],
                                        env=env, check=True, capture_output=True, text=True).stdout)
    print(f"{args.git}: {commits} commits; clone and template index in {work}")
    print("the floor:", " ".join(git_log), "> /dev/null")

    figures: dict[str, list[dict]] = {"git": [], **{name: [] for name in builds}}
    tables: dict[str, dict[str, tuple[int, str]]] = {}
    for run in range(args.runs):
        cpu, wall, _ = tree_cpu(git_log, stdout=subprocess.DEVNULL)
        figures["git"].append({"cpu": cpu, "wall": wall, "load": os.getloadavg()[0]})
        for name, build_env in builds.items():
            shutil.rmtree(repo / ".tenure")
            shutil.copytree(templates[name], repo / ".tenure")
            cpu, wall, out = tree_cpu([sys.executable, "-c", STEP, str(repo)], env={**build_env,
                                                                                    "TENURE_HISTORY": "on"})
            step = json.loads(out.strip().splitlines()[-1])
            figures[name].append({**step, "process": cpu, "process_wall": wall, "load": os.getloadavg()[0]})
            if run == args.runs - 1:
                tables[name] = table_digests(repo / ".tenure")
        print(f"run {run + 1}/{args.runs}: git {figures['git'][-1]['cpu']:.2f} s, " + ", ".join(
            f"{name} {f[-1]['read'] + f[-1]['map']:.2f} s + {f[-1]['episodes']:.2f} s"
            for name, f in figures.items() if name != "git"), flush=True)

    def median(name: str, key: str) -> float:
        return statistics.median(_figure(f, key) for f in figures[name])

    def per_git(name: str, key: str) -> float:
        return statistics.median(_figure(f, key) / g["cpu"] for f, g in zip(figures[name], figures["git"], strict=True))

    rows = [("git log > /dev/null (the floor)", f"{median('git', 'cpu'):.2f}", "1.00", f"{median('git', 'wall'):.2f}")]
    for name in builds:
        for label, key, wall in STEPS:
            rows.append((f"{name}: {label}", f"{median(name, key):.2f}", f"{per_git(name, key):.2f}",
                         f"{median(name, wall):.2f}" if wall else ""))
    first = figures["tenure"][0]
    print(f"\ntenure read {first['commits']} commits and mapped {first['files']} files per run")
    loads = [f["load"] for fs in figures.values() for f in fs]
    print_table(f"CPU seconds (user+sys, process trees), medians of {args.runs} alternating runs; load "
                f"{min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores",
                ["what", "CPU s", "x git (median of pairs)", "wall s"], rows)
    for name in list(builds)[1:]:
        def differing(ours: dict, theirs: dict) -> list[str]:
            return sorted(t for t in ours.keys() | theirs.keys() if ours.get(t) != theirs.get(t))
        differ = differing(tables["tenure"], tables[name])
        # (a table the builds' own index runs already wrote differently is the index's, not the step's)
        indexed = set(differing(table_digests(templates["tenure"]), table_digests(templates[name])))
        rows = sum(n for n, _ in tables["tenure"].values())
        print(f"\ntables after the step, tenure against {name}: " + (
            f"all {len(tables[name])} identical ({rows:,} rows)" if not differ else
            "DIFFERENT: " + ", ".join(f"{t} {tables['tenure'].get(t)} vs {tables[name].get(t)}"
                                      + (" (so were the two builds' indexes before the step)" if t in indexed else "")
                                      for t in differ)))
    write_json(args.json_out, {"figures": figures, "git_log": git_log, "commits": commits, "tables": tables})


if __name__ == "__main__":
    main()
