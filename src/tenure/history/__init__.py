"""The repository's git history, read once and shared by the stores that build on it: commits, the
files they changed, the symbols they touched (mapped through the structural index), reverts and
thin messages. See api.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tenure.history.model import Commit, FileChange, TouchedSymbol

if TYPE_CHECKING:
    from tenure.history.api import GitHistory

__all__ = ["Commit", "FileChange", "GitHistory", "TouchedSymbol"]  # (api.py loads numpy only to map)


def __getattr__(name: str) -> Any:
    """`GitHistory` on first use: a command that opens the project but reads no history (a hook on
    every tool use) does not load the reader (PEP 562)."""
    if name == "GitHistory":
        from tenure.history.api import GitHistory

        return GitHistory
    raise AttributeError(name)
