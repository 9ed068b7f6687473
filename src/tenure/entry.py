"""The `tenure` command's entry point: the CLI, restarted with a fixed string-hash seed where the
graph it builds would otherwise follow the process's.

Resolution caps its value sets (`resolve/python/analysis.py`, MAX_VALUES), and a fixpoint has a budget: which
values fill a capped set, or what is left undone, follows the order sets are iterated in, and that
follows string hashing, which Python seeds at random per process. Every graph `tenure` stores is the
one a process seeded with 0 builds, so every run builds the same graph and the answers one run
stores are the answers the next run gets (the incremental early cutoff):

- `tenure index --watch` restarts seeded before it starts (it cannot start again half-way), and so
  does a first index (most are large);
- `tenure index` runs unseeded, and keeps its result when resolution met no cap and no budget's end
  (`resolve.order_dependence`: then any order finds the same), which is most one-file updates; else
  it rolls back and restarts seeded (`HashSeedNeeded`), as it does up front for a large run;
- every other command only reads the graph, and starts once.

A seed the user set is kept.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tenure.relaunch import cli_argv
from tenure.state import database_path, state_error

_restarts = False  # `run_cli` is running the CLI: it restarts a run that raises HashSeedNeeded


def hash_seed_fixed() -> bool:
    """Whether Python was given a seed: an empty PYTHONHASHSEED, like "random", gives none."""
    return os.environ.get("PYTHONHASHSEED", "random") not in ("random", "")


def may_build_unseeded() -> bool:
    """Whether a command may build the graph without a fixed seed: `run_cli` runs it, and restarts
    it seeded when its result followed the seed (`HashSeedNeeded`). Not under a test's runner, or
    a script's `app()`: those keep the seed they have."""
    return _restarts and not hash_seed_fixed()




def with_hash_seed(argv: list[str]) -> None:
    """Run `argv` (a Python command line) in place of this process when no seed is set yet.
    Also for scripts that drive the Python API and must see the graph the command builds."""
    if not hash_seed_fixed():
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable, *argv])


def seeded_up_front(args: list[str]) -> bool:
    """Whether `tenure ARGS` restarts seeded before it starts: a watcher (`index --watch`), a first
    index (no database in PATH yet) or a repair (it builds the graph again): most are large, and a
    restart now costs an interpreter start, not the imports and the walk of the tree that would find
    it out. The first word that is not an option (no option of `tenure` itself takes a value) is the
    command, the second `index`'s PATH."""
    words = [arg for arg in args if not arg.startswith("-")]
    if words[:1] == ["repair"]:
        return True
    if not words or words[0] != "index":
        return False
    return "--watch" in args or not database_path(Path(words[1] if len(words) > 1 else ".")).exists()


def run_cli(argv: list[str]) -> None:
    """The CLI with `argv` as its arguments; restarted as `python -P -m tenure.cli` with the seed fixed
    where the graph it builds needs it (see the module's doc)."""
    if (message := _not_utf8(argv)) is not None:
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(2)
    restart = cli_argv(argv)
    if seeded_up_front(argv):
        with_hash_seed(restart)
    global _restarts
    _restarts = True
    try:
        if (repo := _tool_use_hook(argv)) is not None:
            return _record_tool_use(repo)
        from tenure.cli import app

        app(args=argv, prog_name="tenure")
    except Exception as exc:
        # (imported only now: a command that resolves nothing never loads resolution)
        from tenure.structural.resolve import HashSeedNeeded

        if isinstance(exc, HashSeedNeeded):
            with_hash_seed(restart)
            raise  # (a seed was set: not this process's doing, and not expected)
        if (message := state_error(exc)) is None:
            raise
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(2) from exc
    finally:
        _restarts = False


def _tool_use_hook(argv: list[str]) -> Path | None:
    """The project of `tenure hook post-tool-use [--repo PATH]`, which an agent's hook runs on every
    tool use: answered without the CLI's framework (typer, click and rich are most of a command's
    start). None for any other command line (`--help` among them)."""
    if argv[:2] != ["hook", "post-tool-use"]:
        return None
    rest = argv[2:]
    if not rest:
        return Path(".")
    if len(rest) == 2 and rest[0] in ("--repo", "-r"):
        return Path(rest[1])
    if len(rest) == 1 and rest[0].startswith("--repo="):
        return Path(rest[0].partition("=")[2])
    return None


def _record_tool_use(repo: Path) -> None:
    from tenure.refusal import Refusal
    from tenure.setup.hooks import read_payload, record_tool_use

    try:
        print(record_tool_use(repo, read_payload()), file=sys.stderr)
    except Refusal as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from exc


def _not_utf8(argv: list[str]) -> str | None:
    """What is wrong with an argument that is not valid UTF-8 (Python hands its bytes over as lone
    surrogates, which no name, text or database can hold), or None."""
    for arg in argv:
        try:
            arg.encode()
        except UnicodeEncodeError:
            return (f"the argument {os.fsencode(arg)!r} is not valid UTF-8: tenure reads names, text and paths "
                    "as UTF-8 (check the terminal's encoding, or rename the file)")
    return None


def main() -> None:
    run_cli(sys.argv[1:])
