"""Resolution: from one file's facts plus a read-only view of the project to tiered edges.

A resolver is a pure function of (the file's facts, what it reads through :class:`ProjectView`).
The view records every key it is asked for; the indexer stores those keys per file, so when a file
changes exactly the files that read something it defined are resolved again. That is what makes an
incremental update equal a clean re-index.
"""

from __future__ import annotations

import importlib
import itertools
from abc import ABC, abstractmethod
from bisect import insort
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Protocol

import msgspec

from tenure.namespace.tiers import Tier
from tenure.structural.facts import FileFacts, digest_of
from tenure.structural.languages import language_for
from tenure.structural.memo import Memo

# Past this many same-named candidates a call site is not spread over all of them: it is kept as
# one unresolved site (dst None) so `what-breaks` can still count it towards the lower bound.
MAX_CANDIDATES = 8
NO_TARGET = "no target found"  # the detail of a call site kept with no target because none was found


class SymbolInfo(msgspec.Struct, frozen=True):
    fqn: str
    name: str
    kind: str
    language: str
    path: str
    line: int
    parent: str = ""  # fqn of the enclosing definition or module
    module: str = ""
    bases: tuple[str, ...] = ()


# (array_like: the workers send Django's 285k of them as arrays, not maps with field names: 11% fewer bytes,
# and a fifth less of the parent's decoding)
class EdgeOut(msgspec.Struct, frozen=True, array_like=True):
    src: str
    dst: str | None  # None: target unknown (dynamic, or too many candidates)
    relation: str
    tier: str
    line: int
    name: str = ""  # the name at the site, as written
    detail: str = ""


class Resolved(msgspec.Struct, array_like=True):
    """One file's resolution, as the store writes it. Index workers send batches of these encoded
    with msgpack: cheaper than pickle for the parent, which decodes them while it writes."""

    file_id: int
    path: str
    edges: list[EdgeOut]
    deps: list[int]  # the keys it read, by the ids the store keeps them by (`store.key_ids`), ascending
    missing: bytes  # msgpack of the module names looked up in vain, sorted (encoded where they were found)
    answers: bytes | None
    failed: str = ""  # why the resolver gave up on the file (then it has no edges and no answers)
    partial: str = ""  # why its edges are only a part of its calls' (a budget ran out): they are kept
    named: list[str] = []  # of a file failed or partial: the names its code calls (`Resolver.names_called`)
    cheap: str = ""  # why it was read cheaply (`ProjectView.note_read_cheaply`): its calls linked by name only


_MODULE_SETS = itertools.count(1)
_EPOCHS = itertools.count(1)  # (`ProjectIndex.epoch`)
# How often a resolver's result depended on the order sets are iterated in, which follows the process's
# string-hash seed: a capped set dropped a value, or a fixpoint ran out of budget. A process that saw
# none found what a process under any seed finds (`tenure.entry`).
_order_dependent = 0


def note_order_dependence() -> None:
    global _order_dependent
    _order_dependent += 1


def order_dependence() -> int:
    """How often so far, in this process (see `note_order_dependence`)."""
    return _order_dependent


def shortfall(statements_left: int, too_deep: int, budget: str = "evaluation") -> str:
    """Why a fixpoint's result is a part of what the code does ("" when it is all of it): statements
    still waiting when its budget (`budget`: which one) ran out, statements nested deeper than Python's
    stack follows (their effects skipped, the rest kept)."""
    parts = []
    if statements_left:
        parts.append(f"{budget} budget spent with {statements_left} statements still to evaluate")
    if too_deep:
        parts.append(f"{too_deep} statements nested too deep to follow")
    return ", ".join(parts)


class HashSeedNeeded(Exception):
    """A run in a process whose string-hash seed is random (`Indexer.run`, `seedless`) found what
    followed that seed: rolled back, to be run again with the seed fixed."""


# A module's dependency keys are these and its name. `mod:` stands for its facts as a whole (what an
# analysis of the module reads); `items:` for what is read of it besides its items: its existence
# and star imports; `item:` for one lookup in it, found or not (`item_key`). An edit touches the
# module's `mod:` key, and the `item:` keys of the items it changed (`Resolver.item_edits`), or its
# `items:` key when those cannot be told.
MODULE_KEY, ITEMS_KEY, ITEM_KEY = "mod:", "items:", "item:"


