"""What a shell command an agent ran was, and what a test runner's output said (runners.toml)."""

from __future__ import annotations

import re
import shlex
import tomllib
from functools import cache
from importlib import resources
from typing import NamedTuple

from tenure.episodic.reports.tests import TestCase, TestReport

MAX_OUTPUT = 4 << 20  # of a command's output read for test lines (a runner's summary is at its end)
_SEPARATORS = re.compile(r"\s*(?:&&|\|\||;|\||\n)\s*")


class Runner(NamedTuple):
    """A test runner: how its command line looks (compiled), and the patterns of its output (their
    sources: compiled by `_output_pattern` when an output is read, not for every shell command).
    (A named tuple: a dataclass is a hundredth of a hook's start to make, and the hook makes this one
    on every shell command the agent runs.)"""
    name: str
    command: re.Pattern[str]
    failed: str | None
    failed_summary: str | None
    passed: str | None
    any: bool = False


@cache
def _table() -> dict:
    return tomllib.loads(resources.files("tenure.episodic").joinpath("runners.toml").read_text("utf-8"))


@cache
def runners() -> tuple[Runner, ...]:
    return tuple(Runner(name, re.compile(e["command"]), e.get("failed"), e.get("failed_summary"), e.get("passed"),
                        e.get("any", False))
                 for name, e in _table().items() if name != "commands")


@cache
def _output_pattern(source: str) -> re.Pattern[str]:
    return re.compile(source, re.MULTILINE)


def runner_for(command: str) -> Runner | None:
    return next((r for r in runners() if r.command.search(command)), None)


def any_runner(name: str) -> Runner:
    """A named step whose output may hold any runner's lines (a procedure of tenure.toml)."""
    return Runner(name, re.compile(re.escape(name)), None, None, None, any=True)


def read_output(runner: Runner, output: str) -> TestReport | None:
    """The verdict a runner's output gives (failing test ids, passed count), or None when it says none
    (output cut off, a command that only looked like a test run)."""
    text = output[-MAX_OUTPUT:]
    report = TestReport("hook")
    said = False
    for r in (runners() if runner.any else (runner,)):
        if r.failed:
            for m in _output_pattern(r.failed).finditer(text):
                report.add(TestCase(m.group("id").strip(), "failed"))
                said = True
        if r.failed_summary and _output_pattern(r.failed_summary).search(text):
            report.exit_code, said = 1, True
        if r.passed and (m := _output_pattern(r.passed).search(text)):
            counted = m.groupdict().get("passed")
            report.passed = max(report.passed, int(counted) if counted else 1)
            said = True
    unique = {c.id: c for c in report.failures}
    report.failures = list(unique.values())
    return report if said else None


def shapes(command: str) -> list[str]:
    """The steps a command line runs, each as its program and the words that say what it runs:
    `cd app && make generate && python -m pytest -q tests/` -> ["make generate", "python -m pytest"]."""
    commands = _table()["commands"]
    wrappers, prefixes, ignored = set(commands["wrappers"]), set(commands["prefixes"]), set(commands["ignored"])
    out: list[str] = []
    for part in _SEPARATORS.split(command.strip()):
        try:
            words = shlex.split(part, comments=True)
        except ValueError:  # an unbalanced quote: the words as they are
            words = part.split()
        while words and (words[0] in prefixes or re.match(r"^[A-Za-z_]\w*=", words[0])):
            words = words[1:]
        if not words:
            continue
        program = words[0].rsplit("/", 1)[-1]
        if program in ignored:
            continue
        shape = [program]
        if program in wrappers or program.endswith(".py"):
            for word in words[1:]:
                if word == "-m" and len(shape) == 1:
                    shape.append(word)
                    continue
                script = len(shape) == 1 and word.endswith(".py") and "/" not in word  # python manage.py
                if word.startswith("-") or any(ch in word for ch in "/=:\\\"'") or len(shape) >= 3 or (
                        "." in word and shape[-1] != "-m" and not script):
                    break
                shape.append(word)
        out.append(" ".join(shape))
    return out
