"""The edges of the file being resolved: its call sites' targets, its classes' bases, its imports."""

from __future__ import annotations

import msgspec

from tenure.namespace.tiers import Relation, Tier
from tenure.structural.facts import FileFacts
from tenure.structural.graph import DISPATCH_DETAIL
from tenure.structural.naming import qualify
from tenure.structural.resolve import MAX_CANDIDATES, NO_TARGET, EdgeOut, ProjectView, candidates_tier
from tenure.structural.resolve.answers import Answers
from tenure.structural.resolve.generic import FileResolver
from tenure.structural.resolve.python.analysed import Analysed
from tenure.structural.resolve.python.analysis import Analysis
from tenure.structural.resolve.python.flows import module_flow
from tenure.structural.resolve.python.modules import Asking, Project
from tenure.structural.resolve.python.values import CLASS, CONST, FUNC, INST, MODULE, OPEN, SUPER


def _site_edges(a: Analysis, facts: FileFacts) -> list[EdgeOut]:
    mf = a.mf
    out: list[EdgeOut] = []
    unknown_left = a.unknown_left - a.known_left
    for site in [*a.edges, *(site for site in a.guesses if site not in a.edges)]:
        index, via = (site, "") if isinstance(site, int) else site
        line, name, scope, _ = mf.sites[index]
        src = mf.fqn(scope)
        by_relation = a.edges.get(site, {})
        guessed = a.guesses.get(site, {})
        # values that give different edges are alternatives: none of them is certain; so is a method
        # Python calls on a value that may also be a builtin's or an external object
        called = a.called.get(site)  # (most sites: one value, no choice)
        choice = called is not None and len(called) > 1 and len({frozenset(g) for g in called.values()}) > 1 or (
            str(via).startswith("__") and (a.implicit.get(index) == 3 or index in unknown_left))
        for relation in sorted(by_relation.keys() | guessed.keys()) if guessed else sorted(by_relation):
            targets = by_relation.get(relation, set())
            out += _tiered(src, sorted(targets), relation, line, str(via or name), choice)
            if guessed:
                only_guessed = sorted(guessed.get(relation, set()) - targets)
                guesses = _tiered(src, only_guessed, relation, line, str(via or name), True)
                out += _dispatch_noted(guesses, a.dispatch.get(site, {}))
    targetless = set(a.targetless)
    methods_named: dict[str, list[str]] = {}  # (a file calls few names blind, most of them many times)
    for site, name in a.blind.items():  # unknown receiver: every method of that name may be meant
        line, _, scope, _ = mf.sites[site]
        src = mf.fqn(scope)
        named = methods_named.get(name)
        if named is None:
            named = methods_named[name] = sorted(
                {s.fqn for s in a.project.named(name) if s.kind == "function" and s.parent != s.module})
        # (not the caller itself: nothing says the receiver is of its class)
        methods = [fqn for fqn in named if fqn != src]
        out += _tiered(src, methods, Relation.CALLS, line, name, True)
        if methods:
            targetless.discard(site)
    for site in sorted(targetless):
        # no target found: the site is kept once, by name, so that what-breaks can count it among the
        # sites that may reach a symbol of that name
        line, name, scope, dynamic = mf.sites[site]
        if name and not dynamic:
            out.append(EdgeOut(mf.fqn(scope), None, Relation.CALLS, Tier.AMBIGUOUS, line, name, NO_TARGET))
    dynamic = [ref for ref in facts.references if ref.kind == "dynamic"]
    sites = [site for site, (_, _, _, looked_up) in enumerate(mf.sites) if looked_up]
    for ref, site in zip(dynamic, sites if len(sites) == len(dynamic) else [None] * len(dynamic), strict=True):
        # (the extractor records a dynamic site's reference and its flow site together, in order)
        src = qualify(facts.module, ref.scope) if ref.scope else facts.module
        reach = " ".join(_reach(a, site, ref.name)) if site is not None else ""
        out.append(EdgeOut(src, None, Relation.CALLS, Tier.DYNAMIC, ref.line, reach, ref.detail))
    return out


def _reach(a: Analysis, site: int, kind: str) -> list[str]:
    """What a dynamic site may reach, as globs over full names (graph.DynamicSite): the members of
    the objects it looks them up on (`flask.views.MethodView.*`, through their hierarchy), those of
    some name anywhere (`*.create_app`), modules by name (`django.db.backends.*.base`); none when it
    may reach anything."""
    looked_up = a.mf.sites[site][3]
    if not looked_up.startswith("."):
        return [looked_up] if looked_up.strip("*.") else []
    objects, names = a.looked_up.get(site, (frozenset(), frozenset()))
    constant = sorted({v[2] for v in names if v[0] == CONST and isinstance(v[2], str)})
    members = constant if constant and len(constant) == len(names) else [looked_up[1:]]
    owners = [a.module] if kind.startswith("globals(") else _owners(objects)
    if not owners or len(owners) * len(members) > MAX_CANDIDATES:
        owners = ["*"]  # any object: by name alone
    reach = sorted({f"{o}.{m}" for o in owners for m in members} - {"*.*"})
    return reach if len(reach) <= MAX_CANDIDATES else []


def _owners(objects: frozenset) -> list[str]:
    """The project's classes and modules whose members a lookup on these values finds; [] when one
    of them is anything else (an external object, a value nothing tells)."""
    owners = set()
    for v in objects:
        if v[0] == OPEN:
            continue  # (a mark beside a declared instance)
        if v[0] not in (INST, CLASS, MODULE, SUPER):
            return []
        owners.add(v[1] if v[0] == MODULE else qualify(v[1], v[2]))
    return sorted(owners)


def _tiered(src: str, targets: list[str], relation: str, line: int, name: str, choice: bool = False) -> list[EdgeOut]:
    """A site's edges of one relation: one target is `inferred` unless the site is a `choice` (its
    callee is one of several, or a guess), several are `ambiguous`, too many one edge without a target."""
    if len(targets) > MAX_CANDIDATES:
        detail = f"{len(targets)} candidates named {name}"
        return [EdgeOut(src, None, relation, Tier.AMBIGUOUS, line, name, detail)]
    tier = candidates_tier(len(targets), choice)
    return [EdgeOut(src, t, relation, tier, line, name) for t in targets]


def _dispatch_noted(edges: list[EdgeOut], named: dict[str, str]) -> list[EdgeOut]:
    """Guessed overrides with the method the call names (`dispatch of ...`): what-breaks counts
    them among the dispatches nothing decided."""
    return [msgspec.structs.replace(e, detail=f"{DISPATCH_DETAIL}{named[e.dst]}") if e.dst in named else e
            for e in edges]


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
        module = mf.absolute(imp.module, imp.level)
        target = ""
        if imp.name:  # (a star import names none: its edge goes to the module)
            values = a.e_import(["m", imp.module, imp.name, imp.level])  # (as the fixpoint found them)
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
    if facts.read_cheaply:  # too large to link its calls (vendored.py): its imports and super types by name
        return FileResolver(facts, view).edges()
    answers = Answers(view, shared=True)
    project = Project(view)
    asking = Asking(Analysed(project), project, answers)
    analysis = Analysis(module_flow(facts, keep=False), asking.lower, asking.project, record=True)  # type: ignore[arg-type]
    analysis.run()
    if why := analysis.shortfall():
        view.note_incomplete(why)
    edges = _site_edges(analysis, facts) + _class_edges(analysis, facts) + _import_edges(analysis, facts)
    view.answers = answers.encode()
    return edges
