"""`what_happened_before(symbol)`: past attempts on a symbol and on its close dependants, a timeline
with outcomes (no GraphRAG here). Similar attempts are grouped (the same pull request or session; a
commit with its revert; the same symbols and a similar message), groups ranked by recency, frequency
and outcome, failures first: what someone planning a change must see. Every attempt carries its
evidence (commit, revert, test ids, pull request, reviewers' words) and how far each can be trusted."""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from collections.abc import Callable
from datetime import datetime, timedelta

from tenure.episodic.episodes import COMMIT, PR
from tenure.episodic.expiry import Expiry, LastWritten, Row, Unchanged
from tenure.episodic.outcomes import verdict_class
from tenure.episodic.settings import EpisodicSettings
from tenure.history.model import CLOCK_SKEW_DAYS, UNKNOWN_DATE, is_sweep
from tenure.storage import Database
from tenure.structural.naming import is_ancestor, member_ranges
from tenure.words import counted

Decrypt = Callable[[bytes], str]
Impossible = Callable[[list[str], datetime], dict[str, tuple[str, str]]]  # GitHistory.impossible_dates
DEPENDANT_WEIGHT = 0.5  # an attempt on a caller says less about the symbol than one on the symbol itself
DECLARED_CONFIDENCE = 0.4  # a session's own word on how it went: a claim, decaying like a conclusion
SIMILAR_MESSAGES = 0.5  # word overlap (Jaccard) at which two attempts on the same symbols are one kind of attempt
_SEVERITY = {"failure": 0, "mixed": 1, "success": 2, "unknown": 3}
_ORDER = {"failure": 0, "mixed": 1, "success": 2, "unknown": 2}  # groups: failures, then mixed, then the rest
_DECLARED = {"success": "success", "failure": "failure", "partial": "mixed", "abandoned": "unknown"}
_WORD = re.compile(r"[a-z][a-z0-9_]+")
_NOISE = {"revert", "reverts", "this", "commit", "the", "and", "for", "with", "from", "into", "merge", "pull",
          "request", "branch", "fix", "fixes", "add", "adds", "use", "when", "not"}


_TOUCH = "episode_id, fqn, path, how, lines, snapshot_id"  # (the columns read: a wide query is hundreds of rows)
_EPISODE = "id, kind, ref, actor, task, ended_at, declared, commit_sha, pr, part_of, thin"


def members(db: Database, fqn: str) -> list[dict]:
    """Rows of episode_symbols for a symbol and every symbol inside it."""
    rows = db.query(f"SELECT {_TOUCH} FROM episode_symbols WHERE fqn = ?", (fqn,))
    for low, high in member_ranges(fqn):
        rows += db.query(f"SELECT {_TOUCH} FROM episode_symbols WHERE fqn > ? AND fqn < ?", (low, high))
    return rows


def what_happened_before(db: Database, code: Database, fqn: str, dependants: list[str], settings: EpisodicSettings,
                         now: datetime, decrypt: Decrypt, written: LastWritten, include_expired: bool = False,
                         limit: int = 10, unchanged: Unchanged | None = None, impossible: Impossible | None = None
                         ) -> dict:
    own = members(db, fqn)
    mine = {o["episode_id"] for o in own}
    near = [r for r in db.query(f"SELECT {_TOUCH} FROM episode_symbols WHERE fqn IN {db.each}",
                                (db.many(sorted(set(dependants) - {fqn})),)) if r["episode_id"] not in mine]
    relation = {r["episode_id"]: "touched" for r in own}
    for r in near:
        relation.setdefault(r["episode_id"], "dependant")
    episodes = {e["id"]: e for e in db.query(f"SELECT {_EPISODE} FROM episodes WHERE id IN {db.each}",
                                             (db.many(sorted(relation)),))}
    rows = [Row(r["episode_id"], r["fqn"], r["path"], r["how"], r["lines"], r["snapshot_id"],
                episodes[r["episode_id"]]["ended_at"], episodes[r["episode_id"]]["commit_sha"])
            for r in own + near]
    expiry = Expiry(db, code, rows, settings, written, unchanged)
    by_episode: dict[int, list[Row]] = defaultdict(list)
    for r in rows:
        by_episode[r.episode].append(r)
    breadth = _breadth(db, sorted(episodes))
    evidence = _put_back_here(db, _evidence(db, sorted(episodes)), by_episode)
    conclusions = _conclusions(db, sorted(episodes), decrypt, now, settings)
    bounds = impossible(sorted({e["commit_sha"] for e in episodes.values() if e["kind"] in (COMMIT, PR)
                                and e["commit_sha"]}), now) if impossible else {}
    live, expired = [], []
    for eid, e in episodes.items():
        item = _attempt(e, by_episode[eid], relation[eid], evidence.get(eid, []), conclusions.get(eid, []), now,
                        settings, breadth.get(eid, (0, 0)), _ranked_at(e, bounds, now))
        reasons = _expired(expiry, e, by_episode[eid], item["verdict"]["class"] == "failure")
        if reasons:
            item["expired"] = reasons
            expired.append(item)
        else:
            live.append(item)
    groups = _groups(live, settings)
    shown = groups[:limit]
    failures = sum(1 for a in live if a["verdict"]["class"] == "failure")
    failed_expired = sum(1 for a in expired if a["verdict"]["class"] == "failure")
    result = {
        "symbol": fqn, "attempts": len(live), "failures": failures, "groups": shown, "groupsTotal": len(groups),
        "expired": len(expired), "expiredFailures": failed_expired, "dependantsSearched": len(set(dependants) - {fqn}),
        "text": _text(fqn, live, failures, len(groups), len(shown), len(expired), failed_expired, include_expired),
    }
    if include_expired:
        result["expiredAttempts"] = [_public(a) for a in sorted(expired, key=_at, reverse=True)]
    return result


