"""The CLI says what to do when something is off, and every query command speaks JSON."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tenure.cli import COMMANDS, app
from tenure.words import counted, plural

runner = CliRunner()
QUERY_COMMANDS = [["index"], ["what-breaks"], ["find"], ["status"], ["remember"], ["recall"], ["confirm"],
                  ["supersede"], ["history"], ["review"], ["brief"], ["map"], ["backfill"], ["session", "start"],
                  ["session", "lease"], ["session", "end"], ["setup"]]


def test_the_command_table_names_what_each_module_registers() -> None:
    """`tenure` builds a command from its module only when it runs: the table must be the truth."""
    import importlib

    import typer
    from typer.main import get_group

    registered: dict[str, str] = {}
    for module in dict.fromkeys(COMMANDS.values()):
        one = typer.Typer()
        importlib.import_module(f"tenure.cli.{module}").register(one)
        registered |= dict.fromkeys(get_group(one).commands, module)
    assert registered == COMMANDS


def test_running_a_command_builds_only_that_command() -> None:
    """Start cost: the other 22 commands' modules are not imported, their signatures not read."""
    import subprocess
    import sys

    probe = ("import sys; from tenure.cli import app; app(['find', '--help'], standalone_mode=False); "
             "print(sorted(m for m in sys.modules if m.startswith('tenure.cli.')))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == "['tenure.cli.common', 'tenure.cli.structural']"


def test_a_mistyped_command_is_told_the_near_names() -> None:
    result = runner.invoke(app, ["indx"])
    assert result.exit_code == 2 and "index" in result.output


@pytest.mark.parametrize("command", QUERY_COMMANDS, ids=" ".join)
def test_every_query_command_has_json(command: list[str]) -> None:
    assert "--json" in runner.invoke(app, [*command, "--help"], terminal_width=200).stdout


NOT_INDEXED = "not indexed yet: run `tenure index`"
NOT_INDEXED_ANSWERS = [  # (command, exit code, what it says)
    pytest.param(["status"], 0, NOT_INDEXED, id="status"),
    pytest.param(["status", "--json"], 0, f'"text": "{NOT_INDEXED}"', id="status --json"),
    pytest.param(["what-breaks", "f"], 1, f"no symbol matches 'f'\nthis project is {NOT_INDEXED} in it",
                 id="what-breaks"),
    pytest.param(["what-breaks", "f", "--json"], 1, f'"text": "{NOT_INDEXED}"', id="what-breaks --json"),
    pytest.param(["find", "f"], 1, f"no symbol matches 'f'\nthis project is {NOT_INDEXED} in it", id="find"),
    pytest.param(["find", "f", "--json"], 1, f'"text": "{NOT_INDEXED}"', id="find --json"),
    pytest.param(["export", "edges"], 0, NOT_INDEXED, id="export edges"),
]


@pytest.mark.parametrize(("command", "exit_code", "says"), NOT_INDEXED_ANSWERS)
def test_a_query_of_a_project_not_indexed_says_so_and_leaves_no_state_behind(
    make_repo, command: list[str], exit_code: int, says: str
) -> None:
    root = make_repo({"a.py": "def f():\n    return 1\n"})
    result = runner.invoke(app, [*command, "--repo", str(root)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output  # (not a crash)
    assert not (root / ".tenure").exists()  # (one in a home directory would claim every directory under it)
    assert result.exit_code == exit_code, result.output
    assert says in result.output


READ_ONLY = [["recall", "x"], ["brief"], ["brief", "--task", "fix the cache"], ["map"], ["review"],
             ["history", "f"], ["rules", "list"], ["rules", "explain", "1"], ["epoch", "list"]]


@pytest.mark.parametrize("command", READ_ONLY, ids=" ".join)
def test_a_read_only_command_where_no_project_is_indexed_says_so_and_creates_nothing(
    make_repo, tmp_path: Path, command: list[str]
) -> None:
    root = make_repo({"a.py": "def f():\n    return 1\n"})
    result = runner.invoke(app, [*command, "--repo", str(root)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert result.exit_code == 1, result.output
    assert f"no project is indexed at {root}" in result.output
    assert not (root / ".tenure").exists()
    assert not (tmp_path / "config" / "tenure").exists()  # no key file made for memories that are not there


def test_index_from_inside_an_indexed_project_indexes_that_project(make_repo) -> None:
    root = make_repo({"a.py": "def f():\n    return 1\n", "examples/demo.py": "from a import f\n\nf()\n"})
    assert runner.invoke(app, ["index", "--repo", str(root)]).exit_code == 0
    for how in (["index", str(root / "examples")], ["index", "--repo", str(root / "examples")]):
        result = runner.invoke(app, [*how, "--json"])
        assert result.exit_code == 0, result.output
        assert not (root / "examples" / ".tenure").exists()  # no project nested in the project
        assert json.loads(result.output)["files_seen"] == 2
    said = runner.invoke(app, ["index", "--repo", str(root / "examples")])
    assert f"indexing the project at {root}" in said.output
    found = runner.invoke(app, ["recall", "x", "--repo", str(root / "examples")])  # ... which the queries read
    assert found.exit_code == 0, found.output
    clash = runner.invoke(app, ["index", str(root), "--repo", str(root / "examples")])
    assert clash.exit_code == 2 and "give one" in clash.output


def test_index_of_a_directory_in_no_indexed_project_indexes_that_directory(git_repo) -> None:
    # (the README's quick start: `tenure index sample/payments` inside tenure's own checkout)
    git_repo.commit("start", {"a.py": "x = 1\n", "sample/payments/pay.py": "def pay():\n    return 1\n"})
    result = runner.invoke(app, ["index", str(git_repo.root / "sample" / "payments"), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["files_seen"] == 1
    assert (git_repo.root / "sample" / "payments" / ".tenure").is_dir() and not (git_repo.root / ".tenure").exists()


def test_a_folder_its_git_repository_ignores_is_a_project_of_its_own(git_repo) -> None:
    from tenure.api import find_root

    git_repo.commit("start", {".gitignore": "vendor/\n", "a.py": "x = 1\n", "vendor/lib/b.py": "y = 2\n"})
    assert find_root(git_repo.root / "vendor" / "lib") == (git_repo.root / "vendor" / "lib").resolve()
    (git_repo.root / "src").mkdir()
    assert find_root(git_repo.root / "src") == git_repo.root.resolve()


def test_missing_directory_names_the_option(tmp_path: Path) -> None:
    result = runner.invoke(app, ["status", "--repo", str(tmp_path / "nowhere")])
    assert result.exit_code == 2 and "pass --repo" in result.output


@pytest.mark.parametrize("command", [["ui"], ["serve", "--http"]], ids=" ".join)
def test_busy_port_names_the_option(command: list[str], make_repo) -> None:
    root = make_repo({"a.py": ""})
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = runner.invoke(app, [*command, "--port", str(port), "--repo", str(root)])
    assert result.exit_code == 2 and "pass --port" in result.output


def test_paths_and_names_are_printed_as_they_are_not_read_as_markup(make_repo) -> None:
    root = make_repo({"pages/[id].js": "export function Page() {\n  return load()\n}\n\nfunction load() {}\n"})
    assert runner.invoke(app, ["index", str(root)]).exit_code == 0
    found = runner.invoke(app, ["find", "Page", "--repo", str(root)])
    assert found.exit_code == 0 and "pages/[id].js:1" in found.output
    missing = runner.invoke(app, ["what-breaks", "x", "--repo", str(root / "nope[/red]")])
    assert missing.exit_code == 2 and "nope[/red] is not a directory" in missing.output


def test_a_database_tenure_cannot_read_is_one_line_of_error(make_repo) -> None:
    root = make_repo({"a.py": "def f():\n    pass\n"})
    (root / ".tenure").mkdir()
    (root / ".tenure" / "tenure.db").write_bytes(b"not a database" * 100)
    out = subprocess.run([sys.executable, "-m", "tenure.cli", "status", "--repo", str(root)],
                         capture_output=True, text=True, env={**os.environ, "TENURE_ENRICH": "off"})
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.startswith("error: the project's database (.tenure/tenure.db) is damaged")
    assert "Do not delete it" in out.stderr and "`tenure repair`" in out.stderr


def test_a_count_of_one_reads_as_english(make_repo) -> None:
    root = make_repo({"a.py": "def f(code):\n    return eval(code)\n\n\ndef g():\n    return f('1')\n"})
    indexed = runner.invoke(app, ["index", str(root)]).output
    assert "indexed 1 file in" in indexed and "1 files" not in indexed
    status = runner.invoke(app, ["status", "--repo", str(root)]).output
    assert "1 dynamic call site may reach anything" in status
    (root / "a.py").write_text("def f(code):\n    return code\n")
    answer = runner.invoke(app, ["what-breaks", "a.f", "--repo", str(root)]).output
    assert "1 caller (1 inferred)" in answer and "1 file changed since" in answer


def test_plural_of_a_noun_and_a_phrase() -> None:
    assert [plural(w, 2) for w in ("call site", "memory", "day", "dispatch", "class", "entity")] == [
        "call sites", "memories", "days", "dispatches", "classes", "entities"]
    assert counted(1, "interface dispatch") == "1 interface dispatch"
    assert counted(2, "citation in the code") == "2 citations in the code"


def test_one_past_attempt_and_one_test_are_said_in_the_singular(git_repo) -> None:
    # (httpx 0.27.2 as one commit: `tenure ask` said "1 past attempts on httpx._client.Client.send";
    # cobra: "1 test in 1 file depend on VisitParents")
    git_repo.commit("start", {"pay.py": "def pay():\n    return 1\n",
                              "test_pay.py": "import pay\n\n\ndef test_pay():\n    assert pay.pay() == 1\n"})
    from tenure import Tenure

    with Tenure.open(git_repo.root, discover=False) as t:
        t.index()
        t.read_history()
        text = t.ask("I am changing pay.pay, what breaks and has anyone tried this before?")["text"]
    assert "1 past attempt on pay.pay " in text and "1 test in 1 file depends on it" in text
