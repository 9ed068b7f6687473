"""Expiry: a lesson about code that has since been restructured misleads. An episode leaves retrieval
(and stays in history, with the reason) when every symbol it is retrieved by was, since the episode:
removed or renamed; rewritten past a threshold (later changed lines against its lines now); or
rewired (its edges differ past a threshold from when the episode was recorded) — or when an
architecture epoch was marked after it."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from tenure.episodic.episodes import neighbours_of
from tenure.episodic.settings import EpisodicSettings
from tenure.namespace.code import fingerprints, neighbours, spans_of
from tenure.storage import Database, query_in

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
    commit: bool  # a commit's change: what churn counts (a pull request or session repeats its commits' changes)


class Expiry:
    """Why (episode, symbol) pairs no longer hold, computed for one query's rows at once."""

    def __init__(self, db: Database, rows: list[Row], settings: EpisodicSettings) -> None:
        self.settings = settings
        fqns = sorted({r.fqn for r in rows})
        self.present = set(fingerprints(db, fqns))
        spans = spans_of(db, sorted({r.path for r in rows if r.fqn in self.present}))
        self.size = {s.fqn: s.end - s.start + 1 for path in spans.values() for s in path}
        self.later: dict[str, list[tuple[str, int, int]]] = defaultdict(list)  # fqn -> (ended_at, lines, episode)
        for r in rows:
            if r.commit:
                self.later[r.fqn].append((r.ended_at, r.lines, r.episode))
        snapshot_ids = sorted({r.snapshot for r in rows if r.snapshot is not None})
        self.then = {s["id"]: neighbours_of(s["neighbours"]) for s in query_in(
            db, "SELECT id, neighbours FROM symbol_snapshots WHERE id IN ({placeholders})", snapshot_ids)}
        with_snapshot = sorted({r.fqn for r in rows if r.snapshot is not None and r.fqn in self.present})
        self.now = neighbours(db, with_snapshot) if with_snapshot else {}
        epoch = db.query("SELECT label, at FROM epochs ORDER BY at DESC, id DESC LIMIT 1")
        self.epoch = epoch[0] if epoch else None

    def epoch_reason(self, ended_at: str) -> str | None:
        if self.epoch and ended_at < self.epoch["at"]:
            return f"before the epoch \"{self.epoch['label']}\" ({self.epoch['at'][:10]})"
        return None

    def reason(self, row: Row) -> str | None:
        """Why the symbol this row touched is not the code it was then, or None."""
        if row.fqn not in self.present:
            return f"{row.fqn} was removed or renamed since"
        later = [(lines, e) for at, lines, e in self.later[row.fqn] if at > row.ended_at and e != row.episode]
        changed, size = sum(n for n, _ in later), self.size.get(row.fqn)
        if size and changed >= self.settings.expiry_churn * size:
            return (f"{row.fqn} was rewritten since: {changed} changed lines in {len({e for _, e in later})} later "
                    f"attempts against its {size} lines now")
        if row.snapshot is not None and row.snapshot in self.then:
            before, after = self.then[row.snapshot], self.now.get(row.fqn, set())
            union = before | after
            if len(union) >= MIN_EDGES:
                distance = 1 - len(before & after) / len(union)
                if distance >= self.settings.expiry_edges:
                    return (f"{row.fqn} was rewired since: {distance:.0%} of its edges differ from when this was "
                            "recorded")
        return None
