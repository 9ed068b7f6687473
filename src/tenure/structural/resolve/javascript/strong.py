"""Strong updates: what a property holds at a read, told by the straight-line code before it.

The fixpoint (analysis.py) is flow-insensitive over the heap: a property holds every value written
to it anywhere. A read `o.k` can know better when, in the code of its own function that runs once,
in order, before it (the extractor's conditional statements excluded), a statement certainly wrote
`o.k` of that very object: `d.a = f`, `let d = {a: f}`, `Object.assign(d, {a: f})`, `new C(f)` whose
constructor does `this.fn = fn`, `c.change(f)` or `change()` whose own straight-line code does so
(the callee's must-writes, `summary`, in terms of its parameters and `this`, instantiated with the
call's arguments, the way `passed_back` gives `return arg` per call). That object is named by a
term that denotes one object for the whole frame: a parameter, `this`, or a variable bound once and
never assigned again. Every statement after that write, up to the read, and everything they run,
must write no property of that name (else the write is forgotten), and must call nothing the
analysis cannot see (a package, an unknown callee, `eval`, `Object.defineProperty`): then the read
gives what that write stored, and nothing else. Anything less certain keeps the flow-insensitive
values (`ambiguous` edges stay where two values may reach a call).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tenure.structural.resolve.javascript.values import ANY, FUNC, PARAM, Value

if TYPE_CHECKING:
    from tenure.structural.resolve.javascript.analysis import Analysis, Site, Values

# One object for the whole frame: ("arg", position) | ("this", scope) | ("var", var), or the one a
# property of such an object holds while nothing writes it: ("field", term, key)
Term = tuple
Stored = tuple | None  # a term (what a parameter or captured parameter holds) | ("vals", values) | None: unknown
Writes = dict[tuple[Term, str], Stored]  # (object, key) -> what it certainly holds
Summary = tuple[Writes, frozenset[tuple[Term | None, str]]]  # must-writes, and what may be written
_ANYTHING: Summary = ({}, frozenset({(None, "*")}))

_MAX_PATH = 3  # properties followed from a variable: `d.a.b`
_ORDERED = frozenset({"=", "e", "r", "y", "for", "b"})  # statements of a function's body: (op, scope, ...)
_SIMPLE = frozenset({"v", "f", "C", "k", "n"})  # expressions whose value is read without running anything


class StrongUpdates:
    def __init__(self, analysis: Analysis) -> None:
        self.a = analysis
        p = analysis.p
        self.p = p
        self.order: dict[int, list[int]] = {}
        for idx, stmt in enumerate(p.stmts):
            if stmt[0] in _ORDERED:
                self.order.setdefault(stmt[1], []).append(idx)
            elif stmt[0] == "exp":
                self.order.setdefault(0, []).append(idx)
        self.scope_of = {s: scope for scope, stmts in self.order.items() for s in stmts}
        self.params = {param[0]: (idx, i) for idx, scope in enumerate(p.scopes)
                       for i, param in enumerate(scope[3]) if not param[1]}
        self.bindings: dict[int, int] = {}
        for stmt in p.stmts:
            if stmt[0] in ("=", "for"):
                for var in _bound(stmt[2]):
                    self.bindings[var] = self.bindings.get(var, 0) + 1
        # variables bound once to an object made there -> the scope that made it
        self.fresh = {stmt[2][1]: stmt[1] for stmt in p.stmts if stmt[0] == "=" and stmt[2][0] == "v"
                      and _made(stmt[3]) and self.bindings.get(stmt[2][1]) == 1 and stmt[2][1] not in p.reassigned}
        self._effects: dict[int, tuple[frozenset[str], bool]] | None = None
        self.opaque_stmts = set(analysis.opaque.values())
        self._summaries: dict[int, Summary] = {}

    # what statements do ----------------------------------------------------------------------------
    def scope_effects(self) -> dict[int, tuple[frozenset[str], bool]]:
        """Per function scope: the property keys it writes and whether it calls what the analysis
        cannot see, with everything it runs (to a fixpoint over the calls, recursion included)."""
        if self._effects is None:
            a = self.a
            keys = {g: set().union(*(a.written.get(s, ()) for s in stmts)) for g, stmts in self.order.items()}
            opaque = {g: any(s in self.opaque_stmts for s in stmts) for g, stmts in self.order.items()}
            callees = {g: set().union(*(a.invoked.get(s, ()) for s in stmts)) for g, stmts in self.order.items()}
            changed = True
            while changed:
                changed = False
                for g, called in callees.items():
                    for c in called:
                        if c in keys and (not keys[c] <= keys[g] or opaque[c] > opaque[g]):
                            keys[g] |= keys[c]
                            opaque[g] |= opaque[c]
                            changed = True
            self._effects = {g: (frozenset(keys[g]), opaque[g]) for g in keys}
        return self._effects

    def effects(self, stmt: int) -> tuple[set[str], bool]:
        a = self.a
        keys = set(a.written.get(stmt, ()))
        opaque = stmt in self.opaque_stmts
        effects = self.scope_effects()
        for g in a.invoked.get(stmt, ()):
            found = effects.get(g)
            if found is not None:
                keys |= found[0]
                opaque |= found[1]
        return keys, opaque

    # must-writes -----------------------------------------------------------------------------------
    def walk(self, scope: int, stops: dict[int, list[tuple[Site, tuple[Term, str]]]] | None = None
             ) -> tuple[Summary, dict[Site, Stored]]:
        """The must-writes of a function's straight-line code at its end, with everything it may
        write; and what the reads of `stops` (statement -> (site, (object, key))) are told there."""
        entries = _Entries()
        may: set[tuple[Term | None, str]] = set()
        seen: dict[Site, Stored] = {}
        conditional = self.p.conditional or frozenset()
        for s in self.order.get(scope, ()):
            _, opaque = self.effects(s)
            writes = {(None, ANY)} if opaque else self.may_writes(scope, s)
            for site, (obj, key) in stops.get(s, ()) if stops else ():
                if (obj, key) in entries.stored and not any(self._overwrites(scope, o, k, obj, key) for o, k in writes):
                    seen[site] = entries.stored[(obj, key)]  # (what the read's own statement writes may come first)
            may |= writes
            for o, k in writes:
                entries.forget(k, lambda obj, key, o=o, k=k: self._overwrites(scope, o, k, obj, key))
            if s not in conditional:
                entries.update(self.writes_of(scope, s))
        return (dict(entries.stored), frozenset(may)), seen

    def _overwrites(self, scope: int, written: Term | None, key: str, obj: Term, read: str) -> bool:
        """Whether writing `key` of `written` may change what `read` of `obj` gives: the property
        itself, or one of the properties `obj` is reached through."""
        if key in (read, ANY) and (written is None or self.may_alias(scope, written, obj)):
            return True
        return obj[0] == "field" and self._overwrites(scope, written, key, obj[1], obj[2])

    def summary(self, fn: Value) -> Summary:
        """What a call of `fn` certainly leaves in properties, and may write, in its own frame's terms."""
        if fn[1] != self.a.module:
            there = self.a.project.analysis(fn[1], self.a.layer + 1)  # type: ignore[arg-type]
            return there.strong_updates().summary(fn) if there is not None else _ANYTHING
        scopes = self.p.scopes_of(fn[2])  # type: ignore[arg-type]
        if len(scopes) != 1 or self.p.conditional is None:
            return _ANYTHING
        scope = scopes[0]
        if scope not in self._summaries:
            self._summaries[scope] = _ANYTHING  # (a recursive call: anything, meanwhile)
            self._summaries[scope] = self.walk(scope)[0]
        return self._summaries[scope]

    def top_call(self, scope: int, s: int) -> tuple[list | None, Term | None]:
        """The call a statement makes last, at its top (`f(x)`, `x = f(y)`, `const o = new C(x)`),
        with the object its callee gets as `this` (a `new`: the variable it is bound to)."""
        stmt = self.p.stmts[s]
        expr = stmt[2] if stmt[0] in ("e", "r") else stmt[3] if stmt[0] == "=" else None
        if expr.__class__ is list and expr[0] == "td":
            expr = expr[1]
        if expr.__class__ is not list or expr[0] not in ("c", "new"):
            return None, None
        if expr[0] == "new":
            bound = stmt[0] == "=" and stmt[2][0] == "v"
            return expr, self.term(scope, stmt[2][1]) if bound else None
        callee = expr[2]
        this = self.term(scope, callee[1]) if callee.__class__ is list and callee[0] == "a" else None
        return expr, this

    def writes_of(self, scope: int, s: int) -> Writes:
        """What statement `s` certainly writes, if it runs."""
        stmt = self.p.stmts[s]
        call, this = self.top_call(scope, s)
        out = self.call_writes(scope, call, this) if call is not None else {}
        if stmt[0] != "=":
            return out
        target, value = stmt[2], stmt[3]
        if target[0] == "v":
            bound = self.term(scope, target[1])
            inner = value[1] if value.__class__ is list and value[0] == "td" else value
            if bound is not None and inner.__class__ is list and inner[0] == "o":
                out.update(self.literal(scope, bound, inner))
            return out
        key, base = self.target(scope, target)
        if key is not None and key != ANY and base is not None and not (target[0] == "a" and target[3] in self.a.edges):
            out[(base, key)] = self.stored(scope, value)  # (not when the write ran a setter)
            if value.__class__ is list and value[0] == "o" and _depth(base) < _MAX_PATH:
                out.update(self.literal(scope, ("field", base, key), value))
        return out

    def target(self, scope: int, target: list) -> tuple[str | None, Term | None]:
        """The key (ANY: not known) and the object (None: not known) a property write's target names."""
        if target[0] == "a":
            return target[2], self.term(scope, target[1])
        if target[0] == "s":
            return _constant(target[2]) or ANY, self.term(scope, target[1])
        return None, None

    def may_writes(self, scope: int, s: int) -> set[tuple[Term | None, str]]:
        """The (object, key) pairs statement `s` may write, with everything it runs (object None: any)."""
        stmt = self.p.stmts[s]
        out: set[tuple[Term | None, str]] = set()
        unknown = set(self.a.written.get(s, ()))  # (replayed writes of another module's function too)
        call, this = self.top_call(scope, s)
        fn = self._callee(call) if call is not None else None
        if stmt[0] == "=" and stmt[2][0] in ("a", "s"):
            key, base = self.target(scope, stmt[2])
            out.add((base, key))  # type: ignore[arg-type]
            if fn is None or fn[1] == self.a.module:
                unknown.discard(key)  # type: ignore[arg-type]
        run_by_callee: set[int] = set()
        if fn is not None:
            local = fn[1] == self.a.module
            for base, key in self.summary(fn)[1]:
                mapped = self._instantiate(scope, fn, base, call[3], this, local, as_object=True)  # type: ignore[index]
                out.add((mapped, key))  # type: ignore[arg-type]
            if local:
                run_by_callee = set(self.p.scopes_of(fn[2]))  # type: ignore[arg-type]
        effects = self.scope_effects()
        for g in self.a.invoked.get(s, set()) - run_by_callee:
            unknown |= effects.get(g, (frozenset(), False))[0]
        return out | {(None, key) for key in unknown}

    def may_alias(self, scope: int, one: Term, other: Term) -> bool:
        """Whether two terms may name one object: not when both are variables bound to objects made
        there (two allocations), nor a variable bound to one made in this frame and a parameter or
        `this` of the frame (which were there before)."""
        if one == other:
            return True
        fresh = [self.fresh.get(t[1]) if t[0] == "var" else None for t in (one, other)]
        if fresh[0] is not None and fresh[1] is not None:
            return False
        for made, term in ((fresh[0], other), (fresh[1], one)):
            if made == scope and term[0] in ("arg", "this"):
                return False
        return True

    def _callee(self, call: list) -> Value | None:
        """The one function of the project a call site ran (not through `bind`, `call`, `apply`)."""
        site, callee = call[1], call[2]
        funcs = self.a.site_funcs.get(site, set())
        if len(funcs) != 1 or site in self.a.bound_sites:
            return None
        if callee.__class__ is list and callee[0] == "a" and callee[2] in ("call", "apply", "bind"):
            return None
        fn = next(iter(funcs))
        if fn[0] != FUNC or "g" in self.a.flags(fn):
            return None  # (a generator's body runs when it is iterated, not when it is called)
        return fn

    def literal(self, scope: int, obj: Term, expr: list) -> Writes:
        """The properties an object literal certainly has (none known past a spread or computed key)."""
        props = expr[2]
        if any(prop[0] == "*" or prop[0] is None for prop in props):
            return {}
        out: Writes = {}
        for key, value in props:
            out[(obj, key)] = self.stored(scope, value)
            if value.__class__ is list and value[0] == "o" and _depth(obj) < _MAX_PATH:  # `{inner: {run: f}}`
                out.update(self.literal(scope, ("field", obj, key), value))
        return out

    def call_writes(self, scope: int, call: list, this: Term | None) -> Writes:
        """What a call certainly leaves in properties: its callee's summary, instantiated with this
        call's arguments and `this`."""
        args = call[3]
        if any(arg.__class__ is list and arg[0] == "*" for arg in args):
            return {}
        callee = call[2]
        if callee.__class__ is list and callee[0] == "a" and callee[1] == ["n", "Object"] and callee[2] == "assign":
            target = self.term(scope, args[0]) if args else None
            out: Writes = {}
            for source in args[1:]:
                if target is None or source.__class__ is not list or source[0] != "o":
                    return {}  # (what another object copies is not known)
                out.update(self.literal(scope, target, source))
            return out
        fn = self._callee(call)
        if fn is None:
            return {}
        local = fn[1] == self.a.module
        out = {}
        for (base, key), stored in self.summary(fn)[0].items():
            mapped = self._instantiate(scope, fn, base, args, this, local, as_object=True)
            if mapped is not None:
                out[(mapped, key)] = self._instantiate(scope, fn, stored, args, this, local, as_object=False)
        return out

    def _instantiate(self, scope: int, fn: Value, term: Stored, args: list, this: Term | None, local: bool,
                     as_object: bool) -> Stored:
        """A term of the callee's frame in the caller's."""
        if term is None:
            return None
        if term[0] == "arg":
            if term[1] >= len(args):
                return None
            return self.term(scope, args[term[1]]) if as_object else self.stored(scope, args[term[1]])
        if term[0] == "this":  # the callee's own `this` is this call's; an enclosing function's stays
            there = self.a if local else self.a.project.analysis(fn[1], self.a.layer + 1)  # type: ignore[arg-type]
            if there is None or term[1] in there.p.scopes_of(fn[2]):  # type: ignore[arg-type]
                return this
            return term if local else None
        if term[0] == "var":
            return self.term(scope, term[1]) if local else None
        if term[0] == "field":
            inner = self._instantiate(scope, fn, term[1], args, this, local, as_object=True)
            return ("field", inner, term[2]) if inner is not None else None
        if term[0] == "vals" and not local and any(v[0] == PARAM for v in term[1]):
            return None  # (what the other module's callers pass: not this call's to say)
        return term

    # terms ----------------------------------------------------------------------------------------------
    def term(self, scope: int, expr: object, depth: int = 0) -> Term | None:
        """The one object an expression denotes for the whole frame of `scope`, if it does."""
        if expr.__class__ is list and expr[0] == "this":  # type: ignore[index]
            return ("this", expr[1])  # type: ignore[index]
        if expr.__class__ is list and expr[0] in ("a", "s") and depth < _MAX_PATH:  # type: ignore[index]
            key = expr[2] if expr[0] == "a" else _constant(expr[2])  # type: ignore[index]
            if key is None or expr[3] in self.a.edges:  # type: ignore[index]
                return None  # (a getter ran there)
            inner = self.term(scope, expr[1], depth + 1)  # type: ignore[index]
            return ("field", inner, key) if inner is not None else None
        var = _single_var(expr)
        if var is None or var in self.p.reassigned:
            return None
        if var in self.params:
            if self.bindings.get(var):
                return None
            owner, position = self.params[var]
            return ("arg", position) if owner == scope else ("var", var)
        return ("var", var) if self.bindings.get(var) == 1 else None

    def stored(self, scope: int, expr: object) -> Stored:
        """What a write stores: a parameter (this call's argument there), else the values, when
        reading them runs nothing."""
        term = self.term(scope, expr)
        if term is not None and (term[0] == "arg" or term[0] == "var" and term[1] in self.params):
            return term
        if expr.__class__ is int or expr.__class__ is list and expr[0] in _SIMPLE:  # type: ignore[index]
            return ("vals", frozenset(self.a.eval(expr)))
        return None

    def values(self, scope: int, stored: Stored) -> Values | None:
        if stored is None:
            return None
        if stored[0] == "vals":
            return stored[1]
        if stored[0] == "arg":
            params = self.p.params(scope)
            return self.a.vars[params[stored[1]][0]] or frozenset() if stored[1] < len(params) else None
        if stored[0] == "var":
            return self.a.vars[stored[1]] or frozenset()
        return None

    # the reads -------------------------------------------------------------------------------------
    def narrowed_reads(self) -> dict[Site, Values]:
        """Member reads that get fewer values than the flow-insensitive fixpoint gave them."""
        a, p = self.a, self.p
        if p.conditional is None:
            return {}
        stops: dict[int, dict[int, list[tuple[Site, tuple[Term, str]]]]] = {}
        for site, (stmt, base, key) in a.reads.items():
            scope = self.scope_of.get(stmt)
            if scope is None or stmt in p.conditional or p.sites[site][2] != scope or site in a.edges:
                continue  # (a default of a parameter read at a call; a getter ran there: not what was stored)
            term = self.term(scope, base)
            if term is not None and a.read_values.get(site):
                stops.setdefault(scope, {}).setdefault(stmt, []).append((site, (term, key)))
        out: dict[Site, Values] = {}
        for scope, reads in stops.items():
            for site, stored in self.walk(scope, reads)[1].items():
                told = self.values(scope, stored)
                if told is None:
                    continue
                found = a.read_values[site]
                narrowed = {v for v in found if v in told}
                if narrowed and narrowed != found:
                    out[site] = frozenset(narrowed)
        return out


