"""tenure run again as a new Python process (a seeded restart, a detached background job)."""

from __future__ import annotations


def cli_argv(args: list[str]) -> list[str]:
    """`tenure ARGS` as the arguments of a new Python process. `-P`: `python -m` would put the current
    directory first on sys.path, where a project's own typing.py or json.py shadows the standard
    library's (`cd src/flask && tenure index` crashed in its restart)."""
    return ["-P", "-m", "tenure.cli", *args]
