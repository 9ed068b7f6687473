"""Diffs onto symbols, deterministically, each mapping labelled with how it was made (model.HOW).

A change's changed lines are in the coordinates of the file as that commit left it. Where that is
the very content the index holds (same git blob), the lines fall inside symbols' spans: `span`.
An older change is carried forward: every later change of the file whose old blob is the one the
change before it produced is a step that maps old line numbers to new ones (unchanged lines shift;
a rewritten line goes to the line that replaced it, in order; a deleted line goes nowhere), so
the chain from the indexed content back through the file's history (renames included) maps each
change's lines onto today's symbols: `carried` (what `git blame` does, in reverse). A change the
chain does not reach (the other side of a merge, a file whose index is stale) is matched by name:
the definitions its changed lines make, else the one git's hunk header shows, among the file's
symbols today (`hunk`, or `hunk-ambiguous` when several share the name; `file` for module-level
lines before any definition).
"""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections import Counter, deque
from collections.abc import Callable
from itertools import accumulate, chain
from operator import attrgetter
from typing import NamedTuple

import numpy as np

from tenure.history import languages
from tenure.history.gitlog import NULL_BLOB, Hunk
from tenure.history.model import CARRIED, FILE, HUNK, HUNK_AMBIGUOUS, SPAN
from tenure.namespace.symbols import Symbol


class Change(NamedTuple):
    """A stored file change, as mapping needs it (a tuple: a history has thousands, made per mapping)."""

    id: int
    path: str
    old_path: str | None
    old_blob: str
    new_blob: str
    hunks: list[Hunk] | None
    sweep: bool = False  # a commit over many files (model.is_sweep), no merge: lines it rewrote keep their writer


ChangesInto = Callable[[str, str], list[Change]]  # (path, blob) -> the changes that produced that blob there
Touched = dict[str, tuple[str, int]]  # fqn -> (how, lines)
_OLD_START = attrgetter("old_start")  # (a hunk's sort key: no Python call per hunk)


def blob_id(content: bytes) -> str:
    """git's id of a file with this content (`git hash-object`)."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


def line_count(content: bytes) -> int:
    return content.count(b"\n") + (1 if content and not content.endswith(b"\n") else 0)


class FileSymbols:
    """An indexed file's symbols, and which of them owns each line (the innermost whose span holds it;
    decorator lines belong to the definition below them; lines outside every definition to the module)."""

    def __init__(self, path: str, language: str, spans: list[Symbol], content: bytes) -> None:
        self.path, self.spans, self.lines = path, spans, line_count(content)
        module = next((i for i, s in enumerate(spans) if s.kind == "module"), -1)
        self.module = module
        # (a list painted by slices: numpy's per-call cost on a span's two element operations was most of
        # the painting, and the lines are read one by one as a list anyway)
        owner = [module] * (self.lines + 2)
        self.parent = [-1] * len(spans)
        self._named: dict[str, list[int]] = {}
        for i, span in enumerate(spans):
            if i != module:
                self._named.setdefault(span.name, []).append(i)
        decorator = languages.decorators(language)
        text = content.split(b"\n") if decorator is not None else []
        for i, span in enumerate(spans):  # outermost first: an inner span paints over its parent's
            if i == module:
                continue
            lo = max(span.start, 1)  # (a symbol with no lines of its own holds its first)
            hi = min(max(span.end, lo), self.lines)
            if lo > hi:
                continue
            while decorator is not None and lo > 1 and decorator.match(text[lo - 2]):
                lo -= 1
            self.parent[i] = owner[lo]
            owner[lo:hi + 1] = [i] * (hi + 1 - lo)
        owner[0] = -1  # (line 0: no line, where a line gone today is carried)
        self.owner = owner

    def common(self, a: int, b: int) -> int:
        """The innermost symbol holding both of two symbols."""
        ancestors = set()
        while a >= 0:
            ancestors.add(a)
            a = self.parent[a]
        while b >= 0 and b not in ancestors:
            b = self.parent[b]
        return b

    def by_name(self, name: str) -> list[int]:
        return self._named.get(name, [])


Written = tuple[list[Hunk], list[int], list[int]]  # (hunks that wrote lines, their lines, where those are today)


def written(hunks: list[Hunk], to_now: np.ndarray, identity: bool = False) -> Written:
    """A change's hunks that wrote lines, their new-side lines in hunk order (those past the file's end
    left out) and where each is today (`to_now[line]`; 0: gone): read once by `_blame` and `attribute`.
    (Lists, one numpy slice per hunk: most changes write a few lines, and a numpy call costs as much as dozens.)
    `identity`: `to_now` maps every line to itself (the change left the content the index holds): where
    they are today is then the lines themselves, the same list, which `attribute` and `_blame` read a
    hunk's run of lines at a time."""
    writing = [h for h in hunks if h.new_count]
    lines: list[int] = []
    now: list[int] = lines if identity else []
    for start, end in _runs(writing, len(to_now)):
        lines += range(start, end)
        if not identity:
            now += to_now[start:end].tolist()
    return writing, lines, now


