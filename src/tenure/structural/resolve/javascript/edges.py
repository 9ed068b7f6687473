"""The edges of the file being resolved, from its analysis: its call sites' targets, the functions
it hands to the runtime to call back (`map(f)`, `setTimeout(f)`), what another module's function
calls through its arguments, dispatch candidates, what the names say where a callee holds no known
value, a subclass's hook a call on `this` may run (a guess however alone), and (by the generic resolver)
its super types and imports. An anonymous function handed out
of the project (to the runtime or a package) that nothing of the project calls is not a caller of its
own: its calls are the function's that handed it over."""

from __future__ import annotations

import msgspec

from tenure.namespace.tiers import Relation, Tier
from tenure.structural.facts import Reference
from tenure.structural.graph import DISPATCH_DETAIL
from tenure.structural.resolve import MAX_CANDIDATES, NO_TARGET, EdgeOut, candidates_tier
from tenure.structural.resolve.javascript.analysis import Analysis
from tenure.structural.resolve.javascript.values import BOUND, FUNC, Value, fqn_of

_NEW_KINDS = frozenset({"n"})


def edges_of(a: Analysis) -> list[EdgeOut]:
    p = a.p
    inlined = inlined_scopes(a)

    def source(scope: int) -> int:
        """Where a site's calls are attributed: an anonymous function only the runtime or a
        package calls runs on behalf of the function that handed it over."""
        while scope in inlined:
            scope = p.parent(scope)
        return scope

    out: list[EdgeOut] = []
    for site, by_relation in a.edges.items():
        index, via = site if isinstance(site, tuple) else (site, "")
        line, name, scope = p.sites[index][:3]
        name = via or name
        for relation, targets in by_relation.items():
            declared, dispatched = _declared_split(a, targets) if relation == Relation.CALLS else (targets, {})
            src = p.fqn(source(scope))
            sure = a.sure.edges.get(site, {}).get(relation, set()) if a.sure else targets
            out += _tiered(src, sorted(declared), relation, line, name, guess=not declared <= sure)
            out += [EdgeOut(src, target, relation, Tier.AMBIGUOUS, line, name, f"{DISPATCH_DETAIL}{base}")
                    for target, base in sorted(dispatched.items())]
    for site, by_source in a.foreign.items():  # another module's function calls what this site gave it
        line, name = p.sites[site][:2]
        for key, targets in sorted(by_source.items()):  # (each call through a parameter on its own)
            sure = a.sure.foreign.get(site, {}).get(key, set()) if a.sure else targets
            out += _tiered(key[0], sorted(targets), Relation.CALLS, line, name, f"through the arguments of {name}",
                           guess=not targets <= sure)
    for site, overrides in a.dispatch.items():
        line, name, scope = p.sites[site][:3]
        for target, base in sorted(overrides.items()):
            detail = f"{DISPATCH_DETAIL}{base}"
            out.append(EdgeOut(p.fqn(source(scope)), target, Relation.CALLS, Tier.AMBIGUOUS, line, name, detail))
    for site, hooks in a.hooks.items():
        line, name, scope = p.sites[site][:3]
        known = a.edges.get(site, {}).get(Relation.CALLS, set())
        if len(known) <= MAX_CANDIDATES:  # (else the site is already one without a target, by its name)
            out += _tiered(p.fqn(source(scope)), sorted(hooks - known), Relation.CALLS, line, name, guess=True)
    for site in sorted(a.lost - a.edges.keys() - a.hooks.keys()):
        # no target found: kept by its name, so that what-breaks counts it among the sites that may
        # reach a method of that name
        line, name, scope = p.sites[site][:3]
        out.append(EdgeOut(p.fqn(source(scope)), None, Relation.CALLS, Tier.AMBIGUOUS, line, name, NO_TARGET))
    for site, handed in a.handed.items():
        if site in a.edges or site not in a.runtime_calls:
            continue  # (what a package does with a function it is given is its own: `expect(f)` runs nothing)
        line, name, scope = p.sites[site][:3]
        sure = {t for values in a.sure.handed.get(site, ()) for v in values for t in _functions(a.sure, v)} \
            if a.sure else None
        for values in handed:  # each argument on its own: they are not alternatives
            targets = sorted({t for v in values for t in _functions(a, v) if not _is_inlined(a, t, inlined)})
            out += _tiered(p.fqn(source(scope)), targets, Relation.CALLS, line, name, f"handed to {name or 'a call'}",
                           guess=sure is not None and not sure.issuperset(targets))
    for site, how in a.unknown.items():
        if site in a.edges or site in a.handed and how == "local" or site in a.lost:
            continue  # (lost: an instance of the project's lacking the member, which no guess by name mends)
        line, name, scope, receiver, kind = p.sites[site][:5]
        if not name or how == "local" and name not in a.syntax.imports:
            continue  # a variable of the file holding nothing known: no guess by its name (no self-loop)
        # (the names are looked up where the call is written, the edge is the function's that handed it over)
        ref = Reference("new" if kind in _NEW_KINDS else "call", name, p.qualname(scope), line, receiver)
        src = p.fqn(source(scope))
        out += [e if e.src == src else msgspec.structs.replace(e, src=src) for e in a.syntax.reference_edges(ref)]
    for site, (line, _, scope, _, kind, detail) in enumerate(p.sites):
        if site not in a.edges and (site in a.dynamic or kind == "x" and site in a.unknown):
            # (a dynamic edge's name is what it may reach, graph.DynamicSite: nothing told, anything)
            out.append(EdgeOut(p.fqn(source(scope)), None, Relation.CALLS, Tier.DYNAMIC, line, "", detail))
    return out


