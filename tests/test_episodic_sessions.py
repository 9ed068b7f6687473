"""Work sessions become episodes of what really changed; outcomes recorded into them (reports, the
Claude Code hook) stay at high confidence, the agent's conclusions apart and decaying."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tenure import Tenure
from tenure.cli import app
from tenure.setup import hooks
from tests.git_support import SERVICE, GitRepo

pytestmark = pytest.mark.usefixtures("shared_stores")  # each test on SQLite and on PostgreSQL

BOOKED_TWICE = SERVICE.replace("return payment\n\n\ndef", "return [payment]\n\n\ndef")
TESTS = '''from pay.service import Settlement


def test_book():
    assert Settlement().book(1) == 1
'''
JUNIT = """<testsuite><testcase classname="tests.test_service" name="test_book">
<failure message="AssertionError: booked twice"/></testcase>
<testcase classname="tests.test_service" name="test_other"/></testsuite>"""
PYTEST_OUT = ("..F\nFAILED tests/test_service.py::test_book - AssertionError: booked twice\n"
              "========== 1 failed, 1 passed in 0.05s ==========\n")


@pytest.fixture
def repo(git_repo: GitRepo) -> Iterator[GitRepo]:
    git_repo.commit("Add the settlement service", {"pay/__init__.py": "", "pay/service.py": SERVICE,
                                                    "tests/test_service.py": TESTS})
    git_repo.index()
    yield git_repo


def test_a_session_end_records_an_episode_of_its_commits_and_uncommitted_edits(repo: GitRepo) -> None:
    with Tenure.open(repo.root, discover=False) as t:
        session = t.start_session("claude-code/ada", "book twice")["session"]
        sha = repo.commit("book twice", {"pay/service.py": BOOKED_TWICE})
        (repo.root / "pay" / "service.py").write_text((repo.root / "pay" / "service.py").read_text().replace(
            "def audit(payment):\n    return payment", "def audit(payment):\n    return dict(payment)"))
        t.index()
        ended = t.end_session(session, "booked twice, audit copies", outcome="success")
        episode = ended["episode"]
        assert episode["commits"] == [sha] and episode["uncommitted"] == ["pay/service.py"]
        assert episode["touched"] == ["pay.service.Settlement.book", "pay.service.audit"]
        found = t.episodes.what_happened_before("Settlement.book")
    (group,) = [g for g in found["groups"] if any(a["kind"] == "session" for a in g["attempts"])]
    kinds = {a["kind"]: a for a in group["attempts"]}
    assert set(kinds) == {"session", "commit"}  # the commit made in the session is one story with it
    assert kinds["session"]["actor"] == "claude-code/ada"
    assert kinds["session"]["verdict"]["source"] == "declared by the agent"  # a claim, not a verdict
    assert kinds["session"]["verdict"]["confidence"] < 0.5


def test_a_junit_report_recorded_into_a_session_maps_failures_to_the_symbols_under_test(
        repo: GitRepo, tmp_path: Path) -> None:
    report = tmp_path / "junit.xml"
    report.write_text(JUNIT)
    with Tenure.open(repo.root, discover=False) as t:
        session = t.start_session("agent", "book twice")["session"]
        recorded = t.episodes.record_tests("junit", report, session=session, run="ci/42")
        assert (recorded["verdict"], recorded["failed"], recorded["passed"]) == ("failed", 1, 1)
        (test,) = recorded["tests"]
        assert test["fqn"] == "test_service.test_book"
        assert "pay.service.Settlement.book" in test["underTest"]
        repo.commit("book twice", {"pay/service.py": BOOKED_TWICE})
        t.index()
        t.end_session(session, "tests failed", outcome="failure")
        (attempt,) = [a for g in t.episodes.what_happened_before("Settlement.book")["groups"] for a in g["attempts"]
                      if a["kind"] == "session"]
    assert attempt["verdict"] == {"class": "failure", "verdict": "failed", "confidence": 0.95, "source": "junit"}
    (evidence,) = attempt["evidence"]
    assert evidence["run"] == "ci/42" and evidence["tests"][0]["test"] == "tests.test_service.test_book"
    assert evidence["tests"][0]["message"] == "AssertionError: booked twice"


def test_a_conclusion_decays_while_its_outcome_stays(repo: GitRepo, tmp_path: Path) -> None:
    report = tmp_path / "junit.xml"
    report.write_text(JUNIT)
    with Tenure.open(repo.root, discover=False) as t:
        session = t.start_session("agent", "book twice")["session"]
        t.episodes.record_tests("junit", report, session=session)
        repo.commit("book twice", {"pay/service.py": BOOKED_TWICE})
        t.index()
        t.end_session(session, "failed", outcome="failure", conclusions=["I think the mapper must be regenerated"])

        def session_attempt() -> dict:
            return next(a for g in t.episodes.what_happened_before("Settlement.book")["groups"]
                        for a in g["attempts"] if a["kind"] == "session")

        now = session_attempt()
        later = t.episodes.clock() + timedelta(days=60)
        t.episodes.clock = lambda: later
        then = session_attempt()
    assert now["conclusions"][0]["text"] == "I think the mapper must be regenerated"
    assert now["conclusions"][0]["confidence"] == pytest.approx(0.3, abs=0.01)
    assert then["conclusions"][0]["confidence"] == pytest.approx(0.075, abs=0.01)  # two half-lives of 30 days
    assert now["verdict"]["confidence"] == then["verdict"]["confidence"] == 0.95  # the outcome never decays


def test_a_report_about_a_commit_attaches_to_its_episode(repo: GitRepo, tmp_path: Path) -> None:
    sha = repo.commit("book twice", {"pay/service.py": BOOKED_TWICE})
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"exitcode": 1, "tests": [
        {"nodeid": "tests/test_service.py::test_book", "outcome": "failed",
         "call": {"outcome": "failed", "longrepr": "booked twice"}}]}))
    with Tenure.open(repo.root, discover=False) as t:
        t.index()
        recorded = t.episodes.record_tests("pytest-json", report, commit=sha[:10])
        assert recorded["about"] == {"session": None, "commit": sha}
        assert recorded["tests"][0]["fqn"] == "test_service.test_book"
        attempt = next(a for g in t.episodes.what_happened_before("Settlement.book")["groups"] for a in g["attempts"]
                       if a["ref"] == sha)
    assert attempt["verdict"]["verdict"] == "failed" and attempt["verdict"]["source"] == "pytest-json"


def test_ci_record_refuses_a_bomb_and_records_an_exit_code(repo: GitRepo, tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.xml"
    bomb.write_text('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
                    '<testsuite><testcase classname="c" name="&b;"/></testsuite>')
    runner = CliRunner()
    refused = runner.invoke(app, ["ci", "record", "--junit", str(bomb), "--repo", str(repo.root)])
    assert refused.exit_code == 2 and "declares XML entities" in refused.output
    ok = runner.invoke(app, ["ci", "record", "--exit-code", "1", "--failed", "tests/test_service.py::test_book",
                             "--json", "--repo", str(repo.root)])
    assert ok.exit_code == 0, ok.output
    data = json.loads(ok.stdout)
    assert data["verdict"] == "failed" and data["confidence"] == 0.9 and data["about"]["commit"] == repo.head()


def test_the_post_tool_use_hook_records_test_runs_into_the_open_session(repo: GitRepo) -> None:
    event = {"session_id": "cc-1", "cwd": str(repo.root), "hook_event_name": "PostToolUse", "tool_name": "Bash"}
    runner = CliRunner()
    with Tenure.open(repo.root, discover=False) as t:
        hooks.session_start(t, event)
    for command, output in (("make generate", "generated"), ("python -m pytest -q", PYTEST_OUT)):
        result = runner.invoke(app, ["hook", "post-tool-use"], input=json.dumps(
            {**event, "tool_input": {"command": command}, "tool_response": {"stdout": output, "stderr": ""}}))
        assert result.exit_code == 0, result.output
    assert "tests failed (1 failing)" in result.output
    with Tenure.open(repo.root, discover=False) as t:
        session = (repo.root / ".tenure" / "hooks" / "claude-code" / "cc-1").read_text().strip()
        ended = hooks.session_end(t, event)
        assert session in ended
        runs = t.episodes.runs()
    assert list(runs.values()) == [[("make generate", None), ("python -m pytest", "failed")]]


def _hook_records_test_run(repo: GitRepo, event: dict, output: str) -> None:
    with Tenure.open(repo.root, discover=False) as t:
        hooks.session_start(t, event)
    result = CliRunner().invoke(app, ["hook", "post-tool-use"], input=json.dumps(
        {**event, "tool_input": {"command": "python -m pytest -q"}, "tool_response": {"stdout": output}}))
    assert result.exit_code == 0 and "tests failed (1 failing)" in result.output, result.output


def _session_evidence(t: Tenure, symbol: str) -> dict:
    (attempt,) = [a for g in t.episodes.what_happened_before(symbol)["groups"] for a in g["attempts"]
                  if a["kind"] == "session"]
    (evidence,) = attempt["evidence"]
    return evidence


def test_a_failing_test_the_hook_records_is_mapped_to_the_symbols_it_tests_in_the_history(repo: GitRepo) -> None:
    """The hook stores the failing test's id alone (it reads no code); the session's end maps it, so a
    history answer names the test function and what it calls, as for a report recorded by `ci record`."""
    event = {"session_id": "cc-3", "cwd": str(repo.root), "hook_event_name": "PostToolUse", "tool_name": "Bash"}
    _hook_records_test_run(repo, event, PYTEST_OUT)
    repo.commit("book twice", {"pay/service.py": BOOKED_TWICE})
    with Tenure.open(repo.root, discover=False) as t:
        hooks.session_end(t, event)
        evidence = _session_evidence(t, "Settlement.book")
    assert evidence["source"] == "hook" and evidence["verdict"] == "failed"
    (test,) = evidence["tests"]
    assert test["test"] == "tests/test_service.py::test_book" and test["fqn"] == "test_service.test_book"
    assert "pay.service.Settlement.book" in test["underTest"]


def test_a_failing_test_written_in_the_session_is_mapped_once_the_session_ends(repo: GitRepo) -> None:
    """A test the agent wrote and ran before any index saw it: mapped at the session's end, onto the
    index brought up to date then (the hook's moment knew no such function)."""
    event = {"session_id": "cc-4", "cwd": str(repo.root), "hook_event_name": "PostToolUse", "tool_name": "Bash"}
    (repo.root / "tests" / "test_twice.py").write_text(
        "from pay.service import Settlement\n\n\ndef test_books_twice():\n    assert Settlement().book(2) == [2]\n")
    _hook_records_test_run(repo, event, "FAILED tests/test_twice.py::test_books_twice - AssertionError\n"
                                        "========== 1 failed in 0.05s ==========\n")
    repo.commit("book twice", {"pay/service.py": BOOKED_TWICE})
    with Tenure.open(repo.root, discover=False) as t:
        hooks.session_end(t, event)
        (test,) = _session_evidence(t, "Settlement.book")["tests"]
    assert test["fqn"] == "test_twice.test_books_twice"
    assert "pay.service.Settlement.book" in test["underTest"]


def test_the_hook_records_nothing_without_an_open_session(repo: GitRepo) -> None:
    with Tenure.open(repo.root, discover=False) as t:
        said = hooks.post_tool_use(t, {"session_id": "none", "tool_name": "Bash",
                                       "tool_input": {"command": "pytest"}, "tool_response": {"stdout": PYTEST_OUT}})
    assert said == "no open tenure session for this Claude Code session: nothing recorded"
