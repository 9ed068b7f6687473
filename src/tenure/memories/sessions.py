"""Work sessions: an agent's unit of work, with leases on the elements it works on.

Leases are advisory: a second session may lease an element another open session holds, and both
are told about the other. A session that never ends stops counting as a holder after LEASE_HOURS.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import NamedTuple

from tenure.memories.errors import MemoriesError
from tenure.memories.store import parse_stamp, stamp
from tenure.storage import Database

LEASE_HOURS = 8
OUTCOMES = ("success", "failure", "partial", "abandoned")


class Session(NamedTuple):
    """A work session as stored (a named tuple: see `tenure.episodic.testruns.Runner`)."""

    id: str
    agent: str
    task: bytes  # encrypted
    started_at: datetime
    ended_at: datetime | None
    outcome: str | None
    outcome_memory_id: int | None


def create(db: Database, agent: str, task_blob: bytes, now: datetime) -> str:
    import uuid  # (its platform module is a tenth of the start of a hook, which only reads sessions)

    session_id = "s-" + uuid.uuid4().hex[:12]
    db.execute("INSERT INTO memory_sessions (id, agent, task, started_at) VALUES (?, ?, ?, ?)",
               (session_id, agent, task_blob, stamp(now)))
    return session_id


def get(db: Database, session_id: str) -> Session:
    rows = db.query("SELECT * FROM memory_sessions WHERE id = ?", (session_id,))
    if not rows:
        raise MemoriesError(f"no work session {session_id!r}: start one with `tenure session start --agent NAME "
                            "--task TEXT` and pass the id it prints")
    r = rows[0]
    return Session(r["id"], r["agent"], r["task"], parse_stamp(r["started_at"]), parse_stamp(r["ended_at"]),
                   r["outcome"], r["outcome_memory_id"])


def open_session(db: Database, session_id: str) -> Session:
    session = get(db, session_id)
    if session.ended_at is not None:
        raise MemoriesError(f"session {session_id} already ended at {session.ended_at.isoformat()} "
                            f"(outcome memory #{session.outcome_memory_id}); start a new one")
    return session


def lease(db: Database, session_id: str, elements: list[str], now: datetime) -> list[dict]:
    """Take leases; returns the other open sessions that hold any of the same elements."""
    db.executemany("INSERT INTO memory_leases (session_id, element, acquired_at) VALUES (?, ?, ?)"
                   " ON CONFLICT DO NOTHING", [(session_id, e, stamp(now)) for e in elements])
    conflicts = []
    for element in elements:
        for r in db.query(
            """SELECT s.id, s.agent FROM memory_leases l JOIN memory_sessions s ON s.id = l.session_id
               WHERE l.element = ? AND s.id != ? AND s.ended_at IS NULL AND s.started_at > ? ORDER BY s.id""",
            (element, session_id, stamp(now - timedelta(hours=LEASE_HOURS))),
        ):
            conflicts.append({"element": element, "session": r["id"], "agent": r["agent"]})
    return conflicts


def leased(db: Database, session_id: str) -> list[str]:
    return [r["element"] for r in db.query(
        "SELECT element FROM memory_leases WHERE session_id = ? ORDER BY acquired_at, element", (session_id,))]


def finish(db: Database, session_id: str, outcome: str, memory_id: int | None, now: datetime) -> None:
    db.execute("UPDATE memory_sessions SET ended_at = ?, outcome = ?, outcome_memory_id = ? WHERE id = ?",
               (stamp(now), outcome, memory_id, session_id))


def check_outcome(outcome: str) -> str:
    if outcome not in OUTCOMES:
        raise MemoriesError(f"outcome {outcome!r} is not one of {', '.join(OUTCOMES)}")
    return outcome
