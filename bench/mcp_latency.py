"""Warm caller queries through MCP: tenure's `what_breaks` against codebase-memory-mcp's `trace_path`
(inbound, depth 1) on the same symbols, both servers driven over stdio by the SDK's client, alternating.

    python bench/mcp_latency.py PROJECT --peer BIN --peer-root DIR [--peer-cache DIR] [--symbols 50]
                                [--rounds 3] [--seed 0] [--tenure CMD] [--json-out FILE]

PROJECT is indexed by tenure; the peer has indexed DIR (the same files: only `.py`/`.js` for the peer
built here, see /work/shared/peers/README.md) into --peer-cache. Symbols: Python functions and methods
under `django/` (--prefix) with call edges in tenure's index, QuerySet.filter and Model.save first, the
rest drawn seeded; one is kept when both servers name at least one caller (asked once, untimed: that
also warms both). Then every symbol is asked `--rounds` times of each server, the two alternating
(which goes first swaps per symbol), and each call timed at the client from request to parsed result.
Printed: p50/p95/max per server, the answers' sizes, each server's CPU over the timed calls, the load
average, and the slowest calls. The issue's target: tenure no slower than the peer at p50 and at p95.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
from mcp import ClientSession
from mcp.client.stdio import stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import percentile, print_table, tenure_command, write_json  # noqa: E402
from mcp_clients import (  # noqa: E402
    Answer,
    called_symbols,
    child_pids,
    peer_callers,
    peer_params,
    peer_project,
    process_cpu,
    tenure_callers,
    tenure_params,
)

FIRST = ("django.db.models.query.QuerySet.filter", "django.db.models.base.Model.save")


async def run(args: argparse.Namespace) -> dict:
    async with AsyncExitStack() as stack:
        before = child_pids()
        ours = await _session(stack, tenure_params(tenure_command(args.tenure), args.project.resolve()))
        ours_pid = (child_pids() - before).pop()
        peer = await _session(stack, peer_params(args.peer, args.peer_cache, args.peer_root.resolve()))
        peer_pid = (child_pids() - before - {ours_pid}).pop()
        project = await peer_project(peer, args.peer_root)
        symbols, skipped = await _pick(ours, peer, project, args)
        print(f"{len(symbols)} symbols both servers name callers of ({skipped} asked and dropped)", file=sys.stderr)
        load_before = os.getloadavg()
        cpu_before = process_cpu(ours_pid), process_cpu(peer_pid)
        calls: dict[str, list[tuple[str, Answer]]] = {"tenure": [], "peer": []}
        for round_ in range(args.rounds):
            for n, symbol in enumerate(symbols):
                order = ("tenure", "peer") if (n + round_) % 2 == 0 else ("peer", "tenure")
                for who in order:
                    answer = await (tenure_callers(ours, symbol) if who == "tenure" else
                                    peer_callers(peer, project, symbol))
                    calls[who].append((symbol, answer))
        cpu = process_cpu(ours_pid) - cpu_before[0], process_cpu(peer_pid) - cpu_before[1]
    return {"symbols": symbols, "calls": calls, "cpu": cpu, "load": (load_before, os.getloadavg())}


async def _session(stack: AsyncExitStack, params) -> ClientSession:
    read, write = await stack.enter_async_context(stdio_client(params))
    session = await stack.enter_async_context(ClientSession(read, write))
    await session.initialize()
    return session


async def _pick(ours: ClientSession, peer: ClientSession, project: str,
                args: argparse.Namespace) -> tuple[list[str], int]:
    candidates = called_symbols(args.project, args.prefix)
    rest = [s for s in candidates if s not in FIRST]
    random.Random(args.seed).shuffle(rest)
    kept, dropped = [], 0
    for symbol in [*FIRST, *rest]:
        if len(kept) == args.symbols:
            break
        a, b = await tenure_callers(ours, symbol), await peer_callers(peer, project, symbol)
        if a.rows and b.rows and not a.error and not b.error:
            kept.append(symbol)
        else:
            dropped += 1
    return kept, dropped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("project", type=Path)
    parser.add_argument("--peer", type=Path, required=True, help="codebase-memory-mcp's binary.")
    parser.add_argument("--peer-root", type=Path, required=True, help="The directory the peer indexed.")
    parser.add_argument("--peer-cache", type=Path, default=Path(os.environ.get("CBM_CACHE_DIR", "/tmp/cbm-cache")))
    parser.add_argument("--prefix", default="django/", help="Path prefix of the symbols asked.")
    parser.add_argument("--symbols", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tenure", help="The command that runs tenure (default: tenure on PATH).")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    r = anyio.run(run, args)
    rows, figures = [], {}
    for who, cpu in zip(("tenure", "peer"), r["cpu"], strict=True):
        seconds = [a.seconds * 1000 for _, a in r["calls"][who]]
        sizes = [a.size / 1024 for _, a in r["calls"][who]]
        figures[who] = {"p50_ms": percentile(seconds, 50), "p95_ms": percentile(seconds, 95), "max_ms": max(seconds),
                        "size_p50_kb": percentile(sizes, 50), "size_max_kb": max(sizes), "cpu_s": cpu,
                        "errors": sum(a.error for _, a in r["calls"][who])}
        f = figures[who]
        rows.append([who, f"{f['p50_ms']:.1f}", f"{f['p95_ms']:.1f}", f"{f['max_ms']:.1f}",
                     f"{f['size_p50_kb']:.1f} / {f['size_max_kb']:.1f}", f"{cpu:.2f}", f["errors"]])
    rows.append(["ratio tenure/peer", *(f"{figures['tenure'][k] / figures['peer'][k]:.2f}"
                                        for k in ("p50_ms", "p95_ms", "max_ms")), "", "", ""])
    n = len(r["calls"]["tenure"])
    print_table(f"what_breaks vs trace_path over MCP stdio: {len(r['symbols'])} symbols x {args.rounds} rounds "
                f"({n} calls each), load {r['load'][0][0]:.1f} -> {r['load'][1][0]:.1f}",
                ["server", "p50 ms", "p95 ms", "max ms", "KB p50 / max", "CPU s", "errors"], rows)
    for who in ("tenure", "peer"):
        slowest = sorted(r["calls"][who], key=lambda c: -c[1].seconds)[:5]
        print(f"{who} slowest: " + ", ".join(f"{s.rpartition('.')[0].rpartition('.')[2]}.{s.rpartition('.')[2]} "
                                             f"{a.seconds * 1000:.0f} ms ({a.rows})" for s, a in slowest))
    write_json(args.json_out, {"symbols": r["symbols"], "figures": figures, "load": r["load"]})


if __name__ == "__main__":
    main()
