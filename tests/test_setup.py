"""`tenure setup`: client configuration merged into existing files, shown with --print, taken back
exactly with --uninstall; and Claude Code's hooks opening and closing work sessions. HOME is a
temporary directory in every test."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tenure import Tenure
from tenure.cli import app

runner = CliRunner()
OTHER_SERVERS = {"mcpServers": {"other": {"command": "other-server", "args": ["--stdio"]}}}
CODEX_BEFORE = '# my codex settings\nmodel = "o4"\n\n[mcp_servers.other]\ncommand = "other"\n'


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return home


@pytest.fixture
def project(make_repo, home: Path) -> Path:
    return make_repo({"pay/__init__.py": "", "pay/gateway.py": "def send(payment):\n    return payment\n"})


def tenure(*args: str, stdin: str | None = None) -> str:
    result = runner.invoke(app, list(args), input=stdin)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_claude_merges_installs_hooks_and_uninstalls_exactly(project: Path) -> None:
    (project / ".mcp.json").write_text(json.dumps(OTHER_SERVERS))
    (project / "AGENTS.md").write_text("# How we work\n")
    out = tenure("setup", "claude", "--repo", str(project))
    assert "@AGENTS.md" in out  # the bridge is offered

    servers = json.loads((project / ".mcp.json").read_text())["mcpServers"]
    assert servers["other"] == OTHER_SERVERS["mcpServers"]["other"]
    assert servers["tenure"] == {"command": "tenure", "args": ["serve"]}
    hooks = json.loads((project / ".claude" / "settings.json").read_text())["hooks"]
    assert hooks["SessionStart"][0]["hooks"][0]["command"] == "tenure hook session-start"
    assert hooks["SessionEnd"][0]["hooks"][0]["command"] == "tenure hook session-end"
    assert hooks["PostToolUse"] == [{"matcher": "Bash", "hooks": [{"type": "command",
                                                                   "command": "tenure hook post-tool-use"}]}]

    again = json.loads(tenure("setup", "claude", "--bridge", "--repo", str(project), "--json"))
    assert again["written"] == [str(project / "CLAUDE.md")] and len(again["alreadyPresent"]) == 4
    assert (project / "CLAUDE.md").read_text() == "@AGENTS.md\n"

    tenure("setup", "--uninstall", "--repo", str(project))
    assert json.loads((project / ".mcp.json").read_text()) == OTHER_SERVERS
    assert not (project / ".claude").exists() and not (project / "CLAUDE.md").exists()
    assert (project / "AGENTS.md").read_text() == "# How we work\n"


def test_uninstall_keeps_what_others_wrote_next_to_it(project: Path) -> None:
    tenure("setup", "claude", "--repo", str(project))
    settings = project / ".claude" / "settings.json"
    doc = json.loads(settings.read_text())
    doc["hooks"]["SessionStart"].append({"hooks": [{"type": "command", "command": "echo mine"}]})
    doc["permissions"] = {"allow": ["Bash(ls)"]}
    settings.write_text(json.dumps(doc))
    tenure("setup", "claude", "--uninstall", "--repo", str(project))
    assert json.loads(settings.read_text()) == {
        "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo mine"}]}]},
        "permissions": {"allow": ["Bash(ls)"]},
    }
    assert not (project / ".mcp.json").exists()


def test_cursor_names_the_workspace(project: Path) -> None:
    tenure("setup", "cursor", "--repo", str(project))
    config = json.loads((project / ".cursor" / "mcp.json").read_text())
    assert config["mcpServers"]["tenure"]["args"] == ["serve", "--repo", "${workspaceFolder}"]
    tenure("setup", "cursor", "--uninstall", "--repo", str(project))
    assert not (project / ".cursor").exists()


def test_codex_appends_to_the_user_config_with_a_startup_timeout(project: Path, home: Path) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(CODEX_BEFORE)
    tenure("setup", "codex", "--repo", str(project))
    parsed = tomllib.loads(config.read_text())
    assert parsed["mcp_servers"]["other"] == {"command": "other"} and parsed["model"] == "o4"
    assert parsed["mcp_servers"]["tenure"] == {"command": "tenure", "args": ["serve"], "startup_timeout_sec": 30}
    assert config.read_text().startswith(CODEX_BEFORE)  # comments and layout untouched
    tenure("setup", "--uninstall", "--repo", str(project))
    assert config.read_text() == CODEX_BEFORE


def test_print_shows_exactly_what_setup_then_writes(project: Path, home: Path) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"permissions": {"allow": ["Bash(ls)"]}}')  # the user's, merged into
    shown = json.loads(tenure("setup", "claude", "--print", "--json", "--repo", str(project)))
    assert not (project / ".mcp.json").exists()
    assert {p["path"] for p in shown} == {str(project / ".mcp.json"), str(settings)}
    text = tenure("setup", "claude", "--print", "--repo", str(project))
    assert f"+++ {settings}" in text and '-{"permissions": {"allow": ["Bash(ls)"]}}' in text  # a diff of the file
    tenure("setup", "claude", "--repo", str(project))
    assert {p["path"]: p["writes"] for p in shown} == {p["path"]: Path(p["path"]).read_text() for p in shown}
    again = json.loads(tenure("setup", "claude", "--print", "--json", "--repo", str(project)))
    assert [p["writes"] for p in again] == [None, None]  # written already: nothing more would be
    assert "already has it" in tenure("setup", "claude", "--print", "--repo", str(project))


def test_print_writes_nothing(project: Path, home: Path) -> None:
    shown = json.loads(tenure("setup", "codex", "--print", "--json", "--repo", str(project)))
    assert "startup_timeout_sec = 30" in shown[0]["writes"]
    assert '"tenure"' in tenure("setup", "claude", "--print", "--repo", str(project))
    assert not (home / ".codex").exists() and not (project / ".mcp.json").exists()


def test_a_server_named_tenure_that_tenure_did_not_write_is_not_clobbered(project: Path) -> None:
    theirs = {"mcpServers": {"tenure": {"command": "/opt/tenure-fork", "args": []}}}
    (project / ".mcp.json").write_text(json.dumps(theirs))
    result = runner.invoke(app, ["setup", "claude", "--repo", str(project)])
    assert result.exit_code == 2 and "remove or rename it" in result.output
    assert json.loads((project / ".mcp.json").read_text()) == theirs


def test_unknown_client_says_which_exist(project: Path) -> None:
    result = runner.invoke(app, ["setup", "vim", "--repo", str(project)])
    assert result.exit_code == 2 and "claude, cursor, codex" in result.output


def test_claude_hooks_open_and_close_the_session(project: Path) -> None:
    with Tenure.open(project, discover=False) as t:
        t.index()
        t.memories.remember("Never retry a send: the gateway is not idempotent.", "pitfall", ["pay.gateway.send"])
    event = {"session_id": "claude-1", "cwd": str(project), "source": "startup"}
    context = tenure("hook", "session-start", stdin=json.dumps(event))
    assert "[PITFALL]" in context and "not idempotent" in context
    session = context.split("tenure work session `")[1].split("`")[0]
    assert tenure("hook", "session-start", stdin=json.dumps({**event, "source": "resume"})).count(session) >= 1

    tenure("hook", "session-end", stdin=json.dumps(event))
    with Tenure.open(project, discover=False) as t:
        outcome = [m for m in t.memories.recall("")["results"] if m["kind"] == "session_outcome"]
    assert [m["session"] for m in outcome] == [session] and outcome[0]["outcome"] == "abandoned"
    tenure("hook", "session-end", stdin=json.dumps(event))  # nothing left to close: still fine


def test_session_end_hook_after_the_agent_ended_it(project: Path) -> None:
    with Tenure.open(project, discover=False) as t:
        t.index()
    event = json.dumps({"session_id": "claude-2", "cwd": str(project)})
    context = tenure("hook", "session-start", stdin=event)
    session = context.split("tenure work session `")[1].split("`")[0]
    with Tenure.open(project, discover=False) as t:
        t.memories.end_session(session, "Done by the agent.")
    tenure("hook", "session-end", stdin=event)
    with Tenure.open(project, discover=False) as t:
        outcomes = [m for m in t.memories.recall("")["results"] if m["kind"] == "session_outcome"]
    assert [m["content"] for m in outcomes] == ["Done by the agent."]


def test_session_end_hook_writes_nothing_for_a_session_in_which_nothing_happened(project: Path) -> None:
    with Tenure.open(project, discover=False) as t:
        t.index()  # no memories: the briefing serves nothing, and the agent does nothing
    event = json.dumps({"session_id": "claude-3", "cwd": str(project)})
    context = tenure("hook", "session-start", stdin=event)
    session = context.split("tenure work session `")[1].split("`")[0]
    tenure("hook", "session-end", stdin=event)
    with Tenure.open(project, discover=False) as t:
        assert not t.memories.session(session)["open"]
        assert not [m for m in t.memories.recall("")["results"] if m["kind"] == "session_outcome"]


def test_session_end_hook_says_the_episode_keeps_a_test_run_when_no_outcome_memory_is_written(project: Path) -> None:
    with Tenure.open(project, discover=False) as t:
        t.index()
    event = {"session_id": "claude-4", "cwd": str(project)}
    tenure("hook", "session-start", stdin=json.dumps(event))
    failing = "F\nFAILED tests/test_gateway.py::test_send - AssertionError\n1 failed in 0.1s\n"
    tenure("hook", "post-tool-use", stdin=json.dumps({**event, "tool_name": "Bash", "tool_input": {
        "command": "python -m pytest -q"}, "tool_response": {"stdout": failing}}))
    said = runner.invoke(app, ["hook", "session-end"], input=json.dumps(event)).output
    assert "no outcome memory (it leased, edited and used nothing)" in said and "its episode #" in said
