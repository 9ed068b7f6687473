"""The git command line tenure runs in a project."""

from __future__ import annotations

from pathlib import Path


def git_argv(root: Path | str, *args: str) -> list[str]:
    """`git -C root args` with core.fsmonitor off: it names a program git runs whenever it looks at the work
    tree (ls-files, diff, even rev-parse), and a project folder copied or unpacked whole, not cloned, brings
    its .git/config with it."""
    return ["git", "-C", str(root), "-c", "core.fsmonitor=false", *args]
