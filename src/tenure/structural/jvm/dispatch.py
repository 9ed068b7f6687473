"""What decides which override a virtual or interface call runs, when the bytecode alone does not.

javac's owner method is the call's `resolved` target (merge.py); the overrides in the project's
subtypes are where it may land instead: `ambiguous` dispatch candidates, unless something decides
them. Besides DI wiring (di.py) and the source (the class a receiver local was made as: tree-sitter's
edge, project.SourceSide.allocated), the program's instantiations can: an override runs only on an
object of its class (or of a subclass that inherits it), so a class nothing creates gives none. That
holds only in a closed world — no reflective, deserialising or proxy instantiation in the bytecode
read, no DI container, no lambda making the receiver's type, no code outside the project able to
create the class (a public class with a public or protected constructor, a framework-annotated one).
Where it holds, the overrides of classes never created are no candidates, and one left is the call's
target (`inferred`, detail INSTANTIATED_DETAIL: a whole-program fact, not a compiler's).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from tenure.structural.graph import INSTANTIATED_DETAIL
from tenure.structural.jvm.classfile import ACC_ABSTRACT, ACC_INTERFACE, ACC_PROTECTED, ACC_PUBLIC
from tenure.structural.jvm.model import ClassModel
from tenure.structural.jvm.project import Hierarchy

# Calls that create objects of classes no `new` names: the world is open when the bytecode has one.
INSTANTIATORS = frozenset({
    ("java.lang.Class", "newInstance"), ("java.lang.reflect.Constructor", "newInstance"),
    ("java.util.ServiceLoader", "load"), ("java.util.ServiceLoader", "loadInstalled"),
    ("java.io.ObjectInputStream", "readObject"), ("java.lang.reflect.Proxy", "newProxyInstance"),
    ("java.lang.invoke.MethodHandles$Lookup", "findConstructor"), ("sun.misc.Unsafe", "allocateInstance"),
    ("jdk.internal.misc.Unsafe", "allocateInstance"),
})
# Class annotations that say nothing about who creates instances.
PLAIN_ANNOTATIONS = ("java.lang.", "kotlin.Metadata", "kotlin.jvm.")
MADE, ELSEWHERE = "made", "elsewhere"


@dataclass
class Instantiation:
    made: set[str] = field(default_factory=set)  # classes created by `new` or a constructor reference
    lambdas: set[str] = field(default_factory=set)  # functional interfaces lambdas and method references make
    open_because: str = ""  # why instantiations may be missing from `made` (empty: a closed world)

    @classmethod
    def of(cls, classes: Iterable[ClassModel], wired: bool) -> Instantiation:
        found = cls(open_because="DI wiring creates beans" if wired else "")
        for c in classes:
            for m in c.methods:
                for site in m.sites:
                    if site.kind == "new" or site.kind == "methodref" and site.fresh:
                        found.made.add(site.owner)
                    elif site.kind == "methodref" and site.made_as:
                        found.lambdas.add(site.made_as)
                    elif (site.owner, site.name) in INSTANTIATORS and not found.open_because:
                        found.open_because = f"{site.owner}.{site.name} in {c.name}"
        return found

    def decide(self, h: Hierarchy, owner: str, dst: str, impls: list[str], descriptor: str) -> tuple[list[str], str]:
        """(the overrides the call may run, and the detail of a decided one): every one of `impls`
        in an open world; in a closed one those whose class something may create, decided when
        exactly one is left, its class created in the program, and the named method `dst` itself
        runs on nothing that may exist."""
        if self.open_because or self.made_by_lambda(h, owner):
            return impls, ""
        found = {i: self._created(h, i.rpartition(".")[0], i, descriptor) for i in impls}
        runs = [i for i in impls if found[i]]
        if len(runs) == 1 and found[runs[0]] == MADE and not self._created(h, dst.rpartition(".")[0], dst, descriptor):
            only = f"{runs[0]} is the one implementation of {dst} on an object the program creates"
            return runs, INSTANTIATED_DETAIL + only
        return runs, ""

    def made_by_lambda(self, h: Hierarchy, owner: str) -> bool:
        """Whether a lambda or method reference makes an object of the type (a body no class names)."""
        return owner in self.lambdas or bool(self.lambdas & h.all_subtypes(owner))

    def _created(self, h: Hierarchy, declaring: str, method: str, descriptor: str) -> str:
        """Whether some object a call on `declaring` reaches `method` on may exist — of its class, or
        of a subclass that inherits it: MADE (the program creates one), ELSEWHERE (code outside the
        bytecode read may), "" (none can)."""
        name = method.rpartition(".")[2]
        found = ""
        for cls in (declaring, *sorted(h.all_subtypes(declaring))):
            if h.declaring(cls, name, descriptor) != declaring:
                continue  # (it overrides the method: its own candidate)
            if cls in self.made:
                return MADE
            if _creatable_elsewhere(h.classes.get(cls)):
                found = ELSEWHERE
        return found


def _creatable_elsewhere(cls: ClassModel | None) -> bool:
    """A class code outside the bytecode read may create (or whose creation a framework owns); a
    class only source knows is assumed to be one."""
    if cls is None:
        return True
    if cls.access & (ACC_INTERFACE | ACC_ABSTRACT):
        return False
    if any(not a.startswith(PLAIN_ANNOTATIONS) for a in cls.annotations):
        return True
    return bool(cls.access & ACC_PUBLIC) and any(
        m.name == "<init>" and m.access & (ACC_PUBLIC | ACC_PROTECTED) for m in cls.methods)
