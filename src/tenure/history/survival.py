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
from itertools import chain, count
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tenure.history.gitlog import Hunk

MIN_MOVED = 8  # `return`, `else:`, `)` ... are removed and added everywhere: no evidence of a move
MAX_LINES = 200_000  # changed lines compared per commit ...
MAX_BYTES = 16 << 20  # ... and their text (without whitespace)
_TRAILING_COMMA = re.compile(rb",(?=[)\]}])")
_SPACE = b" \t\r\x0b\x0c"  # ASCII whitespace but the newline


def squeezed(lines: bytes) -> bytes:
    """Lines (joined by newlines) without their other whitespace: as `git blame -w` compares them."""
    return lines.translate(None, _SPACE)


class Survival:
    """Collects one commit's changed lines as the diff is read; `settle` marks each hunk's kept lines."""

    def __init__(self) -> None:
        self.lines = self.bytes = 0
        self.cut: set[int] = set()  # hunks (by position) whose lines were not all compared: past the bounds
        # (path, hunk, its removed lines from old_start on, its added lines from new_start on), squeezed
        self.hunks: list[tuple[str, Hunk, list[bytes], list[bytes]]] = []

    def hunk(self, path: str, hunk: Hunk, removed: list[bytes], added: list[bytes], size: int | None = None) -> None:
        """A hunk and its removed and added lines, squeezed (as many as the bounds leave room for);
        `size`: their bytes, if the reader counted them."""
        lines = len(removed) + len(added)
        if size is None:
            size = sum(map(len, removed)) + sum(map(len, added))
        if self.lines + lines <= MAX_LINES and self.bytes + size < MAX_BYTES:  # (both sides whole: most hunks)
            self.lines += lines
            self.bytes += size
            self.hunks.append((path, hunk, removed, added))
        else:
            self.hunks.append((path, hunk, self._bounded(removed), self._bounded(added)))

    def file(self, path: str, hunks: list[tuple[Hunk, list[bytes], list[bytes], int]], lines: int, size: int) -> None:
        """A file's hunks, each with its removed and added lines squeezed and their bytes (`hunk`'s arguments),
        `lines` and `size` of them all: taken at once where the bounds leave room for them all (most files)."""
        if self.lines + lines <= MAX_LINES and self.bytes + size < MAX_BYTES:
            self.lines += lines
            self.bytes += size
            self.hunks += [(path, hunk, removed, added) for hunk, removed, added, _ in hunks]
        else:
            for hunk, removed, added, hunk_size in hunks:
                self.hunk(path, hunk, removed, added, hunk_size)

    def _bounded(self, lines: list[bytes]) -> list[bytes]:
        """As many of `lines` as the bounds leave room for (a hunk that crosses them: `hunk` took the others)."""
        kept = 0
        while kept < len(lines) and self.lines < MAX_LINES and self.bytes < MAX_BYTES:
            self.lines += 1
            self.bytes += len(lines[kept])
            kept += 1
        if kept < len(lines):
            self.cut.add(len(self.hunks))
        return lines[:kept]

    def settle(self) -> None:
        if not self.hunks:  # (a commit changing no file of an indexed language)
            return
        open_hunks = []
        for i, (path, hunk, removed, added) in enumerate(self.hunks):
            if removed and added and i not in self.cut and _reformatted(removed, added):
                hunk.kept = [n for n, text in enumerate(added, hunk.new_start) if text]
            else:
                open_hunks.append((path, hunk, removed, added))
        self.hunks = []
        self.cut = set()
        self.lines = self.bytes = 0
        # only a text both removed and added somewhere in the commit can have moved
        removed_texts = set().union(*(removed for _, _, removed, _ in open_hunks))
        # (the added lines are looked up, not made a set: a commit adding a whole project removes nothing)
        wanted = {text for text in removed_texts.intersection(chain.from_iterable(added for *_, added in open_hunks))
                  if len(text) >= MIN_MOVED} if removed_texts else set()
        if not wanted:
            return
        pool: dict[bytes, dict[str, deque[int]]] = defaultdict(dict)  # squeezed text -> path -> old lines
        sources: set[str] = set()  # the paths the pool holds lines of: the only ones a moved line comes from
        for path, hunk, removed, _ in open_hunks:
            if not wanted.isdisjoint(removed):
                sources.add(path)
                for n, text in enumerate(removed, hunk.old_start):
                    if text in wanted:
                        pool[text].setdefault(path, deque()).append(n)
        # (path -> its hunks' removed lines: what a moved block's neighbour lines are compared with)
        lost: dict[str, list[tuple[int, list[bytes]]]] = defaultdict(list)
        for path, hunk, removed, _ in open_hunks:
            if path in sources:
                lost[path].append((hunk.old_start, removed))
        removed_at: dict[str, dict[int, bytes]] = {}  # (path -> old line -> text: made for a path when asked)
        used: set[tuple[str, int]] = set()
        for path, hunk, _, added in open_hunks:
            if pool.keys().isdisjoint(added):
                continue
            found: list[tuple[str, int] | None] = []
            for text in added:  # (the pool holds texts of MIN_MOVED characters or more only)
                source = _take(sources_of, path, used) if (sources_of := pool.get(text)) else None
                if source is not None:
                    used.add(source)
                found.append(source)
            if not any(found):  # (none of its lines moved: no run to extend)
                continue
            # a moved block's blank and short lines (`try:`, `)`) move with it: extend each matched run
            for order in (range(1, len(added)), range(len(added) - 2, -1, -1)):
                step = order.step
                for i in order:
                    if found[i] is None and (before := found[i - step]) is not None:
                        source = (before[0], before[1] + step)
                        if source not in used and _removed_at(lost, removed_at, *source) == added[i]:
                            used.add(source)
                            found[i] = source
            for n, source in enumerate(found, hunk.new_start):
                if source is not None:
                    hunk.kept.append(n)
                    if source[0] == path:
                        hunk.moved += [n, source[1]]


def _removed_at(lost: dict[str, list[tuple[int, list[bytes]]]], index: dict[str, dict[int, bytes]], path: str,
               line: int) -> bytes | None:
    """The removed line at old line `line` of `path` (None: not a removed line). Each path's lines are
    indexed when first asked about (every removed line of every file that lost a moved text was indexed
    per commit; most are never asked about), the last hunk holding a line winning."""
    if (lines := index.get(path)) is None:
        lines = index[path] = {}
        for start, removed in lost.get(path, ()):
            lines.update(zip(count(start), removed, strict=False))
    return lines.get(line)


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


def _reformatted(removed: list[bytes], added: list[bytes]) -> bool:
    old, new = b"".join(removed), b"".join(added)
    # (without any comma or quote two texts that differ differ however their commas and quotes are
    # written: most hunks are told apart so, without the regular expression)
    if old.translate(None, b",'\"") != new.translate(None, b",'\""):
        return False
    return _TRAILING_COMMA.sub(b"", old).replace(b"'", b'"') == _TRAILING_COMMA.sub(b"", new).replace(b"'", b'"')
