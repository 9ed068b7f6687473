"""What the code defines, as every store that joins on its names reads it.

The structural store owns the index's tables; the other stores (memories, knowledge, history,
episodic, procedural) never query them, they ask here. Each function takes the project's database
and reads through :class:`~tenure.structural.store.StructuralStore` (whose methods hold the queries):

    symbols_named(db, fqns)            the symbols of these full names
    symbols_called(db, name, path)     by short name, in the project or one file
    symbols_in(db, paths)              what each file defines, outermost first
    symbols_at(db, path, lines)        what a file defines across these line ranges (a diff's hunks)
    definitions(db, kinds)             every symbol of these kinds written in the code, by path and line
    every_symbol(db)                   all of them, by path and line (the join's phrase index)
    fingerprints(db, fqns)             the digest of each name's code (drift, expiry)
    neighbours(db, fqns), callees(db, fqn)   the edges around symbols (rewiring, what a test calls)
    calls_from(db, fqn)                what a function calls, with each edge's tier (every source merged)
    collaborations(db, fqns), edges_of(db, fqn, limit)   edges among symbols; a few around one
    indexed_files(db)                  every file the index parsed: language, module, content hash
    module_of(db, path)                the module a file is part of
    module_files(db, modules)          the files of each of these modules that exists
    modules_like(db, text)             module names containing `text` (suggestions)
    supertypes(db, fqn)                the types a class derives from, nearest first
    index_state(db)                    when the index last changed: a key for what is derived from it
    index_key(db)                      that, with the symbols' count and last row: a key within a process
    naming_state(db)                   how the symbols are named: a key for what only their names decide
    file_namings(db, paths)            the same, per file

A name the code defines twice (a property's getter and setter, a redefinition) gives a symbol per
definition, in the order they were stored; `fingerprints` takes the first.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from operator import attrgetter

from tenure.storage import Database, derived
from tenure.structural import graph
from tenure.structural.discover import content_hash
from tenure.structural.memo import Scope
from tenure.structural.store import StructuralStore, Symbol

__all__ = ["IndexedFile", "Symbol", "callees", "calls_from", "collaborations", "definitions", "edges_of",
           "every_symbol", "file_namings", "fingerprints", "index_key", "index_state", "indexed_files",
           "module_files", "module_of", "modules_like", "names_defined",
           "naming_state", "neighbours", "supertypes", "symbols_at", "symbols_called", "symbols_in", "symbols_named"]


@dataclass(frozen=True)
class IndexedFile:
    path: str
    language: str
    module: str  # '' for a file in no module
    content_hash: str  # of the content the index parsed (structural/discover.py)

    def holds(self, content: bytes) -> bool:
        """Whether the index parsed this very content of the file (its spans are those lines)."""
        return content_hash(content) == self.content_hash


def _structure(db: Database) -> StructuralStore:
    return StructuralStore(db)  # (its migrations are only checked: two reads when none is pending)


def symbols_named(db: Database, fqns: Iterable[str]) -> list[Symbol]:
    return _structure(db).symbols_named(fqns)


def symbols_called(db: Database, name: str, path: str | None = None) -> list[Symbol]:
    """The symbols whose short name is `name` (`retry`), in the file at `path` or anywhere."""
    return _structure(db).symbols_called(name, path)


def names_defined(db: Database, names: Iterable[str]) -> set[str]:
    """Which of these short names (`retry`) some symbol of the project has (one query for them all)."""
    return _structure(db).names_defined(names)


def short_names(db: Database) -> list[str]:
    """Every short name (`retry`) some symbol of the project has."""
    return _structure(db).short_names()


# Within `reads_shared`: (database, index key, paths) -> what `symbols_in` read for them
_SHARED: Scope[tuple, dict[str, list[Symbol]]] = Scope()


def reads_shared() -> AbstractContextManager[None]:
    """Within, `symbols_in` of the same files at the same index state is read once: the steps after an
    index (the history's mapping, the words index) each ask for every file's symbols (0.25 s a read on
    Django's 47,000)."""
    return _SHARED.opened()


def symbols_in(db: Database, paths: Iterable[str]) -> dict[str, list[Symbol]]:
    """path -> the symbols that file (relative to the project root) defines, by first line; an
    enclosing symbol (the module, a class) comes before those inside it. A file that defines
    nothing (or is not indexed) is missing."""
    wanted = sorted(set(paths))
    shared = _SHARED.table  # (read once: another thread may end its scope)
    key = (id(db), index_key(db), tuple(wanted)) if shared is not None else None
    if shared is not None and key in shared:
        return {path: list(found) for path, found in shared[key].items()}  # (the caller's own lists)
    found: dict[str, list[Symbol]] = defaultdict(list)
    for s in _structure(db).symbols_in(wanted):
        found[s.path].append(s)
    if shared is not None:
        shared[key] = {path: list(symbols) for path, symbols in found.items()}
    return dict(found)


def symbols_at(db: Database, path: str, lines: Iterable[tuple[int, int]]) -> list[Symbol]:
    """The symbols of the file at `path` whose span meets any of the line ranges (first, last;
    1-based, inclusive): every definition a change of those lines touched, the ones around it
    (its class, its module) included. In the order of `symbols_in`."""
    ranges = [(first, last) for first, last in lines if first <= last]
    return [s for s in symbols_in(db, [path]).get(path, [])
            if any(s.start <= last and first <= s.end for first, last in ranges)]


def definitions(db: Database, kinds: Iterable[str]) -> list[Symbol]:
    """Every symbol of these kinds (`class`, `module`, …) written in the code, not generated, in the order
    of `symbols_in` (by path, then line, an enclosing one first). Within `reads_shared`, from a read of
    every file's symbols when one was made (the elements' terms after an index: 0.1-0.25 s a read on Django)."""
    read = _every_files_symbols(db)
    if read is not None:
        wanted = set(kinds)
        return [s for symbols in read.values() for s in symbols if s.kind in wanted and not s.generated]
    return _structure(db).definitions(kinds)


def every_symbol(db: Database) -> list[Symbol]:
    """Every symbol of the index (those sources added too), by path, then line (then full name). Within
    `reads_shared`, from a `symbols_in` read that holds them all when one was made (the words index's
    ladder after the history's mapping: 0.2 s a read on Django)."""
    read = _every_files_symbols(db)
    if read is not None:
        return sorted((s for symbols in read.values() for s in symbols), key=_SYMBOL_ORDER)
    return _structure(db).every_symbol()


_SYMBOL_ORDER = attrgetter("path", "start", "fqn")  # the store's order of `every_symbol`


def _every_files_symbols(db: Database) -> dict[str, list[Symbol]] | None:
    """Within `reads_shared`, a `symbols_in` read at the index's state that holds every symbol, if one
    was made (None: none; the caller must not change it)."""
    shared = _SHARED.table
    if shared is None:
        return None
    key = index_key(db)
    for (db_id, at, _), found in list(shared.items()):
        if db_id == id(db) and at == key and sum(map(len, found.values())) == key[1]:
            return found
    return None


def fingerprints(db: Database, fqns: Iterable[str]) -> dict[str, str]:
    """fqn -> the fingerprint of its code, for the names that exist (a name defined twice: its first
    definition's)."""
    return _structure(db).first_fingerprints(list(fqns))


def neighbours(db: Database, fqns: Iterable[str]) -> dict[str, set[str]]:
    """fqn -> the symbols it has a tree-sitter edge to or from (calls, imports, inheritance …), as
    `relation>target` and `relation<source`."""
    found: dict[str, set[str]] = {f: set() for f in fqns}
    store = _structure(db)
    # (every edge, unfiltered, for names by the thousand: the sets drop what repeats)
    edges = store.known_edges() if store.passes_over_edges(len(found)) else store.edge_ends(list(found))
    ends_of = found.get
    for src, dst, relation in edges:
        if (ends := ends_of(src)) is not None:
            ends.add(f"{relation}>{dst}")
        if (ends := ends_of(dst)) is not None:
            ends.add(f"{relation}<{src}")
    return found


def collaborations(db: Database, fqns: Iterable[str]) -> list[tuple[str, str, str]]:
    """(src, dst, relation) of the tree-sitter edges between two of these symbols."""
    return _structure(db).edges_among(sorted(set(fqns)))


def edges_of(db: Database, fqn: str, limit: int) -> list[tuple[str, str, str]]:
    """(src, dst, relation) of at most `limit` tree-sitter edges from or to `fqn`: a symbol with more
    is a hub (`QuerySet.filter`), whose every caller says nothing about a task."""
    return _structure(db).edges_of(fqn, limit)


def callees(db: Database, fqn: str) -> list[str]:
    """What a function calls or instantiates (targets the index knows), in name order."""
    return sorted({dst for src, dst, relation in _structure(db).edge_ends([fqn])
                   if src == fqn and relation in ("calls", "instantiates") and dst != fqn})


def calls_from(db: Database, fqn: str) -> dict[str, str]:
    """callee -> the tier of the call edge from `fqn` to it, as the graph merges every source (a refuted
    edge left out)."""
    found: dict[str, str] = {}
    for edge in graph.dependants_of(db, callees(db, fqn)):
        if edge.src == fqn and edge.relation in ("calls", "instantiates") and not edge.refuted_by:
            found.setdefault(edge.dst, edge.tier)  # (strongest first: dependants_of sorts by tier)
    return found


def indexed_files(db: Database) -> dict[str, IndexedFile]:
    """path -> every file the index parsed (with or without syntax errors), by path."""
    return {path: IndexedFile(path, language or "", module or "", content_hash or "")
            for path, language, module, content_hash in _structure(db).parsed_files()}


def module_of(db: Database, path: str) -> str | None:
    return _structure(db).module_of(path)


def module_files(db: Database, modules: Iterable[str]) -> dict[str, list[str]]:
    """module -> paths of its indexed files, for each of `modules` that exists (a module absent
    from the answer is not in the index)."""
    return _structure(db).module_files(modules)


def modules_like(db: Database, text: str, limit: int = 5) -> list[str]:
    return _structure(db).modules_like(text, limit)


def supertypes(db: Database, fqn: str) -> list[str]:
    """The types the class `fqn` derives from, nearest first, as every source of the graph has them."""
    return graph.supertypes(db, fqn)


def index_state(db: Database) -> str:
    """When and by which run the index last changed ('' before the first index): what is derived from the
    symbols (a phrase index, a join) is made again when this differs from the state it was made from.
    (`indexed_at` has seconds only: two updates in one second differ by their run's generation.)"""
    store = _structure(db)
    return f"{store.get_meta('indexed_at')} {store.get_meta('generation')}".strip()


def naming_state(db: Database) -> str:
    """A digest of every symbol's full name, name, kind, file, module, parent and bases: what the join's
    phrase ladder reads. An edit that changed only bodies or moved lines keeps it. Kept per index state:
    the steps after an index ask for it four times, and each digest reads every symbol (Django: 0.2 s)."""
    return derived(db, "naming_state", _structure(db).naming_digest, version=index_key(db))


def file_namings(db: Database, paths: Iterable[str] | None = None) -> dict[str, str]:
    """path -> a digest of how the symbols of that file are named (what `naming_state` reads, per file), for
    `paths` (None: every file); a file that defines nothing is missing."""
    return _structure(db).file_namings(None if paths is None else list(paths))


def index_key(db: Database) -> tuple:
    """The index state, and how many symbols there are and their largest row id: a key under which what
    is derived from the symbols holds in a process (a write of symbols outside an index run changes it)."""
    return (index_state(db), *_structure(db).symbols_shape())


