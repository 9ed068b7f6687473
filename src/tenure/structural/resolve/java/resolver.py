"""One Java file's resolution: the generic resolver's scopes, imports and hierarchy (generic.py),
with Java's static types on top: every receiver and argument is typed from the expressions the Java
extractor wrote (extractors/java.py), type arguments flow through generic project and JDK types
(jdk.toml), overloads are chosen by arity and argument types, lambda parameters take their types from
the parameter the lambda is passed to, and each call site gives the edges of its kind (a call, `new`,
a method reference, `super(...)`, the calls the compiler and the JVM make: runtime.py)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cached_property

from tenure.namespace.tiers import Relation, Tier
from tenure.structural.facts import Binding, FileFacts, Reference
from tenure.structural.resolve import EdgeOut, ProjectView, SymbolInfo
from tenure.structural.resolve.generic import MEMBER_KINDS, FileResolver, type_name
from tenure.structural.resolve.java import runtime
from tenure.structural.resolve.java.jdk import jdk
from tenure.structural.resolve.java.types import (
    BOXES,
    LOCAL_CLASS,
    OBJECT,
    PRIMITIVES,
    STRING,
    Call,
    JType,
    Method,
    Substitution,
    Types,
    Written,
    assignable_primitive,
    erased,
    parse,
    substitute,
)
from tenure.structural.vendored import calls_cut

TYPE_KINDS = frozenset({"class", "interface", "enum"})
MAX_DEPTH = 24  # how deep typing may recurse (a chain of locals, calls and lambdas) before it gives up


class JavaFileResolver(FileResolver):
    def __init__(self, facts: FileFacts, view: ProjectView) -> None:
        super().__init__(facts, view)
        flow = facts.flow if isinstance(facts.flow, dict) else {}
        self.sites: list = flow.get("sites") or [None] * len(facts.references)
        self.defs: list = flow.get("defs") or [None] * len(facts.definitions)
        self.local_vars: list = flow.get("locals") or []
        self.reassigned: frozenset[int] = frozenset(flow.get("reassigned") or ())
        self.lambdas: list = flow.get("lambdas") or []
        self.lexical: dict[int, int] = {int(k): v for k, v in (flow.get("lexical") or {}).items()}
        self.indexes: dict[str, list[int]] = {}
        for i, d in enumerate(facts.definitions):
            self.indexes.setdefault(d.qualname, []).append(i)
        self._calls: dict[int, Call] = {}
        self._local_types: dict[int, Types] = {}
        self._depth = 0
        self._busy: set[tuple] = set()

    # scopes ----------------------------------------------------------------------------------------
    def outer(self, scope: str) -> str:
        """The scope `scope` is written in: for a local or anonymous class, the method it is declared in."""
        for i in self.indexes.get(scope, ()):
            if i in self.lexical:
                return self.facts.definitions[self.lexical[i]].qualname
        cut = max(scope.rfind("."), scope.rfind("$"))
        return scope[:cut] if cut > 0 else ""

    def scopes(self, scope: str) -> list[str]:
        """`scope` and the scopes around it, innermost first."""
        out = []
        while scope and len(out) < MAX_DEPTH:
            out.append(scope)
            scope = self.outer(scope)
        return out

    def classes_around(self, scope: str) -> list[str]:
        return [s for s in self.scopes(scope) if self.is_local_type(s)]

    def flags(self, index: int) -> str:
        entry = self.defs[index] if index < len(self.defs) else None
        return entry[0] if entry else ""

    def type_flags(self, fqn: str) -> str:
        """The flags of a project type (this file's or another's)."""
        home = self.home(fqn)
        if home is None:
            return ""
        return "".join(home.flags(i) for i in home.indexes.get(home.qualname_of(fqn), ()))

    def home(self, fqn: str) -> JavaFileResolver | None:
        syms = self.types_among(self.view.symbols(fqn))
        home = self.peer(syms[0]) if syms else None
        return home if isinstance(home, JavaFileResolver) else None

    # types -----------------------------------------------------------------------------------------
    def type_variable(self, name: str, scope: str) -> tuple[str, str] | None:
        """(scope, bound) of the type variable `name` visible at `scope`."""
        for s in self.scopes(scope):
            for i in self.indexes.get(s, ()):
                entry = self.defs[i] if i < len(self.defs) else None
                for var, bound in entry[2] if entry else ():
                    if var == name:
                        return s, bound
        return None

    def jtype(self, written: Written | None, scope: str, keep_vars: bool = False,
              names_at: str | None = None) -> JType | None:
        """A written type resolved at `scope` of this file; None when it names nothing known. Type
        variables stay variables (`keep_vars`: in signatures, to be substituted) or become their bound.
        `names_at`: where type names are looked up when not at `scope` (a class's `extends` and
        `implements` sit outside its body: its member types are not in scope there, its variables are)."""
        if written is None:
            return None
        name, dims = written.name, written.dims
        if name in PRIMITIVES:
            return JType(name, dims=dims)
        args = tuple(a for w in written.args if (a := self.jtype(w, scope, keep_vars, names_at)) is not None)
        if name.startswith(LOCAL_CLASS):
            return JType(self.fqn(name[1:]), args, dims, project=True)
        if "." not in name and (var := self.type_variable(name, scope)) is not None:
            home_scope, bound_text = var
            bound = self.jtype(parse(bound_text), self.outer(home_scope)) if bound_text else None
            if keep_vars:
                return JType(name, dims=dims, kind="var", note=(bound,))
            if bound is None:
                return JType(OBJECT, dims=dims)
            return JType(bound.name, bound.args, bound.dims + dims, bound.project)
        found = self.types_among(self.resolve_type(name, scope if names_at is None else names_at))
        if found:
            return JType(found[0].fqn, args, dims, project=True)
        return JType(self.external(name), args, dims)

    def external(self, name: str) -> str:
        """The qualified name of a type outside the project, as far as the file tells."""
        head, _, rest = name.partition(".")
        for imp in self.imports.get(head, ()):
            target = self.import_target(imp)
            return f"{target}.{rest}" if rest else target
        if "." not in name:
            for imp in self.wildcards:
                if (found := jdk().package_member(self.import_module(imp), name)) is not None:
                    return found
        return jdk().qualified(name)

    def jdk_type(self, written: Written | None, variables: Substitution) -> JType | None:
        """A type of a jdk.toml signature (qualified names), its variables bound by `variables`."""
        if written is None:
            return None
        if written.name in variables:
            return substitute(JType(written.name, dims=written.dims, kind="var"), variables)
        if written.name in PRIMITIVES:
            return JType(written.name, dims=written.dims)
        args = tuple(a for w in written.args if (a := self.jdk_type(w, variables)) is not None)
        return JType(written.name, args, written.dims)

    def own_type(self, qualname: str) -> JType:
        """A type of this file as seen from inside it: `this`, its type variables unbound."""
        variables = [v for i in self.indexes.get(qualname, ()) for v, _ in (self.defs[i] or ["", [], []])[2]]
        return JType(self.fqn(qualname), tuple(JType(v, kind="var") for v in variables), project=True)

    def declared(self, qualname: str) -> list[tuple[int, str]]:
        """(index, flags) of each definition of this file named `qualname` (overloads: several)."""
        return [(i, self.flags(i)) for i in self.indexes.get(qualname, ())]

    # hierarchy -------------------------------------------------------------------------------------
    def supertypes_of(self, t: JType) -> list[JType]:
        """The direct super types of `t`, its type arguments carried over (`ArrayList<Ledger>` ->
        `List<Ledger>`); a project class without a super class also has Object."""
        if t.project:
            if (declared := self.declaration(t)) is None:
                return []
            home, qual = declared
            subst = home.type_arguments(qual, t.args)
            out = []
            for i in home.indexes.get(qual, ()):
                for base in home.facts.definitions[i].bases:
                    found = home.jtype(parse(base), qual, keep_vars=True, names_at=home.outer(qual))
                    if found is not None:
                        out.append(substitute(found, subst))
            if not any(s.project and home.is_class(s) for s in out):
                out.append(JType(OBJECT))
            return out
        entry = jdk().types.get(t.name)
        if entry is None:
            return []
        variables = dict(zip(entry.params, t.args, strict=False))
        return [s for w in entry.supers if (s := self.jdk_type(w, variables)) is not None]

    def is_class(self, t: JType) -> bool:
        syms = self.types_among(self.view.symbols(t.name))
        return bool(syms) and syms[0].kind in ("class", "enum")

    def type_arguments(self, qualname: str, args: tuple[JType, ...]) -> Substitution:
        variables = [v for i in self.indexes.get(qualname, ()) for v, _ in (self.defs[i] or ["", [], []])[2]]
        return dict(zip(variables, args, strict=False)) if len(variables) == len(args) else {}

    def as_super(self, t: JType, name: str, depth: int = 0) -> JType | None:
        """`t` seen as its super type `name` (`List<Ledger>` as `java.lang.Iterable`: `Iterable<Ledger>`)."""
        if t.name == name:
            return t
        if depth > MAX_DEPTH:
            return None
        for s in self.supertypes_of(t):
            if (found := self.as_super(s, name, depth + 1)) is not None:
                return found
        return None

    def subtype(self, t: JType, of: JType) -> bool:
        return self.as_super(t, of.name) is not None

    def methods(self, owner: JType, name: str) -> list[Method]:
        """Every method `name` of `owner` (constructors: `<init>`), its own and those it inherits and
        does not override, nearest first."""
        key = (str(owner), name, "methods")
        if key in self._busy:
            return []
        self._busy.add(key)
        try:
            out: list[Method] = []
            seen: set[tuple[str, ...]] = set()
            queue, visited = [owner], set()
            while queue and len(visited) < MAX_DEPTH * 4:
                t = queue.pop(0)
                if str(t) in visited:
                    continue
                visited.add(str(t))
                for m in self.own_methods(t, name):
                    signature = tuple(str(p) for p in m.params)
                    if signature not in seen:
                        seen.add(signature)
                        out.append(m)
                if name != "<init>":
                    queue += self.supertypes_of(t)
            return out
        finally:
            self._busy.discard(key)

    def own_methods(self, owner: JType, name: str) -> list[Method]:
        if owner.project:
            if (declared := self.declaration(owner)) is None:
                return []
            home, qual = declared
            subst = home.type_arguments(qual, owner.args)
            simple = next((home.facts.definitions[i].name for i in home.indexes.get(qual, ())), "")
            member = f"{qual}.{simple if name == '<init>' else name}"
            return [home.method(i, subst) for i, _ in home.declared(member)
                    if home.facts.definitions[i].kind in MEMBER_KINDS]
        entry = jdk().types.get(owner.name)
        if entry is None:
            return []
        variables = dict(zip(entry.params, owner.args, strict=False))
        out = []
        for sig in entry.methods.get(name, ()):
            bound = {**variables, **{v: JType(v, kind="var") for v in sig.tparams}}
            params = tuple(p for w in sig.params if (p := self.jdk_type(w, bound)) is not None)
            returns = self.jdk_type(sig.returns, bound) if sig.returns is not None else None
            flags = ("s" if sig.static else "") + ("v" if sig.varargs else "")
            out.append(Method(name, None, params, returns, sig.tparams, flags, owner.name))
        return out

    def method(self, index: int, subst: Substitution) -> Method:
        """This file's definition `index` as a Method, the class's type variables bound by `subst`."""
        d = self.facts.definitions[index]
        flags, params, tparams = (self.defs[index] or ["", [], []])[:3]
        types = []
        for type_text, _ in params:
            t = self.jtype(parse(type_text), d.qualname, keep_vars=True)
            types.append(substitute(t, subst) if t is not None else JType(""))
        returns = None
        if d.kind != "constructor":
            r = self.jtype(parse(d.returns), d.qualname, keep_vars=True) if d.returns else None
            returns = substitute(r, subst) if r is not None else JType("")
        owner = self.fqn(d.qualname.rpartition(".")[0])
        sym = next((s for s in self.view.symbols(self.fqn(d.qualname)) if s.path == self.facts.path), None)
        return Method(d.name, sym, tuple(types), returns, tuple(v for v, _ in tparams), flags, owner)

    def declaration(self, t: JType) -> tuple[JavaFileResolver, str] | None:
        """The file resolver that declares the project type `t` and its qualname there (None: no file does)."""
        home = self.home(t.name)
        return None if home is None else (home, home.qualname_of(t.name))

    def project_hierarchy(self, t: JType) -> Iterator[tuple[JType, JavaFileResolver, str]]:
        """`t` and its project super types, nearest first: each with the file resolver that declares
        it and its qualname there."""
        queue, visited = [t], set()
        while queue and len(visited) < MAX_DEPTH:
            x = queue.pop(0)
            if str(x) in visited or not x.project:
                continue
            visited.add(str(x))
            if (declared := self.declaration(x)) is None:
                continue
            yield x, *declared
            queue += self.supertypes_of(x)

    def field_types(self, owner: JType, name: str) -> Types | None:
        """The type of field `name` of `owner` (inherited ones too), None when it has none."""
        for t, home, qual in self.project_hierarchy(owner):
            b = home.local_binding(qual, name, None)
            if b is not None:
                found = home.binding_type(b)
                subst = home.type_arguments(qual, t.args)
                return [substitute(x, subst) for x in found]
        return None

    def binding_type(self, b: Binding) -> Types:
        """A field's declared type (as this file writes it, at the field's class)."""
        if b.call:
            return self.results_of_text(b.type, b.scope, b.line)
        t = self.jtype(parse(b.type), b.scope, keep_vars=True)
        return [t] if t is not None else []

    def results_of_text(self, callee: str, scope: str, line: int) -> Types:
        containers = self.receiver_containers(f"{callee}()", scope, line) or []
        return [JType(c, project=True) for c in containers]

    # expressions -----------------------------------------------------------------------------------
    def type_of(self, expr: list | None, scope: str) -> Types:
        if not expr or self._depth > MAX_DEPTH:
            return []
        self._depth += 1
        try:
            return self._type_of(expr, scope)
        finally:
            self._depth -= 1

    def _type_of(self, expr: list, scope: str) -> Types:
        op = expr[0]
        if op == "l":
            return self.local_type(expr[1], scope)
        if op == "p":
            return self.lambda_param(expr[1], expr[2], scope)
        if op == "n":
            return self.name_type(expr[1], scope)
        if op == "this":
            classes = self.classes_around(scope)
            if len(expr) > 1 and expr[1]:
                classes = [c for c in classes if c.rpartition("$")[2].rpartition(".")[2] == expr[1]
                           or c == expr[1]] or [q for t in self.resolve_type(expr[1], scope) if self.is_type(t)
                                                for q in [self.qualname_of(t.fqn)]]
            return [self.own_type(classes[0])] if classes else []
        if op == "super":
            return self.super_type(expr[1] if len(expr) > 1 else "", scope)
        if op == "f":
            return self.member_type(self.type_of(expr[1], scope), expr[2], scope)
        if op == "c":
            return self.site_result(expr[1])
        if op == "k":
            t = JType(STRING) if expr[1] == "String" else JType(expr[1])
            return [t.noting("const", expr[2])] if expr[1] == "String" and expr[2] else [t]
        if op == "cast":
            t = self.jtype(parse(expr[1][0]), scope) if expr[1] else None
            inner = self.type_of(expr[2], scope)
            note = next((x.note for x in inner if x.note), ())
            return [t.noting(*note) if note else t] if t is not None else inner
        if op == "ix":
            return [t.element() for t in self.type_of(expr[1], scope) if t.dims]
        if op == "?":
            return _unique(self.type_of(expr[1], scope) + self.type_of(expr[2], scope))
        if op == "lam":
            return [JType("<lambda>", kind="lambda", note=(self.lambdas[expr[1]][1],))]
        if op == "mr":
            return [JType("<ref>", kind="ref")]
        if op == "cls":
            t = self.jtype(parse(expr[1]), scope)
            return [JType("java.lang.Class", (t.value(),) if t is not None else ())]
        if op == "arr":
            t = self.jtype(parse(expr[1]), scope)
            return [t] if t is not None else []
        if op == "+":
            sides = self.type_of(expr[1], scope) + self.type_of(expr[2], scope)
            if any(t.name == STRING for t in sides):
                return [JType(STRING)]
            return sides[:1]
        if op == "#":
            return self.type_of(expr[1], scope)[:1]
        return []

    def local_type(self, index: int, scope: str) -> Types:
        if index in self._local_types:
            return self._local_types[index]
        self._local_types[index] = []  # (a local whose value reads itself: `x = x.next()`)
        name, type_text, value = self.local_vars[index]
        found: Types = []
        if type_text:
            types = [t for part in type_text.split("|") if (t := self.jtype(parse(part), scope)) is not None]
            if value is not None and value[0] != "el":
                # what the value is known to hold that its declared type does not say
                values = self.type_of(value, scope)
                # `Base b = new Sub()`, never assigned again: the one object it holds is exactly a Sub
                exact = len(values) == 1 and index not in self.reassigned and self._constructs(value)
                for v in values:
                    if types and v.name == types[0].name and all(a.name == OBJECT for a in types[0].args):
                        types = [v]  # `Class<?> c = Class.forName("a.Foo")`: a Class<Foo>
                    elif v.note:
                        types = [t.noting(*v.note) for t in types]
                    elif v.project and types and v.name != types[0].name:
                        types = [t.noting("runtime", v, exact) for t in types]  # the class it was made as
                if exact and values[0].project and types and not types[0].note:
                    types = [t.noting("runtime", values[0].value(), True) for t in types]
            found = types
        elif value is not None and value[0] == "el":
            found = [e for t in self.type_of(value[1], scope) if (e := self.element_type(t)) is not None]
        elif value is not None:
            found = [t.value() if t.kind == "type" else t for t in self.type_of(value, scope)]
        self._local_types[index] = found
        return found

    def _constructs(self, value: list) -> bool:
        """Whether an expression is a `new` (the only value whose class is certain)."""
        site = self.sites[value[1]] if value[0] == "c" and value[1] < len(self.sites) else None
        return site is not None and site[0] == "new"

    def element_type(self, t: JType) -> JType | None:
        """What a for-each loop takes from a value of type `t`: an array's element, an Iterable's T."""
        if t.dims:
            return t.element()
        iterable = self.as_super(t, "java.lang.Iterable")
        if iterable is not None and iterable.args:
            return erased(iterable.args[0])
        return None

    def name_type(self, name: str, scope: str) -> Types:
        """A bare name that is no local: a field (of the classes around, inherited ones too), a field
        imported statically, a type, or a package."""
        if name.startswith(LOCAL_CLASS):
            return [JType(self.fqn(name[1:]), project=True, kind="type")]
        for qual in self.classes_around(scope):
            found = self.field_types(self.own_type(qual), name)
            if found is not None:
                return [x for t in found if (x := erased(t)) is not None]
        for imp in self.imports.get(name, ()):
            head = self.import_module(imp).rpartition(".")[0]
            for t in self.types_among(self.dotted_symbols(head)):
                found = self.field_types(JType(t.fqn, project=True), name)
                if found is not None:
                    return found
        for imp in self.wildcards:
            for t in self.types_among(self.dotted_symbols(self.import_module(imp))):
                found = self.field_types(JType(t.fqn, project=True), name)
                if found is not None:
                    return found
        if (t := self.jtype(Written(name), scope)) is not None and (t.project or name[:1].isupper()):
            return [JType(t.name, (), 0, t.project, "type")]
        return [JType(name, kind="package")]

    def member_type(self, owners: Types, name: str, scope: str) -> Types:
        out: Types = []
        for o in owners:
            if o.kind == "package":
                full = f"{o.name}.{name}"
                syms = self.types_among(self.dotted_symbols(full))
                if syms:
                    out.append(JType(syms[0].fqn, project=True, kind="type"))
                elif name[:1].isupper() or full in jdk().types:
                    out.append(JType(full, kind="type"))
                else:
                    out.append(JType(full, kind="package"))
                continue
            if o.kind == "type" and o.project:
                nested = self.types_among(self.members(o.name, name))
                if nested:
                    out.append(JType(nested[0].fqn, project=True, kind="type"))
                    continue
            elif o.kind == "type" and f"{o.name}.{name}" in jdk().types:
                out.append(JType(f"{o.name}.{name}", kind="type"))
                continue
            if o.dims and name == "length":
                out.append(JType("int"))
                continue
            found = self.field_types(o.value(), name)
            out += [x for t in found or () if (x := erased(t)) is not None]
        return _unique(out)

    def super_type(self, qualifier: str, scope: str) -> Types:
        """`super` (the super class of the class around), `Iface.super` (that interface), `Outer.super`."""
        classes = self.classes_around(scope)
        if not classes:
            return []
        if qualifier:
            named = [t for t in self.resolve_type(qualifier, scope) if self.is_type(t)]
            if named and named[0].kind == "interface":
                return [JType(named[0].fqn, project=True, kind="super")]
            classes = [c for c in classes if c.rpartition("$")[2] == qualifier] or classes
        supers = self.supertypes_of(self.own_type(classes[0]))
        own = [s for s in supers if s.project and self.is_class(s)]
        return [JType(t.name, t.args, t.dims, t.project, "super") for t in (own or supers[:1])]

    # calls -----------------------------------------------------------------------------------------
    def call(self, index: int) -> Call:
        """The methods call site `index` reaches (cached)."""
        if index not in self._calls:
            self._calls[index] = Call([])  # (a site whose arguments need its own result)
            self._calls[index] = self._call(index)
        return self._calls[index]

    def _call(self, index: int) -> Call:
        ref, site = self.facts.references[index], self.sites[index]
        if site is None:
            return Call([])
        kind = site[0]
        if kind == "call":
            receiver, args = site[1], site[2]
            owners: Types = []
            if receiver is None:
                candidates = self.unqualified(ref.name, ref.scope)
            else:
                owners = self.type_of(receiver, ref.scope)
                if not owners:
                    return Call([]) if self.jdk_value(receiver) else self.guess(ref.name, len(args))
                candidates = [m for o in owners if o.kind not in ("package",)
                              for m in self.methods(_instance(o), ref.name)]
            return Call(self.applicable(candidates, args, ref.scope), owners=tuple(owners))
        if kind == "new":
            made = self.made(index)
            args = site[2]
            ctors = [m for t in made for m in self.methods(t, "<init>")]
            return Call(self.applicable(ctors, args, ref.scope), owners=tuple(made))
        if kind in ("super", "this"):
            classes = self.classes_around(ref.scope)
            if not classes:
                return Call([])
            owners = self.super_type("", ref.scope) if kind == "super" else [self.own_type(classes[0])]
            ctors = [m for t in owners if t.project for m in self.methods(_instance(t), "<init>")]
            return Call(self.applicable(ctors, site[1], ref.scope), owners=tuple(owners))
        return Call([])

    def reference(self, index: int) -> tuple[Types, list[Method]]:
        """What method reference `index` names: the types it makes (`Foo::new`) and the methods it
        calls or the constructors it makes them with."""
        ref, site = self.facts.references[index], self.sites[index]
        owners = [t for t in self.type_of(site[1], ref.scope) if t.kind != "package"]
        if ref.kind == "new":
            made = [_instance(t) for t in owners if t.project] or [
                t for t in [self.jtype(parse(ref.name), ref.scope)] if t is not None and t.project]
            return made, [m for t in made for m in self.methods(t, "<init>")]
        if not owners:
            return [], self.guess(ref.name, -1).methods
        return [], [m for o in owners for m in self.methods(_instance(o), ref.name)]

    def made(self, index: int) -> Types:
        """The types a `new` site constructs (an anonymous class: itself)."""
        ref, site = self.facts.references[index], self.sites[index]
        if site[3]:
            return [JType(self.fqn(site[3]), project=True)]
        written = parse(site[1])
        if written is None:
            return []
        if site[4] is not None:  # `outer.new Inner()`
            found = [JType(s.fqn, project=True) for o in self.type_of(site[4], ref.scope) if o.project
                     for s in self.types_among(self.members(o.name, written.name))]
            if found:
                return found
        t = self.jtype(written, ref.scope)
        if t is None:
            return []
        if not t.args and written.args == () and site[1].endswith("<>"):
            t = JType(t.name, (), t.dims, t.project)  # the diamond: arguments from the context (not modelled)
        return [t]

    def unqualified(self, name: str, scope: str) -> list[Method]:
        """A method called by its bare name: of the innermost class around that has one (inherited
        ones too), else imported statically."""
        for qual in self.classes_around(scope):
            found = self.methods(self.own_type(qual), name)
            if found:
                return found
        for imp in self.imports.get(name, ()):
            owner = self.import_module(imp).rpartition(".")[0]
            found = [m for t in self.static_owner(owner) for m in self.methods(t, name) if m.static]
            if found:
                return found
        for imp in self.wildcards:
            found = [m for t in self.static_owner(self.import_module(imp)) for m in self.methods(t, name) if m.static]
            if found:
                return found
        return []

    def static_owner(self, dotted: str) -> Types:
        syms = self.types_among(self.dotted_symbols(dotted))
        if syms:
            return [JType(syms[0].fqn, project=True)]
        return [JType(dotted)] if dotted in jdk().types else []

    def jdk_value(self, expr: list | None) -> bool:
        """Whether `expr` is what a method jdk.toml does not list gives on a value of a JDK type
        without type arguments (`sb.append(x)`, `s.codePoints().boxed()`): a JDK value, no project
        type (only a JDK type's type arguments or a static method's type variables make one); so is
        what a method gives on such a value."""
        if not expr or expr[0] != "c" or (site := self.sites[expr[1]]) is None or site[0] != "call":
            return False
        call = self.call(expr[1])
        if call.methods or call.unknown:
            return False
        if not call.owners:  # a method on a JDK value (`s.codePoints().boxed()`): a JDK value too
            return self.jdk_value(site[1])
        return all(not o.project and not o.args and not o.kind and not o.dims for o in call.owners)

    def guess(self, name: str, arity: int) -> Call:
        """A call on a receiver of unknown type: every project method of that name that takes as many
        arguments (any number: `arity` < 0) (Java is typed: the receiver is something; which, this
        resolution cannot tell)."""
        out = []
        for s in {s.fqn: s for s in self.same_language(self.view.named(name))}.values():
            home = self.peer(s) if s.kind == "method" else None
            if not isinstance(home, JavaFileResolver):
                continue
            for i, _ in home.declared(home.qualname_of(s.fqn)):
                m = home.method(i, {})
                if arity < 0 or len(m.params) == arity or (m.varargs and arity >= len(m.params) - 1):
                    out.append(m)
        return Call(out, unknown=True)

    def applicable(self, methods: list[Method], args: list, scope: str) -> list[Method]:
        """The methods a call with these arguments can reach (JLS 15.12.2, as far as the types are
        known): those that apply without boxing or varargs, else with boxing, else with varargs; of
        those, the most specific. Where the argument types rule out every one, all that fit by arity."""
        n = len(args)
        fixed = [m for m in methods if len(m.params) == n]
        variable = [m for m in methods if m.varargs and n >= len(m.params) - 1]
        if len(fixed) + len(variable) <= 1:
            return fixed or variable
        arg_types = [self.type_of(a, scope) for a in args]
        for candidates, boxing, spread in ((fixed, False, False), (fixed, True, False), (variable, True, True)):
            found = [m for m in candidates
                     if all(self.accepts(m.param(i, spread), t, boxing) for i, t in enumerate(arg_types))]
            if found:
                return [m for m in found if not any(o is not m and self.more_specific(o, m)
                                                    and not self.more_specific(m, o) for o in found)] or found
        return list(dict.fromkeys(fixed + variable))

    def more_specific(self, m1: Method, m2: Method) -> bool:
        if len(m1.params) != len(m2.params):
            return False
        return all(self.accepts(p2, [p1], boxing=False) for p1, p2 in zip(m1.params, m2.params, strict=True))

    def accepts(self, param: JType | None, arg: Types, boxing: bool = True) -> bool:
        """Whether an argument of one of the types `arg` may be passed for `param` ([]: not known, yes)."""
        if param is None or not arg or param.kind == "var" or not param.name:
            return True
        return any(self._accepts(param, a, boxing) for a in arg)

    def _accepts(self, param: JType, a: JType, boxing: bool) -> bool:
        if a.kind in ("lambda", "ref"):
            if param.primitive or param.name == STRING or param.dims:
                return False
            sam = self.sam(param)
            if a.kind == "lambda" and sam is not None:
                return len(sam.params) == a.note[0]
            return not (param.project and self.is_class(param))
        if a.kind == "var" or not a.name:
            return True
        if a.name == "null":
            return not param.primitive
        if param.dims != a.dims:
            return param.name == OBJECT and not param.dims
        if param.primitive:
            return assignable_primitive(param.name, a.name) if boxing or a.primitive else False
        if a.primitive:  # boxed: to its box, Object, Number, Comparable, ... never to a project type
            return boxing and not param.project and param.name != STRING and (
                param.name == BOXES.get(a.name) or param.name not in BOXES.values())
        if param.project and a.project:
            return self.subtype(a, param)
        if param.project:
            return a.name not in (STRING, *BOXES.values()) and a.name not in jdk().types
        if param.name == STRING:
            return a.name == STRING or not a.project
        return True

    def sam(self, t: JType) -> Method | None:
        """The single abstract method of a functional interface, its types seen from `t`."""
        if t.project:
            abstract: dict[str, Method] = {}
            for x, home, qual in self.project_hierarchy(t):
                if any(home.facts.definitions[i].kind != "interface" for i in home.indexes.get(qual, ())):
                    return None
                subst = home.type_arguments(qual, x.args)
                for i, d in enumerate(home.facts.definitions):
                    if d.qualname.rpartition(".")[0] == qual and d.kind == "method" and "a" in home.flags(i):
                        abstract.setdefault(d.name, home.method(i, subst))
            return next(iter(abstract.values())) if len(abstract) == 1 else None
        queue, visited = [t], set()
        while queue and len(visited) < MAX_DEPTH:
            x = queue.pop(0)
            entry = jdk().types.get(x.name)
            if entry is None or x.name in visited:
                continue
            visited.add(x.name)
            if entry.sam is not None:
                return next((m for m in self.own_methods(x, entry.sam.name) if len(m.params) == len(entry.sam.params)),
                            None)
            queue += self.supertypes_of(x)
        return None

    # results ---------------------------------------------------------------------------------------
    def site_result(self, index: int) -> Types:
        """The types of what call site `index` gives (a call's result, what `new` makes)."""
        site = self.sites[index] if index < len(self.sites) else None
        if site is None:
            return []
        if site[0] == "new":
            made = self.made(index)
            return [self.with_note(index, t) for t in made]
        if site[0] != "call":
            return []
        call = self.call(index)
        if (special := runtime.special_result(self, index, call)) is not None:
            return special
        out: Types = []
        for m in call.methods:
            if m.returns is None or m.returns.name == "void":
                continue
            inferred = self.inferred(m, site[2], self.facts.references[index].scope)
            t = substitute(m.returns, inferred)
            if (x := erased(t)) is not None and (x.name or x.kind):
                out.append(x)
        return _unique(out)

    def with_note(self, index: int, made: JType) -> JType:
        return runtime.made_note(self, index, made)

    def inferred(self, m: Method, args: list, scope: str, skip: int = -1) -> Substitution:
        """The method's own type variables, as the arguments bind them (`Optional.of(ledger)`: T =
        Ledger; `map(x -> x.total())`: R = what the lambda returns). `skip`: an argument left out
        (the lambda being typed, which needs this)."""
        if not m.tparams:
            return {}
        bound: Substitution = {}
        for i, arg in enumerate(args):
            param = m.param(i)
            if param is None or i == skip:
                continue
            if arg and arg[0] == "lam":
                self.bind_lambda(param, arg[1], bound, m.tparams, scope)
                continue
            if arg and arg[0] == "mr":
                self.bind_reference(param, arg[1], bound, m.tparams)
                continue
            for a in self.type_of(arg, scope):
                self.unify(param, a, bound, m.tparams)
        return bound

    def unify(self, param: JType, arg: JType, bound: Substitution, variables: tuple[str, ...]) -> None:
        if arg.kind in ("lambda", "ref", "package") or not arg.name:
            return
        if param.kind == "var":
            if param.name in variables and param.name not in bound:
                value = arg.value()
                if value.primitive:
                    value = JType(BOXES.get(value.name, value.name))
                bound[param.name] = JType(value.name, value.args, value.dims - param.dims, value.project) \
                    if value.dims >= param.dims else value
            return
        if not param.args:
            return
        seen = self.as_super(arg.value(), param.name)
        if seen is not None:
            for p, a in zip(param.args, seen.args, strict=False):
                self.unify(p, a, bound, variables)

    def bind_lambda(self, param: JType, lam: int, bound: Substitution, variables: tuple[str, ...], scope: str) -> None:
        """A lambda passed for a functional `param`: what its body returns binds the SAM's result."""
        sam = self.sam(param)
        result = self.lambdas[lam][2] if lam < len(self.lambdas) else None
        if sam is None or sam.returns is None or result is None:
            return
        for t in self.type_of(result, scope):
            self.unify(sam.returns, t, bound, variables)

    def bind_reference(self, param: JType, index: int, bound: Substitution, variables: tuple[str, ...]) -> None:
        """A method reference passed for a functional `param`: what its method returns (what a
        constructor reference makes) binds the SAM's result."""
        sam = self.sam(param)
        if sam is None or sam.returns is None or index < 0:
            return
        made, methods = self.reference(index)
        results = made or [x for m in methods if m.returns is not None and (x := erased(m.returns)) is not None]
        for t in results:
            self.unify(sam.returns, t, bound, variables)

    def lambda_param(self, lam: int, i: int, scope: str) -> Types:
        """An untyped lambda parameter: the SAM parameter of the type the lambda is given for."""
        key = ("lambda", lam, i)
        if key in self._busy or lam >= len(self.lambdas):
            return []
        self._busy.add(key)
        try:
            out = []
            for target in self.lambda_targets(lam, scope):
                sam = self.sam(target)
                if sam is not None and i < len(sam.params) and (t := erased(sam.params[i])) is not None:
                    out.append(t)
            return _unique(out)
        finally:
            self._busy.discard(key)

    def lambda_targets(self, lam: int, scope: str) -> Types:
        context = self.lambdas[lam][0]
        if context[0] == "a":
            site, position = context[1], context[2]
            call = self.call(site)
            out = []
            args = self.sites[site][2] if self.sites[site] and self.sites[site][0] in ("call", "new") else []
            for m in call.methods:
                param = m.param(position)
                if param is not None:
                    out.append(substitute(param, self.inferred(m, args, scope, skip=position)))
            return out
        if context[0] == "t":
            t = self.jtype(parse(context[1]), scope)
            return [t] if t is not None else []
        if context[0] == "r":
            d = self.facts.definitions[context[1]]
            t = self.jtype(parse(d.returns), d.qualname) if d.returns else None
            return [t] if t is not None else []
        return []

    # edges -----------------------------------------------------------------------------------------
    def edges(self) -> list[EdgeOut]:
        out: list[EdgeOut] = []
        linked = not calls_cut(self.facts)  # (a file too large to link its calls: its super types and imports)
        for index, ref in enumerate(self.facts.references):
            src = self.fqn(ref.scope)
            if ref.kind in ("inherits", "implements"):
                out += self.supertype_edges(src, ref)
            elif ref.kind in ("call", "new") and linked:
                out += runtime.site_edges(self, index, src, ref)
        return out + self.import_edges()

    def import_edges(self) -> list[EdgeOut]:
        """As the generic resolver's, and a static import of a field (`import static a.Checks.LIMIT`)
        imports from its class."""
        out = super().import_edges()
        done = {e.line for e in out}
        for imp in self.facts.imports:
            if imp.line in done or imp.wildcard or "." not in imp.module:
                continue
            owner = self.types_among(self.dotted_symbols(imp.module.rpartition(".")[0]))
            if owner:
                out.append(EdgeOut(self.fqn(imp.scope), owner[0].fqn, Relation.IMPORTS, Tier.INFERRED, imp.line,
                                   imp.name))
        return out

    def resolve_type(self, name: str, scope: str) -> list[SymbolInfo]:
        """As the generic resolver's, a qualified name first the project type of that full name
        (`a.b.Builder` in a class Builder of its own is not that class), a simple one also a member
        type the classes around inherit."""
        written = type_name(name)
        if "." in written and (found := self.types_among(self.view.symbols(written))):
            return found
        found = super().resolve_type(name, scope)
        if found or "." in written:
            return found
        # A member type the classes around inherit (`class Builder extends LVBuilder<...>` where a
        # super class of the enclosing class declares LVBuilder).
        key = (written, scope, "member type")
        if key in self._busy:  # (cyclic headers in broken code)
            return []
        self._busy.add(key)
        try:
            for cls in self.classes_around(scope):
                queue, visited = self.supertypes_of(self.own_type(cls)), set()
                while queue and len(visited) < MAX_DEPTH * 4:
                    t = queue.pop(0)
                    if not t.project or t.name in visited:
                        continue
                    visited.add(t.name)
                    if found := [m for m in self.types_among(self.view.members(t.name)) if m.name == written]:
                        return found
                    queue += self.supertypes_of(t)
            return []
        finally:
            self._busy.discard(key)

    def supertype_edges(self, src: str, ref: Reference) -> list[EdgeOut]:
        """`extends` / `implements` (an anonymous class's super type: by what it is)."""
        targets = self.resolve_type(ref.name, self.outer(ref.scope))
        relation = Relation.INHERITS if ref.kind == "inherits" else Relation.IMPLEMENTS
        own = [d for i in self.indexes.get(ref.scope, ()) if (d := self.facts.definitions[i])]
        if own and own[0].kind == "class" and targets and all(t.kind == "interface" for t in targets):
            relation = Relation.IMPLEMENTS
        return self.edges_to(src, targets, relation, ref)

    def targets(self, src: str, methods: list[Method], relation: str, ref: Reference, detail: str = "",
                tier: str | None = None) -> list[EdgeOut]:
        """Edges to the project's methods among `methods` (one: `inferred`, several: `ambiguous`)."""
        syms = {m.sym.fqn: m.sym for m in methods if m.sym is not None}
        edges = self.edges_to(src, list(syms.values()), relation, ref)
        if not detail and tier is None:
            return edges
        return [EdgeOut(e.src, e.dst, e.relation, tier or e.tier, e.line, e.name, detail or e.detail) for e in edges]

    @cached_property
    def own_classes(self) -> set[str]:
        return {self.fqn(d.qualname) for d in self.facts.definitions if d.kind in TYPE_KINDS}


def _instance(t: JType) -> JType:
    """The type whose members an expression of `t` reaches (the type itself for `Util.twice()`)."""
    return JType(t.name, t.args, t.dims, t.project) if t.kind in ("type", "super") else t


def _unique(types: Types) -> Types:
    seen: dict[str, JType] = {}
    for t in types:
        seen.setdefault(f"{t}{t.kind}{t.note}", t)
    return list(seen.values())
