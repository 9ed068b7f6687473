"""Python resolution: a points-to analysis over the flow program the Python extractor records.

Names, attributes, parameters, returns and container items point to sets of abstract values
(functions, classes, instances, modules, lists and dicts, constants, externals and builtins). A
worklist fixpoint over one file's statements grows those sets; a call site's edges go to what its
callee points to. Arguments flow into parameters of the file's own functions, a class called gives
an instance (and calls `__init__`, found through the C3 linearisation of its bases), attributes of
instances are looked up through the same order, `super()` skips the class itself.

Other modules are read, never analysed with this file's arguments, in two layers, so the answer
never depends on which file was resolved first: the file's imports are analysed on their own
(:class:`Analysed`, cached for the run), and their imports in turn are followed syntactically only
(:class:`Syntactic`: definitions, re-exports, aliases, constants). Every read of another module goes
through the :class:`ProjectView`; a cached analysis replays its reads into the view that reuses it.

Tiers: one target at a site is `inferred`, several are `ambiguous` (all kept, at most
MAX_CANDIDATES), and a dynamic site (eval, getattr with a computed name, ...) a `dynamic` edge with
no target. Builtins, external names and methods of literals are named as the PyCG benchmark names
them: `<builtin>.len`, `requests.get`, `<**PyStr**>.join`.
"""

from __future__ import annotations

import builtins
import hashlib
import zlib
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property, partial
from typing import Protocol

import msgspec

from tenure.namespace.tiers import Relation, Tier
from tenure.structural.extractors.python import (
    PARAM_DOUBLE_STAR,
    PARAM_KEYWORD,
    PARAM_POSITIONAL,
    PARAM_POSITIONAL_ONLY,
    PARAM_STAR,
    numbered,
)
from tenure.structural.facts import FileFacts, digest_of
from tenure.structural.naming import qualify
from tenure.structural.resolve import (
    MAX_CANDIDATES,
    EdgeOut,
    ProjectView,
    Recording,
    SymbolInfo,
    Verified,
    candidates_tier,
    item_key,
    items_key,
    module_key,
    note_order_dependence,
)
from tenure.structural.resolve.answers import Answers, canonical, may_have_read, question, thaw, verify_stored
from tenure.structural.resolve.answers import spare as spare  # (the plug-in hook `spare_for` finds)
from tenure.structural.resolve.generic import python_absolute

# A value: (kind, module, key). Kinds:
FUNC, BOUND, CLASS, INST, MODULE = "f", "b", "c", "i", "m"  # key: qualname (module: "")
EXT, EXT_INST, BUILTIN, TYPE_METHOD = "x", "xi", "B", "T"  # key: dotted name
CONST, SOME_STR_KIND, SEQ, DICT, GEN, SUPER = "k", "K", "l", "d", "g", "S"
Value = tuple[str, str, object]

EMPTY: frozenset = frozenset()
MAX_VALUES = 24  # a set that grows past this stops growing: precision is gone anyway
EVALUATIONS_PER_STATEMENT = 12  # the fixpoint's budget, so one pathological file stays cheap
MAX_CHAIN = 12  # hops through re-exports and aliases in another module
CACHE_SIZE = 4096  # analysed modules kept between files of one run
# Decoded flow programs kept between files: they are most of a resolving process's memory, and the
# modules read again and again (a project's hubs) are few. Django, one process: 4,096 kept peak at
# 528 MB, 256 at 422 MB, for 1,942 more decodes (+0.6 s CPU in 30 s); each resolve worker 270 MB
# against 360 MB.
FLOWS_CACHE_SIZE = 256
SOME_STR: Value = (SOME_STR_KIND, "", "str")  # a string whose value is not known
_BUILTINS = frozenset(dir(builtins))
# Methods of literals, named as PyCG's benchmark names them; a list's have no benchmark name and
# give no edge (`<list>`), though their effect on the list is followed.
_LITERAL_TYPES = {CONST: "<**PyStr**>", SOME_STR_KIND: "<**PyStr**>", DICT: "<**PyDict**>", SEQ: "<list>"}
_KEEPS_ITEMS = frozenset({"list", "tuple", "set", "frozenset", "sorted", "reversed", "iter"})
_IDENTITY = frozenset({"staticmethod", "classmethod", "property"})


# --------------------------------------------------------------------------------------------------
# One module's flow program, with indexes
# --------------------------------------------------------------------------------------------------


_FLOW_DECODER = msgspec.msgpack.Decoder()


class ModuleFlow:
    """A module's flow program (see extractors/python.py) with what lookups need, built once per facts."""

    def __init__(self, facts: FileFacts) -> None:
        flow = _FLOW_DECODER.decode(facts.flow) if isinstance(facts.flow, bytes) else {}
        self.module = facts.module
        self.path = facts.path
        self.scopes: list[list] = flow.get("scopes") or [["", "module", -1, [], "", {}]]
        self.stmts: list[list] = flow.get("stmts", [])
        self.sites: list[list] = flow.get("sites", [])
        self.star: list[list] = flow.get("star", [])
        self.nvars: int = flow.get("nvars", 0)
        self.by_qualname: dict[str, list[int]] = {}
        for idx, scope in enumerate(self.scopes):
            self.by_qualname.setdefault(scope[0], []).append(idx)
        self._params: dict[int, tuple] = {}
        self._flags: dict[str, str] = {}

    @cached_property
    def _statements(self) -> tuple[dict, dict, dict, dict, set]:
        """Built on first use (most modules are only asked for a few names): var -> values assigned,
        scope -> returned, scope -> yielded, class scope -> bases, and (class qualname, attribute)
        for every `self.attribute = ...` or `cls.attribute = ...` in a method."""
        var_defs: dict[int, list] = {}
        returns: dict[int, list] = {}
        yields: dict[int, list] = {}
        bases: dict[int, list] = {}
        self_fields: set[tuple[str, str]] = set()
        self_vars: dict[int, str] = {}  # a method's `self` or a classmethod's `cls` -> its class
        for stmt in self.stmts:
            op = stmt[0]
            if op == "=" and stmt[2][0] == "v":
                var_defs.setdefault(stmt[2][1], []).append(stmt[3])
                if _tag(stmt[3]) in ("i", "ic"):
                    self_vars[stmt[2][1]] = self.scopes[stmt[3][1]][0]
            elif op == "=" and stmt[2][0] == "a":
                obj = stmt[2][1]
                if obj.__class__ is int and obj in self_vars:
                    self_fields.add((self_vars[obj], stmt[2][2]))
            elif op == "r":
                returns.setdefault(stmt[1], []).append(stmt[2])
            elif op == "y":
                yields.setdefault(stmt[1], []).append(stmt[2])
            elif op == "b":
                bases[stmt[2]] = stmt[3]
        return var_defs, returns, yields, bases, self_fields

    @cached_property
    def var_defs(self) -> dict[int, list]:
        return self._statements[0]

    @cached_property
    def returns(self) -> dict[int, list]:
        return self._statements[1]

    @cached_property
    def yields(self) -> dict[int, list]:
        return self._statements[2]

    @cached_property
    def bases(self) -> dict[int, list]:
        return self._statements[3]

    @cached_property
    def self_fields(self) -> set[tuple[str, str]]:
        return self._statements[4]

    @cached_property
    def assigned_attrs(self) -> frozenset[str]:
        """Every attribute name the module assigns (`x.name = ...`, also as a loop's or `with`'s
        target): an analysis gives a module object no field of another name."""
        found: set[str] = set()
        targets = [stmt[2] for stmt in self.stmts if stmt[0] in ("=", "for", "w") and stmt[2]]
        while targets:
            target = targets.pop()
            if target[0] == "a":
                found.add(target[2])
            elif target[0] == "t":
                targets += target[1]
        return frozenset(found)

    def parameters(self, idx: int) -> tuple[list, list | None, dict[str, list], list | None]:
        """(positional, *args, by keyword, **kwargs) parameters of a function scope."""
        hit = self._params.get(idx)
        if hit is None:
            params = self.scopes[idx][3]
            hit = self._params[idx] = (
                [p for p in params if p[2] in (PARAM_POSITIONAL, PARAM_POSITIONAL_ONLY)],
                next((p for p in params if p[2] == PARAM_STAR), None),
                {p[0]: p for p in params if p[2] in (PARAM_POSITIONAL, PARAM_KEYWORD)},
                next((p for p in params if p[2] == PARAM_DOUBLE_STAR), None),
            )
        return hit

    @cached_property
    def site_names(self) -> list[str]:
        """Each call site named as allocations are (`numbered`): what a value made at a site is called."""
        counts: dict[str, int] = {}
        return [numbered(counts, self.scopes[site[2]][0]) for site in self.sites]

    def fqn(self, idx: int) -> str:
        return qualify(self.module, self.scopes[idx][0]) if idx > 0 else self.module

    def value(self, idx: int) -> Value:
        kind = CLASS if self.scopes[idx][1] == "class" else FUNC
        return (kind, self.module, self.scopes[idx][0])

    def scopes_of(self, qualname: object) -> list[int]:
        return self.by_qualname.get(qualname, []) if isinstance(qualname, str) else []

    def flags(self, qualname: object) -> str:
        found = self._flags.get(qualname)  # type: ignore[arg-type]
        if found is None:
            found = self._flags[qualname] = "".join(self.scopes[i][4] for i in self.scopes_of(qualname))  # type: ignore[index]
        return found

    def names(self, idx: int, name: str) -> list[int]:
        return self.scopes[idx][5].get(name, [])

    def enclosing_class(self, idx: int) -> int:
        while idx > 0 and self.scopes[idx][1] != "class":
            idx = self.scopes[idx][2]
        return idx

    def absolute(self, module: str, level: int) -> str:
        return python_absolute(self.module, self.path, module, level)




_FLOWS: OrderedDict[str, tuple[FileFacts, ModuleFlow]] = OrderedDict()


def module_flow(facts: FileFacts, keep: bool = True) -> ModuleFlow:
    """The facts' flow, indexed once: for the facts object, which a run shares between files (by
    path: a file's new state replaces the old one, which a watcher would otherwise keep). Not kept
    (`keep` False) for the file being resolved: most files are read by no other (Django's tests), and
    decoded flows are most of a resolving process's memory; one another file reads is kept then."""
    hit = _FLOWS.get(facts.path)
    if hit is not None and hit[0] is facts:
        _FLOWS.move_to_end(facts.path)
        return hit[1]
    mf = ModuleFlow(facts)
    if not keep:
        return mf
    _FLOWS[facts.path] = (facts, mf)
    _FLOWS.move_to_end(facts.path)
    if len(_FLOWS) > FLOWS_CACHE_SIZE:
        _FLOWS.popitem(last=False)
    return mf


# --------------------------------------------------------------------------------------------------
# Reading other modules
# --------------------------------------------------------------------------------------------------


# (what, of which module or name) -> what was read. What: "facts" (a module whole), "items" (a module
# to look items up in), "exists", "named" (the symbols of a name), "item" (of an `item_key`: True).
Reads = dict[tuple[str, str], object]


