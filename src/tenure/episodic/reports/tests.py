"""Test reports, read as untrusted input: JUnit XML (through defusedxml: a document that declares
entities is refused, so an expansion bomb is an error, not a hang), pytest's JSON report
(pytest-json-report) and report log (pytest-reportlog, JSON lines). Files are streamed; a malformed
one is reported by reason and what was read before the fault is kept."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

# The XML parsers are loaded by read_junit, the JSON stream by read_pytest_json and the languages by
# node_parts: a hook reading a runner's console output needs none of them.
if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

    from tenure.episodic.reports.jsonstream import JsonStream

MESSAGE_CHARS = 500  # of a failure's message, kept as its evidence
ID_CHARS = 1000  # of a test's id and path: longer is no test's name (a report's lie), kept cut, not whole
FAILING = ("failed", "error")
JUNIT_ROOTS = ("testsuites", "testsuite")
_PYTEST_STATUS = {"passed": "passed", "failed": "failed", "error": "error", "skipped": "skipped",
                  "xfailed": "skipped", "xpassed": "passed"}


class ReportError(ValueError):
    """The file is not a report of the kind named; nothing was read from it."""


@dataclass
class TestCase:
    """One test's verdict. (A dataclass without a docstring has its signature made one, by inspect:
    a fifth of what making it costs, which a hook pays on every test run it reads.)"""

    id: str  # as the runner names it: `tests/test_x.py::TestA::test_b`, `com.acme.FooTest.testB`
    status: str  # passed | failed | error | skipped
    message: str = ""
    path: str = ""  # the test's file, where the report says


@dataclass
class TestReport:
    """What a report, or a runner's output, says of a test run."""

    source: str  # junit | pytest-json | pytest-reportlog | exit-code | hook
    failures: list[TestCase] = field(default_factory=list)  # failed and erroring tests (passing ones are counted)
    passed: int = 0
    skipped: int = 0
    exit_code: int | None = None
    problems: list[str] = field(default_factory=list)  # why the report may be incomplete

    @property
    def failed(self) -> int:
        return len(self.failures)

    @property
    def verdict(self) -> str:
        if self.failures or (self.exit_code not in (None, 0)):
            return "failed"
        if self.problems:
            return "incomplete"  # what could be read passed; the rest could not be read
        return "passed" if self.passed or self.exit_code == 0 else "no tests"

    def add(self, case: TestCase) -> None:
        if case.status in FAILING:
            case.message = case.message[:MESSAGE_CHARS]
            case.id, case.path = case.id[:ID_CHARS], case.path[:ID_CHARS]
            self.failures.append(case)
        elif case.status == "passed":
            self.passed += 1
        else:
            self.skipped += 1


def read_junit(path: Path) -> TestReport:
    from xml.etree.ElementTree import ParseError

    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import iterparse

    report = TestReport("junit")
    nameless, rooted = 0, False
    try:
        for event, element in iterparse(str(path), events=("start", "end")):
            if event == "start":
                if not rooted and element.tag not in JUNIT_ROOTS:
                    raise ReportError(f"{path} is not a JUnit report: its root element is <{element.tag}>, not "
                                      f"<{'> or <'.join(JUNIT_ROOTS)}>")
                rooted = True
                continue
            if element.tag == "testcase":
                case = _junit_case(element)
                if case.id:
                    report.add(case)
                else:  # a test no runner names is no test's verdict
                    nameless += 1
                element.clear()  # (a report of a million tests streams through)
    except DefusedXmlException as exc:
        report.problems.append(f"refused: the report declares XML entities or external references ({exc}); an "
                               "entity-expansion bomb is never expanded")
    except ParseError as exc:
        line, column = exc.position
        report.problems.append(f"malformed XML at line {line}, column {column}: {str(exc).split(':')[0]} (what was "
                               "read before it is kept)")
    except OSError as exc:
        raise ReportError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if nameless:
        report.problems.append(f"{nameless} <testcase> without a name skipped: no runner reports a test so")
    if not (report.failures or report.passed or report.skipped or report.problems):
        report.problems.append("no <testcase> in it: is it a JUnit report?")
    return report


def _junit_case(element: Element) -> TestCase:
    classname, name = element.get("classname", ""), element.get("name", "")
    case = TestCase(f"{classname}.{name}" if classname else name, "passed", path=element.get("file", ""))
    for child in element:
        if child.tag in ("failure", "error"):
            case.status = "failed" if child.tag == "failure" else "error"
            case.message = (child.get("message") or child.text or "").strip()
            break
        if child.tag == "skipped":
            case.status = "skipped"
    return case