# Module name -> one of its dependency keys, made once.
module_key = Memo(MODULE_KEY.__add__).__getitem__
items_key = Memo(ITEMS_KEY.__add__).__getitem__


def item_key(module: str, item: str) -> str:
    """The key of a lookup of `item` in `module`: `qualname` (a scope), `qualname:name` (a name bound
    in that scope), `qualname@attr` (a field of the class; `@attr`: of the module object)."""
    return f"{ITEM_KEY}{module}#{item}"


# An edit of a module's one file whose changed items could be told (`Resolver.item_edits`): the facts
# digests before and after, and the `item:` keys of the items it changed.
ItemEdit = tuple[bytes, bytes, frozenset[str]]


def symbol_order(sym: SymbolInfo) -> tuple[str, int, str]:
    """The order of symbols of one name (and of a module's files, by path): where a resolver takes
    the first of several, which one that is hangs on the code, not on which file was indexed last."""
    return sym.path, sym.line, sym.fqn


class SymbolSource(Protocol):
    """Where a lazy :class:`ProjectIndex` reads symbols (the structural store, inside the indexer's
    transaction), each list in `symbol_order`."""

    def symbols_with(self, column: str, value: str) -> list[SymbolInfo]: ...

    def all_symbols(self, except_paths: Collection[str] = ()) -> Iterable[SymbolInfo]: ...