class Project:
    """Other modules as this file's resolution sees them; every read goes through the view and is
    also noted, with what it read, by the recorders of cached analyses in progress."""

    def __init__(self, view: ProjectView) -> None:
        self.view = view
        self.recorders: list[Reads] = []
        self._flows: dict[str, tuple[FileFacts | None, ModuleFlow | None]] = {}
        self._read_as: set[tuple[str, bool]] = set()  # (module, by items) read through the view
        self._exists: dict[str, bool] = {}
        self._named: dict[str, tuple[SymbolInfo, ...]] = {}
        self._modules: dict[str, str] = {}

    def facts(self, module: str) -> FileFacts | None:
        """The module's facts, read whole (for its analysis)."""
        return self._read(module, False)[0]

    def flow(self, module: str) -> ModuleFlow | None:
        """The module's flow program, to look named items up in (a read of its existence and star
        imports; each lookup in it is noted apart, see `scopes` and `names`)."""
        return self._read(module, True)[1]

    def _read(self, module: str, items: bool) -> tuple[FileFacts | None, ModuleFlow | None]:
        hit = self._flows.get(module)
        if hit is None or (module, items) not in self._read_as:
            found = [f for f in self.view.module_facts(module, items) if f.language == "python"]
            self._read_as.add((module, items))
            if hit is None:
                facts = found[0] if found else None
                hit = self._flows[module] = (facts, module_flow(facts) if facts is not None else None)
        elif self.view.recording:  # the read, for the recording open now
            self.view.note_items(module) if items else self.view.note_module(module)
        if self.recorders:  # (the object, held: its id could be reused once freed)
            self._note(("items" if items else "facts", module), hit[0])
        return hit

    def facts_digest(self, module: str, items: bool = False) -> bytes | None:
        """What `facts` (or `flow`: `items`) would read, as its digest (`_facts_digest`): without
        loading the facts."""
        digest = self.view.module_digest(module, "python", items)
        if self.recorders:
            self._note(("items" if items else "facts", module), digest)
        return digest

    def scopes(self, mf: ModuleFlow, qualname: object) -> list[int]:
        """`mf.scopes_of`, the lookup noted (`looked_up`)."""
        self.looked_up(mf.module, str(qualname))
        return mf.scopes_of(qualname)

    def names(self, mf: ModuleFlow, idx: int, name: str) -> list[int]:
        """`mf.names`, the lookup noted (`looked_up`)."""
        self.looked_up(mf.module, f"{mf.scopes[idx][0]}:{name}")
        return mf.names(idx, name)

    def looked_up(self, module: str, item: str) -> None:
        """A lookup of an item in another module, found or not: asked again when an edit changes
        the item (`item_edits`)."""
        self._looked_up(item_key(module, item))

    def _looked_up(self, key: str) -> None:
        self.view.note_key(key)
        if self.recorders:
            self._note(("item", key), True)

    def exists(self, module: str) -> bool:
        found = self._exists.get(module)
        if found is None:
            found = self._exists[module] = self.view.module_exists(module)
        elif self.view.recording:
            self.view.note_items(module)
        if self.recorders:
            self._note(("exists", module), found)
        return found

    def module_named(self, dotted: str) -> str:
        """The project module an absolute name means: itself, or the module whose file that dotted
        path spells where the index roots a namespace package (no __init__.py) below it:
        `pkg.m3` -> `m3` for pkg/m3.py. Names of no project module come back unchanged."""
        hit = self._modules.get(dotted)
        if hit is None:
            hit = self._modules[dotted] = self._module_named(dotted)
        elif self.recorders or self.view.recording:
            self._module_named(dotted)  # the reads, for the analysis or question that records them
        return hit

    def _module_named(self, dotted: str) -> str:
        if self.exists(dotted):
            return dotted
        parts = dotted.split(".")
        spelled = "/".join(parts)
        for i in range(1, len(parts)):
            candidate = ".".join(parts[i:])
            if self.exists(candidate):
                mf = self.flow(candidate)
                path = f"/{mf.path}" if mf is not None else ""
                if path.endswith((f"/{spelled}.py", f"/{spelled}.pyi", f"/{spelled}/__init__.py")):
                    return candidate
        return dotted

    def flags(self, fn: Value) -> str:
        """A function's decorator flags (property, staticmethod, …) as its module declares them."""
        mf = self.flow(fn[1])
        return mf.flags(fn[2]) if mf is not None and self.scopes(mf, fn[2]) else ""

    def returns_something(self, fn: Value) -> bool:
        mf = self.flow(fn[1])
        return mf is not None and any(i in mf.returns for i in self.scopes(mf, fn[2]))

    def named(self, name: str) -> tuple[SymbolInfo, ...]:
        """Python definitions anywhere in the project called `name` (for names nothing else binds)."""
        if name not in self._named:
            self._named[name] = tuple(s for s in self.view.named(name) if s.language == "python")
        elif self.view.recording:
            self.view.named(name)
        if self.recorders:
            self._note(("named", name), tuple(s.fqn for s in self._named[name]))
        return self._named[name]

    def _note(self, key: tuple[str, str], seen: object) -> None:
        for rec in self.recorders:
            rec.setdefault(key, seen)

    @staticmethod
    def recording_of(reads: Reads) -> Recording:
        """A cached analysis's reads as a view records them, to replay at once (a module read by
        items that was not there stands as read whole: found, it is the wider key)."""
        keys: set[str] = set()
        modules: set[str] = set()
        for (kind, arg), seen in reads.items():
            if kind == "named":
                keys.add(f"name:{arg}")
            elif kind == "item":
                keys.add(arg)
            elif kind == "facts" or seen is None or seen is False:
                modules.add(arg)
            else:
                keys.add(items_key(arg))
        return keys, modules

    def reread(self, reads: Reads) -> tuple[Reads, list[tuple[str, str]]]:
        """Read again, through this view, what a cached analysis read: the reads as they are now
        and which of them differ. This view now depends on them as the analysis did."""
        now_reads: Reads = {}
        differ = []
        for (kind, arg), seen in reads.items():
            if kind == "item":  # (whether the item changed is read with the module's items)
                self._looked_up(arg)
                now: object = seen
                same = True
            elif kind in ("facts", "items") and seen.__class__ is bytes:  # (kept by another process)
                now = self.facts_digest(arg, kind == "items")
                same = now == seen
            elif kind in ("facts", "items"):
                now = self._read(arg, kind == "items")[0]
                same = now is seen  # (an index hands out one object per file state)
            else:
                now = self.exists(arg) if kind == "exists" else tuple(s.fqn for s in self.named(arg))
                same = now == seen
            now_reads[(kind, arg)] = now
            if not same:
                differ.append((kind, arg))
        return now_reads, differ

    def import_values(self, mf: ModuleFlow, expr: list, export: Callable[[str, str], frozenset]) -> frozenset:
        """What `["m", module, name, level(, dotted)]` in `mf` binds."""
        target = self.module_named(mf.absolute(expr[1], expr[3]))
        name = expr[2]
        if not target:  # a relative import above the top level: an ImportError when run
            return frozenset({(MODULE, name, "")}) if name and self.exists(name) else EMPTY
        if not name:
            dotted = self.module_named(mf.absolute(expr[4], expr[3])) if len(expr) > 4 else target
            known = self.exists(target) or self.exists(dotted)
            return frozenset({(MODULE, target, "") if known else (EXT, "", target)})
        sub = self.module_named(f"{target}.{name}")
        if self.exists(target):
            found = export(target, name)
            if found:
                return found
        if self.exists(sub):
            return frozenset({(MODULE, sub, "")})
        return EMPTY if self.exists(target) else frozenset({(EXT, "", sub)})


class Lower(Protocol):
    """What one layer knows of modules other than the one being analysed."""

    def export(self, module: str, name: str) -> frozenset: ...
    def class_attr(self, cls: Value, name: str) -> frozenset: ...
    def bases(self, cls: Value) -> list[frozenset]: ...
    def returns(self, fn: Value) -> frozenset: ...
    def yields(self, fn: Value) -> frozenset: ...
    def field(self, obj: Value, key: object) -> frozenset: ...


class Syntactic(Lower):
    """Another module read without analysing it: definitions, imports, aliases and constants, each
    followed to what it names (a bounded walk in an order fixed by what it reads, not by string
    hashing: its result hangs only on its reads, so it is cached with them).

    A walk follows a binding's variables once each (`seen`, one per binding followed), and each
    (module, name) it goes on to once (`walk`: what it came to, None while being followed: a cycle
    stops there). Variables are not shared between bindings: a walk may come back into a module
    (one importing itself, or two each other), and what one binding finds must hang only on what
    its own lookup read (`_ItemDigests`), not on which variables another binding visited first."""

    def __init__(self, project: Project) -> None:
        self.project = project
        # (what, of what) -> (the result, what reading it took)
        self._cache: dict[tuple, tuple[object, Recording]] = {}

    def _cached(self, key: tuple, compute: Callable[[], object]) -> object:
        view = self.project.view
        hit = self._cache.get(key)
        if hit is not None:
            if view.recording:
                view.replay(hit[1])
            return hit[0]
        view.begin()
        try:
            result = compute()
        finally:
            read = view.end()
        self._cache[key] = (result, read)
        return result

    def export(self, module: str, name: str) -> frozenset:
        return self._cached(("export", module, name), lambda: self._follow(module, name, {}, 0))  # type: ignore[return-value]

    def class_attr(self, cls: Value, name: str) -> frozenset:
        return self._cached(("attr", cls, name), lambda: self._class_attr(cls, name))  # type: ignore[return-value]

    def _class_attr(self, cls: Value, name: str) -> frozenset:
        mf = self.project.flow(cls[1])
        found: set[Value] = set()
        walk: dict = {}
        for idx in self.project.scopes(mf, cls[2]) if mf is not None else ():
            self._vars(mf, self.project.names(mf, idx, name), found, set(), walk, 0)
        return frozenset(found)

    def bases(self, cls: Value) -> list[frozenset]:
        return self._cached(("bases", cls), lambda: self._bases_of(cls))  # type: ignore[return-value]

    def _bases_of(self, cls: Value) -> list[frozenset]:
        mf = self.project.flow(cls[1])
        out: list[frozenset] = []
        walk: dict = {}
        for idx in self.project.scopes(mf, cls[2]) if mf is not None else ():
            for expr in mf.bases.get(idx, []):
                found: set[Value] = set()
                self._eval(mf, expr, found, set(), walk, 0)
                out.append(frozenset(found))
        return out

    def returns(self, fn: Value) -> frozenset:
        return self.scope_exprs(fn, "returns")

    def yields(self, fn: Value) -> frozenset:
        return self.scope_exprs(fn, "yields")

    def field(self, obj: Value, key: object) -> frozenset:
        return EMPTY

    def scope_exprs(self, fn: Value, which: str) -> frozenset:
        """What `fn`'s return (or yield) statements give, read syntactically."""
        return self._cached((which, fn), lambda: self._scope_exprs(fn, which))  # type: ignore[return-value]

    def _scope_exprs(self, fn: Value, which: str) -> frozenset:
        mf = self.project.flow(fn[1])
        found: set[Value] = set()
        walk: dict = {}
        for idx in self.project.scopes(mf, fn[2]) if mf is not None else ():
            for expr in getattr(mf, which).get(idx, []):
                self._eval(mf, expr, found, set(), walk, 0)
        return frozenset(found)

    def _vars(self, mf: ModuleFlow, vars_: Iterable[int], out: set, seen: set, walk: dict, hops: int) -> None:
        for var in vars_:
            if var not in seen:
                seen.add(var)
                for expr in mf.var_defs.get(var, []):
                    self._eval(mf, expr, out, seen, walk, hops)

    def _eval(self, mf: ModuleFlow, expr: list | None, out: set, seen: set, walk: dict, hops: int) -> None:
        if expr is None or hops > MAX_CHAIN:
            return
        if expr.__class__ is int:
            self._vars(mf, (expr,), out, seen, walk, hops)
            return
        tag = expr[0]
        if tag == "v":
            self._vars(mf, expr[1], out, seen, walk, hops)
        elif tag in ("f", "C"):
            out.add(mf.value(expr[1]))
        elif tag == "k":
            out.add((CONST, "", expr[1]))
        elif tag == "m":
            out |= self.project.import_values(mf, expr, lambda m, n: self._follow(m, n, walk, hops + 1))
        elif tag == "a":
            owners: set[Value] = set()
            self._eval(mf, expr[1], owners, seen, walk, hops)
            out.update((EXT, "", f"{owner[2]}.{expr[2]}") for owner in owners if owner[0] == EXT)
            # in a fixed order: `walk` keeps the first follow of each name
            for module in sorted(owner[1] for owner in owners if owner[0] == MODULE):
                out |= self._follow(module, expr[2], walk, hops + 1)
        elif tag == "@":
            self._eval(mf, expr[3], out, seen, walk, hops)  # the decorator is not evaluated at this depth
        elif tag == "u":
            for part in expr[1]:
                self._eval(mf, part, out, seen, walk, hops)
        elif tag in ("i", "ic"):
            cls = mf.value(expr[1])
            out.add((INST, cls[1], cls[2]) if tag == "i" else cls)

    def _follow(self, module: str, name: str, walk: dict, hops: int) -> frozenset:
        if (module, name) in walk:
            return walk[module, name] or EMPTY  # (None: still being followed, a cycle)
        walk[module, name] = None
        mf = self.project.flow(module)
        found: set[Value] = set()
        if mf is not None:
            bound = self.project.names(mf, 0, name)
            self._vars(mf, bound, found, set(), walk, hops)
            if not bound and hops < MAX_CHAIN:  # perhaps re-exported by `from .x import *`
                for target in _star_modules(self.project, mf):
                    found |= self._follow(target, name, walk, hops + 1)
        result = walk[module, name] = frozenset(found)
        return result


