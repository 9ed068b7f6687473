"""Warm caller queries through MCP: tenure's `what_breaks` against codebase-memory-mcp's `trace_path`
(inbound, depth 1) on the same symbols, both servers driven over stdio by the SDK's client, alternating.

    python bench/mcp_latency.py PROJECT --peer BIN --peer-root DIR [--peer-cache DIR] [--symbols 50]
                                [--rounds 3] [--seed 0] [--tenure CMD] [--baseline CMD [--baseline-project DIR]]
                                [--json-out FILE]

PROJECT is indexed by tenure; the peer has indexed DIR (the same files: only `.py`/`.js` for the peer
built here, see /work/shared/peers/README.md) into --peer-cache. Symbols: Python functions and methods
under `django/` (--prefix) with call edges in tenure's index, QuerySet.filter and Model.save first, the
rest drawn seeded; one is kept when both servers name at least one caller (asked once, untimed: that
also warms both). Then every symbol is asked `--rounds` times of each server, alternating (who goes
first rotates per symbol; --baseline adds another build as a third server), and each call timed at
the client from request to parsed result.
Printed: p50/p95/max per server, the answers' sizes, each server's CPU over the timed calls, the load
average, and the slowest calls. The issue's target: tenure no slower than the peer at p50 and at p95.
"""

from __future__ import annotations

import argparse
import os
import random
import shlex
import sys
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
from mcp import ClientSession
from mcp.client.stdio import stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mcp_clients as clients  # noqa: E402
from common import percentile, print_table, tenure_command, write_json  # noqa: E402

FIRST = ("django.db.models.query.QuerySet.filter", "django.db.models.base.Model.save")


async def run(args: argparse.Namespace) -> dict:
    async with AsyncExitStack() as stack:
        sessions: dict[str, tuple[ClientSession, int]] = {}
        builds = {"tenure": (tenure_command(args.tenure), args.project)}
        if args.baseline:
            builds["baseline"] = shlex.split(args.baseline), args.baseline_project or args.project
        servers = [(label, clients.tenure_params(cmd, root.resolve())) for label, (cmd, root) in builds.items()]
        servers.append(("peer", clients.peer_params(args.peer, args.peer_cache, args.peer_root.resolve())))
        for label, params in servers:
            before = clients.child_pids()
            sessions[label] = await _session(stack, params), (clients.child_pids() - before).pop()
        peer = sessions["peer"][0]
        project = await clients.peer_project(peer, args.peer_root)
        symbols, skipped = await _pick(sessions["tenure"][0], peer, project, args)
        print(f"{len(symbols)} symbols both servers name callers of ({skipped} asked and dropped)", file=sys.stderr)
        load_before = os.getloadavg()
        cpu_before = {label: clients.process_cpu(pid) for label, (_, pid) in sessions.items()}
        calls: dict[str, list[tuple[str, clients.Answer]]] = {label: [] for label in sessions}
        labels = list(sessions)
        for round_ in range(args.rounds):
            for n, symbol in enumerate(symbols):
                shift = (n + round_) % len(labels)  # (who goes first rotates)
                for label in labels[shift:] + labels[:shift]:
                    session = sessions[label][0]
                    answer = await (clients.peer_callers(session, project, symbol) if label == "peer" else
                                    clients.tenure_callers(session, symbol))
                    calls[label].append((symbol, answer))
        cpu = {label: clients.process_cpu(pid) - cpu_before[label] for label, (_, pid) in sessions.items()}
    return {"symbols": symbols, "calls": calls, "cpu": cpu, "load": (load_before, os.getloadavg())}


async def _session(stack: AsyncExitStack, params) -> ClientSession:
    read, write = await stack.enter_async_context(stdio_client(params))
    session = await stack.enter_async_context(ClientSession(read, write))
    await session.initialize()
    return session


async def _pick(ours: ClientSession, peer: ClientSession, project: str,
                args: argparse.Namespace) -> tuple[list[str], int]:
    candidates = clients.called_symbols(args.project, args.prefix)
    rest = [s for s in candidates if s not in FIRST]
    random.Random(args.seed).shuffle(rest)
    kept, dropped = [], 0
    for symbol in [*FIRST, *rest]:
        if len(kept) == args.symbols:
            break
        a, b = await clients.tenure_callers(ours, symbol), await clients.peer_callers(peer, project, symbol)
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
    clients.add_baseline_options(parser)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    r = anyio.run(run, args)
    rows, figures = [], {}
    for who, cpu in r["cpu"].items():
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
    for who in r["calls"]:
        slowest = sorted(r["calls"][who], key=lambda c: -c[1].seconds)[:5]
        print(f"{who} slowest: " + ", ".join(f"{s.rpartition('.')[0].rpartition('.')[2]}.{s.rpartition('.')[2]} "
                                             f"{a.seconds * 1000:.0f} ms ({a.rows})" for s, a in slowest))
    write_json(args.json_out, {"symbols": r["symbols"], "figures": figures, "load": r["load"]})


if __name__ == "__main__":
    main()
