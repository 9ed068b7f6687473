"""What every command module shares: the consoles, common options, opening the project."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from tenure.refusal import Refusal
from tenure.state import database_path, state_error
from tenure.storage import StorageError

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from tenure.api import Tenure
    from tenure.http_guard import HostCheck


class _Console:
    """A rich Console made on first use: a command whose output is JSON (agents, scripts) never
    imports rich, a sixth of its start."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._made: Console | None = None

    @property
    def real(self) -> Console:
        if self._made is None:
            from rich.console import Console

            self._made = Console(**self._options)
        return self._made

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.real, name)


# Piped output is read by agents and scripts: give tables room rather than truncating names.
console = _Console(width=None if sys.stdout.isatty() else 200)
# Errors name paths: a hard line break inside one would break a script that reads it (the terminal wraps).
err = _Console(stderr=True, soft_wrap=True)
# Progress bars are redrawn in place: they must be cut to the terminal's width, never wrapped by it.
bars = _Console(stderr=True)


def escape(text: str) -> str:
    """Text shown as it is, not read as rich markup."""
    from rich.markup import escape as escape_markup

    return escape_markup(text)


def new_table(*columns: str, **options: Any) -> Table:
    """A rich Table (imported when a command draws one)."""
    from rich.table import Table

    return Table(*columns, **options)

RepoOpt = Annotated[Path, typer.Option("--repo", "-r", help="Project directory (default: the current one).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]
ScopeOpt = Annotated[str, typer.Option("--scope", help="project, or org: every project of the organisation "
                                                       "reads it (its own key: docs/memories.md).")]
# a job `tenure index` starts in the background (enrichment, embedding): quiet when another run holds its lock
BackgroundOpt = Annotated[bool, typer.Option("--background", hidden=True,
                                             help="Started by `tenure index`: quiet when another run holds the lock.")]
AllowHostOpt = Annotated[list[str] | None, typer.Option(
    "--allow-host", help="Another name clients reach the server by (the Host they send); repeat for several.")]


def open_project(repo: Path, create: bool = True, existing: bool = False) -> Tenure:
    """The project a command works on, found from `repo` as `tenure index` finds it (`find_root`).
    A command that only reads (`create` False) makes no state; one that reads what only a project
    holds (`existing`: memories, sessions, rules) says there is none and exits 1 rather than answer
    from nothing."""
    from tenure.api import Tenure, find_root  # (not for `--help`, nor a typo's suggestion)

    if not repo.is_dir():
        err.print(f"[red]error:[/red] {escape(str(repo))} is not a directory: pass --repo with the project's directory")
        raise typer.Exit(2)
    root = find_root(repo)
    if existing and not database_path(root).exists():
        err.print(f"[yellow]no project is indexed at {escape(str(root))}[/yellow] (nor in a directory above it): run "
                  "`tenure index` in the project's directory, or pass --repo with an indexed project. Nothing was "
                  "written.")
        raise typer.Exit(1)
    try:
        return Tenure.open(root, discover=False, create=create)
    except (StorageError, Refusal) as exc:  # (a refusal: e.g. tenure.toml's [team] cannot be used)
        err.print(f"[red]error:[/red] {escape(state_error(exc) or str(exc))}")
        raise typer.Exit(2) from exc


@contextmanager
def project(repo: Path, reads: bool = False) -> Iterator[Tenure]:
    """Open the project (`reads`: a command that writes nothing, and needs an indexed project); a
    refused request (any store's) prints what to do and exits 2."""
    with open_project(repo, create=not reads, existing=reads) as t, refused():
        yield t


@contextmanager
def refused() -> Iterator[None]:
    """A refused request (any store's) prints what to do and exits 2."""
    try:
        yield
    except Refusal as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True)  # keep paths whole
        raise typer.Exit(2) from exc


def stdin_text() -> str:
    """The text on stdin (an argument `-`), refused when it is not UTF-8, as an argument would be."""
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        err.print(f"[red]error:[/red] the text on stdin is not valid UTF-8 (byte {exc.start}: "
                  f"{escape(repr(data[exc.start:exc.start + 4]))}): tenure reads text as UTF-8")
        raise typer.Exit(2) from exc


def emit(result: Any, as_json: bool, human: Callable[[Any], None]) -> None:
    if as_json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        human(result)


def check_listen(host: str, port: int, token: str | None, also: list[str] | None) -> HostCheck:
    """Before a token-guarded server starts: a bind beyond loopback needs a token, and the port must be
    free. Returns the Host check its requests must pass."""
    from tenure.http_guard import HostCheck, check_bind  # (starlette: only for the commands that serve)

    try:
        check_bind(host, token)
    except PermissionError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    check_port(host, port)
    return HostCheck(host, port, also or ())


def check_port(host: str, port: int) -> None:
    """Say which option to change before a server fails to bind, rather than after."""
    import socket

    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            err.print(f"[red]error:[/red] cannot listen on {host}:{port} ({exc.strerror}): pass --port with a free "
                      "port" + ("" if host == "127.0.0.1" else " or --host with an address of this machine"))
            raise typer.Exit(2) from exc


T = TypeVar("T")
PhaseProgress = Callable[[str, int, int], None]  # (phase, done, total)


def with_progress(work: Callable[[PhaseProgress | None], T], quiet: bool) -> T:
    """Run long work with a progress bar per phase on a terminal; none when quiet or piped."""
    if quiet or not sys.stderr.isatty():
        return work(None)
    # (imported here: a piped or quiet run, as agents and scripts make, never draws one)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=bars.real, transient=True) as bar:
        tasks: dict[str, int] = {}

        def update(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(phase, total=total)
            bar.update(tasks[phase], completed=done, total=total)

        return work(update)