class Outcome:
    """What other modules read of a finished analysis: the values of names bound at module level
    and in classes, and the returns, yields and fields it found. A cached analysis keeps only this
    (the function locals, worklist and lookups are most of an analysis and read by nobody)."""

    __slots__ = ("vars", "cells")

    def __init__(self, vars_: dict[int, frozenset], cells: dict[tuple, frozenset]) -> None:
        self.vars, self.cells = vars_, cells

    @classmethod
    def of(cls, a: Analysis) -> Outcome:
        read = (var for scope in _read_scopes(a.mf) for bound in scope[5].values() for var in bound)
        return cls({var: frozenset(a.vars[var]) for var in read if a.vars[var]},
                   {key: frozenset(values) for key, values in a.cells.items() if key[0] in _READ_CELLS})

    def final(self, vars_: Iterable[int]) -> frozenset:
        """What these variables hold once the analysis is done (read by other files' analyses)."""
        out: set = set()
        for var in vars_:
            out |= self.vars.get(var, EMPTY)
        return frozenset(out)


_READ_CELLS = frozenset("ryF")  # returns, yields, fields


def _read_scopes(mf: ModuleFlow) -> list[list]:
    """The scopes whose bindings other modules read (`Analysed.export`, `class_attr`): the module's
    and its classes' (every scope of a class's qualname)."""
    classes = {scope[0] for scope in mf.scopes if scope[1] == "class"}
    return [scope for idx, scope in enumerate(mf.scopes) if idx == 0 or scope[0] in classes]


@dataclass
class _CachedAnalysis:
    facts: FileFacts
    analysis: Outcome
    reads: Reads  # what it read of the project, as `Project.reread` checks
    recording: Recording  # the same, as a view records it
    # question -> (answer digest, key filter), see `Answers`; a kept analysis's questions stay encoded
    # (msgpack bytes) until one is asked again: most never are
    answers: dict[tuple | bytes, tuple[bytes, bytes]]
    epoch: tuple[int, int]  # the index state these hold for

    def encode(self) -> bytes | None:
        """As kept between processes (`_kept`): what it read of other modules' facts as digests."""
        reads = [(kind, arg, _seen_digest(seen)) for (kind, arg), seen in self.reads.items()]
        try:
            encoded = msgspec.msgpack.encode((
                _KEPT_FORMAT, _facts_digest(self.facts), list(self.analysis.vars.items()),
                list(self.analysis.cells.items()),
                [(msgspec.Raw(q) if q.__class__ is bytes else q, d, f) for q, (d, f) in self.answers.items()], reads))
        except (TypeError, msgspec.EncodeError):
            return None
        return zlib.compress(encoded, 3)  # (a fifth of the size: questions and reads repeat module names)


_KEPT_FORMAT = 7  # 7: lists builtins make named by site in scope; 6: fields found are item reads too
_KeptValues = list[tuple[str, object, object]]  # (values: see `_values`)
_KEPT_DECODER = msgspec.msgpack.Decoder(
    tuple[int, bytes, list[tuple[int, _KeptValues]], list[tuple[list, _KeptValues]],
          list[tuple[msgspec.Raw, bytes, bytes]], list[tuple[str, str, object]]])


def _kept(facts: FileFacts, view: ProjectView) -> _CachedAnalysis | None:
    """The analysis of this file an earlier process kept (`keep_analysis`), when it was made of
    these very facts; what it read of the rest is checked by `Analysed._still_holds` (its epoch
    is no index's)."""
    blob = view.kept_analysis(facts.path)
    if blob is None:
        return None
    try:
        fmt, digest, vars_, cells, answers, reads = _KEPT_DECODER.decode(zlib.decompress(blob))
    except (zlib.error, msgspec.DecodeError, msgspec.ValidationError):
        return None
    if fmt != _KEPT_FORMAT or digest != _facts_digest(facts):
        return None
    frozen = {(kind, arg): tuple(seen) if seen.__class__ is list else seen for kind, arg, seen in reads}
    if frozen.get(("facts", facts.module)) == digest:
        frozen["facts", facts.module] = facts
    outcome = Outcome({var: _values(values) for var, values in vars_},
                      {thaw(key): _values(values) for key, values in cells})  # type: ignore[misc]
    return _CachedAnalysis(facts, outcome, frozen, Project.recording_of(frozen),
                           {bytes(q): (d, f) for q, d, f in answers}, (0, -1))


def _seen_digest(seen: object) -> object:
    """A read as kept between processes: facts as their digest, anything else as it is."""
    return _facts_digest(seen) if seen.__class__ is FileFacts else seen  # type: ignore[arg-type]


def _values(values: _KeptValues) -> frozenset:
    """Decoded values as tuples: a few nest another value, or their key (`thaw`)."""
    return frozenset(v if v[2].__class__ is not list and v[1].__class__ is not list
                     else (v[0], thaw(v[1]), thaw(v[2])) for v in values)


_DIGESTS: OrderedDict[str, tuple[FileFacts, bytes]] = OrderedDict()


def _facts_digest(facts: FileFacts) -> bytes:
    """What a file's facts are, for comparing them in another process (by path and object, as
    `module_flow`)."""
    hit = _DIGESTS.get(facts.path)
    if hit is not None and hit[0] is facts:
        return hit[1]
    digest = digest_of(facts)
    _DIGESTS[facts.path] = (facts, digest)
    if len(_DIGESTS) > CACHE_SIZE:
        _DIGESTS.popitem(last=False)
    return digest


