"""What the history store answers with: commits, the files they changed, the symbols they touched.

Frozen msgspec structs rather than dataclasses: a package's history is thousands of commits with tens
of thousands of files and symbols, built in a tenth of the time."""

from __future__ import annotations

import msgspec

# How a change was mapped to a symbol, strongest first (see mapping.py)
SPAN = "span"  # the changed lines fall inside the symbol's span, in the very content the index holds
CARRIED = "carried"  # ... after carrying them through the file's later diffs (an unbroken chain of blobs)
HUNK = "hunk"  # named by git's hunk header or a definition in the changed lines: one symbol of the file
HUNK_AMBIGUOUS = "hunk-ambiguous"  # ... a name several symbols of the file share: each is listed
FILE = "file"  # module-level lines (before any definition the hunk header could name): the file's module
HOW = (SPAN, CARRIED, HUNK, HUNK_AMBIGUOUS, FILE)
# A date a commit's header holds that no calendar reads (not a number, or past year 9999): stored as the
# earliest date there is, so that it ranks last by recency and reads as no date at all (gitlog.py)
UNKNOWN_DATE = "0001-01-01T00:00:00+00:00"
CLOCK_SKEW_DAYS = 1  # a commit dated later than one built on it (or than now) by up to this: clocks disagree a little
# A sweep: a diff over more files or symbols than these (a formatter, a dependency bump, a release, a
# merge of a long branch) touched each among many and says little about any one of them. One
# definition for the stores that rank commits (knowledge's `why`, the episodic timeline, expiry). Two
# looser cut-offs are kept apart on purpose: rule mining counts co-changes up to 30 files as contrast
# (procedural/mining.py MAX_FILES) and resolve lets a commit of up to 40 symbols vote (history/intent.py).
SWEEP_FILES = 10
SWEEP_SYMBOLS = 25


def is_sweep(files: int, symbols: int) -> bool:
    return files > SWEEP_FILES or symbols > SWEEP_SYMBOLS


class FileChange(msgspec.Struct, frozen=True):
    path: str
    old_path: str | None
    status: str  # A | M | D | R
    added: int
    deleted: int


class TouchedSymbol(msgspec.Struct, frozen=True):
    fqn: str
    path: str
    how: str
    lines: int  # changed lines attributed to it (a deletion counts one)


class Commit(msgspec.Struct, frozen=True):
    sha: str
    parents: tuple[str, ...]
    author_name: str
    author_email: str
    authored_at: str  # ISO 8601, UTC
    committed_at: str
    subject: str
    body: str
    is_merge: bool
    thin: bool
    thin_reason: str | None
    reverts: str | None  # the sha this commit reverts
    # message (`Revert "…"`, `This reverts commit …`) | content (puts every file it changed back) |
    # content-partial (puts some of the files it changed back, and changes no other)
    reverts_how: str | None
    files: tuple[FileChange, ...]
    symbols: tuple[TouchedSymbol, ...]

    def as_dict(self) -> dict:
        return msgspec.to_builtins(self)
