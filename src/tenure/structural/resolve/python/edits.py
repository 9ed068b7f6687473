"""What an edit of a module changed for its readers: which items (`item_edits`), and whether the
module's analysis gives readers of it whole what it gave (`outcome_unchanged`)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import msgspec

from tenure.structural.facts import FileFacts
from tenure.structural.resolve import ProjectView, Recording, item_key
from tenure.structural.resolve.answers import canonical
from tenure.structural.resolve.python.analysed import Analysed, Outcome, analysis_before, read_scopes
from tenure.structural.resolve.python.flows import ModuleFlow, module_flow
from tenure.structural.resolve.python.modules import Project
from tenure.structural.resolve.python.values import DICT, EMPTY, SEQ


def item_edits(old: FileFacts, new: FileFacts) -> set[str] | None:
    """See `Resolver.item_edits`: the items whose digests (`_ItemDigests`) differ between the two states
    of the file, added and removed ones included; None when its star imports changed (lookups that
    found nothing may find more) or the flow is too tangled to tell."""
    if old.path != new.path or old.module != new.module:
        return None
    a, b = ModuleFlow(old), ModuleFlow(new)
    if a.star != b.star:
        return None
    try:
        before, after = _ItemDigests(a).all(), _ItemDigests(b).all()
    except (_Untold, RecursionError):
        return None
    return {item_key(a.module, item) for item in before.keys() | after.keys() if before.get(item) != after.get(item)}


def outcome_unchanged(old: FileFacts, new: FileFacts, view: ProjectView) -> Recording | None:
    """See `Resolver.outcome_unchanged`: files read a module whole only through its analysis (`Analysed`),
    and read of that its `Outcome`, by name, and with it what the analysis read of the rest. So they
    read the same when the analysis before the edit (kept) holds for the project as it is now (what
    it asked of other modules, and of this one's items, answers alike: `Analysed.still_holds`), and
    both give the same values where readers can observe them (`_observable`). Names and scopes the
    edit added or removed are left out: a reader reaches them only by looking them up, and the edit
    touches those lookups' keys (`item_edits`). What the analysis now reads that the one before did
    not is returned: the readers' reads must grow by it (`spare`)."""
    analysed = Analysed(Project(view))
    before = analysis_before(old, view)
    if before is None or not analysed.still_holds(before):
        return None
    after = analysed.analysis(new.module)
    was_flow, now_flow = module_flow(old, keep=False), module_flow(new)
    both = _lookups(was_flow) & _lookups(now_flow)
    if after is None or _observable(before.analysis, was_flow, both) != _observable(after, now_flow, both):
        return None
    keys, modules = analysed.recording(new.module)
    return keys - before.recording[0], modules - before.recording[1]



def _lookups(mf: ModuleFlow) -> set[tuple]:
    """Where `_observable` reads what a reader can reach only by looking it up in the module: the
    names bound in each scope, a function's returns and yields. (Fields are reached through values.)"""
    found = {(cell, qualname) for qualname in mf.by_qualname for cell in "ry"}
    found.update(("=", qualname, name) for qualname, idxs in mf.by_qualname.items() for i in idxs
                 for name in mf.scopes[i][5])
    return found


def _observable(outcome: Outcome, mf: ModuleFlow, lookups: set[tuple]) -> dict[tuple, str]:
    """What readers can observe of an analysis, comparable across an edit: the values of each name
    bound in the module or a class (`read_scopes`), by where it is bound (("=", scope, name), not
    by variable number: an edit renumbers them), and of each return and yield, of the `lookups`
    given; and the fields of what readers can reach: of every object but a list or dict, which only
    those values, their fields and what they hold lead to (a literal added in a function body
    reaches no reader; one whose method is returned does, through the method). Canonical as answers
    are digested (`canonical`: `1` and `True` are equal, not alike)."""
    observed: dict[tuple, frozenset] = {}
    for scope in read_scopes(mf):
        for name, vars_ in scope[5].items():
            where = ("=", scope[0], name)
            if where in lookups and (values := outcome.final(vars_)):
                observed[where] = observed.get(where, EMPTY) | values
    observed.update((key, values) for key, values in outcome.cells.items() if key in lookups and values)
    fields: dict[object, list[tuple]] = {}
    for key, values in outcome.cells.items():
        if key[0] == "F" and values:
            fields.setdefault(key[1], []).append(key)
    reach = [obj for obj in fields if obj[0] not in (SEQ, DICT)]  # type: ignore[index]
    reach += [value for values in observed.values() for value in values]
    seen: set = set()
    while reach:
        obj = reach.pop()
        if obj not in seen:
            seen.add(obj)
            # what a value holds reaches on: a list's method (`<list>.pop`) reads the list's fields
            reach += [part for part in obj if part.__class__ is tuple]
            for key in fields.get(obj, ()):
                observed[key] = outcome.cells[key]
                reach += outcome.cells[key]
    return {where: canonical(values) for where, values in observed.items()}


class _Untold(Exception):
    """An item whose digest would cost too much, or a flow this code does not know."""


class _ItemDigests:
    """What looking each item of a module up reads of its flow (see `Project.looked_up`), as a digest
    to compare with another state of the module: a scope's kind, flags, returns, yields and bases;
    a name's bindings in a module or class scope; whether a class (`C@attr`) or the module (`@attr`)
    is given a field of that name. Variables are followed to what is assigned to them and written in
    the order a walk from the item first meets them, not by number: an edit elsewhere renumbers them
    and changes no digest, while two reads of one variable stay one (lookups follow each once)."""

    def __init__(self, mf: ModuleFlow) -> None:
        self.mf = mf
        self.budget = 64 * (len(mf.stmts) + 64)  # variables met, over all items: a bound on the work

    def all(self) -> dict[str, bytes]:
        mf = self.mf
        out: dict[str, bytes] = {}
        for qualname, idxs in mf.by_qualname.items():
            order: dict[int, int] = {}
            out[qualname] = _item_digest([[mf.scopes[i][1], mf.scopes[i][4], *(
                self._canon(part.get(i, []), order) for part in (mf.returns, mf.yields, mf.bases))] for i in idxs])
            bound: dict[str, list] = {}
            for i in idxs:
                for name, vars_ in mf.scopes[i][5].items():
                    bound.setdefault(name, []).append(vars_)
            for name, found in bound.items():
                order = {}
                out[f"{qualname}:{name}"] = _item_digest([[self._var(v, order) for v in vars_] for vars_ in found])
        out.update((f"{cls}@{attr}", b"") for cls, attr in mf.self_fields)
        out.update((f"@{attr}", b"") for attr in mf.assigned_attrs)
        return out

    def _canon(self, x: object, order: dict[int, int]) -> object:
        """`x` (an expression, or lists of them, or a variable) without the numbers of its variables,
        call sites, allocations and scopes."""
        if x.__class__ is int:
            return self._var(x, order)  # type: ignore[arg-type]
        if x.__class__ is not list or not x:
            return x
        tag = x[0]  # type: ignore[index]
        if tag.__class__ is not str:  # a list of expressions
            return [self._canon(e, order) for e in x]  # type: ignore[attr-defined]
        rebuild = _CANON.get(tag)
        if rebuild is None:
            raise _Untold(tag)
        return rebuild(self, x, order)

    def _var(self, var: int, order: dict[int, int]) -> object:
        seen = order.get(var)
        if seen is not None:
            return ["^", seen]
        self.budget -= 1
        if self.budget < 0:
            raise _Untold("budget")
        order[var] = len(order)
        return ["=", [self._canon(e, order) for e in self.mf.var_defs.get(var, [])]]

    def _scope(self, idx: int) -> list:
        scope = self.mf.scopes[idx]
        return [scope[0], scope[1]]


def _item_digest(canonical: object) -> bytes:
    return hashlib.blake2b(msgspec.msgpack.encode(canonical), digest_size=16).digest()


# Per expression tag: the expression as `_ItemDigests` compares it (see the flow format in
# extractors/python.py): sites, allocations and scopes by number dropped or named.
_CANON: dict[str, Callable[[_ItemDigests, list, dict[int, int]], object]] = {
    **dict.fromkeys(("n", "k", "ks", "kb", "m", "fx"), lambda d, x, o: x),
    "v": lambda d, x, o: ["v", [d._var(v, o) for v in x[1]]],
    "a": lambda d, x, o: ["a", d._canon(x[1], o), x[2]],
    "s:": lambda d, x, o: ["s:", d._canon(x[1], o), x[2], x[3]],  # (the bounds)
    "s": lambda d, x, o: ["s", d._canon(x[1], o), d._canon(x[2], o)],
    **dict.fromkeys(("*", "u", "o"), lambda d, x, o: [x[0], *(d._canon(e, o) for e in x[1:])]),
    "op": lambda d, x, o: ["op", d._canon(x[2], o), d._canon(x[3], o), *x[4:]],  # (the methods)
    "c": lambda d, x, o: ["c", d._canon(x[2], o), d._canon(x[3], o), [[k, d._canon(v, o)] for k, v in x[4]]],
    "@": lambda d, x, o: ["@", d._canon(x[2], o), d._canon(x[3], o)],
    **dict.fromkeys(("l", "L"), lambda d, x, o: [x[0], d._canon(x[2], o)]),
    "d": lambda d, x, o: ["d", [[d._canon(k, o), d._canon(v, o)] for k, v in x[2]]],
    **dict.fromkeys(("f", "C", "i", "ic"), lambda d, x, o: [x[0], *d._scope(x[1])]),
    "A": lambda d, x, o: ["A", d._canon(x[1], o), d._canon(x[2], o)],
}