class Analysed(Lower):
    """Another module analysed on its own (no arguments from the file being resolved), reading its
    own imports through :class:`Syntactic`. Analyses are cached for the run, with their reads."""

    # For the facts object (an index hands every file the same object for a module), checked
    # against what the analysis read: a warm index keeps unchanged files' objects between runs.
    # Within one state of the index (its epoch) nothing read can differ, so the check is skipped.
    # Keyed by path: a file's new state replaces the old one's analysis.
    _cache: OrderedDict[str, _CachedAnalysis] = OrderedDict()

    def __init__(self, project: Project) -> None:
        self.project = project
        self.syntactic = Syntactic(project)
        self._mine: dict[str, tuple[Outcome | None, Recording]] = {}

    def analysis(self, module: str) -> Outcome | None:
        facts = self.project.facts(module)
        mine = self._mine.get(module)
        if mine is not None:
            if self.project.view.recording:
                self.project.view.replay(mine[1])
            return mine[0]
        result, recording = None, (set(), set())
        if facts is not None:
            hit = self._cache.get(facts.path)
            if hit is None or hit.facts is not facts:
                hit = _kept(facts, self.project.view)
                if hit is not None:
                    self._cache[facts.path] = hit
            if hit is not None and self._still_holds(hit):
                self._cache.move_to_end(facts.path)
                result, recording = hit.analysis, hit.recording
            else:
                result, recording = self._analyse(facts)
        self._mine[module] = (result, recording)
        return result

    def recording(self, module: str) -> Recording:
        """What `analysis(module)`, asked already, read of the project."""
        return self._mine[module][1]

    def _still_holds(self, hit: _CachedAnalysis) -> bool:
        """Whether a cached analysis may be reused by this view (which then depends on what it
        read). After an edit, when modules it read changed, it still holds if every question it
        asked whose reads the change touched gets the same answer (the early cutoff of `verify`,
        one level down): adding a function to a module read by a hundred analyses re-runs none."""
        view = self.project.view
        if hit.epoch == view.epoch and not self.project.recorders:
            view.absorb(hit.recording)
            return True
        changed = None if self.project.recorders else view.changed_since(hit.epoch)
        if changed is None:
            reads, differ = self.project.reread(hit.reads)
        else:  # read again only what changed since (the same index: its objects are the same otherwise)
            view.absorb(hit.recording)
            now, differ = self.project.reread({key: hit.reads[key] for key in changed if key in hit.reads})
            reads = {**hit.reads, **now} if now else hit.reads
        if differ:
            if any(kind == "exists" for kind, _ in differ):
                return False  # a module appeared or went: lookups it never asked about may now succeed
            touched: list[str] = []
            for kind, arg in differ:
                if kind == "items":  # (an edit touches the lookups of the items it changed)
                    before, after = _seen_digest(hit.reads[kind, arg]), _seen_digest(reads[kind, arg])
                    touched += view.item_changes(arg, before, after)  # type: ignore[arg-type]
                else:
                    touched.append(module_key(arg) if kind == "facts" else f"name:{arg}")
            answers = Answers(view)
            asked = {"lower": AskedLower(self.syntactic, answers), "project": AskedProject(self.project, answers)}
            self.project.recorders.append(reads)
            encoded = []  # kept questions asked again (decoded now)
            try:
                for query, (digest, key_filter) in hit.answers.items():
                    if may_have_read(key_filter, touched):
                        if query.__class__ is bytes:
                            encoded.append(query)
                            query = question(query)
                        if _ask_again(asked, answers, query)[0] != digest:  # type: ignore[arg-type]
                            return False
            finally:
                self.project.recorders.pop()
            for query in encoded:
                del hit.answers[query]
            hit.answers.update(answers.log)
            hit.recording = Project.recording_of(reads)
            view.keep_analysis(hit.facts.path, hit.encode)  # (kept as checked: a later process asks none again)
        hit.reads, hit.epoch = reads, view.epoch
        return True

    def _analyse(self, facts: FileFacts) -> tuple[Outcome, Recording]:
        reads: Reads = {}
        answers = Answers(self.project.view)
        self.project.recorders.append(reads)
        try:
            self.project.facts(facts.module)
            analysis = Analysis(module_flow(facts), AskedLower(Syntactic(self.project), answers),
                                AskedProject(self.project, answers), record=False)  # type: ignore[arg-type]
            analysis.run()
        finally:
            self.project.recorders.pop()
        result = Outcome.of(analysis)
        recording = Project.recording_of(reads)
        hit = self._cache[facts.path] = _CachedAnalysis(facts, result, reads, recording, answers.log,
                                                        self.project.view.epoch)
        self._cache.move_to_end(facts.path)
        self.project.view.keep_analysis(facts.path, hit.encode)
        if len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        return result, recording

    def export(self, module: str, name: str, hops: int = 0) -> frozenset:
        mf = self.project.flow(module)
        if mf is None:
            return EMPTY
        exprs = [e for v in self.project.names(mf, 0, name) for e in mf.var_defs.get(v, [])]
        if not exprs:  # not bound here: perhaps re-exported by `from .x import *`
            return self.syntactic.export(module, name) if hops >= MAX_CHAIN else frozenset(
                v for target in _star_modules(self.project, mf) for v in self.export(target, name, hops + 1))
        if all(_tag(e) in ("f", "C", "k") for e in exprs):
            return self.syntactic.export(module, name)
        if all(_tag(e) == "m" for e in exprs) and hops < MAX_CHAIN:  # a re-export
            out: set = set()
            for e in exprs:
                out |= self.project.import_values(mf, e, lambda m, n: self.export(m, n, hops + 1))
            return frozenset(out)
        a = self.analysis(module)
        return a.final(mf.names(0, name)) if a is not None else EMPTY

    def class_attr(self, cls: Value, name: str) -> frozenset:
        mf = self.project.flow(cls[1])
        if mf is None:
            return EMPTY
        exprs = [e for idx in self.project.scopes(mf, cls[2]) for v in self.project.names(mf, idx, name)
                 for e in mf.var_defs.get(v, [])]
        if all(_tag(e) in ("f", "C", "k", "m") for e in exprs):
            return self.syntactic.class_attr(cls, name)
        a = self.analysis(cls[1])
        return a.final([v for idx in mf.scopes_of(cls[2]) for v in mf.names(idx, name)]) if a is not None else EMPTY

    def bases(self, cls: Value) -> list[frozenset]:
        return self.syntactic.bases(cls)

    def returns(self, fn: Value) -> frozenset:
        return self._scope_values(fn, "r", "returns")

    def yields(self, fn: Value) -> frozenset:
        return self._scope_values(fn, "y", "yields")

    def _scope_values(self, fn: Value, cell: str, which: str) -> frozenset:
        mf = self.project.flow(fn[1])
        exprs = [e for i in self.project.scopes(mf, fn[2]) for e in getattr(mf, which).get(i, [])] if mf else []
        if all(_tag(e) in ("f", "C", "k", "m") for e in exprs):
            return self.syntactic.scope_exprs(fn, which)
        a = self.analysis(fn[1])
        return frozenset(a.cells.get((cell, fn[2]), EMPTY)) if a is not None else EMPTY

    def field(self, obj: Value, key: object) -> frozenset:
        if not obj[1]:
            return EMPTY
        if obj[0] in (INST, CLASS, MODULE):  # only worth an analysis when its module can assign the field:
            mf = self.project.flow(obj[1])  # a class's `self.<key>` in a method, a module's any `.<key>`
            if mf is None:
                return EMPTY
            # (noted found or not: an edit that takes the field away touches the lookup, `item_edits`;
            # a module's obj[2] is "")
            self.project.looked_up(mf.module, f"{obj[2]}@{key}")
            if (key not in mf.assigned_attrs) if obj[0] == MODULE else ((obj[2], key) not in mf.self_fields):
                return EMPTY
        a = self.analysis(obj[1])
        return frozenset(a.cells.get(("F", obj, key), EMPTY)) if a is not None else EMPTY


def _star_modules(project: Project, mf: ModuleFlow) -> list[str]:
    """The project modules `mf` imports with `from ... import *`."""
    return [t for t in (mf.absolute(m, level) for m, level in mf.star) if t and project.exists(t)]


def _tag(expr: list | int | None) -> str:
    """An expression's kind: its tag, "v" for a one-variable read, "" for nothing."""
    if expr.__class__ is list:
        return expr[0]  # type: ignore[index]
    return "v" if expr.__class__ is int else ""


# --------------------------------------------------------------------------------------------------
# The fixpoint
# --------------------------------------------------------------------------------------------------


