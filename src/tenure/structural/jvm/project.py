"""The project as the JVM sources see it: what tree-sitter knows (symbols with their spans, members,
super types, the lines of its edges) and the type hierarchy of bytecode and source together."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from tenure.namespace.tiers import Relation
from tenure.structural.graph import ALLOCATION_DETAIL, JVM_DETAIL, REFLECTION_DETAIL
from tenure.structural.jvm.classfile import ACC_FINAL, ACC_PRIVATE, ACC_STATIC
from tenure.structural.jvm.model import ClassModel, MethodModel, is_abstract
from tenure.structural.store import StructuralStore

TYPE_KINDS = ("class", "interface", "enum")


@dataclass
class SourceSide:
    """What tree-sitter knows about the project's JVM code, read once from the database."""

    spans: dict[str, list[tuple[str, str, int, int]]] = field(default_factory=dict)  # fqn -> (kind, path, from, to)
    members: dict[str, set[str]] = field(default_factory=dict)  # class -> member names
    supertypes: dict[str, set[str]] = field(default_factory=dict)
    edge_lines: dict[tuple[str, str, str], set[int]] = field(default_factory=dict)
    mtimes: dict[str, int] = field(default_factory=dict)  # source path -> mtime_ns when indexed
    # (src, dst, line) of edges for calls made at run time (graph.JVM_DETAIL, REFLECTION_DETAIL): what
    # javac compiled on that line says nothing of them; (src, line) of reflective calls whose target
    # the source named (javac's invoke of Method.invoke there is no unknown call)
    run_time: set[tuple[str, str | None, int]] = field(default_factory=set)
    reflective: set[tuple[str, int]] = field(default_factory=set)
    # (src, line) -> {override: detail} where the source decided a virtual call's dispatch (the class
    # the receiver local was made as)
    allocated: dict[tuple[str, int], dict[str, str]] = field(default_factory=dict)

    @classmethod
    def load(cls, store: StructuralStore) -> SourceSide:
        side, db = cls(), store.db
        for s in store.defined_symbols():
            side.spans.setdefault(s.fqn, []).append((s.kind, s.path, s.start, s.end))
            if s.parent:
                side.members.setdefault(s.parent, set()).add(s.name)
        for r in db.iter_query("SELECT src_fqn, dst_fqn, relation, line FROM edges WHERE dst_fqn IS NOT NULL"
                               " AND relation IN ('calls', 'instantiates', 'inherits', 'implements')"):
            if r["relation"] in (Relation.INHERITS, Relation.IMPLEMENTS):
                side.supertypes.setdefault(r["src_fqn"], set()).add(r["dst_fqn"])
            side.edge_lines.setdefault((r["src_fqn"], r["dst_fqn"], r["relation"]), set()).add(r["line"])
        for r in db.iter_query("SELECT src_fqn, dst_fqn, line, detail FROM edges WHERE detail LIKE ? OR detail LIKE ?",
                               (JVM_DETAIL + "%", REFLECTION_DETAIL + "%")):
            side.run_time.add((r["src_fqn"], r["dst_fqn"], r["line"]))
            if r["detail"].startswith(REFLECTION_DETAIL) and r["dst_fqn"] is not None:
                side.reflective.add((r["src_fqn"], r["line"]))
        for r in db.iter_query("SELECT src_fqn, dst_fqn, line, detail FROM edges WHERE detail LIKE ?",
                               (ALLOCATION_DETAIL + "%",)):
            side.allocated.setdefault((r["src_fqn"], r["line"]), {})[r["dst_fqn"]] = r["detail"]
        side.mtimes = {r["path"]: r["mtime_ns"] for r in db.iter_query("SELECT path, mtime_ns FROM files")}
        return side

    @cached_property
    def called_on(self) -> set[tuple[str, int, str]]:
        """(src, line, method name) of tree-sitter's call edges: a call of that name on that line."""
        return {(src, line, dst.rpartition(".")[2]) for (src, dst, relation), lines in self.edge_lines.items()
                if relation == Relation.CALLS for line in lines}

    def is_type(self, fqn: str) -> bool:
        return any(kind in TYPE_KINDS for kind, *_ in self.spans.get(fqn, ()))

    def path_of(self, fqn: str) -> str:
        spans = self.spans.get(fqn)
        return spans[0][1] if spans else ""


