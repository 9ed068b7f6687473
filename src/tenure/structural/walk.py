"""The directory walk of every update without a watcher (discovery outside git, the JVM source's
inputs), on strings: `os.scandir` entries tell a directory from a file without a stat (but for
links), and no path object or relpath is made per directory (in os.walk, relpath and islink per
directory cost more than the listing itself)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Collection, Iterator

from tenure.structural.memo import Scope

# (directory relative to the root, "" for the root; its subdirectories, which the caller may prune as
# with os.walk; its other entries, links to files and broken links included; its links to directories)
Listing = tuple[str, list[str], list[str], list[str]]


# Walks kept for the next walker of the same tree within `shared()`
_SHARED: Scope[tuple[str, frozenset[str]], list[Listing]] = Scope()


def shared() -> contextlib.AbstractContextManager[None]:
    """Within, a tree walked whole is replayed to the next walker of it instead of listed again (an
    index without git walks the tree to discover files, then the JVM source walks it for its inputs)."""
    return _SHARED.opened()


def walk(root: str, ignored: Collection[str]) -> Iterator[Listing]:
    """Every directory under `root` in os.walk's top-down order, but directories named in `ignored`
    and directory links (never followed: that is how walks loop). A directory that cannot be listed
    to the end is passed over, as os.walk does."""
    key, shared = (root, frozenset(ignored)), _SHARED.table  # (read once: another thread may end its scope)
    if shared is not None and key in shared:
        yield from _replay(shared[key])
        return
    record: list[Listing] | None = [] if shared is not None else None
    for listing in _listings(root, ignored):
        subdirs = listing[1]
        listed = list(subdirs)
        yield listing
        if record is not None:
            if subdirs != listed:  # pruned by the caller: not the whole tree, not kept
                record = None
            else:
                record.append((listing[0], listed, listing[2], listing[3]))
    if record is not None and shared is not None:
        shared[key] = record


def _replay(listings: list[Listing]) -> Iterator[Listing]:
    """A recorded walk, as `walk` would list it now: the caller may prune subdirectories again."""
    pruned: list[str] = []
    for rel, subdirs, files, links in listings:
        if any(rel == p or rel.startswith(p + "/") for p in pruned):
            continue
        mine = list(subdirs)
        yield rel, mine, list(files), list(links)
        prefix = f"{rel}/" if rel else ""
        pruned += [prefix + d for d in subdirs if d not in mine]


def _listings(root: str, ignored: Collection[str]) -> Iterator[Listing]:
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
