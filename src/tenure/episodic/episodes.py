"""Episodes: one attempt at a change each — a work session, a commit, a pull request — with the
symbols it touched, each recorded with a snapshot of that symbol's code and edges at the time (what
expiry compares against later)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import msgspec

from tenure.history.model import TouchedSymbol
from tenure.namespace.symbols import fingerprints, neighbours
from tenure.storage import Database

SESSION, COMMIT, PR = "session", "commit", "pr"
_PACK = msgspec.msgpack.Encoder()
_UNPACK = msgspec.msgpack.Decoder(list[str])
# A symbol an attempt touched: the history's own record of one (a commit's symbols are taken as they are,
# not copied: a commit of a whole project touches tens of thousands)
Touch = TouchedSymbol


def snapshots(db: Database, code: Database, fqns: Iterable[str]) -> dict[str, int]:
    """fqn -> the snapshot of its code and edges as the index (`code`) holds them now (made once per
    fingerprint); symbols the index does not hold get none."""
    fqns = sorted(set(fqns))
    prints = fingerprints(code, fqns)
    if not prints:
        return {}
    # (none stored yet, a first history's: nothing to look the names up among)
    known = _snapshot_ids(db, prints) if db.rows("SELECT 1 FROM symbol_snapshots LIMIT 1") else {}
    if missing := [f for f in prints if f not in known]:
        edges = neighbours(code, missing)
        last = db.rows("SELECT COALESCE(MAX(id), 0) FROM symbol_snapshots")[0][0]
        # (one statement for all: a commit of a whole project snapshots every symbol; ids still follow `missing`)
        db.executemany("INSERT INTO symbol_snapshots (fqn, fingerprint, neighbours) VALUES (?, ?, ?)"
                       " ON CONFLICT (fqn, fingerprint) DO NOTHING",
                       [(fqn, prints[fqn], _PACK.encode(sorted(edges.get(fqn, ())))) for fqn in missing])
        # (read back, not counted: on a team's PostgreSQL another writer's ids interleave with these)
        made = db.rows("SELECT id, fqn, fingerprint FROM symbol_snapshots WHERE id > ?", (last,))
        known.update((fqn, i) for i, fqn, fingerprint in made if prints.get(fqn) == fingerprint)
        if left := {f: p for f, p in prints.items() if f not in known}:  # (written meanwhile by another writer)
            known.update(_snapshot_ids(db, left))
    return {f: known[f] for f in prints}


def _snapshot_ids(db: Database, prints: dict[str, str]) -> dict[str, int]:
    """fqn -> id of the snapshot stored for each of these names with its fingerprint (fqn -> fingerprint)."""
    return {fqn: i for i, fqn, fingerprint in db.rows(
        f"SELECT id, fqn, fingerprint FROM symbol_snapshots WHERE fqn IN {db.each}", (db.many(sorted(prints)),))
        if prints.get(fqn) == fingerprint}


def neighbours_of(blob: bytes) -> set[str]:
    return set(_UNPACK.decode(blob))


@dataclass
class NewEpisode:
    kind: str
    ref: str
    actor: str
    started_at: str
    ended_at: str
    touched: list[Touch]
    task: str | None = None
    declared: str | None = None
    commit_sha: str | None = None
    base_sha: str | None = None
    pr: int | None = None
    thin: bool = False
    files: Iterable[str] = field(default_factory=tuple)


def record(db: Database, kind: str, ref: str, actor: str, started_at: str, ended_at: str, touched: list[Touch],
           snapshot: dict[str, int], *, task: str | None = None, declared: str | None = None,
           commit_sha: str | None = None, base_sha: str | None = None, pr: int | None = None,
           thin: bool = False, files: Iterable[str] = ()) -> int | None:
    """Write an episode and its symbols; None when it exists already (a history read twice)."""
    return record_many(db, [NewEpisode(kind, ref, actor, started_at, ended_at, touched, task, declared, commit_sha,
                                       base_sha, pr, thin, files)], snapshot)[0]


def record_many(db: Database, new: list[NewEpisode], snapshot: dict[str, int]) -> list[int | None]:
    """Write episodes (in one insert: a history's thousands of commits) and their symbols; each one's id,
    None for one that exists already."""
    ids = db.insert_many(
        """INSERT INTO episodes (kind, ref, actor, task, started_at, ended_at, declared, commit_sha, base_sha, pr, thin)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (kind, ref) DO NOTHING RETURNING id""",
        [(e.kind, e.ref, e.actor, e.task, e.started_at, e.ended_at, e.declared, e.commit_sha, e.base_sha, e.pr, e.thin)
         for e in new])
    for episode, e in zip(ids, new, strict=True):
        if episode is not None:
            _add_symbols(db, episode, e.touched, snapshot)  # (none to replace: a new episode)
            set_files(db, episode, e.files)
    return ids


def set_files(db: Database, episode: int, files: Iterable[str]) -> None:
    db.executemany("INSERT INTO episode_files (episode_id, path) VALUES (?, ?) ON CONFLICT DO NOTHING",
                   [(episode, p) for p in sorted(set(files))])


def set_symbols(db: Database, episode: int, touched: list[Touch], snapshot: dict[str, int]) -> None:
    db.execute("DELETE FROM episode_symbols WHERE episode_id = ?", (episode,))
    _add_symbols(db, episode, touched, snapshot)


def _add_symbols(db: Database, episode: int, touched: list[Touch], snapshot: dict[str, int]) -> None:
    merged = {t.fqn: t for t in touched}
    if len(merged) < len(touched):  # (a name touched twice: its lines added up)
        merged = {}
        for t in touched:
            old = merged.get(t.fqn)
            merged[t.fqn] = t if old is None else Touch(t.fqn, old.path, old.how, old.lines + t.lines)
    db.executemany("INSERT INTO episode_symbols (episode_id, fqn, path, how, lines, snapshot_id)"
                   " VALUES (?, ?, ?, ?, ?, ?)",
                   [(episode, t.fqn, t.path, t.how, t.lines, snapshot.get(t.fqn)) for t in merged.values()])


def attach_commits(db: Database, whole: int, shas: list[str], pr: int | None = None) -> None:
    """The commit episodes made in a pull request or work session are part of it (one story)."""
    for i in range(0, len(shas), 500):
        part = shas[i:i + 500]
        db.execute(f"UPDATE episodes SET part_of = ?, pr = COALESCE(?, pr) WHERE kind = 'commit' AND ref IN"
                   f" ({', '.join('?' * len(part))}) AND part_of IS NULL", [whole, pr, *part])