@dataclass
class Hierarchy:
    """Types of the project from bytecode and source together: super types, subtypes, members."""

    classes: dict[str, ClassModel]
    source: SourceSide
    _subtypes: dict[str, set[str]] = field(default_factory=dict)
    _declaring: dict[tuple[str, str, str], str | None] = field(default_factory=dict)
    _all_subtypes: dict[str, set[str]] = field(default_factory=dict)
    _implementations: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    _bodies: dict[str, dict[str, bool]] = field(default_factory=dict)  # class -> method name -> has a body

    def __post_init__(self) -> None:
        for name, cls in self.classes.items():
            bodies = self._bodies[name] = {}
            for m in cls.methods:
                bodies[m.name] = bodies.get(m.name, False) or not is_abstract(m)
        for name in set(self.classes) | set(self.source.supertypes):
            for sup in self.supers(name):
                self._subtypes.setdefault(sup, set()).add(name)

    def known(self, name: str) -> bool:
        return name in self.classes or self.source.is_type(name)

    def supers(self, name: str) -> list[str]:
        cls = self.classes.get(name)
        found = [cls.super_name, *cls.interfaces] if cls else []
        found += sorted(self.source.supertypes.get(name, ()))
        return [s for s in dict.fromkeys(found) if s]

    def declares(self, name: str, member: str) -> bool:
        return member in self._bodies.get(name, ()) or member in self.source.members.get(name, ())

    def is_concrete(self, name: str, member: str) -> bool:
        bodies = self._bodies.get(name)
        if bodies is None:
            return self.declares(name, member)  # source only: abstractness unknown, count it
        return bodies.get(member, False)

    def implementations(self, name: str, member: str, descriptor: str = "") -> list[str]:
        """`member` of every subtype that gives it a body: where a virtual call on `name` may land.
        With the call's descriptor, a subtype whose bytecode is known overrides it only with that
        descriptor and as an instance method that is not private (an overload, a static or private
        method of that name is no override); a final or private method has none."""
        key = (name, member, descriptor)
        if key not in self._implementations:
            named = self.method_model(name, member, descriptor)
            if named is not None and named.access & (ACC_FINAL | ACC_PRIVATE):
                self._implementations[key] = []
            else:
                self._implementations[key] = sorted(
                    f"{sub}.{member}" for sub in self.all_subtypes(name) if self._overrides(sub, member, descriptor))
        return self._implementations[key]

    def _overrides(self, sub: str, member: str, descriptor: str) -> bool:
        cls = self.classes.get(sub)
        if cls is None or not descriptor:
            return self.is_concrete(sub, member)
        return any(m.name == member and m.descriptor == descriptor and not is_abstract(m)
                   and not m.access & (ACC_STATIC | ACC_PRIVATE) for m in cls.methods)

    def method_model(self, name: str, member: str, descriptor: str) -> MethodModel | None:
        """The bytecode of `member` that a call on `name` with this descriptor resolves to, if known."""
        declaring = self.declaring(name, member, descriptor) if descriptor else None
        cls = self.classes.get(declaring) if declaring else None
        return next((m for m in cls.methods if m.name == member and m.descriptor == descriptor), None) if cls else None

    def declaring(self, name: str, member: str, descriptor: str = "") -> str | None:
        """The class whose `member` a call on `name` reaches: itself, else the nearest super type. With
        the call's descriptor, as the JVM resolves it: a class whose bytecode is known declares the
        member only with that descriptor (an overload of another class in the hierarchy is not it)."""
        key = (name, member, descriptor)
        if key not in self._declaring:
            self._declaring[key] = self._find_declaring(name, member, descriptor)
        return self._declaring[key]

    def _find_declaring(self, name: str, member: str, descriptor: str) -> str | None:
        seen: set[str] = set()
        queue = [name]
        while queue:
            current = queue.pop(0)
            if current in seen:
                continue
            seen.add(current)
            cls = self.classes.get(current)
            if cls is not None and descriptor:
                if any(m.name == member and m.descriptor == descriptor for m in cls.methods):
                    return current
            elif self.declares(current, member):
                return current
            queue += self.supers(current)
        return None

    def all_subtypes(self, name: str) -> set[str]:
        if name not in self._all_subtypes:
            self._all_subtypes[name] = self._find_subtypes(name)
        return self._all_subtypes[name]

    def _find_subtypes(self, name: str) -> set[str]:
        out: set[str] = set()
        stack = [name]
        while stack:
            for sub in self._subtypes.get(stack.pop(), ()):
                if sub not in out:
                    out.add(sub)
                    stack.append(sub)
        return out

    def assignable(self, name: str, to: str) -> bool:
        return name == to or name in self.all_subtypes(to)
