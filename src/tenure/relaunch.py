"""tenure run again as a new Python process (a seeded restart, a detached background job)."""

from __future__ import annotations

import sys
from pathlib import Path


def cli_argv(args: list[str]) -> list[str]:
    """`tenure ARGS` as the arguments of a new Python process. `-P`: `python -m` would put the current
    directory first on sys.path, where a project's own typing.py or json.py shadows the standard
    library's (`cd src/flask && tenure index` crashed in its restart)."""
    return ["-P", "-m", "tenure.cli", *args]


def spawn_detached(args: list[str], root: Path, log: Path) -> int:
    """A detached `tenure ARGS` in `root`, its output appended to `log`: its own session, so it
    outlives the command that started it and its terminal. Its pid."""
    import subprocess  # (here: `tenure.entry` imports this module, and a hook that records starts nothing)

    with open(log, "ab") as out:
        process = subprocess.Popen([sys.executable, *cli_argv(args)], stdin=subprocess.DEVNULL, stdout=out,
                                   stderr=out, cwd=root, start_new_session=True)
    return process.pid
