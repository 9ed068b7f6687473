"""The first briefing after an index: `tenure brief --task` and the MCP `session_start`, timed.

    python bench/first_briefing.py PROJECT [--task TEXT] [--no-wait]

An agent's client gives up after seconds, so the first call after `tenure index` must answer fast
(SPEC: interactive calls answer fast, first call included). PROJECT is copied to a temporary
directory and indexed there (`tenure index`, language servers off); then, at once:

- `tenure brief --task TEXT --json` in a new process: wall time and CPU time (user + system: the
  figure a loaded machine changes least);
- `tenure serve` over stdio with the SDK's client: the server's start, then its first
  `session_start` (which returns the briefing) and a second one (`--mcp-first`: before the CLI's);

and the same again once the background backfill the index started has finished (unless
`--no-wait`). Whether the briefing read the meaning of every element is printed beside each
figure (`elementsUnembedded`, when the tenure under test reports it). The load average is printed
too: on a shared machine, read wall times beside it.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import run, tenure_command  # noqa: E402

# bench/common.py turns the detached embedding off for every other benchmark; this one measures it.
os.environ["TENURE_EMBED_BACKGROUND"] = "on"

TASK = "add a new config option for the session cookie"
LOCK = ".tenure/embed.lock"  # held by the background backfill while it runs


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def brief(cmd: list[str], root: Path, task: str) -> dict:
    cpu, start = children_cpu(), time.perf_counter()
    result = run([*cmd, "brief", "--task", task, "--json", "--repo", str(root)], cwd=root)
    wall = time.perf_counter() - start
    out = json.loads(result.stdout) if result.returncode == 0 else {}
    return {"wall_s": wall, "cpu_s": children_cpu() - cpu, "unembedded": out.get("elementsUnembedded"),
            "ok": result.returncode == 0}


async def mcp_session_starts(cmd: list[str], root: Path, task: str) -> dict:
    params = StdioServerParameters(command=cmd[0], args=[*cmd[1:], "serve", "--repo", str(root)],
                                   env={**os.environ}, cwd=str(root))
    start = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        ready = time.perf_counter()
        timings = []
        for _ in range(2):
            before = time.perf_counter()
            result = await session.call_tool("session_start", {"agent": "bench", "task": task})
            timings.append(time.perf_counter() - before)
        content = result.structured_content or {}
    return {"server_start_s": ready - start, "first_s": timings[0], "second_s": timings[1],
            "error": bool(result.is_error), "briefing_says": content.get("briefing", "").strip().splitlines()[-1:]}


def background_running(root: Path) -> bool:
    lock = root / LOCK
    if not lock.exists():
        return False
    with open(lock, "a+") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(f, fcntl.LOCK_UN)
    return False


def measure(cmd: list[str], root: Path, task: str, label: str, mcp_first: bool) -> None:
    print(f"-- {label} (load average {' '.join(f'{x:.1f}' for x in os.getloadavg())})")
    for step in ("mcp", "cli") if mcp_first else ("cli", "mcp"):
        if step == "cli":
            b = brief(cmd, root, task)
            print(f"   tenure brief --task: {b['wall_s']:.2f} s wall, {b['cpu_s']:.2f} s CPU; "
                  f"elements not embedded: {b['unembedded']}{'' if b['ok'] else ' (FAILED)'}")
        else:
            m = anyio.run(mcp_session_starts, cmd, root, task)
            print(f"   MCP: server start {m['server_start_s']:.2f} s; first session_start {m['first_s']:.2f} s, "
                  f"second {m['second_s']:.2f} s{' (ERROR)' if m['error'] else ''}; {m['briefing_says']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("project", type=Path)
    parser.add_argument("--task", default=TASK)
    parser.add_argument("--no-wait", action="store_true", help="Do not wait for the background backfill.")
    parser.add_argument("--mcp-first", action="store_true",
                        help="The MCP session_start first (the first call after the index), then the CLI.")
    parser.add_argument("--tenure", help="The command that runs tenure (default: tenure on PATH).")
    args = parser.parse_args()
    cmd = tenure_command(args.tenure)
    with tempfile.TemporaryDirectory(prefix="first-briefing-") as tmp:
        root = Path(tmp) / args.project.resolve().name
        shutil.copytree(args.project, root, symlinks=True, ignore=shutil.ignore_patterns(".tenure"))
        start = time.perf_counter()
        indexed = run([*cmd, "index", str(root)], cwd=root, timeout=3600)
        print(f"tenure index: {time.perf_counter() - start:.1f} s wall; {indexed.stdout.strip().splitlines()[-1:]}")
        measure(cmd, root, args.task, "right after the index", args.mcp_first)
        if args.no_wait:
            return
        waited = time.perf_counter()
        while background_running(root):
            time.sleep(2)
        log = (root / ".tenure" / "embed.log")
        print(f"background backfill finished {time.perf_counter() - waited:.0f} s after the first calls "
              f"({time.perf_counter() - start:.0f} s after the index started); it says: "
              f"{log.read_text().strip().splitlines()[-1:] if log.exists() else 'no log: it never ran'}")
        measure(cmd, root, args.task, "after the background backfill", args.mcp_first)


if __name__ == "__main__":
    main()
