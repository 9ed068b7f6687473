"""Elements: what the stores attach what they know to (a memory, an episode, a rule), named in the
structural namespace.

  <fqn>              a symbol of the index (`settlement.service.SettlementService`; a unique suffix
                     such as `SettlementService` is resolved to it)
  module:<name>      a module as the index names it (`module:settlement.policy`, `module:com.acme.ledger`)
  path:<dir>/        a directory (`path:src/settlement/`)
  service:<name>     a deployable service (`service:ledger`): a directory with a build manifest, or
                     one named by hand
  doc:<name>         a document or decision (`doc:ADR-17`; a bare `ADR-17` means the same)
  project            the project as a whole
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tenure.namespace.lookup import find_symbols
from tenure.namespace.symbols import Symbol, module_files, modules_like, symbols_named
from tenure.storage import Database
from tenure.structural.discover import discover
from tenure.structural.naming import SEPARATORS, is_ancestor, short_name

PROJECT = "project"
KINDS = ("module", "path", "service", "doc")
DECISION = re.compile(r"^(ADR|RFC|DECISION)-\d+$", re.IGNORECASE)
MANIFESTS = frozenset({"pom.xml", "build.gradle", "build.gradle.kts", "package.json", "go.mod", "pyproject.toml",
                       "setup.py", "Cargo.toml", "composer.json", "Gemfile", "mix.exs", "build.sbt"})


class ElementError(ValueError):
    """A name that names no element, or several: the message says what to write instead."""


def kind_of(element: str) -> str:
    if element == PROJECT:
        return PROJECT
    prefix, sep, _ = element.partition(":")
    return prefix if sep and prefix in KINDS else "symbol"


def display(element: str) -> str:
    """The name a person reads in a briefing: `ApiGateway`, `settlement.policy`, `src/`."""
    kind = kind_of(element)
    if kind == "symbol":
        return short_name(element)
    return element if kind == PROJECT else element.partition(":")[2]


def displays(elements: Iterable[str]) -> dict[str, str]:
    """The names a person reads for several elements shown together: each symbol by the shortest tail
    of its full name that no other of them shares (`helpers.url_for` and `Flask.url_for`, never
    `url_for` twice); other elements as `display` names them."""
    shown = {e: display(e) for e in elements}
    tails = {e: 1 for e in shown if kind_of(e) == "symbol"}
    while True:
        by_name: dict[str, list[str]] = defaultdict(list)
        for e, name in shown.items():
            by_name[name].append(e)
        clashing = [e for names in by_name.values() if len(names) > 1 for e in names if e in tails]
        longer = [e for e in clashing if tails[e] < len(_parts(e))]
        if not longer:
            return shown
        for e in longer:
            tails[e] += 1
            shown[e] = "".join(_parts(e)[-tails[e]:]).lstrip(SEPARATORS)


def _parts(fqn: str) -> list[str]:
    """`a.b.C.m` -> `a`, `.b`, `.C`, `.m`: the name's parts, each with the separator before it."""
    return re.findall(f"[{re.escape(SEPARATORS)}]?[^{re.escape(SEPARATORS)}]+", fqn)


def resolve(db: Database, root: Path, text: str) -> str:
    """The canonical element id for what a person or agent typed; a clear error when it names
    nothing or several things."""
    text = text.strip()
    if not text:
        raise ElementError("an element name is empty: name a symbol, module:<name>, path:<dir>/, "
                            "service:<name>, doc:<name> or project")
    if text == PROJECT:
        return PROJECT
    if DECISION.match(text):
        return f"doc:{text.upper()}"
    kind = kind_of(text)
    name = text.partition(":")[2].strip()
    if kind == "module":
        return _module(db, name)
    if kind == "path":
        return _path(root, name)
    if kind in ("service", "doc"):
        if not name:
            raise ElementError(f"{text!r} has no name after the colon, e.g. {kind}:payments")
        return f"{kind}:{name}"
    return _symbol(db, text)


def try_resolve(db: Database, root: Path, text: str) -> str | None:
    try:
        return resolve(db, root, text)
    except ElementError:
        return None


def element_of(fqn: str, kind: str) -> str:
    """The element a symbol is: a module is one element whichever way it is named (`settlement.policy`
    is module:settlement.policy)."""
    return f"module:{fqn}" if kind == "module" else fqn


