"""CPU of the namespace a full index builds at its end (issue 32, point 1): the words index of the symbols,
the phrase ladder and the elements' terms, read from each file's terms (`LineTerms`).

An indexed project (`--path`, a tree whose `.tenure/` a `tenure index` made; by default the Django copy
bench/index_vs_peer.py makes, indexed once here by this tree with `TENURE_HISTORY=off`) is given to each
build (this tree, and `--baseline REV`) as a scratch project: links to its files and a copy of its index.
Then, alternating, `--runs` times each (the builds take turns at running first in a pair): a fresh process
of that build removes what the namespace keeps (the words index and ladder files, the `element_terms`
rows) and runs what `Tenure.index` runs after the structural index, in that build's order and with the
cyclic collector paused as there: `intent.prepare` (words index, ladder) and `schedule_embedding` (the
elements' terms; the embedding itself is off). Reported: the CPU of each (`time.process_time`), its sum,
and the process's imports apart. After the last run, bench/index_digests.py's digests of both builds'
namespace are compared: speed work must leave them as they were.

    python bench/index_vs_peer.py --runs 1     # once, to make the Django copy (or give --path)
    python bench/namespace_cpu.py [--path DIR] [--runs 5] [--baseline a6d394a] [--json-out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import CACHE_DIR, REPO, baseline_src, compiled, print_table, write_json  # noqa: E402

STEP = """
import inspect, json, sys, time
from pathlib import Path
start = time.process_time()
from tenure.api import Tenure
from tenure.collector import cyclic_gc_paused
from tenure.namespace.intent import prepare
from tenure.namespace.line_terms import LineTerms
from tenure.state import state_dir
imports = time.process_time() - start
root = Path(sys.argv[1])
for name in ("intent-files.msgpack", "intent-terms.npz", "intent-phrases.msgpack"):
    (state_dir(root) / name).unlink(missing_ok=True)
with Tenure.open(root, discover=False) as t:
    if t.db.table_exists("element_terms"):
        t.db.execute("DELETE FROM element_terms")
    # (each build in its own order: `Tenure.index` calls one of the two before the other)
    source = inspect.getsource(Tenure.index)
    words_first = source.index("prepare_resolve(") < source.index("schedule_embedding(")
    figures = {}
    with cyclic_gc_paused(freeze_survivors=True):  # (as `Tenure.index` runs them)
        code = LineTerms(root)
        for step in (("words", "elements") if words_first else ("elements", "words")):
            start = time.process_time()
            if step == "words":
                prepare(t.db, t.root, code)
            else:
                t.schedule_embedding(code)
            figures[step] = time.process_time() - start
print(json.dumps({**figures, "imports": imports}))
"""
ENV = {"TENURE_EMBED_BACKGROUND": "off", "TENURE_HISTORY": "off",
       "TENURE_KNOWLEDGE": "off", "TENURE_ENRICH": "off", "PYTHONHASHSEED": "0"}
LABELS = {"words": "intent.prepare: words index, ladder", "elements": "schedule_embedding: element terms",
          "words+elements": "both", "imports": "imports (apart)"}
DIGESTS = ("element terms", "words postings", "words symbols", "ladder entries", "ladder words", "ladder modules")


def default_path() -> Path:
    """The Django copy bench/index_vs_peer.py makes, indexed here once (by this tree, without history)."""
    copies = sorted((CACHE_DIR / "index_vs_peer").glob("Django-5.1.4-*-py-js"))
    if not copies:
        raise SystemExit("no Django copy: run `python bench/index_vs_peer.py --runs 1` once, or give --path")
    indexed = CACHE_DIR / "namespace_cpu" / copies[0].name
    if not (indexed / ".tenure" / "tenure.db").exists():
        shutil.rmtree(indexed, ignore_errors=True)
        shutil.copytree(copies[0], indexed, ignore=shutil.ignore_patterns(".tenure"))
        subprocess.run([sys.executable, "-m", "tenure.cli", "index", str(indexed)], check=True,
                       stdout=subprocess.DEVNULL, env={**os.environ, **ENV, "PYTHONPATH": str(REPO / "src")})
    return indexed


def scratch(source: Path, into: Path) -> Path:
    """A project of links to `source`'s files and a copy of its index."""
    into.mkdir(parents=True)
    for entry in source.iterdir():
        if entry.name != ".tenure":
            (into / entry.name).symlink_to(entry)
    shutil.copytree(source / ".tenure", into / ".tenure")
    return into


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", type=Path, help="an indexed project (default: the Django copy, indexed once)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", help="git revision of tenure to run beside this tree")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    source = (args.path or default_path()).resolve()
    with tempfile.TemporaryDirectory(prefix="namespace-cpu-") as tmp:
        builds = {"tenure": compiled(REPO / "src")}  # (each build's bytecode made first: see `compiled`)
        if args.baseline:
            builds[args.baseline] = compiled(baseline_src(args.baseline, Path(tmp) / "baseline"))
        roots = {name: scratch(source, Path(tmp) / f"project-{i}") for i, name in enumerate(builds)}
        runs: dict[str, list[dict]] = {name: [] for name in builds}
        for run in range(args.runs):
            # (the builds take turns at running first: a pair's first run was seen to be the slower one)
            for name, src in (builds.items() if run % 2 == 0 else reversed(builds.items())):
                out = subprocess.run([sys.executable, "-c", STEP, str(roots[name])], check=True, capture_output=True,
                                     env={**os.environ, **ENV, "PYTHONPATH": str(src)}, text=True).stdout
                runs[name].append(json.loads(out.splitlines()[-1]))
        sys.path.insert(0, str(REPO / "src"))
        from index_digests import digests
        found = {name: digests(root) for name, root in roots.items()}
    rows = []
    for figure in ("words", "elements", "words+elements", "imports"):
        medians = (statistics.median(sum(r[k] for k in figure.split("+")) for r in runs[name]) for name in builds)
        rows.append([LABELS[figure], *(f"{m:.3f} s" for m in medians)])
    print_table(f"namespace CPU, median of {args.runs} ({source})", ["step", *builds], rows)
    if args.baseline:  # (within a pair the load is alike: the ratio of each pair says more than the medians')
        both = [sum(r[k] for k in ("words", "elements")) for r in runs["tenure"]], \
            [sum(r[k] for k in ("words", "elements")) for r in runs[args.baseline]]
        ratios = [a / b for a, b in zip(*both, strict=True)]
        print(f"tenure / {args.baseline}, words+elements, pair by pair: {', '.join(f'{r:.3f}' for r in ratios)}"
              f" (median {statistics.median(ratios):.3f})")
    print_table("namespace digests (bench/index_digests.py)", ["table", *builds, "verdict"],
                [[d, *(found[name].get(d, "-") for name in builds),
                  "same" if len({found[name].get(d) for name in builds}) == 1 else "DIFFERENT"] for d in DIGESTS])
    write_json(args.json_out, {"path": str(source), "runs": runs, "digests": found})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