def _runs(writing: list[Hunk], size: int) -> list[tuple[int, int]]:
    """The new-side lines of each writing hunk that a map of `size` entries holds, as (first, past last)."""
    return [(h.new_start, max(min(h.new_start + h.new_count, size), h.new_start)) for h in writing]


def _within(h: Hunk, size: int) -> int:
    """How many of a hunk's new-side lines a file of `size` lines holds."""
    return max(min(h.new_start + h.new_count, size + 1) - h.new_start, 0)


def attribute(hunks: list[Hunk], to_now: np.ndarray, symbols: FileSymbols, done: Written | None = None
              ) -> Counter[int]:
    """Symbols (indices) whose lines today hold a change's changed lines, with how many, in the order
    the hunks first reach each (`carry` keeps the last of two symbols of one name: overloads); `to_now`
    maps the change's new-side line numbers to today's (0: the line is gone); `done`: `written` of them."""
    size = len(to_now) - 1
    writing, lines, now = done or written(hunks, to_now)
    reached: list[tuple[float, int, int]] = []  # (where in the hunks' lines, symbol, lines)
    if writing:
        # (a line gone today has none: owner[0] is -1; mapped, not a comprehension: half the time over
        # a commit adding every file; the identity's lines are runs: a slice of the owners each)
        identity = now is lines
        runs = _runs(writing, len(to_now)) if identity else []
        owners = list(chain.from_iterable(symbols.owner[start:end] for start, end in runs)) if identity else \
            list(map(symbols.owner.__getitem__, now))
        # (a hunk of only blank lines touches what holds them; blank lines among others touch nothing)
        blank = {n for h in writing if len(h.blank) < h.new_count for n in h.blank}
        if blank and not _unblanked(owners, runs, blank):
            owners = [-1 if n in blank else o for n, o in zip(lines, owners, strict=True)]
        counts = Counter(owners)  # (in the order met; -1: no symbol, the only value below 0)
        counts.pop(-1, None)
        if len(writing) == len(hunks):  # (no deletion to place among them)
            return counts
        first: dict[int, int] = {}  # symbol -> where in the hunks' lines it is first met
        for at, o in enumerate(owners):
            if o >= 0:
                first.setdefault(o, at)
        reached = [(at, o, counts[o]) for o, at in first.items()]
    offset = 0  # the lines of the writing hunks before this one
    for h in hunks:
        if h.new_count:
            offset += _within(h, size)
            continue
        # a deletion between new lines new_start and new_start + 1: the symbol holding both sides
        sides = [int(to_now[n]) for n in (h.new_start, h.new_start + 1) if 1 <= n <= size and to_now[n] > 0]
        if sides:
            o = symbols.common(symbols.owner[sides[0]], symbols.owner[sides[-1]])
            if o >= 0:
                reached.append((offset - 0.5, o, 1))
    touched: Counter[int] = Counter()
    for _, o, n in sorted(reached):
        touched[o] += n
    return touched


