"""The user's own tenure config (`$XDG_CONFIG_HOME/tenure/config.toml`, default `~/.config`): settings a
cloned repository must not choose for the user (which database server, which organisation)."""

from __future__ import annotations

import os
from pathlib import Path

from tenure.config import ConfigError, project_table, toml_table


def user_config_dir() -> Path:
    """The user's tenure directory (config.toml, the projects' key files)."""
    return Path(os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")) / "tenure"


def user_config_path() -> Path:
    return user_config_dir() / "config.toml"


def repository_team(root: Path) -> tuple[dict, str]:
    """The repository's own `[team]` table of tenure.toml, and "" — or {} and why it cannot be read (a
    repository's broken file never stops tenure from opening the project: its choices are only unused)."""
    try:
        return project_table(root, "team"), ""
    except ConfigError as exc:
        return {}, f"; tenure.toml cannot be read ({exc}), its [team] is not used"


def user_table(name: str) -> dict:
    """Table `name` of the user's config ({} without the file or the table)."""
    return toml_table(user_config_path(), name)


def trusts(table: str, root: Path) -> bool:
    """Whether the user's config lists `root` in `[<table>] trusted_projects` (a list of project folders)."""
    folders = user_table(table).get("trusted_projects", [])
    if not (isinstance(folders, list) and all(isinstance(p, str) for p in folders)):
        raise ConfigError(f"{user_config_path()}: [{table}] trusted_projects must be a list of project folders")
    return any(Path(p).expanduser().resolve() == root.resolve() for p in folders)