def _symbol(db: Database, text: str) -> str:
    lookup = find_symbols(db, text)
    if lookup.unique is not None:
        return element_of(lookup.unique.fqn, lookup.unique.kind)
    if lookup.how == "ambiguous":
        names = sorted({m.fqn for m in lookup.matches})
        raise ElementError(f"{text!r} names {len(names)} symbols: {', '.join(names[:10])}"
                            f"{' …' if len(names) > 10 else ''}. Name one of them in full.")
    raise ElementError(f"{lookup.message()}. If the code is new, run `tenure index`; to attach to "
                        "something else use module:<name>, path:<dir>/, service:<name>, doc:<name> or project.")


def _module(db: Database, name: str) -> str:
    if not name:
        raise ElementError("module: needs a name, e.g. module:settlement.policy")
    if module_files(db, [name]):
        return f"module:{name}"
    near = modules_like(db, name)
    hint = f" Did you mean: {', '.join('module:' + m for m in near)}?" if near else " Run `tenure index` first?"
    raise ElementError(f"no indexed module is named {name!r}.{hint}")


def _path(root: Path, name: str) -> str:
    """A directory of the project, named by its real path from the root (`path:src/settlement/`,
    however it was typed: `./src//settlement`, an absolute path, a link to it). Anything that leads
    out of the project (`..`, an absolute path elsewhere, a link out) is refused."""
    typed = name.strip()
    top = root.resolve()
    real = (top / typed).resolve()  # (an absolute `typed` replaces `top`)
    if not real.is_relative_to(top):
        raise ElementError(f"path:{typed} lies outside the project {top} (it is {real}); name a directory inside "
                            "it, relative to the project root, e.g. path:src/settlement/")
    if not real.is_dir():
        raise ElementError(f"path:{typed} is not a directory under {top}; name a directory relative to "
                            "the project root, e.g. path:src/settlement/")
    directory = real.relative_to(top).as_posix()
    return f"path:{directory}/" if directory != "." else "path:./"


@dataclass(frozen=True)
class Place:
    """Where an element lives in the code: used to decide whether one element lies within another."""

    element: str
    modules: frozenset[str]
    paths: frozenset[str]  # files (symbols, modules) or directories ending in "/" (path elements)


def places(db: Database, elements: set[str]) -> dict[str, Place]:
    """The modules and paths of many elements in a few queries."""
    by_fqn: dict[str, list[Symbol]] = defaultdict(list)
    for s in symbols_named(db, [e for e in elements if kind_of(e) == "symbol"]):
        by_fqn[s.fqn].append(s)
    files_of = module_files(db, [e.partition(":")[2] for e in elements if kind_of(e) == "module"])
    found: dict[str, Place] = {}
    for e in elements:
        kind = kind_of(e)
        if kind == "symbol":
            symbols = by_fqn.get(e, [])
            found[e] = Place(e, frozenset(s.module for s in symbols), frozenset(s.path for s in symbols if s.path))
        elif kind == "module":
            name = e.partition(":")[2]
            found[e] = Place(e, frozenset({name}), frozenset(files_of.get(name, ())))
        elif kind == "path":
            directory = e.partition(":")[2]
            found[e] = Place(e, frozenset(), frozenset({"" if directory == "./" else directory}))
        else:
            found[e] = Place(e, frozenset(), frozenset())
    return found


def contains(outer: Place, inner: Place) -> bool:
    """True when `inner` lies within `outer` (or is it): a method in its class, a symbol in its
    module, a file in its directory; the project contains everything."""
    if outer.element == inner.element or outer.element == PROJECT:
        return True
    kind = kind_of(outer.element)
    if kind == "symbol":
        return kind_of(inner.element) == "symbol" and is_ancestor(outer.element, inner.element)
    if kind == "module":
        return bool(outer.modules & inner.modules)
    if kind == "path":
        directory = next(iter(outer.paths))
        return any(p.startswith(directory) for p in inner.paths)
    return False


def services(root: Path) -> dict[str, Place]:
    """The services of the project: directories with a build manifest; the project root is one when
    it has one (or nothing has)."""
    dirs = sorted({directory_of(p) for p in discover(root).paths if posixpath.basename(p) in MANIFESTS})
    if not dirs:
        dirs = [""]
    found = {}
    for d in dirs:
        name = posixpath.basename(d.rstrip("/")) or root.name
        found[f"service:{name}"] = Place(f"service:{name}", frozenset(), frozenset({d}))
    return found


def directory_of(path: str) -> str:
    """`src/shop/orders.py` -> `src/shop/`; a file at the root -> ''."""
    d = posixpath.dirname(path)
    return f"{d}/" if d else ""
