"""The knowledge store on a real repository with its history (issue 21, item 8).

    python bench/knowledge_build.py [--git /work/.mirror/pallets+flask/repo] [--embed] [--why-samples 300]

A clone of `--git` (any clone of github.com/pallets/flask will do) is made in the cache, its last
commit held back, and `tenure index` run. Then, each `tenure knowledge build` in a fresh process:

1. the offline build (history included): wall, peak RSS, seconds per step, commits/s, documents/s;
2. a rebuild of the unchanged corpus (nothing read again);
3. the held-back commit applied: the update after one new commit, UPDATE_RUNS times from the same store
   (copied back before each): the CLI's wall and CPU time in a fresh process, the build's own time (the
   sum of its steps), and what the rest is, beside an interpreter's bare start and the CLI's start with
   no work (`tenure knowledge build --help`) measured in the same minutes; then the same for a code commit
   (a one-line edit of `url_for` in src/flask/helpers.py, which 483 commits changed, committed and indexed),
   after which the repository and the store go back to the held-back commit;
4. model mode against an OpenAI-compatible server on loopback whose "model" answers what the offline
   extraction finds (so the pipeline's real batching, gleaning, summarising and reporting make their real
   calls): calls and tokens per 100k corpus tokens, beside microsoft/graphrag's defaults computed on
   the same corpus (`tenure knowledge check`), then a rebuild (0 calls);
5. `why` latency p50/p95 over sampled symbols (warm API) and once through the CLI.
`--embed` adds the embeddings step (all-MiniLM-L6-v2 in NumPy: minutes on 2 cores).

The tenure processes run with Python's bytecode cache on, as an installed tenure has it (an environment
that sets PYTHONDONTWRITEBYTECODE would otherwise compile every module from source in every process).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import CACHE_DIR, percentile, tenure_command  # noqa: E402
from tenure.knowledge import offline  # noqa: E402
from tests.knowledge_support import canned_answer, fake_model  # noqa: E402

MIRROR = "/work/.mirror/pallets+flask/repo"
UPDATE_RUNS = 3
CODE_FILE = "src/flask/helpers.py"
CODE_EDIT = ("def url_for(", "def url_for(  # keeps the anchor")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--git", default=MIRROR, help="a git repository with history to clone")
    parser.add_argument("--embed", action="store_true", help="also time the embeddings step")
    parser.add_argument("--why-samples", type=int, default=300)
    parser.add_argument("--tenure", help="command that runs tenure (default: tenure on PATH)")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    tenure = tenure_command(args.tenure)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # (see the module's doc)
    repo = CACHE_DIR / "knowledge-flask"
    shutil.rmtree(repo, ignore_errors=True)
    subprocess.run(["git", "clone", "-q", args.git, str(repo)], check=True)
    held_back = _git(repo, "rev-parse", "HEAD")
    _git(repo, "reset", "-q", "--hard", "HEAD~1")
    print(f"machine: {os.getloadavg()[0]:.2f} load (1 min), {os.cpu_count()} cores")
    figures: dict = {"repository": args.git, "commits": int(_git(repo, "rev-list", "--count", "HEAD"))}

    # the structural index alone: the history and the knowledge build that `tenure index` also runs are read
    # and timed below, by the first build
    index = run_timed([*tenure, "index", str(repo)], cwd=repo,
                      env={**os.environ, "TENURE_KNOWLEDGE": "off", "TENURE_HISTORY": "off"})
    figures["structural_index_s"] = round(index.wall, 2)

    def build(*extra: str, env: dict | None = None) -> tuple[dict, Timed]:
        timed = run_timed([*tenure, "knowledge", "build", "--json", "--repo", str(repo), *extra], cwd=repo,
                          env={**os.environ, **(env or {})})
        if timed.returncode not in (0, 3):
            raise SystemExit(f"build failed: {timed.stderr[-2000:]}")
        return json.loads(timed.stdout), timed

    first, timed = build("--no-embed")
    history = first["history"]
    ingest = first["steps"]["ingest"]
    figures["offline_build"] = {
        "wall_s": round(timed.wall, 2), "peak_rss_mb": round(timed.max_rss_mb), "steps_s": first["seconds"],
        "history_s": history.get("seconds"), "commits": history.get("commits_new"),
        "commits_per_s": round(history["commits_new"] / history["seconds"]) if history.get("seconds") else None,
        "documents": ingest["documents"],
        "documents_per_s": round(ingest["documents"] / (first["seconds"]["ingest"] or 1e-9)),
        "entities": first["steps"]["merge"]["entities"], "relationships": first["steps"]["merge"]["relationships"],
        "communities": first["steps"]["communities"]["communities"], "join": first["steps"]["join"]}
    again, timed = build("--no-embed")
    figures["rebuild_unchanged_s"] = round(timed.wall, 2)
    figures["update_one_commit"] = _update(repo, tenure, build, lambda: _git(repo, "reset", "-q", "--hard", held_back))
    store = repo / ".tenure" / "tenure.db"
    settled = store.with_name("settled.db")
    shutil.copy(store, settled)
    figures["update_code_commit"] = _update(repo, tenure, build, lambda: _code_commit(repo, tenure))
    _git(repo, "reset", "-q", "--hard", held_back)  # (what follows runs at the held-back commit, as before)
    _restore(settled, store)
    settled.unlink()
    if args.embed:
        embedded, timed = build()
        figures["embeddings"] = {"wall_s": round(timed.wall, 2), "step": embedded["steps"].get("embeddings")}

    figures["why"] = _why_latency(repo, tenure, args.why_samples)
    figures["model_mode"] = _model_mode(repo, tenure, build)
    _print(figures)
    if args.json_out:
        args.json_out.write_text(json.dumps(figures, indent=2))


def _update(repo: Path, tenure: list[str], build, apply) -> dict:
    """A commit `apply` makes (and indexes, if it is code), then the update from copies of the same store,
    UPDATE_RUNS times."""
    store = repo / ".tenure" / "tenure.db"
    before = store.with_name("before-update.db")
    apply()
    shutil.copy(store, before)  # (the last process closed the store: its WAL is checkpointed into the file)
    runs = []
    for _ in range(UPDATE_RUNS):
        _restore(before, store)
        report, timed = build("--no-embed")
        runs.append((timed.wall, timed.cpu, sum(report["seconds"].values()), report))
    before.unlink()
    walls, cpus, steps = ([r[i] for r in runs] for i in range(3))
    fastest = min(runs, key=lambda r: r[0])
    bare = [run_timed([sys.executable, "-c", "pass"], cwd=repo) for _ in range(UPDATE_RUNS)]
    idle = [run_timed([*tenure, "knowledge", "build", "--help"], cwd=repo) for _ in range(UPDATE_RUNS)]
    ingest = fastest[3]["steps"]["ingest"]
    return {"runs": UPDATE_RUNS, "wall_s": round(min(walls), 3), "wall_median_s": round(percentile(walls, 50), 3),
            "cpu_s": round(min(cpus), 3), "build_s": round(min(steps), 3),
            "steps_s": fastest[3]["seconds"],
            "outside_build_s": round(fastest[0] - fastest[2], 3),  # process start, imports, opening the store
            "python_start_s": round(min(t.wall for t in bare), 3),
            "cli_start_s": round(min(t.wall for t in idle), 3),
            "documents_changed": ingest["new"] + ingest["changed"],
            "steps_run": sorted(fastest[3]["steps"])}


def _restore(copy: Path, store: Path) -> None:
    for leftover in (store.with_name(store.name + "-wal"), store.with_name(store.name + "-shm")):
        leftover.unlink(missing_ok=True)
    shutil.copy(copy, store)


def _code_commit(repo: Path, tenure: list[str]) -> None:
    """A one-line edit of a function in a file that hundreds of commits changed, committed, then `tenure
    index` (its history maps the file onto its symbols again; the knowledge build is the one timed)."""
    path = repo / CODE_FILE
    text = path.read_text()
    edited = text.replace(CODE_EDIT[0], CODE_EDIT[1], 1)
    if edited == text:
        raise SystemExit(f"{CODE_FILE} has no {CODE_EDIT[0]!r} to edit: the code-commit case needs flask")
    path.write_text(edited)
    _git(repo, "-c", "user.name=Bench", "-c", "user.email=bench@example.com", "commit", "-q", "-am",
         "url_for keeps the anchor when _external is set")
    index = run_timed([*tenure, "index", str(repo)], cwd=repo, env={**os.environ, "TENURE_KNOWLEDGE": "off"})
    if index.returncode:
        raise SystemExit(f"index failed: {index.stderr[-2000:]}")


def _why_latency(repo: Path, tenure: list[str], samples: int) -> dict:
    from tenure import Tenure

    with Tenure.open(repo) as t:
        linked = [r[0] for r in t.db.rows("SELECT DISTINCT fqn FROM knowledge_entity_symbols ORDER BY fqn")]
        others = [r[0] for r in t.db.rows("SELECT fqn FROM symbols WHERE kind <> 'lambda' ORDER BY fqn")]
        rng = random.Random(21)
        names = rng.sample(linked, min(len(linked), samples // 2)) + rng.sample(others, min(len(others), samples // 2))
        t.knowledge.why(names[0])  # the first call opens what later ones share (the history's tables)
        times, answered = [], 0
        for name in names:
            started = time.perf_counter()
            answer = t.knowledge.why(name)
            times.append((time.perf_counter() - started) * 1000)
            answered += bool(answer["evidence"] or answer["commits"]["total"])
    cli = run_timed([*tenure, "why", "url_for", "--json", "--repo", str(repo)], cwd=repo)
    return {"samples": len(times), "with_an_answer": answered, "p50_ms": round(percentile(times, 50), 1),
            "p95_ms": round(percentile(times, 95), 1), "max_ms": round(max(times), 1),
            "cli_cold_s": round(cli.wall, 2)}


def offline_answer(messages: list[dict]) -> str:
    """A stand-in model that finds what the offline extraction finds (the estimate's assumption too), and
    answers summaries and reports as the test model does."""
    system = messages[0]["content"]
    if "extract the knowledge graph" not in system or "may have been missed" in messages[-1]["content"]:
        return canned_answer(messages)
    entities, relationships = [], []
    for unit, body in re.findall(r"\[(u\d+)\] \([^\n]*\)\n(.*?)(?=\n\n\[u\d+\] \(|\Z)", messages[1]["content"],
                                  re.DOTALL):
        found = offline.extract(body, "")
        entities += [{"name": m.name, "type": "component", "description": m.description, "units": [unit]}
                     for m in found.mentions.values()]
        names = {m.key: m.name for m in found.mentions.values()}
        relationships += [{"source": names[link.source], "target": names[link.target], "description": link.description,
                           "weight": 5, "units": [unit]} for link in found.links.values()]
    return json.dumps({"entities": entities, "relationships": relationships})


def _model_mode(repo: Path, tenure: list[str], build) -> dict:
    check = json.loads(subprocess.run([*tenure, "knowledge", "check", "--json", "--repo", str(repo)],
                                      capture_output=True, text=True, check=True).stdout)
    with fake_model(offline_answer) as model:
        env = {"TENURE_LLM": "openai", "TENURE_LLM_URL": model.url, "TENURE_LLM_MODEL": "offline-stand-in"}
        started = time.perf_counter()
        built, timed = build("--no-embed", env=env)
        seconds = time.perf_counter() - started
        rebuilt, _ = build("--no-embed", env=env)
    corpus = check["corpus"]["tokens"]
    use = built["model"]
    return {
        "corpus_tokens": corpus, "tokenizer": check["tokenizer"], "wall_s": round(seconds, 1),
        "calls": use["calls"], "tokens": use["prompt_tokens"] + use["completion_tokens"],
        "steps": {k: v["calls"] for k, v in use["steps"].items()},
        "calls_per_100k": round(use["calls"] * 100_000 / corpus, 1),
        "tokens_per_100k": round((use["prompt_tokens"] + use["completion_tokens"]) * 100_000 / corpus),
        "estimated_tenure_per_100k": check["per_100k_corpus_tokens"]["tenure"],
        "graphrag_defaults_per_100k": check["per_100k_corpus_tokens"]["graphrag"],
        "graphrag_defaults_steps": {k: v["calls"] for k, v in check["estimate"]["graphrag_defaults"].items()},
        "rebuild_calls": rebuilt["model"]["calls"],
    }


def _print(f: dict) -> None:
    b = f["offline_build"]
    print(f"repository {f['repository']}: {f['commits']} commits; structural index {f['structural_index_s']} s")
    print(f"offline build (history included): {b['wall_s']} s wall, {b['peak_rss_mb']} MB peak RSS; "
          f"steps {b['steps_s']}")
    print(f"  history {b['commits']} commits in {b['history_s']} s ({b['commits_per_s']} commits/s); "
          f"{b['documents']} documents ingested at {b['documents_per_s']} documents/s")
    print(f"  graph {b['entities']} entities, {b['relationships']} relationships, {b['communities']} communities;"
          f" join {b['join']}")
    print(f"rebuild, unchanged: {f['rebuild_unchanged_s']} s")
    for what, u in (("one new commit", f["update_one_commit"]), (f"one code commit ({CODE_FILE})",
                                                                 f["update_code_commit"])):
        print(f"update after {what} ({u['documents_changed']} documents new or changed), best of {u['runs']}:"
              f" CLI {u['wall_s']} s wall (median {u['wall_median_s']} s), {u['cpu_s']} s CPU, in a fresh process;"
              f" the build itself {u['build_s']} s {u['steps_s']}")
        print(f"  outside the build {u['outside_build_s']} s: process start, imports, opening the store (beside: a"
              f" bare `python -c pass` {u['python_start_s']} s, `tenure knowledge build --help` {u['cli_start_s']} s)")
    if "embeddings" in f:
        print(f"embeddings: {f['embeddings']['wall_s']} s ({f['embeddings']['step']})")
    w = f["why"]
    print(f"why (warm API, {w['samples']} symbols, {w['with_an_answer']} with an answer): p50 {w['p50_ms']} ms, "
          f"p95 {w['p95_ms']} ms, max {w['max_ms']} ms; CLI, process start included: {w['cli_cold_s']} s")
    m = f["model_mode"]
    print(f"model mode ({m['corpus_tokens']:,} corpus tokens, {m['tokenizer']}): {m['calls']} calls {m['steps']}, "
          f"{m['tokens']:,} tokens = {m['calls_per_100k']} calls, {m['tokens_per_100k']:,} tokens per 100k; "
          f"rebuild {m['rebuild_calls']} calls")
    g = m["graphrag_defaults_per_100k"]
    print(f"  graphrag defaults on the same corpus: {g['calls']} calls, {g['tokens']:,} tokens per 100k "
          f"{m['graphrag_defaults_steps']}; tenure's own estimate {m['estimated_tenure_per_100k']}")


@dataclass
class Timed:
    stdout: str
    stderr: str
    returncode: int
    wall: float
    max_rss_mb: float  # the process's own peak (getrusage of that child alone)
    cpu: float = 0.0  # user + system seconds of the process and the processes it waited for (git)


def run_timed(argv: list[str], cwd: Path, env: dict | None = None) -> Timed:
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Timed(out.read(), err.read(), proc.returncode, wall, usage.ru_maxrss / 1024,
                     usage.ru_utime + usage.ru_stime)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout.strip()


if __name__ == "__main__":
    main()
