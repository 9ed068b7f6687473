"""Which lines a commit did not really write: what `git blame -w -M` sees through.

A formatter re-indents or re-wraps lines, a refactor moves a function within a file or to another:
the lines a diff adds are then the lines it removed, in other whitespace or another place. Per
commit, an added line is *kept* (not written by this commit) when

- its hunk only reformats: the hunk's removed and added text are the same once whitespace, the
  quote style and trailing commas before a closing bracket are ignored; or
- it was moved: the same line, whitespace ignored, was removed elsewhere in the commit (any file
  of an indexed language; lines shorter than MIN_MOVED characters are too common to say so, unless
  they stand in a moved block: next to a moved line, as they stood next to its source).

A kept line moved within the same file also records the line it came from, so that the history's
line maps carry it back exactly. Memory is bounded: past MAX_LINES changed lines or MAX_BYTES of their
text in one commit (a generated file) no more lines are compared, and those lines count as written by
the commit.
"""

from __future__ import annotations

import re
from collections import defaultdict, deque
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tenure.history.gitlog import Hunk

MIN_MOVED = 8  # `return`, `else:`, `)` ... are removed and added everywhere: no evidence of a move
MAX_LINES = 200_000  # changed lines compared per commit ...
MAX_BYTES = 16 << 20  # ... and their text (without whitespace)
_TRAILING_COMMA = re.compile(rb",(?=[)\]}])")


def squeezed(text: bytes) -> bytes:
    """A line without its whitespace."""
    return b"".join(text.split())


class Survival:
    """Collects one commit's changed lines as the diff is read; `settle` marks each hunk's kept lines."""

    def __init__(self) -> None:
        self.lines = self.bytes = 0
        self.cut: set[int] = set()  # hunks (by position) whose lines were not all compared: past the bounds
        self.hunks: list[tuple[str, Hunk, list[tuple[int, bytes]], list[tuple[int, bytes]]]] = []

    def hunk(self, path: str, hunk: Hunk) -> None:
        self.hunks.append((path, hunk, [], []))

    def removed(self, old_line: int, text: bytes) -> None:
        self._line(2, old_line, text)

    def added(self, new_line: int, text: bytes) -> None:
        self._line(3, new_line, text)

    def _line(self, side: int, line: int, text: bytes) -> None:
        if self.hunks and (self.lines >= MAX_LINES or self.bytes >= MAX_BYTES):
            self.cut.add(len(self.hunks) - 1)
        elif self.hunks:
            text = squeezed(text)
            self.lines += 1
            self.bytes += len(text)
            self.hunks[-1][side].append((line, text))

    def settle(self) -> None:
        pool: dict[bytes, dict[str, deque[int]]] = defaultdict(dict)  # squeezed text -> path -> old lines
        text_at: dict[tuple[str, int], bytes] = {}
        open_hunks = []
        for i, (path, hunk, removed, added) in enumerate(self.hunks):
            if removed and added and i not in self.cut and _reformatted(removed, added):
                hunk.kept = [n for n, text in added if text]
                continue
            for n, text in removed:
                text_at[(path, n)] = text
                if len(text) >= MIN_MOVED:
                    pool[text].setdefault(path, deque()).append(n)
            open_hunks.append((path, hunk, added))
        used: set[tuple[str, int]] = set()
        for path, hunk, added in open_hunks:
            found: list[tuple[str, int] | None] = []
            for _, text in added:
                source = _take(pool.get(text), path, used) if len(text) >= MIN_MOVED else None
                if source is not None:
                    used.add(source)
                found.append(source)
            # a moved block's blank and short lines (`try:`, `)`) move with it: extend each matched run
            for order in (range(1, len(added)), range(len(added) - 2, -1, -1)):
                for i in order:
                    step = 1 if order.step == 1 else -1
                    before = found[i - step]
                    if found[i] is None and before is not None:
                        source = (before[0], before[1] + step)
                        if source not in used and text_at.get(source) == added[i][1]:
                            used.add(source)
                            found[i] = source
            for (n, _), source in zip(added, found, strict=True):
                if source is not None:
                    hunk.kept.append(n)
                    if source[0] == path:
                        hunk.moved += [n, source[1]]
        self.hunks = []
        self.cut = set()
        self.lines = self.bytes = 0


def _take(sources: dict[str, deque[int]] | None, path: str, used: set[tuple[str, int]]) -> tuple[str, int] | None:
    """A removed line of this text not matched yet, from the same file if there is one (each is
    looked at once: linear however often a line repeats)."""
    while sources:
        where = path if path in sources else next(iter(sources))
        lines = sources[where]
        line = lines.popleft() if lines else None
        if not lines:
            del sources[where]
        if line is not None and (where, line) not in used:
            return where, line
    return None


def _reformatted(removed: list[tuple[int, bytes]], added: list[tuple[int, bytes]]) -> bool:
    def text(lines: list[tuple[int, bytes]]) -> bytes:
        return _TRAILING_COMMA.sub(b"", b"".join(t for _, t in lines)).replace(b"'", b'"')
    return text(removed) == text(added)