@dataclass
class ProjectIndex:
    """Every symbol of the project, and a way to read any file's facts. Built whole, or lazily
    (`lazy` set): a symbol list is read from the store the first time it is looked up (empty ones
    too) and kept. A lazy index answers exactly as a whole one over the same store state; it is
    completed before worker processes fork (they cannot see the open transaction). Changed in place
    (`remove_file`, `add`), it changes the lists it has read; the others are read from the store,
    which holds the new state by then."""

    load_facts: Callable[[str], FileFacts | None]
    lazy: SymbolSource | None = None
    # A resolver's analyses of files, kept between processes (`ProjectView.kept_analysis`): read from
    # the store (None where there is none to read: worker processes), and to be written to it, by
    # path, when the index is one a store keeps (`keeps_analyses`).
    load_analysis: Callable[[str], bytes | None] | None = None
    keeps_analyses: bool = False
    analyses_to_keep: dict[str, Callable[[], bytes | None]] = field(default_factory=dict)
    # A resolve worker's copy (workers.py): it never changes, so no later state of it checks an analysis
    # by the questions it asked; once kept, they are let go (a worker's largest cache).
    fixed: bool = False
    load_digest: Callable[[str], bytes | None] | None = None  # a file's facts digest, from the store
    by_fqn: dict[str, list[SymbolInfo]] = field(default_factory=dict)
    by_name: dict[str, list[SymbolInfo]] = field(default_factory=dict)
    by_parent: dict[str, list[SymbolInfo]] = field(default_factory=dict)
    module_paths: dict[str, list[str]] = field(default_factory=dict)
    generation: str = ""  # the index run whose state this reflects (a warm process keeps it)
    # Bumped by every change: what was read at one epoch still holds at the same epoch. Drawn from one
    # counter for every index of the process, so that (id(index), epoch) names one state even after
    # an index is freed and another made at its address.
    epoch: int = field(default_factory=lambda: next(_EPOCHS))
    _facts: dict[str, FileFacts | None] = field(default_factory=dict)
    _by_path: dict[str, list[SymbolInfo]] = field(default_factory=dict)
    _held: dict[str, list[SymbolInfo]] = field(default_factory=dict)  # see `seed_symbols`
    _module_of: dict[str, str] = field(default_factory=dict)
    _digests: dict[str, bytes | None] = field(default_factory=dict)
    _module_names: tuple[int, int, frozenset[str]] = (-1, 0, frozenset())  # see `modules_version`
    # The epoch of the latest change to what a reader of another module sees: its facts or its existence
    # (("facts" | "exists", module)) and the symbols of a name (("named", name)), in epoch order.
    _changed: dict[tuple[str, str], int] = field(default_factory=dict)
    _changes_from: int = 0  # no change before this epoch is logged (the index was read whole then)
    # Module -> the latest edit of its one file, when its changed items could be told (`ItemEdit`): set
    # by the indexer after the change, forgotten at the next change of the module's files.
    item_edits: dict[str, ItemEdit] = field(default_factory=dict)

    def symbols(self, fqn: str) -> list[SymbolInfo]:
        found = self.by_fqn.get(fqn)
        return found if found is not None else self._read(self.by_fqn, "fqn", fqn)

    def named(self, name: str) -> list[SymbolInfo]:
        found = self.by_name.get(name)
        return found if found is not None else self._read(self.by_name, "name", name)

    def members(self, fqn: str) -> list[SymbolInfo]:
        found = self.by_parent.get(fqn)
        if found is None:  # ("" is nobody's parent: a whole index keeps no symbol under it)
            found = self._read(self.by_parent, "parent_fqn", fqn) if fqn else []
        return found

    def _read(self, table: dict[str, list[SymbolInfo]], column: str, key: str) -> list[SymbolInfo]:
        if self.lazy is None:
            return []
        found = table[key] = self.lazy.symbols_with(column, key)
        return found

    def complete(self) -> None:
        """Read every symbol now (a no-op for a whole index). Bumps the epoch: the store may have
        moved on since lists were read (a later run), so what was read through it is checked again."""
        if self.lazy is None:
            return
        source, self.lazy = self.lazy, None
        held, self._held = self._held, {}
        self.by_fqn, self.by_name, self.by_parent, self._by_path = {}, {}, {}, {}
        # (the store's in `symbol_order`, then the held ones: appended, not inserted one by one)
        for sym in itertools.chain(source.all_symbols(except_paths=held.keys()), *held.values()):
            for table, key in self._listed_under(sym):
                table.setdefault(key, []).append(sym)
            self._by_path.setdefault(sym.path, []).append(sym)
        for table in (self.by_fqn, self.by_name, self.by_parent, self._by_path):
            for found in table.values():
                if len(found) > 1:
                    found.sort(key=symbol_order)  # (linear when in order already: SQL's and Python's may differ)
        self.epoch = next(_EPOCHS)
        self._changed, self._changes_from = {}, self.epoch

    def add(self, sym: SymbolInfo) -> None:
        self.epoch = next(_EPOCHS)
        self._log("named", sym.name)
        for table, key in self._listed_under(sym):
            if self.lazy is None:
                insort(table.setdefault(key, []), sym, key=symbol_order)
            elif key in table:  # (a list never read is read whole when it is)
                insort(table[key], sym, key=symbol_order)
        if self.lazy is None:
            self._by_path.setdefault(sym.path, []).append(sym)

    def _listed_under(self, sym: SymbolInfo) -> list[tuple[dict[str, list[SymbolInfo]], str]]:
        """The lists a symbol belongs in: of its full name, its name, and its parent when it has one."""
        listed = [(self.by_fqn, sym.fqn), (self.by_name, sym.name)]
        return [*listed, (self.by_parent, sym.parent)] if sym.parent else listed

    def add_module(self, module: str, path: str) -> None:
        self.epoch = next(_EPOCHS)
        self._log("facts", module)
        self._log("items", module)
        self.item_edits.pop(module, None)
        if module not in self.module_paths:
            self._log("exists", module)
        insort(self.module_paths.setdefault(module, []), path)
        self._module_of[path] = module

    def add_modules(self, files: Iterable[tuple[str, str]]) -> None:
        """`add_module` for each (module, path), at once, into an index nothing has read yet (no
        change to log: there is no earlier state of it to compare with)."""
        assert not self._changed and not self._facts, "add_modules fills a new index"
        self.epoch = next(_EPOCHS)
        for module, path in files:
            self.module_paths.setdefault(module, []).append(path)
            self._module_of[path] = module
        for paths in self.module_paths.values():
            paths.sort()
        self._changes_from = self.epoch

    def remove_file(self, path: str) -> None:
        """Forget one file's symbols, module and facts (before adding its new state)."""
        self.epoch = next(_EPOCHS)
        self._held.pop(path, None)
        if self.lazy is not None:  # (a name whose list was never read was never read: no reader to tell)
            for table in (self.by_fqn, self.by_name, self.by_parent):
                for key, syms in table.items():
                    if any(s.path == path for s in syms):
                        table[key] = [s for s in syms if s.path != path]
                        if table is self.by_name:
                            self._log("named", key)
        for sym in self._by_path.pop(path, []):
            self._log("named", sym.name)
            for table, key in ((self.by_fqn, sym.fqn), (self.by_name, sym.name), (self.by_parent, sym.parent)):
                if key in table:
                    table[key] = [s for s in table[key] if s.path != path]
                    if not table[key]:
                        del table[key]
        module = self._module_of.pop(path, None)
        if module is not None:
            self._log("facts", module)
            self._log("items", module)
            self.item_edits.pop(module, None)
            self.module_paths[module] = [p for p in self.module_paths[module] if p != path]
            if not self.module_paths[module]:
                del self.module_paths[module]
                self._log("exists", module)
        self._facts.pop(path, None)
        self._digests.pop(path, None)

    def _log(self, kind: str, key: str) -> None:
        # Moved to the end when logged again: `_changed` stays in epoch order, so `changed_since`
        # reads only the changes after its epoch, however long a watcher has run.
        self._changed.pop((kind, key), None)
        self._changed[kind, key] = self.epoch

    def item_changes(self, module: str, before: bytes | None, after: bytes | None) -> set[str]:
        """What the change of `module` from facts `before` to `after` (digests) touched, for questions
        that read it by items: the `item:` keys of the items it changed, when this index knows them
        (`item_edits`); else its items key."""
        edit = self.item_edits.get(module)
        if edit is not None and edit[:2] == (before, after):
            return set(edit[2])
        return {items_key(module)}

    def changed_since(self, epoch: int) -> list[tuple[str, str]] | None:
        """What changed after `epoch` (see `_changed`), or None when that is not known."""
        if epoch < self._changes_from:
            return None
        since = []
        for key in reversed(self._changed):
            if self._changed[key] <= epoch:
                break
            since.append(key)
        return since

    @property
    def modules_version(self) -> int:
        """Which modules exist, as a number unique to this set of names in this process: reads come
        to the same keys (`ProjectView.keys_of`) while it stays. (Updating a file removes and adds its
        module again: the set is compared, not the changes counted.)"""
        epoch, version, names = self._module_names
        if epoch != self.epoch:
            if names != self.module_paths.keys():
                version, names = next(_MODULE_SETS), frozenset(self.module_paths)
            self._module_names = (self.epoch, version, names)
        return version

    def seed_symbols(self, held: dict[str, list[SymbolInfo]]) -> None:
        """Symbols the caller just stored, by path, exactly as the store holds them: `complete`
        reads only the others (a first index of Django: 45k symbols not read back, 0.25 s)."""
        if self.lazy is not None:
            self._held.update(held)

    def seed_facts(self, facts: dict[str, FileFacts]) -> None:
        """Facts the caller already holds (just parsed), so they are not read back and decoded."""
        self._facts.update(facts)

    def facts(self, path: str) -> FileFacts | None:
        if path not in self._facts:
            self._facts[path] = self.load_facts(path)
        return self._facts[path]

    def facts_digest(self, path: str) -> bytes | None:
        """`facts.facts_digest` of a file's facts (None: it has none), read from the store when it
        can be rather than loading the facts."""
        if path not in self._digests:
            if self.load_digest is not None and path not in self._facts:
                self._digests[path] = self.load_digest(path)
            else:
                facts = self.facts(path)
                self._digests[path] = digest_of(facts) if facts is not None else None
        return self._digests[path]


