"""The per-language table of languages.toml: git's diff driver, definition and decorator patterns."""

from __future__ import annotations

import re
import tomllib
from functools import cache
from importlib import resources

from tenure.structural.languages import language_table


@cache
def _table() -> dict[str, dict]:
    return tomllib.loads(resources.files("tenure.history").joinpath("languages.toml").read_text("utf-8"))


def _entry(language: str) -> dict:
    return _table().get(language, _table()["default"])


@cache
def definitions(language: str) -> list[re.Pattern[bytes]]:
    """Patterns whose group `name` is what a line defines (none for a file of no indexed language)."""
    return [re.compile(p.encode()) for p in _entry(language)["definitions"]] if language else []


@cache
def definition_words(language: str) -> re.Pattern[bytes] | None:
    """Finds the words one of which every line `definitions` match holds (None: no such words are known)."""
    words = definition_literals(language)
    return re.compile(b"|".join(map(re.escape, words))) if words else None


@cache
def definition_literals(language: str) -> tuple[bytes, ...]:
    """The words `definition_words` finds, each as it is written (none: no such words are known)."""
    return tuple(w.encode() for w in _entry(language).get("words", ())) if language else ()


@cache
def decorators(language: str) -> re.Pattern[bytes] | None:
    """The pattern of a line that belongs to the definition below it, if the language has such lines."""
    pattern = _entry(language).get("decorators") if language else None
    return re.compile(pattern.encode()) if pattern else None


@cache
def attributes() -> str:
    """A gitattributes file giving every language git has a built-in diff driver for that driver,
    so hunk headers name the enclosing definition (a repository's own .gitattributes still wins)."""
    table, lines = _table(), []
    for name, spec in language_table().items():
        driver = table.get(name, {}).get("diff")
        if driver:
            lines += [f"*{ext} diff={driver}" for ext in spec.extensions]
    return "\n".join(lines) + "\n"