class Analysis:
    """The points-to fixpoint over one module's statements."""

    def __init__(self, mf: ModuleFlow, lower: Lower, project: Project, record: bool) -> None:
        self.mf = mf
        self.module = mf.module
        self.lower = lower
        self.project = project
        self.record = record
        self.vars: list[set | None] = [None] * mf.nvars
        self.var_readers: list[set[int] | None] = [None] * mf.nvars  # statements to run again when it grows
        self.cells: dict[tuple, set] = {}
        self.readers: dict[object, set[int]] = {}
        self.keys: dict[Value, set[object]] = {}  # an object's field keys, for reads of all of them
        self.edges: dict[object, dict[str, set[str]]] = {}  # site -> relation -> targets
        self.blind: dict[int, str] = {}  # call sites whose receiver is unknown -> the method name
        self.cur = 0
        self.scope = 0
        self.settling = -1  # the statement whose unknown decorators may now keep their function
        self.undecided: set[int] = set()
        self.budget = 0
        self.queue: deque[int] = deque()
        self.queued = bytearray()
        self._mro: dict[Value, list[Value]] = {}
        self._mro_users: dict[Value, set[Value]] = {}  # class -> the linearisations that include it
        self._subclasses: dict[Value, list[Value]] = {}
        self._static: dict[tuple, frozenset | set] = {}  # lookups into other modules, fixed during a run

    # running -------------------------------------------------------------------------------------
    def run(self) -> None:
        stmts = self.mf.stmts
        self.queue = deque(range(len(stmts)))
        self.queued = bytearray(b"\x01" * len(stmts))
        self.budget = EVALUATIONS_PER_STATEMENT * len(stmts) + 1000
        self._drain()
        # Decorations still unknown at the fixpoint leave their function as it is, decided one at a
        # time in source order (an inner function's decorator first), the effects of each first.
        settled: set[int] = set()
        while pending := sorted(self.undecided - settled):
            self.settling = pending[0]
            settled.add(pending[0])
            self._wake_one(pending[0])
            self._drain()

    def _drain(self) -> None:
        stmts = self.mf.stmts
        while self.queue and self.budget > 0:
            self.budget -= 1
            i = self.queue.popleft()
            self.queued[i] = 0
            stmt = stmts[i]
            self.cur, self.scope = i, stmt[1]
            self.execute(stmt)
        if self.queue:
            note_order_dependence()  # out of budget: what was left undone followed the order

    def _wake_one(self, i: int) -> None:
        if not self.queued[i]:
            self.queued[i] = 1
            self.queue.append(i)

    def _wake(self, key: object) -> None:
        for i in self.readers.get(key, ()):
            self._wake_one(i)

    def _read(self, key: object) -> None:
        readers = self.readers.get(key)
        if readers is None:
            self.readers[key] = {self.cur}
        else:
            readers.add(self.cur)

    def add_var(self, var: int, values: frozenset | set) -> None:
        if not values:
            return
        have = self.vars[var]
        if have is None:
            have = self.vars[var] = set()
        size = len(have)
        if size < MAX_VALUES:
            have |= values
            if len(have) != size:
                for i in self.var_readers[var] or ():
                    self._wake_one(i)
        elif not values <= have:
            note_order_dependence()  # which values got in first followed the iteration order

    def add_cell(self, key: tuple, values: frozenset | set) -> bool:
        """Add to a cell; True when it grew."""
        if not values:
            return False
        have = self.cells.get(key)
        if have is None:
            have = self.cells[key] = set()
        size = len(have)
        if size >= MAX_VALUES:
            if not values <= have:
                note_order_dependence()
            return False
        have |= values
        if len(have) == size:
            return False
        self._wake(key)
        if key[0] == "F":
            self.keys.setdefault(key[1], set()).add(key[2])
            self._wake(("F*", key[1]))
        return True

    def read_var(self, var: int) -> frozenset | set:
        readers = self.var_readers[var]  # (the hottest read: `_read` inlined)
        if readers is None:
            self.var_readers[var] = {self.cur}
        else:
            readers.add(self.cur)
        return self.vars[var] or EMPTY

    def cell(self, key: tuple) -> frozenset | set:
        self._read(key)
        return self.cells.get(key) or EMPTY

    def field(self, obj: Value, key: object) -> frozenset | set:
        local = self.cell(("F", obj, key))
        if obj[1] and obj[1] != self.module:
            other = self._static.get(("F", obj, key))
            if other is None:
                other = self._static[("F", obj, key)] = self.lower.field(obj, key)
            if other:
                return local | other if local else other
        return local

    def all_fields(self, obj: Value) -> set:
        self._read(("F*", obj))
        out: set = set()
        for key in self.keys.get(obj, ()):
            out |= self.cells[("F", obj, key)]
        return out

    # statements ----------------------------------------------------------------------------------
    def execute(self, stmt: list) -> None:
        op = stmt[0]
        if op == "=":
            self.assign(stmt[2], self.eval(stmt[3]))
        elif op == "e":
            self.eval(stmt[2])
        elif op == "r":
            self.add_cell(("r", self.mf.scopes[stmt[1]][0]), self.eval(stmt[2]))
        elif op == "y":
            self.add_cell(("y", self.mf.scopes[stmt[1]][0]), self.eval(stmt[2]))
        elif op == "Y":
            self.add_cell(("y", self.mf.scopes[stmt[1]][0]), self.items(self.eval(stmt[2]), None))
        elif op == "for":
            self.assign(stmt[2], self.items(self.eval(stmt[3]), stmt[4]))
        elif op == "w":
            self.assign(stmt[2], self.entered(self.eval(stmt[3])))
        elif op == "raise":
            for value in self.eval(stmt[2]):
                if value[0] == CLASS:
                    self.instantiate(stmt[3], value, [], [])
        elif op == "b":
            changed = False
            for i, base in enumerate(stmt[3]):
                changed = self.add_cell(("B", stmt[2], i), self.eval(base)) or changed
            if changed:
                self._forget_mro(self.mf.value(stmt[2]))

    def assign(self, target: list, values: frozenset | set) -> None:
        tag = target[0]
        if tag == "v":
            self.add_var(target[1], values)
        elif tag == "a":
            for obj in self.eval(target[1]):
                self.add_cell(("F", obj, target[2]), values)
        elif tag == "s":
            objs = self.eval(target[1])
            keys = self.eval(target[2]) if target[2] is not None else EMPTY
            for obj in objs:
                if obj[0] in (SEQ, DICT):
                    for key in _keys(keys):
                        self.add_cell(("F", obj, key), values)
        elif tag == "t":
            self.unpack(target[1], target[2], values)

    def unpack(self, targets: list, star: int, values: frozenset | set) -> None:
        for value in values:
            if value[0] != SEQ:
                items = self.items((value,), None)
                for i, target in enumerate(targets):
                    if target is not None and i != star:
                        self.assign(target, items)
                continue
            for i, target in enumerate(targets):
                if target is None or i == star:
                    continue
                got = self.field(value, i) | self.field(value, "*") if star < 0 or i < star else self.all_fields(value)
                self.assign(target, got)

    # expressions ---------------------------------------------------------------------------------
    def eval(self, expr: list | int | None) -> frozenset | set:
        if expr.__class__ is int:
            return self.read_var(expr)  # type: ignore[arg-type]
        if expr is None:
            return EMPTY
        return _EVAL[expr[0]](self, expr)  # type: ignore[index]

    def e_vars(self, expr: list) -> frozenset | set:
        ids = expr[1]
        if len(ids) == 1:
            return self.read_var(ids[0])
        out: set = set()
        for var in ids:
            out |= self.read_var(var)
        return out

    def e_free(self, expr: list) -> frozenset | set:
        hit = self._static.get(("n", expr[1]))
        if hit is None:
            hit = self._static[("n", expr[1])] = self.free_name(expr[1])
        return hit

    def free_name(self, name: str) -> frozenset:
        """A name the file binds nowhere: from a star import, a builtin, or (a guess) a definition
        of that name elsewhere in the project."""
        outside = []
        for module, level in self.mf.star:
            target = self.mf.absolute(module, level)
            if not target:
                continue  # above the top level: imports nothing
            if not self.project.exists(target):
                outside.append(target)
                continue
            found = self.lower.export(target, name)
            if found:
                return found
        if name in _BUILTINS:
            return frozenset({(BUILTIN, "", name)})
        if outside:  # most likely from the one module we cannot see into
            return frozenset({(EXT, "", f"{outside[0]}.{name}")}) if len(outside) == 1 else EMPTY
        return frozenset(_value_of(s) for s in self.project.named(name) if s.parent == s.module)

    def e_attr(self, expr: list) -> frozenset | set:
        out: set = set()
        for obj in self.eval(expr[1]):
            out |= self.attr(obj, expr[2])
        return out

    def e_subscript(self, expr: list) -> frozenset | set:
        keys = _keys(self.eval(expr[2])) if expr[2] is not None else ["*"]
        out: set = set()
        for obj in self.eval(expr[1]):
            if obj[0] in (SEQ, DICT):
                if "*" in keys:
                    out |= self.all_fields(obj)
                else:
                    for key in keys:
                        out |= self.field(obj, key) | self.field(obj, "*")
        return out

    def e_slice(self, expr: list) -> frozenset | set:
        out: set = set()
        lo, hi = expr[2] or 0, expr[3]
        for obj in self.eval(expr[1]):
            if obj[0] != SEQ:
                continue
            copy = (SEQ, self.module, ("slice", obj, lo, hi))
            self._read(("F*", obj))
            for key in list(self.keys.get(obj, ())):
                inside = isinstance(key, int) and lo <= key and (hi is None or key < hi)
                if lo >= 0 and (hi is None or hi >= 0):
                    if inside:
                        self.add_cell(("F", copy, key - lo), self.cells[("F", obj, key)])
                elif key != "*":  # negative bounds: positions unknown
                    self.add_cell(("F", copy, "*"), self.cells[("F", obj, key)])
            self.add_cell(("F", copy, "*"), self.field(obj, "*"))
            out.add(copy)
        return out

    def e_const(self, expr: list) -> frozenset:
        return frozenset({(CONST, "", expr[1])})

    def e_some_str(self, expr: list) -> frozenset:
        return frozenset({SOME_STR})

    def e_seq(self, expr: list) -> frozenset:
        obj = (SEQ, self.module, expr[1])
        index: object = 0
        for item in expr[2]:
            if item.__class__ is list and item[0] == "*":
                self.add_cell(("F", obj, "*"), self.items(self.eval(item[1]), None))
                index = "*"  # positions after a starred item are unknown
                continue
            self.add_cell(("F", obj, index), self.eval(item))
            if index != "*":
                index += 1  # type: ignore[operator]
        return frozenset({obj})

    def e_dict(self, expr: list) -> frozenset:
        obj = (DICT, self.module, expr[1])
        for key, value in expr[2]:
            if key is None:  # {**other}
                for other in self.eval(value):
                    if other[0] == DICT:
                        self.add_cell(("F", obj, "*"), self.all_fields(other))
                continue
            for k in _keys(self.eval(key)):
                self.add_cell(("F", obj, k), self.eval(value))
        return frozenset({obj})

    def e_comprehension(self, expr: list) -> frozenset:
        obj = (SEQ, self.module, expr[1])
        self.add_cell(("F", obj, "*"), self.eval(expr[2]))
        return frozenset({obj})

    def e_def(self, expr: list) -> frozenset:
        return frozenset({self.mf.value(expr[1])})

    def e_instance(self, expr: list) -> frozenset:
        cls = self.mf.value(expr[1])
        return frozenset({(INST, cls[1], cls[2])})

    def e_class_of(self, expr: list) -> frozenset:
        return frozenset({self.mf.value(expr[1])})

    def e_import(self, expr: list) -> frozenset:
        return self.project.import_values(self.mf, expr, self.lower.export)

    def e_union(self, expr: list) -> frozenset | set:
        out: set = set()
        for part in expr[1]:
            out |= self.eval(part)
        return out

    def e_effects(self, expr: list) -> frozenset:
        for part in expr[1]:
            self.eval(part)
        return EMPTY

    # attributes ----------------------------------------------------------------------------------
    def attr(self, obj: Value, name: str) -> frozenset | set:
        kind = obj[0]
        if kind == INST:
            return self.instance_attr(obj, name)
        if kind == MODULE:
            return self.module_attr(obj[1], name)
        if kind == CLASS:
            return self.class_attr(obj, name) | self.field(obj, name)
        if kind in (EXT, EXT_INST):
            return frozenset({(EXT, "", f"{obj[2]}.{name}")})
        if kind == SUPER:
            return self.super_attr(obj, name)
        if kind in (SOME_STR_KIND, SEQ, DICT) or kind == CONST and isinstance(obj[2], str):
            # (TYPE_METHOD, the container or "", "<type>.name"): a container's methods change it
            container = obj if kind in (SEQ, DICT) else ""
            return frozenset({(TYPE_METHOD, container, f"{_LITERAL_TYPES[kind]}.{name}")})  # type: ignore[arg-type]
        if kind == TYPE_METHOD:
            return EMPTY
        return self.field(obj, name)

    def module_attr(self, module: str, name: str) -> frozenset | set:
        assigned = self.field((MODULE, module, ""), name)  # `module.name = ...` in this file
        if module == self.module:
            found = self.module_attr_local(name)
            return found | assigned if assigned else found
        key = ("module", module, name)
        found = self._static.get(key)
        if found is None:
            found = self._static[key] = self._other_module_attr(module, name)
        return found | assigned if assigned else found

    def _other_module_attr(self, module: str, name: str) -> frozenset:
        """`name` in another module: what it binds there, else a submodule of that name."""
        if self.project.exists(module):
            found = self.lower.export(module, name)
            if found:
                return found
        sub = self.project.module_named(f"{module}.{name}")
        if self.project.exists(sub) or not self.project.exists(module):
            return frozenset({(MODULE, sub, "")})  # a submodule, or a step through a namespace package
        return EMPTY

    def module_attr_local(self, name: str) -> frozenset | set:
        out: set = set()
        for var in self.mf.names(0, name):
            out |= self.read_var(var)
        return out

    def own_class_attr(self, cls: Value, name: str) -> frozenset | set:
        """`name` in the class body itself (not inherited)."""
        if cls[1] != self.module:
            hit = self._static.get((cls, name))
            if hit is None:
                hit = self._static[(cls, name)] = self.lower.class_attr(cls, name)
            return hit
        out: set = set()
        for idx in self.mf.scopes_of(cls[2]):
            for var in self.mf.names(idx, name):
                out |= self.read_var(var)
        return out

    def class_attr(self, cls: Value, name: str) -> frozenset | set:
        for owner in self.mro(cls):
            if owner[0] == EXT:
                return frozenset({(EXT, "", f"{owner[2]}.{name}")})
            found = self.own_class_attr(owner, name)
            if found:
                return {self._via_class(v) for v in found}
        return EMPTY

    def instance_attr(self, inst: Value, name: str) -> frozenset | set:
        mro = self.mro((CLASS, inst[1], inst[2]))
        if mro[0][1] != self.module:  # wholly elsewhere: fixed for the run
            key = ("attr", inst, name)
            hit = self._static.get(key)
            if hit is None:
                hit = self._static[key] = frozenset(self._instance_attr(inst, mro, name))
            return hit
        return self._instance_attr(inst, mro, name)

    def _instance_attr(self, inst: Value, mro: list[Value], name: str) -> set:
        split = len(mro)
        while split > 1 and mro[split - 1][1] != self.module:
            split -= 1  # the classes from here on lie elsewhere: what they give is fixed for the run
        out, class_found = self._instance_attr_from(mro[:split], name, False)
        class_found = class_found or bool(out)  # an instance field hides what an external base has
        if split < len(mro):
            key = ("tail", tuple(mro[split:]), name, class_found)
            tail = self._static.get(key)
            if tail is None:
                tail = self._static[key] = frozenset(self._instance_attr_from(mro[split:], name, class_found)[0])
            out |= tail
        if not out:
            out = self._from_subclasses(inst, name)
        return out

    def _instance_attr_from(self, owners: list[Value], name: str, class_found: bool) -> tuple[set, bool]:
        """`name` through part of a linearisation: the fields every class sets on the object, and
        the first class member (unless one came earlier); also whether something was found. Past
        an external base the member is guessed to be that base's, if nothing of ours had it."""
        out: set = set()
        for owner in owners:
            if owner[0] == EXT:
                if not class_found and not out:
                    out.add((EXT, "", f"{owner[2]}.{name}"))
                    class_found = True
                continue
            out |= self.field((INST, owner[1], owner[2]), name)
            if not class_found:
                found = self.own_class_attr(owner, name) | self.field(owner, name)  # also `cls.x = ...`
                if found:
                    class_found = True
                    for value in found:
                        out |= self._via_instance(value)
        return out, class_found

    def _from_subclasses(self, inst: Value, name: str) -> set:
        """A member the class lacks but its subclasses define (a template method's hook): those of
        this module, and methods of that name elsewhere whose class derives from it."""
        cls = (CLASS, inst[1], inst[2])
        out: set = set()
        for sub in self.subclasses(cls):
            out |= self.field((INST, sub[1], sub[2]), name)
            for value in self.own_class_attr(sub, name):
                out |= self._via_instance(value)
        key = ("overrides", cls, name)
        elsewhere = self._static.get(key)
        if elsewhere is None:
            found: set = set()
            named = self.project.named(name)
            # A name defined all over the project would give more candidates than a site may have:
            # not worth reading every module that defines it.
            for sym in named if len(named) <= 2 * MAX_CANDIDATES else ():
                owner = (CLASS, sym.module, sym.parent[len(sym.module) + 1 :])
                if sym.kind == "function" and owner[2] and owner[1] != self.module and cls in self.mro(owner)[1:]:
                    found |= self._via_instance((FUNC, sym.module, sym.fqn[len(sym.module) + 1 :]))
            elsewhere = self._static[key] = frozenset(found)
        return out | elsewhere

    def subclasses(self, cls: Value) -> list[Value]:
        """The classes of this module that have `cls` among their ancestors."""
        hit = self._subclasses.get(cls)
        if hit is None:
            hit = self._subclasses[cls] = [
                sub for sub in (self.mf.value(i) for i, s in enumerate(self.mf.scopes) if s[1] == "class")
                if sub != cls and cls in self.mro(sub)
            ]
        return hit

    def super_attr(self, proxy: Value, name: str) -> frozenset | set:
        for owner in self.mro((CLASS, proxy[1], proxy[2]))[1:]:
            if owner[0] == EXT:
                return frozenset({(EXT, "", f"{owner[2]}.{name}")})
            found = self.own_class_attr(owner, name)
            if found:
                out: set = set()
                for value in found:
                    out |= self._via_instance(value)
                return out
        return EMPTY

    def _flags(self, fn: Value) -> str:
        return self.mf.flags(fn[2]) if fn[1] == self.module else self.project.flags(fn)

    def _via_instance(self, value: Value) -> frozenset | set:
        """A class member read through an instance: methods bind, properties run their getter."""
        if value[0] != FUNC:
            return frozenset({value})
        flags = self._flags(value)
        if "p" in flags:
            return self.returns(value)
        if "s" in flags:
            return frozenset({value})
        return frozenset({(BOUND, value[1], value[2])})

    def _via_class(self, value: Value) -> Value:
        return (BOUND, value[1], value[2]) if value[0] == FUNC and "c" in self._flags(value) else value

    # classes -------------------------------------------------------------------------------------
    def bases(self, cls: Value) -> list[Value]:
        if cls[1] == self.module:
            groups = [self.cell(("B", idx, i)) for idx in self.mf.scopes_of(cls[2])
                      for i in range(len(self.mf.bases.get(idx, ())))]
        else:
            groups = self.lower.bases(cls)
        out: list[Value] = []
        for group in groups:
            for value in sorted(group, key=str):
                if value[0] in (CLASS, EXT) and value not in out:
                    out.append(value)
        return out

    def _forget_mro(self, cls: Value) -> None:
        """`cls` got a base: drop every linearisation it is part of."""
        for user in self._mro_users.pop(cls, ()):
            self._mro.pop(user, None)
        self._subclasses.clear()

    def mro(self, cls: Value) -> list[Value]:
        """C3 linearisation; an external base ends its own line (what lies above it is unknown)."""
        hit = self._mro.get(cls)
        if hit is not None:
            return hit
        self._mro[cls] = [cls]  # a class that inherits itself (bad code) stops here
        if cls[0] == EXT:
            return self._mro[cls]
        bases = self.bases(cls)
        lines = [list(self.mro(b)) for b in bases] + [list(bases)]
        order = [cls]
        while any(lines):
            head = next((line[0] for line in lines if line and not any(line[0] in rest[1:] for rest in lines)), None)
            if head is None:  # no consistent order: keep the depth-first one
                order += [c for line in lines for c in line if c not in order]
                break
            order.append(head)
            lines = [line[1:] if line and line[0] == head else line for line in lines]
        self._mro[cls] = order
        for member in order:
            self._mro_users.setdefault(member, set()).add(cls)
        return order

    # calls ---------------------------------------------------------------------------------------
    def e_call(self, expr: list) -> frozenset | set:
        site = expr[1]
        func = expr[2]
        if func.__class__ is list and func[0] == "a":
            receivers = self.eval(func[1])
            callees: frozenset | set = set()
            for receiver in receivers:
                callees |= self.attr(receiver, func[2])  # type: ignore[operator]
            if receivers:
                self.blind.pop(site, None)
            else:
                self.blind[site] = func[2]
        else:
            callees = self.eval(func)
        args = [("*", self.eval(a[1])) if a.__class__ is list and a[0] == "*" else self.eval(a) for a in expr[3]]
        kwargs = [(k, self.eval(v)) for k, v in expr[4]]
        out: set = set()
        for callee in callees:
            out |= self.invoke(site, callee, args, kwargs)
        return out

    def e_decorate(self, expr: list) -> frozenset | set:
        decorators = self.eval(expr[2])
        inner = self.eval(expr[3])
        out: set = set()
        known = False  # a decorator of the project: the name is what it returns
        for dec in decorators:
            result = self.invoke(expr[1], dec, [inner], [])
            if dec[0] in (FUNC, BOUND) and self._returns_something(dec) or dec[0] == CLASS:
                out |= result
                known = True
        if out:
            return out
        if decorators and not known or self.cur == self.settling:
            return inner  # an external or builtin decorator: the function stays what it is
        self.undecided.add(self.cur)  # nothing known yet: decide once the fixpoint has settled
        return EMPTY

    def _returns_something(self, fn: Value) -> bool:
        if fn[1] != self.module:
            return self.project.returns_something(fn)
        return any(i in self.mf.returns for i in self.mf.scopes_of(fn[2]))

    def invoke(self, site: object, callee: Value, args: list, kwargs: list) -> frozenset | set:
        kind = callee[0]
        if kind in (FUNC, BOUND):
            self.edge(site, Relation.CALLS, qualify(callee[1], callee[2]))  # type: ignore[arg-type]
            if callee[1] == self.module:
                self.pass_args(callee[2], args, kwargs, 1 if kind == BOUND else 0)
            return self.returns(callee)
        if kind == CLASS:
            return self.instantiate(site, callee, args, kwargs)
        if kind == EXT:
            self.edge(site, Relation.CALLS, callee[2])  # type: ignore[arg-type]
            short = str(callee[2]).rsplit(".", 1)[-1]
            return frozenset({(EXT_INST, "", callee[2])}) if short[:1].isupper() else EMPTY
        if kind == BUILTIN:
            return self.builtin(site, callee[2], args, kwargs)  # type: ignore[arg-type]
        if kind == TYPE_METHOD:
            if str(callee[2]).startswith("<**"):
                self.edge(site, Relation.CALLS, callee[2])  # type: ignore[arg-type]
            if callee[1]:
                return self.container_call(callee[1], str(callee[2]).rsplit(".", 1)[-1], args, kwargs)  # type: ignore[arg-type]
        elif kind == INST:
            out: set = set()
            for method in self.instance_attr(callee, "__call__"):
                out |= self.invoke(site, method, args, kwargs)
            return out
        return EMPTY

    def returns(self, fn: Value) -> frozenset | set:
        mf = self.mf if fn[1] == self.module else None
        flags = mf.flags(fn[2]) if mf is not None else self._flags(fn)
        if "g" in flags:
            return frozenset({(GEN, fn[1], fn[2])})
        if mf is not None:
            return self.cell(("r", fn[2]))
        return self.lower.returns(fn)

    def instantiate(self, site: object, cls: Value, args: list, kwargs: list) -> frozenset:
        self.edge(site, Relation.INSTANTIATES, qualify(cls[1], cls[2]))  # type: ignore[arg-type]
        for owner in self.mro(cls):
            if owner[0] == EXT:
                self.edge(site, Relation.CALLS, f"{owner[2]}.__init__")
                break
            inits = self.own_class_attr(owner, "__init__")
            if inits:
                for init in inits:
                    if init[0] == FUNC:
                        self.invoke(site, (BOUND, init[1], init[2]), args, kwargs)
                break
        return frozenset({(INST, cls[1], cls[2])})

    def pass_args(self, qualname: object, args: list, kwargs: list, offset: int) -> None:
        # (packed arguments are named by the function's qualname, not its scope's number: an edit
        # elsewhere in the module renumbers scopes, and readers of the module's analysis compare values)
        for nth, idx in enumerate(self.mf.scopes_of(qualname)):
            positional, star, by_name, double = self.mf.parameters(idx)
            positional = positional[offset:]
            for i, arg in enumerate(args):
                if isinstance(arg, tuple):  # *args at the call: positions are unknown from here
                    break
                if i < len(positional):
                    self.add_var(positional[i][1], arg)
                elif star is not None:
                    packed = (SEQ, self.module, ("*args", qualname, nth))
                    self.add_cell(("F", packed, "*"), arg)
                    self.add_var(star[1], frozenset({packed}))
            for name, value in kwargs:
                if name is None:
                    continue
                param = by_name.get(name)
                if param is not None:
                    self.add_var(param[1], value)
                elif double is not None:
                    packed = (DICT, self.module, ("**kwargs", qualname, nth))
                    self.add_cell(("F", packed, name), value)
                    self.add_var(double[1], frozenset({packed}))

    def builtin(self, site: object, name: str, args: list, kwargs: list) -> frozenset | set:
        self.edge(site, Relation.CALLS, f"<builtin>.{name}")
        plain = [a for a in args if not isinstance(a, tuple)]
        if name == "super":
            if plain:
                return frozenset({(SUPER, c[1], c[2]) for c in plain[0] if c[0] == CLASS})
            cls = self.mf.enclosing_class(self.scope)
            return frozenset({(SUPER, self.module, self.mf.scopes[cls][0])}) if cls > 0 else EMPTY
        if name in ("map", "filter"):
            return self._higher_order(site, name, plain)
        for key, value in kwargs:
            if key == "key":  # sorted(..., key=f), min, max
                for fn in value:
                    self.invoke((site, "key"), fn, [self.items(plain[0], None) if plain else EMPTY], [])
        if name in _KEEPS_ITEMS and plain:
            packed = (SEQ, self.module, ("builtin", self._site_name(site)))
            self.add_cell(("F", packed, "*"), self.items(plain[0], None))
            return frozenset({packed})
        if name in ("next", "min", "max") and plain:
            return self.items(plain[0], None)
        if name == "getattr" and len(plain) >= 2:
            out: set = set(plain[2]) if len(plain) > 2 else set()
            for key in plain[1]:
                if key[0] == CONST and isinstance(key[2], str):
                    for obj in plain[0]:
                        out |= self.attr(obj, key[2])
            return out
        if name in _IDENTITY and plain:
            return plain[0]
        return EMPTY

    def container_call(self, obj: Value, method: str, args: list, kwargs: list) -> frozenset | set:
        """What a list's or dict's own method puts into it or takes out of it."""
        plain = [a for a in args if not isinstance(a, tuple)]
        if method in ("append", "insert", "add") and plain:
            self.add_cell(("F", obj, "*"), plain[-1])
        elif method == "extend" and plain:
            self.add_cell(("F", obj, "*"), self.items(plain[0], None))
        elif method == "update":
            for other in plain[0] if plain else ():
                for key in list(self.keys.get(other, ())) if other[0] == DICT else ():
                    self.add_cell(("F", obj, key), self.cells[("F", other, key)])
                self._read(("F*", other))
            for key, value in kwargs:
                self.add_cell(("F", obj, key if key is not None else "*"), value)
        elif method in ("get", "pop", "setdefault"):
            keys = _keys(plain[0]) if plain else ["*"]
            if method == "setdefault" and len(plain) > 1:
                for key in keys:
                    self.add_cell(("F", obj, key), plain[1])
            found = self.all_fields(obj) if "*" in keys else {v for k in keys for v in self.field(obj, k)}
            return found | self.field(obj, "*") | (plain[1] if len(plain) > 1 else EMPTY)
        elif method == "values":
            packed = (SEQ, self.module, ("values", obj))
            self.add_cell(("F", packed, "*"), self.all_fields(obj))
            return frozenset({packed})
        elif method == "items":
            pair = (SEQ, self.module, ("item", obj))
            self.add_cell(("F", pair, 1), self.all_fields(obj))
            packed = (SEQ, self.module, ("items", obj))
            self.add_cell(("F", packed, "*"), frozenset({pair}))
            return frozenset({packed})
        elif method == "copy":
            return frozenset({obj})
        return EMPTY

    def _higher_order(self, site: object, name: str, args: list) -> frozenset | set:
        """map(f, xs) and filter(f, xs) call f on the items (PyCG also accepts the arguments swapped)."""
        functions = [v for a in args for v in a if v[0] in (FUNC, BOUND, CLASS)]
        items: set = set()
        for a in args:
            items |= self.items(a, None)
        results: set = set()
        for fn in functions:
            results |= self.invoke((site, name), fn, [items], [])
        packed = (SEQ, self.module, ("builtin", self._site_name(site)))
        self.add_cell(("F", packed, "*"), results if name == "map" else items)
        return frozenset({packed})

    def _site_name(self, site: object) -> object:
        return self.mf.site_names[site] if site.__class__ is int else site  # type: ignore[index]

    def items(self, values: frozenset | set, site: object) -> frozenset | set:
        """What iterating over `values` gives (`__iter__`/`__next__` of instances are called)."""
        out: set = set()
        for value in values:
            kind = value[0]
            if kind == SEQ:
                out |= self.all_fields(value)
            elif kind == GEN:
                out |= self.cell(("y", value[2])) if value[1] == self.module else self.lower.yields(value)
            elif kind == INST and site is not None:
                for it in self.call_method(site, value, "__iter__"):
                    if it[0] == INST:
                        out |= self.call_method(site, it, "__next__")
                    elif it[0] == GEN:
                        out |= self.items((it,), None)
        return out

    def call_method(self, site: object, inst: Value, name: str) -> set:
        out: set = set()
        for method in self.instance_attr(inst, name):
            out |= self.invoke((site, name), method, [], [])
        return out

    def entered(self, values: frozenset | set) -> set:
        """`with x as y`: what x.__enter__() returns, or x itself when it has none."""
        out: set = set()
        for value in values:
            enter = self.instance_attr(value, "__enter__") if value[0] == INST else EMPTY
            if not enter:
                out.add(value)
            for method in enter:
                if method[0] == BOUND:
                    out |= self.returns(method)
        return out

    def edge(self, site: object, relation: str, target: str) -> None:
        if not self.record or isinstance(site, int) and self.mf.sites[site][3]:
            return  # a dynamic site keeps only its dynamic edge
        self.edges.setdefault(site, {}).setdefault(relation, set()).add(target)


