"""Candidate rules mined from episodes, each with the episodes that count for and against it.

- ordering, "run X before Y": the test runs Y of work sessions; one that ran X before it and passed,
  or ran without X and failed, counts for the rule; one with X that failed, or without X that passed,
  against it.
- co-change, "changing A requires changing B": episodes with a deterministic verdict; one that
  changed A and B and succeeded, or changed A without B and failed, counts for it; A and B that
  failed together, or A without B that succeeded, against it.
A rule is a candidate where both kinds of evidence for it exist (the contrast is the rule) and most
of the evidence agrees; or, for co-change, where it is a habit of the history: most of the successful
changes of A changed B too, often (a module and its changelog or its tests). A habit has no failure
without it on record: it stays a candidate (promotion needs failures it explains) and says so.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from tenure.history.model import is_sweep

MIN_SUPPORT = 2  # episodes in which doing both worked
MIN_AGREEMENT = 0.6  # share of the evidence for it: below this it is noise, not a candidate
MAX_FILES = 30  # an episode changing more files than this (a merge of a long branch) says little about pairs
HABIT_SUPPORT = 8  # successful changes of A that changed B too, before co-changing is a habit ...
HABIT_SHARE = 0.75  # ... and the share of A's successful changes that did
CONTRAST, HABIT = "contrast", "habit"  # what qualified a mined rule


@dataclass(frozen=True)
class Observation:
    episode: int
    followed: bool  # the episode did what the rule says (X before Y; B with A)
    worked: bool  # and its verdict was a success
    why: str

    @property
    def counts_as(self) -> str:
        """for: did what it says and worked, or skipped it and failed; against: the other two (a change
        that skipped the rule and stood is evidence against the rule, not a failure)."""
        return "for" if self.followed == self.worked else "against"


@dataclass
class Mined:
    kind: str
    first: str
    second: str
    evidence: list[Observation] = field(default_factory=list)
    basis: str = CONTRAST

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.first}>{self.second}" if self.kind == "ordering" else \
            f"{self.kind}:{self.first}+{self.second}"

    @property
    def text(self) -> str:
        return rule_text(self.kind, self.first, self.second)

    @property
    def successes(self) -> int:
        return sum(1 for o in self.evidence if o.counts_as == "for")

    @property
    def failures(self) -> int:
        return sum(1 for o in self.evidence if o.counts_as == "against")

    @property
    def explained(self) -> int:
        """Failures of episodes that did not do what it says: what makes it a rule, not a habit."""
        return len({o.episode for o in self.evidence if not o.followed and not o.worked})


def rule_text(kind: str, first: str, second: str) -> str:
    if kind == "ordering":
        return f"Run `{first}` before `{second}`."
    return f"When you change `{first}`, change `{second}` too."


def ordering(runs: dict[int, list[tuple[str, str | None]]], only: set[tuple[str, str]] | None = None) -> list[Mined]:
    """`runs`: episode -> its steps in order (command shape, verdict of a test run or None).
    `only`: count just these (X, Y) pairs (rules someone stated), whatever their support."""
    tests: list[tuple[int, str, bool, set[str]]] = []  # (episode, Y, passed, commands before it)
    for episode, steps in runs.items():
        for i, (command, verdict) in enumerate(steps):
            if verdict in ("passed", "failed"):
                tests.append((episode, command, verdict == "passed", {c for c, _ in steps[:i]} - {command}))
    pairs = only if only is not None else {(x, y) for _, y, passed, before in tests if passed for x in before}
    found = []
    for x, y in sorted(pairs):
        rule = Mined("ordering", x, y)
        for episode, command, passed, before in tests:
            if command != y:
                continue
            with_x = x in before
            said = f"ran `{x}` before `{y}`" if with_x else f"ran `{y}` without `{x}` before it"
            rule.evidence.append(Observation(episode, with_x, passed, f"{said}: {'passed' if passed else 'failed'}"))
        if only is not None or _contrasted(rule):
            found.append(rule)
    return found


def co_change(decided: dict[int, tuple[str, str, frozenset[str]]], code: set[str],
              only: set[tuple[str, str]] | None = None) -> list[Mined]:
    """`decided`: episode -> (success | failure, the verdict, the files it changed); `code`: the files
    the index holds — a rule's A is code (an interface, a schema), its B anything (generated files)."""
    decided = {e: v for e, v in decided.items() if len(v[2]) <= MAX_FILES}
    worked: dict[str, set[int]] = defaultdict(set)  # file -> the successful episodes that changed it
    failed: dict[str, set[int]] = defaultdict(set)
    for episode, (cls, _, files) in decided.items():
        for path in files:
            (worked if cls == "success" else failed)[path].add(episode)
    pairs: set[tuple[str, str]] = set(only or ())
    habits: set[tuple[str, str]] = set()
    if only is None:
        for cls, _, files in decided.values():
            if cls == "failure":
                for a in files & code:
                    pairs |= {(a, b) for other in worked[a] for b in decided[other][2] - files}
        pairs = {(a, b) for a, b in pairs if _co_changed(worked[a], failed[a], worked[b], failed[b])}
        habits = _habits(worked, decided, code) - pairs
    found = []
    for a, b in sorted(pairs | habits):
        rule = Mined("co-change", a, b, basis=HABIT if (a, b) in habits else CONTRAST)
        for episode in sorted(worked[a] | failed[a]):
            cls, verdict, files = decided[episode]
            with_b = b in files
            rule.evidence.append(Observation(episode, with_b, cls == "success",
                                             f"changed `{a}` {'and' if with_b else 'without'} `{b}`: {verdict}"))
        if only is not None or rule.basis == HABIT or _contrasted(rule):
            found.append(rule)
    return found


