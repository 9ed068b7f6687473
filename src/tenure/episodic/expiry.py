"""Expiry: a lesson about code that has since been restructured misleads. An episode leaves retrieval
(and stays in history, with the reason) when every symbol it is retrieved by was, since the episode:
removed or renamed; rewritten past a threshold (the share of its lines today that commits after the
episode last wrote, by the history's blame, which sees through reformats, moves and sweeps; its own
revert excepted: that puts back what was there; and lines that still hold what the episode's commit left
there: a merge or a cherry-pick bringing the same lines is the last writer, not a rewrite; a failed
attempt only once every line is rewritten);
or rewired (its edges differ past a threshold from when the episode was recorded) — or when an
architecture epoch was marked after it."""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass

from tenure.episodic.episodes import neighbours_of
from tenure.episodic.settings import EpisodicSettings
from tenure.history.survival import MIN_MOVED
from tenure.namespace.symbols import fingerprints, neighbours, symbols_in
from tenure.storage import Database

LastWritten = Callable[[str, int, int], list]  # GitHistory.last_written
Unchanged = Callable[[list[tuple[str, str, list[int]]]], list]  # GitHistory.unchanged_since
MIN_EDGES = 4  # fewer edges than this, before and after together, say too little to call a change a rewiring


@dataclass(frozen=True)
class Row:
    """One symbol an episode touched, as retrieval found it."""

    episode: int
    fqn: str
    path: str
    how: str
    lines: int
    snapshot: int | None
    ended_at: str
    commit: str | None  # the episode's commit (its revert's lines do not make it rewritten)


class Expiry:
    """Why (episode, symbol) pairs no longer hold, computed for one query's rows at once."""

    def __init__(self, db: Database, code: Database, rows: list[Row], settings: EpisodicSettings,
                 written: LastWritten, unchanged: Unchanged | None = None) -> None:
        self.settings = settings
        fqns = sorted({r.fqn for r in rows})
        self.present = set(fingerprints(code, fqns))
        spans = symbols_in(code, {r.path for r in rows if r.fqn in self.present})
        self.span = {s.fqn: (path, s.start, s.end) for path, found in spans.items() for s in found}
        self.written = written
        self._lines: dict[str, tuple[list, list[str], dict[str, list[str]]]] = {}
        # (episode, fqn) -> its lines the blame says were written since, that still hold what its commit left:
        # asked of git at once for every row the blame alone would expire
        self.same: dict[tuple[int, str], set[int] | None] = {}
        if unchanged is not None:
            asked = [(r, self._later(r)) for r in rows if r.commit and r.fqn in self.present and r.fqn in self.span
                     and self._counted(r) >= self.settings.expiry_rewritten * len(self._blame(r.fqn)[0])]
            found = unchanged([(r.commit, self.span[r.fqn][0], later) for r, later in asked]) if asked else []
            self.same = {(r.episode, r.fqn): same for (r, _), same in zip(asked, found, strict=True)}
        snapshot_ids = sorted({r.snapshot for r in rows if r.snapshot is not None})
        self.then = {i: neighbours_of(n) for i, n in db.rows(
            f"SELECT id, neighbours FROM symbol_snapshots WHERE id IN {db.each}", (db.many(snapshot_ids),))}
        with_snapshot = sorted({r.fqn for r in rows if r.snapshot is not None and r.fqn in self.present})
        self.now = neighbours(code, with_snapshot) if with_snapshot else {}
        epoch = db.query("SELECT label, at FROM epochs ORDER BY at DESC, id DESC LIMIT 1")
        self.epoch = epoch[0] if epoch else None

    def _blame(self, fqn: str) -> tuple[list, list[str], dict[str, list[str]]]:
        """A symbol's lines today, each with the commit that last wrote it (`LastWritten`); when each was
        (sorted; lines the history does not date left out); and those times by the commit that the writing
        commit reverted."""
        if fqn not in self._lines:
            lines = self.written(*self.span[fqn])
            by_revert: dict[str, list[str]] = {}
            for w in lines:
                if w and w[2]:
                    by_revert.setdefault(w[2], []).append(w[1])
            self._lines[fqn] = (lines, sorted(w[1] for w in lines if w), by_revert)
        return self._lines[fqn]

    def _counted(self, row: Row) -> int:
        """How many of the symbol's lines were last written after the row's episode, its own revert's aside
        (that puts back what was there)."""
        _, times, by_revert = self._blame(row.fqn)
        later = len(times) - bisect.bisect_right(times, row.ended_at)
        return later - sum(1 for at in by_revert.get(row.commit or "", ()) if at > row.ended_at)

    def _later(self, row: Row) -> list[int]:
        """Those lines (`_counted`), by their number in the file."""
        return [n for n, w in enumerate(self._blame(row.fqn)[0], max(self.span[row.fqn][1], 1))
                if w and w[1] > row.ended_at and not (row.commit and w[2] == row.commit)]

    def epoch_reason(self, ended_at: str) -> str | None:
        if self.epoch and ended_at < self.epoch["at"]:
            return f"before the epoch \"{self.epoch['label']}\" ({self.epoch['at'][:10]})"
        return None

    def _rewritten(self, row: Row, failed: bool) -> str | None:
        """Why the symbol counts as rewritten since the row's episode, or None: its lines last written
        after it, less those still holding what its commit left there."""
        size = len(self._blame(row.fqn)[0])
        enough = size if failed else self.settings.expiry_rewritten * size
        later = self._counted(row)
        if not size or later < enough:
            return None
        if (same := self.same.get((row.episode, row.fqn))) is not None:
            later -= len(same)
            if later < enough:
                return None
        # (what `unchanged` compared, exactly: each of those lines long enough to be evidence, whitespace
        # aside, with every line of the whole file as the episode's commit left it)
        return (f"{row.fqn} was rewritten since: {later} of its {size} lines were last written after this"
                + (f", and none of those of {MIN_MOVED} or more characters is, whitespace aside, a line of the file"
                   " as it left it (shorter lines are not compared)" if same is not None else ""))

    def reason(self, row: Row, failed: bool = False) -> str | None:
        """Why the symbol this row touched is not the code it was then, or None. `failed`: the attempt
        failed, and its lesson holds while any line of the symbol it was about is still there."""
        if row.fqn not in self.present:
            return f"{row.fqn} was removed or renamed since"
        if row.fqn in self.span and (reason := self._rewritten(row, failed)):
            return reason
        if row.snapshot is not None and row.snapshot in self.then:
            before, after = self.then[row.snapshot], self.now.get(row.fqn, set())
            union = before | after
            if len(union) >= MIN_EDGES:
                distance = 1 - len(before & after) / len(union)
                if distance >= self.settings.expiry_edges:
                    return (f"{row.fqn} was rewired since: {distance:.0%} of its edges differ from when this was "
                            "recorded")
        return None
