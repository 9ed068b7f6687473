"""The repository's git history, read once and shared by the stores that build on it: commits, the
files they changed, the symbols they touched (mapped through the structural index), reverts and
thin messages. See api.py."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tenure.history.api import GitHistory
    from tenure.history.model import Commit, FileChange, TouchedSymbol

__all__ = ["Commit", "FileChange", "GitHistory", "TouchedSymbol"]
_HOMES = {"Commit": "model", "FileChange": "model", "TouchedSymbol": "model", "GitHistory": "api"}


def __getattr__(name: str) -> Any:
    """Each name on first use (PEP 562): a command that opens the project but reads no history (a hook
    on every tool use) loads neither the reader nor the model's msgspec; api.py loads numpy only to map."""
    if name not in _HOMES:
        raise AttributeError(name)
    return getattr(importlib.import_module(f"tenure.history.{_HOMES[name]}"), name)
