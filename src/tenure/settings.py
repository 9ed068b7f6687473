"""The project's own settings file, `tenure.toml` at its root: each store reads its table."""

from __future__ import annotations

import tomllib
from pathlib import Path

CONFIG_FILE = "tenure.toml"


class SettingsError(ValueError):
    """tenure.toml cannot be read, or a setting in it is wrong; the message names the file and the setting."""


def project_table(root: Path, name: str) -> dict:
    """The `[name]` table of the project's tenure.toml ({} without one); a broken file is an error that
    names the file rather than silently running the defaults."""
    path = Path(root) / CONFIG_FILE
    if not path.is_file():
        return {}
    try:
        table = tomllib.loads(path.read_text("utf-8")).get(name, {})
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path}: {exc}") from exc
    if not isinstance(table, dict):
        raise SettingsError(f"{path}: [{name}] must be a table")
    return table
