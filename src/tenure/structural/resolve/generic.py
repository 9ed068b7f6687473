"""Scope-, import- and type-aware name resolution from the generic facts, for every language.

A bare name is looked up nearest first: the enclosing definitions (nested functions, then the
file's top level), the members of the enclosing types and their super types (where the language
calls members without `this.`), the file's imports, the file's module (other files of the same
package), wildcard imports and, where the language allows it, the whole project by name.

A call's receiver is typed before its member is looked up: `this` / `super`, a local, parameter
or field whose type was declared or constructed (`FileFacts.bindings`), an imported module or
package, or a type (static calls). A receiver of known type is searched in that type's hierarchy
only, and one known to lie outside the project (`fmt`, `List<String>`) yields no edge; only a
receiver of unknown type makes every same-named method a candidate (`ambiguous`, even alone: a name
is a guess), unless the runtime's own types have a method of that name too (the language's
`platform`): then the call is kept without a target. One candidate is `inferred`, several
`ambiguous` (all kept).

What differs between languages is data: the module scheme and the extra keys of the language's
languages.toml entry (:class:`LanguageRules`). Names written in another file (a super class's
bases and fields) are resolved by a resolver of that file, so that file's imports apply.
"""

from __future__ import annotations

import posixpath
import re
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources

import msgspec

from tenure.namespace.tiers import Relation, Tier
from tenure.structural.facts import Binding, FileFacts, Import, Reference
from tenure.structural.languages import LanguageSpec, language_table
from tenure.structural.naming import file_scope_name, qualify
from tenure.structural.resolve import MAX_CANDIDATES, EdgeOut, ProjectView, Resolver, SymbolInfo
from tenure.structural.vendored import calls_cut

CALLABLE_KINDS = frozenset({"function", "method", "constructor", "macro"})
MEMBER_KINDS = frozenset({"method", "constructor"})
MAX_REEXPORT_DEPTH = 4  # `index.ts` re-exporting `./util` re-exporting `./date`: chains are short

# One link of a receiver chain: a name (`#` for JS private fields), perhaps called: `b`, `b(x.y)`.
_SEGMENT = re.compile(r"(#?[A-Za-z_$][\w$]*)(\(.*\))?", re.DOTALL)
_STRING = re.compile(r""""(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|`(?:\\.|[^`\\])*`""")
_NEW = re.compile(r"new\s+([A-Za-z_$][\w$.]*)\s*(?:<.*>)?\s*\(.*\)", re.DOTALL)  # `new Foo<T>(x)`
_QUALIFIED = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
_TYPE_ARGS = re.compile(r"<.*>$")
_GO_VERSION = re.compile(r"v\d+")


@dataclass(frozen=True)
class LanguageRules:
    """The extra keys of a languages.toml entry that drive resolution, with their defaults."""

    family: frozenset[str]  # languages whose symbols this one calls by name (TS <-> JS)
    implicit_this: bool  # a bare name may be a member of the enclosing class (Java)
    super_names: frozenset[str]  # receivers / callees meaning the super class (`super`)
    constructor_names: frozenset[str]  # methods that construct, besides `constructor` kinds
    inherited_constructors: bool  # `new Sub()` runs the super constructor when Sub has none
    name_fallback: bool  # an unresolved bare name may be any same-named project symbol
    module_extensions: tuple[str, ...]  # stripped from import specifiers (`./date.js`)
    index_modules: tuple[str, ...]  # what a directory import means (`./util` -> `./util/index`)
    imports_reach_sources: bool  # `./x.js` means the source `x.ts` beside a built `x.js` (TypeScript's reading)
    follow_reexports: bool  # a module's names include the names it imports and re-exports
    builtins: frozenset[str]  # receivers that, unless the project declares them, are the runtime's
    untyped: frozenset[str]  # declared types that say nothing of the value (TypeScript `any`)
    module_value: str  # a module-level name that is the whole module's value (CommonJS `exports`)
    platform_methods: dict[str, tuple[str, ...]]  # a method of the runtime's types -> those types

    @staticmethod
    @cache
    def of(spec: LanguageSpec) -> LanguageRules:
        x = spec.extra
        platform = _platform(str(x["platform"])) if "platform" in x else {}
        methods: dict[str, list[str]] = {}
        for owner, names in sorted(platform.get("methods", {}).items()):
            for name in names:
                methods.setdefault(name, []).append(owner)
        return LanguageRules(
            family=frozenset(x.get("family", [spec.name])),  # type: ignore[arg-type]
            implicit_this=bool(x.get("implicit_this", False)),
            super_names=frozenset(x.get("super_names", [])),  # type: ignore[arg-type]
            constructor_names=frozenset(x.get("constructor_names", [])),  # type: ignore[arg-type]
            inherited_constructors=bool(x.get("inherited_constructors", False)),
            name_fallback=bool(x.get("name_fallback", True)),
            module_extensions=tuple(x.get("module_extensions", [])),  # type: ignore[arg-type]
            index_modules=tuple(x.get("index_modules", [])),  # type: ignore[arg-type]
            imports_reach_sources=bool(x.get("imports_reach_sources", False)),
            follow_reexports=bool(x.get("follow_reexports", False)),
            builtins=frozenset([*x.get("builtins", []), *platform.get("globals", [])]),  # type: ignore[misc]
            untyped=frozenset(x.get("untyped", [])),  # type: ignore[arg-type]
            module_value=str(x.get("module_value", "")),
            platform_methods={name: tuple(owners) for name, owners in methods.items()},
        )


