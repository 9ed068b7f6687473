"""Work sessions as episodes: one concept of a session (memories/sessions.py holds it); when it ends,
its episode records what really changed — the commits made since it started and the working tree's
uncommitted edits, mapped onto symbols — not only what it leased. What it ran (the hook's steps)
and the test outcomes recorded into it belong to it too."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tenure.episodic import outcomes
from tenure.episodic.testruns import any_runner, read_output, runner_for, shapes
from tenure.storage import Database

if TYPE_CHECKING:
    from tenure.episodic.reports.tests import TestReport
    from tenure.history import GitHistory

Encrypt = Callable[[str], bytes]
CONCLUSION_CONFIDENCE = 0.3  # an agent's reading of what happened: much weaker than any verdict, and it decays


def started(db: Database, history: GitHistory, session: str) -> None:
    db.execute("INSERT INTO session_starts (session_id, base_sha) VALUES (?, ?) ON CONFLICT DO NOTHING",
               (session, history.head() if history.available else None))


def ended(db: Database, code: Database, history: GitHistory, session: dict, conclusions: list[str], encrypt: Encrypt,
          now: str) -> dict:
    """The episode of a session that just ended (`session`: Memories.session's dict)."""
    from tenure.episodic import episodes  # (with the symbols it maps: not for a hook's record_step)
    from tenure.episodic.episodes import SESSION

    rows = db.rows("SELECT base_sha FROM session_starts WHERE session_id = ?", (session["session"],))
    base = rows[0][0] if rows else None
    commits = history.since(base) if base else []
    files, uncommitted = history.working_tree()
    touched = [s for c in commits for s in c.symbols] + uncommitted
    with db.transaction():
        snapshot = episodes.snapshots(db, code, {t.fqn for t in touched})
        episode = episodes.record(db, SESSION, session["session"], session["agent"], session["started"],
                                  session["ended"] or now, touched, snapshot, declared=session["outcome"],
                                  commit_sha=history.head() if history.available else None, base_sha=base,
                                  files=[f.path for c in commits for f in c.files] + [f.path for f in files])
        if episode is None:
            raise ValueError(f"session {session['session']} is an episode already")
        shas = [c.sha for c in commits]
        episodes.attach_commits(db, episode, shas)
        db.executemany("INSERT INTO conclusions (session_id, episode_id, author, text, at, confidence)"
                       " VALUES (?, ?, ?, ?, ?, ?)",
                       [(session["session"], episode, session["agent"], encrypt(text), now, CONCLUSION_CONFIDENCE)
                        for text in conclusions if text.strip()])
        outcomes.map_session_tests(db, code, session["session"])
        outcomes.link_pending(db)
    return {"episode": episode, "commits": shas, "uncommitted": sorted(f.path for f in files),
            "touched": sorted({t.fqn for t in touched}), "conclusions": sum(1 for t in conclusions if t.strip())}


def record_step(db: Database, session: str, command: str, output: str, now: str, procedure: str | None = None) -> dict:
    """A shell command an agent ran in a session (the hook), or a procedure it ran: its steps' shapes,
    and when it ran tests, their verdict as an outcome of the session (its failing tests mapped onto the
    code when the session ends: the hook, run on every tool use, reads no code)."""
    steps = [f"procedure {procedure}"] if procedure else shapes(command)
    runner = any_runner(procedure) if procedure else runner_for(command)
    report = read_output(runner, output) if runner else None
    with db.transaction():
        evidence = {"command": steps, "runner": runner.name} if runner else {}
        outcome = add_report(db, None, report, now, session=session, evidence=evidence) if report and runner else None
        db.executemany("INSERT INTO session_steps (session_id, at, command, outcome_id) VALUES (?, ?, ?, ?)",
                       [(session, now, step, outcome if i == len(steps) - 1 else None) for i, step in enumerate(steps)])
    return {"session": session, "steps": steps, "outcome": outcome,
            "verdict": report.verdict if report else None, "failed": [c.id for c in report.failures] if report else []}


def add_report(db: Database, code: Database | None, report: TestReport, at: str, evidence: dict, *,
               session: str | None = None, commit: str | None = None) -> int:
    """A test report as an outcome, its failing tests mapped to the symbols under test (in a transaction;
    without `code`, when the session ends: `outcomes.add_tests`)."""
    verdict = report.verdict
    outcome = outcomes.add(db, report.source, verdict, at, {**evidence, "problems": report.problems,
                                                              "exitCode": report.exit_code},
                           session=session, commit=commit, passed=report.passed, failed=report.failed,
                           skipped=report.skipped)
    outcomes.add_tests(db, code, outcome, report.failures)
    outcomes.link_pending(db)
    return outcome