Recording = tuple[set[str], set[str]]  # (keys read, module names looked up): what a recording holds
# A recording replayed with at least this many reads is noted whole too (`ProjectView.end_parts`): a
# module's analysis, read by many questions of a file, and by the files after it.
PART_FROM = 32


class ProjectView:
    """What one file's resolver may read. Every read is recorded as a dependency key, except
    lookups of modules that do not exist: those are kept apart in `missing`, because they are most
    of a resolver's reads and matter only when a new module appears (rare, checked by a scan).
    Module lookups are noted by name (the cheapest note: they are most reads) and sorted into
    `mod:` keys and missing modules when asked for."""

    def __init__(self, index: ProjectIndex) -> None:
        self._index = index
        self._keys: set[str] = set()
        self._modules: set[str] = set()
        # Set by a resolver that can later check its result still holds without resolving again
        # (see `Resolver.verify`): an opaque record of what it asked of the project and the answers.
        self.answers: bytes | None = None
        # Nested recordings (a resolver's question, a cached lookup): every read lands in each open
        # one, so the innermost holds a subset of each enclosing one.
        self._frames: list[Recording] = []
        # Per open recording, the recordings replayed into it whole that are large (`PART_FROM`): a
        # question's key filter is made of theirs, each made once (answers.py `_kept_filter`).
        self._parts: list[list[Recording]] = []
        # Why the resolver's edges are only part of the file's (`note_incomplete`): kept, and said.
        self.incomplete: list[str] = []
        self.read_cheaply = ""  # see `note_read_cheaply`

    def note_read_cheaply(self, why: str) -> None:
        """The resolver linked the file's calls by name only, skipping its language's full analysis
        (vendored.py says why): its edges are `inferred` or `ambiguous`, and answers that count this
        file's calls are lower bounds."""
        self.read_cheaply = why

    def note_incomplete(self, why: str) -> None:
        """The resolver cut its work short (a budget ran out, code nested past what it follows): the
        edges it returns are a part, and answers that count this file's calls are lower bounds."""
        if why not in self.incomplete:
            self.incomplete.append(why)

    def deps_and_missing(self) -> tuple[set[str], set[str]]:
        """What the resolver read: its dependency keys (`keys_of`), and the modules it looked up in
        vain (`missing_of`)."""
        missing = self.missing_of((self._keys, self._modules))
        return self._keys.union(map(module_key, self._modules - missing)), missing

    def keys_of(self, reads: Recording) -> set[str]:
        # (set algebra against the dict and cached key strings: this runs over every file's reads)
        return reads[0].union(map(module_key, reads[1] - self.missing_of(reads)))

    def missing_of(self, reads: Recording) -> set[str]:
        return reads[1].difference(self._index.module_paths)

    @property
    def modules_version(self) -> int:
        return self._index.modules_version

    def changed_since(self, epoch: tuple[int, int]) -> list[tuple[str, str]] | None:
        """What changed in this view's index since `epoch` (see `ProjectIndex.changed_since`), or
        None when that is not known (another index)."""
        return self._index.changed_since(epoch[1]) if epoch[0] == id(self._index) else None

    @property
    def module_paths(self) -> dict[str, list[str]]:
        """The project's modules (to test membership without recording the read)."""
        return self._index.module_paths

    @property
    def recording(self) -> bool:
        return bool(self._frames)

    def begin(self) -> None:
        self._frames.append((set(), set()))
        self._parts.append([])

    def end(self) -> Recording:
        """What was read since the matching `begin` (raw: see `keys_of`, `missing_of`)."""
        self._parts.pop()
        return self._frames.pop()

    def end_parts(self) -> tuple[Recording, list[Recording]]:
        """`end`, and the large recordings replayed whole since the matching `begin` (each a
        subset of what was read; one may come more than once)."""
        return self._frames.pop(), self._parts.pop()

    def replay(self, reads: Recording) -> None:
        """Record reads again (a cached result's), for the recordings open now."""
        keys, modules = reads
        for frame_keys, frame_modules in self._frames:
            frame_keys |= keys
            frame_modules |= modules
        if self._parts and len(keys) + len(modules) >= PART_FROM:
            for parts in self._parts:
                parts.append(reads)

    def absorb(self, reads: Recording) -> None:
        """Take on reads made through another view of the same index state (a cached analysis's):
        this file now depends on them as if it had read them itself."""
        self._keys |= reads[0]
        self._modules |= reads[1]
        self.replay(reads)

    @property
    def epoch(self) -> tuple[int, int]:
        """Which index, in which state, this view reads."""
        return id(self._index), self._index.epoch

    def note_module(self, module: str) -> None:
        """A lookup of `module`, read again from a cache: noted for the recordings open now."""
        frames = self._frames
        if frames and module not in frames[-1][1]:
            for _, modules in frames:
                modules.add(module)

    def note_key(self, key: str) -> None:
        """A read of `key` (or one read again from a cache, for the recordings open now)."""
        self._keys.add(key)
        frames = self._frames
        if frames and key not in frames[-1][0]:
            for keys, _ in frames:
                keys.add(key)

    def _module(self, module: str) -> bool:
        self._modules.add(module)
        self.note_module(module)
        return module in self._index.module_paths

    def symbols(self, fqn: str) -> list[SymbolInfo]:
        self.note_key(f"sym:{fqn}")
        return self._index.symbols(fqn)

    def named(self, name: str) -> list[SymbolInfo]:
        self.note_key(f"name:{name}")
        return self._index.named(name)

    def members(self, fqn: str) -> list[SymbolInfo]:
        """Definitions directly inside `fqn` (a class's methods, a module's top level)."""
        self.note_key(f"sym:{fqn}")
        return self._index.members(fqn)

    def module_exists(self, module: str) -> bool:
        return self.note_items(module)

    def note_items(self, module: str) -> bool:
        """A read of the module's items (or of its existence): its items key, or a module missing."""
        if module in self._index.module_paths:
            self.note_key(items_key(module))
            return True
        return self._module(module)

    def module_facts(self, module: str, items: bool = False) -> list[FileFacts]:
        """The module's files' facts: read whole, or (`items`) only to look named items up in."""
        if not self._read_module(module, items):
            return []
        paths = self._index.module_paths[module]
        return [f for f in (self._index.facts(p) for p in paths) if f is not None]

    def _read_module(self, module: str, items: bool) -> bool:
        """A read of the module, whole or by `items`: whether it exists."""
        return self.note_items(module) if items else self._module(module)

    def kept_analysis(self, path: str) -> bytes | None:
        """What a resolver kept of its analysis of a file (`keep_analysis`), by an earlier process
        perhaps: the resolver checks it still holds. Not a read (what the analysis read is)."""
        load = self._index.load_analysis
        return load(path) if load is not None else None

    @property
    def fixed(self) -> bool:
        """Whether the index read never changes (`ProjectIndex.fixed`)."""
        return self._index.fixed

    def keep_analysis(self, path: str, encode: Callable[[], bytes | None]) -> None:
        """Keep an analysis of a file for later processes: `encode` is called when the indexer
        writes it (at the end of a run, or a watcher's idle time), None meaning nothing to keep."""
        if self._index.keeps_analyses:
            self._index.analyses_to_keep[path] = encode

    def module_digest(self, module: str, language: str, items: bool = False) -> bytes | None:
        """The facts digest (`ProjectIndex.facts_digest`) of the module's first file in `language`
        that has facts: the file `module_facts` would give first of that language."""
        if not self._read_module(module, items):
            return None
        return next((digest for path in self._index.module_paths[module]
                     if (spec := language_for(path)) is not None and spec.name == language
                     and (digest := self._index.facts_digest(path)) is not None), None)

    def item_changes(self, module: str, before: bytes | None, after: bytes | None) -> set[str]:
        """See `ProjectIndex.item_changes`."""
        return self._index.item_changes(module, before, after)

    def file_facts(self, path: str, module: str) -> FileFacts | None:
        """One file's facts (a super class's fields). A change to the file touches its module."""
        self._module(module)
        return self._index.facts(path)


