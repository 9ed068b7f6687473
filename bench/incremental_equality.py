"""Issue 2's promise on real code: the graph an edit series leaves equals a clean index of the result.

    python bench/incremental_equality.py [--mode fresh|watcher|both] [--json-out FILE]

The tests prove it on small fixtures; this replays definition edits to Django 5.1.4's most-read modules
(a function appended, a class renamed, a function renamed that other modules import, a base class
dropped, a function appended under a name that lookups had missed and found through a star import,
a function put first, a method added to `Model`, a method's body edited and what another returns
changed) and compares every edge, at two checkpoints, with a clean index of a copy of the tree:

- fresh: each update is `python -m tenure.cli index` in a process of its own (what a user types), so
  the analyses the store kept, the facts digests and the recorded reads are what it works from;
- watcher: one process, as `tenure index --watch` runs: warmed, told the changed path, bookkeeping
  deferred to the next idle moment (`Tenure.flush`).

Printed: per edit, files resolved again, verified by their answers, and spared (see `Indexer._spared`),
and seconds; per checkpoint, EQUAL or the edges only the incremental graph has and only the clean one
has. Each `tenure` process runs as the command does (no seed set: an update keeps an unseeded run
whose resolution followed no order, and restarts seeded otherwise, `tenure.entry`); the watcher runs
seeded, as `tenure index --watch` does. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from common import fetch_sdist, print_table, write_json

from tenure.entry import with_hash_seed

# (file, text to replace or None to append, new text); a checkpoint after each group.
EDITS: list[list[tuple[str, bytes | None, bytes]]] = [
    [("django/db/models/base.py", None, b"\n\ndef _tenure_eq():\n    return ValidationError\n"),
     ("django/core/exceptions.py", None, b"\n\ndef _tenure_eq():\n    return ValidationError\n"),
     ("django/db/utils.py", b"class ConnectionHandler(", b"class ConnectionHandlerX("),
     # appended, a name that lookups in the package had missed (they went on to its star imports)
     ("django/db/models/__init__.py", None, b"\n\ndef CharField(*args, **kwargs):\n    return None\n"),
     ("django/core/exceptions.py", b"\n\nimport operator\n",
      b"\n\ndef _tenure_first():\n    return 0\n\n\nimport operator\n"),
     ("django/db/models/base.py", b"    def get_deferred_fields(self):\n",
      b"    def _tenure_method(self):\n        return self.pk\n\n    def get_deferred_fields(self):\n"),
     ("django/db/models/base.py", b"        return updated\n\n    def _do_update(",
      b"        _tenure_local = updated\n        return updated\n\n    def _do_update(")],
    [("django/db/models/base.py", b"    return ValidationError\n", b"    return print(_tenure_eq)\n"),
     ("django/utils/functional.py", b"def lazy(", b"def lazy_("),
     ("django/db/models/base.py", b"class Model(AltersData, metaclass=ModelBase):",
      b"class Model(metaclass=ModelBase):"),
     ("django/db/models/base.py", b"        return {\n            f.attname\n",
      b"        return None\n        return {\n            f.attname\n")],
]


def cli(*args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}  # (set for the watcher, below)
    return subprocess.run([sys.executable, "-m", "tenure.cli", *args], check=True, capture_output=True,
                          text=True, env=env).stdout


def edges(root: Path) -> set[str]:
    return {line for line in cli("export", "edges", "--format", "jsonl", "--repo", str(root)).splitlines() if line}


def edit(root: Path, rel: str, old: bytes | None, new: bytes) -> None:
    path = root / rel
    text = path.read_bytes()
    if old is not None and old not in text:
        raise SystemExit(f"{rel}: {old!r} not found (another Django version?)")
    path.write_bytes(text + new if old is None else text.replace(old, new, 1))


def compare(root: Path, work: Path, label: str) -> dict[str, Any]:
    clean = work / f"clean-{label}"
    shutil.copytree(root, clean, ignore=shutil.ignore_patterns(".tenure"))
    cli("index", str(clean))
    incremental, expected = edges(root), edges(clean)
    shutil.rmtree(clean)
    return {"checkpoint": label, "edges": len(incremental), "only_incremental": sorted(incremental - expected)[:5],
            "only_clean": sorted(expected - incremental)[:5], "n_only_incremental": len(incremental - expected),
            "n_only_clean": len(expected - incremental)}


def fresh(root: Path, work: Path) -> tuple[list[dict], list[dict]]:
    cli("index", str(root))
    steps, checks = [], []
    for group, edits in enumerate(EDITS, 1):
        for rel, old, new in edits:
            edit(root, rel, old, new)
            report = json.loads(cli("index", "--json", str(root)).splitlines()[-1])
            steps.append({"mode": "fresh", "file": rel, "resolved": report["files_resolved"],
                          "verified": report["files_verified"], "spared": report["files_spared"],
                          "seconds": report["seconds"]})
        checks.append({"mode": "fresh", **compare(root, work, f"fresh-{group}")})
    return steps, checks


def watcher(root: Path, work: Path) -> tuple[list[dict], list[dict]]:
    from tenure import Tenure

    steps, checks = [], []
    with Tenure.open(root, discover=False) as t:
        t.index()
        while not t.warm(0.1):
            pass
        for group, edits in enumerate(EDITS, 1):
            for rel, old, new in edits:
                edit(root, rel, old, new)
                report = t.index(changed_paths={rel}, defer_bookkeeping=True)
                t.flush()
                steps.append({"mode": "watcher", "file": rel, "resolved": report.files_resolved,
                              "verified": report.files_verified, "spared": report.files_spared,
                              "seconds": report.seconds})
            checks.append({"mode": "watcher", **compare(root, work, f"watcher-{group}")})
    return steps, checks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", choices=["fresh", "watcher", "both"], default="both")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    source = fetch_sdist("django", "5.1.4")
    steps: list[dict] = []
    checks: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        for mode, run in (("fresh", fresh), ("watcher", watcher)):
            if args.mode in (mode, "both"):
                root = Path(tmp) / mode / source.name
                shutil.copytree(source, root, ignore=shutil.ignore_patterns(".tenure"))
                print(f"{mode} ...", file=sys.stderr)
                more_steps, more_checks = run(root, Path(tmp))
                steps += more_steps
                checks += more_checks
    print_table("Edits (Django 5.1.4)", ["mode", "file", "resolved", "verified", "spared", "seconds"],
                [(s["mode"], s["file"], s["resolved"], s["verified"], s["spared"], f"{s['seconds']:.2f}")
                 for s in steps])
    print_table("Incremental graph against a clean index of the same tree", ["mode", "checkpoint", "edges", "result"],
                [(c["mode"], c["checkpoint"], c["edges"], "EQUAL" if not (c["n_only_incremental"] or c["n_only_clean"])
                  else f"DIFFERENT: {c['n_only_incremental']} edges only incremental, {c['n_only_clean']} only clean")
                 for c in checks])
    for c in checks:
        for line in c["only_incremental"]:
            print("  only incremental:", line)
        for line in c["only_clean"]:
            print("  only clean:", line)
    write_json(args.json_out, {"steps": steps, "checks": checks})


if __name__ == "__main__":
    with_hash_seed([__file__, *sys.argv[1:]])  # as `tenure index --watch` runs
    main()