def _unblanked(owners: list[int], runs: list[tuple[int, int]], blank: set[int]) -> bool:
    """Set the owner of each blank line to -1 in place, where the lines are `runs` in ascending order
    (the identity's: a line's place in `owners` follows from its run); False, untouched, otherwise."""
    if not runs or any(runs[k][1] > runs[k + 1][0] for k in range(len(runs) - 1)):
        return False
    starts = [start for start, _ in runs]
    offsets = list(accumulate((end - start for start, end in runs), initial=0))
    for n in blank:
        k = bisect_right(starts, n) - 1
        if k >= 0 and n < runs[k][1]:
            owners[offsets[k] + n - starts[k]] = -1
    return True


def step(hunks: list[Hunk], new_len: int) -> np.ndarray | None:
    """The line map of one change, old line -> new line (0: deleted), indexed from 1; None when its
    hunks do not fit a file of `new_len` lines (then the chain stops here)."""
    old_len = new_len - sum(h.new_count for h in hunks) + sum(h.old_count for h in hunks)
    if old_len < 0:
        return None
    # (built as runs of old lines, each mapped to `slope * old + value`: a few array operations per
    # change, not several per hunk)
    lengths, slopes, values = [1], [0], [0]  # (line 0: no line)
    next_old, delta = 1, 0
    for h in sorted(hunks, key=_OLD_START):
        first_changed = h.old_start if h.old_count else h.old_start + 1
        if first_changed < next_old or first_changed > old_len + 1:
            return None
        lengths.append(first_changed - next_old)  # unchanged lines: shifted
        slopes.append(1)
        values.append(delta)
        if h.old_count:  # the k-th rewritten line goes to the k-th new one, those past the last to the last
            rewritten = min(h.old_count, h.new_count)
            # (a hunk past the file's end, the last one: its lines that fit are mapped)
            end = min(h.old_start + h.old_count, old_len + 1)
            fit = min(h.old_start + rewritten, end) - h.old_start
            if fit < rewritten and rewritten > 1:
                return None
            lengths += (fit, end - h.old_start - fit)
            slopes += (1, 0)
            values += (h.new_start - h.old_start, h.new_start + h.new_count - 1 if h.new_count else 0)
        next_old = h.old_start + h.old_count if h.old_count else h.old_start + 1
        delta = (h.new_start + h.new_count if h.new_count else h.new_start + 1) - next_old
    lengths.append(max(old_len + 1 - next_old, 0))
    slopes.append(1)
    values.append(delta)
    runs = np.repeat(np.asarray((slopes, values), dtype=np.int64), lengths, axis=1)
    out = runs[0]
    out *= np.arange(old_len + 1, dtype=np.int64)
    out += runs[1]
    for h in hunks:  # a line moved within the file goes where it went, not where its hunk stood
        if h.moved:
            pairs = np.asarray(h.moved, dtype=np.int64).reshape(-1, 2)
            inside = (pairs[:, 1] >= 1) & (pairs[:, 1] <= old_len)
            out[pairs[inside, 1]] = pairs[inside, 0]
    if old_len and out.max() > new_len:
        return None
    return out


UNCOMMITTED = -1  # in a blame: the line was written by the working tree's uncommitted edits