def qualifiers(attempt: dict) -> str:
    """What an attempt's line says beside its verdict, in every place that lists it (`tenure history`,
    `ask`): that it touched a close dependant, not the symbol, and that it is a sweep."""
    near = "" if attempt["relation"] == "touched" else " (a close dependant)"
    if attempt.get("sweep"):
        near += f" (a sweep: {counted(attempt['files'], 'file')}, {counted(attempt['symbolsChanged'], 'symbol')})"
    return near


def _ranked_at(e: dict, bounds: dict[str, tuple[str, str]], now: datetime) -> tuple[str, str | None]:
    """The date an attempt ranks by, and why it is not its own (None: it is). A date after now, or more
    than a day after a commit built on it, is not when the commit was made: it ranks as of the latest date
    it can have been made at (`GitHistory.impossible_dates`), never ahead of what was built on it."""
    at = e["ended_at"]
    if at == UNKNOWN_DATE:
        return at, "its date could not be read: ranked as the oldest"
    bound = bounds.get(e["commit_sha"]) if e["kind"] in (COMMIT, PR) else None
    if bound is not None and bound[1]:
        return bound[0], (f"dated {at[:10]}, after {bound[1][:10]}, a commit built on it, dated {bound[0][:10]}: "
                          "ranked as of that date")
    if bound is not None or datetime.fromisoformat(at) - now > timedelta(days=CLOCK_SKEW_DAYS):
        return now.isoformat(), f"dated {at[:10]}, after now: ranked as of now"
    return at, None


def _at(attempt: dict) -> str:
    """The date an attempt ranks by (`_ranked_at`)."""
    return attempt.get("rankedAt", attempt["when"])


def _public(attempt: dict) -> dict:
    """An attempt without the keys only ranking reads."""
    attempt.pop("_part_of", None)
    attempt.pop("_age_days", None)
    return attempt


def _expired(expiry: Expiry, episode: dict, rows: list[Row], failed: bool) -> list[str]:
    """Why this episode left retrieval (every symbol it was found by restructured, or an epoch), or []. A
    failed attempt stays while any line of the code it was about is still there."""
    if reason := expiry.epoch_reason(episode["ended_at"]):
        return [reason]
    reasons = [expiry.reason(r, failed) for r in rows]
    return [r for r in reasons if r] if reasons and all(reasons) else []


def _breadth(db: Database, ids: list[int]) -> dict[int, tuple[int, int]]:
    """episode -> (files, symbols) its diff changed: how wide it was."""
    found: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for i, table in enumerate(("episode_files", "episode_symbols")):
        for episode, n in db.rows(f"SELECT episode_id, COUNT(*) FROM {table} WHERE episode_id IN {db.each}"
                                  " GROUP BY episode_id", (db.many(ids),)):
            found[episode][i] = n
    return {e: (files, symbols) for e, (files, symbols) in found.items()}


