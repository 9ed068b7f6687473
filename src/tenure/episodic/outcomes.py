"""Outcomes: what a deterministic source said about an attempt — a test report, git (a revert, a
fix-up), GitHub (merged, closed unmerged, changes requested). Stored at the confidence of their
source, never decaying; attached to their episode once it exists (a session still open, a commit not
read yet)."""

from __future__ import annotations

import json

from tenure.episodic.reports.tests import TestCase, node_parts
from tenure.storage import Database

# How far each source's verdict can be trusted. A report the build system wrote is the strongest
# evidence there is; console output parsed by the hook nearly so; a revert found by its message is
# git's own record, one found by content an inference from blobs; a fix-up is a pattern.
CONFIDENCE = {
    "junit": 0.95, "pytest-json": 0.95, "pytest-reportlog": 0.95, "exit-code": 0.9, "hook": 0.9,
    "revert/message": 0.9, "revert/content": 0.75, "revert/content-partial": 0.6, "fixup": 0.6,
    "github": 0.95, "git-merge": 0.9,
}
FAILED = ("failed", "reverted", "rejected")  # the attempt did not stand
MIXED = ("changes-requested", "fixed-up", "partly-reverted")  # it stood only after more work
PASSED = ("passed", "merged", "approved")
UNDER_TEST_SHOWN = 20


def add(db: Database, source: str, verdict: str, at: str, evidence: dict, *, confidence: float | None = None,
        episode: int | None = None, session: str | None = None, commit: str | None = None, pr: int | None = None,
        passed: int = 0, failed: int = 0, skipped: int = 0) -> int:
    return db.rows(
        """INSERT INTO outcomes (episode_id, session_id, commit_sha, pr, source, verdict, confidence, at, evidence,
           passed, failed, skipped) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id""",
        (episode, session, commit, pr, source.split("/")[0], verdict,
         CONFIDENCE[source] if confidence is None else confidence, at, json.dumps(evidence, ensure_ascii=False),
         passed, failed, skipped))[0][0]


def add_tests(db: Database, code: Database, outcome: int, cases: list[TestCase]) -> list[dict]:
    """The failing tests of a report, each with the test function the index holds and what it calls
    (the symbols under test), where the index can tell. Linear in the tests: a test whose name no symbol
    has is not looked up, and the cases of one test (parameters) are looked up once."""
    if not cases:
        return []
    # (the code's index is read only now: a hook recording a passing run or a shell command never loads it)
    from tenure.namespace.symbols import callees, indexed_files, names_defined

    modules = {f.path: f.module for f in indexed_files(code).values()}
    named = [(case, _named(case)) for case in cases]
    defined = names_defined(code, {names[-1] for _, (_, names) in named if names})
    symbol: dict[tuple[str, tuple[str, ...]], str | None] = {}
    under: dict[str, list[str]] = {}
    rows = []
    for case, (path, names) in named:
        key = (path, names)
        if key not in symbol:
            symbol[key] = test_symbol(code, path, names, modules) if names and names[-1] in defined else None
        fqn = symbol[key]
        if fqn and fqn not in under:
            under[fqn] = callees(code, fqn)[:UNDER_TEST_SHOWN]
        rows.append({"test": case.id, "status": case.status, "message": case.message, "fqn": fqn,
                     "underTest": under[fqn] if fqn else []})
    db.executemany("INSERT INTO outcome_tests (outcome_id, test_id, status, message, fqn, under_test)"
                   " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                   [(outcome, r["test"], r["status"], r["message"], r["fqn"], "\n".join(r["underTest"])) for r in rows])
    return rows


def _named(case: TestCase) -> tuple[str, tuple[str, ...]]:
    path, names = node_parts(case.id)
    return path or case.path, tuple(names)


def test_symbol(code: Database, path: str, names: tuple[str, ...], modules: dict[str, str]) -> str | None:
    """The index's symbol for a test: a pytest node id through its file's module, a JUnit
    `class.name` as a full name or a unique suffix."""
    from tenure.namespace.lookup import find_symbols
    from tenure.namespace.symbols import fingerprints

    if path and names and path in modules:
        fqn = ".".join([modules[path], *names])
        return fqn if fingerprints(code, [fqn]) else None
    for start in range(len(names)):
        lookup = find_symbols(code, ".".join(names[start:]))
        if lookup.unique is not None:
            return lookup.unique.fqn
        if lookup.how == "ambiguous":
            return None
    return None


def link_pending(db: Database) -> None:
    """Attach outcomes recorded before their episode existed."""
    db.execute("""UPDATE outcomes SET episode_id = (SELECT e.id FROM episodes e WHERE e.kind = 'session'
                  AND e.ref = outcomes.session_id) WHERE episode_id IS NULL AND session_id IS NOT NULL""")
    db.execute("""UPDATE outcomes SET episode_id = (SELECT MIN(e.id) FROM episodes e
                  WHERE e.commit_sha = outcomes.commit_sha AND e.kind != 'session')
                  WHERE episode_id IS NULL AND commit_sha IS NOT NULL""")
    db.execute("""UPDATE outcomes SET episode_id = (SELECT e.id FROM episodes e WHERE e.kind = 'pr'
                  AND e.ref = CAST(outcomes.pr AS TEXT)) WHERE episode_id IS NULL AND pr IS NOT NULL""")


def verdict_class(verdict: str) -> str:
    return "failure" if verdict in FAILED else "mixed" if verdict in MIXED else "success" if verdict in PASSED \
        else "unknown"
