"""The edges of each kind of Java call site, with the calls no call expression in the source spells:

- written by javac, and so in the class files too: a constructor's implicit `super()`, a for-each
  loop's `iterator()`, try-with-resources' `close()`;
- made by the JVM on the program's behalf (detail `jvm: ...`, so what-breaks can say so): a class's
  static initialiser on its first active use (`new`, a static method, a static field that is no
  constant, `Class.forName`), `run()` of the thread `Thread.start()` starts, serialization's
  `writeObject` / `writeReplace` / `writeExternal` and deserialization's `readObject` /
  `readResolve` / `readExternal` hooks, `finalize()` of what is allocated, `toString()` of what a
  string concatenation takes;
- through reflection and method handles whose class and name are constants (`Foo.class
  .getMethod("bar")`, `Class.forName("a.Foo")`, `lookup.findVirtual(Foo.class, "bar", type)`):
  `inferred`; where they are not, the call is `dynamic` (target unknown, recorded, never dropped);
- the override a virtual call on a local runs, where the class the local was made as (and never
  assigned again) decides it (`Base b = new Sub(); b.m()` reaches Sub.m, `inferred`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from tenure.namespace.tiers import Relation, Tier
from tenure.structural.facts import Reference
from tenure.structural.graph import ALLOCATION_DETAIL, JVM_DETAIL, REFLECTION_DETAIL
from tenure.structural.resolve import EdgeOut
from tenure.structural.resolve.java.types import Call, JType, Types, parse

if TYPE_CHECKING:
    from tenure.structural.resolve.java.resolver import JavaFileResolver

THREAD = "java.lang.Thread"
CLASS = "java.lang.Class"
METHOD = "java.lang.reflect.Method"
CONSTRUCTOR = "java.lang.reflect.Constructor"
METHOD_HANDLE = "java.lang.invoke.MethodHandle"
LOOKUP = "java.lang.invoke.MethodHandles.Lookup"
# Hooks serialization calls on each serializable class of an object's hierarchy: (name, arity).
WRITE_HOOKS = (("writeObject", 1), ("writeReplace", 0), ("writeExternal", 1))
READ_HOOKS = (("readObject", 1), ("readResolve", 0), ("readObjectNoData", 0), ("readExternal", 1))
IMPLICIT = {"iter": ("iterator", "for-each calls iterator()"),
            "close": ("close", "try-with-resources calls close()"),
            "str": ("toString", f"{JVM_DETAIL}string concatenation calls toString()")}
INVOKERS = {METHOD: ("invoke",), METHOD_HANDLE: ("invoke", "invokeExact", "invokeWithArguments")}


def site_edges(r: JavaFileResolver, index: int, src: str, ref: Reference) -> list[EdgeOut]:
    site = r.sites[index] if index < len(r.sites) else None
    if site is None:
        return []
    kind = site[0]
    if kind == "call":
        return _call_edges(r, index, src, ref)
    if kind == "new":
        return _new_edges(r, index, src, ref)
    if kind == "ref":
        return _reference_edges(r, index, src, ref)
    if kind in ("super", "this"):
        detail = "implicit super()" if len(site) > 2 else ""
        return r.targets(src, r.call(index).methods, Relation.CALLS, ref, detail)
    if kind in IMPLICIT:
        name, detail = IMPLICIT[kind]
        methods = [m for t in r.type_of(site[1], ref.scope) if not t.kind
                   for m in r.methods(t, name) if not m.params]
        return r.targets(src, methods, Relation.CALLS, ref, detail)
    if kind == "static":
        return [e for t in r.type_of(site[1], ref.scope) if t.kind == "type" and t.project
                for e in _static_field(r, t, src, ref)]
    return []


# calls ---------------------------------------------------------------------------------------------
def _call_edges(r: JavaFileResolver, index: int, src: str, ref: Reference) -> list[EdgeOut]:
    call = r.call(index)
    out = _allocated_dispatch(r, index, call, src, ref, r.targets(src, call.methods, Relation.CALLS, ref))
    for m in call.methods:
        if m.static and m.sym is not None:
            out += static_initialisers(r, m.owner, src, ref)
    args = r.sites[index][2]
    owners = call.owners
    if ref.name == "start" and not args:
        out += _thread_runs(r, owners, src, ref)
    elif ref.name == "addShutdownHook" and len(args) == 1:
        out += _thread_runs(r, tuple(r.type_of(args[0], ref.scope)), src, ref)
    elif ref.name == "writeObject" and len(args) == 1 and _any_is(r, owners, "java.io.ObjectOutputStream"):
        out += _hooks(r, r.type_of(args[0], ref.scope), WRITE_HOOKS, src, ref, f"{JVM_DETAIL}serialization calls ")
    elif ref.name == "readObject" and not args and _any_is(r, owners, "java.io.ObjectInputStream"):
        cast = r.jtype(parse(r.sites[index][3]), ref.scope) if r.sites[index][3] else None  # `(Foo) in.readObject()`
        read = [cast] if cast is not None else []
        out += _hooks(r, read, READ_HOOKS, src, ref, f"{JVM_DETAIL}deserialization calls ")
    out += _reflective(r, call, index, src, ref)
    return out


def _allocated_dispatch(r: JavaFileResolver, index: int, call: Call, src: str, ref: Reference,
                        named: list[EdgeOut]) -> list[EdgeOut]:
    """`Base b = new Sub(); b.m()`: the class a local was made as (and never assigned again)
    decides which override runs. Its method is the call's target beside the one the call names (a
    JDK interface's included); the named one, when it is that method, says so (detail)."""
    if not call.methods or any(m.static for m in call.methods):
        return named
    out = list(named)
    for owner in call.owners:
        note = owner.note
        made = note[1] if note and note[0] == "runtime" and len(note) > 2 and note[2] else None
        if not isinstance(made, JType):
            continue
        runs = r.applicable(r.methods(made, ref.name), r.sites[index][2], ref.scope)[:1]
        if not runs or runs[0].sym is None:
            continue
        detail = f"{ALLOCATION_DETAIL}new {made.name}"
        fqn = runs[0].sym.fqn
        if any(e.dst == fqn for e in out):
            out = [msgspec.structs.replace(e, detail=detail) if e.dst == fqn else e for e in out]
        else:
            out += r.targets(src, runs, Relation.CALLS, ref, detail)
    return out


