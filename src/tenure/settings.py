"""The project's own settings file, `tenure.toml` at its root: each store reads its table."""

from __future__ import annotations

import tomllib
from dataclasses import fields
from pathlib import Path
from typing import TypeVar

from tenure.refusal import Refusal

CONFIG_FILE = "tenure.toml"
T = TypeVar("T")


class SettingsError(Refusal):
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


def load_settings(root: Path, name: str, cls: type[T]) -> T:
    """The `[name]` table as the dataclass `cls` (defaults for what it leaves out): numbers must be
    positive, strings strings; an unknown key is an error (a typo would silently keep the default)."""
    table = project_table(root, name)
    known = {f.name: f for f in fields(cls)}
    if unknown := sorted(set(table) - set(known)):
        raise SettingsError(f"{CONFIG_FILE}: [{name}] has no setting {unknown[0]!r} (known: {', '.join(known)})")
    values = {}
    for key, value in table.items():
        default = getattr(cls, key)
        if isinstance(default, str):
            if not isinstance(value, str) or not value.strip():
                raise SettingsError(f"{CONFIG_FILE}: [{name}] {key} must be a non-empty string, not {value!r}")
        elif isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise SettingsError(f"{CONFIG_FILE}: [{name}] {key} must be a positive number, not {value!r}")
        values[key] = type(default)(value)
    return cls(**values)
