"""Code a project carries but did not write: a vendored library, a minified bundle. Such a file is
indexed for its symbols and its calls by name, but its language's full analysis (the JavaScript value
analysis, most of an index's cost where a project ships jQuery) is skipped; the reason is kept with its
facts (`FileFacts.read_cheaply`), and answers that count calls there say they are lower bounds
(gaps.py). What marks such a file is data (vendored.toml): path globs, a known library's header
comment, a line thousands of characters long. A project forces the full analysis of paths with
`[index] full_analysis = ["glob", ...]` in its tenure.toml. A file too large (more syntax nodes than
`max_syntax_nodes`, in any language) is read more cheaply still: its symbols and the names it calls, no
call linked (`too_large_because`)."""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import cache
from importlib import resources
from pathlib import Path

from tenure.config import CONFIG_FILE, ConfigUnreadable, project_table, string_list
from tenure.structural.facts import FileFacts

__all__ = ["TOO_LARGE", "Vendoring", "calls_cut", "cheap_reason", "full_analysis_globs", "read_cheaply_because",
           "settings_digest", "too_large_because"]

TOO_LARGE = "too large"  # how the reason of a file read for its symbols alone starts


@dataclass(frozen=True)
class Vendoring:
    languages: frozenset[str]
    paths: tuple[str, ...]
    headers: tuple[tuple[str, re.Pattern[str]], ...]
    long_line: int
    long_lists: tuple[str, ...]
    head_bytes: int
    max_syntax_nodes: int


@cache
def vendoring() -> Vendoring:
    raw = tomllib.loads(resources.files("tenure.structural").joinpath("vendored.toml").read_text("utf-8"))
    return Vendoring(frozenset(raw["languages"]), tuple(raw["paths"]),
                     tuple((name, re.compile(pattern)) for name, pattern in raw["headers"].items()),
                     raw["long_line"], tuple(raw["long_lists"]), raw["head_bytes"], raw["max_syntax_nodes"])


def read_cheaply_because(language: str, path: str, content: bytes, full_analysis: tuple[str, ...] = ()) -> str:
    """Why this file gets the cheaper pass ("" when it gets the full analysis): the first of a known
    library's header, a path pattern, a long line. `full_analysis`: the project's globs that force it."""
    table = vendoring()
    if language not in table.languages or any(fnmatchcase(path, glob) for glob in full_analysis):
        return ""
    head = content[:table.head_bytes].decode("utf-8", "replace")
    for name, pattern in table.headers:
        if found := pattern.search(head):
            version = found.groupdict().get("version")
            return f"vendored: {name} {version} header" if version else f"vendored: {name} header"
    if glob := next((g for g in table.paths if fnmatchcase(path, g)), None):
        return f"vendored: path matches {glob}"
    if any(len(line) >= table.long_line and not line.lstrip().startswith(table.long_lists)
           for line in head.splitlines()):
        return f"minified: a line of {table.long_line:,} characters or more"
    return ""


def too_large_because(nodes: int) -> str:
    """Why a file whose syntax tree holds this many nodes is read for its symbols alone ("": it is not)."""
    budget = vendoring().max_syntax_nodes
    return f"{TOO_LARGE}: {nodes:,} syntax nodes (more than {budget:,}); calls not linked" if nodes > budget else ""


def calls_cut(facts: FileFacts) -> bool:
    """Whether the file was too large to link its calls: its references are the names it calls, once each."""
    return facts.read_cheaply.startswith(TOO_LARGE)


def cheap_reason(facts: FileFacts) -> str:
    """What a resolver says of a file read cheaply (`ProjectView.note_read_cheaply`)."""
    return facts.read_cheaply if calls_cut(facts) else f"{facts.read_cheaply}; calls linked by name only"


def full_analysis_globs(root: Path) -> tuple[str, ...]:
    """The project's globs (tenure.toml `[index] full_analysis`) of paths always fully analysed. A
    tenure.toml that cannot be read at all stops no index: the sources that read it after the index name
    it in the report (and none is taken from it here)."""
    try:
        table = project_table(root, "index")
    except ConfigUnreadable:  # (`index = 3` is read: an error, as a wrong setting in the table)
        return ()
    return tuple(string_list(table, "full_analysis", f"{CONFIG_FILE}: [index]", "path globs", blank=False))


def settings_digest(globs: tuple[str, ...]) -> str:
    """What of the project's settings the facts depend on, to compare with the index's."""
    return hashlib.blake2b("\n".join(globs).encode(), digest_size=6).hexdigest() if globs else ""