def _any_is(r: JavaFileResolver, owners: tuple[JType, ...], name: str) -> bool:
    return any(r.as_super(o.value(), name) is not None for o in owners)


def _new_edges(r: JavaFileResolver, index: int, src: str, ref: Reference) -> list[EdgeOut]:
    made = [t for t in r.made(index) if t.project]
    out = r.edges_to(src, [s for t in made for s in r.types_among(r.view.symbols(t.name))], Relation.INSTANTIATES, ref)
    out += r.targets(src, r.call(index).methods, Relation.CALLS, ref)
    for t in made:
        out += static_initialisers(r, t.name, src, ref)
        finalizers = [m for m in r.methods(t, "finalize") if not m.params]
        out += r.targets(src, finalizers, Relation.CALLS, ref, f"{JVM_DETAIL}the garbage collector calls finalize()")
    return out


def _reference_edges(r: JavaFileResolver, index: int, src: str, ref: Reference) -> list[EdgeOut]:
    """`Foo::bar`, `this::bar`, `gateway::charge` call bar (any of its overloads: the functional
    type they are given for picks one); `Foo::new` makes a Foo."""
    made, methods = r.reference(index)
    if ref.kind == "new":
        types = [s for t in made for s in r.types_among(r.view.symbols(t.name))]
        return (r.edges_to(src, types, Relation.INSTANTIATES, ref)
                + r.targets(src, methods, Relation.CALLS, ref, "constructor reference"))
    return r.targets(src, methods, Relation.CALLS, ref, "method reference")


# the JVM's calls -----------------------------------------------------------------------------------
def static_initialisers(r: JavaFileResolver, cls: str, src: str, ref: Reference) -> list[EdgeOut]:
    """The first active use of a class runs its static initialiser (and its super classes' before):
    an edge to the class, which stands for its initialisation code, where it has some (a static
    block, a static field made by a call, an enum's constants). Code of the class itself, or of a
    class it encloses, runs after that already."""
    around = {c for q in r.classes_around(r.qualname_of(src) if src.startswith(r.prefix) else "")
              for c in _class_chain(r, r.fqn(q))}
    out = []
    for c in _class_chain(r, cls):
        if c in around or c == src or "i" not in r.type_flags(c):
            continue
        out.append(EdgeOut(src, c, Relation.CALLS, Tier.INFERRED, ref.line, ref.name,
                           f"{JVM_DETAIL}static initialiser of {c.rpartition('.')[2]} (first use)"))
    return out


