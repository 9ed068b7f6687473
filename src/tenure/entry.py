"""The `tenure` command's entry point: a fixed string-hash seed, then the CLI.

Resolution caps its value sets (`resolve/python.py`, MAX_VALUES): which values fill a capped set
follows the order sets are iterated in, and that follows string hashing, which Python seeds at
random per process. With one seed, every run of `tenure` builds the same graph, and the answers
one run stores are the answers the next run gets (the incremental early cutoff). A seed the user
set is kept.
"""

from __future__ import annotations

import os
import sys


def with_hash_seed(argv: list[str]) -> None:
    """Run `argv` (a Python command line) in place of this process when no seed is set yet.
    Also for scripts that drive the Python API and must see the graph the command builds."""
    if "PYTHONHASHSEED" not in os.environ:
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable, *argv])


def main() -> None:
    with_hash_seed(["-m", "tenure.cli", *sys.argv[1:]])
    from tenure.cli import app

    app(prog_name="tenure")
