"""Exports of the graph, so anyone can score it: every edge as JSON lines, or PyCG's call-graph JSON."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from tenure.namespace.tiers import Relation
from tenure.storage import Database
from tenure.structural.graph import all_edges
from tenure.structural.languages import language_table

# The kinds a call graph has a node for: what runs code (a module's top level too).
CALLER_KINDS = frozenset({"module", "function", "method", "constructor", "lambda"})


def edges(db: Database) -> Iterator[dict]:
    """Every edge, merged over all sources (graph.py)."""
    for edge in all_edges(db):
        yield edge.as_dict()


def pycg(db: Database) -> dict[str, list[str]]:
    """`{caller: [callees]}` as PyCG's benchmark (and the suites written after it) expects, for every
    language: every function, method, constructor and module is a key (callee-less ones too); only
    call edges with a known target count. Names are the suites': see `pycg_name`."""
    rows = db.query("SELECT fqn, kind, language, module FROM symbols")
    named = {r["fqn"]: pycg_name(r["fqn"], r["module"], r["language"]) for r in rows}
    graph: dict[str, set[str]] = {named[r["fqn"]]: set() for r in rows if r["kind"] in CALLER_KINDS}
    for e in all_edges(db):
        if e.relation == Relation.CALLS and e.dst is not None and not e.refuted and e.src in named:
            graph.setdefault(named[e.src], set()).add(named.get(e.dst, e.dst))
    return {k: sorted(v) for k, v in sorted(graph.items())}


def pycg_name(fqn: str, module: str, language: str) -> str:
    """A symbol's name as the PyCG-style suites write it: the module as a dotted path (`nested/to_import.f`
    -> `nested.to_import.f`; a directory's index module is the directory, as a package's `__init__`
    is: `nested/index.f` -> `nested.f`), a computed member right after its owner (`Cls.[Symbol.iterator]`
    -> `Cls[Symbol.iterator]`). Python's names and the package scheme's (`pkg.Outer$Inner.method`, as
    javac names classes) are dotted already."""
    spec = language_table().get(language)
    if spec is None or spec.module_scheme in ("python", "package") or not module or not fqn.startswith(module):
        return fqn
    return _dotted_module(module, language) + fqn[len(module):].replace(".[", "[")


@cache
def _dotted_module(module: str, language: str) -> str:
    parts = module.split("/")
    index_modules = language_table()[language].extra.get("index_modules", ())
    if len(parts) > 1 and parts[-1] in index_modules:  # type: ignore[operator]
        parts.pop()
    return ".".join(parts)
