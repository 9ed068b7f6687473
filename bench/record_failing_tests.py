"""How recording a test report grows with its failing tests: `tenure ci record --pytest-json` on reports
of N failing tests (distinct names, none of them in the index, as a generated suite's are; and N cases
of one parametrized test that is), in a small indexed repository. Linear time is the target: the
seconds per 1,000 tests should stay flat as N grows.

Usage::

    python bench/record_failing_tests.py [N ...]      # default: 50000 200000
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tenure import Tenure


def repository(where: Path) -> Path:
    root = where / "repo"
    (root / "tests").mkdir(parents=True)
    (root / "core.py").write_text("def helper():\n    return 1\n")
    (root / "tests" / "test_core.py").write_text("from core import helper\n\n\ndef test_helper():\n"
                                                 "    assert helper() == 1\n")
    for command in (["init", "-q"], ["add", "-A"], ["-c", "user.email=b@e", "-c", "user.name=b", "commit", "-qm", "x"]):
        subprocess.run(["git", "-C", str(root), *command], check=True)
    with Tenure.open(root, discover=False) as t:
        t.index()
    return root


def report(where: Path, n: int, nodeid: str) -> Path:
    tests = [{"nodeid": nodeid.format(i=i), "outcome": "failed", "call": {"outcome": "failed",
                                                                          "longrepr": f"assert {i} == 0"}}
             for i in range(n)]
    path = where / f"report-{n}.json"
    path.write_text(json.dumps({"exitcode": 1, "tests": tests}))
    return path


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [50_000, 200_000]
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        root = repository(where)
        for shape, nodeid in (("distinct names, not indexed", "tests/test_gen.py::test_case_{i}"),
                              ("one indexed test, parametrized", "tests/test_core.py::test_helper[{i}]")):
            for n in sizes:
                path = report(where, n, nodeid)
                with Tenure.open(root, discover=False) as t:
                    started = time.perf_counter()
                    recorded = t.episodes.record_tests("pytest-json", path)
                    seconds = time.perf_counter() - started
                print(f"{shape:32} {n:>8,} failing tests: {seconds:7.2f} s, {1000 * seconds / n:6.3f} s per 1,000 "
                      f"({recorded['failed']:,} recorded)")


if __name__ == "__main__":
    main()
