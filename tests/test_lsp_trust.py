"""A cloned repository is someone else's input: the language servers tenure starts on its own (the
enrichment `tenure index` begins) never run code the repository chose."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tenure import Tenure
from tenure.structural.lsp.servers import ServerRefused, plan, server_table, untrusted
from tenure.team.user_config import user_config_path


def _install(folder: Path, *files: str) -> Path:
    """A Node install of the server at `folder`: its program, and `files` beside it."""
    program = folder / "node_modules" / "typescript-language-server" / "lib" / "cli.mjs"
    for path in (program, *(folder / "node_modules" / f for f in files)):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
    return program


def test_the_typescript_server_is_handed_the_tsserver_installed_beside_it_not_the_repositorys(
        tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "node_modules" / "typescript" / "lib").mkdir(parents=True)
    (root / "node_modules" / "typescript" / "lib" / "tsserver.js").write_text("")
    program = _install(tmp_path / "global", "typescript/lib/tsserver.js")
    options = server_table()["typescript-language-server"].options(str(program), root)
    assert options["tsserver"]["path"] == str(tmp_path / "global" / "node_modules" / "typescript" / "lib" /
                                              "tsserver.js")


def test_without_a_tsserver_beside_it_the_typescript_server_is_not_started(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "node_modules" / "typescript" / "lib").mkdir(parents=True)
    (root / "node_modules" / "typescript" / "lib" / "tsserver.js").write_text("")
    program = _install(tmp_path / "global")
    with pytest.raises(ServerRefused, match="typescript/lib/tsserver.js installed beside it"):
        server_table()["typescript-language-server"].options(str(program), root)


def test_servers_that_run_the_projects_build_start_only_for_projects_the_user_trusts(
        tmp_path: Path) -> None:
    """rust-analyzer runs cargo (build scripts, proc macros, .cargo/config.toml wrappers), jdtls runs a
    Gradle project's gradlew: as an editor asks before trusting a folder, the user's config names it."""
    config = user_config_path()  # (each test's own: conftest)
    root = tmp_path / "repo"
    root.mkdir()
    table = server_table()
    for name in ("rust-analyzer", "jdtls"):
        why = untrusted(table[name], root)
        assert why.startswith(f"{name} not started: it ") and "[lsp] trusted_projects" in why
    assert untrusted(table["basedpyright"], root) == ""
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[lsp]\ntrusted_projects = ["{root}"]\n')
    assert untrusted(table["rust-analyzer"], root) == untrusted(table["jdtls"], root) == ""


def test_basedpyright_is_answered_tenures_python_for_a_project_not_trusted(tmp_path: Path) -> None:
    """Left to itself it runs a Python the repository holds (.venv/bin/python) to learn its search paths."""
    root = tmp_path / "repo"
    root.mkdir()
    spec = server_table()["basedpyright"]
    assert spec.settings(root) == {"python": {"pythonPath": sys.executable}}
    user_config_path().parent.mkdir(parents=True, exist_ok=True)
    user_config_path().write_text(f'[lsp]\ntrusted_projects = ["{root}"]\n')
    assert spec.settings(root) == {}


def _planted_interpreter(marker: Path) -> dict[str, str]:
    """A repository's .venv/bin/python that leaves `marker` when it runs, and forwards to a real Python."""
    script = f"#!/bin/sh\necho ran >> '{marker}'\nexec '{sys.executable}' \"$@\"\n"
    return {".venv/bin/python": script, ".venv/bin/python3": script, ".venv/pyvenv.cfg": "home = /usr/bin\n",
            "pkg/a.py": "def f():\n    return 1\n\n\ndef g():\n    return f()\n"}


def test_basedpyright_never_runs_a_python_interpreter_the_repository_holds(make_indexed_repo,
                                                                          tmp_path: Path) -> None:
    """Left to itself basedpyright runs the project's interpreter (a .venv in the root) to learn its
    search paths: for a project the user's config does not trust,
    it is handed the Python that runs tenure; the trusted project's own environment is used."""
    def enriched(name: str) -> tuple[dict, bool]:
        marker = tmp_path / f"{name} ran"
        root = make_indexed_repo(_planted_interpreter(marker), name)
        for path in root.glob("*/bin/python*"):
            path.chmod(0o755)
        with Tenure.open(root, discover=False) as t:
            return t.enrich(), marker.exists()

    report, ran = enriched("cloned")
    assert not ran
    assert report["languages"]["python"]["verified"] == 1
    config = user_config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[lsp]\ntrusted_projects = ["{tmp_path / "trusted"}"]\n')
    assert enriched("trusted")[1]  # (its own interpreter, as before: the user vouched for the project)


def test_a_server_program_the_repository_holds_is_not_run_when_path_leads_into_it(
        make_indexed_repo, monkeypatch, tmp_path: Path) -> None:
    """A PATH with an empty entry (`PATH=$PATH:`) or "." finds programs in the folder tenure runs in, the
    project's root: a committed `gopls` would be started as the Go server."""
    marker = tmp_path / "ran"
    root = make_indexed_repo({"main.go": "package main\n\nfunc f() int { return 1 }\n\nfunc main() { f() }\n",
                              "gopls": f"#!/bin/sh\necho ran > '{marker}'\n"})
    (root / "gopls").chmod(0o755)
    monkeypatch.chdir(root)
    monkeypatch.setenv("PATH", os.environ["PATH"] + os.pathsep)
    with Tenure.open(root, discover=False) as t:
        report = t.enrich(max_restarts=0)
    assert not marker.exists()
    assert "is a file of the repository" in report["refused"]["go"]


def test_the_programs_a_server_runs_are_never_looked_up_in_the_project(monkeypatch, tmp_path: Path) -> None:
    """The server runs in the project's root: with an empty PATH entry, the `go` gopls runs (or the
    `node` a server's `#!/usr/bin/env node` names) would be a file the repository commits."""
    from tenure.structural.lsp.client import LspClient

    marker = tmp_path / "ran"
    root = tmp_path / "repo"
    root.mkdir()
    (root / "go").write_text(f"#!/bin/sh\necho ran > '{marker}'\n")
    (root / "go").chmod(0o755)
    monkeypatch.setenv("PATH", os.pathsep + os.environ["PATH"] + os.pathsep + ".")
    client = LspClient(["/bin/sh", "-c", "go version"], root)
    client.process.wait(10)
    client.kill()
    assert not marker.exists()


def test_an_index_schedules_no_server_the_enrichment_would_refuse(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The index's "scheduled for <languages>" names only servers the run will start: rust-analyzer on
    PATH but the project untrusted is refused there, with why, not scheduled."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "rust-analyzer").write_text("#!/bin/sh\n")
    (bin_dir / "rust-analyzer").chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    root = tmp_path / "repo"
    root.mkdir()
    servers = plan(root, {"rust"})
    assert servers.runnable == {} and servers.refused["rust"].startswith("rust-analyzer not started: it runs cargo")
