"""What every command module shares: the consoles, common options, opening the project."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
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


# A repository's commits, documents and memories may carry terminal control sequences (OSC 52 writes the
# clipboard, others set the title or move the cursor): they are shown as escapes, never sent to the terminal.
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x20), *range(0x7F, 0xA0)) if c not in (0x09, 0x0A)}


def plain(text: str) -> str:
    """Text shown as it is: its control characters (all but tab and newline) written as `\\x1b`."""
    return text.translate(_CONTROLS)


def escape(text: str) -> str:
    """Text shown as it is, not read as rich markup nor as terminal controls."""
    from rich.markup import escape as escape_markup

    return escape_markup(plain(text))


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
def refused(*kinds: type[Exception]) -> Iterator[None]:
    """A refused request (any store's, or an error of `kinds`: one that says what is wrong with the input)
    prints what to do and exits 2."""
    try:
        yield
    except (Refusal, *kinds) as exc:
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
    """Run long work with a progress bar per phase on a terminal, progress lines when stderr is a pipe
    or a log (`PlainProgress`); nothing when quiet (the output is JSON)."""
    if quiet:
        return work(None)
    if not sys.stderr.isatty():
        with PlainProgress() as lines:
            return work(lines.update)
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


PLAIN_EVERY = 10.0  # seconds between the lines that say a phase is still running


class PlainProgress:
    """Progress as lines on stderr, for a pipe or a log, where a bar cannot be redrawn: a line when a
    phase starts and when it ends, and every PLAIN_EVERY seconds while work goes on, from a thread (a
    phase whose workers report nothing for minutes is still named, with how long it has run)."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.phase = ""
        self.phase_started = self.started
        self.done = self.total = 0
        self.said = self.started  # when the last line was written
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._tick, name="tenure-progress", daemon=True)

    def __enter__(self) -> PlainProgress:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def update(self, phase: str, done: int, total: int) -> None:
        with self._lock:
            now = time.monotonic()
            if phase != self.phase:
                self.phase, self.phase_started = phase, now
                self._say(f"{phase}: {done}/{total}" + (" done" if done >= total else ""))
            elif done >= total > self.done:
                self._say(f"{phase}: {done}/{total} done in {now - self.phase_started:.1f} s")
            self.done, self.total = done, total

    def _tick(self) -> None:
        while not self._stop.wait(1.0):
            with self._lock:
                now = time.monotonic()
                if now - self.said < PLAIN_EVERY:
                    continue
                if not self.phase:
                    self._say(f"working, {now - self.started:.0f} s")
                elif self.done < self.total:
                    self._say(f"{self.phase}: {self.done}/{self.total}, {now - self.phase_started:.0f} s in this phase")
                else:
                    self._say(f"working (after {self.phase}), {now - self.started:.0f} s")

    def _say(self, text: str) -> None:
        self.said = time.monotonic()
        line = f"tenure: {text}\n"
        try:  # (written past Python's buffer: workers fork while this thread runs, and must not inherit its lock)
            os.write(sys.stderr.fileno(), line.encode())
        except (AttributeError, OSError, ValueError):  # (a stream with no descriptor: a test's)
            sys.stderr.write(line)
            sys.stderr.flush()