def carry(symbols: FileSymbols, blob: str, changes_into: ChangesInto,
          first: tuple[str, str, list[Hunk]] | None = None) -> tuple[dict[int, Touched], list[int]]:
    """Every change the blob chain reaches from the indexed content (`blob`, at symbols.path), mapped
    onto today's symbols; and the blame of today's lines (the change that last wrote each: the first
    the walk back meets; 0 where the history does not say). `first`: start instead at (path, blob,
    hunks of the uncommitted edits) — the commit the working tree's edits are based on."""
    identity = np.arange(symbols.lines + 1, dtype=np.int64)
    blame = [0] * (symbols.lines + 1)
    start = (symbols.path, blob, identity, 0)
    if first is not None:
        moved = step(first[2], symbols.lines)
        if moved is not None:
            _blame(blame, first[2], identity, UNCOMMITTED)
            start = (first[0], first[1], moved, 1)
    queue = deque([start])
    seen = {start[:2]}
    found: dict[int, Touched] = {}
    while queue:
        path, node_blob, to_now, depth = queue.popleft()
        # (the changes of one old blob into this one are one diff, apart from the lines survival found kept
        # or moved in each commit: a merge's and its branch's commit's, a third of flask's; their lines and
        # the symbols holding them are found once)
        same: dict[tuple[str, str], tuple[Written, Counter[int]]] = {}
        for change in changes_into(path, node_blob):
            if change.id in found or change.hunks is None:
                continue
            before = (change.old_path or change.path, change.old_blob)
            if (known := same.get(before)) is None:
                done = written(change.hunks, to_now, to_now is identity)
                known = same[before] = (done, attribute(change.hunks, to_now, symbols, done))
            done, owners = known
            _blame(blame, change.hunks, to_now, change.id, change.sweep, done)
            how = SPAN if depth == 0 else CARRIED
            if owners or not change.hunks:
                found[change.id] = {symbols.spans[i].fqn: (how, n) for i, n in owners.items()}
            if change.old_blob == NULL_BLOB or before in seen:
                continue
            moved = step(change.hunks, len(to_now) - 1)
            if moved is None:
                continue
            seen.add(before)
            queue.append((*before, to_now[moved], depth + 1))
    blame[0] = 0
    return found, blame


def _blame(blame: list[int], hunks: list[Hunk], to_now: np.ndarray, writer: int, sweep: bool = False,
           done: Written | None = None) -> None:
    """Today's lines a change wrote that no later change wrote again (a line it only reformatted or
    moved is left for the change that wrote it, and so is a line a sweep rewrote: only the lines a
    sweep added where there were none are its own); `done`: `written` of the hunks. (Line 0, where
    gone lines are carried, is written too: `carry` clears it.)"""
    writing, lines, now = done or written(hunks, to_now)
    if sweep and any(h.old_count for h in writing):
        writing, lines, now = written([h for h in writing if not h.old_count], to_now, now is lines)
    if not writing:
        return
    if kept := {n for h in hunks for n in h.kept}:
        now = [line for n, line in zip(lines, now, strict=True) if n not in kept]
    if now is lines:  # (the identity's runs: a run no later change wrote is written at once)
        for start, end in _runs(writing, len(to_now)):
            if any(blame[start:end]):
                blame[start:end] = [was or writer for was in blame[start:end]]
            else:
                blame[start:end] = [writer] * (end - start)
        return
    for line in now:
        if not blame[line]:
            blame[line] = writer


def in_place(hunks: list[Hunk], symbols: FileSymbols) -> Touched:
    """A change whose new side is the content the index holds (the working tree's edits)."""
    identity = np.arange(symbols.lines + 1, dtype=np.int64)
    return {symbols.spans[i].fqn: (SPAN, n) for i, n in attribute(hunks, identity, symbols).items()}


def by_names(hunks: list[Hunk], symbols: FileSymbols) -> Touched:
    """A change the chain did not reach, matched by the names its hunks give."""
    found: Touched = {}
    for h in hunks:
        lines = max(h.new_count, 1)
        names = h.defined or ([h.header] if h.header else [])
        if not names:
            if symbols.module >= 0:
                _add(found, symbols.spans[symbols.module].fqn, FILE, lines)
            continue
        for name in names:
            matches = symbols.by_name(name)
            for i in matches:
                _add(found, symbols.spans[i].fqn, HUNK if len(matches) == 1 else HUNK_AMBIGUOUS, lines)
    return found


def _add(found: Touched, fqn: str, how: str, lines: int) -> None:
    old = found.get(fqn)
    found[fqn] = (how, lines + (old[1] if old else 0))
