"""One module's flow program (see extractors/python.py) with the indexes lookups need, decoded once
per facts and kept between files for the modules read again and again."""

from __future__ import annotations

from collections import OrderedDict
from functools import cached_property

import msgspec

from tenure.structural.extractors.python import (
    PARAM_DOUBLE_STAR,
    PARAM_KEYWORD,
    PARAM_POSITIONAL,
    PARAM_POSITIONAL_ONLY,
    PARAM_STAR,
    numbered,
)
from tenure.structural.facts import FileFacts
from tenure.structural.naming import qualify
from tenure.structural.resolve.generic import python_absolute
from tenure.structural.resolve.python.values import CLASS, FUNC, Value

# Decoded flow programs kept between files: they are most of a resolving process's memory, and the
# modules read again and again (a project's hubs) are few. Django, one process: 4,096 kept peak at
# 528 MB, 256 at 422 MB, for 1,942 more decodes (+0.6 s CPU in 30 s); each resolve worker 270 MB
# against 360 MB. Most kept are other modules looked up in, whose body and sites stay encoded (an
# analysed one's let go, `drop_body`): 256 of them hold about what 128 whole ones held, and re-decode
# 40% fewer bytes (Django's resolution in one process: 128 -> 256 kept, 20.2 -> 16.7 s CPU).
FLOWS_CACHE_SIZE = 256


class _Stored(msgspec.Struct):
    """A flow program as stored: its body and sites left encoded until the module's own analysis
    (or a fixture's decorator) reads them. Most modules decoded are other modules looked up in."""

    scopes: list = []
    stmts: list = []
    star: list = []
    nvars: int = 0
    body: msgspec.Raw = msgspec.Raw(b"\x90")  # (an empty array)
    body_at: msgspec.Raw = msgspec.Raw(b"\x90")
    sites: msgspec.Raw = msgspec.Raw(b"\x90")


_FLOW_DECODER = msgspec.msgpack.Decoder(_Stored)
_LIST_DECODER = msgspec.msgpack.Decoder(list)
_NO_FLOW = _Stored()


