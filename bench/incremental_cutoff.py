"""The answer-level early cutoff on a real code base: one edit, re-indexed with and without it.

Usage::

    python bench/incremental_cutoff.py [--path DIR] [--file REL] [--json-out FILE]

Without ``--path`` the input is Django 5.1.4's sdist (see ``index_speed.py``), copied to a temporary
directory and indexed there; ``--file`` (default ``django/db/utils.py``, which about 900 files
read) gets two edits in turn: a function appended, then that function's body changed. Each edit is
re-indexed in the same warm process, as watch mode does (``Tenure.index(changed_paths=...)``), once
with dependants verified by their stored answers and once with every dependant resolved again
(the peer: the same indexer without the cutoff). Printed per edit and mode: files resolved, files
verified and kept, CPU seconds (this process and its workers) and wall seconds. Nothing is
asserted.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

from common import fetch_sdist, print_table, write_json

from tenure.entry import with_hash_seed

_ADDED = "\n\ndef _tenure_bench_added_function():\n    return _tenure_bench_added_function\n"
_EDITED = "\n\ndef _tenure_bench_added_function():\n    return print(_tenure_bench_added_function)\n"
_SECOND = "\n\ndef _tenure_bench_second_function():\n    return 2\n"
# In order, each replacing the last. The first update after the full index also warms the process:
# the full index resolved in worker processes, so this one analyses the modules it needs for the
# first time; the later ones show a watcher's steady state.
EDITS = {
    "function added (first update)": _ADDED,
    "function body edited": _EDITED,
    "a second function added": _EDITED + _SECOND,
    "second function removed": _EDITED,
}


def cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def measure(root: Path, rel: str, cutoff: bool) -> list[dict]:
    import tenure.structural.indexer as indexer
    from tenure import Tenure

    verifier_for = indexer.verifier_for
    if not cutoff:
        indexer.verifier_for = lambda name: None  # every dependant is resolved again
    target = root / rel
    original = target.read_bytes()
    rows = []
    try:
        with Tenure.open(root, discover=False) as t:
            t.index()
            for label, text in EDITS.items():
                target.write_bytes(original + text.encode())
                cpu, wall = cpu_seconds(), time.perf_counter()
                report = t.index(changed_paths={rel})
                rows.append({"edit": label, "cutoff": cutoff, "resolved": report.files_resolved,
                             "verified": report.files_verified, "cpu_s": cpu_seconds() - cpu,
                             "wall_s": time.perf_counter() - wall})
            target.write_bytes(original)
            t.index(changed_paths={rel})
    finally:
        target.write_bytes(original)
        indexer.verifier_for = verifier_for
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--path", type=Path, help="a project to measure instead of Django's sdist")
    parser.add_argument("--file", default="django/db/utils.py", help="the file to edit, relative to the project")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    source = args.path or fetch_sdist("django", "5.1.4")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / source.name
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(".tenure"))
        print(f"indexing a copy of {source} ...", file=sys.stderr)
        rows = measure(root, args.file, cutoff=True) + measure(root, args.file, cutoff=False)
    print_table(
        f"Re-index after editing {args.file} (warm process, watch mode)",
        ["edit", "dependants", "files resolved", "verified and kept", "CPU", "wall"],
        [(r["edit"], "verified by answers" if r["cutoff"] else "all resolved again", r["resolved"], r["verified"],
          f"{r['cpu_s']:.2f} s", f"{r['wall_s']:.2f} s") for r in rows],
    )
    write_json(args.json_out, rows)


if __name__ == "__main__":
    with_hash_seed([__file__, *sys.argv[1:]])  # as the `tenure` command runs
    main()
