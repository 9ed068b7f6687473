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
    found = {m: Usage() for m in memory_ids}
    ids = (db.many(memory_ids),)
    for r in db.query(f"""SELECT memory_id, SUM(count) AS n, COUNT(*) AS s FROM memory_impressions
                          WHERE memory_id IN {db.each} GROUP BY memory_id""", ids):
        found[r["memory_id"]] = Usage(impressions=r["n"], sessions_served=r["s"])
    for r in db.query(f"""SELECT memory_id, COUNT(*) FILTER (WHERE how = 'declared') AS d,
                                 COUNT(*) FILTER (WHERE how = 'inferred') AS i
                          FROM memory_citations WHERE memory_id IN {db.each} GROUP BY memory_id""", ids):
        u = found[r["memory_id"]]
        found[r["memory_id"]] = Usage(u.impressions, u.sessions_served, r["d"], r["i"])
    return found
