"""Every graph `tenure` stores is the one a process seeded with 0 builds: `tenure index` restarts
seeded when its result would follow its own random string-hash seed (or up front: a watcher, a large
run), and keeps it otherwise; the commands that only read the graph start once."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tenure import Tenure, entry
from tenure.structural import indexer, workers
from tests.conftest import FIXTURES


def _restart_recorded(monkeypatch) -> list[tuple[list[str], str]]:
    """os.execv recorded (args, the seed it passes) and ended, instead of done: the real one never returns."""
    monkeypatch.delenv("PYTHONHASHSEED", raising=False)
    calls: list[tuple[list[str], str]] = []

    def execv(path: str, args: list[str]) -> None:
        assert path == sys.executable
        calls.append((args[1:], os.environ["PYTHONHASHSEED"]))
        raise SystemExit(0)

    monkeypatch.setattr(os, "execv", execv)
    return calls


@pytest.mark.parametrize("seed", [None, ""], ids=["unset", "empty (Python then picks one at random)"])
def test_a_watcher_restarts_itself_with_a_fixed_hash_seed_before_it_starts(monkeypatch, seed: str | None) -> None:
    calls = _restart_recorded(monkeypatch)
    if seed is not None:
        monkeypatch.setenv("PYTHONHASHSEED", seed)
    monkeypatch.setattr(sys, "argv", ["tenure", "index", "--watch", "repo"])
    with pytest.raises(SystemExit):
        entry.main()
    assert calls == [(["-P", "-m", "tenure.cli", "index", "--watch", "repo"], "0")]


SATURATING = "".join(f"class C{n}:\n    pass\n\n\n" for n in range(30)) + (
    "def same(x):\n    return x\n\n\n" + "".join(f"same(C{n}())\n" for n in range(30)))


def test_an_update_whose_resolution_followed_the_hash_seed_is_rolled_back_and_run_seeded(
        monkeypatch, make_repo) -> None:
    """30 classes flow into one parameter: which 24 of them it keeps follows the iteration order."""
    root = make_repo({"app.py": "def f():\n    return 1\n"})
    with Tenure.open(root) as t:
        t.index()
    (root / "many.py").write_text(SATURATING)
    calls = _restart_recorded(monkeypatch)
    with pytest.raises(SystemExit):
        entry.run_cli(["index", "--json", str(root)])
    assert calls == [(["-P", "-m", "tenure.cli", "index", "--json", str(root)], "0")]
    with Tenure.open(root) as t:  # nothing of the unseeded run was kept
        assert t.find_symbol("many.same").matches == []


def test_an_update_that_followed_no_order_is_kept_without_a_restart(monkeypatch, make_repo, capsys) -> None:
    root = make_repo({"app.py": "def f():\n    return 1\n"})
    with Tenure.open(root) as t:
        t.index()
    (root / "more.py").write_text("from app import f\n\n\ndef g():\n    return f()\n")
    calls = _restart_recorded(monkeypatch)
    with pytest.raises(SystemExit) as ended:
        entry.run_cli(["index", "--json", str(root)])
    assert calls == []
    assert ended.value.code == 0 and '"files_parsed": 1' in capsys.readouterr().out
    with Tenure.open(root) as t:
        assert [d["symbol"] for d in t.what_breaks("app.f")["dependants"]] == ["more.g", "more"]


def test_a_first_index_restarts_seeded_before_it_starts(monkeypatch, tmp_path) -> None:
    """Most first indexes are large: restarting before the product loads costs an interpreter start."""
    calls = _restart_recorded(monkeypatch)
    with pytest.raises(SystemExit):
        entry.run_cli(["index", "--json", str(tmp_path)])
    assert calls == [(["-P", "-m", "tenure.cli", "index", "--json", str(tmp_path)], "0")]


THREE_MODULES = {f"m{n}.py": f"def f{n}():\n    return {n}\n" for n in range(3)}


@pytest.mark.parametrize(("before", "after", "read_first"), [
    ({"app.py": "def f():\n    return 1\n"}, THREE_MODULES, False),
    (THREE_MODULES, {path: text.replace("return", "return 1 +") for path, text in THREE_MODULES.items()}, True),
], ids=["new files", "changed files"])
def test_a_run_past_the_worker_threshold_restarts_seeded_before_it_parses(
        monkeypatch, make_repo, before: dict[str, str], after: dict[str, str], read_first: bool) -> None:
    """Past PARALLEL_THRESHOLD files, resolution runs in workers, whose order nobody watches. New
    files tell so before they are read; changed ones once their content is (it may be the same)."""
    monkeypatch.setattr(workers, "PARALLEL_THRESHOLD", 2)
    root = make_repo(before)
    with Tenure.open(root) as t:
        t.index()
    for path, text in after.items():
        (root / path).write_text(text)
    calls = _restart_recorded(monkeypatch)
    monkeypatch.setattr(workers, "parse_all", lambda *args: pytest.fail("parsed before the restart"))
    if not read_first:
        monkeypatch.setattr(indexer, "inspect_file", lambda *args: pytest.fail("read files it need not"))
    with pytest.raises(SystemExit):
        entry.run_cli(["index", str(root)])
    assert calls == [(["-P", "-m", "tenure.cli", "index", str(root)], "0")]


EDGES_OF_EVERY_FIXTURE = """
import json, shutil, sys
from pathlib import Path
from tenure import Tenure
from tenure.structural import resolve
out = {}
for case in sorted(Path(sys.argv[1]).iterdir()):
    root = shutil.copytree(case, Path(sys.argv[2]) / case.name)
    before = resolve.order_dependence()
    with Tenure.open(root) as t:
        t.index()
        out[case.name] = [resolve.order_dependence() - before, sorted(map(json.dumps, t.export_edges()))]