# Expression tag -> evaluator (a table on the class, not bound methods on each analysis: those would
# tie every analysis into a reference cycle that only the garbage collector frees).
_EVAL: dict[str, Callable[[Analysis, list], frozenset | set]] = {
    "v": Analysis.e_vars, "n": Analysis.e_free, "a": Analysis.e_attr, "s": Analysis.e_subscript,
    "s:": Analysis.e_slice, "c": Analysis.e_call, "@": Analysis.e_decorate, "k": Analysis.e_const,
    "ks": Analysis.e_some_str, "l": Analysis.e_seq, "d": Analysis.e_dict, "L": Analysis.e_comprehension,
    "f": Analysis.e_def, "C": Analysis.e_def, "i": Analysis.e_instance, "ic": Analysis.e_class_of,
    "m": Analysis.e_import, "u": Analysis.e_union, "o": Analysis.e_effects,
}


def _value_of(sym: SymbolInfo) -> Value:
    qualname = sym.fqn[len(sym.module) + 1 :] if sym.module else sym.fqn
    return (CLASS if sym.kind == "class" else FUNC, sym.module, qualname)


def _keys(values: frozenset | set) -> list:
    """Container keys from a key expression's values; ["*"] when any of them is not a constant."""
    keys = [v[2] for v in values if v[0] == CONST]
    return keys if keys and len(keys) == len(values) else ["*"]


