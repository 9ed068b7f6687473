"""The language table: which files are which language and what tenure knows about each.

Per-language knowledge lives in `languages.toml` and the query files in `queries/`; code here only
reads them. Adding a language is a table entry plus a `.scm` file.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

from tenure.structural.memo import Memo

if TYPE_CHECKING:  # the grammars are loaded by what parses: a command that reads the index never does
    from tree_sitter import Language, Parser, Query


@dataclass(frozen=True)
class LanguageSpec:
    name: str  # tenure's name, e.g. "typescript"
    grammar: str  # tree-sitter-language-pack grammar name
    extensions: tuple[str, ...]
    filenames: tuple[str, ...] = ()  # exact file names ("Makefile", "Dockerfile")
    # Query files in queries/, concatenated; defaults to "<name>.scm". A grammar that extends
    # another's node names reuses its file ("cpp.scm" for CUDA), one that adds to it lists both.
    queries: tuple[str, ...] = ()
    # How a file's path (and declared package) becomes its module name: "python" (dotted import
    # path from its import root), "package" (declared package, JVM/.NET style), "go" (package
    # directory), "path" (relative path without extension).
    module_scheme: str = "path"
    # Separator between a nested type and its outer type (javac writes Outer$Inner).
    nested_type_separator: str = "."
    self_names: tuple[str, ...] = ()  # receivers meaning "this object": self, this, cls
    extractor: str = "query"  # "query" for the generic one, or a dedicated module's name
    resolver: str = "generic"
    type_kinds: tuple[str, ...] = ("class", "interface", "struct", "enum", "trait", "type", "object")
    extra: dict[str, object] = field(default_factory=dict, hash=False, compare=False)

    @property
    def language(self) -> Language:
        from tree_sitter_language_pack import get_language

        return get_language(self.grammar)  # type: ignore[arg-type]

    def parser(self) -> Parser:
        from tree_sitter_language_pack import get_parser

        return get_parser(self.grammar)  # type: ignore[arg-type]

    @property
    def query(self) -> Query:
        return _query(self)

    @property
    def query_text(self) -> str:
        return _query_text(self)


@cache
def _query_text(spec: LanguageSpec) -> str:
    folder = resources.files("tenure.structural.queries")
    return "\n".join(folder.joinpath(name).read_text("utf-8") for name in spec.queries)


@cache
def _query(spec: LanguageSpec) -> Query:
    from tree_sitter import Query

    return Query(spec.language, _query_text(spec))


@cache
def language_table() -> dict[str, LanguageSpec]:
    raw = tomllib.loads(
        resources.files("tenure.structural").joinpath("languages.toml").read_text("utf-8")
    )
    table = {}
    known = set(LanguageSpec.__dataclass_fields__)
    for name, entry in raw.items():
        fields = {k: tuple(v) if isinstance(v, list) else v for k, v in entry.items() if k in known}
        fields.setdefault("queries", (f"{name}.scm",))
        extra = {k: v for k, v in entry.items() if k not in known}
        table[name] = LanguageSpec(name=name, extra=extra, **fields)
    return table


@cache
def _by_extension() -> dict[str, LanguageSpec]:
    index: dict[str, LanguageSpec] = {}
    for spec in language_table().values():
        for key in (*spec.extensions, *spec.filenames):
            index.setdefault(key, spec)
    return index


DECLARATIONS = (".pyi", ".d.ts", ".d.mts", ".d.cts")  # files of types only: the code they declare is elsewhere


def is_declaration(path: str) -> bool:
    """A Python stub or a TypeScript declaration file: its functions have no body, and the calls of
    what it declares are linked to the code that defines it."""
    return path.endswith(DECLARATIONS)


def language_for(path: str) -> LanguageSpec | None:
    """The language of a file by its name, or None when tenure does not index it. (String
    operations, not PurePath, and one lookup per suffix chain: this runs for every file of the tree
    on every index.)"""
    name = path.rpartition("/")[2]
    index = _by_extension()
    if name in index:
        return index[name]
    return _BY_SUFFIXES[name.lstrip(".").partition(".")[2]]  # (a leading dot is a hidden file, not a suffix)


def _by_suffixes(suffixes: str) -> LanguageSpec | None:
    """The language of a name's suffixes ("d.ts" of "x.d.ts"), the longest compound one first:
    ".d.ts" before ".ts"."""
    parts = suffixes.split(".") if suffixes else []
    index = _by_extension()
    for i in range(len(parts)):
        spec = index.get("." + ".".join(parts[i:]).lower())
        if spec:
            return spec
    return None


_BY_SUFFIXES = Memo(_by_suffixes, 1 << 14)
