"""The MCP server's first answers: how long `tenure serve` takes to be ready, and its first tool calls.

    python bench/mcp_first_call.py PROJECT [--symbol NAME ...] [--runs 3] [--tenure CMD]

PROJECT must be indexed already. For each run a fresh `tenure serve` over stdio is started with the
SDK's client and timed: process start -> `initialize` answered ("ready"), then the first `what_breaks`
of each symbol right after, then each again (warm). The answer's size is printed too (an agent reads
it into its context). An agent's client gives up after seconds; the issue's targets are ready under
1 s and the first call within 0.2 s of `initialize`. The floor printed beside: a bare interpreter's
start in the same minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import tenure_command  # noqa: E402


async def one_run(cmd: list[str], root: Path, symbols: list[str]) -> dict:
    params = StdioServerParameters(command=cmd[0], args=[*cmd[1:], "serve", "--repo", str(root)],
                                   env={**os.environ}, cwd=str(root))
    start = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        ready = time.perf_counter() - start
        calls = []
        for warm in (False, True):
            for symbol in symbols:
                before = time.perf_counter()
                result = await session.call_tool("what_breaks", {"symbol": symbol})
                size = len(result.content[0].text.encode()) if result.content else 0
                calls.append({"symbol": symbol, "warm": warm, "s": time.perf_counter() - before, "bytes": size,
                              "error": bool(result.is_error)})
    return {"ready_s": ready, "calls": calls}


def bare_start() -> float:
    before = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("project", type=Path)
    parser.add_argument("--symbol", action="append",
                        help="Symbols to ask (default: flask.helpers.url_for and Flask.wsgi_app).")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tenure", help="The command that runs tenure (default: tenure on PATH).")
    args = parser.parse_args()
    cmd, symbols = tenure_command(args.tenure), args.symbol or ["flask.helpers.url_for", "Flask.wsgi_app"]
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}; bare interpreter start "
          f"{min(bare_start() for _ in range(3)) * 1000:.0f} ms")
    for n in range(args.runs):
        r = anyio.run(one_run, cmd, args.project.resolve(), symbols)
        first = [c for c in r["calls"] if not c["warm"]]
        warm = [c for c in r["calls"] if c["warm"]]
        print(f"run {n + 1}: ready {r['ready_s']:.2f} s; first calls "
              + ", ".join(f"{c['symbol']} {c['s'] * 1000:.0f} ms ({c['bytes'] / 1024:.1f} KB)" for c in first)
              + "; warm " + ", ".join(f"{c['s'] * 1000:.0f} ms" for c in warm)
              + (" ERRORS: " + json.dumps([c for c in r["calls"] if c["error"]]) if any(c["error"] for c in
                                                                                    r["calls"]) else ""))


if __name__ == "__main__":
    main()