def _attempt(e: dict, rows: list[Row], relation: str, evidence: list[dict], conclusions: list[dict],
             now: datetime, settings: EpisodicSettings, breadth: tuple[int, int], ranked: tuple[str, str | None]
             ) -> dict:
    verdict = _verdict(e, evidence, now, settings)
    ranked_at, dated = ranked
    return {
        "episode": e["id"], "kind": e["kind"], "ref": e["ref"], "actor": e["actor"], "task": e["task"],
        "when": e["ended_at"], "commit": e["commit_sha"], "pr": e["pr"], "thin": bool(e["thin"]),
        "relation": relation, "symbols": sorted({r.fqn for r in rows}),
        "how": sorted({r.how for r in rows}), "verdict": verdict,
        "sweep": is_sweep(*breadth), "files": breadth[0], "symbolsChanged": breadth[1],
        "evidence": evidence, "conclusions": conclusions,
        **({"rankedAt": ranked_at, "dated": dated} if dated else {}),
        "_part_of": e["part_of"], "_age_days": _days(now, ranked_at),
    }


def _verdict(e: dict, evidence: list[dict], now: datetime, settings: EpisodicSettings) -> dict:
    """The attempt's verdict: the most severe its deterministic evidence gives (with that evidence's
    confidence); else, for a session, what it declared (weak, decaying); else unknown."""
    decisive = [x for x in evidence if x["kind"] == "outcome"]
    for cls in ("failure", "mixed", "success"):
        found = [x for x in decisive if verdict_class(x["verdict"]) == cls]
        if found:
            best = max(found, key=lambda x: x["confidence"])
            return {"class": cls, "verdict": best["verdict"], "confidence": best["confidence"],
                    "source": best["source"]}
    if e["declared"]:
        confidence = DECLARED_CONFIDENCE * 0.5 ** (_days(now, e["ended_at"]) / settings.conclusion_half_life_days)
        return {"class": _DECLARED.get(e["declared"], "unknown"), "verdict": e["declared"],
                "confidence": round(confidence, 3), "source": "declared by the agent"}
    return {"class": "unknown", "verdict": "unknown", "confidence": None, "source": None}


def _evidence(db: Database, ids: list[int]) -> dict[int, list[dict]]:
    found: dict[int, list[dict]] = defaultdict(list)
    outcome_rows = db.query(f"SELECT * FROM outcomes WHERE episode_id IN {db.each} ORDER BY at, id", (db.many(ids),))
    tests: dict[int, list[dict]] = defaultdict(list)
    for t in db.query(f"SELECT * FROM outcome_tests WHERE outcome_id IN {db.each}",
                      (db.many([o["id"] for o in outcome_rows]),)):
        tests[t["outcome_id"]].append({"test": t["test_id"], "status": t["status"], "message": t["message"],
                                       "fqn": t["fqn"], "underTest": [u for u in t["under_test"].split("\n") if u]})
    for o in outcome_rows:
        item = {"kind": "outcome", "source": o["source"], "verdict": o["verdict"], "confidence": o["confidence"],
                "at": o["at"], **json.loads(o["evidence"])}
        if o["passed"] or o["failed"] or o["skipped"]:
            item["counts"] = {"passed": o["passed"], "failed": o["failed"], "skipped": o["skipped"]}
        if tests.get(o["id"]):
            item["tests"] = tests[o["id"]]
        found[o["episode_id"]].append(item)
    return found


def _put_back_here(db: Database, evidence: dict[int, list[dict]], rows: dict[int, list[Row]]) -> dict[int, list[dict]]:
    """A partial revert (it put back some of the files an attempt changed) is evidence against the
    attempt only where it put lines back: a revert of a lock file says nothing of the functions the
    attempt also changed. Kept for an attempt when the revert touched one of the symbols it is found by
    here (or a symbol inside one, or one holding it)."""
    partial = {x["revert"] for found in evidence.values() for x in found if x.get("how") == "content-partial"}
    if not partial:
        return evidence
    touched: dict[str, set[str]] = defaultdict(set)
    for r in db.query(f"""SELECT e.commit_sha, s.fqn FROM episodes e JOIN episode_symbols s ON s.episode_id = e.id
                          WHERE e.commit_sha IN {db.each}""", (db.many(sorted(partial)),)):
        touched[r["commit_sha"]].add(r["fqn"])

    def here(x: dict, episode: int) -> bool:
        return x.get("how") != "content-partial" or any(
            _nested(a, b.fqn) or _nested(b.fqn, a) for a in touched[x["revert"]] for b in rows[episode])
    return {e: [x for x in found if here(x, e)] for e, found in evidence.items()}


def _nested(inner: str, outer: str) -> bool:
    """`inner` is `outer` or a symbol inside it."""
    return inner == outer or is_ancestor(outer, inner)


