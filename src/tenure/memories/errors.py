"""What can go wrong with a memory operation; every message says what to do about it."""

from __future__ import annotations

from tenure.refusal import Refusal


class MemoriesError(Refusal):
    """A memory operation was refused; nothing was written."""


class KeyProblem(MemoriesError):
    """The encryption key is missing, wrong or unsafe: nothing is read or written until it is fixed."""