def _class_chain(r: JavaFileResolver, cls: str) -> list[str]:
    """The class and its project super classes, nearest first."""
    out = [cls]
    t = JType(cls, project=True)
    while len(out) < 16:
        supers = [s for s in r.supertypes_of(t) if s.project and r.is_class(s)]
        if not supers or supers[0].name in out:
            return out
        t = supers[0]
        out.append(t.name)
    return out


def _static_field(r: JavaFileResolver, owner: JType, src: str, ref: Reference) -> list[EdgeOut]:
    """`Config.LIMIT` initialises the class that declares LIMIT, unless LIMIT is a constant."""
    for cls in _class_chain(r, owner.name):
        home = r.home(cls)
        if home is None:
            continue
        qual = home.qualname_of(cls)
        if home.local_binding(qual, ref.name, None) is None:
            continue
        constants = {c for i in home.indexes.get(qual, ()) for c in (home.defs[i] or [[]] * 4)[3]}
        return [] if ref.name in constants else static_initialisers(r, cls, src, ref)
    return []


def _thread_runs(r: JavaFileResolver, threads: tuple[JType, ...] | Types, src: str, ref: Reference) -> list[EdgeOut]:
    """`t.start()`: the new thread runs `run()` of t's class, or of the Runnable it was made with."""
    runnables: list[JType] = []
    for t in threads:
        runtime = next((n[1] for n in [t.note] if n and n[0] == "runtime"), None)
        for x in (runtime, t.value()):
            if x is not None and x.project and r.as_super(x, THREAD) is not None:
                runnables.append(x)
                break
        else:
            if t.note and t.note[0] == "runs":
                runnables += t.note[1]
    methods = [m for x in runnables for m in r.methods(x, "run") if not m.params and m.sym is not None]
    return r.targets(src, methods, Relation.CALLS, ref, f"{JVM_DETAIL}Thread.start() runs run()")


def _hooks(r: JavaFileResolver, values: Types, hooks: tuple[tuple[str, int], ...], src: str, ref: Reference,
           detail: str) -> list[EdgeOut]:
    """The hooks each class of the values' hierarchy declares (serialization calls all of them)."""
    out = []
    for t in values:
        if not t.project:
            continue
        for cls in _class_chain(r, t.name):
            for name, arity in hooks:
                own = [m for m in r.own_methods(JType(cls, project=True), name) if len(m.params) == arity]
                out += r.targets(src, own, Relation.CALLS, ref, f"{detail}{name}()")
    return out


def made_note(r: JavaFileResolver, index: int, made: JType) -> JType:
    """`new Thread(worker)`: the thread notes the Runnable it will run."""
    if made.name != THREAD:
        return made
    args = r.sites[index][2]
    scope = r.facts.references[index].scope
    runs = [a.value() for arg in args for a in r.type_of(arg, scope)
            if a.project and r.as_super(a.value(), "java.lang.Runnable") is not None]
    return made.noting("runs", tuple(runs)) if runs else made


