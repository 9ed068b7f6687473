"""`tenure index` schedules enrichment: it drops the verdicts of changed files at once (so the query
path never counts a stale confirmation) and starts a detached `tenure enrich` unless one is running.

A run belongs to the index that scheduled it: it stops when a newer index schedules another (which
waits for the lock the older one lets go), or when that index's process ended before the index
finished (killed, crashed): `tenure status` says which.

`TENURE_ENRICH=off` turns scheduling off (the test suite sets it: no test starts a server by accident).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from tenure.relaunch import spawn_detached
from tenure.structural.lsp.servers import plan
from tenure.structural.lsp.state import LspState, lock_held

if TYPE_CHECKING:
    from tenure.structural.after_index import SourceContext
    from tenure.structural.report import IndexReport

ENV_SWITCH = "TENURE_ENRICH"
LOG_FILE = "enrich.log"


class LspSource:
    name = "lsp"
    after = ("jvm",)  # bytecode and wiring first: the language servers then verify what remains unresolved

    def run(self, context: SourceContext, report: IndexReport) -> dict:
        state = LspState(context.db)
        dropped = state.invalidate()
        languages = {r["language"] for r in context.db.query(
            "SELECT DISTINCT language FROM files WHERE parse_status IN ('ok', 'partial') AND language IS NOT NULL")}
        servers = plan(context.root, languages)
        missing = sorted(servers.no_server)
        out: dict = {"dropped": len(dropped)} if dropped else {}
        for language, why in servers.refused.items():
            out[f"not run for {language}"] = why
        for language, reason in state.take_failures().items():
            out[f"last run gave up {language}"] = reason
        if missing:
            out["no server for"] = ", ".join(missing)
        runnable = sorted(servers.runnable)
        if not runnable:
            return {**out, "status": "nothing to enrich"}
        if os.environ.get(ENV_SWITCH, "on").lower() in ("off", "0", "false", "no"):
            return {**out, "status": f"not scheduled ({ENV_SWITCH}=off)"}
        running = lock_held(context.state_dir)
        pid = spawn_enrich(context.root, context.state_dir, state.schedule(os.getpid()))
        log = os.path.relpath(context.state_dir / LOG_FILE, context.root)
        instead = "; the running one stops for it" if running else ""
        return {**out, "status": f"scheduled for {', '.join(runnable)} (pid {pid}, log {log}{instead})"}


def spawn_enrich(root: Path, state_dir: Path, schedule: int) -> int:
    """A detached `tenure enrich`: it outlives the index command and its terminal, not the index."""
    return spawn_detached(["enrich", "--repo", str(root), "--background", "--schedule", str(schedule)], root,
                          state_dir / LOG_FILE)
