"""The walk of the tree in an update without a watcher: discovery (`discover` + `inspect_file` of
every path), the JVM source's `find_inputs`, and `Tenure.index()` after a one-line edit; this build against
a baseline git revision in the same run, on a plain copy of the tree and on a git work tree of it.

    python bench/walk_speed.py [--path DIR] [--file REL] [--baseline REV] [--runs 3] [--json-out FILE]

Each build gets its own two copies of the tree (plain, and `git init && git add -A && git commit`),
indexed once before anything is timed. Then each run starts one process per build and copy (the
builds take turns, so that a change in the load of a shared machine weighs on both alike) that opens
the index, updates it once with nothing changed (a warm process), then times: discovery alone,
`find_inputs` alone, and `Tenure.index()` after a comment is appended to `--file` (a whole walk:
no list of changed paths). CPU seconds are this process's and its children's (git); every run is
printed, and the CPU ratio of the best. It also checks that both builds found the same files, skip
reasons, JVM inputs and edge count. Without `--path` the input is Django 5.1.4's sdist (see
`index_speed.py`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import REPO, baseline_src, cpu_seconds, fetch_sdist, write_json

MEASURES = ("discover + inspect_file", "find_inputs", "index() after an edit")


def _timed(fn):  # noqa: ANN001, ANN202 — bench helper
    cpu, wall = cpu_seconds(), time.perf_counter()
    result = fn()
    return result, cpu_seconds() - cpu, time.perf_counter() - wall


def _worker(root: Path, rel: str) -> dict:
    """One run on an indexed tree: the three measures, and what they found."""
    from tenure import Tenure
    from tenure.structural.jvm.discover import find_inputs

    try:
        from tenure.structural import discover as discovery
        inspect_file = discovery.inspect_file
    except ImportError:  # a baseline from before discovery left the indexer
        from tenure.structural import indexer as discovery
        inspect_file = discovery._inspect

    figures = {}
    with Tenure.open(root, discover=False) as t:
        t.index()  # a warm process, as a server or a second update in one session has
        known = t.structural.files()

        def walk() -> tuple[list, list]:
            listed = discovery.discover(root)
            # (a baseline's discover gives a tuple)
            paths, skipped = (listed.paths, listed.skipped) if hasattr(listed, "paths") else listed
            top = os.fspath(root)
            cands = [c for p in paths if (c := inspect_file(top, p, known.get(p), discovery.MAX_FILE_BYTES))]
            return cands, skipped

        (cands, skipped), *figures[MEASURES[0]] = _timed(walk)
        inputs, *figures[MEASURES[1]] = _timed(lambda: find_inputs(root))
        with (root / rel).open("a") as f:
            f.write("# tenure bench: a one-line edit\n")
        report, *figures[MEASURES[2]] = _timed(t.index)
    found = [(c.path, c.size, c.content_hash, c.skip) for c in cands]  # (mtimes differ between copies)
    digest = hashlib.blake2b(repr((found, sorted(skipped), repr(inputs))).encode(), digest_size=8).hexdigest()
    return {"figures": figures, "files": len(cands), "found": digest, "edges": report.edges,
            "parsed": report.files_parsed}


def _run_build(src: Path, root: Path, args: argparse.Namespace, worker: bool = True) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src), "PYTHONHASHSEED": "0", "TENURE_ENRICH": "off"}
    if not worker:  # the first, untimed index of this copy
        code = "import sys; from tenure import Tenure; Tenure.open(sys.argv[1], discover=False).index()"
        subprocess.run([sys.executable, "-c", code, str(root)], env=env, check=True)
        return {}
    out = subprocess.run([sys.executable, __file__, "--worker", "--path", str(root), "--file", args.file],
                         env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def _copies(tree: Path, into: Path) -> dict[str, Path]:
    plain, git = into / "plain", into / "git"
    shutil.copytree(tree, plain, symlinks=True, ignore=shutil.ignore_patterns(".tenure", ".git"))
    shutil.copytree(plain, git, symlinks=True)
    quiet = {"check": True, "capture_output": True}
    subprocess.run(["git", "init", "-q", str(git)], **quiet)
    subprocess.run(["git", "-C", str(git), "add", "-A"], **quiet)
    subprocess.run(["git", "-C", str(git), "-c", "user.name=bench", "-c", "user.email=bench@localhost",
                    "commit", "-q", "-m", "tree"], **quiet)
    return {"plain copy": plain, "git work tree": git}


def _default_path() -> Path:
    return fetch_sdist("Django", "5.1.4")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--path", help="the tree (default: Django 5.1.4's sdist)")
    parser.add_argument("--file", default="django/db/utils.py", help="the file edited (relative to the tree)")
    parser.add_argument("--baseline", default="HEAD", help="git revision to compare with (default HEAD)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json-out", type=Path, help="write every run's figures to this file")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(_worker(Path(args.path), args.file)))
        return
    tree = Path(args.path) if args.path else _default_path()
    with tempfile.TemporaryDirectory() as tmp:
        srcs = {f"baseline {args.baseline}": baseline_src(args.baseline, Path(tmp, "baseline")),
                "this tree": REPO / "src"}
        copies = {build: _copies(tree, Path(tmp, f"tree{i}")) for i, build in enumerate(srcs)}
        for build, src in srcs.items():
            for root in copies[build].values():
                _run_build(src, root, args, worker=False)
        runs: dict[tuple[str, str], list[dict]] = {}
        for _ in range(args.runs):
            for kind in ("plain copy", "git work tree"):
                for build, src in srcs.items():
                    runs.setdefault((kind, build), []).append(_run_build(src, copies[build][kind], args))
    print(f"{tree}: {args.file} edited; seconds of CPU (process + children) and wall, each run")
    for kind in ("plain copy", "git work tree"):
        print(f"\n{kind} ({runs[kind, 'this tree'][0]['files']} files to index)")
        print(f"{'measure':<22}{'build':<20}{'CPU':>20}{'wall':>20}")
        for measure in MEASURES:
            best = []
            for i, build in enumerate(srcs):
                cpu, wall = (" ".join(f"{r['figures'][measure][j]:.3f}" for r in runs[kind, build]) for j in (0, 1))
                print(f"{measure if i == 0 else '':<22}{build:<20}{cpu:>20}{wall:>20}")
                best.append(min(r["figures"][measure][0] for r in runs[kind, build]))
            print(f"{'':<22}{'CPU ratio (best)':<20}{best[0] / best[1] if best[1] else float('nan'):>19.2f}x")
        pairs = zip(*(runs[kind, build] for build in srcs), strict=True)  # run i of each build saw the same edits
        same = all(len({(r["found"], r["edges"]) for r in pair}) == 1 for pair in pairs)
        print(f"same files, skips, JVM inputs and edge count in both builds: {'yes' if same else 'NO'}")
    write_json(args.json_out, {f"{kind} / {build}": rows for (kind, build), rows in runs.items()})


if __name__ == "__main__":
    main()
