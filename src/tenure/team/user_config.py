"""The user's own tenure config (`$XDG_CONFIG_HOME/tenure/config.toml`, default `~/.config`): settings a
cloned repository must not choose for the user (which database server, which organisation)."""

from __future__ import annotations

import os
from pathlib import Path

from tenure.config import toml_table


def user_config_dir() -> Path:
    """The user's tenure directory (config.toml, the projects' key files)."""
    return Path(os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")) / "tenure"


def user_config_path() -> Path:
    return user_config_dir() / "config.toml"


def user_table(name: str) -> dict:
    """Table `name` of the user's config ({} without the file or the table)."""
    return toml_table(user_config_path(), name)