# reflection ----------------------------------------------------------------------------------------
def special_result(r: JavaFileResolver, index: int, call: Call) -> Types | None:
    """What reflection gives, where constants name it: `getClass()`, `Class.forName("a.Foo")`,
    `getMethod("bar")`, `lookup.findVirtual(Foo.class, "bar", type)`; None for any other call."""
    ref, site = r.facts.references[index], r.sites[index]
    args, scope = site[2], ref.scope
    owners = [o.value() for o in call.owners]
    if ref.name == "getClass" and not args and owners and not any(o.name == CLASS for o in owners):
        return [JType(CLASS, (o,)) for o in owners]
    if ref.name == "forName" and args and any(o.name == CLASS for o in call.owners):
        named = _class_named(r, _constant(r, args[0], scope))
        return [JType(CLASS, (named,) if named is not None else ())]
    if ref.name in ("getMethod", "getDeclaredMethod") and args:
        classes = [o.args[0] for o in owners if o.name == CLASS and o.args]
        name = _constant(r, args[0], scope)
        return [JType(METHOD).noting("method", c, name) for c in classes if name] or [JType(METHOD)]
    if ref.name in ("findVirtual", "findStatic", "findSpecial", "findConstructor") and any(
            o.name == LOOKUP for o in owners):
        classes = [t.args[0] for t in r.type_of(args[0], scope) if t.name == CLASS and t.args] if args else []
        if ref.name == "findConstructor":
            return [JType(METHOD_HANDLE).noting("ctor", c) for c in classes] or [JType(METHOD_HANDLE)]
        name = _constant(r, args[1], scope) if len(args) > 1 else ""
        return [JType(METHOD_HANDLE).noting("method", c, name) for c in classes if name] or [JType(METHOD_HANDLE)]
    if ref.name in ("unreflect", "bindTo") and args:
        source = r.type_of(args[0], scope) if ref.name == "unreflect" else list(call.owners)
        return [JType(METHOD_HANDLE).noting(*t.note) for t in source if t.note] or [JType(METHOD_HANDLE)]
    return None


def _reflective(r: JavaFileResolver, call: Call, index: int, src: str, ref: Reference) -> list[EdgeOut]:
    """A reflective call: to the target its constants name (`inferred`), else `dynamic`."""
    owners = [o for o in call.owners if not o.kind]
    args = r.sites[index][2]
    if ref.name == "forName" and any(o.name == CLASS for o in call.owners):
        named = _class_named(r, _constant(r, args[0], ref.scope)) if args else None
        return static_initialisers(r, named.name, src, ref) if named is not None and named.project else []
    invoked = [o for o in owners if ref.name in INVOKERS.get(o.name, ())]
    made = [o for o in owners if ref.name == "newInstance" and o.name in (CLASS, CONSTRUCTOR)]
    if not invoked and not made:
        return []
    out: list[EdgeOut] = []
    unknown = False
    for o in invoked:
        if o.note and o.note[0] == "method" and o.note[1].project:
            methods = r.methods(o.note[1], o.note[2])
            out += r.targets(src, methods, Relation.CALLS, ref, f"{REFLECTION_DETAIL}{o.note[2]} named by a constant")
            if any(m.static for m in methods):  # invoking a static method initialises its class
                out += static_initialisers(r, o.note[1].name, src, ref)
        elif o.note and o.note[0] == "ctor" and o.note[1].project:
            out += _constructed(r, o.note[1], src, ref)
        else:
            unknown = True
    for o in made:
        if o.args and o.args[0].project:
            out += _constructed(r, o.args[0], src, ref)
        else:
            unknown = True
    if unknown or not out:
        out.append(EdgeOut(src, None, Relation.CALLS, Tier.DYNAMIC, ref.line, ref.name,
                           f"{REFLECTION_DETAIL}{owners[0].name.rpartition('.')[2]}.{ref.name}"))
    return out


def _constructed(r: JavaFileResolver, t: JType, src: str, ref: Reference) -> list[EdgeOut]:
    detail = f"{REFLECTION_DETAIL}constructor named by a constant"
    types = r.types_among(r.view.symbols(t.name))
    made = [EdgeOut(e.src, e.dst, e.relation, e.tier, e.line, e.name, detail)
            for e in r.edges_to(src, types, Relation.INSTANTIATES, ref)]
    return (made + r.targets(src, r.methods(JType(t.name, project=True), "<init>"), Relation.CALLS, ref, detail)
            + static_initialisers(r, t.name, src, ref))


def _constant(r: JavaFileResolver, expr: list, scope: str) -> str:
    for t in r.type_of(expr, scope):
        if t.note and t.note[0] == "const":
            return t.note[1]
    return ""


def _class_named(r: JavaFileResolver, binary_name: str) -> JType | None:
    """The project class `Class.forName` names (`a.b.Outer$Inner` is javac's name, as tenure's)."""
    if not binary_name:
        return None
    syms = r.types_among(r.view.symbols(binary_name))
    return JType(syms[0].fqn, project=True) if syms else JType(binary_name)
