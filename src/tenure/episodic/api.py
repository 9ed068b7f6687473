"""Episodes: what happened when we tried before (SPEC §2.3). `Tenure.episodes`.

Every verb returns a plain, JSON-ready dict; the CLI and the MCP server are thin layers over them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from tenure.episodic import outcomes, sessions
from tenure.episodic.reports.tests import ReportError, TestReport, exit_report, read_junit, read_pytest_json
from tenure.episodic.settings import load
from tenure.episodic.store import migrations
from tenure.refusal import Refusal
from tenure.storage import Database

# What maps onto the code (episodes' symbols, the timeline, the history's reader) is imported by the
# verbs that use it: a hook records a shell command into a session on every tool use an agent makes.
if TYPE_CHECKING:
    from tenure.episodic.episodes import Touch
    from tenure.history import GitHistory

Clock = Callable[[], datetime]
REPORTS = {"junit": read_junit, "pytest-json": read_pytest_json}


class EpisodicError(Refusal):
    """A refused request; the message says what to do instead."""


class Episodes:
    def __init__(self, db: Database, root: Path, history: Callable[[], GitHistory], encrypt: Callable[[str], bytes],
                 decrypt: Callable[[bytes], str], dependants: Callable[[str], list[str]],
                 session_task: Callable[[str], str | None] = lambda session: None, clock: Clock | None = None,
                 code: Database | None = None) -> None:
        """`db`: the episodes' own database (a team's, shared); `code`: the checkout's, which the
        namespace reads the code from (the same one without a team database); `history`: the git
        history's reader, made when a verb first reads it."""
        self.db, self.code, self.root, self._history = db, code or db, Path(root), history
        self.encrypt, self.decrypt, self.dependants = encrypt, decrypt, dependants
        self.session_task = session_task  # a session's task is the memories' (encrypted there)
        self.clock = clock or (lambda: datetime.now(UTC))
        migrations.apply(db)
        self.settings = load(self.root)

    @cached_property
    def history(self) -> GitHistory:
        return self._history()

    def _now(self) -> str:
        return self.clock().isoformat()

    # the repository's history --------------------------------------------------------------------
    def sync(self) -> dict:
        """Episodes for the commits the history read since the last sync (`Tenure.index` runs this)."""
        from tenure.episodic import sync

        return sync.sync(self.db, self.code, self.history, self.settings)

    # work sessions ---------------------------------------------------------------------------------
    def session_started(self, session: str) -> None:
        sessions.started(self.db, self.history, session)

    def session_ended(self, session: dict, conclusions: list[str]) -> dict:
        return sessions.ended(self.db, self.code, self.history, session, conclusions, self.encrypt, self._now())

    def record_step(self, session: str, command: str, output: str = "", procedure: str | None = None) -> dict:
        return sessions.record_step(self.db, session, command, output, self._now(), procedure)

    # outcomes --------------------------------------------------------------------------------------
    def record_tests(self, kind: str, path: Path | None = None, exit_code: int | None = None,
                     failed: list[str] | None = None, commit: str | None = None, session: str | None = None,
                     run: str | None = None) -> dict:
        """A test run's outcome: a report file (`junit`, `pytest-json`) or an exit status with the failing
        test ids (`exit-code`), about a commit (HEAD when neither it nor a session is named) or a session."""
        if kind == "exit-code":
            if exit_code is None:
                raise EpisodicError("an exit-code outcome needs the exit status (--exit-code N)")
            report = exit_report(exit_code, failed or [])
        elif kind in REPORTS:
            if path is None or not path.is_file():
                raise EpisodicError(f"{path} is not a file: name the {kind} report to record")
            try:
                report = REPORTS[kind](path)
            except ReportError as exc:
                raise EpisodicError(str(exc)) from exc
        else:
            raise EpisodicError(f"a test report is junit, pytest-json or exit-code, not {kind!r}")
        sha = self._commit(commit) if commit or not session else None
        if not _has_verdict(report):
            return {"recorded": False, "problems": report.problems, "source": report.source,
                    "why": "nothing in it says how the tests went: no outcome was recorded"}
        evidence = {"file": str(path) if path else None, "run": run}
        if sha and not session:
            files, _ = self.history.working_tree()
            if files:
                evidence["uncommitted"] = sorted(f.path for f in files)[:20]  # the code tested was not only HEAD's
        with self.db.transaction():
            outcome = sessions.add_report(self.db, self.code, report, self._now(), evidence, session=session,
                                          commit=sha)
        tests = self.db.query("SELECT test_id, fqn, under_test FROM outcome_tests WHERE outcome_id = ?"
                              " ORDER BY test_id", (outcome,))
        return {"recorded": True, "outcome": outcome, "source": report.source, "verdict": report.verdict,
                "passed": report.passed, "failed": report.failed, "skipped": report.skipped,
                "problems": report.problems, "about": {"session": session, "commit": sha},
                "confidence": outcomes.CONFIDENCE[report.source],
                "tests": [{"test": t["test_id"], "fqn": t["fqn"], "underTest": [u for u in t["under_test"].split("\n")
                                                                                   if u]} for t in tests]}

    def _commit(self, ref: str | None) -> str | None:
        if ref is None:
            return self.history.head()
        if not self.history.available:
            raise EpisodicError(f"no git history here ({self.history.reason}): record against a session instead")
        found = self.history.commit(ref)
        if found is None:
            self.history.update()
            found = self.history.commit(ref)
        if found is None:
            raise EpisodicError(f"no commit {ref!r} in this repository's history (a full or abbreviated sha)")
        return found.sha

    def ingest_pull_requests(self, path: Path) -> dict:
        """Pull requests from a GitHub CLI export, each an episode with its outcome: merged, closed
        unmerged (rejected), changes requested (with the reviewers' words), approved. Read again, an
        export replaces what it said before."""
        from tenure.episodic import episodes
        from tenure.episodic.episodes import Touch
        from tenure.episodic.reports.github import read_pull_requests
        from tenure.namespace.symbols import fingerprints, indexed_files

        try:
            export = read_pull_requests(path)
        except ReportError as exc:
            raise EpisodicError(str(exc)) from exc
        commits = self.history.lookup({s for p in export.pulls for s in [*p.commits, p.merge_commit] if s})
        modules = {f.path: f.module for f in indexed_files(self.code).values()}
        counts = {"merged": 0, "rejected": 0, "open": 0, "changesRequested": 0}
        with self.db.transaction():
            for pull in export.pulls:
                touched = [s for sha in [*pull.commits, pull.merge_commit] if sha in commits
                           for s in commits[sha].symbols]
                if not touched:  # its commits are not in this history: the files it changed, by module
                    named = {p: modules[p] for p in pull.files if p in modules}
                    present = fingerprints(self.code, sorted(set(named.values())))
                    touched = [Touch(m, p, "file", 1) for p, m in named.items() if m in present]
                episode = self._pull_episode(pull, touched)
                counts[{"merged": "merged", "closed": "rejected", "open": "open"}[pull.state]] += 1
                counts["changesRequested"] += self._pull_outcomes(pull, episode)
                episodes.attach_commits(self.db, episode, [s for s in pull.commits if s in commits], pull.number)
        return {"pullRequests": len(export.pulls), **counts, "problems": export.problems}

    def _pull_episode(self, pull, touched: list[Touch]) -> int:
        from tenure.episodic import episodes
        from tenure.episodic.episodes import PR

        now = self._now()
        existing = self.db.rows("SELECT id FROM episodes WHERE kind = 'pr' AND ref = ?", (str(pull.number),))
        snapshot = episodes.snapshots(self.db, self.code, {t.fqn for t in touched})
        if existing:
            self.db.execute("UPDATE episodes SET task = ?, actor = ? WHERE id = ?",
                            (pull.title, pull.author, existing[0][0]))
            if touched and not self.db.rows("SELECT 1 FROM episode_symbols WHERE episode_id = ?", (existing[0][0],)):
                episodes.set_symbols(self.db, existing[0][0], touched, snapshot)
            episodes.set_files(self.db, existing[0][0], pull.files)
            return existing[0][0]
        episode = episodes.record(self.db, PR, str(pull.number), pull.author, pull.created_at or now,
                                  pull.ended_at or pull.created_at or now, touched, snapshot, task=pull.title,
                                  commit_sha=pull.merge_commit, pr=pull.number, files=pull.files)
        assert episode is not None
        return episode

    def _pull_outcomes(self, pull, episode: int) -> int:
        """Its outcomes from GitHub, replacing an earlier export's; returns how many asked for changes."""
        self.db.execute("DELETE FROM outcome_tests WHERE outcome_id IN (SELECT id FROM outcomes WHERE source = 'github'"
                        " AND pr = ?)", (pull.number,))
        self.db.execute("DELETE FROM outcomes WHERE source = 'github' AND pr = ?", (pull.number,))
        at = pull.ended_at or pull.created_at or self._now()
        base = {"pr": pull.number, "url": pull.url, "title": pull.title}
        if pull.state in ("merged", "closed"):
            outcomes.add(self.db, "github", "merged" if pull.state == "merged" else "rejected", at,
                         {**base, "state": pull.state}, episode=episode, pr=pull.number)
        asked = [r for r in pull.reviews if r.state == "CHANGES_REQUESTED"]
        if asked:
            outcomes.add(self.db, "github", "changes-requested", asked[-1].at or at,
                         {**base, "reviewers": [{"author": r.author, "words": r.body, "at": r.at} for r in asked]},
                         episode=episode, pr=pull.number)
        approved = [r for r in pull.reviews if r.state == "APPROVED"]
        if approved:
            outcomes.add(self.db, "github", "approved", approved[-1].at or at,
                         {**base, "reviewers": [{"author": r.author, "words": r.body} for r in approved]},
                         episode=episode, pr=pull.number)
        return len(asked)

    # epochs ----------------------------------------------------------------------------------------
    def mark_epoch(self, label: str, author: str) -> dict:
        """An architecture epoch: every episode before it leaves retrieval (and stays in history)."""
        if not label.strip():
            raise EpisodicError('an epoch needs a label, e.g. tenure epoch mark "moved to event sourcing"')
        with self.db.transaction():
            at = self._now()
            epoch = self.db.rows("INSERT INTO epochs (label, at, head_sha, author) VALUES (?, ?, ?, ?) RETURNING id",
                                 (label.strip(), at, self.history.head() if self.history.available else None,
                                  author))[0][0]
            before = self.db.rows("SELECT COUNT(*) FROM episodes WHERE ended_at < ?", (at,))[0][0]
        return {"epoch": epoch, "label": label.strip(), "at": at, "episodesBefore": before}

    def epochs(self) -> list[dict]:
        return self.db.query("SELECT id AS epoch, label, at, head_sha AS head, author FROM epochs ORDER BY at, id")

    # the question ----------------------------------------------------------------------------------
    def what_happened_before(self, symbol: str, include_expired: bool = False, limit: int = 10) -> dict:
        """Past attempts on a symbol and on its close dependants, ranked, each with its evidence."""
        from tenure.episodic import timeline
        from tenure.namespace.lookup import find_symbols

        lookup = find_symbols(self.code, symbol)
        notes = []
        if lookup.unique is not None:
            fqn = lookup.unique.fqn
            dependants = self.dependants(fqn)
        elif lookup.how == "ambiguous":
            raise EpisodicError(lookup.message() + ". Name one of them in full.")
        elif self.known_symbol(symbol):
            fqn, dependants = symbol.strip(), []
            notes.append(f"{fqn} is not in the index now (removed or renamed): its past attempts are history")
        else:
            raise EpisodicError(f"{lookup.message()}. If the code is new, run `tenure index`.")
        result = timeline.what_happened_before(self.db, self.code, fqn, dependants, self.settings, self.clock(),
                                               self.decrypt, self.history.last_written, include_expired or bool(notes),
                                               limit, self.history.unchanged_since, self.history.impossible_dates)
        for group in result["groups"] + [{"attempts": result.get("expiredAttempts", [])}]:
            for attempt in group["attempts"]:
                if attempt["kind"] == "session":
                    attempt["task"] = self.session_task(attempt["ref"])
        status = self.history.status()
        if not status["available"]:
            notes.append(f"no git history: {status['reason']}; only work sessions and recorded outcomes are known")
        elif not status.get("head_read"):
            notes.append(status["text"])
        if not self.db.rows("SELECT 1 FROM outcomes WHERE source IN ('junit', 'pytest-json', 'pytest-reportlog',"
                            " 'exit-code', 'hook') LIMIT 1"):
            notes.append("no test outcomes recorded yet (`tenure ci record`, or the Claude Code hook of `tenure "
                         "setup claude`): verdicts come from git and GitHub only")
        return {**result, "lookup": lookup.how, "notes": notes, "history": status}

    def known_symbol(self, fqn: str) -> bool:
        """Whether an episode touched a symbol of this exact name (one the index may no longer hold)."""
        return bool(self.db.rows("SELECT 1 FROM episode_symbols WHERE fqn = ? LIMIT 1", (fqn.strip(),)))

    # what procedural memory learns from -------------------------------------------------------------
    def runs(self) -> dict[int, list[tuple[str, str | None]]]:
        """Session episode -> what it ran, in order, each with the verdict of a test run (None: not one)."""
        found: dict[int, list[tuple[str, str | None]]] = {}
        for r in self.db.query("""SELECT e.id, s.command, o.verdict FROM session_steps s
                                  JOIN episodes e ON e.kind = 'session' AND e.ref = s.session_id
                                  LEFT JOIN outcomes o ON o.id = s.outcome_id ORDER BY s.id"""):
            found.setdefault(r["id"], []).append((r["command"], r["verdict"]))
        return found

    def decided(self) -> dict[int, tuple[str, str, frozenset[str]]]:
        """Attempts a deterministic source gave a verdict: episode -> (success | failure, the verdict,
        the files it changed that still exist). A pull request or session is one attempt with the
        commits made in it; where its sources disagree, failure wins (merged, then reverted)."""
        whole = {r["id"]: r["part_of"] or r["id"] for r in self.db.query("SELECT id, part_of FROM episodes")}
        verdicts: dict[int, dict[str, str]] = {}
        for r in self.db.query("SELECT episode_id, verdict FROM outcomes WHERE episode_id IS NOT NULL ORDER BY id"):
            verdicts.setdefault(whole[r["episode_id"]], {})[outcomes.verdict_class(r["verdict"])] = r["verdict"]
        files: dict[int, set[str]] = {}
        exists: dict[str, bool] = {}
        for r in self.db.query("SELECT episode_id, path FROM episode_files"):
            unit = whole[r["episode_id"]]
            if unit not in verdicts:
                continue
            if r["path"] not in exists:
                exists[r["path"]] = os.path.exists(self.root / r["path"])
            if exists[r["path"]]:
                files.setdefault(unit, set()).add(r["path"])
        found = {}
        for unit, classes in verdicts.items():
            cls = "failure" if "failure" in classes else "success" if set(classes) == {"success"} else None
            if cls:  # (mixed: it stood only after more work; neither kind of evidence)
                found[unit] = (cls, classes[cls], frozenset(files.get(unit, ())))
        return found

    def describe(self, ids: list[int]) -> dict[int, dict]:
        """Episodes as the evidence of a rule shows them."""
        return {r["id"]: {"episode": r["id"], "kind": r["kind"], "ref": r["ref"], "actor": r["actor"],
                          "task": r["task"], "when": r["ended_at"]}
                for r in self.db.query(f"SELECT * FROM episodes WHERE id IN {self.db.each}", (self.db.many(ids),))}


def _has_verdict(report: TestReport) -> bool:
    return bool(report.failures or report.passed or report.skipped or report.exit_code is not None)
