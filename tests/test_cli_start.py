"""Start cost: a command imports what it runs. `tenure why` (an agent calls it and waits) and an offline
`tenure knowledge build` load no parser grammars, no web framework, no HTTP client and no NumPy."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("tree_sitter", "tree_sitter_language_pack", "starlette", "uvicorn", "httpx", "numpy", "mcp")


def imported_by(argv: list[str]) -> dict[str, list[str]]:
    probe = (f"import json, sys; from tenure.cli import app\ntry:\n    app({argv!r}, standalone_mode=False)\n"
             "except SystemExit:\n    pass\n"
             "print(json.dumps({'heavy': sorted({m.split('.')[0] for m in sys.modules} & set(" + repr(HEAVY) + ")),"
             " 'tenure': sorted(m for m in sys.modules if m.startswith('tenure.'))}))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return json.loads(out.splitlines()[-1])


@pytest.mark.parametrize("argv", [["why", "url_for", "--json"], ["knowledge", "build", "--no-embed", "--json"]],
                         ids=" ".join)
def test_why_and_an_offline_build_load_nothing_they_do_not_run(tmp_path: Path, argv: list[str]) -> None:
    loaded = imported_by([*argv, "--repo", str(tmp_path)])
    assert loaded["heavy"] == []
    assert not [m for m in loaded["tenure"] if m.startswith(("tenure.structural.indexer", "tenure.memories.api",
                                                             "tenure.knowledge.extraction", "tenure.http_guard"))]


def test_the_help_of_a_command_opens_no_project_code(tmp_path: Path) -> None:
    loaded = imported_by(["knowledge", "build", "--help"])
    assert loaded["heavy"] == [] and "tenure.api" not in loaded["tenure"]


def hook_imports(root: Path, payload: dict) -> list[str]:
    """The modules `tenure hook post-tool-use` loads, as the `tenure` command runs it."""
    probe = ("import json, sys; sys.argv = ['tenure', 'hook', 'post-tool-use', '--repo', sys.argv[1]]\n"
             "from tenure.entry import main\nmain()\nprint(json.dumps(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", probe, str(root)], input=json.dumps(payload), capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def test_the_hook_run_on_every_tool_use_loads_no_cli_framework_and_no_memory_stack(make_indexed_repo) -> None:
    root = make_indexed_repo({"a.py": "def f():\n    return 1\n"})
    event = {"session_id": "cc-1", "tool_name": "Bash", "tool_input": {"command": "ls"},
             "tool_response": {"stdout": "a.py", "exit_code": 0}}
    idle = hook_imports(root, event)  # no work session is open: the project is not even opened
    assert not {m.split(".")[0] for m in idle} & {"typer", "click", "rich", "numpy", "msgspec"}
    assert "tenure.api" not in idle
    opened = subprocess.run([sys.executable, "-m", "tenure.cli", "hook", "session-start", "--repo", str(root)],
                            input=json.dumps({"session_id": "cc-1"}), capture_output=True, text=True, check=True)
    assert "work session" in opened.stdout
    recording = hook_imports(root, event)
    assert not {m.split(".")[0] for m in recording} & {"typer", "click", "rich", "numpy", "cryptography"}
    assert "tenure.memories.api" not in recording


def test_recording_a_shell_command_or_a_failing_test_run_reads_neither_the_code_graph_nor_the_history(
        make_indexed_repo) -> None:
    """A shell command recorded into an open session is one row: the hook loads neither the structural
    store, the namespace nor the history's reader (nor msgspec, which they bring), nor a report's XML
    parser; nor for a test run with failures, whose failing tests the session's end maps onto the code.
    Nor what only another path needs: subprocess (it runs nothing), the team's identity (no team
    database), the languages' table, the JSON report stream, the memories' ranking."""
    root = make_indexed_repo({"a.py": "def f():\n    return 1\n", "test_a.py": "def test_f():\n    assert False\n"})
    subprocess.run([sys.executable, "-m", "tenure.cli", "hook", "session-start", "--repo", str(root)],
                   input=json.dumps({"session_id": "cc-2"}), capture_output=True, text=True, check=True)
    shell = {"session_id": "cc-2", "tool_name": "Bash", "tool_input": {"command": "git status"},
             "tool_response": {"stdout": "On branch main\n"}}
    recording = hook_imports(root, shell)
    assert not {m.split(".")[0] for m in recording} & {"msgspec", "xml", "defusedxml", "subprocess"}
    assert not [m for m in recording if m.startswith(("tenure.structural.store", "tenure.namespace",
                                                      "tenure.history.api", "tenure.episodic.episodes",
                                                      "tenure.team.identity", "tenure.structural.languages",
                                                      "tenure.episodic.reports.jsonstream",
                                                      "tenure.memories.ranking"))]
    tests = {**shell, "tool_input": {"command": "python -m pytest -q"},
             "tool_response": {"stdout": "FAILED test_a.py::test_f - AssertionError\n1 failed in 0.01s\n"}}
    failing = hook_imports(root, tests)  # (its failing test is mapped onto the code when the session ends)
    assert not {m.split(".")[0] for m in failing} & {"msgspec", "xml", "defusedxml", "subprocess"}
    assert not [m for m in failing if m.startswith(("tenure.structural.store", "tenure.namespace"))]


def test_the_mcp_servers_tools_load_no_store_they_do_not_answer_from_at_start() -> None:
    """`tenure serve` answers `initialize` once its tools are built: their modules (the ask's budget among
    them) load neither the knowledge store nor the memory stack, which their calls load when asked."""
    probe = ("import json, sys, tenure.mcp.tools\n"
             "print(json.dumps(sorted(m for m in sys.modules if m.startswith('tenure.'))))")
    loaded = json.loads(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                                       check=True).stdout.splitlines()[-1])
    assert not [m for m in loaded if m.startswith(("tenure.knowledge.api", "tenure.memories.api"))]