# --------------------------------------------------------------------------------------------------
# Edges of the file being resolved
# --------------------------------------------------------------------------------------------------


def _site_edges(a: Analysis, facts: FileFacts) -> list[EdgeOut]:
    mf = a.mf
    out: list[EdgeOut] = []
    for site, by_relation in a.edges.items():
        index, via = (site, "") if isinstance(site, int) else site
        line, name, scope, _ = mf.sites[index]
        src = mf.fqn(scope)
        for relation, targets in by_relation.items():
            out += _tiered(src, sorted(targets), relation, line, str(via or name))
    for site, name in a.blind.items():  # unknown receiver: every method of that name may be meant
        line, _, scope, _ = mf.sites[site]
        methods = {s.fqn for s in a.project.named(name) if s.kind == "function" and s.parent != s.module}
        out += _tiered(mf.fqn(scope), sorted(methods), Relation.CALLS, line, name)
    for ref in facts.references:
        if ref.kind == "dynamic":
            src = qualify(facts.module, ref.scope) if ref.scope else facts.module
            out.append(EdgeOut(src, None, Relation.CALLS, Tier.DYNAMIC, ref.line, ref.name, ref.detail))
    return out


def _tiered(src: str, targets: list[str], relation: str, line: int, name: str) -> list[EdgeOut]:
    if len(targets) > MAX_CANDIDATES:
        detail = f"{len(targets)} candidates named {name}"
        return [EdgeOut(src, None, relation, Tier.AMBIGUOUS, line, name, detail)]
    tier = candidates_tier(len(targets))
    return [EdgeOut(src, t, relation, tier, line, name) for t in targets]


def _class_edges(a: Analysis, facts: FileFacts) -> list[EdgeOut]:
    lines = {d.qualname: d.start_line for d in facts.definitions}
    out: list[EdgeOut] = []
    for idx, scope in enumerate(a.mf.scopes):
        if scope[1] != "class":
            continue
        for i in range(len(a.mf.bases.get(idx, ()))):  # each base on its own: they are not alternatives
            found = a.cells.get(("B", idx, i), ())
            targets = sorted({qualify(b[1], b[2]) for b in found if b[0] == CLASS})  # type: ignore[arg-type]
            out += _tiered(a.mf.fqn(idx), targets, Relation.INHERITS, lines.get(scope[0], 0), "")
    return out


def _import_edges(a: Analysis, facts: FileFacts) -> list[EdgeOut]:
    mf, project = a.mf, a.project
    out: list[EdgeOut] = []
    for imp in facts.imports:
        if imp.wildcard:
            continue
        module = mf.absolute(imp.module, imp.level)
        target = ""
        if imp.name:
            values = project.import_values(mf, ["m", imp.module, imp.name, imp.level], a.lower.export)
            named = sorted(qualify(v[1], v[2]) if v[0] != MODULE else v[1] for v in values  # type: ignore[arg-type]
                           if v[0] in (FUNC, CLASS, MODULE))
            target = named[0] if named else module if project.exists(module) else ""
        elif project.exists(module):
            target = module
        if target:
            src = qualify(facts.module, imp.scope) if imp.scope else facts.module
            out.append(EdgeOut(src, target, Relation.IMPORTS, Tier.INFERRED, imp.line, imp.name))
    return out


def resolve(facts: FileFacts, view: ProjectView) -> list[EdgeOut]:
    answers = Answers(view, shared=True)
    project = Project(view)
    analysis = Analysis(module_flow(facts, keep=False), AskedLower(Analysed(project), answers),
                        AskedProject(project, answers), record=True)  # type: ignore[arg-type]
    analysis.run()
    edges = _site_edges(analysis, facts) + _class_edges(analysis, facts) + _import_edges(analysis, facts)
    view.answers = answers.encode()
    return edges


def item_edits(old: FileFacts, new: FileFacts) -> set[str] | None:
    """See `item_edits_for`: the items whose digests (`_ItemDigests`) differ between the two states
    of the file, added and removed ones included; None when its star imports changed (lookups that
    found nothing may find more) or the flow is too tangled to tell."""
    if old.path != new.path or old.module != new.module:
        return None
    a, b = ModuleFlow(old), ModuleFlow(new)
    if a.star != b.star:
        return None
    try:
        before, after = _ItemDigests(a).all(), _ItemDigests(b).all()
    except (_Untold, RecursionError):
        return None
    return {item_key(a.module, item) for item in before.keys() | after.keys() if before.get(item) != after.get(item)}


def outcome_unchanged(old: FileFacts, new: FileFacts, view: ProjectView) -> Recording | None:
    """See `outcome_unchanged_for`: files read a module whole only through its analysis (`Analysed`),
    and read of that its `Outcome`, by name, and with it what the analysis read of the rest. So they
    read the same when the analysis before the edit (kept) holds for the project as it is now (what
    it asked of other modules, and of this one's items, answers alike: `Analysed._still_holds`), and
    both give the same values where readers can observe them (`_observable`). Names and scopes the
    edit added or removed are left out: a reader reaches them only by looking them up, and the edit
    touches those lookups' keys (`item_edits`). What the analysis now reads that the one before did
    not is returned: the readers' reads must grow by it (`spare`)."""
    analysed = Analysed(Project(view))
    before = _analysis_before(old, view)
    if before is None or not analysed._still_holds(before):
        return None
    after = analysed.analysis(new.module)
    was_flow, now_flow = module_flow(old, keep=False), module_flow(new)
    both = _lookups(was_flow) & _lookups(now_flow)
    if after is None or _observable(before.analysis, was_flow, both) != _observable(after, now_flow, both):
        return None
    keys, modules = analysed.recording(new.module)
    return keys - before.recording[0], modules - before.recording[1]



def _lookups(mf: ModuleFlow) -> set[tuple]:
    """Where `_observable` reads what a reader can reach only by looking it up in the module: the
    names bound in each scope, a function's returns and yields. (Fields are reached through values.)"""
    found = {(cell, qualname) for qualname in mf.by_qualname for cell in "ry"}
    found.update(("=", qualname, name) for qualname, idxs in mf.by_qualname.items() for i in idxs
                 for name in mf.scopes[i][5])
    return found


