"""The resolve stage of a full index alone, two builds alternating: the CPU of its worker processes.

    python bench/resolve_cpu.py --baseline 8f001f0c --runs 5 [--path DIR] [--serial]

DIR (default: a copy of Django 5.1.4's sdist under ``$TENURE_BENCH_CACHE``, indexed once with this
tree) holds an index; each run reads its facts and symbols as a full index does, then resolves every
Python file again as ``workers.resolve_all`` does (``--serial``: in one process, in order) in a new
process with one build's ``src`` on PYTHONPATH (the string-hash seed fixed, as an index's workers run),
and nothing is written. The index keeps analyses as an index's does (``keeps_analyses``): the workers
leave each other the analyses of other modules they make, and encode them for the store. Printed per
run: the summed CPU of the worker processes (user + sys), the process's own, and a digest of what the
files' resolutions store (edges, reads, missing modules, and the answers as bench/index_digests.py
takes them: question and answer digest pairs, in no order, without their key filters, which depend on
which worker analysed a module first); then the medians and this tree's ratio to the baseline. The two
builds must give the same digest. A whole index varies
±12% run to run on a loaded 2-core machine; this stage, alternating, a few percent.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import CACHE_DIR, baseline_src, compiled

HERE = Path(__file__).resolve().parent.parent / "src"
DJANGO = CACHE_DIR / "src/Django-5.1.4/Django-5.1.4"

# Run in the measured process: resolve every Python file of the index at sys.argv[1], print
# "worker-cpu own-cpu digest".
_RESOLVE = r"""
import hashlib, resource, sys, time
import msgspec
from tenure import Tenure
from tenure.collector import cyclic_gc_paused
from tenure.structural import workers
from tenure.structural.resolve import ProjectIndex
from tenure.structural.store import _key_id

store = Tenure.open(sys.argv[1], discover=False).structural
rows = store.db.query("SELECT id, path, module, language FROM files "
                      "WHERE parse_status IN ('ok', 'partial') ORDER BY id")
index = ProjectIndex(load_facts=store.load_facts, lazy=store, load_digest=store.facts_digest, keeps_analyses=True)
index.add_modules((r["module"], r["path"]) for r in rows)
todo = [(r["id"], r["path"], r["language"]) for r in rows if r["language"] == "python"]
digest = hashlib.blake2b(digest_size=8)


def answers(blob):  # (question, answer digest) pairs, as bench/index_digests.py digests them
    if blob is None:
        return None
    fmt, digests, _filters, questions, _wide = msgspec.msgpack.decode(blob)
    return fmt, sorted((msgspec.msgpack.encode(q), digests[i * 8 : (i + 1) * 8]) for i, q in enumerate(questions))


def read_ids(keys):  # (a build sends a file's reads as key strings or as the store's ids of them)
    return sorted({_key_id(k) if isinstance(k, str) else k for k in keys})


before, own = resource.getrusage(resource.RUSAGE_CHILDREN), time.process_time()
with cyclic_gc_paused():
    if sys.argv[2] == "serial":
        index.complete()
        index.fixed = True
        done = (workers._resolve_one(index, *item) for item in todo)
    else:
        done = workers.resolve_all(index, todo)
    digesting = 0.0  # (the digest's CPU is left out of the process's own)
    for resolved in done:
        started = time.process_time()
        digest.update(msgspec.msgpack.encode((
            sorted((e.src, e.dst or "", e.relation, e.tier, e.line, e.name, e.detail) for e in resolved.edges),
            read_ids(resolved.deps), sorted(msgspec.msgpack.decode(resolved.missing)), answers(resolved.answers))))
        digesting += time.process_time() - started
own = time.process_time() - own - digesting
after = resource.getrusage(resource.RUSAGE_CHILDREN)
child = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
print(f"{child:.2f} {own:.2f} {digest.hexdigest()}")
"""


def indexed(path: Path | None) -> Path:
    """DIR, or a copy of Django indexed once with this tree (kept in the cache for later runs)."""
    if path is not None:
        return path
    target = CACHE_DIR / "resolve_cpu" / "django"
    if not (target / ".tenure").exists():
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(DJANGO, target)
        env = {**os.environ, "PYTHONPATH": str(HERE)}
        subprocess.run([sys.executable, "-c", "import sys; from tenure.entry import main; "
                        "sys.argv = ['tenure', 'index', '.']; main()"], cwd=target, env=env, check=True,
                       stdout=subprocess.DEVNULL)
    return target


def one_run(src: Path, root: Path, mode: str) -> tuple[float, float, str]:
    env = {**os.environ, "PYTHONPATH": str(src), "PYTHONHASHSEED": "0"}
    out = subprocess.run([sys.executable, "-c", _RESOLVE, str(root), mode], env=env, check=True,
                         capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1]), out[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, help="a git revision (or another build's src directory)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--path", type=Path, default=None, help="an indexed directory (default: Django)")
    parser.add_argument("--serial", action="store_true", help="resolve in one process, in order")
    args = parser.parse_args()
    mode = "serial" if args.serial else "workers"
    with tempfile.TemporaryDirectory(prefix="resolve-cpu-") as scratch:
        baseline = Path(args.baseline)
        if not baseline.is_dir():
            baseline = baseline_src(args.baseline, Path(scratch) / "baseline")
        root = indexed(args.path)
        builds = {"baseline": compiled(baseline), "this tree": compiled(HERE)}
        got: dict[str, list[tuple[float, float, str]]] = {name: [] for name in builds}
        for n in range(args.runs):
            for name, src in builds.items():
                got[name].append(one_run(src, root, mode))
                cpu, own, digest = got[name][-1]
                print(f"run {n + 1} {name:9} {mode} CPU {cpu:6.2f} s, own {own:5.2f} s, resolutions {digest}",
                      flush=True)
        medians = {name: statistics.median(c + o for c, o, _ in runs) for name, runs in got.items()}
        ratios = [(t[0] + t[1]) / (b[0] + b[1]) for t, b in zip(got["this tree"], got["baseline"], strict=True)]
        digests = {d for runs in got.values() for _, _, d in runs}
        print(f"median CPU (workers + own): baseline {medians['baseline']:.2f} s, this tree "
              f"{medians['this tree']:.2f} s; ratio per pair median {statistics.median(ratios):.3f} "
              f"({', '.join(f'{r:.3f}' for r in ratios)}); "
              f"resolution digests {'equal' if len(digests) == 1 else 'DIFFER'}")


if __name__ == "__main__":
    main()