def _conclusions(db: Database, ids: list[int], decrypt: Decrypt, now: datetime,
                 settings: EpisodicSettings) -> dict[int, list[dict]]:
    """The agents' own conclusions, apart from the outcomes, at a confidence that halves every
    conclusion_half_life_days."""
    found: dict[int, list[dict]] = defaultdict(list)
    for c in db.query(f"SELECT * FROM conclusions WHERE episode_id IN {db.each} ORDER BY at, id", (db.many(ids),)):
        age = _days(now, c["at"])
        found[c["episode_id"]].append({
            "text": decrypt(c["text"]), "author": c["author"], "at": c["at"],
            "confidence": round(c["confidence"] * 0.5 ** (age / settings.conclusion_half_life_days), 3),
            "ageDays": round(age, 1)})
    return found


def _groups(attempts: list[dict], settings: EpisodicSettings) -> list[dict]:
    """Similar attempts together; groups in order: failures first, then by recency and frequency; sweeps
    (most attempts of the group a diff over many files or symbols: a formatter's run, a ported test suite
    and its parts) after all the focused ones."""
    parent = {a["episode"]: a["episode"] for a in attempts}

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a: int, b: int) -> None:
        if a in parent and b in parent:
            parent[root(a)] = root(b)

    by_commit = {a["commit"]: a["episode"] for a in attempts if a["commit"]}
    by_whole: dict[int, list[int]] = defaultdict(list)
    for a in attempts:
        if a["_part_of"] is not None:
            by_whole[a["_part_of"]].append(a["episode"])
            union(a["episode"], a["_part_of"])
        for x in a["evidence"]:
            if x.get("revert") in by_commit:  # a commit and its revert are one story
                union(a["episode"], by_commit[x["revert"]])
    for members_ in by_whole.values():
        for other in members_[1:]:
            union(members_[0], other)
    buckets: dict[tuple, list[dict]] = defaultdict(list)
    for a in attempts:
        buckets[tuple(a["symbols"])].append(a)
    for same in buckets.values():
        words = [_words(a["task"] or "") for a in same]
        for i in range(len(same)):
            for j in range(i + 1, len(same)):
                if words[i] and words[j] and len(words[i] & words[j]) / len(words[i] | words[j]) >= SIMILAR_MESSAGES:
                    union(same[i]["episode"], same[j]["episode"])
    grouped: dict[int, list[dict]] = defaultdict(list)
    for a in attempts:
        grouped[root(a["episode"])].append(a)
    groups = [_group(g, settings) for g in grouped.values()]
    groups.sort(key=lambda g: g["latest"], reverse=True)  # (equal scores: the latest first)
    groups.sort(key=lambda g: (g["sweep"], _ORDER[g["verdict"]], -g["score"]))
    return groups


def _group(attempts: list[dict], settings: EpisodicSettings) -> dict:
    attempts.sort(key=_at, reverse=True)
    classes = [a["verdict"]["class"] for a in attempts]
    worst = min(classes, key=_SEVERITY.__getitem__)
    recency = max(0.5 ** (a["_age_days"] / settings.recency_half_life_days) for a in attempts)
    relation = 1.0 if any(a["relation"] == "touched" for a in attempts) else DEPENDANT_WEIGHT
    # how often it was tried: a pull request and the commits it brought in are one attempt (counted twice,
    # a pull request's one commit on a caller outranked an attempt on the symbol itself)
    frequency = 1 + math.log2(len({a["_part_of"] if a["_part_of"] is not None else a["episode"] for a in attempts}))
    for a in attempts:
        _public(a)
    sweeps = sum(1 for a in attempts if a["sweep"])
    return {"verdict": worst, "sweep": 2 * sweeps > len(attempts), "size": len(attempts),
            "latest": _at(attempts[0]), "first": _at(attempts[-1]),
            "verdicts": {c: classes.count(c) for c in dict.fromkeys(classes)},
            "score": round(recency * frequency * relation, 4),
            "explain": {"recency": round(recency, 3), "frequency": round(frequency, 3), "relation": relation},
            "attempts": attempts}


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _NOISE}


def _days(now: datetime, iso: str) -> float:
    return max((now - datetime.fromisoformat(iso)).total_seconds() / 86400, 0.0)


def _text(fqn: str, live: list[dict], failures: int, groups: int, shown: int, expired: int, failed_expired: int,
          include_expired: bool) -> str:
    if not live and not expired:
        return f"no past attempts on {fqn} or its close dependants are recorded"
    parts = [f"{counted(len(live), 'past attempt')} on {fqn} and its close dependants ({failures} failed)"]
    if groups > shown:
        parts.append(f"the {shown} most relevant of {groups} kinds shown")
    if expired:
        parts.append(f"{expired} about code restructured since" +
                     (f", {failed_expired} of them failed" if failed_expired else "") +
                     (" (listed under expired)" if include_expired else " (`--all` shows them with the reason)"))
    return "; ".join(parts)
