"""Driving MCP servers over stdio with the SDK's client, for the MCP benchmarks (not a benchmark itself):
tenure's `serve` and the peer codebase-memory-mcp's stdio mode (`/work/shared/peers/README.md`), each asked
for the direct callers of one symbol with its own tool (tenure's `what_breaks`, the peer's `trace_path`).
"""

from __future__ import annotations

import argparse
import os
import re
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters

PEER_TOTAL = re.compile(r"^callers_total: (\d+)", re.MULTILINE)


@dataclass
class Answer:
    seconds: float  # the client's wall time from request to parsed result
    rows: int  # direct dependants (tenure: rows of the page's totals; the peer: callers_total)
    size: int  # bytes of the answer's text
    error: bool


def tenure_params(cmd: list[str], root: Path) -> StdioServerParameters:
    return StdioServerParameters(command=cmd[0], args=[*cmd[1:], "serve", "--repo", str(root)],
                                 env={**os.environ}, cwd=str(root))


def peer_params(binary: Path, cache: Path, root: Path) -> StdioServerParameters:
    """The peer over stdio (no arguments), its index in `cache` (CBM_CACHE_DIR) made by its
    `cli index_repository --repo-path ROOT`."""
    return StdioServerParameters(command=str(binary), args=[], env={**os.environ, "CBM_CACHE_DIR": str(cache)},
                                 cwd=str(root))


async def tenure_callers(session: ClientSession, symbol: str) -> Answer:
    before = time.perf_counter()
    result = await session.call_tool("what_breaks", {"symbol": symbol})
    seconds = time.perf_counter() - before
    data = result.structured_content or {}
    rows = (data.get("totals") or {}).get("rows", 0)
    return Answer(seconds, rows, _text_size(result), bool(result.is_error))


async def peer_project(session: ClientSession, root: Path) -> str:
    """The peer's name for the project indexed at `root` (it prefixes every qualified name)."""
    result = await session.call_tool("list_projects", {})
    for project in (result.structured_content or {}).get("projects", []):
        if Path(project["root_path"]).resolve() == root.resolve():
            return project["name"]
    raise SystemExit(f"the peer has no index of {root}: run `CBM_CACHE_DIR=... PEER cli index_repository "
                     f"--repo-path {root}` first")


async def peer_callers(session: ClientSession, project: str, symbol: str) -> Answer:
    before = time.perf_counter()
    result = await session.call_tool("trace_path", {"function_name": f"{project}.{symbol}", "project": project,
                                                    "direction": "inbound", "depth": 1})
    seconds = time.perf_counter() - before
    text = result.content[0].text if result.content else ""
    total = PEER_TOTAL.search(text)
    return Answer(seconds, int(total.group(1)) if total else 0, len(text.encode()), bool(result.is_error))


def _text_size(result) -> int:
    return len(result.content[0].text.encode()) if result.content else 0


def called_symbols(root: Path, prefix: str) -> list[str]:
    """Python functions and methods under `prefix` (a path) that tenure's index has call edges into,
    most called first, read from the index's database (read-only)."""
    db = sqlite3.connect(f"file:{root / '.tenure' / 'tenure.db'}?mode=ro", uri=True)
    try:
        rows = db.execute(
            "SELECT s.fqn, COUNT(*) AS n FROM symbols s JOIN edges e ON e.dst_fqn = s.fqn AND e.relation = 'calls' "
            "WHERE s.kind IN ('function', 'method') AND s.language = 'python' AND s.path LIKE ? "
            "GROUP BY s.fqn ORDER BY n DESC, s.fqn", (f"{prefix}%",)).fetchall()
    finally:
        db.close()
    return [fqn for fqn, _ in rows]


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system, all threads) of a live process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def child_pids() -> set[int]:
    """This process's children (the servers stdio_client spawned)."""
    pids: set[int] = set()
    for task in Path("/proc/self/task").iterdir():
        pids |= {int(p) for p in (task / "children").read_text().split()}
    return pids


def add_baseline_options(parser: argparse.ArgumentParser) -> None:
    """--baseline CMD (another build, alternating with this one) and --baseline-project DIR."""
    parser.add_argument("--baseline", help="Another build's command, run alternating with --tenure.")
    parser.add_argument("--baseline-project", type=Path,
                        help="The same tree indexed by the baseline build (default PROJECT: when the schemas agree).")
