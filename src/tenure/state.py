"""Where tenure keeps a project's state: `<root>/.tenure/tenure.db`, and what to say when it cannot be
used. A module of its own, so that the entry point can look before the product is loaded."""

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from tenure.files import RefusedWrite, project_path
from tenure.git import git_argv

if TYPE_CHECKING:
    import tempfile

STATE_DIR = ".tenure"
DB_NAME = "tenure.db"
EMBED_LOCK = "embed.lock"  # held by the `tenure backfill` an index starts (the code's elements embedded)
EMBED_LOG = "embed.log"
KNOWLEDGE_LOCK = "knowledge.lock"  # held by the knowledge build running (an index's offline pass or a model build)


def state_dir(root: Path) -> Path:
    """The directory holding a project's state (its database, logs, caches, setup manifest)."""
    return root / STATE_DIR


def database_path(root: Path) -> Path:
    return state_dir(root) / DB_NAME


def make_state_dir(root: Path) -> Path:
    """`root`'s state directory, made if missing: private to its owner (0700, whatever the umask: it
    holds the memories and the session log) and ignored by git. A `.tenure` that leads out of the
    project (a link a cloned repository holds) is refused."""
    state = project_path(root, STATE_DIR, "the state directory")
    state.mkdir(mode=0o700, exist_ok=True)  # (the umask can only narrow it)
    _refuse_links(state)
    ignore = state / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n")
    return state


def _refuse_links(state: Path) -> None:
    """tenure makes no links in its state directory: one there was put by someone else (a `.tenure/`
    committed to a cloned repository), and every cache, log or database written through it would be
    written wherever it points."""
    for folder, dirs, files in os.walk(state):  # (a linked directory is listed, never entered)
        for name in (*dirs, *files):
            if os.path.islink(link := os.path.join(folder, name)):
                raise RefusedWrite(f"{link} is a link (to {os.readlink(link)}): tenure writes no links in its state "
                                   "directory and will not write through one; remove it (a cloned repository may "
                                   "have brought it) and run the command again")


def state_error(exc: BaseException) -> str | None:
    """One line for a project state tenure cannot use (its database locked, unreadable, or its
    directory not creatable), instead of a traceback; None for any other error."""
    from tenure.storage.database import DatabaseDamaged, DatabaseLocked, DatabaseUnavailable, StorageError

    where = f"the project's database ({STATE_DIR}/{DB_NAME})"
    if isinstance(exc, StorageError) and exc.remote:  # a team's server: its own words say what happened
        return str(exc)
    if isinstance(exc, DatabaseLocked):
        return f"{where} is locked by another tenure process (a first index holds it until it ends): try again"
    if isinstance(exc, DatabaseUnavailable):  # disk full, no permission: nothing written was kept
        return f"{where} could not be used: {exc}"
    if isinstance(exc, DatabaseDamaged):  # not a database, or a damaged one
        return (f"{where} is damaged ({exc}). Do not delete it: besides the graph, which an index builds again, it "
                "holds the memories, work sessions and the record of their key, which nothing else holds. Run "
                "`tenure repair`: it copies the database aside first, keeps every readable memory and session, and "
                "rebuilds the graph")
    if isinstance(exc, StorageError | RefusedWrite):
        return str(exc)
    if isinstance(exc, OSError) and exc.filename is not None and STATE_DIR in str(exc.filename):
        return f"cannot use the state directory {exc.filename}: {exc.strerror}"
    return None


@contextlib.contextmanager
def process_lock(state: Path, name: str) -> Iterator[bool]:
    """Hold the lock file `name` of a state directory while inside, so that one background job of
    a kind runs per project; yields False (and holds nothing) when another process has it. An
    advisory flock: it goes away with the process, so a crash never leaves it held."""
    state.mkdir(mode=0o700, exist_ok=True)
    fd = os.open(state / name, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        yield True
    finally:
        os.close(fd)


def process_folder(parent: str, prefix: str) -> "tempfile.TemporaryDirectory[str]":
    """A folder of this process's in `parent` (a state directory), `<prefix><pid>-…`, removed when the
    returned object is cleaned up; those of processes that are gone (killed: nothing else removes them)
    are removed first."""
    import shutil
    import tempfile

    with os.scandir(parent) as entries:
        for entry in entries:
            pid = entry.name.removeprefix(prefix).partition("-")[0]
            # (a checkout's own folder may carry any name: "²" is a digit to isdigit, "9"*20 no pid)
            if entry.name.startswith(prefix) and pid.isascii() and pid.isdigit() and len(pid) <= 10 \
                    and not process_alive(int(pid)) \
                    and entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
    return tempfile.TemporaryDirectory(prefix=f"{prefix}{os.getpid()}-", dir=parent, ignore_cleanup_errors=True)


def lock_holder(state: Path, name: str) -> str:
    """Who holds the lock file `name`, as its holder wrote it ("process 1234"; "another process")."""
    try:
        pid = (state / name).read_text().strip()
    except OSError:
        pid = ""
    return f"process {pid}" if pid.isdigit() else "another process"


def lock_held(state: Path, name: str) -> bool:
    """Whether another process holds the lock file `name` (see `process_lock`); makes nothing."""
    if not (state / name).exists():
        return False
    with process_lock(state, name) as acquired:
        return not acquired


def process_alive(pid: int) -> bool:
    """Whether process `pid` still runs (another user's too), for what a process left behind. A number no
    process can have (0 and below signal a process group; too large for a pid_t) is none that runs."""
    if not 0 < pid < 2**31:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # (someone else's)
        return True
    return True


def find_root(start: Path, by_git: bool = True) -> Path:
    """The project a path belongs to: the nearest ancestor with a .tenure/, else (`by_git`) the git
    work tree (unless that repository ignores the path: then it is a project of its own), else the
    path itself. An index does not climb to the work tree: the directory it is given in no indexed
    project is a project (a service of a monorepo, the sample inside tenure's own checkout)."""
    start = start.resolve()
    for candidate in (start, *start.parents):
        if state_dir(candidate).is_dir():
            return candidate
    if not by_git:
        return start
    import subprocess  # (here: a hook's project has a .tenure/, and subprocess is a tenth of a hook's start)

    try:
        top = subprocess.run(git_argv(start, "rev-parse", "--show-toplevel"),
                             capture_output=True, text=True, check=True, timeout=10).stdout.strip()
        if top and Path(top).resolve() != start:
            ignored = subprocess.run(git_argv(top, "check-ignore", "-q", "--", str(start)),
                                     capture_output=True, timeout=10).returncode == 0
            return start if ignored else Path(top)
    except (OSError, subprocess.SubprocessError):
        pass
    return start