def code_moved(old: FileFacts, new: FileFacts, view: ProjectView) -> None:
    """See `code_moved_for`: the module's analysis before the edit, kept again as made of the new
    facts. An analysis reads no line (its values name scopes, sites and allocations by qualname
    and by order, which an edit that only moves code keeps), so it found what it found."""
    hit = _analysis_before(old, view)
    if hit is None:
        return
    old_digest, new_digest = _facts_digest(old), _facts_digest(new)

    def carried(kind: str, arg: str, seen: object) -> object:
        if arg != new.module or kind not in ("facts", "items"):
            return seen
        if seen.__class__ is bytes:
            return new_digest if seen == old_digest else seen
        return new if _facts_digest(seen) == old_digest else seen  # type: ignore[arg-type]

    reads = {(kind, arg): carried(kind, arg, seen) for (kind, arg), seen in hit.reads.items()}
    hit = Analysed._cache[new.path] = _CachedAnalysis(new, hit.analysis, reads, hit.recording, hit.answers,
                                                      hit.epoch)
    view.keep_analysis(new.path, hit.encode)


def _analysis_before(old: FileFacts, view: ProjectView) -> _CachedAnalysis | None:
    """The analysis of a file's state before an edit: held by this process (a watcher), or kept."""
    hit = Analysed._cache.get(old.path)
    if hit is not None and _facts_digest(hit.facts) == _facts_digest(old):
        return hit
    return _kept(old, view)


def _observable(outcome: Outcome, mf: ModuleFlow, lookups: set[tuple]) -> dict[tuple, str]:
    """What readers can observe of an analysis, comparable across an edit: the values of each name
    bound in the module or a class (`_read_scopes`), by where it is bound (("=", scope, name), not
    by variable number: an edit renumbers them), and of each return and yield, of the `lookups`
    given; and the fields of what readers can reach: of every object but a list or dict, which only
    those values, their fields and what they hold lead to (a literal added in a function body
    reaches no reader; one whose method is returned does, through the method). Canonical as answers
    are digested (`canonical`: `1` and `True` are equal, not alike)."""
    observed: dict[tuple, frozenset] = {}
    for scope in _read_scopes(mf):
        for name, vars_ in scope[5].items():
            where = ("=", scope[0], name)
            if where in lookups and (values := outcome.final(vars_)):
                observed[where] = observed.get(where, EMPTY) | values
    observed.update((key, values) for key, values in outcome.cells.items() if key in lookups and values)
    fields: dict[object, list[tuple]] = {}
    for key, values in outcome.cells.items():
        if key[0] == "F" and values:
            fields.setdefault(key[1], []).append(key)
    reach = [obj for obj in fields if obj[0] not in (SEQ, DICT)]  # type: ignore[index]
    reach += [value for values in observed.values() for value in values]
    seen: set = set()
    while reach:
        obj = reach.pop()
        if obj not in seen:
            seen.add(obj)
            # what a value holds reaches on: a list's method (`<list>.pop`) reads the list's fields
            reach += [part for part in obj if part.__class__ is tuple]
            for key in fields.get(obj, ()):
                observed[key] = outcome.cells[key]
                reach += outcome.cells[key]
    return {where: canonical(values) for where, values in observed.items()}


class _Untold(Exception):
    """An item whose digest would cost too much, or a flow this code does not know."""


class _ItemDigests:
    """What looking each item of a module up reads of its flow (see `Project.looked_up`), as a digest
    to compare with another state of the module: a scope's kind, flags, returns, yields and bases;
    a name's bindings in a module or class scope; whether a class (`C@attr`) or the module (`@attr`)
    is given a field of that name. Variables are followed to what is assigned to them and written in
    the order a walk from the item first meets them, not by number: an edit elsewhere renumbers them
    and changes no digest, while two reads of one variable stay one (lookups follow each once)."""

    def __init__(self, mf: ModuleFlow) -> None:
        self.mf = mf
        self.budget = 64 * (len(mf.stmts) + 64)  # variables met, over all items: a bound on the work

    def all(self) -> dict[str, bytes]:
        mf = self.mf
        out: dict[str, bytes] = {}
        for qualname, idxs in mf.by_qualname.items():
            order: dict[int, int] = {}
            out[qualname] = _item_digest([[mf.scopes[i][1], mf.scopes[i][4], *(
                self._canon(part.get(i, []), order) for part in (mf.returns, mf.yields, mf.bases))] for i in idxs])
            bound: dict[str, list] = {}
            for i in idxs:
                for name, vars_ in mf.scopes[i][5].items():
                    bound.setdefault(name, []).append(vars_)
            for name, found in bound.items():
                order = {}
                out[f"{qualname}:{name}"] = _item_digest([[self._var(v, order) for v in vars_] for vars_ in found])
        out.update((f"{cls}@{attr}", b"") for cls, attr in mf.self_fields)
        out.update((f"@{attr}", b"") for attr in mf.assigned_attrs)
        return out

    def _canon(self, x: object, order: dict[int, int]) -> object:
        """`x` (an expression, or lists of them, or a variable) without the numbers of its variables,
        call sites, allocations and scopes."""
        if x.__class__ is int:
            return self._var(x, order)  # type: ignore[arg-type]
        if x.__class__ is not list or not x:
            return x
        tag = x[0]  # type: ignore[index]
        if tag.__class__ is not str:  # a list of expressions
            return [self._canon(e, order) for e in x]  # type: ignore[attr-defined]
        rebuild = _CANON.get(tag)
        if rebuild is None:
            raise _Untold(tag)
        return rebuild(self, x, order)

    def _var(self, var: int, order: dict[int, int]) -> object:
        seen = order.get(var)
        if seen is not None:
            return ["^", seen]
        self.budget -= 1
        if self.budget < 0:
            raise _Untold("budget")
        order[var] = len(order)
        return ["=", [self._canon(e, order) for e in self.mf.var_defs.get(var, [])]]

    def _scope(self, idx: int) -> list:
        scope = self.mf.scopes[idx]
        return [scope[0], scope[1]]


def _item_digest(canonical: object) -> bytes:
    return hashlib.blake2b(msgspec.msgpack.encode(canonical), digest_size=16).digest()


# Per expression tag: the expression as `_ItemDigests` compares it (see the flow format in
# extractors/python.py): sites, allocations and scopes by number dropped or named.
_CANON: dict[str, Callable[[_ItemDigests, list, dict[int, int]], object]] = {
    **dict.fromkeys(("n", "k", "ks", "m"), lambda d, x, o: x),
    "v": lambda d, x, o: ["v", [d._var(v, o) for v in x[1]]],
    **dict.fromkeys(("a", "s:"), lambda d, x, o: [x[0], d._canon(x[1], o), *x[2:]]),  # (an attribute, bounds)
    **dict.fromkeys(("s", "*", "u", "o"), lambda d, x, o: [x[0], *(d._canon(e, o) for e in x[1:])]),
    "c": lambda d, x, o: ["c", d._canon(x[2], o), d._canon(x[3], o), [[k, d._canon(v, o)] for k, v in x[4]]],
    "@": lambda d, x, o: ["@", d._canon(x[2], o), d._canon(x[3], o)],
    **dict.fromkeys(("l", "L"), lambda d, x, o: [x[0], d._canon(x[2], o)]),
    "d": lambda d, x, o: ["d", [[d._canon(k, o), d._canon(v, o)] for k, v in x[2]]],
    **dict.fromkeys(("f", "C", "i", "ic"), lambda d, x, o: [x[0], *d._scope(x[1])]),
}


def warm(module: str, view: ProjectView) -> None:
    """The module's analysis, cached as verifying a reader's answers asks for it (see `warmer_for`)."""
    Analysed(Project(view)).analysis(module)


class AskedProject:
    """The project as the file being resolved sees it: every question answered by the real
    :class:`Project` and noted. Reading another module's facts directly is no question: it marks
    the answers incomplete, and the file is resolved again whenever something it read changes."""

    def __init__(self, inner: Project, answers: Answers) -> None:
        self.inner, self.answers = inner, answers

    def exists(self, module: str) -> bool:
        return self.answers.ask(("exists", module), lambda: self.inner.exists(module))  # type: ignore[return-value]

    def module_named(self, dotted: str) -> str:
        return self.answers.ask(("module_named", dotted), lambda: self.inner.module_named(dotted))  # type: ignore[return-value]

    def flags(self, fn: Value) -> str:
        return self.answers.ask(("flags", fn), lambda: self.inner.flags(fn))  # type: ignore[return-value]

    def returns_something(self, fn: Value) -> bool:
        return self.answers.ask(("returns_something", fn), lambda: self.inner.returns_something(fn))  # type: ignore[return-value]

    def named(self, name: str) -> tuple[SymbolInfo, ...]:
        return self.answers.ask(("named", name), lambda: self.inner.named(name), _used_of_named)  # type: ignore[return-value]

    import_values = Project.import_values  # built of exists, module_named and an export: all noted

    def facts(self, module: str) -> FileFacts | None:
        self.answers.complete = False
        return self.inner.facts(module)

    def flow(self, module: str) -> ModuleFlow | None:
        self.answers.complete = False
        return self.inner.flow(module)


def _used_of_named(found: object) -> list:
    """What the analysis uses of the symbols of a name, in no particular order (a re-indexed file's
    symbols move to the end of the index's lists) and without lines (moving code answers the same)."""
    return sorted((s.fqn, s.name, s.kind, s.parent, s.module) for s in found)  # type: ignore[attr-defined]


class AskedLower:
    """A lower layer (:class:`Analysed`, or :class:`Syntactic` under a cached analysis), with every
    answer noted."""

    def __init__(self, inner: Lower, answers: Answers) -> None:
        self.inner, self.answers = inner, answers

    def export(self, module: str, name: str) -> frozenset:
        return self.answers.ask(("export", module, name), lambda: self.inner.export(module, name))  # type: ignore[return-value]

    def class_attr(self, cls: Value, name: str) -> frozenset:
        return self.answers.ask(("class_attr", cls, name), lambda: self.inner.class_attr(cls, name))  # type: ignore[return-value]

    def bases(self, cls: Value) -> list[frozenset]:
        return self.answers.ask(("bases", cls), lambda: self.inner.bases(cls))  # type: ignore[return-value]

    def returns(self, fn: Value) -> frozenset:
        return self.answers.ask(("returns", fn), lambda: self.inner.returns(fn))  # type: ignore[return-value]

    def yields(self, fn: Value) -> frozenset:
        return self.answers.ask(("yields", fn), lambda: self.inner.yields(fn))  # type: ignore[return-value]

    def field(self, obj: Value, key: object) -> frozenset:
        return self.answers.ask(("field", obj, key), lambda: self.inner.field(obj, key))  # type: ignore[return-value]


def verify(items: list[tuple[int, bytes, set[str]]], view: ProjectView) -> Verified:
    """See `verify_stored`: questions asked again of the layer that answers their kind."""
    project = Project(view)
    answers = Answers(view, lazy_filters=True)
    asked = {"lower": AskedLower(Analysed(project), answers), "project": AskedProject(project, answers)}
    return verify_stored(items, answers, partial(_ask_again, asked, answers))


def _ask_again(asked: dict[str, AskedLower | AskedProject], answers: Answers, query: tuple) -> tuple[bytes, bytes]:
    """(digest, key filter) of `query`'s answer now, asked of the layer that answers its kind."""
    if query not in answers.log:
        getattr(asked[_ASKED_OF[query[0]]], query[0])(*query[1:])
    return answers.log[query]


_ASKED_OF = {
    **dict.fromkeys(("exists", "module_named", "flags", "returns_something", "named"), "project"),
    **dict.fromkeys(("export", "class_attr", "bases", "returns", "yields", "field"), "lower"),
}