def touched_keys(facts: FileFacts, symbols: Iterable[SymbolInfo]) -> set[str]:
    """The dependency keys a change to this file can invalidate (call on old and new state)."""
    keys = {module_key(facts.module), items_key(facts.module)}
    for sym in symbols:
        keys.update((f"sym:{sym.fqn}", f"name:{sym.name}"))
        if sym.parent:
            keys.add(f"sym:{sym.parent}")
    return keys


def changed_keys(
    old_facts: FileFacts, old_symbols: Iterable[SymbolInfo], facts: FileFacts, symbols: Iterable[SymbolInfo]
) -> set[str]:
    """The dependency keys an edit to a file invalidates: its module's (its facts changed), and the
    keys of the symbols that appeared, went or changed. Symbols are compared without their line:
    no resolver reads another file's lines, so code that only moved changes no reader."""
    def by_fqn(syms: Iterable[SymbolInfo]) -> dict[str, set[tuple]]:
        found: dict[str, set[tuple]] = {}
        for s in syms:
            found.setdefault(s.fqn, set()).add((s.name, s.kind, s.language, s.path, s.parent, s.module, s.bases))
        return found

    before, after = by_fqn(old_symbols), by_fqn(symbols)
    differ = {fqn for fqn in before.keys() | after.keys() if before.get(fqn) != after.get(fqn)}
    changed = [s for s in (*old_symbols, *symbols) if s.fqn in differ]
    return touched_keys(old_facts, changed) | touched_keys(facts, ())


