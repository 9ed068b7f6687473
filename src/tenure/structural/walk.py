"""The directory walk of every update without a watcher (discovery outside git, the JVM source's
inputs), on strings: `os.scandir` entries tell a directory from a file without a stat (but for
links), and no path object or relpath is made per directory (in os.walk, relpath and islink per
directory cost more than the listing itself)."""

from __future__ import annotations

import os
from collections.abc import Collection, Iterator

# (directory relative to the root, "" for the root; its subdirectories, which the caller may prune as
# with os.walk; its other entries, links to files and broken links included; its links to directories)
Listing = tuple[str, list[str], list[str], list[str]]


def walk(root: str, ignored: Collection[str]) -> Iterator[Listing]:
    """Every directory under `root` in os.walk's top-down order, but directories named in `ignored`
    and directory links (never followed: that is how walks loop). A directory that cannot be listed
    to the end is passed over, as os.walk does."""
    todo = [""]
    while todo:
        rel = todo.pop()
        subdirs: list[str] = []
        files: list[str] = []
        links: list[str] = []
        try:
            with os.scandir(os.path.join(root, rel)) as entries:
                for entry in entries:
                    if not _is_dir(entry):
                        files.append(entry.name)
                    elif entry.name in ignored:
                        continue
                    elif _is_link(entry):
                        links.append(entry.name)
                    else:
                        subdirs.append(entry.name)
        except OSError:
            continue
        yield rel, subdirs, files, links
        prefix = f"{rel}/" if rel else ""
        todo += [prefix + d for d in reversed(subdirs)]


def _is_dir(entry: os.DirEntry) -> bool:
    """A directory or a link to one (a broken or looping link is a file, as in os.walk)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _is_link(entry: os.DirEntry) -> bool:
    try:
        return entry.is_symlink()
    except OSError:  # gone since it was listed: os.walk would try to list it, and pass it over
        return False
