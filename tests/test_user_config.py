"""The user's own tenure config: read once per process and again once the file changes; what it trusts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tenure.config import ConfigError
from tenure.team import user_config
from tenure.team.user_config import trusts, user_config_path, user_table


def _write(text: str, age_s: int = 0) -> None:
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if age_s:  # (an mtime well past the racy window: the file as a long-running process finds it)
        old = path.stat().st_mtime_ns - age_s * 1_000_000_000
        os.utime(path, ns=(old, old))


def test_the_users_config_is_read_once_while_it_stays_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    _write('[lsp]\ntrusted_projects = ["/a"]\n', age_s=60)
    reads = []
    read = user_config.read_toml
    monkeypatch.setattr(user_config, "read_toml", lambda path: reads.append(path) or read(path))
    assert user_table("lsp") == {"trusted_projects": ["/a"]}
    assert user_table("lsp") == {"trusted_projects": ["/a"]} and user_table("team") == {}
    assert len(reads) == 1


def test_a_changed_config_is_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    _write('[lsp]\ntrusted_projects = ["/a"]\n', age_s=60)
    assert user_table("lsp") == {"trusted_projects": ["/a"]}
    _write('[lsp]\ntrusted_projects = ["/b"]\n')  # same size; a new mtime
    assert user_table("lsp") == {"trusted_projects": ["/b"]}
    _write('[lsp]\ntrusted_projects = ["/c"]\n')  # same size, maybe the same mtime: within the racy window
    assert user_table("lsp") == {"trusted_projects": ["/c"]}
    user_config_path().unlink()
    assert user_table("lsp") == {}


def test_a_config_rewritten_in_place_with_its_mtime_put_back_is_read_again() -> None:
    """cp -p, rsync -t and touch -r put the old mtime back on a file of the same size and inode: a
    long-running server kept the trust the user had just revoked."""
    _write('[lsp]\ntrusted_projects = ["/a"]\n', age_s=60)
    path = user_config_path()
    before = path.stat()
    assert user_table("lsp") == {"trusted_projects": ["/a"]}
    with path.open("r+") as file:  # (in place: the same inode)
        file.write('[lsp]\ntrusted_projects = ["/b"]\n')
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_mtime_ns, after.st_size, after.st_ino) == (before.st_mtime_ns, before.st_size, before.st_ino)
    assert user_table("lsp") == {"trusted_projects": ["/b"]}


@pytest.mark.parametrize("entry", ["", ".", " ", "repo", "./repo", "~unknown-user-h42/repo"])
def test_a_trusted_project_must_be_an_absolute_folder(entry: str, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """"" or "." resolved against the current directory: it trusted whatever project tenure ran in."""
    project = tmp_path / "repo"
    project.mkdir()
    monkeypatch.chdir(project if entry.strip() in ("", ".") else tmp_path)
    _write(f'[procedures]\ntrusted_projects = ["{tmp_path}/other", "{entry}"]\n')
    with pytest.raises(ConfigError) as refused:
        trusts("procedures", project)
    assert str(refused.value) == (f"{user_config_path()}: [procedures] trusted_projects entry {entry!r} is not an"
                                  " absolute path: it would trust whatever project tenure runs in")
    _write(f'[procedures]\ntrusted_projects = ["{project}/../repo"]\n')
    assert trusts("procedures", project)