@cache
def _platform(name: str) -> dict:
    """platforms/NAME.toml: what a language's runtime defines."""
    return tomllib.loads(resources.files("tenure.structural.platforms").joinpath(f"{name}.toml").read_text("utf-8"))


def type_name(written: str) -> str:
    """The class a declared type names: `*store.Repo` -> `store.Repo`, `List<Foo>` -> `List`,
    `Repo | undefined` -> `Repo`; '' for arrays, slices, maps, function types and real unions,
    whose members are not the element type's."""
    parts = [p.strip() for p in written.split("|")]
    parts = [p for p in parts if p not in ("null", "undefined")]
    if len(parts) != 1:
        return ""
    text = _TYPE_ARGS.sub("", parts[0].lstrip("*&").strip())
    if text.endswith("]") and not text.endswith("[]"):
        text = text[: text.index("[")]  # Go type arguments: `Service[T]`
    return text if _QUALIFIED.fullmatch(text) else ""


class FileResolver:
    """Resolution state for one file: its language rules, definitions, imports and bindings."""

    def __init__(self, facts: FileFacts, view: ProjectView) -> None:
        self.facts = facts
        self.view = view
        self.spec: LanguageSpec = language_table()[facts.language]
        self.rules = LanguageRules.of(self.spec)
        self.prefix = facts.package if self.spec.module_scheme == "package" else facts.module
        self.file_scope = file_scope_name(self.spec, facts.module, facts.path, facts.package)
        self.local = {d.qualname: d for d in facts.definitions}
        # Shared with the resolvers of the other files read while resolving this one (peer):
        # those resolvers by path, and members looked up by (type, name).
        self._peers: dict[str, FileResolver | None] = {facts.path: self}
        self._members: dict[tuple[str, str], list[SymbolInfo]] = {}
        self._typing: set[Binding] = set()  # call bindings being typed: `x := x.Next()` must end
        self.imports: dict[str, list[Import]] = {}  # local name -> the imports binding it
        self.wildcards: list[Import] = []
        for imp in facts.imports:
            if imp.wildcard:
                self.wildcards.append(imp)
            else:
                self.imports.setdefault(self.local_name(imp), []).append(imp)
        self.bindings: dict[tuple[str, str], list[Binding]] = {}  # (scope, name) -> by line
        for b in sorted(facts.bindings, key=lambda b: b.line):
            self.bindings.setdefault((b.scope, b.name), []).append(b)

    # names -------------------------------------------------------------------------------------
    def fqn(self, qualname: str) -> str:
        return qualify(self.prefix, qualname) if qualname else self.file_scope

    def qualname_of(self, fqn: str) -> str:
        return fqn[len(self.prefix) + 1 :] if self.prefix and fqn.startswith(self.prefix + ".") else fqn

    def same_language(self, syms: list[SymbolInfo]) -> list[SymbolInfo]:
        return [s for s in syms if s.language in self.rules.family]

    def is_type(self, sym: SymbolInfo) -> bool:
        return sym.kind in self.spec.type_kinds

    def types_among(self, syms: list[SymbolInfo]) -> list[SymbolInfo]:
        return [s for s in syms if self.is_type(s)]

    def _containers(self, syms: list[SymbolInfo]) -> list[str]:
        """The fqns among `syms` that have members: types, modules, namespaces."""
        return [s.fqn for s in syms if self.is_type(s) or s.kind == "module"]

    def is_local_type(self, qualname: str) -> bool:
        d = self.local.get(qualname)
        return d is not None and d.kind in self.spec.type_kinds

    def enclosing_types(self, scope: str) -> Iterator[str]:
        """Qualnames of the types around `scope`, innermost first."""
        while scope:
            if self.is_local_type(scope):
                yield scope
            scope = _parent(scope, self.spec)

    def enclosing_type(self, scope: str) -> str:
        return next(self.enclosing_types(scope), "")

    # other files -------------------------------------------------------------------------------
    def peer(self, sym: SymbolInfo) -> FileResolver | None:
        """A resolver for the file that defines `sym`, sharing this one's view and caches."""
        if sym.path not in self._peers:
            facts = self.view.file_facts(sym.path, sym.module)
            self._peers[sym.path] = self._share(type(self)(facts, self.view)) if facts is not None else None
        return self._peers[sym.path]

    def _peers_of_module(self, module: str) -> list[FileResolver]:
        out = []
        for facts in self.view.module_facts(module):
            peer = self._peers.get(facts.path) or self._share(type(self)(facts, self.view))
            self._peers[facts.path] = peer
            out.append(peer)
        return out

    def _share(self, peer: FileResolver) -> FileResolver:
        peer._peers, peer._members = self._peers, self._members
        return peer

    # imports -----------------------------------------------------------------------------------
    def local_name(self, imp: Import) -> str:
        """The name an import binds: its alias, the imported member, or the module's package name
        (Go's may differ from its directory) or last path segment (Go drops a `/v2` suffix)."""
        if imp.alias or imp.name:
            return imp.alias or imp.name
        declared = next((f.package for f in self.view.module_facts(self.import_module(imp)) if f.package), "")
        segments = [s for s in re.split(r"[./:]+", declared or imp.module) if s]
        if len(segments) > 1 and _GO_VERSION.fullmatch(segments[-1]):
            segments.pop()
        return segments[-1] if segments else imp.module

    def import_module(self, imp: Import) -> str:
        """The module an import names, in the project's namespace."""
        return _MODULE_OF_IMPORT.get(self.spec.module_scheme, _dotted_module)(self, imp)

    def import_target(self, imp: Import) -> str:
        module = self.import_module(imp)
        return f"{module}.{imp.name}" if imp.name else module

    def import_symbols(self, imp: Import, depth: int = 0) -> list[SymbolInfo]:
        module = self.import_module(imp)
        if imp.name:
            return self.module_member(module, imp.name, depth)
        if self.rules.module_value and (value := self.module_member(module, self.rules.module_value, depth)):
            return value  # `const Repo = require("./repo")` where repo.js says `module.exports = Repo`
        return self.dotted_symbols(module)

    def dotted_symbols(self, dotted: str) -> list[SymbolInfo]:
        """Symbols of a dotted name, also where it runs through types: `a.b.Outer.Inner` names
        `a.b.Outer$Inner`, `a.b.Util.twice` a static method."""
        found = self.view.symbols(dotted)
        if found or "." not in dotted:
            return found
        head, _, tail = dotted.rpartition(".")
        return [m for t in self.types_among(self.dotted_symbols(head)) for m in self.members(t.fqn, tail)]

    def module_member(self, module: str, name: str, depth: int = 0) -> list[SymbolInfo]:
        """`name` in a module: its definition or, where modules re-export, what it stands for."""
        found = self.dotted_symbols(f"{module}.{name}")
        if found or depth >= MAX_REEXPORT_DEPTH or not self.rules.follow_reexports:
            return found
        return [s for peer in self._peers_of_module(module) for s in peer.exported(name, depth + 1)]

    def exported(self, name: str, depth: int) -> list[SymbolInfo]:
        """What this module's top-level `name` is when no definition has that name: an import it
        re-exports (`export { a } from`), an alias (`export default Foo`), a wildcard re-export."""
        found = [s for imp in self.imports.get(name, []) for s in self.import_symbols(imp, depth)]
        for b in self.bindings.get(("", name), []):
            if b.alias:
                found += self.resolve_name(b.type, "")
        if not found:
            found = [s for imp in self.wildcards for s in self.module_member(self.import_module(imp), name, depth)]
        return found

    # types and members -------------------------------------------------------------------------
    def supertypes(self, cls: SymbolInfo) -> list[SymbolInfo]:
        """The super types `cls` declares, resolved where they are written (that file's imports)."""
        home = self.peer(cls) if cls.bases else None
        if home is None:
            return []
        scope = _parent(home.qualname_of(cls.fqn), home.spec)
        return [t for base in cls.bases for t in home.resolve_type(base, scope)]

    def members(self, type_fqn: str, name: str) -> list[SymbolInfo]:
        """`name` defined on the type or, failing that, on its super types (nearest first)."""
        key = (type_fqn, name)
        if key not in self._members:
            self._members[key] = []  # a placeholder first: hierarchies can be cyclic in broken code
            own = [s for s in self.view.members(type_fqn) if s.name == name]
            if not own:
                for cls in self.types_among(self.view.symbols(type_fqn)):
                    for base in self.supertypes(cls):
                        own.extend(self.members(base.fqn, name))
            self._members[key] = own
        return self._members[key]

    def member(self, container: str, name: str) -> list[SymbolInfo]:
        """`name` in a type (through its hierarchy) or in a module."""
        if self.types_among(self.view.symbols(container)):
            return self.members(container, name)
        return self.module_member(container, name)

    def constructors(self, type_sym: SymbolInfo, seen: frozenset[str] = frozenset()) -> list[SymbolInfo]:
        own = [m for m in self.view.members(type_sym.fqn)
               if m.kind == "constructor" or m.name in self.rules.constructor_names]
        if own or not self.rules.inherited_constructors or type_sym.fqn in seen:
            return own
        return [c for base in self.supertypes(type_sym) for c in self.constructors(base, seen | {type_sym.fqn})]

    # bindings: what a receiver is --------------------------------------------------------------
    def local_binding(self, scope: str, name: str, line: int | None) -> Binding | None:
        """`name` declared directly in `scope`: the last declaration at or before `line` (block
        scopes are not modelled, so a later same-named declaration in another block is ignored)."""
        found = self.bindings.get((scope, name))
        if not found:
            return None
        before = [b for b in found if line is None or b.line <= line]
        return (before or found)[-1]

    def binding_for(self, name: str, scope: str, line: int) -> tuple[FileResolver, Binding] | None:
        """The declaration `name` refers to at `scope`, innermost first; fields (also inherited
        ones) only where the language reads them without `this.`."""
        s = scope
        while True:
            if self.is_local_type(s):
                found = self.field(self.fqn(s), name, set()) if self.rules.implicit_this else None
                if found:
                    return found
            elif (b := self.local_binding(s, name, line)) is not None:
                return self, b
            if not s:
                return None
            s = _parent(s, self.spec)

    def field(self, type_fqn: str, name: str, seen: set[str]) -> tuple[FileResolver, Binding] | None:
        """A field of the type or of its super types, with the resolver of the file declaring it."""
        if type_fqn in seen:
            return None
        seen.add(type_fqn)
        for sym in self.types_among(self.view.symbols(type_fqn)):
            home = self.peer(sym)
            b = home.local_binding(home.qualname_of(sym.fqn), name, None) if home else None
            if home and b:
                return home, b
            for base in self.supertypes(sym):
                if found := self.field(base.fqn, name, seen):
                    return found
        return None

    def binding_containers(self, b: Binding) -> list[str] | None:
        """The types (or, for an alias, the types or modules) a binding of this file stands for;
        [] when its type is outside the project, None when the type says nothing (`any`)."""
        if b.type in self.rules.untyped:
            return None
        if b.alias:
            return self._containers(self.resolve_name(b.type, b.scope))
        if b.call:
            return self.result_containers(b)
        return [t.fqn for t in self.resolve_type(b.type, b.scope)]

    def result_containers(self, b: Binding) -> list[str] | None:
        """What a call binding holds: the result of calling its callee (`s := billing.NewService()`)."""
        if b in self._typing:
            return None  # `x := x.Next()`: typing x needs x
        self._typing.add(b)
        try:
            return self.receiver_containers(f"{b.type}()", b.scope, b.line)
        finally:
            self._typing.discard(b)

    def results(self, callees: list[SymbolInfo]) -> list[str] | None:
        """The types calls of `callees` return, by their declared result types (`New() *Repo`); a
        class called like a function returns an instance. [] when nothing of the project is
        called (`assertThat(x)`), None when no callee declares its result."""
        if not callees:
            return []
        out: list[str] = []
        declared = False
        for fn in callees:
            if self.is_type(fn):
                out.append(fn.fqn)
                continue
            home = self.peer(fn)
            d = home.local.get(home.qualname_of(fn.fqn)) if home else None
            if home and d and d.returns:
                declared = True
                out += [t.fqn for t in home.resolve_type(_first_result(d.returns), _parent(d.qualname, home.spec))]
        return out if out or declared else None

    def module_binding_containers(self, module: str, name: str) -> list[str] | None:
        """A module-level variable of known type (`export const api = new Api()`)."""
        for peer in self._peers_of_module(module):
            b = peer.local_binding("", name, None)
            if b is not None and (typed := peer.binding_containers(b)) is not None:
                return typed
        return None

    def receiver_containers(self, receiver: str, scope: str, line: int) -> list[str] | None:
        """The types or modules whose member a call on `receiver` reaches, along a chain of names
        and calls (`a.b`, `builder.create()`, `new Foo()`). None when unknown (an untyped
        variable, an expression); [] when known to lie outside the project."""
        if new := _NEW.fullmatch(receiver.strip()):
            return [t.fqn for t in self.resolve_type(new.group(1), scope)]
        segments = _segments(receiver)
        if not segments:
            return None
        (head, called), rest = segments[0], segments[1:]
        if called:
            containers = self.results(self.resolve_call(Reference("call", head, scope, line)))
        else:
            containers = self.head_containers(head, scope, line)
        for name, called in rest:
            if not containers:
                return containers
            if called:
                containers = self.results([m for c in containers for m in self.member(c, name)])
            else:
                containers = self.member_containers(containers, name)
        return containers

    def head_containers(self, head: str, scope: str, line: int) -> list[str] | None:
        if head in self.spec.self_names or head in self.rules.super_names:
            owner = self.enclosing_type(scope)
            if not owner:
                return None
            if head in self.spec.self_names:
                return [self.fqn(owner)]
            return [b.fqn for t in self.view.symbols(self.fqn(owner)) for b in self.supertypes(t)]
        if found := self.binding_for(head, scope, line):
            home, b = found
            return home.binding_containers(b)
        if head in self.imports:
            return self.import_containers(self.imports[head][0])
        if containers := self._containers(self.resolve_name(head, scope)):
            return containers
        return [] if head in self.rules.builtins else None  # `Math.round()` is never ours

    def import_containers(self, imp: Import) -> list[str]:
        syms = self.import_symbols(imp)
        if syms:
            return self._containers(syms)
        if imp.name and (typed := self.module_binding_containers(self.import_module(imp), imp.name)) is not None:
            return typed
        return [self.import_target(imp)]  # outside the project: its members are not ours either

    def member_containers(self, containers: list[str], attr: str) -> list[str] | None:
        """`a.b` where `a` is one of `containers`: a field's type, a nested type, a submodule, a
        module-level variable's type. None when `a` is ours but `b` is not found in it; [] when
        `b` is found and its type is not ours (`List<T> items`)."""
        out: list[str] = []
        unknown = False
        for c in containers:
            if self.types_among(self.view.symbols(c)):
                found = self.field(c, attr, set())
                typed = found[0].binding_containers(found[1]) if found else None
                members = self._containers(self.members(c, attr)) if typed is None else []
            elif self.view.module_exists(c):
                typed = self.module_binding_containers(c, attr)
                members = self._containers(self.module_member(c, attr)) if typed is None else []
            else:
                continue  # outside the project: so is its member
            out += typed if typed is not None else members
            unknown |= typed is None and not members
        return None if unknown and not out else out

    # names -------------------------------------------------------------------------------------
    def resolve_name(
        self, name: str, scope: str, want: Callable[[SymbolInfo], bool] | None = None
    ) -> list[SymbolInfo]:
        """A bare name at `scope`; `want` skips a nearer match of the wrong kind (a constructor
        `Inner.Inner` when the type `Inner` is meant)."""

        def keep(syms: list[SymbolInfo]) -> list[SymbolInfo]:
            return [s for s in syms if want(s)] if want else syms

        # 1. enclosing definitions, innermost first; a class body is not a scope its methods see
        s = scope
        while True:
            qual = f"{s}.{name}" if s else name
            if not self.is_local_type(s) and qual in self.local and (found := keep(self.view.symbols(self.fqn(qual)))):
                return found
            if not s:
                break
            s = _parent(s, self.spec)
        # 2. members of the enclosing types, where the language calls them without `this.`
        if self.rules.implicit_this:
            for owner in self.enclosing_types(scope):
                if found := keep(self.members(self.fqn(owner), name)):
                    return found
        # 3. imports
        if found := keep([s for imp in self.imports.get(name, []) for s in self.import_symbols(imp)]):
            return found
        # 4. the same module (other files of the package)
        if found := keep(self.same_language(self.view.symbols(qualify(self.prefix, name)))):
            return found
        # 5. wildcard imports
        for imp in self.wildcards:
            if found := keep(self.module_member(self.import_module(imp), name)):
                return found
        # 6. the whole project by name; a bare name is never a method where `this.` is required
        if not self.rules.name_fallback:
            return []
        found = keep(self.same_language(self.view.named(name)))
        return found if self.rules.implicit_this else [s for s in found if s.kind not in MEMBER_KINDS]

    def resolve_type(self, name: str, scope: str) -> list[SymbolInfo]:
        written = type_name(name)
        if "." in written:
            head, _, tail = written.rpartition(".")
            containers = self.receiver_containers(head, scope, 0)
            if containers is not None:
                return self.types_among([m for c in containers for m in self.member(c, tail)])
            written = tail
        return self.resolve_name(written, scope, self.is_type) if written else []

    def resolve_call(self, ref: Reference) -> list[SymbolInfo]:
        if not ref.receiver and ref.name in self.rules.super_names:
            return self.super_constructors(ref.scope)  # `super(...)` in a constructor
        if not ref.receiver:
            return self.resolve_name(ref.name, ref.scope)
        return self._member_call(ref)[0]

    def _member_call(self, ref: Reference) -> tuple[list[SymbolInfo], bool]:
        """The targets of `receiver.name(...)`, and whether only the name found them."""
        containers = self.receiver_containers(ref.receiver, ref.scope, ref.line)
        if containers is None:  # unknown receiver: every same-named method is a candidate ...
            if ref.name in self.rules.platform_methods:
                return [], True  # ... unless the runtime's types have one of that name too (platform_owners)
            return self._named_callables(ref.name), True
        return [m for c in containers for m in self.member(c, ref.name)], False

    def resolve_new(self, ref: Reference) -> list[SymbolInfo]:
        if not ref.receiver:
            return self.resolve_type(ref.name, ref.scope)
        containers = self.receiver_containers(ref.receiver, ref.scope, ref.line) or []
        return self.types_among([m for c in containers for m in self.member(c, ref.name)])

    def super_constructors(self, scope: str) -> list[SymbolInfo]:
        owner = self.enclosing_type(scope)
        types = self.view.symbols(self.fqn(owner)) if owner else []
        return [c for t in types for base in self.supertypes(t) for c in self.constructors(base)]

    # edges -------------------------------------------------------------------------------------
    def edges(self) -> list[EdgeOut]:
        """(A file too large to link its calls, vendored.calls_cut: its super types and imports alone.)"""
        refs = self.facts.references
        if calls_cut(self.facts):
            refs = [r for r in refs if r.kind in ("inherits", "implements")]
        out = [e for ref in refs for e in self.reference_edges(ref)]
        return out + self.import_edges()

    def reference_edges(self, ref: Reference) -> list[EdgeOut]:
        """The edges of one reference (a call, an instantiation, a super type, a dynamic site)."""
        src = self.fqn(ref.scope)
        if ref.kind == "dynamic":  # what it may reach is not told: anything (graph.dynamic_reach)
            return [EdgeOut(src, None, Relation.CALLS, Tier.DYNAMIC, ref.line, "", ref.detail)]
        if ref.kind in ("inherits", "implements"):
            targets = self.resolve_type(ref.name, _parent(ref.scope, self.spec))
            relation = Relation.INHERITS if ref.kind == "inherits" else Relation.IMPLEMENTS
            return self.edges_to(src, targets, relation, ref)
        if ref.kind == "new":
            return self._instantiation(src, self.resolve_new(ref), ref)
        targets, by_name = self._member_call(ref) if ref.receiver else (self.resolve_call(ref), False)
        if types := self.types_among(targets):
            return self._instantiation(src, types, ref)  # a class called like a function
        if not targets and (owners := self.platform_owners(ref)):
            detail = f"{ref.name} of a receiver nothing types: a method of the platform's {', '.join(owners)} too"
            return [EdgeOut(src, None, Relation.CALLS, Tier.AMBIGUOUS, ref.line, ref.name, detail)]
        edges = self.edges_to(src, targets, Relation.CALLS, ref)
        if by_name and len(edges) == 1 and edges[0].tier == Tier.INFERRED:  # (a guess, however alone)
            return [msgspec.structs.replace(edges[0], tier=Tier.AMBIGUOUS, detail="by its name alone")]
        return edges

    def platform_owners(self, ref: Reference) -> tuple[str, ...]:
        """The runtime's types that have the method a call on an untyped receiver names, where the
        project has methods of that name too (resolve_call leaves such a call without a target);
        none for a receiver something types."""
        owners = self.rules.platform_methods.get(ref.name, ())
        if not owners or not ref.receiver or not self._named_callables(ref.name):
            return ()
        return owners if self.receiver_containers(ref.receiver, ref.scope, ref.line) is None else ()

    def _named_callables(self, name: str) -> list[SymbolInfo]:
        return [s for s in self.same_language(self.view.named(name)) if s.kind in CALLABLE_KINDS]

    def import_edges(self) -> list[EdgeOut]:
        out = []
        for imp in self.facts.imports:
            found = self.import_symbols(imp)
            module = self.import_module(imp)
            if found or self.view.module_exists(module):
                target = found[0].fqn if found else module
                out.append(EdgeOut(self.fqn(imp.scope), target, Relation.IMPORTS, Tier.INFERRED, imp.line, imp.name))
        return out

    def _instantiation(self, src: str, types: list[SymbolInfo], ref: Reference) -> list[EdgeOut]:
        ctors = [c for t in types for c in self.constructors(t)]
        return self.edges_to(src, types, Relation.INSTANTIATES, ref) + self.edges_to(src, ctors, Relation.CALLS, ref)

    def edges_to(self, src: str, targets: list[SymbolInfo], relation: str, ref: Reference) -> list[EdgeOut]:
        unique = sorted({t.fqn for t in targets})
        if not unique:
            return []
        if len(unique) > MAX_CANDIDATES:
            detail = f"{len(unique)} candidates named {ref.name}"
            return [EdgeOut(src, None, relation, Tier.AMBIGUOUS, ref.line, ref.name, detail)]
        tier = Tier.INFERRED if len(unique) == 1 else Tier.AMBIGUOUS
        return [EdgeOut(src, fqn, relation, tier, ref.line, ref.name) for fqn in unique]


