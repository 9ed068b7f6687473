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


def add_tests(db: Database, code: Database | None, outcome: int, cases: list[TestCase]) -> list[dict]:
    """The failing tests of a report, each with the test function the index holds and what it calls
    (the symbols under test), where the index can tell. Without `code` they are stored unmapped: the
    hook's, recorded on every test run an agent makes, must not load the code's index (the session's end
    maps them, `map_session_tests`, once the index is brought up to date: nothing reads them before)."""
    if not cases:
        return []
    found = under_test(code, [(case.id, case.path) for case in cases]) if code is not None else {}
    rows = []
    for case in cases:
        fqn, under = found.get(case.id, (None, []))
        rows.append({"test": case.id, "status": case.status, "message": case.message, "fqn": fqn, "underTest": under})
    db.executemany("INSERT INTO outcome_tests (outcome_id, test_id, status, message, fqn, under_test)"
                   " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                   [(outcome, r["test"], r["status"], r["message"], r["fqn"], "\n".join(r["underTest"])) for r in rows])
    return rows


def map_session_tests(db: Database, code: Database, session: str) -> None:
    """The failing tests the hook recorded into a session (stored unmapped), mapped onto the index now."""
    rows = db.rows("""SELECT t.outcome_id, t.test_id FROM outcome_tests t JOIN outcomes o ON o.id = t.outcome_id
                      WHERE o.session_id = ? AND o.source = 'hook' AND t.fqn IS NULL""", (session,))
    if not rows:
        return
    found = under_test(code, [(test_id, "") for _, test_id in rows])  # (console output names no file apart)
    mapped = [(fqn, "\n".join(under), outcome, test_id) for outcome, test_id in rows
              for fqn, under in [found[test_id]] if fqn is not None]
    if mapped:
        db.executemany("UPDATE outcome_tests SET fqn = ?, under_test = ? WHERE outcome_id = ? AND test_id = ?", mapped)


def under_test(code: Database, tests: list[tuple[str, str]]) -> dict[str, tuple[str | None, list[str]]]:
    """(test id, its file where the report says) -> the test function the index holds and what it calls.
    Linear in the tests: a test whose name no symbol has is not looked up, and the cases of one test
    (parameters) are looked up once."""
    # (the code's index is read only now: a hook recording a shell command or a test run never loads it)
    from tenure.namespace.symbols import callees, indexed_files, names_defined

    modules = {f.path: f.module for f in indexed_files(code).values()}
    named: dict[str, tuple[str, tuple[str, ...]]] = {}
    for test_id, path in tests:
        named.setdefault(test_id, _named(test_id, path))  # (a test listed twice is stored once: its first)
    defined = names_defined(code, {names[-1] for _, names in named.values() if names})
    symbol: dict[tuple[str, tuple[str, ...]], str | None] = {}
    under: dict[str, list[str]] = {}
    found: dict[str, tuple[str | None, list[str]]] = {}
    for test_id, (path, names) in named.items():
        key = (path, names)
        if key not in symbol:
            symbol[key] = test_symbol(code, path, names, modules) if names and names[-1] in defined else None
        fqn = symbol[key]
        if fqn and fqn not in under:
            under[fqn] = callees(code, fqn)[:UNDER_TEST_SHOWN]
        found[test_id] = (fqn, under[fqn] if fqn else [])
    return found


def _named(test_id: str, path: str) -> tuple[str, tuple[str, ...]]:
    in_id, names = node_parts(test_id)
    return in_id or path, tuple(names)


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
