"""The repository's own history as episodes, without any agent: each commit an attempt on the symbols
it touched, each merged pull request one too; a reverted commit failed (the revert's message is its
lesson), a fix-up within days on the same symbols marks it fixed up."""

from __future__ import annotations

import re

from tenure.episodic import episodes, outcomes
from tenure.episodic.episodes import COMMIT, PR
from tenure.episodic.settings import EpisodicSettings
from tenure.history import Commit, GitHistory
from tenure.history.gitlog import days_before
from tenure.storage import Database

MERGED_PR = re.compile(r"^Merge pull request #(?P<number>\d+) from ")
SQUASHED_PR = re.compile(r"\s*\(#(?P<number>\d+)\)$")
FIXUP = re.compile(r"^(?:fixup|squash|amend)! (?P<subject>.+)$")
FIX = re.compile(r"^(?:fix(?:es|ed|ing)?|hotfix|repair|correct(?:s|ed)?)\b", re.IGNORECASE)
# this checkout's history read so far, and the history's mapping the episodes' symbols follow (bookmarks
# kept with the history: see GitHistory.bookmark)
CURSOR, MAPPING = "episodic", "episodic:mapping"


def sync(db: Database, code: Database, history: GitHistory, settings: EpisodicSettings) -> dict:
    """Episodes for the commits the history read since the last sync; returns what was added. A
    batch read again (the bookmark is written after the episodes' commit) records nothing twice."""
    cursor = int(history.bookmark(CURSOR) or 0)
    added = {"commits": 0, "pullRequests": 0, "reverted": 0, "fixedUp": 0}
    parents: dict[str, tuple[str, ...]] = {}
    merges: list[tuple[int, Commit]] = []
    while True:
        batch, cursor = history.read_after(cursor)
        if not batch:
            break
        with db.bulk():
            snapshot = episodes.snapshots(db, code, {s.fqn for c in batch for s in c.symbols})
            for commit in batch:
                parents[commit.sha] = commit.parents
            planned = [(commit, new) for commit in batch if (new := _episode(commit)) is not None]
            written = episodes.record_many(db, [new for _, new in planned], snapshot)
            for (commit, new), episode in zip(planned, written, strict=True):
                if episode is not None and (number := _outcomes(db, commit, new, episode, settings, added)) and \
                        commit.is_merge:
                    merges.append((number, commit))
        history.set_bookmark(CURSOR, str(cursor))
    if merges:
        with db.bulk():
            _members(db, merges, parents)
    with db.transaction():
        _refresh_unmapped(db, code, history)
        outcomes.link_pending(db)
    return added


def _episode(c: Commit) -> episodes.NewEpisode | None:
    """A commit's episode (None: a branch merged forward, whose commits are the attempts)."""
    squashed = SQUASHED_PR.search(c.subject)  # GitHub's squash (or titled merge): "Title (#123)"
    merged = MERGED_PR.match(c.subject) or (squashed if c.is_merge else None)
    if c.is_merge and not merged:
        return None
    number = int(merged.group("number")) if merged else int(squashed.group("number")) if squashed else None
    return episodes.NewEpisode(
        PR if merged else COMMIT, str(number) if merged else c.sha, c.author_name, c.authored_at, c.committed_at,
        list(c.symbols),
        task=(c.body.partition("\n")[0] or c.subject) if MERGED_PR.match(c.subject) else c.subject,
        commit_sha=c.sha, pr=number, thin=c.thin, files=[f.path for f in c.files])


def _outcomes(db: Database, c: Commit, new: episodes.NewEpisode, episode: int, settings: EpisodicSettings,
              added: dict) -> int:
    """What git says of a commit's episode just written (merged, reverted, fixed up); returns the pull
    request it merged, if any (0: none)."""
    merged, number, touched = new.kind == PR, new.pr, new.touched
    added["pullRequests" if merged else "commits"] += 1
    if number is not None:  # merged into the mainline: git's record of the pull request's outcome
        outcomes.add(db, "git-merge", "merged", c.committed_at, {"commit": c.sha, "pr": number}, episode=episode,
                     commit=c.sha, pr=number)
    if c.reverts:
        how = c.reverts_how or "message"
        outcomes.add(db, f"revert/{how}", "partly-reverted" if how == "content-partial" else "reverted",
                     c.committed_at, {"revert": c.sha, "subject": c.subject, "body": c.body[:2000], "how": how},
                     episode=_episode_of(db, c.reverts), commit=c.reverts)
        added["reverted"] += 1
    elif touched and (target := _fixed_up(db, c, episode, settings)) is not None:
        outcomes.add(db, "fixup", "fixed-up", c.committed_at, {"fix": c.sha, "subject": c.subject}, episode=target)
        added["fixedUp"] += 1
    return number if merged else 0


