"""What the code defines, as every store that joins on its names reads it.

The structural store owns the index's tables; the other stores (memories, knowledge, episodic,
procedural) never query them, they ask here. Each function takes the project's database and reads
through :class:`~tenure.structural.store.StructuralStore` (whose methods hold the queries):

    symbols_named(db, fqns)            the symbols of these full names
    symbols_called(db, name, path)     by short name, in the project or one file
    symbols_in(db, path)               what a file defines, outermost first
    symbols_at(db, path, lines)        what a file defines across these line ranges (a diff's hunks)
    definitions(db, kinds)             every symbol of these kinds written in the code
    fingerprints(db, fqns)             the digest of each name's code (drift)
    module_of(db, path)                the module a file is part of
    module_files(db, modules)          the files of each of these modules that exists
    modules_like(db, text)             module names containing `text` (suggestions)
    parsed_files(db)                   path -> module of every file the index parsed

A name the code defines twice (a property's getter and setter, a redefinition) gives a symbol per
definition, in the order they were stored; `fingerprints` takes the first.
"""

from __future__ import annotations

from collections.abc import Iterable

from tenure.storage import Database
from tenure.structural.store import StructuralStore, Symbol

__all__ = ["Symbol", "definitions", "fingerprints", "module_files", "module_of", "modules_like", "parsed_files",
           "symbols_at", "symbols_called", "symbols_in", "symbols_named"]


def _structure(db: Database) -> StructuralStore:
    return StructuralStore(db)  # (its migrations are only checked: two reads when none is pending)


def symbols_named(db: Database, fqns: Iterable[str]) -> list[Symbol]:
    return _structure(db).symbols_named(fqns)


def symbols_called(db: Database, name: str, path: str | None = None) -> list[Symbol]:
    """The symbols whose short name is `name` (`retry`), in the file at `path` or anywhere."""
    return _structure(db).symbols_called(name, path)


def symbols_in(db: Database, path: str) -> list[Symbol]:
    """The symbols the file at `path` (relative to the project root) defines, by first line; an
    enclosing symbol (the module, a class) comes before those inside it."""
    return _structure(db).symbols_in(path)


def symbols_at(db: Database, path: str, lines: Iterable[tuple[int, int]]) -> list[Symbol]:
    """The symbols of the file at `path` whose span meets any of the line ranges (first, last;
    1-based, inclusive): every definition a change of those lines touched, the ones around it
    (its class, its module) included. In the order of `symbols_in`."""
    ranges = [(first, last) for first, last in lines if first <= last]
    return [s for s in symbols_in(db, path) if any(s.start <= last and first <= s.end for first, last in ranges)]


def definitions(db: Database, kinds: Iterable[str]) -> list[Symbol]:
    """Every symbol of these kinds (`class`, `module`, …) written in the code, not generated."""
    return _structure(db).definitions(kinds)


def fingerprints(db: Database, fqns: Iterable[str]) -> dict[str, str]:
    """fqn -> the fingerprint of its code, for the names that exist (a name defined twice: its first
    definition's)."""
    found: dict[str, str] = {}
    for s in symbols_named(db, fqns):
        found.setdefault(s.fqn, s.fingerprint)
    return found


def module_of(db: Database, path: str) -> str | None:
    return _structure(db).module_of(path)


def module_files(db: Database, modules: Iterable[str]) -> dict[str, list[str]]:
    """module -> paths of its indexed files, for each of `modules` that exists (a module absent
    from the answer is not in the index)."""
    return _structure(db).module_files(modules)


def modules_like(db: Database, text: str, limit: int = 5) -> list[str]:
    return _structure(db).modules_like(text, limit)


def parsed_files(db: Database) -> dict[str, str | None]:
    """path -> module (None: in none) of every file the index parsed, with or without syntax errors."""
    return _structure(db).parsed_files()
