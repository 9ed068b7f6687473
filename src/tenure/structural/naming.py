"""Symbol names: how a file's path and declared package become fully qualified names.

Schemes (chosen per language in languages.toml, documented in ARCHITECTURE.md):
  python   dotted import path from the file's import root: the directory above the outermost package
           (a directory with __init__.py) around the file, never above the repository root; a
           directory without __init__.py inside a package is a namespace package of it. Handles src/
           layouts and several roots. `src/settlement/service.py` -> `settlement.service`,
           `src/flask/sansio/app.py` -> `flask.sansio.app`.
  package  the declared package plus the type path: `com.acme.pay.Outer$Inner.process` (Java,
           Kotlin, Scala, C#, ...). Code outside any type is named after the file stem.
  go       the package's import path (go.mod module path + directory) then `Type.Method`:
           `example.com/pay/settlement.Service.Retry`.
  path     the file's path without its extension, then the nested names: `src/util/date.format`.
           Where an import names a file without its extension (the JS family's `module_extensions`),
           siblings that differ only by one (`x.js`, `x.cjs`, `x.ts`) would share that name: the one
           an extensionless import reaches first (that list's order: .ts .tsx .mts .cts .js .jsx .mjs
           .cjs) keeps it, each other one keeps its whole file name (`build/queryClient.cjs`), which an
           import naming the file with its extension reaches (`generic._path_module`). `x.d.ts` is
           `x.d` (a declaration file, reached by no import of `./x`); `x.d.cts` beside it is `x.d.cts`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from functools import cache
from pathlib import PurePosixPath

from tenure.structural.languages import LanguageSpec, language_table

SEPARATORS = "./$:#"


def member_ranges(fqn: str) -> list[tuple[str, str]]:
    """The (low, high) bounds, both excluded, of the full names of the symbols inside `fqn` (fqn, a separator,
    anything): one index range scan each."""
    return [(fqn + sep, fqn + chr(ord(sep) + 1)) for sep in SEPARATORS]


def python_module(path: str, all_paths: Collection[str]) -> str:
    parts = list(PurePosixPath(path).parts)
    stem = parts.pop().rsplit(".", 1)[0]
    # the import root is above the outermost package around the file; directories without __init__.py
    # inside a package are namespace packages of it (`flask/sansio/app.py` is `flask.sansio.app`)
    root = next((i for i in range(len(parts)) if "/".join([*parts[: i + 1], "__init__.py"]) in all_paths),
                len(parts))
    names = parts[root:] if stem == "__init__" else [*parts[root:], stem]
    return ".".join(names) or "__init__"


def go_module(path: str, go_mods: dict[str, str]) -> str:
    """Import path of the file's package; `go_mods` maps a go.mod's directory to its module path."""
    directory = str(PurePosixPath(path).parent)
    directory = "" if directory == "." else directory
    best = None
    for mod_dir in go_mods:
        inside = not mod_dir or directory == mod_dir or directory.startswith(mod_dir + "/")
        if inside and (best is None or len(mod_dir) > len(best)):
            best = mod_dir
    if best is None:
        return directory or "main"
    rest = directory[len(best):].lstrip("/")
    return f"{go_mods[best]}/{rest}" if rest else go_mods[best]


def module_name(
    spec: LanguageSpec, path: str, package: str, all_paths: Collection[str], go_mods: dict[str, str]
) -> str:
    if spec.module_scheme == "python":
        return python_module(path, all_paths)
    if spec.module_scheme == "go":
        return go_module(path, go_mods)
    if spec.module_scheme == "package" and package:
        return package
    return path_module(path, spec.extra.get("module_extensions", ()), all_paths)  # type: ignore[arg-type]


def path_module(path: str, import_extensions: Sequence[str], all_paths: Collection[str]) -> str:
    """The path scheme's module: the path without its extension, unless a sibling differing only by
    its extension is what an extensionless import reaches (see the module docstring)."""
    if "." not in path.rpartition("/")[2]:
        return path
    stem, _, ext = path.rpartition(".")
    if f".{ext}" in import_extensions:
        first = next(x for x in import_extensions if stem + x in all_paths or x == f".{ext}")
        if first != f".{ext}":
            return path
    return stem


def stem_siblings(paths: Iterable[str]) -> list[str]:
    """The paths whose module name `path_module` makes of a sibling's presence too: each of several
    files of one folder that differ only by an extension an import may leave out."""
    by_stem: dict[str, list[str]] = {}
    for p in paths:
        stem, dot, ext = p.rpartition(".")
        if dot and f".{ext}" in _import_extensions() and "/" not in ext:
            by_stem.setdefault(stem, []).append(p)
    return sorted(p for group in by_stem.values() if len(group) > 1 for p in group)


@cache
def _import_extensions() -> frozenset[str]:
    return frozenset(x for spec in language_table().values() for x in spec.extra.get("module_extensions", ()))


def file_scope_name(spec: LanguageSpec, module: str, path: str, package: str) -> str:
    """The name that code outside every definition is attributed to."""
    if spec.module_scheme == "package":
        stem = PurePosixPath(path).name.split(".", 1)[0]
        return f"{package}.{stem}" if package else stem
    return module


def qualify(module: str, qualname: str) -> str:
    return f"{module}.{qualname}" if module else qualname


def short_name(fqn: str) -> str:
    for i in range(len(fqn) - 1, -1, -1):
        if fqn[i] in SEPARATORS:
            return fqn[i + 1 :]
    return fqn


def is_ancestor(outer_fqn: str, inner_fqn: str) -> bool:
    """True when `inner_fqn` is a symbol inside `outer_fqn` (a method of a class, a class of a module)."""
    return inner_fqn.startswith(outer_fqn) and len(inner_fqn) > len(outer_fqn) and \
        inner_fqn[len(outer_fqn)] in SEPARATORS


def has_suffix(fqn: str, suffix: str) -> bool:
    """True when `suffix` names `fqn` from some separator on: `Service.retry` of `a.b.Service.retry`."""
    if fqn == suffix:
        return True
    return fqn.endswith(suffix) and fqn[-len(suffix) - 1] in SEPARATORS
