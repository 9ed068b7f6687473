"""Files tenure writes in a project: where they may be, and how they are replaced.

A cloned repository is untrusted input. A path its configuration names (`[procedural] agents_file`), or a
file it holds that tenure rewrites (AGENTS.md, which may be a symbolic link), must lead to a place inside
the project: `project_path` refuses any other. `write_atomic` replaces a file whole (a reader never sees
half of it, a link is written through, never turned into a copy), and a process killed while writing
leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
from pathlib import Path

from tenure.refusal import Refusal


class RefusedWrite(Refusal):
    """A file tenure will not write (outside the project, read-only); nothing was written."""


def project_path(root: Path, name: str | Path, what: str) -> Path:
    """The file that writing `name` (relative to `root`, or absolute) really changes, every symbolic link
    followed; refused unless it lies inside `root`, and outside `.git`. `what` names the path in the
    message (its setting)."""
    target, inside = leads_to(root, name)
    base = Path(root).resolve()
    shown = f"{name} (which leads to {target})" if Path(name) != target and not Path(name).is_absolute() else name
    if not inside:
        raise RefusedWrite(f"{what} {shown} is outside the project {base}: tenure writes only inside the project "
                           "(a cloned repository's settings and links are not trusted to aim elsewhere)")
    if ".git" in target.relative_to(base).parts:  # (its hooks are programs git runs)
        raise RefusedWrite(f"{what} {shown} is inside git's own directory: tenure never writes there")
    return target


def leads_to(root: Path, name: str | Path) -> tuple[Path, bool]:
    """Where `name` (relative to `root`, or absolute) leads, every symbolic link in any part of it followed,
    and whether that is inside `root`: where a path a cloned repository chose may be read or written."""
    base = Path(root).resolve()
    target = (base / name).resolve()  # (an absolute `name` replaces the base)
    return target, target.is_relative_to(base)


def refuse_read_only(path: Path) -> None:
    """A file nobody may write (chmod a-w) is kept as it is, even by a user allowed to replace it."""
    with contextlib.suppress(FileNotFoundError):
        if not path.stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
            raise RefusedWrite(f"{path} is read-only: make it writable (chmod u+w) for tenure to update it")


def write_atomic(path: Path, text: str | bytes, mode: int | None = None) -> None:
    """Replace `path` (already resolved by `project_path`) with `text`, whole: the content is written into
    an unnamed file (O_TMPFILE) that gets a name only once complete, just before it replaces the old one,
    so a process killed mid-write leaves nothing. Where the file system has no unnamed files, a named
    temporary file is used, locked while it lives; either way leftovers of a killed writer (temporary
    files of this name no process holds) are removed first."""
    keep = mode if mode is not None else (path.stat().st_mode & 0o777 if path.exists() else 0o644)
    _remove_leftovers(path)
    data = text.encode("utf-8") if isinstance(text, str) else text
    try:
        if not os.path.isdir("/proc/self/fd"):  # (the unnamed file gets its name through it)
            raise OSError("no /proc")
        fd = os.open(path.parent, os.O_TMPFILE | os.O_WRONLY, keep)
        named = False
    except (AttributeError, OSError):  # no O_TMPFILE (macOS; some file systems)
        fd, named = _named_temporary(path, keep), True
    tmp = _temporary_name(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # (a concurrent writer's cleanup leaves a held file alone)
        with open(fd, "wb", closefd=False) as out:
            out.write(data)
            out.flush()
            os.fsync(fd)
        os.fchmod(fd, keep)
        if not named:
            _name(fd, tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    finally:
        os.close(fd)


def _temporary_name(path: Path) -> Path:
    return path.with_name(f".{path.name}.tenure-{os.getpid()}.tmp")


def _name(fd: int, tmp: Path) -> None:
    """Give the unnamed file `fd` the name `tmp` (linkat following /proc's link to it: a directory fd
    makes os.link call linkat with AT_SYMLINK_FOLLOW rather than link(), which would not follow it)."""
    directory = os.open(tmp.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.link(f"/proc/self/fd/{fd}", tmp.name, dst_dir_fd=directory)
    finally:
        os.close(directory)


def _named_temporary(path: Path, mode: int) -> int:
    """A new file, never one that is there already (a link a repository planted under this name would
    send the content wherever it points): leftovers were removed just before."""
    return os.open(_temporary_name(path), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)


def _remove_leftovers(path: Path) -> None:
    """Temporary files of `path` a killed writer left (this module's, and the `.NAME.*.tmp` of earlier
    versions), unless a live writer holds one."""
    for leftover in path.parent.glob(f".{_glob_escape(path.name)}.*.tmp"):
        if leftover.is_symlink():  # no writer of ours makes links: one was planted
            leftover.unlink(missing_ok=True)
            continue
        try:
            fd = os.open(leftover, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if stat.S_ISREG(os.fstat(fd).st_mode):
                leftover.unlink(missing_ok=True)
        except BlockingIOError:
            pass  # a writer is still at it
        finally:
            os.close(fd)


def _glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)