def read_pytest_json(path: Path) -> TestReport:
    """pytest-json-report's object ({"exitcode", "tests": [...]}), or pytest-reportlog's JSON lines."""
    from tenure.episodic.reports.jsonstream import JSONProblem, JsonStream

    try:
        with open(path, encoding="utf-8", errors="replace") as source:
            stream = JsonStream(source)
            if stream.peek() != "{":
                raise ReportError(f"{path} is not a pytest JSON report: it does not start with an object")
            if _is_reportlog(path):
                return _reportlog(stream)
            report = TestReport("pytest-json")
            try:
                for key in stream.members():
                    if key == "tests":
                        for n, test in enumerate(stream.array(), 1):
                            case = _pytest_case(test)
                            if isinstance(case, str):
                                report.problems.append(f"tests entry {n} skipped: {case}")
                            else:
                                report.add(case)
                    elif key == "exitcode":
                        code = stream.value()
                        report.exit_code = code if isinstance(code, int) else None
                    else:
                        stream.value()
            except JSONProblem as exc:
                report.problems.append(f"{exc} (what was read before it is kept)")
            return report
    except OSError as exc:
        raise ReportError(f"cannot read {path}: {exc.strerror or exc}") from exc


def _is_reportlog(path: Path) -> bool:
    """A report log's first line is a whole object naming its type (`$report_type`)."""
    with open(path, encoding="utf-8", errors="replace") as source:
        return '"$report_type"' in source.readline(1 << 16)


def _reportlog(stream: JsonStream) -> TestReport:
    from tenure.episodic.reports.jsonstream import JSONProblem, TooDeep

    report = TestReport("pytest-reportlog")
    outcomes: dict[str, TestCase] = {}
    try:
        for event in stream.values():
            if isinstance(event, TooDeep):
                report.problems.append(f"{event}: skipped")
            _reportlog_event(event, outcomes, report)
    except JSONProblem as exc:
        report.problems.append(f"{exc} (what was read before it is kept)")
    for case in outcomes.values():
        report.add(case)
    return report


def _reportlog_event(event: object, outcomes: dict[str, TestCase], report: TestReport) -> None:
    if not isinstance(event, dict):
        return
    if event.get("$report_type") == "SessionFinish" and isinstance(event.get("exitstatus"), int):
        report.exit_code = event["exitstatus"]
    if event.get("$report_type") != "TestReport" or not isinstance(event.get("nodeid"), str):
        return
    status = _PYTEST_STATUS.get(str(event.get("outcome")), "error")
    if event.get("when") != "call" and status == "failed":
        status = "error"  # a setup or teardown failure
    case = outcomes.setdefault(event["nodeid"], TestCase(event["nodeid"], "passed"))
    if case.status not in FAILING and (status in FAILING or event.get("when") == "call" or status == "skipped"):
        case.status = status
        case.message = _longrepr(event.get("longrepr"))


def _pytest_case(test: object) -> TestCase | str:
    """The test an entry reports, or why it reports none (a malformed entry is no test's verdict)."""
    from tenure.episodic.reports.jsonstream import TooDeep

    if isinstance(test, TooDeep):
        return str(test)
    if not isinstance(test, dict) or not isinstance(test.get("nodeid"), str) or not test["nodeid"]:
        return f"not a test (no node id): {_shown(test)}"
    status = _PYTEST_STATUS.get(str(test.get("outcome")), "error")
    message = ""
    for phase in ("setup", "call", "teardown"):
        part = test.get(phase)
        if isinstance(part, dict) and part.get("outcome") == "failed":
            message = _longrepr(part.get("longrepr") or part.get("crash", {}).get("message"))
            if phase != "call":
                status = "error"
            break
    return TestCase(test["nodeid"], status, message)


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _longrepr(value: object) -> str:
    if isinstance(value, dict):
        value = value.get("reprcrash", {}).get("message") if isinstance(value.get("reprcrash"), dict) else str(value)
    return str(value or "").strip()[:MESSAGE_CHARS]


_NODE = re.compile(r"^(?P<path>[^:\[]+\.\w+)(?:::(?P<names>[^\[]+))?")


def node_parts(test_id: str) -> tuple[str, list[str]]:
    """A pytest node id's file and names (parameters dropped): `tests/t.py::TestA::test_b[1]` ->
    (`tests/t.py`, [`TestA`, `test_b`]); ("", [...]) for a JUnit class.name id."""
    from tenure.structural.languages import language_for

    m = _NODE.match(test_id)
    if m and ("::" in test_id or language_for(m.group("path")) is not None):
        return m.group("path"), [n for n in (m.group("names") or "").split("::") if n]
    name = test_id.split("[", 1)[0].rstrip("()")
    return "", [p for p in re.split(r"[.#]", name) if p]


def exit_report(exit_code: int, failed: list[str]) -> TestReport:
    """What a command's exit status and the failing test ids it printed say."""
    report = TestReport("exit-code", exit_code=exit_code)
    for test_id in dict.fromkeys(failed):
        report.add(TestCase(test_id, "failed"))
    return report
