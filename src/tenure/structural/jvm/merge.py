"""Bytecode -> the code graph, under the names the Java tree-sitter pass uses.

javac resolved every call it emitted, so each invoke is a `resolved` edge (source `bytecode`) from
the method that contains it (lambda bodies, local and anonymous classes count as their enclosing
method) to the method that declares the target. A call that tree-sitter also saw confirms its
edge (same src, dst, relation and line; a chained call javac places a few lines lower takes
tree-sitter's line, else line 0). Where javac compiled a call of that name on that line to other
targets, tree-sitter's guess is refuted — only from class files newer than their source. javac's
owner method is what a virtual or interface call resolves to; the overrides it may run instead are
`ambiguous` dispatch candidates unless something decides them (DI wiring; the class the source made
the receiver as; the program's instantiations: dispatch.py), and then the edge names what decided
it. Reflective calls are `dynamic`. Classes and methods that exist only in bytecode are symbols of
their origin, marked `generated` when a build produced them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import msgspec

from tenure.namespace.tiers import Relation, Tier
from tenure.structural.graph import DISPATCH_DETAIL
from tenure.structural.jvm.classfile import ACC_BRIDGE, ACC_SYNTHETIC, INVOKE_OPCODES
from tenure.structural.jvm.discover import Origin
from tenure.structural.jvm.dispatch import Instantiation
from tenure.structural.jvm.model import ClassModel, MethodModel, Site
from tenure.structural.jvm.project import Hierarchy, SourceSide
from tenure.structural.resolve import MAX_CANDIDATES, SymbolInfo
from tenure.structural.store import SourceEdge

SOURCE = "bytecode"
JAVA = "java"
VIRTUAL = {"invokevirtual", "invokeinterface"}
INVOKE_KINDS = frozenset(INVOKE_OPCODES.values())
MAX_SYNTHETIC_DEPTH = 3  # synthetic methods calling synthetic methods: followed this deep
# Reflection: (class, method) -> True for a lookup by name (its constant names what a later call
# reaches; looking a method up runs nothing), False for a call of code the class file does not name
# (a dynamic site, unless the source named its target by constants).
REFLECTION = {
    ("java.lang.reflect.Method", "invoke"): False,
    ("java.lang.reflect.Constructor", "newInstance"): False,
    ("java.lang.Class", "newInstance"): False,
    ("java.lang.invoke.MethodHandle", "invoke"): False,
    ("java.lang.invoke.MethodHandle", "invokeExact"): False,
    ("java.lang.invoke.MethodHandle", "invokeWithArguments"): False,
    ("java.lang.Class", "forName"): True,  # (its static initialiser: the source's jvm: edge where named)
    ("java.lang.Class", "getMethod"): True,
    ("java.lang.Class", "getDeclaredMethod"): True,
    ("java.lang.ClassLoader", "loadClass"): True,
}
METHOD_LOOKUPS = frozenset({"getMethod", "getDeclaredMethod"})
METHOD_INVOKE = ("java.lang.reflect.Method", "invoke")
# Members the compiler writes into every enum or record: part of the language, not generated code.
IMPLICIT_MEMBERS = {"enum": {"values", "valueOf", "$values"},
                    "record": {"equals", "hashCode", "toString"}}
GENERATED_MARKERS = ("$$",)  # CGLIB / ByteBuddy proxies: Foo$$SpringCGLIB$$0, Foo$$EnhancerBySpringCGLIB$$1a2b
# javac puts a chained call on the line of its `.name(`; tree-sitter on the line its expression starts.
CHAIN_LINES = 5


@dataclass(frozen=True)
class CallSite:
    """A resolved virtual or interface call: where DI wiring may decide the implementation."""

    src: str
    path: str
    caller_class: str
    owner: str  # the static receiver type javac recorded
    dst: str  # the declaring method
    name: str
    line: int  # as stored (aligned with tree-sitter's line)


@dataclass
class BytecodeGraph:
    edges: dict[str, list[SourceEdge]] = field(default_factory=lambda: defaultdict(list))  # origin -> edges
    symbols: dict[tuple[str, bool], list[SymbolInfo]] = field(default_factory=lambda: defaultdict(list))
    virtual_sites: list[CallSite] = field(default_factory=list)
    classes: int = 0
    methods: int = 0
    stale_classes: int = 0  # class files older than their source: they confirm, never refute


class _Reflection:
    """One method's reflective calls and what each may reach (graph.dynamic_sites): Method.invoke a
    method it looked up by a constant name before (`getMethod("charge")`: `*.charge`), every other
    call anything (""); one dynamic site per line."""

    def __init__(self) -> None:
        self.methods: list[str] = []  # names looked up, "*" for one computed
        self.calls: dict[int, tuple[str, str]] = {}  # line -> (detail, reach)

    def add(self, site: Site, lookup: bool) -> None:
        if lookup:
            if site.name in METHOD_LOOKUPS:
                self.methods.append(site.constant or "*")
            return
        named = (site.owner, site.name) == METHOD_INVOKE and self.methods and "*" not in self.methods
        reach = " ".join(sorted({f"*.{m}" for m in self.methods})) if named else ""
        held = self.calls.get(site.line)
        if held is not None and held[1] != reach:
            reach = ""  # two reflective calls on a line that may reach different things: anything
        self.calls[site.line] = (held[0] if held else f"reflection: {site.owner}.{site.name}", reach)


def build_graph(classes: list[tuple[Origin, ClassModel]], hierarchy: Hierarchy,
                decided: set[tuple[str, str]], instantiation: Instantiation | None = None) -> BytecodeGraph:
    """All edges and symbols of the project's bytecode. `decided`: (caller class, receiver type)
    pairs whose implementation DI wiring picks: no dispatch candidates for them. `instantiation`:
    what the program creates (an open world when not given)."""
    graph = BytecodeGraph()
    builder = _Builder(hierarchy, hierarchy.source, graph, decided,
                       instantiation or Instantiation(open_because="not known"))
    for origin, cls in classes:
        builder.add_class(origin, cls)
    builder.refute_guesses()
    return graph


class _Builder:
    def __init__(self, hierarchy: Hierarchy, source: SourceSide, graph: BytecodeGraph,
                 decided: set[tuple[str, str]], instantiation: Instantiation) -> None:
        self.h, self.source, self.graph, self.decided = hierarchy, source, graph, decided
        self.instantiation = instantiation
        self._attributed: dict[str, str | None] = {}
        # (src, line) -> (origin, {called name: what javac compiled it to}), from up-to-date class files
        self._compiled: dict[tuple[str, int], tuple[str, dict[str, set[str]]]] = {}
        self._fresh = False

    # symbols ---------------------------------------------------------------------------------------
    def add_class(self, origin: Origin, cls: ClassModel) -> None:
        self.graph.classes += 1
        self.graph.methods += len(cls.methods)
        where = self._attribution(cls)
        if where is None:  # no source of its own: a symbol of its origin
            self._add_class_symbols(origin, cls)
        elif where == cls.name:
            self._add_missing_members(origin, cls)
        if where in (None, cls.name):
            self._add_supertype_edges(origin, cls)
        self._fresh = where is not None and self._up_to_date(origin, cls, where)
        for method in cls.methods:
            if method.access & ACC_BRIDGE or (method.access & ACC_SYNTHETIC and not method.name.startswith("lambda$")):
                continue  # bridges and accessors forward to real methods, whose edges are counted
            reflections: dict[str, _Reflection] = {}  # by caller: a field initialiser's sites are the class's
            for site in method.sites:
                src = where if where not in (None, cls.name) else self._method_fqn(cls, method, site.line)
                self._add_site(origin, cls, src, site, reflections.setdefault(src, _Reflection()))
            for src, reflection in reflections.items():
                path = self.source.path_of(src) or self.source.path_of(cls.name) or cls.path
                for line, (detail, reach) in sorted(reflection.calls.items()):
                    self._edge(origin, src, None, Relation.CALLS, path, line, Tier.DYNAMIC, name=reach, detail=detail)

    def _up_to_date(self, origin: Origin, cls: ClassModel, where: str) -> bool:
        """Compiled after its source was last indexed: what javac says about each line holds."""
        source_mtime = self.source.mtimes.get(self.source.path_of(where))
        if origin.kind != "classes" or source_mtime is None:
            return False
        try:
            fresh = (origin.path / cls.path[len(origin.name) + 1:]).stat().st_mtime_ns >= source_mtime
        except OSError:
            fresh = False
        self.graph.stale_classes += not fresh
        return fresh

    def _attribution(self, cls: ClassModel) -> str | None:
        """Whose code this class's methods are: itself (it has source), its enclosing method or class
        (a local or anonymous class of source code, however deeply nested), or None (only bytecode knows it)."""
        if cls.name not in self._attributed:
            self._attributed[cls.name] = self._find_attribution(cls)
        return self._attributed[cls.name]

    def _find_attribution(self, cls: ClassModel) -> str | None:
        if self.source.is_type(cls.name):
            return cls.name
        if any(m in cls.name for m in GENERATED_MARKERS):
            return None
        owner, method = cls.enclosing or (cls.outer, None)
        if owner is None:
            return None
        if self.source.is_type(owner):
            return self._named_member(owner, method) if method else owner
        around = self.h.classes.get(owner)
        return self._attribution(around) if around is not None and around.name != cls.name else None

    def _generated(self, origin: Origin, cls: ClassModel) -> bool:
        return origin.generated_home or any(m in cls.name for m in GENERATED_MARKERS)

    def _add_class_symbols(self, origin: Origin, cls: ClassModel) -> None:
        generated = self._generated(origin, cls)
        parent = cls.outer or cls.package
        symbols = self.graph.symbols[(origin.name, generated)]
        lines = [m.line for m in cls.methods if m.line]
        symbols.append(SymbolInfo(cls.name, _simple(cls.name), cls.kind, JAVA, cls.path, min(lines, default=0),
                                  parent, cls.package, tuple(self.h.supers(cls.name))))
        for method in self._own_methods(cls):
            symbols.append(SymbolInfo(f"{cls.name}.{method.name}", method.name, "method", JAVA, cls.path, method.line,
                                      cls.name, cls.package))

    def _add_missing_members(self, origin: Origin, cls: ClassModel) -> None:
        """Methods a processor added to a source class (Lombok's getters, …): generated symbols."""
        implicit = IMPLICIT_MEMBERS.get("enum" if cls.kind == "enum" else
                                        "record" if cls.super_name == "java.lang.Record" else "", set())
        declared = self.source.members.get(cls.name, set())
        fields = {f.name for f in cls.fields}
        for method in self._own_methods(cls):
            if method.name in declared or method.name in implicit or method.name in fields:
                continue  # a record's accessors share their component's name
            self.graph.symbols[(origin.name, True)].append(SymbolInfo(
                f"{cls.name}.{method.name}", method.name, "method", JAVA, self.source.path_of(cls.name) or cls.path,
                method.line, cls.name, cls.package))

    @staticmethod
    def _own_methods(cls: ClassModel) -> Iterable[MethodModel]:
        seen: set[str] = set()
        for m in cls.methods:
            if m.name in ("<init>", "<clinit>") or m.access & (ACC_SYNTHETIC | ACC_BRIDGE) or m.name in seen:
                continue
            seen.add(m.name)  # overloads share one name: no parameter types in names
            yield m

    # edges -----------------------------------------------------------------------------------------
    def _add_supertype_edges(self, origin: Origin, cls: ClassModel) -> None:
        path = self.source.path_of(cls.name) or cls.path
        supers = [(cls.super_name, Relation.INHERITS)] + [
            (i, Relation.INHERITS if cls.is_interface else Relation.IMPLEMENTS) for i in cls.interfaces]
        for sup, relation in supers:
            if sup and self.h.known(sup):
                self._edge(origin, cls.name, sup, relation, path, 0, detail="")

    def _method_fqn(self, cls: ClassModel, method: MethodModel, line: int) -> str:
        """Whose code a site on `line` of the method is. A constructor's code holds the field
        initialisers too (javac copies them into each constructor), which tree-sitter gives the class:
        so a site is the constructor's only on a line of the constructor's."""
        if method.name.startswith("lambda$"):  # lambda$<enclosing method>$<n>: the body is its enclosing method's code
            return self._named_member(cls.name, method.name.split("$")[1], line)
        if method.name in ("<init>", "<clinit>"):
            return self._named_member(cls.name, method.name, line)
        return f"{cls.name}.{method.name}"

    def _named_member(self, cls: str, method: str, line: int = 0) -> str:
        """A method by its bytecode name, as tree-sitter names it: constructors after the class,
        initialisers and field initialisers (code outside any constructor's lines) as the class."""
        if method in ("<init>", "new"):
            ctor = f"{cls}.{_simple(cls)}"
            spans = self.source.spans.get(ctor, [])
            if spans and (not line or any(start <= line <= end for _, _, start, end in spans)):
                return ctor
            return cls
        if method in ("<clinit>", "static"):
            return cls
        return f"{cls}.{method}"

    def _add_site(self, origin: Origin, cls: ClassModel, src: str, site: Site, reflection: _Reflection,
                  depth: int = 0) -> None:
        path = self.source.path_of(src) or self.source.path_of(cls.name) or cls.path
        lookup = REFLECTION.get((site.owner, site.name))
        if lookup is not None and site.kind != "methodref":
            if (src, site.line) not in self.source.reflective:  # else the source named the target by constants
                reflection.add(site, lookup)
            return
        if site.kind == "class":
            return
        if not self.h.known(site.owner):
            if site.kind != "new":  # a JDK or library call: no edge (tree-sitter gives none either), but a
                # project method tree-sitter guessed for this name on this line is ruled out
                name = _simple(site.owner) if site.name == "<init>" else site.name
                self._compiled_to(origin, src, site.line, name, {f"{site.owner}.{site.name}"})
                for dst, detail in self.source.allocated.get((src, site.line), {}).items():
                    if dst.rpartition(".")[2] == site.name:  # `Runnable r = new Task(); r.run()`: Task.run
                        self._edge(origin, src, dst, Relation.CALLS, path, site.line, Tier.INFERRED, site.name, detail)
            return
        if site.kind == "new":
            self._edge(origin, src, site.owner, Relation.INSTANTIATES, path, site.line, name=_simple(site.owner))
            return
        if site.name == "<init>":
            if site.kind == "methodref" and site.fresh:  # Foo::new
                self._edge(origin, src, site.owner, Relation.INSTANTIATES, path, site.line, name=_simple(site.owner),
                           detail="constructor reference")
            ctor = f"{site.owner}.{_simple(site.owner)}"
            if ctor in self.source.spans:
                self._edge(origin, src, ctor, Relation.CALLS, path, site.line, name=_simple(site.owner))
                self._compiled_to(origin, src, site.line, _simple(site.owner), {ctor})
            return
        if site.kind == "methodref" and site.owner == cls.name and site.name.startswith("lambda$"):
            return  # a lambda body: its calls are already its enclosing method's
        declaring = self.h.declaring(site.owner, site.name, site.descriptor)
        if declaring is None:
            return
        if (synthetic := self._synthetic(declaring, site)) is not None:
            # compiler plumbing (`Outer.super.m()` from an inner class calls an `access$001` that calls
            # m; an enum's `$values()`): a call of what it calls
            if depth < MAX_SYNTHETIC_DEPTH:
                for inner in synthetic.sites:
                    if inner.kind in INVOKE_KINDS:
                        self._add_site(origin, cls, src, msgspec.structs.replace(inner, line=site.line), reflection,
                                       depth + 1)
            return
        dst = f"{declaring}.{site.name}"
        detail = "method reference" if site.kind == "methodref" else ""
        line = self._edge(origin, src, dst, Relation.CALLS, path, site.line, name=site.name, detail=detail)
        if site.kind not in VIRTUAL and site.kind != "methodref":
            self._compiled_to(origin, src, site.line, site.name, {dst})
            return
        self.graph.virtual_sites.append(CallSite(src, path, cls.name, site.owner, dst, site.name, line))
        impls = [i for i in self.h.implementations(site.owner, site.name, site.descriptor) if i != dst]
        self._compiled_to(origin, src, site.line, site.name, {dst, *impls})
        if impls and (cls.name, site.owner) not in self.decided:
            self._dispatch(origin, src, path, site, dst, line, impls)

    def _dispatch(self, origin: Origin, src: str, path: str, site: Site, dst: str, line: int,
                  impls: list[str]) -> None:
        """The overrides a virtual call may run: decided by the source's allocation or by what the
        program creates (an `inferred` edge saying so), else its candidates."""
        allocated = self.source.allocated.get((src, line), {})
        if dst in allocated:
            return  # the object is of the named method's own class
        if decided := [i for i in impls if i in allocated]:
            for impl in decided:  # (confirms tree-sitter's edge, with its reason)
                self._edge(origin, src, impl, Relation.CALLS, path, line, Tier.INFERRED, site.name, allocated[impl])
            return
        runs, decision = self.instantiation.decide(self.h, site.owner, dst, impls, site.descriptor)
        if decision:
            self._edge(origin, src, runs[0], Relation.CALLS, path, line, Tier.INFERRED, site.name, decision)
        elif runs:
            self._dispatch_candidates(origin, src, path, site, dst, line, runs)

    def _synthetic(self, declaring: str, site: Site) -> MethodModel | None:
        cls = self.h.classes.get(declaring)
        if cls is None or site.name.startswith("lambda$"):
            return None
        return next((m for m in cls.methods if m.name == site.name and m.descriptor == site.descriptor
                     and m.access & ACC_SYNTHETIC), None)

    def _compiled_to(self, origin: Origin, src: str, line: int, name: str, targets: set[str]) -> None:
        if self._fresh and line:
            entry = self._compiled.setdefault((src, line), (origin.name, {}))
            entry[1].setdefault(name, set()).update(targets)

    def refute_guesses(self) -> None:
        """A tree-sitter call edge whose line javac compiled a call of that name to other targets is ruled out."""
        for (src, dst, relation), lines in self.source.edge_lines.items():
            if relation != Relation.CALLS:
                continue
            name = dst.rpartition(".")[2]
            for line in lines:
                if (src, dst, line) in self.source.run_time or dst in self.source.allocated.get((src, line), ()):
                    continue  # a call the JVM makes, or the override the allocation decides: no instruction names it
                origin, compiled = self._compiled.get((src, line), ("", {}))
                targets = compiled.get(name)
                if targets and dst not in targets:
                    self.graph.edges[origin].append(SourceEdge(
                        src=src, dst=dst, relation=relation, tier=Tier.RESOLVED, verdict="refutes", line=line,
                        path=self.source.path_of(src), name=name,
                        detail=f"javac compiled this call to {', '.join(sorted(targets))}"))

    def _dispatch_candidates(self, origin: Origin, src: str, path: str, site: Site, dst: str, line: int,
                             impls: list[str]) -> None:
        detail = f"{DISPATCH_DETAIL}{dst}"
        if len(impls) > MAX_CANDIDATES:
            self._edge(origin, src, None, Relation.CALLS, path, line, Tier.AMBIGUOUS, name=site.name, detail=detail)
            return
        declared, _, name = dst.rpartition(".")
        # one possible body (an interface's only implementation, no lambda making one) is a single
        # unverified target
        several = len(impls) + self.h.is_concrete(declared, name) > 1 or self.instantiation.made_by_lambda(
            self.h, site.owner)
        tier = Tier.AMBIGUOUS if several else Tier.INFERRED
        for impl in impls:
            self._edge(origin, src, impl, Relation.CALLS, path, line, tier, name=site.name, detail=detail)

    def _edge(self, origin: Origin, src: str, dst: str | None, relation: str, path: str, line: int,
              tier: str = Tier.RESOLVED, name: str = "", detail: str = "") -> int:
        """Add one edge; returns the line it is stored on, aligned with tree-sitter's (see the module doc)."""
        if dst is not None and (src, line, dst.rpartition(".")[2]) not in self.source.called_on:
            # (a call tree-sitter saw on javac's very line is that call: an override it may run too)
            lines = self.source.edge_lines.get((src, dst, relation))
            if lines and line not in lines:
                above = [ln for ln in lines if line - CHAIN_LINES <= ln < line]
                line = max(above) if above else 0
        self.graph.edges[origin.name].append(SourceEdge(src=src, dst=dst, relation=relation, tier=tier, path=path,
                                                        line=line, name=name, detail=detail))
        return line


def _simple(name: str) -> str:
    """javac's simple name: `Inner` of `Outer$Inner`, `Local` of a local class `Outer$1Local`, `1` of an
    anonymous class `Outer$1`; a proxy's whole name (`Foo$$SpringCGLIB$$0`)."""
    last = name.rpartition(".")[2]
    if any(m in last for m in GENERATED_MARKERS):
        return last
    simple = last.rpartition("$")[2] or last
    return simple.lstrip("0123456789") or simple
