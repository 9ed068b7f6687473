"""The project's own settings: `tenure.toml` at its root, a table per part of tenure (`[jvm]`, `[lsp]`)."""

from __future__ import annotations

import tomllib
from pathlib import Path

CONFIG_FILE = "tenure.toml"


class ConfigError(ValueError):
    """tenure.toml cannot be read: the message names the file and what is wrong with it."""


def project_table(root: Path, name: str) -> dict:
    """Table `name` of the project's tenure.toml ({} without the file or the table)."""
    path = root / CONFIG_FILE
    if not path.is_file():
        return {}
    try:
        table = tomllib.loads(path.read_text("utf-8")).get(name, {})
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc
    except RecursionError as exc:  # arrays in arrays thousands deep
        raise ConfigError(f"{path}: nested too deep to read") from exc
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: `{name}` must be a table ([{name}])")
    return table
