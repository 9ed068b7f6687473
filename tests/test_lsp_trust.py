"""A cloned repository is someone else's input: the language servers tenure starts on its own (the
enrichment `tenure index` begins) never run code the repository chose."""

from __future__ import annotations

from pathlib import Path

import pytest

from tenure.structural.lsp.servers import ServerRefused, server_table, untrusted
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
    assert options == {"tsserver": {"path": str(tmp_path / "global" / "node_modules" / "typescript" / "lib" /
                                                 "tsserver.js")}}


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
