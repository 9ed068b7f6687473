"""Reports and exports are untrusted input: read streaming, a bomb refused, a malformed one reported by
reason with what was read before it kept."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tenure.episodic.reports.github import read_pull_requests
from tenure.episodic.reports.tests import ReportError, node_parts, read_junit, read_pytest_json
from tenure.episodic.testruns import read_output, runner_for, shapes

pytestmark = pytest.mark.usefixtures("shared_stores")  # each test on SQLite and on PostgreSQL

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="4" failures="1" errors="1" skipped="1">
  <testcase classname="tests.test_pay" name="test_retry" file="tests/test_pay.py" time="0.01"/>
  <testcase classname="tests.test_pay" name="test_book[twice]" time="0.01">
    <failure message="assert 1 == 2">Traceback …</failure></testcase>
  <testcase classname="tests.test_pay.TestRefund" name="test_refund"><error message="fixture db failed"/></testcase>
  <testcase classname="tests.test_pay" name="test_later"><skipped message="later"/></testcase>
</testsuite></testsuites>
"""

BOMB = """<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
<!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">]>
<testsuite><testcase classname="a" name="b"><failure message="&lol9;"/></testcase></testsuite>
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_junit_report_gives_its_failures_and_counts(tmp_path: Path) -> None:
    report = read_junit(write(tmp_path, "junit.xml", JUNIT))
    assert (report.passed, report.failed, report.skipped, report.verdict) == (1, 2, 1, "failed")
    assert [(c.id, c.status, c.message) for c in report.failures] == [
        ("tests.test_pay.test_book[twice]", "failed", "assert 1 == 2"),
        ("tests.test_pay.TestRefund.test_refund", "error", "fixture db failed")]
    assert report.problems == []


def test_an_entity_expansion_bomb_is_refused_not_expanded(tmp_path: Path) -> None:
    started = time.perf_counter()
    report = read_junit(write(tmp_path, "bomb.xml", BOMB))
    assert time.perf_counter() - started < 5  # (a generous bound: expanding it would take minutes or memory)
    assert report.failures == [] and report.passed == 0
    assert "refused: the report declares XML entities" in report.problems[0]


def test_malformed_xml_is_reported_by_reason_and_what_was_read_is_kept(tmp_path: Path) -> None:
    cut = JUNIT[:JUNIT.index('<testcase classname="tests.test_pay.TestRefund"')] + "<testcase classname=broken"
    report = read_junit(write(tmp_path, "cut.xml", cut))
    assert report.passed == 1 and [c.id for c in report.failures] == ["tests.test_pay.test_book[twice]"]
    assert report.problems[0].startswith("malformed XML at line 6, column 22")


def test_a_file_that_is_not_junit_says_so(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="its root element is <html>"):
        read_junit(write(tmp_path, "x.xml", "<html><body/></html>"))
    assert read_junit(write(tmp_path, "x.xml", "<testsuites/>")).problems == [
        "no <testcase> in it: is it a JUnit report?"]
    with pytest.raises(ReportError):
        read_junit(tmp_path / "missing.xml")


def test_a_large_junit_report_streams_through(tmp_path: Path) -> None:
    path = tmp_path / "big.xml"
    with path.open("w") as out:
        out.write("<testsuite>")
        for n in range(100_000):
            out.write(f'<testcase classname="tests.test_big" name="test_{n}"/>')
        out.write('<testcase classname="tests.test_big" name="test_last"><failure message="no"/></testcase>')
        out.write("</testsuite>")
    report = read_junit(path)
    assert report.passed == 100_000 and [c.id for c in report.failures] == ["tests.test_big.test_last"]


def pytest_json(tests: list[dict], exitcode: int = 1) -> str:
    return json.dumps({"created": 1.0, "duration": 0.5, "exitcode": exitcode, "root": "/repo",
                       "summary": {"passed": 1, "failed": 1, "total": 2}, "tests": tests})


def test_a_pytest_json_report_gives_node_ids_and_phases(tmp_path: Path) -> None:
    text = pytest_json([
        {"nodeid": "tests/test_pay.py::test_retry", "outcome": "passed"},
        {"nodeid": "tests/test_pay.py::TestBook::test_twice[1]", "outcome": "failed",
         "call": {"outcome": "failed", "longrepr": "AssertionError: booked once"}},
        {"nodeid": "tests/test_pay.py::test_db", "outcome": "error",
         "setup": {"outcome": "failed", "longrepr": "fixture 'db' not found"}},
    ])
    report = read_pytest_json(write(tmp_path, "report.json", text))
    assert report.exit_code == 1 and report.passed == 1
    assert [(c.id, c.status, c.message) for c in report.failures] == [
        ("tests/test_pay.py::TestBook::test_twice[1]", "failed", "AssertionError: booked once"),
        ("tests/test_pay.py::test_db", "error", "fixture 'db' not found")]


def test_a_truncated_pytest_json_report_keeps_the_tests_before_the_cut(tmp_path: Path) -> None:
    text = pytest_json([{"nodeid": f"tests/test_x.py::test_{n}", "outcome": "failed"} for n in range(3)])
    cut = text[:text.index("test_2") - 20]
    report = read_pytest_json(write(tmp_path, "cut.json", cut))
    assert [c.id for c in report.failures] == ["tests/test_x.py::test_0", "tests/test_x.py::test_1"]
    assert report.problems and report.problems[0].startswith("malformed JSON at character")


def test_a_pytest_report_log_is_read_line_by_line(tmp_path: Path) -> None:
    lines = [{"$report_type": "SessionStart", "pytest_version": "8.0"},
             {"$report_type": "TestReport", "nodeid": "tests/test_a.py::test_ok", "when": "call", "outcome": "passed"},
             {"$report_type": "TestReport", "nodeid": "tests/test_a.py::test_bad", "when": "call", "outcome": "failed",
              "longrepr": {"reprcrash": {"message": "assert 0"}}},
             {"$report_type": "TestReport", "nodeid": "tests/test_a.py::test_env", "when": "setup",
              "outcome": "failed", "longrepr": "no env"},
             {"$report_type": "SessionFinish", "exitstatus": 1}]
    report = read_pytest_json(write(tmp_path, "log.jsonl", "\n".join(json.dumps(x) for x in lines) + "\n"))
    assert report.source == "pytest-reportlog" and report.exit_code == 1 and report.passed == 1
    assert [(c.id, c.status, c.message) for c in report.failures] == [
        ("tests/test_a.py::test_bad", "failed", "assert 0"), ("tests/test_a.py::test_env", "error", "no env")]


def test_node_ids_split_into_file_and_names() -> None:
    assert node_parts("tests/test_pay.py::TestBook::test_twice[1-2]") == ("tests/test_pay.py",
                                                                          ["TestBook", "test_twice"])
    assert node_parts("com.acme.PayTest.testRetry") == ("", ["com", "acme", "PayTest", "testRetry"])


PULLS = [
    {"number": 7, "title": "Retry settlements", "state": "MERGED", "author": {"login": "ada"},
     "createdAt": "2026-01-02T10:00:00Z", "mergedAt": "2026-01-03T10:00:00Z", "mergeCommit": {"oid": "a" * 40},
     "commits": [{"oid": "b" * 40}], "files": [{"path": "pay/service.py"}], "url": "https://x/pull/7",
     "reviews": [{"author": {"login": "bob"}, "state": "CHANGES_REQUESTED", "body": "regenerate the mappers",
                  "submittedAt": "2026-01-02T12:00:00Z"},
                 {"author": {"login": "bob"}, "state": "APPROVED", "body": "", "submittedAt": "2026-01-03T09:00:00Z"}]},
    {"number": 8, "title": "Skip validation", "state": "CLOSED", "author": {"login": "eve"},
     "createdAt": "2026-01-04T10:00:00Z", "closedAt": "2026-01-05T10:00:00Z", "files": [{"path": "pay/service.py"}]},
]


def test_a_github_cli_export_gives_pull_requests_and_their_reviews(tmp_path: Path) -> None:
    export = read_pull_requests(write(tmp_path, "prs.json", json.dumps(PULLS)))
    merged, closed = export.pulls
    assert (merged.state, merged.merge_commit, merged.commits, merged.files) == (
        "merged", "a" * 40, ["b" * 40], ["pay/service.py"])
    assert [(r.author, r.state, r.body) for r in merged.reviews] == [
        ("human/bob", "CHANGES_REQUESTED", "regenerate the mappers"), ("human/bob", "APPROVED", "")]
    assert (closed.state, closed.ended_at) == ("closed", "2026-01-05T10:00:00+00:00")
    single = read_pull_requests(write(tmp_path, "one.json", json.dumps(PULLS[1])))
    lines = read_pull_requests(write(tmp_path, "prs.jsonl", "\n".join(json.dumps(p) for p in PULLS)))
    assert [p.number for p in single.pulls] == [8] and [p.number for p in lines.pulls] == [7, 8]


def test_a_bad_entry_is_reported_and_the_others_kept(tmp_path: Path) -> None:
    text = json.dumps([PULLS[0], {"title": "no number"}, "junk", PULLS[1]])
    export = read_pull_requests(write(tmp_path, "prs.json", text))
    assert [p.number for p in export.pulls] == [7, 8]
    assert export.problems == ["entry 2: no pull request number", "entry 3: not an object"]
    cut = read_pull_requests(write(tmp_path, "cut.json", text[:len(json.dumps(PULLS[0])) + 20]))
    assert [p.number for p in cut.pulls] == [7] and "1 pull requests read before it are kept" in cut.problems[-1]
    with pytest.raises(ReportError):
        read_pull_requests(write(tmp_path, "not.json", "hello"))


def test_test_runner_output_gives_a_verdict() -> None:
    pytest_out = "..F\nFAILED tests/test_a.py::test_b - assert 1 == 2\n==== 1 failed, 2 passed in 0.12s ====\n"
    report = read_output(runner_for("python -m pytest -q"), pytest_out)
    assert report is not None and report.verdict == "failed" and [c.id for c in report.failures] == [
        "tests/test_a.py::test_b"]
    passed = read_output(runner_for("pytest"), "===== 12 passed in 0.50s =====")
    assert passed is not None and (passed.verdict, passed.passed) == ("passed", 12)
    go = read_output(runner_for("go test ./..."), "--- FAIL: TestRetry (0.00s)\nFAIL\tpay\t0.01s\n")
    assert go is not None and [c.id for c in go.failures] == ["TestRetry"]
    assert read_output(runner_for("pytest"), "collecting ...") is None  # cut off: says nothing
    assert runner_for("git status") is None


def test_a_command_line_is_kept_as_its_steps_shapes_never_its_arguments() -> None:
    assert shapes("cd app && TOKEN=s3cret make generate && python -m pytest -q tests/ -k 'pay'") == [
        "make generate", "python -m pytest"]
    assert shapes("npm run build; ./gradlew test --info") == ["npm run build", "gradlew test"]
    assert shapes("curl -H 'Authorization: Bearer abc' https://x") == ["curl"]


def test_a_test_id_longer_than_any_tests_name_is_kept_cut_not_whole() -> None:
    from tenure.episodic.reports.tests import ID_CHARS

    huge = "tests/test_a.py::test_" + "x" * 200_000
    report = read_output(runner_for("pytest"), f"FAILED {huge} - boom\n1 failed in 0.1s\n")
    [case] = report.failures
    assert case.id == huge[:ID_CHARS] and report.verdict == "failed"