def _habits(worked: dict[str, set[int]], decided: dict[int, tuple[str, str, frozenset[str]]],
            code: set[str]) -> set[tuple[str, str]]:
    """(A, B): B changed in at least HABIT_SUPPORT of the successful focused changes of A (sweeps change
    every file together), HABIT_SHARE of them."""
    found = set()
    for a in sorted(code):
        changes = {e for e in worked.get(a, ()) if not is_sweep(len(decided[e][2]), 0)}
        if len(changes) < HABIT_SUPPORT:
            continue
        together: dict[str, int] = defaultdict(int)
        for episode in changes:
            for b in decided[episode][2]:
                together[b] += 1
        found |= {(a, b) for b, n in together.items()
                  if b != a and n >= HABIT_SUPPORT and n >= HABIT_SHARE * len(changes)}
    return found


def _co_changed(worked_a: set[int], failed_a: set[int], worked_b: set[int], failed_b: set[int]) -> bool:
    """`_contrasted` by counts alone, before any evidence is built (most pairs fail it)."""
    with_b, without_b_failed = len(worked_a & worked_b), len(failed_a - failed_b)
    total = len(worked_a) + len(failed_a)
    return without_b_failed > 0 and with_b >= MIN_SUPPORT and (with_b + without_b_failed) / total >= MIN_AGREEMENT


def _contrasted(rule: Mined) -> bool:
    """Failed without it, worked with it often enough, and mostly agreed with."""
    failed_without = any(not o.followed and not o.worked for o in rule.evidence)
    worked_with = sum(1 for o in rule.evidence if o.followed and o.worked)
    total = rule.successes + rule.failures
    return failed_without and worked_with >= MIN_SUPPORT and rule.successes / total >= MIN_AGREEMENT


def what_was_read(runs: dict[int, list[tuple[str, str | None]]], decided: dict[int, tuple[str, str, frozenset[str]]],
                  found: list[Mined]) -> dict:
    """The evidence mining had, and the sentences saying which kind was missing for which rules."""
    test_runs = sum(1 for steps in runs.values() for _, verdict in steps if verdict in ("passed", "failed"))
    stood = sum(1 for cls, _, _ in decided.values() if cls == "success")
    failed = len(decided) - stood
    missing = []
    if not test_runs:
        missing.append("no work session ran tests through tenure: ordering rules (run X before Y) are learned from "
                       "test runs in sessions (the hook of `tenure setup claude`, `tenure rules run`)")
    if not failed:
        missing.append("no failed change on record (a revert, a pull request closed unmerged, a failing test run: "
                       "`tenure ci record`, `tenure pr ingest`): a co-change rule is told from a habit by the "
                       "failures of changes that skipped it")
    elif not any(m.kind == "co-change" and m.basis == CONTRAST for m in found):
        missing.append(f"{failed} failed {'change' if failed == 1 else 'changes'}, but no pair of files where "
                       f"leaving B out failed and changing it with A stood often enough ({MIN_SUPPORT} times, "
                       f"{MIN_AGREEMENT:.0%} agreeing): no co-change rule is told by a failure")
    if stood < HABIT_SUPPORT:
        missing.append(f"fewer than {HABIT_SUPPORT} changes that stood (merged, passed): no habit of changing two "
                       "files together can show")
    return {"testRuns": test_runs, "sessionsWithTests": sum(1 for steps in runs.values()
                                                             if any(v in ("passed", "failed") for _, v in steps)),
            "changesStood": stood, "changesFailed": failed, "missing": missing,
            "habit": {"support": HABIT_SUPPORT, "share": HABIT_SHARE}}
