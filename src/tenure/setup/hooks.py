"""Claude Code hooks: habits without discipline. SessionStart opens a work session and injects its
briefing; PostToolUse on a shell command records what the session ran and, when it ran tests, their
verdict as an outcome of the session; SessionEnd closes it if the agent did not. Each Claude Code
session maps to one tenure session through `.tenure/hooks/claude-code/<its id>`."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tenure.refusal import Refusal
from tenure.state import find_root, state_dir

if TYPE_CHECKING:
    from tenure.api import Tenure

AGENT = "claude-code"
CLOSED_BY_HOOK = ("Closed by the Claude Code SessionEnd hook: the agent ended without calling session_end, "
                  "so the outcome is unknown; citations were inferred from the files it edited.")


def session_start(t: Tenure, payload: dict) -> str:
    """The text Claude Code adds to the agent's context: the briefing and the session id to use."""
    mapping = _mapping(t.root, payload)
    session = mapping.read_text().strip() if mapping.exists() else None
    if session and t.session_open(session):
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
        memory, episode = result["outcomeMemory"], result["episode"]["episode"]
        # (a session that leased, edited and used nothing has no outcome memory; its test runs are still
        # kept, in its episode)
        said = f"closed tenure session {session}: " + (
            f"outcome memory #{memory}" if memory else "no outcome memory (it leased, edited and used nothing)") + (
            f"; its episode #{episode} keeps what it ran" if episode else "")
    except Refusal as exc:  # the agent ended it already (MemoriesError)
        said = str(exc)
    mapping.unlink()
    return said


def record_tool_use(repo: Path, payload: dict) -> str:
    """The PostToolUse hook's whole work, run on every tool use the agent makes: the project is opened
    only when there is something to record (`entry` runs this without the CLI's framework)."""
    root = find_root(Path(payload.get("cwd") or repo))
    if (nothing := nothing_to_record(root, payload)) is not None:
        return nothing
    from tenure.api import Tenure

    with Tenure.open(root, discover=False, code_graph=False) as t:  # (failing tests are mapped at the session's end)
        return post_tool_use(t, payload)


def nothing_to_record(root: Path, payload: dict) -> str | None:
    """Why a PostToolUse event records nothing, found without opening the project (the common case:
    most tool uses are not shell commands, or no work session is open): None when it may record."""
    tool_input = payload.get("tool_input")
    if payload.get("tool_name") != "Bash" or not isinstance(tool_input, dict) or \
            not isinstance(tool_input.get("command"), str):
        return "not a shell command: nothing recorded"
    if not _mapping(root, payload).exists():
        return "no open tenure session for this Claude Code session: nothing recorded"
    return None


def read_payload() -> dict:
    """The event Claude Code passes on stdin; anything else is an empty event."""
    raw = "" if sys.stdin.isatty() else sys.stdin.read()
    try:
        payload = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError:
        payload = {}
    return payload if isinstance(payload, dict) else {}


def post_tool_use(t: Tenure, payload: dict) -> str:
    """A shell command the agent ran: its steps and, for a test run, the verdict its output gives."""
    tool_input, response = payload.get("tool_input"), payload.get("tool_response")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if payload.get("tool_name") != "Bash" or not isinstance(command, str):
        return "not a shell command: nothing recorded"
    mapping = _mapping(t.root, payload)
    session = mapping.read_text().strip() if mapping.exists() else None
    if not session or not t.session_open(session):
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


def _mapping(root: Path, payload: dict) -> Path:
    external = re.sub(r"[^A-Za-z0-9_.-]", "_", str(payload.get("session_id") or "unknown"))
    return state_dir(root) / "hooks" / AGENT / external
