"""Other modules, as one file's resolution reads them: every read goes through the ProjectView.

A module another analysis asks about is analysed on its own (no arguments from the asker), one
layer further down; past MAX_LAYER its imports and members are what the project's symbols say (the
generic resolver: definitions, re-exports, declared types). Every answer is so a function of the
modules' facts alone, never of which file was resolved first. An analysis is kept for the index
state it was made in, with what it read, which a later reader takes on (`ProjectView.absorb`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tenure.structural.facts import Definition, FileFacts, Import
from tenure.structural.resolve import ProjectView, Recording, SymbolInfo
from tenure.structural.resolve.generic import CALLABLE_KINDS, FileResolver, LanguageRules, split_top_level, type_name
from tenure.structural.resolve.javascript.analysis import ANY, Analysis, open_instance
from tenure.structural.resolve.javascript.program import program_of
from tenure.structural.resolve.javascript.values import (
    ARRAY,
    CLASS,
    EMPTY,
    FUNC,
    INST,
    NAMESPACE,
    OBJECT,
    OUTSIDE,
    PARAM,
    PROTO,
    Value,
    fqn_of,
    qualname_of,
)

MAX_LAYER = 2  # the file is 0, what it imports 1, their imports 2: deeper, the symbols answer
MAX_EXPORT_HOPS = 4  # `export * from` chains
_PROPERTY = re.compile(r"[A-Za-z_$][\w$]*")  # a property an object type declares (not `[key: string]`, `m()`)
# Declared types whose values are what their one type argument says (`Promise<Repo>` is awaited
# as a Repo), and those that hold items of it (`Repo[]`, `Array<Repo>`).
_WRAPPERS = frozenset({"Promise", "PromiseLike", "Awaited", "Readonly", "Partial", "Required", "NonNullable"})
_COLLECTIONS = frozenset({"Array", "ReadonlyArray", "Set", "ReadonlySet", "Iterable", "IterableIterator",
                          "AsyncIterable", "Generator", "AsyncGenerator"})

_KEPT: dict[tuple[object, str, int], tuple[Analysis | None, Recording]] = {}
_KEPT_EPOCH: list[object] = [None]


class Project:
    def __init__(self, view: ProjectView, rules: LanguageRules) -> None:
        self.view = view
        self.rules = rules
        self._syntax: dict[str, FileResolver] = {}
        self._analysing: set[tuple[str, int]] = set()
        self._returns: dict[tuple[str, Value, Value | None], set[Value]] = {}

    # modules -------------------------------------------------------------------------------------
    def syntax(self, facts: FileFacts) -> FileResolver:
        found = self._syntax.get(facts.path)
        if found is None:
            found = self._syntax[facts.path] = FileResolver(facts, self.view)
        return found

    def facts(self, module: str) -> FileFacts | None:
        return next((f for f in self.view.module_facts(module) if f.flow is not None), None)

    def analysis(self, module: str, layer: int) -> Analysis | None:
        """The module analysed on its own at `layer` (None past MAX_LAYER, or for no such module)."""
        if layer > MAX_LAYER or (module, layer) in self._analysing:
            return None
        epoch = self.view.epoch
        if _KEPT_EPOCH[0] != epoch:
            _KEPT.clear()
            _KEPT_EPOCH[0] = epoch
        key = (epoch, module, layer)
        kept = _KEPT.get(key)
        if kept is not None:
            self.view.absorb(kept[1])
            self._note_shortfall(module, kept[0])
            return kept[0]
        self._analysing.add((module, layer))
        self.view.begin()
        try:
            facts = self.facts(module)
            found = Analysis(program_of(facts), self, self.syntax(facts), layer).run() if facts is not None else None
        finally:
            reads = self.view.end()
            self._analysing.discard((module, layer))
        _KEPT[key] = (found, reads)
        self._note_shortfall(module, found)
        return found

    def _note_shortfall(self, module: str, analysis: Analysis | None) -> None:
        """What this file is told of another module is a part when that module's analysis is."""
        if analysis is not None and (why := analysis.shortfall()):
            self.view.note_incomplete(f"{module}: {why}")

    # imports and exports -------------------------------------------------------------------------
    def import_values(self, asker: Analysis, specifier: str, name: str | None) -> frozenset[Value] | set[Value]:
        """`import { name } from specifier` (name "" the namespace, "default"), `require(specifier)`
        (name None), as written in the asker's file."""
        module = asker.syntax.import_module(Import(module=specifier, scope="", line=0))
        if not self.view.module_exists(module):
            return {(OUTSIDE, "", specifier if not name else f"{specifier}.{name}")}
        if name is None or name == "":
            cjs = self.cjs_exports(asker, module)
            return cjs if name is None and cjs else {(NAMESPACE, module, "")}
        found = self.export(asker, module, name)
        if not found and name == "default":
            found = self.cjs_exports(asker, module)  # `import X from` a CommonJS module
        return found

    def cjs_exports(self, asker: Analysis, module: str) -> frozenset[Value] | set[Value]:
        if module == asker.module:
            return asker.cell(("X", module))
        there = self.analysis(module, asker.layer + 1)
        if there is not None:
            return there.cells.get(("X", module)) or EMPTY
        syms = asker.syntax.module_member(module, self.rules.module_value) if self.rules.module_value else []
        return self.symbol_values(syms)

    def export(self, asker: Analysis, module: str, name: str, hops: int = 0) -> frozenset[Value] | set[Value]:
        """What `module` exports as `name`: its export, a CommonJS `exports.name`, or what a
        module it re-exports with `export *` exports."""
        there = self.analysis(module, asker.layer + 1)
        if there is None:
            syms = asker.syntax.module_member(module, name)
            if syms:
                return self.symbol_values(syms)
            typed = asker.syntax.module_binding_containers(module, name)
            return self.instances(typed or [])
        namespace = (NAMESPACE, module, "")
        found = set(there.cells.get(("F", namespace, name), ()))
        for value in there.cells.get(("X", module), ()):  # `module.exports = { name }`
            if value[0] == NAMESPACE:
                continue
            found |= there.cells.get(("F", value, name), set())
        if not found and hops < MAX_EXPORT_HOPS:
            for star in there.p.stars:
                target = there.syntax.import_module(Import(module=star, scope="", line=0))
                if self.view.module_exists(target):
                    found |= self.export(asker, target, name, hops + 1)
        return found

    def star_exports(self, asker: Analysis, name: str) -> set[Value]:
        found: set[Value] = set()
        for star in asker.p.stars:
            target = asker.syntax.import_module(Import(module=star, scope="", line=0))
            if self.view.module_exists(target):
                found |= self.export(asker, target, name, 1)
        return found

    # what another module's analysis holds ---------------------------------------------------------
    def field(self, obj: Value, key: str, layer: int) -> frozenset[Value] | set[Value]:
        there = self.analysis(obj[1], layer)  # type: ignore[arg-type]
        if there is None:
            return EMPTY
        found = there.cells.get(("F", obj, key)) or EMPTY
        if found and obj[0] == ARRAY:
            found = found | there.cells.get(("F", obj, ANY), set())
        return {v for v in found if v[0] != PARAM}  # (what a constructor was given there: not known here)

    def class_members(self, obj: Value, layer: int) -> set[str]:
        """The members another module's class body defines (not enumerable: no copy takes them)."""
        there = self.analysis(obj[1], layer)  # type: ignore[arg-type]
        if there is None:  # (not known: its symbols say what the body defines)
            return set(self.member_names(obj)) if obj[0] in (CLASS, PROTO) else set()
        return there.class_members.get(obj, set())

    def member_names(self, obj: Value) -> list[str]:
        """The properties another module's analysis gave an object (a mixin copied in)."""
        syms = self.view.members(fqn_of(obj))  # type: ignore[arg-type]
        return sorted({s.name for s in syms})

    def returns(self, fn: Value, layer: int) -> frozenset[Value] | set[Value]:
        there = self.analysis(fn[1], layer)  # type: ignore[arg-type]
        return there.cells.get(("r", fn), set()) if there is not None else EMPTY

    def yields(self, fn: Value, layer: int) -> frozenset[Value] | set[Value]:
        there = self.analysis(fn[1], layer)  # type: ignore[arg-type]
        return there.cells.get(("y", fn), set()) if there is not None else EMPTY

    def flags(self, fn: Value, layer: int) -> str:
        there = self.analysis(fn[1], layer)  # type: ignore[arg-type]
        if there is None:
            return ""
        return there.p.flags_of(fn[2])  # type: ignore[arg-type]

    def bases(self, asker: Analysis, cls: Value) -> frozenset[Value] | set[Value]:
        there = self.analysis(cls[1], asker.layer + 1)  # type: ignore[arg-type]
        if there is not None and ("base", cls) in there.cells:
            return there.cells[("base", cls)]
        return self.symbol_values(b for s in self.symbols(cls) for b in asker.syntax.supertypes(s))

    # what the symbols say -------------------------------------------------------------------------
    def symbols(self, value: Value) -> list[SymbolInfo]:
        return self.view.symbols(fqn_of(value))  # type: ignore[arg-type]

    def symbol_values(self, syms: Iterable[SymbolInfo]) -> set[Value]:
        out: set[Value] = set()
        for s in syms:
            qualname = s.fqn[len(s.module) + 1:] if s.module and s.fqn.startswith(s.module + ".") else s.fqn
            if s.kind in CALLABLE_KINDS:
                out.update((FUNC, s.module, name) for name in self.value_names(s.module, qualname))
            elif s.kind == "module":
                out.add((NAMESPACE, s.fqn, ""))
            else:  # a class, interface, enum, an object literal bound to a name
                out.add((CLASS, s.module, qualname))
        return out

    def value_names(self, module: str, qualname: str) -> list[str]:
        """A function's names in its module's values: every function of that qualname there (two
        `class Sub` in two branches), each known on its own (values.SAME)."""
        facts = self.facts(module) if module else None
        return program_of(facts).names_of(qualname) if facts is not None else [qualname]

    def members(self, asker: Analysis, obj: Value, key: str) -> set[Value]:
        """A class's member as its symbols declare it (through its hierarchy, bases resolved where
        they are written), else the declared type of a property (`interface Stores { repo: Repo }`)."""
        fqn = fqn_of(obj)  # type: ignore[arg-type]
        if not self.view.symbols(fqn):
            return set()
        found = self.symbol_values(asker.syntax.members(fqn, key))
        if found or obj[0] != INST:
            return found
        return self.instances(asker.syntax.member_containers([fqn], key) or [])

    def overrides(self, asker: Analysis, cls: Value, key: str) -> set[Value]:
        """Methods named `key` in the project whose class derives from cls (here too: a class that
        `implements` an interface has no base the analysis follows)."""
        target = fqn_of(cls)  # type: ignore[arg-type]
        found = []
        for method in self.view.named(key):
            if method.kind not in ("method", "function") or not method.parent:
                continue
            for owner in self.view.symbols(method.parent):
                if owner.fqn != target and target in self._ancestors(asker, owner):
                    found.append(method)
        return self.symbol_values(found)

    def _ancestors(self, asker: Analysis, cls: SymbolInfo) -> set[str]:
        seen: set[str] = set()
        todo = [cls]
        while todo and len(seen) < 16:
            for base in asker.syntax.supertypes(todo.pop()):
                if base.fqn not in seen:
                    seen.add(base.fqn)
                    todo.append(base)
        return seen

    def constructors(self, asker: Analysis, cls: Value) -> set[Value]:
        return self.symbol_values(c for s in self.symbols(cls) for c in asker.syntax.constructors(s))

    def instances(self, types: Iterable[str]) -> set[Value]:
        out: set[Value] = set()
        for fqn in types:
            for s in self.view.symbols(fqn):
                if s.kind in CALLABLE_KINDS:
                    continue
                for value in self.symbol_values([s]):
                    out.add((INST, value[1], value[2]) if value[0] == CLASS else value)
        return out

    def declared(self, asker: Analysis, written: str, scope: str, home: FileResolver | None = None,
                 given: dict[str, frozenset[Value]] | None = None) -> set[Value]:
        """The values a declared type says, the type written in scope `scope` of `home` (the asker's
        file unless given), with type parameters as `given`: instances of a class or interface of
        the project (with what their type arguments say), an array of them for `T[]` and
        `Array<T>`, what `Promise<T>` resolves to, any of a union's members."""
        home = home or asker.syntax
        members = _top_level(written.strip(), "|")
        if len(members) != 1:
            out: set[Value] = set()
            for member in members:
                out |= self.declared(asker, member, scope, home, given)
            return out
        text = members[0]
        if given and text in given:
            return set(given[text])
        if len(parts := _top_level(text, "&")) > 1:  # an intersection has every part's members
            return set().union(*(self.declared(asker, part, scope, home, given) for part in parts))
        if text.startswith("{") and text.endswith("}"):
            return self.object_type(asker, text, scope, home, given)
        outer, inner = _generic_of(text)
        if text.endswith("[]") or outer in _COLLECTIONS:
            items = self.declared(asker, text[:-2] if text.endswith("[]") else inner, scope, home, given)
            if not items:
                return set()
            made: Value = (ARRAY, asker.module, f"{scope}:{text}")
            asker.add_cell(("F", made, ANY), items)
            return {made}
        if outer in _WRAPPERS and inner:
            return self.declared(asker, inner, scope, home, given)
        name = type_name(text)
        if not name or name in self.rules.untyped:
            return set()
        arguments = tuple(frozenset(self.declared(asker, a, scope, home, given)) for a in _top_level(inner, ","))
        found = self.instances(t.fqn for t in home.resolve_type(text, scope))
        if inner and any(arguments):
            return {(*v[:3], arguments) if v[0] == INST else v for v in found}  # type: ignore[misc]
        # (a value of a declared type is one of it or of a subtype: a call on it dispatches, as on `this`)
        return {open_instance(v[1], v[2]) if v[0] == INST else v for v in found}  # type: ignore[arg-type]

    def object_type(self, asker: Analysis, text: str, scope: str, home: FileResolver,
                    given: dict[str, frozenset[Value]] | None) -> set[Value]:
        """`{ assets: Fetcher; count?: number }`: an object whose properties are what their declared
        types say (a method signature or an index signature says nothing here)."""
        made: Value = (OBJECT, asker.module, f"{scope}:{text}")
        for member in split_top_level(text[1:-1], ";", "<>()[]{}") or []:
            for prop in split_top_level(member, ",", "<>()[]{}") or []:
                name, colon, written = prop.partition(":")
                name = name.strip().removeprefix("readonly ").strip().removesuffix("?")
                if colon and _PROPERTY.fullmatch(name):
                    asker.add_cell(("F", made, name), self.declared(asker, written, scope, home, given))
        return {made}

    def declared_returns(self, asker: Analysis, fn: Value, receiver: Value | None = None) -> set[Value]:
        """What a function's declared result type says it returns (`make(): Repo`), read where the
        function is written; for a method of a generic receiver (`Repo<User>`), with its type
        parameters what the receiver's arguments say."""
        key = (asker.module, fn, receiver)
        if key not in self._returns:
            self._returns[key] = set()
            found = self.declaration(asker, fn)
            if found is not None:
                d, home = found
                given = self.type_arguments(receiver) if receiver is not None else None
                self._returns[key] = self.declared(asker, d.returns, d.qualname.rpartition(".")[0], home, given)
        return self._returns[key]

    def declaration(self, asker: Analysis, fn: Value) -> tuple[Definition, FileResolver] | None:
        for sym in self.symbols(fn):
            facts = asker.syntax.facts if fn[1] == asker.module else self.view.file_facts(sym.path, sym.module)
            d = next((d for d in facts.definitions if d.qualname == qualname_of(fn)), None) if facts else None
            if facts is not None and d is not None and d.returns:
                return d, self.syntax(facts)
        return None

    def type_arguments(self, instance: Value) -> dict[str, frozenset[Value]]:
        """A generic instance's type parameters -> what its arguments say (`Repo<User>`: T -> User)."""
        facts = self.facts(instance[1])  # type: ignore[arg-type]
        names = program_of(facts).generics.get(instance[2], []) if facts is not None else []  # type: ignore[call-overload]
        return dict(zip(names, instance[3], strict=False))  # type: ignore[misc]

    def member_type(self, asker: Analysis, instance: Value, key: str) -> set[Value]:
        """A property of a generic instance as its class or interface declares it (`value: T`)."""
        facts = self.facts(instance[1])  # type: ignore[arg-type]
        if facts is None:
            return set()
        binding = next((b for b in facts.bindings if b.scope == instance[2] and b.name == key and not b.alias
                        and not b.call), None)
        if binding is None:
            return set()
        return self.declared(asker, binding.type, instance[2], self.syntax(facts), self.type_arguments(instance))  # type: ignore[arg-type]


def _top_level(text: str, separator: str) -> list[str]:
    """A type cut at a separator outside brackets (`A<B, C> | D`: ["A<B, C>", "D"]), without the
    members that hold nothing (null, undefined, void); "" gives []."""
    parts = split_top_level(text, separator, "<>()[]{}") or [text]
    return [p for p in (p.strip() for p in parts) if p and p not in ("null", "undefined", "void")]


def _generic_of(text: str) -> tuple[str, str]:
    """`Promise<Repo>` -> ("Promise", "Repo"); `Repo` -> ("Repo", "")."""
    if text.endswith(">") and "<" in text:
        outer, _, inner = text.partition("<")
        return outer.strip(), inner[:-1].strip()
    return text, ""


def forget_analyses() -> None:
    """Drop the analyses kept for the index state (tests that compare runs)."""
    _KEPT.clear()
    _KEPT_EPOCH[0] = None