class _Entries:
    """Must-writes, found by the keys a write of which may undo them: their own, and the keys of
    the properties their object is reached through."""

    def __init__(self) -> None:
        self.stored: Writes = {}
        self.by_key: dict[str, set[tuple[Term, str]]] = {}

    def update(self, writes: Writes) -> None:
        for entry, stored in writes.items():
            self.stored[entry] = stored
            obj, key = entry
            self.by_key.setdefault(key, set()).add(entry)
            while obj[0] == "field":
                self.by_key.setdefault(obj[2], set()).add(entry)
                obj = obj[1]

    def forget(self, key: str, undone: Callable[[Term, str], bool]) -> None:
        """Drops the entries a write of `key` (ANY: any key) undoes."""
        candidates = list(self.stored) if key == ANY else list(self.by_key.get(key, ()))
        for entry in candidates:
            if entry in self.stored and undone(*entry):
                del self.stored[entry]


def _single_var(expr: object) -> int | None:
    if expr.__class__ is int:
        return expr  # type: ignore[return-value]
    if expr.__class__ is list and expr[0] == "v" and len(expr[1]) == 1:  # type: ignore[index]
        return expr[1][0]  # type: ignore[index]
    return None


def _depth(term: Term) -> int:
    return 1 + _depth(term[1]) if term[0] == "field" else 0


def _made(expr: object) -> bool:
    """An expression that makes a new object: a literal, `new`, a function or class expression."""
    if expr.__class__ is list and expr[0] == "td":  # type: ignore[index]
        expr = expr[1]  # type: ignore[index]
    return expr.__class__ is list and expr[0] in ("o", "l", "new", "f", "C")  # type: ignore[index]


def _constant(expr: object) -> str | None:
    if expr.__class__ is list and expr[0] == "k" and expr[1] is not None:  # type: ignore[index]
        return str(expr[1])  # type: ignore[index]
    return None


def _bound(target: list) -> list[int]:
    """The variables an assignment's target binds."""
    if target[0] == "v":
        return [target[1]]
    if target[0] == "O":
        return [v for _, sub, _ in target[1] if sub is not None for v in _bound(sub)] + (
            _bound(target[2]) if target[2] is not None else [])
    if target[0] == "A":
        return [v for item in target[1] if item is not None and item[0] is not None for v in _bound(item[0])] + (
            _bound(target[2]) if target[2] is not None else [])
    return []
