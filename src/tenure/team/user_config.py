"""The user's own tenure config (`$XDG_CONFIG_HOME/tenure/config.toml`, default `~/.config`): settings a
cloned repository must not choose for the user (which database server, which organisation)."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from tenure.config import ConfigError


def user_config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "tenure" / "config.toml"


def user_table(name: str) -> dict:
    """Table `name` of the user's config ({} without the file or the table)."""
    path = user_config_path()
    if not path.is_file():
        return {}
    try:
        table = tomllib.loads(path.read_text("utf-8")).get(name, {})
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: `{name}` must be a table ([{name}])")
    return table
