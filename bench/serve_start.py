"""Where `tenure serve` spends its CPU before it answers `initialize` (issue 32.3: ready in under 1 s),
step by step in the order the server takes them, each step's least and median over fresh processes;
the bare interpreter's start beside. Alternating with --baseline SRC (another build's `src`, whose
SDK import is then the ordinary one when it has no `tenure.mcp.sdk`).

    python bench/serve_start.py PROJECT [--runs 7] [--baseline SRC]

PROJECT must be indexed. The steps run in one thread here (in the server the first answer is
prepared in a thread of its own, while the SDK is imported); mcp_first_call.py times the server itself.
"ready" sums the steps before `initialize`; the first tools listing (the tools' schemas made, where a
build makes them on first use) comes after it.
The CLI's step holds starlette (tenure.http_guard's), which the SDK would import otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import print_table  # noqa: E402

STEPS = """
import json, sys, time
from pathlib import Path
spent, last = {}, time.process_time()
def step(name):
    global last
    now = time.process_time(); spent[name] = now - last; last = now
import tenure.cli, tenure.cli.serve
from tenure.cli.common import open_project
from tenure.collector import cyclic_gc_paused
step("the CLI, tenure.api (typer, click; starlette)")
t = open_project(Path(sys.argv[1])).__enter__()
step("open the project")
with cyclic_gc_paused(freeze_survivors=True):
    try:
        from tenure.mcp.sdk import import_sdk
    except ImportError:  # (a build without it: the ordinary import)
        import mcp.server.mcpserver
    else:
        import_sdk()
    step("the MCP SDK")
    from tenure.mcp.quiet import Quiet
    from tenure.mcp.server import build_server
    from tenure.mcp.transport import run_stdio
    step("tenure.mcp (the tools' modules)")
    server = build_server(t, middleware=[Quiet()])
    step("build the server")
    t.prepare_answers()
    step("prepare the first answer (a thread)")
    spent["ready (the steps so far)"] = sum(spent.values())
    import asyncio
    last = time.process_time()
    asyncio.run(server.list_tools())
    step("the tools listed first (after initialize)")
print(json.dumps(spent))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("project", type=Path)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--baseline", type=Path, help="Another build's src directory, run alternating.")
    args = parser.parse_args()
    builds = {"tenure": os.environ.get("PYTHONPATH", "")}
    if args.baseline:
        builds["baseline"] = str(args.baseline.resolve())
    load = os.getloadavg()[0]
    figures: dict[str, list[dict[str, float]]] = {label: [] for label in builds}
    bare = []
    for _ in range(args.runs):
        bare.append(_cpu([sys.executable, "-c", "pass"], os.environ))
        for label, path in builds.items():
            env = {**os.environ, "PYTHONPATH": path}
            done = subprocess.run([sys.executable, "-c", STEPS, str(args.project.resolve())], env=env,
                                  capture_output=True, text=True, check=True)
            figures[label].append(json.loads(done.stdout.splitlines()[-1]))
    rows = [["bare interpreter", *[f"{min(bare) * 1000:.0f} / {median(bare) * 1000:.0f}" for _ in builds]]]
    for name in figures["tenure"][0]:
        rows.append([name, *[f"{min(r[name] for r in runs) * 1000:.0f} / {median(r[name] for r in runs) * 1000:.0f}"
                             for runs in figures.values()]])
    print_table(f"tenure serve's start, CPU ms least / median of {args.runs} fresh processes (load {load:.1f} -> "
                f"{os.getloadavg()[0]:.1f})", ["step", *builds], rows)


def _cpu(argv: list[str], env: dict) -> float:
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, env=env, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


if __name__ == "__main__":
    main()
