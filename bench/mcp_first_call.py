"""The MCP server's first answers: from spawn to `initialize` answered, from `initialize` to the first
tool call answered, and how soon `tenure serve --http` is ready; the peer codebase-memory-mcp's first
call in the same run.

    python bench/mcp_first_call.py PROJECT [--symbol NAME ...] [--runs 3] [--tenure CMD]
                                   [--baseline CMD [--baseline-project DIR]]
                                   [--peer BIN --peer-root DIR --peer-cache DIR]

PROJECT must be indexed already (and, for the peer, DIR indexed by it: /work/shared/peers/README.md).

"Ready" is the time from the server's process start (the spawn) until it answers `initialize`, which
the client sends at once: the earliest moment the server can answer it. The peer's is timed the same way.

Each run, alternating (tenure, the baseline build if given, the peer, tenure over HTTP):

- stdio: the server spawned by the SDK's client; `initialize` timed from the spawn, then the first
  caller query of the first symbol (tenure's `what_breaks`, the peer's `trace_path`) timed from the
  moment `initialize` was answered, then the rest of the symbols (first time each), then all again
  (warm); the server's CPU seconds (/proc) up to `initialize` answered, and from then to its first answer.
- http (`tenure serve --http` on a free loopback port): ready = the first `initialize` POST answered
  200, polled every 10 ms from the spawn; then the SDK's streamable HTTP client connects and asks the
  first symbol (timed from its `initialize` answered).

The issue's targets: the first tool call within 0.2 s of `initialize`, `tenure serve` ready under 1 s.
The floor printed beside: a bare interpreter's start in the same minutes.
"""

from __future__ import annotations

import argparse
import os
import shlex
import socket
import subprocess
import sys
import time
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import httpx
from mcp import ClientSession
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import LATEST_PROTOCOL_VERSION

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mcp_clients as clients  # noqa: E402
from common import percentile, tenure_command  # noqa: E402

POLL_S = 0.01
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": LATEST_PROTOCOL_VERSION, "capabilities": {},
    "clientInfo": {"name": "mcp_first_call", "version": "0"}}}


async def stdio_run(params, ask) -> dict:
    """`ask(session, symbol) -> clients.Answer`: the server's caller query."""
    before = clients.child_pids()
    start = time.perf_counter()
    async with AsyncExitStack() as stack:
        read, write = await stack.enter_async_context(stdio_client(params))
        session = await stack.enter_async_context(ClientSession(read, write))
        await session.initialize()
        ready = time.perf_counter() - start
        pid = (clients.child_pids() - before).pop()
        return {"ready_s": ready, **await _calls(session, ask, pid)}


async def _calls(session: ClientSession, ask, pid: int) -> dict:
    ready_cpu = clients.process_cpu(pid)
    first = await ask(session, ARGS.symbol[0])
    cpu = clients.process_cpu(pid)
    rest = [await ask(session, s) for s in ARGS.symbol[1:]]
    warm = [await ask(session, s) for s in ARGS.symbol]
    return {"first": first, "ready_cpu_s": ready_cpu, "first_cpu_s": cpu - ready_cpu, "rest": rest, "warm": warm}