def _declared_split(a: Analysis, targets: set[str]) -> tuple[set[str], dict[str, str]]:
    """A call on a variable of a declared interface that holds an object of the program's: the
    interface's method is the target its type names; the object's function of that name is one of
    the implementations (a dispatch candidate), as for any value of that interface."""
    declared = [t for t in targets if any(s.kind == "method" and _is_interface(a, s.parent)
                                          for s in a.project.view.symbols(t))]
    if len(declared) != 1:
        return targets, {}
    base = declared[0]
    method = base.rpartition(".")[2]
    others = {t: base for t in targets if t != base and t.rpartition(".")[2] == method}
    return targets - others.keys(), others


def _is_interface(a: Analysis, fqn: str) -> bool:
    return bool(fqn) and any(s.kind == "interface" for s in a.project.view.symbols(fqn))


def inlined_scopes(a: Analysis) -> set[int]:
    """Anonymous functions handed out of the project (to the runtime, a package) that no call of
    the project runs."""
    handed = {idx for values in (v for vs in a.handed.values() for v in vs) for value in values
              for idx in a.p.scopes_of(value[2]) if value[0] == FUNC and value[1] == a.module}  # type: ignore[arg-type]
    return {idx for idx in handed - a.called if a.p.qualname(idx).rpartition(".")[2].startswith("<")}


def _is_inlined(a: Analysis, target: str, inlined: set[int]) -> bool:
    return any(a.p.fqn(idx) == target for idx in inlined)


def _functions(a: Analysis, value: Value) -> list[str]:
    """The functions a value runs when called: itself, or what a bound function (bound again, to
    itself too) ends at."""
    out, pending, seen = [], [value], {value}
    while pending:
        value = pending.pop()
        if value[0] == FUNC:
            out.append(fqn_of(value))  # type: ignore[arg-type]
        elif value[0] == BOUND:
            targets = [t for t in a.cells.get(("F", value, "$target"), ()) if t not in seen]
            seen.update(targets)
            pending += reversed(targets)  # (in the order the cell holds them)
    return out


def _tiered(src: str, targets: list[str], relation: str, line: int, name: str, detail: str = "",
            guess: bool = False) -> list[EdgeOut]:
    """A site's edges of one relation: one target is `inferred` unless each is a `guess`, several are
    `ambiguous`, too many one edge without a target."""
    if not targets:
        return []
    if len(targets) > MAX_CANDIDATES:
        return [EdgeOut(src, None, relation, Tier.AMBIGUOUS, line, name, f"{len(targets)} candidates named {name}")]
    tier = Tier.AMBIGUOUS if guess else candidates_tier(len(targets))
    return [EdgeOut(src, t, relation, tier, line, name, detail) for t in targets]
