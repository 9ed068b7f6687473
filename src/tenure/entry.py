"""The `tenure` command's entry point: a fixed string-hash seed for the command that builds the
graph, then the CLI.

Resolution caps its value sets (`resolve/python.py`, MAX_VALUES): which values fill a capped set
follows the order sets are iterated in, and that follows string hashing, which Python seeds at
random per process. `tenure index` runs with one seed, so every run builds the same graph, and the
answers one run stores are the answers the next run gets (the incremental early cutoff). It is the
only command that builds the graph: the others read it, and start once instead of twice (an agent's
hooks run one on every event). A seed the user set is kept.
"""

from __future__ import annotations

import os
import sys

SEEDED_COMMANDS = frozenset({"index"})  # the commands that build the graph


def with_hash_seed(argv: list[str]) -> None:
    """Run `argv` (a Python command line) in place of this process when no seed is set yet.
    Also for scripts that drive the Python API and must see the graph the command builds."""
    if "PYTHONHASHSEED" not in os.environ:
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable, *argv])


def builds_the_graph(args: list[str]) -> bool:
    """Whether `tenure ARGS` runs a command of SEEDED_COMMANDS (the first word that is not an
    option: no option of `tenure` itself takes a value)."""
    return next((arg for arg in args if not arg.startswith("-")), None) in SEEDED_COMMANDS


def run_cli(argv: list[str]) -> None:
    """The CLI with `argv` as its arguments, restarted as `python -m tenure.cli` with a fixed seed
    first when it builds the graph."""
    if builds_the_graph(argv):
        with_hash_seed(["-m", "tenure.cli", *argv])
    from tenure.cli import app

    app(args=argv, prog_name="tenure")


def main() -> None:
    run_cli(sys.argv[1:])