async def http_run(cmd: list[str], root: Path) -> dict:
    port = _free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    start = time.perf_counter()
    server = subprocess.Popen([*cmd, "serve", "--http", "--port", str(port), "--repo", str(root)],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        ready = await _poll_initialize(url, server)
        async with AsyncExitStack() as stack:
            read, write = await stack.enter_async_context(streamable_http_client(url))
            session = await stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            result = await _calls(session, _tenure_ask, server.pid)
        return {"ready_s": ready - start, **result}
    finally:
        server.terminate()
        server.wait(10)


async def _poll_initialize(url: str, server: subprocess.Popen) -> float:
    headers = {"Accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient(timeout=5) as client:
        while True:
            if server.poll() is not None:
                raise SystemExit(f"tenure serve --http exited: {server.stderr.read().decode()[-2000:]}")
            try:
                response = await client.post(url, json=INITIALIZE, headers=headers)
                if response.status_code == 200:
                    return time.perf_counter()
            except httpx.TransportError:
                pass
            await anyio.sleep(POLL_S)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def _tenure_ask(session: ClientSession, symbol: str) -> clients.Answer:
    return await clients.tenure_callers(session, symbol)


def bare_start() -> float:
    before = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - before


def show(label: str, r: dict) -> None:
    first, warm = r["first"], r["warm"]
    head = (f"{label:>14}: ready {r['ready_s']:.2f} s (server CPU {r['ready_cpu_s']:.2f} s)"
            + f"; first call {first.seconds * 1000:.0f} ms after initialize"
            + f" (server CPU {r['first_cpu_s'] * 1000:.0f} ms)"
            + f"; spawn -> first answer {r['ready_s'] + first.seconds:.2f} s")
    rest = ", ".join(f"{a.seconds * 1000:.0f}" for a in r["rest"])
    warm_ms = [a.seconds * 1000 for a in warm]
    errors = sum(a.error for a in (first, *r["rest"], *warm))
    print(head + (f"; next first calls {rest} ms" if rest else "")
          + f"; warm p50 {percentile(warm_ms, 50):.0f} ms, answers {first.size / 1024:.1f} KB"
          + (f"; {errors} ERRORS" if errors else ""))


ARGS: argparse.Namespace


def main() -> None:
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("project", type=Path)
    parser.add_argument("--symbol", action="append",
                        help="Symbols to ask, the first one first (default: Django's timezone.is_naive, "
                             "QuerySet.filter, Model.save).")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tenure", help="The command that runs tenure (default: tenure on PATH).")
    clients.add_baseline_options(parser)
    parser.add_argument("--peer", type=Path, help="codebase-memory-mcp's binary (else no peer).")
    parser.add_argument("--peer-root", type=Path, help="The directory the peer indexed.")
    parser.add_argument("--peer-cache", type=Path, default=Path(os.environ.get("CBM_CACHE_DIR", "/tmp/cbm-cache")))
    parser.add_argument("--no-http", action="store_true", help="Skip `tenure serve --http`.")
    ARGS = parser.parse_args()
    ARGS.project = ARGS.project.resolve()
    ARGS.symbol = ARGS.symbol or ["django.utils.timezone.is_naive", "django.db.models.query.QuerySet.filter",
                                  "django.db.models.base.Model.save"]
    builds = {"tenure": (tenure_command(ARGS.tenure), ARGS.project)}
    if ARGS.baseline:
        builds["baseline"] = shlex.split(ARGS.baseline), (ARGS.baseline_project or ARGS.project).resolve()
    project = None
    if ARGS.peer:
        project = anyio.run(_peer_project)
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}; bare interpreter start "
          f"{min(bare_start() for _ in range(3)) * 1000:.0f} ms")
    for n in range(ARGS.runs):
        print(f"run {n + 1}")
        for label, (cmd, root) in builds.items():
            show(f"{label} stdio", anyio.run(stdio_run, clients.tenure_params(cmd, root), _tenure_ask))
        if project is not None:
            async def ask(session: ClientSession, symbol: str, project: str = project) -> clients.Answer:
                return await clients.peer_callers(session, project, symbol)
            peer = clients.peer_params(ARGS.peer, ARGS.peer_cache, ARGS.peer_root.resolve())
            show("peer stdio", anyio.run(stdio_run, peer, ask))
        if not ARGS.no_http:
            for label, (cmd, root) in builds.items():
                show(f"{label} http", anyio.run(http_run, cmd, root))


async def _peer_project() -> str:
    peer = clients.peer_params(ARGS.peer, ARGS.peer_cache, ARGS.peer_root.resolve())
    async with stdio_client(peer) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return await clients.peer_project(session, ARGS.peer_root)


if __name__ == "__main__":
    main()