class Checked(Protocol):
    """A dependant whose resolution was verified to stand (see `Resolver.verify`)."""

    def reads_to_keep(self) -> tuple[bytes | None, Recording]:
        """Its stored answers where they moved (else None), and what checking it read, to add to its
        reads. Bookkeeping for later updates, apart from the check itself: a watcher does it idle."""
        ...


Verified = dict[int, Checked]
# Dependants to check: (file id, its stored answers, the dependency keys of it that an edit touched).
Dependants = list[tuple[int, bytes, set[str]]]


class Resolver(ABC):
    """A language's resolver plug-in: languages.toml names it (`resolver = NAME`), and the module
    `tenure.structural.resolve.NAME` holds it as `resolver` (`resolver_for`). It must `resolve`;
    the rest lets an update do less than resolve every dependant again, and each default is what is
    always right for a resolver that cannot tell: nothing verified, spared or kept."""

    @abstractmethod
    def resolve(self, facts: FileFacts, view: ProjectView) -> list[EdgeOut]:
        """The file's edges, reading the project only through `view` (which records every read); it
        sets `view.answers` when the result can be checked later without resolving (`verify`)."""

    def names_called(self, facts: FileFacts) -> set[str]:
        """The names the file's code calls or refers to (`new`, a super type): asked of a file it did
        not fully resolve, whose calls of these names may be missing (structural/gaps.py)."""
        return {r.name for r in facts.references if r.name}

    def verify(self, items: Dependants, view: ProjectView) -> Verified:
        """Of these dependants, those whose resolution would come out the same (their edges are
        kept), each with what to keep of the check (`Checked`). None by default: all resolved again."""
        return {}

    def item_edits(self, old: FileFacts, new: FileFacts) -> set[str] | None:
        """The `item_key`s of the items an edit of a file changed in its module (those a lookup of
        which may now find something else), or None (the default) when that cannot be told. Such an
        edit touches those keys instead of the module's items key: only readers that looked one of
        those items up, or read the module whole, are checked again."""
        return None

    def outcome_unchanged(self, old: FileFacts, new: FileFacts, view: ProjectView) -> Recording | None:
        """Whether the files it resolves that read a module whole (its `mod:` key) read the same of
        it after this edit of the module's one file (`view`: the index after the edit); None (the
        default) when they may not, else what reading it now reads that it did not before (usually
        nothing: see `spare`). Such readers are then not checked for that key: an edit inside a
        function that changes nothing another module sees checks none of the files that read the
        module's analysis."""
        return None

    def spare(self, items: Dependants, view: ProjectView, reads: Recording) -> Verified:
        """Dependants (their touched keys: of modules whose outcome is unchanged) that are spared
        although reading those modules now also reads `reads`: what to keep of each (`Checked`: its
        answers' filters and its reads widened by them); a file left out (by default, every one)
        cannot be so widened and is checked instead."""
        return {}

    def code_moved(self, old: FileFacts, new: FileFacts, view: ProjectView) -> None:
        """A file's edit only moved its code (`parse.shape`): what the resolver kept of the old
        facts (`ProjectView.keep_analysis`) holds for the new ones, to be kept again so that the next
        edit finds it. Nothing by default."""
        return None

    def warm(self, module: str, view: ProjectView) -> None:
        """Do ahead of time, in a process that keeps its index (a watcher's idle time), the work
        resolving or verifying a reader of `module` would do first; what it keeps must hold at later
        index states as it would have when done then. Nothing by default."""
        return None


@cache
def resolver_for(name: str) -> Resolver:
    """The resolver plug-in languages.toml calls `name` (see :class:`Resolver`)."""
    return importlib.import_module(f"tenure.structural.resolve.{name}").resolver


def candidates_tier(count: int, choice: bool = False) -> Tier:
    """An edge's tier at a site with `count` candidate targets: one is `inferred` unless the site is a
    `choice` (its callee one of several, or a guess)."""
    return _AMBIGUOUS if choice or count != 1 else _INFERRED


# (the members themselves: looking one up on its enum class is a descriptor call, for every edge)
_INFERRED, _AMBIGUOUS = Tier.INFERRED, Tier.AMBIGUOUS
