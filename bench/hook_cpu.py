"""CPU of `tenure hook post-tool-use`, which Claude Code runs after every shell command the agent
runs (issue 32.5: under 150 ms of CPU at low load), beside a bare interpreter's start and, with
--baseline, another build's, alternating.

    python bench/hook_cpu.py PROJECT [--runs 7] [--tenure CMD] [--baseline CMD [--baseline-project DIR]]
                             [--importtime]

PROJECT must be indexed. A work session is opened once with `tenure hook session-start` (as Claude
Code does) and closed at the end with `session-end`. Cases, each a fresh process fed the event on
stdin: another tool than Bash; a shell command without an open session; a shell command recorded into
the open session (`git status`); a test run recorded with its verdict (pytest's summary with a
failure). Printed: median and min CPU (user + system of the process tree) and wall per case.
Compile both builds' bytecode first (`python -m compileall -q src`) when PYTHONDONTWRITEBYTECODE is
set: else every run compiles the modules it imports.
--importtime prints the slowest imports (`python -X importtime`, cumulative) of the two recording cases:
each module's least over --runs runs, alternating (one run's figures are mostly the machine's load).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shlex
import subprocess
import sys
import time
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import print_table, tenure_command  # noqa: E402
from mcp_clients import add_baseline_options  # noqa: E402

SESSION = "bench-hook-cpu"
PYTEST_OUTPUT = ("============ test session starts ============\ncollected 3 items\n\ntests/test_a.py ..F\n\n"
                 "FAILED tests/test_a.py::test_three - AssertionError\n======= 1 failed, 2 passed in 0.12s =======\n")


def event(root: Path, tool: str, command: str | None = None, output: str = "", session: str = SESSION) -> dict:
    payload = {"session_id": session, "cwd": str(root), "hook_event_name": "PostToolUse", "tool_name": tool}
    if command is not None:
        payload |= {"tool_input": {"command": command}, "tool_response": {"stdout": output, "stderr": ""}}
    else:
        payload |= {"tool_input": {"file_path": str(root / "README.md")}, "tool_response": {}}
    return payload


def timed(argv: list[str], stdin: str, env: dict | None = None) -> tuple[float, float, str]:
    """(CPU seconds of the process tree, wall seconds, stderr)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return cpu, wall, done.stderr.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("project", type=Path)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--tenure", help="The command that runs tenure (default: tenure on PATH).")
    add_baseline_options(parser)
    parser.add_argument("--importtime", action="store_true")
    args = parser.parse_args()
    builds = {"tenure": (tenure_command(args.tenure), args.project.resolve())}
    if args.baseline:
        builds["baseline"] = shlex.split(args.baseline), (args.baseline_project or args.project).resolve()
    for cmd, root in builds.values():
        start = dict(event(root, "Bash", "true"), hook_event_name="SessionStart")
        subprocess.run([*cmd, "hook", "session-start"], input=json.dumps(start), capture_output=True, text=True,
                       check=True)
    cases = {label: {
        "not a shell command": event(root, "Read"),
        "shell, no session": event(root, "Bash", "git status", session="no-such-session"),
        "shell, recorded": event(root, "Bash", "git status", "On branch main\nnothing to commit\n"),
        "test run, recorded": event(root, "Bash", "python -m pytest -q tests/test_a.py", PYTEST_OUTPUT),
    } for label, (_, root) in builds.items()}
    figures: dict[tuple[str, str], list[tuple[float, float]]] = {}
    said: dict[str, str] = {}
    imports: dict[str, list[tuple[float, str]]] = {}
    floor = [timed([sys.executable, "-c", "pass"], "")[:2] for _ in range(args.runs)]
    load = os.getloadavg()[0]
    try:
        for _ in range(args.runs):
            for case in cases["tenure"]:
                for label, (cmd, _) in builds.items():
                    cpu, wall, stderr = timed([*cmd, "hook", "post-tool-use"], json.dumps(cases[label][case]))
                    figures.setdefault((case, label), []).append((cpu, wall))
                    said[case] = stderr.splitlines()[-1] if stderr else ""
        if args.importtime:  # (while the session is open)
            for case in ("shell, recorded", "test run, recorded"):
                runs: dict[str, list[str]] = {}
                for _ in range(args.runs):
                    for label, (cmd, _) in builds.items():
                        _, _, stderr = timed([*cmd, "hook", "post-tool-use"], json.dumps(cases[label][case]),
                                             env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"})
                        runs.setdefault(label, []).append(stderr)
                for label, stderrs in runs.items():
                    imports[f"{label}, {case}"] = _top_imports(stderrs)
    finally:
        for cmd, root in builds.values():
            end = dict(event(root, "Bash", "true"), hook_event_name="SessionEnd")
            subprocess.run([*cmd, "hook", "session-end"], input=json.dumps(end), capture_output=True, text=True)
    rows = [["bare interpreter", "", f"{median(c for c, _ in floor) * 1000:.0f}",
             f"{min(c for c, _ in floor) * 1000:.0f}", f"{median(w for _, w in floor) * 1000:.0f}", ""]]
    for (case, label), runs in figures.items():
        rows.append([case, label, f"{median(c for c, _ in runs) * 1000:.0f}", f"{min(c for c, _ in runs) * 1000:.0f}",
                     f"{median(w for _, w in runs) * 1000:.0f}", said[case][:60]])
    print_table(f"tenure hook post-tool-use, {args.runs} runs each, alternating (load {load:.1f} -> "
                f"{os.getloadavg()[0]:.1f})", ["case", "build", "CPU ms p50", "CPU ms min", "wall ms p50", "it said"],
                rows)
    for label, top in imports.items():
        print(f"\n{label}: slowest imports (cumulative ms, least of {args.runs} runs; top level, next level indented)")
        for ms, name in top:
            print(f"  {ms:7.1f}  {name}")


def _top_imports(stderrs: list[str], shown: int = 14) -> list[tuple[float, str]]:
    """Each module's least cumulative import time over the runs (top-level modules and the ones they
    import directly, indented), slowest first; the sum of the top-level ones first."""
    least: dict[str, float] = {}
    for stderr in stderrs:
        for line in stderr.splitlines():
            m = re.match(r"import time:\s+\d+ \|\s+(\d+) \|( *)(\S+)", line)
            if m and len(m.group(2)) in (1, 3):
                name = ("  " if len(m.group(2)) == 3 else "") + m.group(3)
                least[name] = min(least.get(name, float("inf")), int(m.group(1)) / 1000)
    total = sum(ms for name, ms in least.items() if not name.startswith(" "))
    return [(total, "(all top-level imports)"), *sorted(((ms, n) for n, ms in least.items()), reverse=True)[:shown]]


if __name__ == "__main__":
    main()
