"""The runtime's own functions and methods, as runtime.toml describes them (see its header)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources


@dataclass(frozen=True)
class Builtin:
    callback: tuple[int, ...] = ()
    args: tuple[str, ...] = ()
    returns: str = "nothing"
    adds: bool = False
    initial: int = -1
    items: int = -1


@cache
def _raw() -> dict:
    return tomllib.loads(resources.files(__package__).joinpath("runtime.toml").read_text("utf-8"))


@cache
def table(section: str) -> dict[str, Builtin]:
    """One section of runtime.toml: array, promise (methods), functions, constructors (by name)."""
    return {name: Builtin(**{k: tuple(v) if isinstance(v, list) else v for k, v in entry.items()})
            for name, entry in _raw()[section].items()}


MUTATORS = frozenset(_raw()["writes_properties"]["functions"])
"""The runtime's functions that write properties of the objects they are given in ways the analysis
does not follow (a strong update cannot rely on a property across a call of one)."""
