"""Dependency-injection wiring: which concrete bean backs which injection point, per context or
profile, from Spring Boot's `/actuator/beans` JSON (Boot 2/3 `{"contexts": …}` and Boot 1's list
of contexts) and from Spring AOT's generated `*__BeanDefinitions` classes.

Wiring becomes `injects` edges (the class holding the injection point -> the bean's class, source
`di`), and it decides interface calls: a call through an injected field whose type exactly one bean
of the context implements is `resolved` to that bean's method, naming the context.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tenure.namespace.tiers import Relation, Tier
from tenure.structural.jvm.merge import CallSite
from tenure.structural.jvm.model import ClassModel
from tenure.structural.jvm.project import Hierarchy
from tenure.structural.store import SourceEdge

SOURCE = "di"
AOT_SUFFIX = "__BeanDefinitions"
AOT_AUTOWIRING_SUFFIX = "__Autowiring"  # Spring 6 puts field injection of X into X__Autowiring
AOT_CONTEXT = "aot"
# Annotations that make a field an injection point (by simple name: Spring's, JSR-330's, Jakarta's).
INJECTION_ANNOTATIONS = {"Autowired", "Inject", "Resource", "Value"}
# Spring AOT calls whose string argument names an injected field.
AOT_FIELD_RESOLVERS = {"org.springframework.beans.factory.aot.AutowiredFieldValueResolver"}


class BeansFileError(Exception):
    """A beans file that is not actuator JSON: reported, never fatal."""


@dataclass
class Bean:
    name: str
    type: str  # the bean's class as the container reported it (a proxy's name included)
    dependencies: list[str] = field(default_factory=list)
    injected_fields: list[str] = field(default_factory=list)  # AOT: fields its definition sets
    injected_types: list[str] = field(default_factory=list)  # AOT: its constructor's parameter types

    @property
    def user_class(self) -> str:
        """The class a person wrote: a CGLIB proxy `Foo$$SpringCGLIB$$0` stands for `Foo`."""
        return self.type.split("$$")[0]


@dataclass
class BeanContext:
    name: str
    label: str  # what edges name: the profile when one was given, else the context's id
    parent: str | None
    beans: dict[str, Bean]


def parse_beans(data: object, profile: str = "") -> list[BeanContext]:
    """Actuator beans JSON -> contexts. Raises BeansFileError for any other shape."""
    contexts: list[BeanContext] = []
    if isinstance(data, dict) and isinstance(data.get("contexts"), dict):
        for ctx_name, ctx in data["contexts"].items():
            beans = _expect(ctx, dict, f"context {ctx_name!r}").get("beans", {})
            contexts.append(BeanContext(ctx_name, profile or ctx_name, ctx.get("parentId"), {
                name: _bean(name, b) for name, b in _expect(beans, dict, f"beans of {ctx_name!r}").items()}))
    elif isinstance(data, list):  # Spring Boot 1.x: a list of contexts, each with a list of beans
        for ctx in data:
            name = str(_expect(ctx, dict, "a context").get("context", "application"))
            beans = _expect(ctx.get("beans", []), list, f"beans of {name!r}")
            contexts.append(BeanContext(name, profile or name, ctx.get("parent"), {
                str(b.get("bean")): _bean(str(b.get("bean")), b) for b in beans}))
    else:
        raise BeansFileError("not Spring Boot actuator beans JSON (expected {\"contexts\": …} or a list of contexts)")
    return contexts


def _expect(value: object, kind: type, what: str) -> Any:
    if not isinstance(value, kind):
        raise BeansFileError(f"not Spring Boot actuator beans JSON: {what} is not a JSON "
                             f"{'object' if kind is dict else 'array'}")
    return value


def read_beans_file(path: Path, profile: str = "") -> list[BeanContext]:
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise BeansFileError(f"{path}: {exc}") from exc
    except RecursionError as exc:
        raise BeansFileError(f"{path}: not actuator beans JSON: nested too deep") from exc
    try:
        return parse_beans(data, profile)
    except BeansFileError as exc:
        raise BeansFileError(f"{path}: {exc}") from exc


def _bean(name: str, raw: object) -> Bean:
    raw = _expect(raw, dict, f"bean {name!r}")
    deps = raw.get("dependencies")
    deps = [d for d in deps if isinstance(d, str)] if isinstance(deps, list) else []
    return Bean(name, str(raw.get("type") or ""), deps)


def aot_context(classes: list[ClassModel]) -> BeanContext | None:
    """Beans from Spring AOT. Each `get<Name>BeanDefinition` method of a `*__BeanDefinitions` class
    defines bean `<name>` of the first project class it names (`new RootBeanDefinition(X.class)`);
    the other classes its `<Name>` methods name (`BeanInstanceSupplier.forConstructor(Dep.class)`)
    are X's constructor parameters, and the field names X's `__BeanDefinitions` / `__Autowiring`
    classes pass to AutowiredFieldValueResolver are the fields injected into X."""
    known = {c.name for c in classes}
    fields: dict[str, list[str]] = defaultdict(list)
    beans: dict[str, Bean] = {}
    for cls in classes:
        target, _, suffix = cls.name.rpartition("__")
        if "__" + suffix not in (AOT_SUFFIX, AOT_AUTOWIRING_SUFFIX):
            continue
        fields[target] += [s.constant for m in cls.methods for s in m.sites
                           if s.owner in AOT_FIELD_RESOLVERS and s.constant]
        for method in cls.methods:
            if "__" + suffix != AOT_SUFFIX or not (method.name.startswith("get")
                                                   and method.name.endswith("BeanDefinition")):
                continue
            stem = method.name[3:-len("BeanDefinition")]
            types = [s.owner for s in method.sites if s.kind == "class" and s.owner in known]
            if not types:
                continue
            bean = beans.setdefault(stem[:1].lower() + stem[1:], Bean(stem[:1].lower() + stem[1:], types[0]))
            bean.injected_types += [s.owner for m in cls.methods if stem in m.name for s in m.sites
                                    if s.kind == "class" and s.owner in known and s.owner != bean.type]
    for bean in beans.values():
        bean.injected_fields = fields.get(bean.type, [])
    return BeanContext(AOT_CONTEXT, AOT_CONTEXT, None, beans) if beans else None


@dataclass(frozen=True)
class Decision:
    origin: str  # the beans file (or AOT) that says so
    context: str
    bean: str
    bean_class: str
    receiver_type: str


@dataclass
class Wiring:
    """What the contexts decide: injects edges per origin, and per (class, receiver type) the bean
    each context wires there."""

    edges: dict[str, list[SourceEdge]] = field(default_factory=lambda: defaultdict(list))
    decided: dict[tuple[str, str], list[Decision]] = field(default_factory=lambda: defaultdict(list))
    beans: int = 0

    def add_contexts(self, origin: str, contexts: list[BeanContext], h: Hierarchy) -> None:
        by_name = {c.name: c for c in contexts}
        for ctx in contexts:
            visible = _visible_beans(ctx, by_name)
            self.beans += len(ctx.beans)
            for bean in ctx.beans.values():
                self._wire_bean(origin, ctx, bean, visible, h)

    def _wire_bean(self, origin: str, ctx: BeanContext, bean: Bean, visible: dict[str, Bean], h: Hierarchy) -> None:
        owner = h.classes.get(bean.user_class)
        unmatched = [d for d in bean.dependencies if d in visible]
        for f in owner.fields if owner is not None else ():
            if not h.known(f.type):
                continue  # a JDK or library type: its beans' classes are not in the project
            candidates = [b for b in visible.values() if b.name != bean.name and h.assignable(b.user_class, f.type)]
            named = [b for b in candidates if b.name in bean.dependencies]
            annotated = any(a.rpartition(".")[2] in INJECTION_ANNOTATIONS for a in f.annotations)
            injected = f.name in bean.injected_fields or f.type in bean.injected_types
            if not (named or annotated or injected):
                continue
            wired = named or candidates
            tier = Tier.RESOLVED if len(wired) == 1 else Tier.AMBIGUOUS
            for b in wired:
                unmatched = [d for d in unmatched if d != b.name]
                self._inject(origin, ctx, bean.user_class, b, tier, f"field {f.name}: {f.type}")
            if len(wired) == 1:
                only = wired[0]
                decision = Decision(origin, ctx.label, only.name, only.user_class, f.type)
                self.decided[(bean.user_class, f.type)].append(decision)
        if owner is None and not h.known(bean.user_class):
            return  # neither source nor bytecode knows the class: nothing in the graph to attach to
        for dep in unmatched:  # constructor or setter injection (or no class file to find the field in)
            if h.known(visible[dep].user_class):  # framework beans (DataSource, …) are not the project's
                self._inject(origin, ctx, bean.user_class, visible[dep], Tier.RESOLVED,
                             "constructor or setter injection")

    def _inject(self, origin: str, ctx: BeanContext, point: str, bean: Bean, tier: str, how: str) -> None:
        self.edges[origin].append(SourceEdge(
            src=point, dst=bean.user_class, relation=Relation.INJECTS, tier=tier, context=ctx.label, name=bean.name,
            detail=f"{how} <- bean {bean.name} ({bean.type})"))

    def decide_calls(self, sites: list[CallSite], h: Hierarchy) -> None:
        """Interface and virtual calls whose receiver type the wiring decides: resolved to the bean's method."""
        for site in sites:
            for d in self.decided.get((site.caller_class, site.owner), ()):
                declaring = h.declaring(d.bean_class, site.name)
                if declaring is None:
                    continue
                origin = d.origin
                impl = f"{declaring}.{site.name}"
                self.edges[origin].append(SourceEdge(
                    src=site.src, dst=impl, relation=Relation.CALLS, tier=Tier.RESOLVED, path=site.path,
                    line=site.line, name=site.name, context=d.context,
                    detail=f"wired: bean {d.bean} is the one {d.receiver_type} in {d.context}"))
                if impl != site.dst:
                    self.edges[origin].append(SourceEdge(
                        src=site.src, dst=site.dst, relation=Relation.CALLS, tier=Tier.RESOLVED, path=site.path,
                        line=site.line, name=site.name, context=d.context,
                        detail=f"wired to {impl} (bean {d.bean}, {d.context})"))
                if site.owner in h.supers(d.bean_class):
                    bean_class = h.classes.get(d.bean_class)
                    relation = Relation.INHERITS if bean_class and site.owner == bean_class.super_name else (
                        Relation.IMPLEMENTS)
                    self.edges[origin].append(SourceEdge(
                        src=d.bean_class, dst=site.owner, relation=relation, tier=Tier.RESOLVED, context=d.context,
                        detail=f"bean {d.bean}: the {site.owner} wired in {d.context}"))


def _visible_beans(ctx: BeanContext, by_name: dict[str, BeanContext]) -> dict[str, Bean]:
    """A context sees its own beans and its ancestors' (a child's bean hides a parent's of that name)."""
    chain, seen = [], set()
    current: BeanContext | None = ctx
    while current is not None and current.name not in seen:
        seen.add(current.name)
        chain.append(current)
        current = by_name.get(current.parent) if current.parent else None
    visible: dict[str, Bean] = {}
    for c in reversed(chain):
        visible.update(c.beans)
    return visible
