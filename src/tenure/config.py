"""The project's own settings: `tenure.toml` at its root, a table per part of tenure (`[jvm]`, `[lsp]`,
`[episodic]`, `[procedural]`, `[procedures.*]`)."""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import TypeVar

from tenure.refusal import Refusal

CONFIG_FILE = "tenure.toml"
T = TypeVar("T")
SHARE = {"share": True}  # a dataclass field's metadata: the setting is a share, at most 1


class ConfigError(Refusal):
    """tenure.toml cannot be read: the message names the file and what is wrong with it."""


class ConfigUnreadable(ConfigError):
    """The file is no TOML at all (not one of its tables is wrong)."""


def project_table(root: Path, name: str) -> dict:
    """Table `name` of the project's tenure.toml ({} without the file or the table)."""
    return toml_table(root / CONFIG_FILE, name)


def toml_table(path: Path, name: str) -> dict:
    """Table `name` of the TOML file at `path` ({} without the file or the table)."""
    return table_of(read_toml(path), path, name)


def read_toml(path: Path) -> dict:
    """The TOML file at `path` ({} without it); ConfigError naming it when it cannot be read."""
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigUnreadable(f"{path}: {exc}") from exc
    except RecursionError as exc:  # arrays in arrays thousands deep
        raise ConfigUnreadable(f"{path}: nested too deep to read") from exc


def table_of(document: dict, path: Path, name: str) -> dict:
    """Table `name` of `document`, the TOML file at `path` ({} without the table)."""
    table = document.get(name, {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: `{name}` must be a table ([{name}])")
    return table


def string_list(table: Mapping[str, object], key: str, where: str, what: str = "strings", *, blank: bool = True,
                empty: bool = True, error: type[Exception] = ConfigError) -> list[str]:
    """Setting `key` of `table` as the list of strings it must be ([] when it is not set); else `error`
    naming `where` (the file and its table: "tenure.toml: [jvm]"), the setting and what it holds.
    `what`: what its strings are, in the message; `blank`: whether one may be blank; `empty`: whether
    the list may be."""
    value = table.get(key, [])
    if not (isinstance(value, list) and (empty or value)
            and all(isinstance(v, str) and (blank or v.strip()) for v in value)):
        raise error(f"{where} {key} must be a list of {what}, not {value!r}")
    return value


def load_settings(root: Path, name: str, cls: type[T]) -> T:
    """The `[name]` table as the dataclass `cls` (defaults for what it leaves out): numbers must be
    positive (a count whole, a share at most 1), strings strings; an unknown key is an error (a typo
    would silently keep the default)."""
    table = project_table(root, name)
    known = {f.name: f for f in fields(cls)}
    if unknown := sorted(set(table) - set(known)):
        raise ConfigError(f"{CONFIG_FILE}: [{name}] has no setting {unknown[0]!r} (known: {', '.join(known)})")
    values = {}
    for key, value in table.items():
        default = getattr(cls, key)
        if isinstance(default, str):
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(f"{CONFIG_FILE}: [{name}] {key} must be a non-empty string, not {value!r}")
        elif wrong := number_error(value, whole=isinstance(default, int), share=bool(known[key].metadata.get("share"))):
            raise ConfigError(f"{CONFIG_FILE}: [{name}] {key} must be {wrong}, not {value!r}")
        values[key] = type(default)(value)
    return cls(**values)


def number_error(value: object, whole: bool = False, share: bool = False) -> str:
    """What a setting's number must be, when `value` is not that ("" when it is): above 0 and finite
    (`inf` and `nan` are TOML floats), whole for a count, at most 1 for a share; never a boolean."""
    wanted = "a whole number above 0" if whole else "a share above 0 and at most 1" if share else "a number above 0"
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
        return wanted
    if whole and value != int(value) or share and value > 1:
        return wanted
    return ""
