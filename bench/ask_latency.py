"""`tenure ask` in a fresh process, as a user or an agent's hook runs it, on an indexed project.

    python bench/ask_latency.py PROJECT [--question TEXT ...] [--symbol NAME] [--tenure CMD]

PROJECT must be indexed already (`tenure index`, with its git history, so that the knowledge and
episodic stores hold something: a clone of pallets/flask). For each question: wall and CPU time
(user + system of the child: the figure a loaded machine changes least), the tokens the answer took
of its budget, how many items it holds and left out, what the question resolved to and what it
says is degraded. The baseline in the same run: the three commands an agent calls otherwise for the
symbol it resolved to (`what-breaks`, `why`, `history`), each a fresh process, their times summed.
The load average is printed: on a shared machine, read wall times beside it. Target (issue 28): under
2 s wall in a fresh process on flask.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import run, tenure_command  # noqa: E402

QUESTIONS = (
    "I am changing how url_for builds external URLs. What breaks, why is it this way, and has anyone tried this "
    "before?",
    "I want to change Flask.wsgi_app's error handling. What breaks and what happened before?",
    "What are the rules for changing the session cookie?",
)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], root: Path) -> tuple[float, float, object]:
    cpu, start = children_cpu(), time.perf_counter()
    result = run(argv, cwd=root)
    return time.perf_counter() - start, children_cpu() - cpu, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("project", type=Path)
    parser.add_argument("--question", action="append", help="A question (repeat); default: three about flask.")
    parser.add_argument("--tenure", help="The command that runs tenure (default: tenure on PATH).")
    args = parser.parse_args()
    cmd = tenure_command(args.tenure)
    root = args.project.resolve()
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    for question in args.question or QUESTIONS:
        wall, cpu, result = timed([*cmd, "ask", question, "--json", "--repo", str(root)], root)
        if result.returncode != 0:
            print(f"FAILED ({result.returncode}): {question}\n{result.stderr[-2000:]}")
            continue
        answer = json.loads(result.stdout)
        items = sum(len(s["items"]) for s in answer["sections"])
        focus = [f"{f['symbol']} ({f['tier']})" for f in answer["focus"]]
        print(f"\n{question}\n  tenure ask: {wall:.2f} s wall, {cpu:.2f} s CPU; {answer['budget']['used']:,} of "
              f"{answer['budget']['tokens']:,} tokens, {items} items, {answer['budget']['leftOut']} left out")
        print(f"  resolved ({answer['resolution']['tier']}): {', '.join(focus) or 'nothing'}; constraints: "
              f"{answer['constraints']}")
        print(f"  degraded: {answer['degraded']}")
        if not answer["focus"]:
            continue
        symbol = answer["focus"][0]["symbol"]
        total_wall = total_cpu = 0.0
        for verb in ("what-breaks", "why", "history"):
            w, c, _ = timed([*cmd, verb, symbol, "--json", "--repo", str(root)], root)
            total_wall, total_cpu = total_wall + w, total_cpu + c
        print(f"  baseline what-breaks + why + history of {symbol}, three processes: {total_wall:.2f} s wall, "
              f"{total_cpu:.2f} s CPU")


if __name__ == "__main__":
    main()