def _episode_of(db: Database, sha: str) -> int | None:
    rows = [r[0] for r in db.rows("SELECT id, kind FROM episodes WHERE commit_sha = ?", (sha,))
            if r[1] in (COMMIT, PR)]
    return min(rows, default=None)


def _fixed_up(db: Database, c: Commit, episode: int, settings: EpisodicSettings) -> int | None:
    """The attempt a fix lands on: `fixup! <subject>`, or a commit saying it fixes, within fixup_days
    after an attempt that touched every symbol it touches; one written before it (a batch's episodes are
    written at once: a later commit's is there already)."""
    since = days_before(c.committed_at, settings.fixup_days)
    if m := FIXUP.match(c.subject):
        rows = db.rows("SELECT id FROM episodes WHERE kind = 'commit' AND task = ? AND id < ? AND ended_at >= ?"
                       " ORDER BY ended_at DESC LIMIT 1", (m.group("subject"), episode, since))
        return rows[0][0] if rows else None
    if not FIX.match(c.subject):
        return None
    mine = {s.fqn for s in c.symbols}
    same = _said(SQUASHED_PR.sub("", c.subject))  # a pull request's squash repeats its commit: no fix of it
    candidates: dict[int, set[str]] = {}
    # (the window's episodes first, by their time: SQLite would rather read every commit's episode by kind)
    for r in db.query(f"""WITH w AS MATERIALIZED (SELECT id, kind, task FROM episodes WHERE ended_at >= ?
                          AND ended_at <= ?) SELECT s.episode_id, s.fqn, w.task FROM w JOIN episode_symbols s
                          ON s.episode_id = w.id WHERE w.kind = 'commit' AND w.id < ? AND s.fqn IN {db.each}""",
                      (since, c.committed_at, episode, db.many(sorted(mine)))):
        if _said(r["task"] or "") != same:
            candidates.setdefault(r["episode_id"], set()).add(r["fqn"])
    return max((e for e, fqns in candidates.items() if fqns == mine), default=None)


def _said(subject: str) -> str:
    """A subject as words: "fix use of `find_spec`" and "fix use of find_spec" say the same."""
    return " ".join(re.findall(r"\w+", subject.lower()))


def _members(db: Database, merges: list[tuple[int, Commit]], parents: dict[str, tuple[str, ...]]) -> None:
    """The commits each merged pull request brought in: reachable from its second parent, not from the
    mainline (the first-parent chain of the newest commit read)."""
    newest = next(reversed(parents))
    mainline: set[str] = set()
    sha: str | None = newest
    while sha in parents and sha not in mainline:
        mainline.add(sha)
        sha = parents[sha][0] if parents[sha] else None
    assigned: set[str] = set()
    for number, merge in merges:
        episode = db.rows("SELECT id FROM episodes WHERE kind = 'pr' AND ref = ?", (str(number),))[0][0]
        todo, brought = [merge.parents[1]], []
        while todo:
            sha = todo.pop()
            if sha in assigned or sha in mainline or sha not in parents:
                continue
            assigned.add(sha)
            brought.append(sha)
            todo.extend(parents[sha])
        episodes.attach_commits(db, episode, brought, number)


def _refresh_unmapped(db: Database, code: Database, history: GitHistory) -> None:
    """Commit episodes copied before the history could map them (read before the index existed)."""
    version = history.mapping_version()
    if str(version) == history.bookmark(MAPPING):
        return
    rows = db.query("""SELECT id, commit_sha FROM episodes e WHERE kind IN ('commit', 'pr') AND NOT EXISTS
                       (SELECT 1 FROM episode_symbols s WHERE s.episode_id = e.id)""")
    found = history.lookup([r["commit_sha"] for r in rows]) if rows else {}
    snapshot = episodes.snapshots(db, code, {s.fqn for c in found.values() for s in c.symbols})
    for r in rows:
        commit = found.get(r["commit_sha"])
        if commit is not None and commit.symbols:
            episodes.set_symbols(db, r["id"], list(commit.symbols),
                                 snapshot)
    history.set_bookmark(MAPPING, str(version))