def _segments(receiver: str) -> list[tuple[str, bool]] | None:
    """`a.b(x.y).c` -> [("a", False), ("b", True), ("c", False)]; None for any other expression
    (indexing, literals, casts) and for unbalanced text."""
    text = _STRING.sub('""', receiver.strip())  # `append('[')`: brackets in literals do not nest
    text = text.replace("?.", ".").replace("!.", ".")  # `a?.b`, `a!.b`: the same member
    parts = split_top_level(text, ".")
    matches = [_SEGMENT.fullmatch(p.strip()) for p in parts] if parts is not None else []
    if not matches or not all(matches):
        return None
    return [(m.group(1), m.group(2) is not None) for m in matches if m]


def split_top_level(text: str, separator: str, brackets: str = "()[]{}") -> list[str] | None:
    """`text` cut at each `separator` outside brackets (`brackets`: pairs, opening first); None
    when they do not balance."""
    opening, closing = brackets[::2], brackets[1::2]
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in opening:
            depth += 1
        elif ch in closing:
            depth -= 1
            if depth < 0:
                return None
        elif ch == separator and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts if not depth else None


def _first_result(returns: str) -> str:
    """The first result of a declared result list: `(*Service, error)` -> `*Service`, and of a
    named one, its type: `(s *Service, err error)` -> `*Service`."""
    first = returns.strip().removeprefix("(").removesuffix(")").split(",")[0].strip()
    return first.rsplit(" ", 1)[-1] if " " in first and "<" not in first else first


