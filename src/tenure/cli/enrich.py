"""`tenure enrich`: verify the graph's call edges with real language servers, in the foreground."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from tenure.api import Tenure
from tenure.cli.common import (
    BackgroundOpt,
    JsonOpt,
    RepoOpt,
    console,
    err,
    escape,
    open_project,
    refused,
    with_progress,
)
from tenure.state import state_dir
from tenure.structural.lsp.state import LOCK_FILE, LspState, enrich_lock
from tenure.words import counted

MORE_PASSES = 3
LOCK_WAIT_S = 120.0  # a superseded run stops within a request's timeout (60 s) and closes its server
LOG_EVERY_S = 5.0  # a background run's progress lines in enrich.log, at most this often


def register(app: typer.Typer) -> None:
    app.command()(enrich)


def enrich(
    language: Annotated[list[str] | None, typer.Option("--language", "-l", help="Only these languages.")] = None,
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
    background: BackgroundOpt = False,
    schedule: Annotated[int | None, typer.Option("--schedule", hidden=True,
                                                 help="The index's schedule this background run belongs to.")]
    = None,
) -> None:
    """Ask language servers (basedpyright, typescript-language-server, gopls, …) to confirm, narrow or
    refute the call edges of files changed since they were last verified. `tenure index` runs this in
    the background; what-breaks never waits for it."""
    # SIGTERM (a stopped background run) unwinds like an error: the servers are shut down and the file
    # being verified is rolled back, never half written.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with open_project(repo) as t, _lock(t, schedule) as acquired:
        if not acquired:
            if background:
                return
            err.print("[yellow]an enrichment is already running for this project[/yellow] "
                      f"(see {state_dir(t.root) / LOCK_FILE}); what-breaks shows what it verified so far")
            raise typer.Exit(1)
        if background:
            _log(f"enrichment started (pid {os.getpid()})")
        stop = _stop_when(t, schedule)
        with refused(ValueError):  # (a broken tenure.toml)
            report = _enrich(t, set(language) if language else None, as_json, background, stop)
            for _ in range(MORE_PASSES if background else 0):
                if report["stopped"] or any(r["failed"] for r in report["languages"].values()):
                    break  # stopped, or given up: said once, not retried until the next index
                # an index that ran meanwhile (one that scheduled no run: a watcher's, TENURE_ENRICH=off)
                # changed files: verify them now (a pass with nothing to do starts no server)
                again = _enrich(t, set(language) if language else None, True, background, stop)
                if not any(r["pending"] for r in again["languages"].values()):
                    break
                report = again
    if as_json:
        print(json.dumps(report))
    elif background:
        _log(f"enriched in {report['seconds']:.1f}s: {report['text']}")
    else:
        console.print(escape(f"enriched in {report['seconds']:.1f}s: {report['text']}"))
        if report["dropped"]:
            console.print(f"{counted(report['dropped'], 'file')} changed or went away since verified: "
                          f"{'its' if report['dropped'] == 1 else 'their'} verdicts were dropped")


@contextlib.contextmanager
def _lock(t: Tenure, schedule: int | None) -> Iterator[bool]:
    """The project's enrichment lock; a scheduled run waits (up to LOCK_WAIT_S) for the run it
    supersedes to let go of it, unless it is itself superseded meanwhile."""
    deadline = time.monotonic() + (LOCK_WAIT_S if schedule is not None else 0)
    while True:
        with enrich_lock(state_dir(t.root)) as acquired:
            if acquired or time.monotonic() >= deadline or LspState(t.db).why_stop(schedule or 0):
                yield acquired
                return
        time.sleep(0.5)


def _stop_when(t: Tenure, schedule: int | None) -> Callable[[], str | None] | None:
    """A scheduled run stops with its index: superseded, or the index died unfinished."""
    if schedule is None:
        return None
    state = LspState(t.db)
    return lambda: state.why_stop(schedule)


def _enrich(t: Tenure, languages: set[str] | None, quiet: bool, background: bool,
            stop: Callable[[], str | None] | None) -> dict:
    if background:  # its output is .tenure/enrich.log: a line as it goes, not a bar
        return t.enrich(languages, progress=_progress_lines(), stop=stop)
    return with_progress(lambda progress: t.enrich(languages, progress=progress, stop=stop), quiet)


def _progress_lines() -> Callable[[str, int, int], None]:
    said = [-LOG_EVERY_S]

    def progress(phase: str, done: int, total: int) -> None:
        if done == total or time.monotonic() - said[0] >= LOG_EVERY_S:
            said[0] = time.monotonic()
            _log(f"{phase}: {done} of {counted(total, 'file')} verified")

    return progress


def _log(line: str) -> None:
    print(f"{datetime.now(UTC).isoformat(timespec='seconds')} {line}", flush=True)
