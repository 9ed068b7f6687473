"""The repository's git history, read once and shared by the stores that build on it: commits, the
files they changed, the symbols they touched (mapped through the structural index), reverts and
thin messages. See api.py."""

from tenure.history.api import GitHistory
from tenure.history.model import Commit, FileChange, TouchedSymbol

__all__ = ["Commit", "FileChange", "GitHistory", "TouchedSymbol"]  # (api.py loads numpy only to map)