class ModuleFlow:
    """A module's flow program (see extractors/python.py) with what lookups need, built once per facts."""

    def __init__(self, facts: FileFacts) -> None:
        flow = _FLOW_DECODER.decode(facts.flow) if isinstance(facts.flow, bytes) else _NO_FLOW
        self.module = facts.module
        self.path = facts.path
        self.scopes: list[list] = flow.scopes or [["", "module", -1, [], "", {}]]
        self.defs: list[list] = flow.stmts  # the statements other modules read (`stmts`: all of them)
        self.star: list[list] = flow.star
        self.nvars: int = flow.nvars
        self._body, self._body_at, self._sites = flow.body, flow.body_at, flow.sites
        self.by_qualname: dict[str, list[int]] = {}
        for idx, scope in enumerate(self.scopes):
            self.by_qualname.setdefault(scope[0], []).append(idx)
        self._params: dict[int, tuple] = {}
        self._flags: dict[str, str] = {}

    @cached_property
    def stmts(self) -> list[list]:
        """Every statement, in program order: the body's put back between the others."""
        at: list[int] = _LIST_DECODER.decode(self._body_at)
        if not at:
            return self.defs
        out: list[list] = []
        done = 0  # (of `defs`)
        for i, stmt in zip(at, _LIST_DECODER.decode(self._body), strict=True):
            ahead = i - len(out)
            if ahead:
                out += self.defs[done : done + ahead]
                done += ahead
            out.append(stmt)
        out += self.defs[done:]
        return out

    @cached_property
    def sites(self) -> list[list]:
        return _LIST_DECODER.decode(self._sites)

    def drop_body(self) -> None:
        """Let the decoded body and sites go (decoded again if asked for): once its analysis is
        made, another module's flow is kept for the lookups in it, which read neither."""
        for name in ("stmts", "sites", "site_names"):
            self.__dict__.pop(name, None)

    @cached_property
    def _statements(self) -> tuple[dict, dict, dict, dict, set, frozenset]:
        """Built on first use (most modules are only asked for a few names): var -> values assigned,
        scope -> returned, scope -> yielded, class scope -> bases, (class qualname, attribute)
        for every `self.attribute = ...` or `cls.attribute = ...` in a method, and the methods'
        `self` parameters."""
        var_defs: dict[int, list] = {}
        returns: dict[int, list] = {}
        yields: dict[int, list] = {}
        bases: dict[int, list] = {}
        self_fields: set[tuple[str, str]] = set()
        self_vars: dict[int, str] = {}  # a method's `self` or a classmethod's `cls` -> its class
        instance_params: set[int] = set()
        for stmt in self.defs:
            op = stmt[0]
            if op == "=" and stmt[2][0] == "v":
                var_defs.setdefault(stmt[2][1], []).append(stmt[3])
                tag = expr_tag(stmt[3])
                if tag in ("i", "ic"):
                    self_vars[stmt[2][1]] = self.scopes[stmt[3][1]][0]
                if tag in ("i", "A"):
                    instance_params.add(stmt[2][1])
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
        return var_defs, returns, yields, bases, self_fields, frozenset(instance_params)

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
    def instance_params(self) -> frozenset[int]:
        """The variables of methods' first parameters (`self`) and of annotated parameters: calls on
        them may reach a subclass's override."""
        return self._statements[5]

    @cached_property
    def param_vars(self) -> frozenset[int]:
        """The variables of every scope's parameters: what they hold comes from callers."""
        return frozenset(param[1] for scope in self.scopes for param in scope[3])

    @cached_property
    def assigned_attrs(self) -> frozenset[str]:
        """Every attribute name the module assigns (`x.name = ...`, also as a loop's or `with`'s
        target): an analysis gives a module object no field of another name."""
        found: set[str] = set()
        targets = [stmt[2] for stmt in self.defs if stmt[0] in ("=", "for", "w") and stmt[2]]
        while targets:
            target = targets.pop()
            if target[0] == "a":
                found.add(target[2])
            elif target[0] == "t":
                targets += target[1]
        return frozenset(found)

    @cached_property
    def all_names(self) -> frozenset[str] | None:
        """The names the module's `__all__` lists (a list or tuple of strings, added to with `+=` or
        `+`); None without one, or where it is not written out so."""
        names: set[str] = set()
        todo: list = [v for v in self.names(0, "__all__")]
        if not todo:
            return None
        seen: set[int] = set()
        while todo:
            expr = todo.pop()
            if expr.__class__ is int:
                if expr not in seen:
                    seen.add(expr)
                    defs = self.var_defs.get(expr)
                    if not defs:
                        return None  # bound by something other than an assignment (a loop, an import)
                    todo += defs
                continue
            tag = expr_tag(expr)
            if tag == "l" and all(expr_tag(item) == "k" and isinstance(item[1], str) for item in expr[2]):
                names.update(item[1] for item in expr[2])
            elif tag in ("v", "u"):
                todo += expr[1]
            elif tag == "op":
                todo += [expr[2], expr[3]]
            else:
                return None
        return frozenset(names)

    def fixture_vars(self, name: str) -> list[int]:
        """The module-level variables of `name` bound to a function decorated `@...fixture` (pytest's)."""
        return [var for var in self.names(0, name) if any(self._is_fixture(e) for e in self.var_defs.get(var, ()))]

    def _is_fixture(self, expr: object) -> bool:
        while expr_tag(expr) == "@":  # (the decorators, outermost first)
            if self.sites[expr[1]][1] == "fixture":  # type: ignore[index]
                return True
            expr = expr[3]  # type: ignore[index]
        return False

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

    @cached_property
    def classes(self) -> list[Value]:
        """The module's classes, in scope order (asked for every class an analysis looks for subclasses of)."""
        return [self.value(i) for i, scope in enumerate(self.scopes) if scope[1] == "class"]

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


def forget_flows() -> None:
    """Drop the decoded flows kept (`module_flow`)."""
    _FLOWS.clear()


def expr_tag(expr: list | int | None) -> str:
    """An expression's kind: its tag, "v" for a one-variable read, "" for nothing."""
    if expr.__class__ is list:
        return expr[0]  # type: ignore[index]
    return "v" if expr.__class__ is int else ""
