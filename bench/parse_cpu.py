"""CPU seconds of the parse phase (`parse.parse_one`) over a tree, split into tree-sitter parse,
extractor and encode; this build against a baseline git revision in the same run, and a check that
both give byte-identical encoded facts for every file.

    python bench/parse_cpu.py [--path DIR ...] [--baseline REV] [--runs 3]

Each build runs serially in a subprocess of its own (`PYTHONPATH` = its `src/`), so the two never
share a cache; the baseline's `src/` is taken with `git archive`. Figures are `time.process_time()`
seconds, the best of `--runs`, with the cyclic garbage collector off as in the index's parse workers (on,
it adds 7-8% to parse_one's figure on Django); the two builds take turns, run by run, so that a change in
the load of a shared machine weighs on both alike. Without `--path` the Django 5.1.4 sdist is fetched and
unpacked under the bench cache.
"""

from __future__ import annotations

import argparse
import gc
import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import REPO, baseline_src, fetch_sdist

PHASES = ("tree-sitter parse", "extractor", "encode", "parse_one total")


def _files(roots: list[Path]) -> list[tuple[str, str, bytes]]:
    """(language, path, content) of every file tenure indexes under the roots, in a stable order."""
    from tenure.structural.languages import language_for

    items = []
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for name in sorted(filenames):
                full = Path(dirpath, name)
                rel = full.relative_to(root).as_posix()
                spec = language_for(rel)
                if spec is not None and full.is_file():
                    items.append((spec.name, rel, full.read_bytes()))
    return items


def _measure(items: list[tuple[str, str, bytes]]) -> tuple[dict[str, float], list]:
    """CPU seconds per phase, and what parse_one returned for each file."""
    from tenure.structural.facts import encode_facts
    from tenure.structural.languages import language_table

    try:
        from tenure.structural.parse import extractor, parse_one
    except ImportError:  # a baseline from before parsing left the indexer
        from tenure.structural.indexer import _extractor as extractor
        from tenure.structural.indexer import parse_one

    table = language_table()
    parse_one(*items[0])  # imports and first-use caches (parsers, queries) are no part of the phase
    spent = dict.fromkeys(PHASES, 0.0)
    for language, path, content in items:  # the phases one by one, as parse_one runs them
        spec = table[language]
        t0 = time.process_time()
        tree = spec.parser().parse(content)
        t1 = time.process_time()
        try:
            facts = extractor(spec.extractor)(spec, tree, path)
        except Exception:  # parse_one records it; the whole call is timed below
            continue
        t2 = time.process_time()
        encode_facts(facts)
        t3 = time.process_time()
        spent["tree-sitter parse"] += t1 - t0
        spent["extractor"] += t2 - t1
        spent["encode"] += t3 - t2
    t0 = time.process_time()
    outputs = [parse_one(*item) for item in items]
    spent["parse_one total"] = time.process_time() - t0
    return spent, outputs


def _worker(args: argparse.Namespace) -> None:
    gc.disable()  # as in the index's parse workers (forked inside `cyclic_gc_paused`)
    items = _files([Path(p) for p in args.path])
    figures, outputs = _measure(items)
    with open(args.out, "wb") as out:
        pickle.dump({"figures": figures, "paths": [p for _, p, _ in items], "outputs": outputs}, out)


def _run_build(src: Path, args: argparse.Namespace, out: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src), "PYTHONHASHSEED": "0", "TENURE_ENRICH": "off"}
    cmd = [sys.executable, __file__, "--worker", "--out", str(out)]
    for p in args.path:
        cmd += ["--path", p]
    subprocess.run(cmd, env=env, check=True)
    with open(out, "rb") as f:
        return pickle.load(f)


def _default_path() -> str:
    return str(fetch_sdist("django", "5.1.4"))  # read only: the shared unpacked copy serves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--path", action="append", help="a tree to parse (repeatable); default Django 5.1.4")
    parser.add_argument("--baseline", default="HEAD", help="git revision to compare with (default HEAD)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _worker(args)
        return
    args.path = args.path or [_default_path()]
    with tempfile.TemporaryDirectory() as tmp:
        base_src = baseline_src(args.baseline, Path(tmp, "baseline"))
        runs = [(_run_build(base_src, args, Path(tmp, "base.pickle")),
                 _run_build(REPO / "src", args, Path(tmp, "this.pickle"))) for _ in range(args.runs)]
    base, this = runs[-1]  # the outputs compared are those of the last run
    best = [{phase: min(run[build]["figures"][phase] for run in runs) for phase in PHASES} for build in (0, 1)]
    differ = [path for path, a, b in zip(base["paths"], base["outputs"], this["outputs"], strict=True) if a != b]
    print(f"{len(base['paths'])} files under {', '.join(args.path)}; CPU seconds, best of {args.runs}")
    print(f"{'phase':<20} {'baseline ' + args.baseline:>18} {'this tree':>12} {'ratio':>7}")
    for phase in PHASES:
        a, b = best[0][phase], best[1][phase]
        print(f"{phase:<20} {a:>18.2f} {b:>12.2f} {a / b if b else float('nan'):>6.2f}x")
    print(f"encoded facts differing from the baseline: {len(differ)} of {len(base['paths'])} files")
    for path in differ[:20]:
        print(f"  {path}")


if __name__ == "__main__":
    main()