print(json.dumps(out))
"""


def test_a_resolution_that_met_no_cap_finds_the_same_graph_under_every_hash_seed(tmp_path) -> None:
    """What lets `tenure index` keep an unseeded run: when no capped set dropped a value and no
    fixpoint ran out of budget, every order finds the same graph. Every graph fixture, three seeds."""
    runs = {}
    for seed in ("0", "1", "2"):
        (tmp_path / seed).mkdir()
        command = [sys.executable, "-c", EDGES_OF_EVERY_FIXTURE, str(FIXTURES / "graph"), str(tmp_path / seed)]
        out = subprocess.run(command, env={**os.environ, "PYTHONHASHSEED": seed, "TENURE_ENRICH": "off"},
                             capture_output=True, text=True, check=True).stdout
        runs[seed] = json.loads(out)
    for case, (met_a_cap, edges) in runs["0"].items():
        assert met_a_cap == 0 and edges, case
        assert runs["1"][case] == runs["2"][case] == [0, edges], case


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


@pytest.mark.parametrize("module", ["tenure.cli", "tenure"])
def test_python_dash_m_tenure_runs_with_the_same_seed_as_the_command(module: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}
    out = subprocess.run([sys.executable, "-m", module, "--help"], env=env, capture_output=True, text=True)
    assert out.returncode == 0 and "Usage" in out.stdout
    # what it runs when no seed is set: itself again, seeded (execv recorded instead of done)
    seeded = subprocess.run(
        [sys.executable, "-c", "import os, runpy, sys; sys.argv = ['x', 'index', '--watch', '--help']; "
         "os.execv = lambda path, args: print('RESTART', os.environ['PYTHONHASHSEED'], args[1:4]) or sys.exit(0); "
         "runpy.run_module('tenure.cli', run_name='__main__')"],
        env=env, capture_output=True, text=True)
    assert "RESTART 0 ['-P', '-m', 'tenure.cli']" in seeded.stdout


def test_the_seeded_restart_does_not_import_the_projects_own_modules(tmp_path) -> None:
    """`cd src/flask && tenure index`: flask's typing.py and json/ lie in the current directory, and
    `python -m` would put it first on sys.path, where they shadow the standard library's."""
    project = tmp_path / "pkg"
    project.mkdir()
    shadow = "raise SystemExit('the project\\'s own {} was imported in place of the standard library\\'s')\n"
    (project / "typing.py").write_text(shadow.format("typing.py"))
    (project / "json.py").write_text(shadow.format("json.py"))
    (project / "app.py").write_text("import typing\n\n\ndef run() -> typing.Any:\n    return run()\n")
    script = tmp_path / "bin" / "tenure"  # what the console script is: its directory goes on sys.path, not ours
    script.parent.mkdir()
    script.write_text("from tenure.entry import main\nmain()\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}  # a first index restarts seeded
    out = subprocess.run([sys.executable, str(script), "index", "--json"], cwd=project, env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.splitlines()[-1])["files_seen"] == 3
