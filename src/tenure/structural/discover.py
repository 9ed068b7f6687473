"""Which files an index considers, and what it needs to know of each: git's view of the tree (or a
walk of it, `walk.py`), the directories never looked into, and per file one stat (a hash and the
content only when the stat moved).
"""

from __future__ import annotations

import codecs
import hashlib
import os
import stat
import subprocess
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path

from tenure.git import git_argv
from tenure.state import STATE_DIR
from tenure.structural.languages import LanguageSpec, language_for
from tenure.structural.walk import walk

MAX_FILE_BYTES = 5 * 1024 * 1024  # larger files are almost always generated or vendored data
ALWAYS_IGNORED = {".git", ".hg", ".svn", STATE_DIR, "node_modules", "__pycache__", ".venv", "venv", ".tox",
                  ".mypy_cache", ".pytest_cache", ".ruff_cache"}


@dataclass
class Candidate:
    """A file an index may take: its stat, its content and hash once read, or why it is passed over."""

    path: str
    spec: LanguageSpec
    size: int
    mtime_ns: int
    content: bytes | None = None
    content_hash: str = ""
    skip: str = ""


@dataclass
class Listing:
    """The files of the project to consider, the paths passed over with a reason, and how they were
    listed (git's view of the work tree, or a walk of the folder and why)."""

    paths: list[str]
    skipped: list[tuple[str, str]]
    how: str


GIT = "git ls-files"


def discover(root: Path) -> Listing:
    """The files to consider: git's view when the folder is in a work tree that does not ignore it,
    else a walk of the folder (a project inside an ignored folder lists nothing through git)."""
    try:
        # git lists paths relative to the directory it runs in, subdirectory or not.
        out = subprocess.run(
            git_argv(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"),
            capture_output=True, check=True, timeout=60,
        ).stdout
        paths = {p for p in out.decode("utf-8", "surrogateescape").split("\0") if p}
        if paths or not _ignored_by_git(root):
            return Listing(sorted(p for p in paths if not ignored(p)), [], GIT)
        how = "a walk of the folder (the git repository around it ignores it)"
    except (OSError, subprocess.SubprocessError):
        how = "a walk of the folder (not in a git work tree)"  # (or no git)
    found: list[str] = []
    skipped: list[tuple[str, str]] = []
    for rel, _, files, links in walk(os.fspath(root), ALWAYS_IGNORED):
        prefix = f"{rel}/" if rel else ""
        found += [prefix + f for f in files]
        skipped += [(prefix + d, "symlinked directory not followed") for d in links]
    return Listing(sorted(found), sorted(skipped), how)


def _ignored_by_git(root: Path) -> bool:
    """Whether the git repository around `root` ignores the folder itself (`vendor/` in its .gitignore)."""
    try:
        return subprocess.run(git_argv(root, "check-ignore", "-q", "."), capture_output=True,
                              timeout=60).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def new_source_files(root: Path, known: AbstractSet[str]) -> list[str]:
    """Source files under `root` that an index would take and has no row for (a file it skipped has
    one; what it passes over without one, a FIFO or a path git lists but the tree lacks, is left out)."""
    named, _ = named_in_utf8(p for p in discover(root).paths if p not in known)
    return [p for p in named if language_for(p) is not None and os.path.isfile(root / p)]


def named_in_utf8(paths: Iterable[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """The paths UTF-8 can spell (the store keeps them as text), and the others passed over with a
    reason, shown with the bytes that are not UTF-8 escaped (a name is bytes on POSIX)."""
    named, unnamed = [], []
    for path in paths:
        if path.isascii():
            named.append(path)
            continue
        try:
            path.encode("utf-8")
            named.append(path)
        except UnicodeEncodeError:
            shown = path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            unnamed.append((shown, "file name is not valid UTF-8"))
    return named, unnamed


def ignored(path: str) -> bool:
    """Whether a relative path lies under a directory no index looks into (ALWAYS_IGNORED)."""
    return "/" in path and not ALWAYS_IGNORED.isdisjoint(path.split("/")[:-1])


def inspect_file(root: str, path: str, known: dict | None, max_bytes: int) -> Candidate | None:
    """What the index needs to know of one file: one lstat for a regular file (this runs for every
    file of the tree on every index without a watcher), a stat and the real path for a link."""
    spec = language_for(path)
    if spec is None:
        return None
    full = os.path.join(root, path)
    try:
        st = os.lstat(full)
    except OSError:
        return None  # listed by git but deleted from the work tree
    link = stat.S_ISLNK(st.st_mode)
    if link:
        try:
            st = os.stat(full)
        except OSError:
            return Candidate(path, spec, 0, 0, skip="symlink loop or broken link")
    if not stat.S_ISREG(st.st_mode):
        return None
    cand = Candidate(path, spec, st.st_size, st.st_mtime_ns)
    if link and not _inside(os.path.realpath(full), os.path.realpath(root)):
        cand.skip = "symlink to outside the repository"
    elif st.st_size > max_bytes:
        cand.skip = f"too large ({st.st_size / 1e6:.1f} MB > {max_bytes / 1e6:.0f} MB limit; likely generated)"
    if cand.skip:
        return cand
    unchanged_stat = known and known["size"] == st.st_size and known["mtime_ns"] == st.st_mtime_ns
    if unchanged_stat and known["parse_status"] in ("ok", "partial") and known["content_hash"]:
        cand.content_hash = known["content_hash"]  # unchanged by stat: skip reading it
        return cand
    try:
        cand.content = Path(full).read_bytes()
    except OSError as exc:
        cand.skip = f"unreadable: {exc.strerror}"
        return cand
    if cand.content.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        cand.skip = "UTF-16 text (not read: save it as UTF-8 to index it)"
    elif b"\0" in cand.content[:8192]:
        cand.skip = "binary content"
    cand.content_hash = content_hash(cand.content)
    return cand


def content_hash(content: bytes) -> str:
    """The digest the index keeps of a file's content (files.content_hash): a reader of a file compares
    against it to know whether the index holds the file as it is on disk."""
    return hashlib.blake2b(content, digest_size=16).hexdigest()


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)
