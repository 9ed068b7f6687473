"""Elements: what a memory is attached to, named in the structural namespace.

  <fqn>              a symbol of the index (`settlement.service.SettlementService`; a unique suffix
                     such as `SettlementService` is resolved to it)
  module:<name>      a module as the index names it (`module:settlement.policy`, `module:com.acme.ledger`)
  path:<dir>/        a directory (`path:src/settlement/`)
  service:<name>     a deployable service (`service:ledger`)
  doc:<name>         a document or decision (`doc:ADR-17`; a bare `ADR-17` means the same)
  project            the project as a whole
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from tenure.memories.errors import MemoriesError
from tenure.namespace.lookup import find_symbols
from tenure.storage import Database, query_in
from tenure.structural.naming import SEPARATORS, short_name

PROJECT = "project"
KINDS = ("module", "path", "service", "doc")
DECISION = re.compile(r"^(ADR|RFC|DECISION)-\d+$", re.IGNORECASE)


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


def resolve(db: Database, root: Path, text: str) -> str:
    """The canonical element id for what a person or agent typed; a clear error when it names
    nothing or several things."""
    text = text.strip()
    if not text:
        raise MemoriesError("an element name is empty: name a symbol, module:<name>, path:<dir>/, "
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
            raise MemoriesError(f"{text!r} has no name after the colon, e.g. {kind}:payments")
        return f"{kind}:{name}"
    return _symbol(db, text)


def try_resolve(db: Database, root: Path, text: str) -> str | None:
    try:
        return resolve(db, root, text)
    except MemoriesError:
        return None


def _symbol(db: Database, text: str) -> str:
    lookup = find_symbols(db, text)
    if lookup.unique is not None:
        # a module is one element whichever way it is named: `settlement.policy` is module:settlement.policy
        return f"module:{lookup.unique.fqn}" if lookup.unique.kind == "module" else lookup.unique.fqn
    if lookup.how == "ambiguous":
        names = sorted({m.fqn for m in lookup.matches})
        raise MemoriesError(f"{text!r} names {len(names)} symbols: {', '.join(names[:10])}"
                            f"{' …' if len(names) > 10 else ''}. Name one of them in full.")
    raise MemoriesError(f"no symbol matches {text!r}. If the code is new, run `tenure index`; to attach to "
                        "something else use module:<name>, path:<dir>/, service:<name>, doc:<name> or project.")


def _module(db: Database, name: str) -> str:
    if not name:
        raise MemoriesError("module: needs a name, e.g. module:settlement.policy")
    if db.query("SELECT 1 FROM files WHERE module = ? LIMIT 1", (name,)):
        return f"module:{name}"
    near = [r["module"] for r in db.query(
        "SELECT DISTINCT module FROM files WHERE module LIKE ? ORDER BY module LIMIT 5", (f"%{name}%",))]
    hint = f" Did you mean: {', '.join('module:' + m for m in near)}?" if near else " Run `tenure index` first?"
    raise MemoriesError(f"no indexed module is named {name!r}.{hint}")


def _path(root: Path, name: str) -> str:
    directory = name.strip().removeprefix("./").strip("/")
    if not (root / directory).is_dir():
        raise MemoriesError(f"path:{name} is not a directory under {root}; name a directory relative to "
                            "the project root, e.g. path:src/settlement/")
    return f"path:{directory}/" if directory else "path:./"


@dataclass(frozen=True)
class Place:
    """Where an element lives in the code: used to decide whether one element lies within another."""

    element: str
    modules: frozenset[str]
    paths: frozenset[str]  # files (symbols, modules) or directories ending in "/" (path elements)


def places(db: Database, elements: set[str]) -> dict[str, Place]:
    """The modules and paths of many elements in a few queries."""
    symbols = [e for e in elements if kind_of(e) == "symbol"]
    modules = [e.partition(":")[2] for e in elements if kind_of(e) == "module"]
    sym_rows = query_in(db, "SELECT fqn, module, path FROM symbols WHERE fqn IN ({placeholders})", symbols)
    mod_rows = query_in(db, "SELECT module, path FROM files WHERE module IN ({placeholders})", modules)
    by_fqn: dict[str, list[dict]] = defaultdict(list)
    for r in sym_rows:
        by_fqn[r["fqn"]].append(r)
    files_of: dict[str, set[str]] = defaultdict(set)
    for r in mod_rows:
        files_of[r["module"]].add(r["path"])
    found: dict[str, Place] = {}
    for e in elements:
        kind = kind_of(e)
        if kind == "symbol":
            rows = by_fqn.get(e, [])
            found[e] = Place(e, frozenset(r["module"] for r in rows), frozenset(r["path"] for r in rows if r["path"]))
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


def is_ancestor(outer_fqn: str, inner_fqn: str) -> bool:
    return inner_fqn.startswith(outer_fqn) and len(inner_fqn) > len(outer_fqn) and \
        inner_fqn[len(outer_fqn)] in SEPARATORS