def _parent(qualname: str, spec: LanguageSpec) -> str:
    cut = max(qualname.rfind("."), qualname.rfind(spec.nested_type_separator))
    return qualname[:cut] if cut > 0 else ""


# How an import's module, as written, becomes a module name, per module scheme --------------------
def _dotted_module(r: FileResolver, imp: Import) -> str:
    return imp.module.replace("/", ".").replace("::", ".")


def python_absolute(importer: str, importer_path: str, module: str, level: int) -> str:
    """`from ..a import b` in `pkg.sub.mod`: `pkg.a`; a package's `__init__` is its own level.
    (Shared with the Python resolver.)"""
    if not level:
        return module
    package = importer.split(".")
    is_init = posixpath.basename(importer_path).startswith("__init__.")
    base = package[: max(len(package) - level + (1 if is_init else 0), 0)]
    return ".".join([*base, module] if module else base)


def _python_module(r: FileResolver, imp: Import) -> str:
    return python_absolute(r.facts.module, r.facts.path, imp.module, imp.level)


def _path_module(r: FileResolver, imp: Import) -> str:
    """`./util` from `src/app.ts`: `src/util`, else `src/util/index`; a bare specifier (`react`)
    is a package outside the project and keeps its name. `./util.cjs` is the module named so when
    it has a sibling `util.js` that keeps `src/util` (`naming.path_module`), else `src/util`; from a
    TypeScript file, `./util.js` is `util.ts` when both exist (the compiler reads the source)."""
    if not imp.module.startswith("."):
        return imp.module
    written = joined = posixpath.normpath(posixpath.join(posixpath.dirname(r.facts.path), imp.module))
    for ext in r.rules.module_extensions:
        if joined.endswith(ext):
            joined = joined[: -len(ext)]
            break
    # the file as written first (Node loads it), unless the importer reads `./x.js` as its source `x.ts`
    to_source = r.rules.imports_reach_sources and written.endswith((".js", ".jsx"))
    candidates = [*([written] if written != joined and not to_source else []), joined,
                  *(f"{joined}/{index}" for index in r.rules.index_modules)]
    return next((c for c in candidates if r.view.module_exists(c)), joined)


def _go_module(r: FileResolver, imp: Import) -> str:
    return imp.module  # an import path is the package's module name (naming.go_module)


_MODULE_OF_IMPORT: dict[str, Callable[[FileResolver, Import], str]] = {
    "python": _python_module,
    "path": _path_module,
    "go": _go_module,
}


class GenericResolver(Resolver):
    """Resolves, and keeps no answers to check later: an edit resolves again every file that read
    what it touched."""

    def resolve(self, facts: FileFacts, view: ProjectView) -> list[EdgeOut]:
        return FileResolver(facts, view).edges()


resolver = GenericResolver()
