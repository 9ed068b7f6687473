"""What each coding agent needs to find tenure: its MCP configuration, and hooks where it has them."""

from __future__ import annotations

import os
from pathlib import Path

from tenure.setup.edits import Edit

SERVER = "tenure"
CODEX_STARTUP_TIMEOUT_S = 30  # Codex gives a server 10 s by default; importing the MCP SDK takes a few
BRIDGE_LINE = "@AGENTS.md"  # Claude Code reads CLAUDE.md, which imports the AGENTS.md other agents read
HOOK_EVENTS = {"SessionStart": "session-start", "PostToolUse": "post-tool-use", "SessionEnd": "session-end"}
TOOL_HOOKS = {"PostToolUse": "Bash"}  # events about a tool: the tool they are for (test runs are shell commands)


def claude(root: Path, home: Path) -> list[Edit]:
    """Project-scoped `.mcp.json` (the server; Claude Code starts it in the project) and
    `.claude/settings.json` hooks: the briefing at session start, test outcomes recorded after each shell
    command, the session closed at its end."""
    server = Edit("claude", str(root / ".mcp.json"), "json-key", {"command": "tenure", "args": ["serve"]},
                  ["mcpServers", SERVER])
    hooks = [
        Edit("claude", str(root / ".claude" / "settings.json"), "json-item",
             {**({"matcher": TOOL_HOOKS[event]} if event in TOOL_HOOKS else {}),
              "hooks": [{"type": "command", "command": f"tenure hook {command}"}]}, ["hooks", event])
        for event, command in HOOK_EVENTS.items()
    ]
    return [server, *hooks]


def cursor(root: Path, home: Path) -> list[Edit]:
    """`.cursor/mcp.json`; Cursor does not start servers in the workspace, so it is named."""
    return [Edit("cursor", str(root / ".cursor" / "mcp.json"), "json-key",
                 {"command": "tenure", "args": ["serve", "--repo", "${workspaceFolder}"]}, ["mcpServers", SERVER])]


def codex(root: Path, home: Path) -> list[Edit]:
    """`~/.codex/config.toml` (or $CODEX_HOME): user-wide; the server finds the project from the
    directory Codex runs in."""
    codex_home = Path(os.environ.get("CODEX_HOME") or home / ".codex")
    block = (f"[mcp_servers.{SERVER}]\n"
             'command = "tenure"\n'
             'args = ["serve"]\n'
             f"startup_timeout_sec = {CODEX_STARTUP_TIMEOUT_S}\n")
    return [Edit("codex", str(codex_home / "config.toml"), "text", block, toml_table=["mcp_servers", SERVER])]


def bridge(root: Path) -> Edit:
    """The line that makes Claude Code read AGENTS.md (the instructions every other agent reads)."""
    return Edit("claude", str(root / "CLAUDE.md"), "text", BRIDGE_LINE + "\n")


CLIENTS = {"claude": claude, "cursor": cursor, "codex": codex}
