"""Claude Code hooks: habits without discipline. SessionStart opens a work session and injects its
briefing; PostToolUse on a shell command records what the session ran and, when it ran tests, their
verdict as an outcome of the session; SessionEnd closes it if the agent did not. Each Claude Code
session maps to one tenure session through `.tenure/hooks/claude-code/<its id>`."""

from __future__ import annotations

import re
from pathlib import Path

from tenure.api import Tenure
from tenure.memories import MemoriesError
from tenure.state import state_dir

AGENT = "claude-code"
CLOSED_BY_HOOK = ("Closed by the Claude Code SessionEnd hook: the agent ended without calling session_end, "
                  "so the outcome is unknown; citations were inferred from the files it edited.")


def session_start(t: Tenure, payload: dict) -> str:
    """The text Claude Code adds to the agent's context: the briefing and the session id to use."""
    mapping = _mapping(t.root, payload)
    session = mapping.read_text().strip() if mapping.exists() else None
    if session and _is_open(t, session):
        briefing = t.memories.brief(session=session)["text"]
    else:
        started = t.start_session(AGENT)  # before the user has said anything: no task yet
        session, briefing = started["session"], started["briefing"]
        mapping.parent.mkdir(parents=True, exist_ok=True)
        mapping.write_text(session + "\n")
    return (f"{briefing.rstrip()}\n\ntenure work session `{session}` is open: pass session=\"{session}\" to "
            "tenure's recall, and when the task is done call session_end with a summary and the ids of the "
            "memories you relied on (if you do not, it is closed for you when Claude Code exits).\n")


def session_end(t: Tenure, payload: dict) -> str:
    mapping = _mapping(t.root, payload)
    if not mapping.exists():
        return "no tenure session was opened for this Claude Code session"
    session = mapping.read_text().strip()
    try:
        result = t.end_session(session, CLOSED_BY_HOOK, outcome="abandoned", keep_empty=False)
        memory = result["outcomeMemory"]
        said = f"closed tenure session {session}: " + (
            f"outcome memory #{memory}" if memory else "nothing happened in it, so no outcome memory")
    except MemoriesError as exc:  # the agent ended it already
        said = str(exc)
    mapping.unlink()
    return said


def post_tool_use(t: Tenure, payload: dict) -> str:
    """A shell command the agent ran: its steps and, for a test run, the verdict its output gives."""
    tool_input, response = payload.get("tool_input"), payload.get("tool_response")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if payload.get("tool_name") != "Bash" or not isinstance(command, str):
        return "not a shell command: nothing recorded"
    mapping = _mapping(t.root, payload)
    session = mapping.read_text().strip() if mapping.exists() else None
    if not session or not _is_open(t, session):
        return "no open tenure session for this Claude Code session: nothing recorded"
    if isinstance(response, dict):
        if response.get("interrupted"):
            return "the command was interrupted: its output says nothing of the tests"
        output = "\n".join(str(response.get(k) or "") for k in ("stdout", "stderr", "output"))
    else:
        output = str(response or "")
    recorded = t.episodes.record_step(session, command, output)
    if recorded["verdict"]:
        return f"recorded into {session}: tests {recorded['verdict']} ({len(recorded['failed'])} failing)"
    return f"recorded into {session}: {', '.join(recorded['steps']) or 'nothing'}"


def _is_open(t: Tenure, session: str) -> bool:
    try:
        return t.memories.session(session)["open"]
    except MemoriesError:
        return False


def _mapping(root: Path, payload: dict) -> Path:
    external = re.sub(r"[^A-Za-z0-9_.-]", "_", str(payload.get("session_id") or "unknown"))
    return state_dir(root) / "hooks" / AGENT / external
