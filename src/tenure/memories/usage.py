"""Learning from use: impressions (served to a session) and citations (relied on by it).

Only citations raise rank. Citations are declared by the session at its end (`used`) or inferred
when the session edited an element a memory it was served is attached to.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from tenure.memories.store import add_event, stamp
from tenure.storage import Database

DECLARED = "declared"
INFERRED = "inferred"


@dataclass(frozen=True)
class Usage:
    impressions: int = 0
    sessions_served: int = 0
    declared: int = 0
    inferred: int = 0

    @property
    def citations(self) -> int:
        return self.declared + self.inferred


def log_impressions(db: Database, session: str, memory_ids: Iterable[int], now: datetime) -> None:
    at = stamp(now)
    db.executemany(
        """INSERT INTO memory_impressions (session_id, memory_id, first_at, last_at, count) VALUES (?, ?, ?, ?, 1)
           ON CONFLICT (session_id, memory_id)
           DO UPDATE SET count = memory_impressions.count + 1, last_at = excluded.last_at""",
        [(session, m, at, at) for m in dict.fromkeys(memory_ids)],
    )


def served(db: Database, session: str) -> list[int]:
    return [r["memory_id"] for r in db.query(
        "SELECT memory_id FROM memory_impressions WHERE session_id = ? ORDER BY memory_id", (session,))]


def cite(db: Database, session: str, memory_ids: Iterable[int], how: str, now: datetime) -> list[int]:
    """Record citations; a memory already cited by this session keeps its first (declared wins
    because it is recorded first). Returns the ids newly cited."""
    new = []
    for memory_id in dict.fromkeys(memory_ids):
        exists = db.query("SELECT 1 FROM memory_citations WHERE session_id = ? AND memory_id = ?",
                          (session, memory_id))
        if exists:
            continue
        db.execute("INSERT INTO memory_citations (session_id, memory_id, how, at) VALUES (?, ?, ?, ?)",
                   (session, memory_id, how, stamp(now)))
        add_event(db, memory_id, now, "cited", f"{how} by session {session}")
        new.append(memory_id)
    return new


def usage_of(db: Database, memory_ids: list[int]) -> dict[int, Usage]:
    found = dict.fromkeys(memory_ids, Usage())
    found.update({row["id"]: usage for row, usage in with_usage(db, memory_ids)})
    return found


def with_usage(db: Database, memory_ids: list[int], columns: str = "") -> list[tuple[dict, Usage]]:
    """Each memory's row (its id and `columns` of `memories m`) with its usage: one statement (a round
    trip costs on a team's server)."""
    ids = db.many(memory_ids)
    rows = db.query(
        f"""SELECT m.id{columns}, COALESCE(i.impressions, 0) AS impressions, COALESCE(i.sessions, 0) AS sessions,
                  COALESCE(c.declared, 0) AS declared, COALESCE(c.inferred, 0) AS inferred
           FROM memories m
           LEFT JOIN (SELECT memory_id, SUM(count) AS impressions, COUNT(*) AS sessions FROM memory_impressions
                      WHERE memory_id IN {db.each} GROUP BY memory_id) AS i ON i.memory_id = m.id
           LEFT JOIN (SELECT memory_id, COUNT(*) FILTER (WHERE how = 'declared') AS declared,
                             COUNT(*) FILTER (WHERE how = 'inferred') AS inferred
                      FROM memory_citations WHERE memory_id IN {db.each} GROUP BY memory_id) AS c ON c.memory_id = m.id
           WHERE m.id IN {db.each}""", (ids, ids, ids))
    return [(r, Usage(r["impressions"], r["sessions"], r["declared"], r["inferred"])) for r in rows]
