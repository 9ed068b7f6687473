"""`tenure index` in a fresh process after a one-file edit (issue 2: "a one-file update under 0.5 s"),
this build against a baseline git revision in the same run.

    python bench/cold_update.py [--baseline REV] [--runs 3] [--file REL] [--keep DIR]

Each build gets its own copy of Django 5.1.4's sdist (an index made by one build is parsed again by
another: the extractor version differs), indexed in full first. Then, per case and run, the two
builds take turns (a change in the load of a shared machine weighs on both alike), each running
`python -m tenure.cli index --json DIR` as a subprocess with `PYTHONPATH` = its `src/`, and no
`PYTHONHASHSEED`: as the `tenure` command runs, so a build that restarts Python to fix the seed pays
for it (`tenure.entry`; the start of a bare interpreter is printed first, for scale). Cases, on
`--file` (default `django/db/utils.py`, read by ~850 files):

- unchanged: nothing edited;
- comment added: a comment line appended (early cutoff: nothing is resolved, the edges move);
- function added: a new function appended (its dependants are verified by their stored answers);
- function put first: a new function inserted at the top (every variable after it is renumbered);
- body edited: a statement inserted before the file's first `return` in a function;
- return added: `if N < 0: return None` inserted there (what that function returns changes).

Every run edits the file again (another comment, another function), so each is a real update. Both
builds' bytecode is compiled first (`compileall`), as an install leaves it: where
PYTHONDONTWRITEBYTECODE is set, a build without it would compile every module in every run.
Printed per case, build and run: CPU seconds of the process (user + sys, `getrusage` of the child),
wall seconds, and files re-resolved / verified / spared (readers of the edited module's analysis,
which reads the same: not checked). Nothing is asserted. `--keep DIR` keeps the copies
(and their indexes) under DIR between invocations.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from common import REPO, baseline_src, compiled, fetch_sdist, print_table


def _before_first_return(text: str, lines: str) -> str:
    """`lines` (a `{indent}` placeholder in each) inserted before the first `return` of a function."""
    found = re.search(r"^([ \t]+)return\b", text, re.MULTILINE)
    if found is None:
        raise SystemExit("the file edited has no return statement in a function: choose another --file")
    return text[: found.start()] + lines.format(indent=found.group(1)) + text[found.start() :]


CASES: dict[str, Callable[[str, str], str]] = {
    "unchanged": lambda text, n: text,
    "comment added": lambda text, n: text + f"\n# tenure bench comment {n}\n",
    "function added": lambda text, n: text + f"\n\ndef _tenure_bench_cold_{n}():\n    return {n}\n",
    "function put first": lambda text, n: f"def _tenure_bench_first_{n}():\n    return 0\n\n\n" + text,
    "body edited": lambda text, n: _before_first_return(text, f"{{indent}}_tenure_bench_{n} = 1\n"),
    "return added": lambda text, n: _before_first_return(
        text, f"{{indent}}if _tenure_bench_{n} < 0:\n{{indent}}    return None\n"),
}


def _unpack(target: Path) -> Path:
    """A copy of Django's sdist of its own (it is indexed and edited), made once under `target`."""
    if not target.exists():
        shutil.copytree(fetch_sdist("django", "5.1.4"), target / "Django-5.1.4",
                        ignore=shutil.ignore_patterns(".tenure"))
    return target / "Django-5.1.4"


def _index(src: Path, root: Path) -> tuple[float, float, dict]:
    """(CPU seconds, wall seconds, report) of one `tenure index` in a fresh process."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}
    cpu, wall, out = _timed([sys.executable, "-m", "tenure.cli", "index", "--json", str(root)],
                            {**env, "PYTHONPATH": str(src), "TENURE_ENRICH": "off"})
    return cpu, wall, json.loads(out.splitlines()[-1])


def _timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """(CPU seconds, wall seconds, stdout) of a command, its children included."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="HEAD", help="git revision to compare with (default HEAD)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--file", default="django/db/utils.py", help="the file edited, relative to the copy")
    parser.add_argument("--keep", type=Path, help="keep the copies and their indexes under this directory")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        builds = {f"baseline {args.baseline}": baseline_src(args.baseline, Path(tmp, "baseline")),
                  "this tree": REPO / "src"}
        for src in builds.values():
            compiled(src)
        roots = {name: _unpack(work / f"django-{i}") for i, name in enumerate(builds)}
        originals = {name: (root / args.file).read_bytes() for name, root in roots.items()}
        rows = []
        bare = min(_timed([sys.executable, "-c", "pass"])[0] for _ in range(5))
        print(f"a bare interpreter starts in {bare:.2f} s CPU (`python -c pass`, the least of 5)", flush=True)
        try:
            for name, src in builds.items():
                cpu, wall, _ = _index(src, roots[name])
                print(f"{name}: first index (or catching up) {cpu:.1f} s CPU, {wall:.1f} s wall", flush=True)
            for case, edit in CASES.items():
                for run in range(args.runs):
                    for name, src in builds.items():
                        target = roots[name] / args.file
                        target.write_text(edit(target.read_text(), f"{case[0].replace(' ', '_')}{run}"))
                        cpu, wall, report = _index(src, roots[name])
                        rows.append((case, name, run + 1, f"{cpu:.2f}", f"{wall:.2f}",
                                     report["files_resolved"], report["files_verified"],
                                     report.get("files_spared", "-")))
                        print(*rows[-1], sep="\t", flush=True)
        finally:
            for name, root in roots.items():
                (root / args.file).write_bytes(originals[name])
                if args.keep:  # indexed again so a kept copy is current for the next invocation
                    _index(builds[name], root)
    print_table(f"`tenure index` in a fresh process, {args.file} edited (Django 5.1.4)",
                ["case", "build", "run", "CPU s", "wall s", "resolved", "verified", "spared"], rows)


if __name__ == "__main__":
    main()
