"""`tenure index` runs with one string-hash seed, so every run builds the same graph; the commands
that only read the graph start once."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tenure import entry


def test_the_command_that_builds_the_graph_restarts_itself_with_a_fixed_hash_seed(monkeypatch) -> None:
    monkeypatch.delenv("PYTHONHASHSEED", raising=False)
    monkeypatch.setattr(sys, "argv", ["tenure", "index", "--json", "repo"])
    calls = []

    def execv(path: str, args: list[str]) -> None:
        calls.append((path, args, os.environ["PYTHONHASHSEED"]))
        raise SystemExit(0)  # the real one never returns

    monkeypatch.setattr(os, "execv", execv)
    with pytest.raises(SystemExit):
        entry.main()
    assert calls == [(sys.executable, [sys.executable, "-m", "tenure.cli", "index", "--json", "repo"], "0")]


@pytest.mark.parametrize("argv", [["what-breaks", "Order.total"], ["hook", "--help"], ["--help"], []])
def test_commands_that_only_read_the_graph_start_once(monkeypatch, tmp_path, argv: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PYTHONHASHSEED", raising=False)
    monkeypatch.setattr(sys, "argv", ["tenure", *argv])
    monkeypatch.setattr(os, "execv", lambda *a: pytest.fail("no restart for a command that reads the graph"))
    with pytest.raises(SystemExit):  # (typer exits: usage errors, help, or the command's end)
        entry.main()


def test_a_seed_the_user_set_is_kept(monkeypatch) -> None:
    monkeypatch.setenv("PYTHONHASHSEED", "123")
    monkeypatch.setattr(sys, "argv", ["tenure", "index", "--help"])
    monkeypatch.setattr(os, "execv", lambda *a: pytest.fail("no restart when the seed is set"))
    with pytest.raises(SystemExit):  # typer exits after printing the help
        entry.main()


def test_python_dash_m_tenure_cli_runs_with_the_same_seed_as_the_command() -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}
    out = subprocess.run([sys.executable, "-m", "tenure.cli", "--help"], env=env, capture_output=True, text=True)
    assert out.returncode == 0 and "Usage" in out.stdout
    # what it runs when no seed is set: itself again, seeded (execv recorded instead of done)
    seeded = subprocess.run(
        [sys.executable, "-c", "import os, runpy, sys; sys.argv = ['x', 'index', '--help']; "
         "os.execv = lambda path, args: print('RESTART', os.environ['PYTHONHASHSEED'], args[1:3]) or sys.exit(0); "
         "runpy.run_module('tenure.cli', run_name='__main__')"],
        env=env, capture_output=True, text=True)
    assert "RESTART 0 ['-m', 'tenure.cli']" in seeded.stdout
