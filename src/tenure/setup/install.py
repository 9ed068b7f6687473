"""Installing and uninstalling a client's configuration, recorded in `.tenure/setup.json` so that
uninstalling removes exactly what was written."""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

from tenure.files import project_path
from tenure.setup import edits
from tenure.setup.clients import BRIDGE_LINE, CLIENTS, bridge
from tenure.setup.edits import Edit
from tenure.state import make_state_dir, state_dir

MANIFEST = "setup.json"  # in the state directory


def plan(client: str, root: Path, home: Path, with_bridge: bool) -> list[Edit]:
    if client not in CLIENTS:
        raise ValueError(f"unknown client {client!r}: use one of {', '.join(CLIENTS)}")
    planned = CLIENTS[client](root, home) + ([bridge(root)] if with_bridge else [])
    for edit in planned:  # a project's file (.mcp.json, CLAUDE.md) must not be a link out of it
        if Path(edit.path).is_relative_to(root):
            project_path(root, Path(edit.path).relative_to(root), f"{client}'s configuration")
    return planned


def install(client: str, root: Path, home: Path, with_bridge: bool = False) -> dict[str, Any]:
    """Apply the client's edits; a conflict stops before that file is touched and keeps what was done."""
    written, present = [], []
    for edit in plan(client, root, home, with_bridge):
        if edits.apply(edit):
            _record(root, edit)
            written.append(edit.path)
        else:
            present.append(edit.path)
    return {"client": client, "written": written, "alreadyPresent": present, "offer": offer(client, root)}


def preview(client: str, root: Path, home: Path, with_bridge: bool = False) -> list[dict[str, Any]]:
    """What `install` would write, file by file, writing nothing: each file's whole text after the
    edits (`writes`, None when it holds them already) and the change as a unified diff."""
    before: dict[str, str] = {}
    after: dict[str, str] = {}
    for edit in plan(client, root, home, with_bridge):
        path = Path(edit.path)
        if edit.path not in before:
            before[edit.path] = after[edit.path] = path.read_text(encoding="utf-8") if path.exists() else ""
        text = edits.updated(edit, after[edit.path])
        if text is not None:
            after[edit.path] = text
    return [{"path": path, "creates": not Path(path).exists(), "writes": after[path] if after[path] != old else None,
             "diff": "".join(difflib.unified_diff(old.splitlines(keepends=True), after[path].splitlines(keepends=True),
                                                  path if Path(path).exists() else "/dev/null", path))}
            for path, old in before.items()]


def uninstall(root: Path, client: str | None = None) -> dict[str, Any]:
    """Take back what `install` recorded for this project (for one client, or all), newest first."""
    recorded = _load(root)
    mine = [e for e in recorded if client is None or e.client == client]
    results = [edits.undo(e) for e in reversed(mine)]
    _save(root, [e for e in recorded if e not in mine])
    return {"client": client, "removed": results}


def offer(client: str, root: Path) -> str | None:
    """Claude Code reads CLAUDE.md, not AGENTS.md: suggest the bridge line when it is missing."""
    if client != "claude" or not (root / "AGENTS.md").exists():
        return None
    claude_md = root / "CLAUDE.md"
    if claude_md.exists() and BRIDGE_LINE in claude_md.read_text():
        return None
    return (f"AGENTS.md holds instructions Claude Code does not read: add the line `{BRIDGE_LINE}` to CLAUDE.md "
            "(`tenure setup claude --bridge` does it)")


def _record(root: Path, edit: Edit) -> None:
    _save(root, [*_load(root), edit])


def _load(root: Path) -> list[Edit]:
    path = state_dir(root) / MANIFEST
    return [Edit(**e) for e in json.loads(path.read_text())] if path.exists() else []


def _save(root: Path, recorded: list[Edit]) -> None:
    path = make_state_dir(root) / MANIFEST
    path.write_text(json.dumps([e.as_dict() for e in recorded], indent=2) + "\n")
