"""The points-to fixpoint over one file's statements (extractors/javascript.py).

Variables, fields, parameters, `this`, returns and yields point to sets of values (values.py). A
worklist runs each statement again when something it read grew. A call passes its arguments to the
parameters of the file's own functions and the receiver to their `this`; `new C()` makes an
instance of C, runs the first constructor along C's bases with `this` that instance, and the field
initialisers of every class along them; a member of an instance is its own field, else the first
along the prototype chain (a getter found there is called). What another module holds is asked of
its own analysis (modules.py), one layer further; the runtime's functions follow runtime.toml.

Call sites collect their targets (`edges`); a site whose callee has no value is left to the names
(`unknown`), a function handed to the runtime or to a package is noted (`handed`).
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from tenure.namespace.tiers import Relation
from tenure.structural.resolve import note_order_dependence, shortfall
from tenure.structural.resolve.javascript import runtime
from tenure.structural.resolve.javascript.program import Program
from tenure.structural.resolve.javascript.strong import StrongUpdates
from tenure.structural.resolve.javascript.values import (
    ANY,
    ARRAY,
    BOUND,
    CLASS,
    CONST,
    EMPTY,
    FUNC,
    GENERATOR,
    HAS_FIELDS,
    INST,
    MODULE_OBJECT,
    NAMESPACE,
    OBJECT,
    OUTSIDE,
    PARAM,
    PROTO,
    SOME,
    SOMETHING,
    Value,
    fqn_of,
    key_of,
)

if TYPE_CHECKING:
    from tenure.structural.resolve.generic import FileResolver
    from tenure.structural.resolve.javascript.modules import Project

MAX_VALUES = 24  # a set that grows past this stops growing: precision is gone anyway
EVALUATIONS_PER_STATEMENT = 16  # the fixpoint's budget, so one pathological file stays cheap
# The work budget: cells and variables read, values walked along a parameter's path, cells made. One
# statement's evaluation can cost without bound (another module's function replayed over long paths of
# its parameters: hono's CommonJS jsx/dom spent minutes in one statement), so the work is counted too.
# (Django's JavaScript spends at most about 25 a statement; hono's, beside the analyses that blew up, 170.)
WORK_PER_STATEMENT = 256
WORK_BASE = 20_000
MAX_CHAIN = 12  # classes along a chain of bases (broken code can make it cyclic)
ITERATOR = "[Symbol.iterator]"

Site = int
Values = frozenset[Value] | set[Value]


class _Spent(Exception):
    """The work budget of an analysis ran out in the middle of one of its statements."""

    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis


class Analysis:
    def __init__(self, program: Program, project: Project, syntax: FileResolver, layer: int,
                 strong: dict[Site, Values] | None = None, hooks: bool = True) -> None:
        self.p = program
        self.module = program.module
        self.project = project
        self.syntax = syntax  # the generic resolver of this file: imports, declared types, names
        self.layer = layer
        self.vars: list[set[Value] | None] = [None] * program.nvars
        self.cells: dict[tuple, set[Value]] = {}
        self.keys: dict[Value, list[tuple]] = {}  # an object -> the cells of its properties
        self.readers: dict[object, set[int]] = {}
        self.edges: dict[Site | tuple[Site, str], dict[str, set[str]]] = {}
        self.unknown: dict[Site, str] = {}  # sites whose callee had no value -> "free" | "member" | "local" | "new"
        self.handed: dict[Site, list[Values]] = {}  # the functions each site hands out of the project
        self.runtime_calls: set[Site] = set()  # sites whose callee is the runtime's, calling them back
        self.called: set[int] = set()  # local function scopes some call of the project runs
        self.dynamic: set[Site] = set()  # `eval(...)`
        self.dispatch: dict[Site, dict[str, str]] = {}  # a call on `this`: overrides -> the method they override
        # a call on `this` of a member its class lacks: the subclasses' methods of that name (a template
        # method's hooks), each a guess; `lost`: no subclass defines it either (nor may a base outside)
        self.hooks: dict[Site, set[str]] = {}
        self.lost: set[Site] = set()
        self.guessing = False  # (invoke records a hook's edge in `hooks`)
        self.follows_hooks = hooks  # (False: the analysis without the guesses, `sure`)
        # The same file analysed without following hooks (where some were): what flows only through a
        # guess (what a hook returns, what it does with the base's arguments) is not in it (edges.py)
        self.sure: Analysis | None = None
        # (path, caller fqn, name written): a function's parameter (or a property of one) called
        # where, and what it writes into properties of its parameters; replayed by callers in other
        # modules (`foreign`: their edges through the arguments of one of their sites)
        # (what it passes there, by position)
        self.param_calls: dict[str, dict[tuple[tuple, str, str], list[set[Value]]]] = {}
        # (one cell per path and property: the values written there merged, not one entry per set written)
        self.param_writes: dict[str, dict[tuple[tuple, str], set[Value]]] = {}
        self.foreign: dict[Site, dict[tuple[str, tuple], set[str]]] = {}  # site -> (src, path) -> targets
        self.stmts: list[list] = program.stmts  # and the defaults of functions no call here runs (run)
        # What each statement did, for the strong updates (strong.py): the property keys it wrote, the
        # local functions it ran, whether it called what the analysis cannot see (`opaque`); the
        # functions each call site ran, the member reads (site -> statement, object, key) and what
        # they gave. `strong`: member reads whose values the straight-line code before them tells.
        self.written: dict[int, set[str]] = {}
        self.invoked: dict[int, set[int]] = {}
        self.opaque: dict[object, int] = {}  # (why, site) -> its statement
        self.site_funcs: dict[Site, set[Value]] = {}
        self.bound_sites: set[Site] = set()
        self.reads: dict[Site, tuple[int, object, str]] = {}
        self.read_values: dict[Site, set[Value]] = {}
        self.strong: dict[Site, Values] = strong or {}
        self._strong_updates: StrongUpdates | None = None
        # a class's (its prototype's) members its body defines: not enumerable, no copy takes them
        self.class_members: dict[Value, set[str]] = {}
        self.cur = 0
        self.budget = 0
        self.work = 0  # what is left of the work budget (`spend`)
        self.draining = False  # (the budget is enforced only while the fixpoint runs)
        self.work_spent = False
        self.queue: deque[int] = deque()
        self.queued = bytearray()
        self.statements_left = 0  # what a spent budget left undone (`shortfall`)
        self.too_deep: set[int] = set()  # statements nested past Python's stack: their effects are skipped
        self._mro: dict[Value, list[Value]] = {}
        self._overrides_elsewhere: dict[tuple[Value, str], set[Value]] = {}

    # running -------------------------------------------------------------------------------------
    def run(self) -> Analysis:
        """The fixpoint; where strong updates tell some member reads fewer values (strong.py), the
        fixpoint again with those reads narrowed (what they exclude never flows on). Where hooks were
        guessed, the fixpoint once more without them (`sure`)."""
        self._solve()
        done = self
        if self.layer == 0 and not self.strong:
            narrowed = {site: values for site, values in self.strong_updates().narrowed_reads().items()
                        if ours(self.read_values[site] - values)}  # (worth a second fixpoint: ours left out)
            if narrowed:
                done = Analysis(self.p, self.project, self.syntax, self.layer, narrowed)._solve()
        if self.layer == 0 and done.hooks:
            done.sure = Analysis(self.p, self.project, self.syntax, self.layer, done.strong, hooks=False)._solve()
        return done

    def strong_updates(self) -> StrongUpdates:
        """The must-writes of this file's functions (asked by callers in other modules too)."""
        if self._strong_updates is None:
            self._strong_updates = StrongUpdates(self)
        return self._strong_updates

    def _solve(self) -> Analysis:
        # (a parameter's default is taken where a call leaves its argument out, pass_args; in a
        # function no call of this file runs, once the rest has settled: callers elsewhere may)
        defaulted = [idx for idx, scope in enumerate(self.p.scopes) if any(p[2] is not None for p in scope[3])]
        stmts = self.stmts = [*self.p.stmts, *(["dflt", idx] for idx in defaulted)]
        if self.layer > 0:  # analysed for its callers elsewhere: what they pass stands for itself
            for idx, scope in enumerate(self.p.scopes):
                for position, (var, _, _) in enumerate(scope[3]):
                    self.add_var(var, {(PARAM, self.module, self.p.name(idx), (position,))})  # type: ignore[arg-type]
        for idx, qualname in self.p.classes.items():  # `this` in a class's field initialisers: its instances
            self.cells.setdefault(("t", idx), set()).add(open_instance(self.module, qualname))
        self.queue = deque(range(len(self.p.stmts)))
        self.queued = bytearray(b"\x01" * len(self.p.stmts) + b"\x00" * len(defaulted))
        self.budget = EVALUATIONS_PER_STATEMENT * len(stmts) + 1000
        self.work = WORK_PER_STATEMENT * len(stmts) + WORK_BASE
        self._drain()
        for i, idx in enumerate(defaulted, start=len(self.p.stmts)):
            if idx not in self.called:
                self.queued[i] = 1
                self.queue.append(i)
                self._drain()
        return self

    def _drain(self) -> None:
        stmts = self.stmts
        self.draining = True
        try:
            while self.queue and self.budget > 0 and not self.work_spent:
                self.budget -= 1
                i = self.queue.popleft()
                self.queued[i] = 0
                self.cur = i
                try:
                    self.execute(stmts[i])
                except RecursionError:  # (a value nested deeper than the stack: the rest of the file still counts)
                    self.too_deep.add(i)
                except _Spent as spent:
                    if spent.analysis is not self:  # (another analysis's, under this one's statement)
                        raise
                    self.work_spent = True
                    if not self.queued[i]:  # (left half done: to evaluate still)
                        self.queued[i] = 1
                        self.queue.append(i)
        finally:  # (a spent budget of another analysis leaves through here too)
            self.draining = False
        if self.queue:
            self.statements_left = max(self.statements_left, len(self.queue))
            note_order_dependence()  # out of budget: what was left undone followed the order

    def spend(self, units: int) -> None:
        """Counts work against the budget; spent, the statement being evaluated is given up."""
        self.work -= units
        if self.work < 0 and self.draining:
            raise _Spent(self)

    def shortfall(self) -> str:
        """Why this analysis is a part of what the file does ("" when it is not)."""
        return shortfall(self.statements_left, len(self.too_deep), "work" if self.work_spent else "evaluation")

    def defaults(self, scope: int, given: int) -> None:
        """The defaults of the parameters past the `given` arguments of a call."""
        for var, _, default in self.p.params(scope)[given:]:
            if default is not None:
                self.add_var(var, self.eval(default))

    def _read(self, key: object) -> None:
        self.work -= 1  # (`spend`, written out: every read of the fixpoint comes here)
        if self.work < 0 and self.draining:
            raise _Spent(self)
        self.readers.setdefault(key, set()).add(self.cur)

    def _wake(self, key: object) -> None:
        for i in self.readers.get(key, ()):
            if not self.queued[i]:
                self.queued[i] = 1
                self.queue.append(i)

    def _grow(self, have: set[Value], values: Values) -> bool:
        before = len(have)
        if before >= MAX_VALUES:
            return False
        for v in values:
            if v not in have:
                have.add(v)
                if len(have) >= MAX_VALUES:
                    note_order_dependence()  # which values made it in followed the order
                    break
        return len(have) > before

    def add_var(self, var: int, values: Values) -> None:
        if not values:
            return
        have = self.vars[var]
        if have is None:
            have = self.vars[var] = set()
        if self._grow(have, values):
            self._wake(var)

    def add_cell(self, key: tuple, values: Values) -> None:
        if not values:
            return
        have = self.cells.get(key)
        if have is None:
            self.spend(1)
            have = self.cells[key] = set()
            if key[0] == "F":  # a new property: what read all of them reads again
                self.keys.setdefault(key[1], []).append(key)
                self._wake(("keys", key[1]))
        if self._grow(have, values):
            self._wake(key)

    def fields_of(self, obj: Value) -> list[tuple]:
        """The cells of every property the program stored in obj (and reads them)."""
        self._read(("keys", obj))
        return list(self.keys.get(obj, ()))

    def var(self, var: int) -> Values:
        self._read(var)
        return self.vars[var] or EMPTY

    def cell(self, key: tuple) -> Values:
        self._read(key)
        return self.cells.get(key) or EMPTY

    # statements ----------------------------------------------------------------------------------
    def execute(self, stmt: list) -> None:
        _EXECUTE[stmt[0]](self, stmt)

    def s_assign(self, stmt: list) -> None:
        self.assign(stmt[2], self.eval(stmt[3]))

    def s_effects(self, stmt: list) -> None:
        self.eval(stmt[2])

    def s_return(self, stmt: list) -> None:
        self.add_cell(("r", self.fn(stmt[1])), self.eval(stmt[2]))

    def s_yield(self, stmt: list) -> None:
        values = self.eval(stmt[2])
        self.add_cell(("y", self.fn(stmt[1])), self.iterate(values, -1) if stmt[3] else values)

    def s_for(self, stmt: list) -> None:
        self.assign(stmt[2], self.iterate(self.eval(stmt[3]), stmt[4]))

    def s_base(self, stmt: list) -> None:
        bases = {v for v in self.eval(stmt[3]) if v[0] in (CLASS, FUNC, OUTSIDE)}
        self.add_cell(("base", self.klass(stmt[2])), bases)

    def s_field(self, stmt: list) -> None:
        cls = self.klass(stmt[1])
        owner = cls if stmt[4] else (INST, cls[1], cls[2])
        self.add_cell(("F", owner, stmt[2] if stmt[2] is not None else ANY), self.eval(stmt[3]))

    def s_export(self, stmt: list) -> None:
        self.add_cell(("F", (NAMESPACE, self.module, ""), stmt[1]), self.eval(stmt[2]))

    def s_defaults(self, stmt: list) -> None:
        self.defaults(stmt[1], 0)

    def s_none(self, stmt: list) -> None:
        """`export * from`: read by who asks for the module's exports (Program.stars)."""

    def member(self, stmt: list) -> None:
        """A method, getter or setter of a class: a field of its prototype (of the class: static),
        whose `this` is an instance of the class (the class)."""
        cls = self.klass(stmt[1])
        static = stmt[4]
        owner = cls if static else (PROTO, cls[1], cls[2])
        values = self.eval(stmt[3])
        self.class_members.setdefault(owner, set()).add(stmt[2] if stmt[2] is not None else ANY)
        self.add_cell(("F", owner, stmt[2] if stmt[2] is not None else ANY), values)
        this = {cls} if static else {open_instance(cls[1], cls[2])}  # type: ignore[arg-type]
        for value in values:
            for idx in self.local_scopes(value):
                self.add_cell(("t", idx), this)

    def fn(self, scope: int) -> Value:
        return (FUNC, self.module, self.p.name(scope))

    def klass(self, scope: int) -> Value:
        return (CLASS, self.module, self.p.qualname(scope))

    def local_scopes(self, fn: Value) -> list[int]:
        """The file's own scopes of a function value (not arrows: their `this` is not theirs)."""
        if fn[0] != FUNC or fn[1] != self.module:
            return []
        return [i for i in self.p.scopes_of(fn[2]) if "a" not in self.p.flags(i)]  # type: ignore[arg-type]

    # targets -------------------------------------------------------------------------------------
    def assign(self, target: list, values: Values) -> None:
        kind = target[0]
        if kind == "v":
            self.add_var(target[1], values)
        elif kind == "a":
            self.wrote(target[2])
            # (a copy: a setter the write calls may assign to the variable the objects are read from)
            for obj in tuple(self.eval(target[1])):
                self.write(obj, target[2], values, target[3])
        elif kind == "s":
            keys = self._keys(self.eval(target[2]))
            self.wrote(*keys)
            for obj in tuple(self.eval(target[1])):
                for key in keys:
                    self.write(obj, key, values, -1)
        elif kind == "O":
            for key, sub, default in target[1]:  # (a default: where nothing is known to be there)
                got: set[Value] = set()
                for obj in values:
                    got |= self.attr(obj, key, -1) if key is not None else self.all_fields(obj)
                if default is not None and not got:
                    got |= self.eval(default)
                if sub is not None:
                    self.assign(sub, got)
            if target[2] is not None:
                self.assign(target[2], values)  # `...rest`: the same properties, less a few
        elif kind == "A":
            for i, item in enumerate(target[1]):
                if item is None or item[0] is None:
                    continue
                got = set(self.index(values, i))
                if item[1] is not None and not got:
                    got |= self.eval(item[1])
                self.assign(item[0], got)
            if target[2] is not None:
                self.assign(target[2], self.rest(values, len(target[1])))

    def wrote(self, *keys: str) -> None:
        self.written.setdefault(self.cur, set()).update(keys)

    def write(self, obj: Value, key: str, values: Values, site: Site) -> None:
        self.wrote(key)
        if obj[0] == PARAM:
            self.param_writes.setdefault(obj[2], {}).setdefault((obj[3], key), set()).update(values)  # type: ignore[arg-type]
            return
        obj = obj[:3]  # (an open instance's fields are its class's instances')
        if obj[0] == MODULE_OBJECT and key == "exports" and obj[1] == self.module:
            self.add_cell(("X", self.module), values)  # `module.exports = ...`
            return
        if obj[0] not in HAS_FIELDS:
            return
        for setter in self.accessor(obj, key, "S"):
            self.invoke(site, setter, [values], {obj})
        self.add_cell(("F", obj, key), values)

    def _keys(self, keys: Values) -> list[str]:
        out = [k for k in (key_of(v) for v in keys) if k is not None]
        return out if len(out) == len(keys) and out else [*out, ANY]

    # expressions ---------------------------------------------------------------------------------
    def eval(self, expr: object) -> Values:
        if expr is None:
            return EMPTY
        if expr.__class__ is int:
            return self.var(expr)  # type: ignore[arg-type]
        handler = _EVAL.get(expr[0])  # type: ignore[index]
        return handler(self, expr) if handler is not None else EMPTY

    def e_vars(self, expr: list) -> Values:
        return set().union(*(self.var(var) for var in expr[1]))

    def e_free(self, expr: list) -> Values:
        name = expr[1]
        if name == "module":
            return {(MODULE_OBJECT, self.module, "")}
        if name == "exports":
            return {(NAMESPACE, self.module, "")}
        if name in self.project.rules.builtins or name == "eval" or name in runtime.table("functions"):
            return {(OUTSIDE, "", name)}
        return EMPTY  # a global of another script, or of the host: the names decide (edges.py)

    def e_const(self, expr: list) -> Values:
        # null as its key, "null": None in a value would hash by address (Python 3.11), and the order
        # of every set holding it would change from one process to the next
        return {(CONST, "", "null" if expr[1] is None else expr[1])}

    def e_some(self, expr: list) -> Values:
        return {SOMETHING}

    def e_member(self, expr: list) -> Values:
        self.reads[expr[3]] = (self.cur, expr[1], expr[2])
        out: set[Value] = set()
        for obj in self.eval(expr[1]):
            out |= self.attr(obj, expr[2], expr[3])
        return out

    def e_subscript(self, expr: list) -> Values:
        keys = self._keys(self.eval(expr[2]))
        if len(keys) == 1 and keys[0] != ANY and expr[3] >= 0:
            self.reads[expr[3]] = (self.cur, expr[1], keys[0])
        out: set[Value] = set()
        for obj in self.eval(expr[1]):
            for key in keys:  # (what a caller passes, at a key not known: any of its items, theirs to tell)
                out |= self.all_fields(obj) if key == ANY and obj[0] != PARAM else self.attr(obj, key, expr[3])
        return out

    def e_function(self, expr: list) -> Values:
        return {self.fn(expr[1])}

    def e_class(self, expr: list) -> Values:
        return {self.klass(expr[1])}

    def e_this(self, expr: list) -> Values:
        return self.cell(("t", expr[1])) if expr[1] >= 0 else EMPTY

    def e_object(self, expr: list) -> Values:
        obj: Value = (OBJECT, self.module, expr[1])
        props = expr[2]
        for i, prop in enumerate(props):
            if prop[0] != "*" and any(later[0] == prop[0] for later in props[i + 1:]) and not any(
                    later[0] == "*" for later in props[i + 1:]):
                continue  # `{1: f, "1": g}`: the last one written is the property
            if prop[0] == "*":
                for source in self.eval(prop[1]):
                    self.copy_fields(source, obj)
                continue
            values = self.eval(prop[1])
            self.add_cell(("F", obj, prop[0] if prop[0] is not None else ANY), values)
            for value in values:  # a method's `this` is the object it is called on: this one, at least
                for idx in self.local_scopes(value):
                    self.add_cell(("t", idx), {obj})
        return {obj}

    def e_array(self, expr: list) -> Values:
        arr: Value = (ARRAY, self.module, expr[1])
        known = True
        for i, item in enumerate(expr[2]):
            if item is None:
                continue
            if item.__class__ is list and item[0] == "*":
                self.add_cell(("F", arr, ANY), self.iterate(self.eval(item[1]), -1))
                known = False
            else:
                self.add_cell(("F", arr, str(i) if known else ANY), self.eval(item))
        return {arr}

    def e_import(self, expr: list) -> Values:
        return self.project.import_values(self, expr[1], expr[2])

    def e_require(self, expr: list) -> Values:
        return self.project.import_values(self, expr[1], None)

    def e_declared(self, expr: list) -> Values:
        return self.project.declared(self, expr[1], expr[2])

    def e_typed(self, expr: list) -> Values:
        """`const x: T = value`: what the value is when it is an object of the program's (a `new`, a
        function); a placeholder (`undefined`, `[]`, a constant) leaves it to the type, which says
        what the variable or field holds for its whole life."""
        value = self.eval(expr[1])
        declared = self.eval(expr[2])
        return value | self.interfaces(declared) if settled(value) else value | declared

    def interfaces(self, values: Values) -> set[Value]:
        """The instances of interfaces among declared values: what a call on the variable names (the
        interface's method) beside the object it holds (edges.py makes that one a dispatch candidate)."""
        return {v for v in values if v[0] == INST and any(s.kind == "interface" for s in self.project.symbols(v))}

    def e_cast(self, expr: list) -> Values:
        return self.eval(expr[2]) or self.eval(expr[1])

    def e_union(self, expr: list) -> Values:
        return set().union(*(self.eval(part) for part in expr[1]))

    def e_sequence(self, expr: list) -> Values:
        last: Values = EMPTY
        for part in expr[1]:
            last = self.eval(part)
        return last

    def e_effects(self, expr: list) -> Values:
        for part in expr[1]:
            self.eval(part)
        return {SOMETHING}

    def e_await(self, expr: list) -> Values:
        return self.eval(expr[1])

    # members -------------------------------------------------------------------------------------
    def field(self, obj: Value, key: str) -> Values:
        """What the program stores in a property: here, and where the object was made."""
        obj = obj[:3]
        here = self.cell(("F", obj, key))
        if obj[1] and obj[1] != self.module:
            there = self.project.field(obj, key, self.layer + 1)
            return here | there if here else there
        return here

    def attr(self, obj: Value, key: str, site: Site) -> Values:
        """`obj.key`: what it holds, a getter's result (the getter is called at `site`), narrowed
        where the strong updates tell (a member read of the program: `site` >= 0)."""
        found = self._attr(obj, key, site)
        if site.__class__ is int and site >= 0:  # type: ignore[operator]
            narrowed = self.strong.get(site)
            if narrowed is not None:
                found = {v for v in found if v in narrowed}
            self.read_values.setdefault(site, set()).update(found)
        return found

    def _attr(self, obj: Value, key: str, site: Site) -> Values:
        kind = obj[0]
        if kind == OUTSIDE:
            return {(OUTSIDE, "", f"{obj[2]}.{key}")}
        if kind == PARAM:
            return {(PARAM, obj[1], obj[2], (*obj[3], key))}  # type: ignore[misc]
        if kind == MODULE_OBJECT:
            return self.exports(obj[1]) if key == "exports" else EMPTY
        if kind == NAMESPACE:
            if obj[1] == self.module:
                return self.field(obj, key) | self.field(obj, ANY) | self.project.star_exports(self, key)
            return self.project.export(self, obj[1], key)
        if kind not in HAS_FIELDS:
            return EMPTY
        if key == "prototype" and kind in (CLASS, FUNC):
            return {(PROTO, obj[1], obj[2])}
        found = self.lookup(obj, key)
        if not found:
            return self.project.member_type(self, obj, key) if is_generic(obj) else EMPTY
        out: set[Value] = set()
        for value in found:
            flags = self.flags(value) if value[0] == FUNC else ""
            if "G" in flags:
                out |= self.invoke(site, value, [], {obj})
            elif "S" not in flags:
                out.add(value)
        return out

    def lookup(self, obj: Value, key: str) -> Values:
        """A property along the prototype chain: an instance's own fields (set by any class along
        its chain), else the first prototype holding it; a class's statics likewise; an object's
        fields. What the project's symbols declare fills in where the program stores nothing."""
        kind = obj[0]
        if kind == INST:
            chain = self.mro((CLASS, obj[1], obj[2]))
            own: set[Value] = set()
            for cls in chain:
                own |= self.field((INST, cls[1], cls[2]), key)
            for cls in chain:
                found = self.field((PROTO, cls[1], cls[2]), key)
                if found:
                    return own | found
            return own or self.project.members(self, obj, key)
        if kind in (CLASS, PROTO):
            for cls in self.mro((CLASS, obj[1], obj[2])):
                found = self.field((kind, cls[1], cls[2]), key)
                if found:
                    return found
            return self.project.members(self, obj, key) if kind == CLASS else EMPTY
        found = self.field(obj, key)
        if kind == ARRAY and not key.isdigit():  # (a method of the runtime's, or `length`)
            return found
        return found | self.field(obj, ANY) if kind == ARRAY or not found else found

    def overrides(self, cls: Value, key: str) -> list[Value]:
        """The methods named `key` that subclasses of cls define themselves: here (what their
        prototypes hold), and elsewhere in the project (methods of that name whose class derives from cls)."""
        here = {v for qualname in self.p.classes.values()
                if (sub := (CLASS, self.module, qualname)) != cls and cls in self.mro(sub)[1:]
                for v in self.cell(("F", (PROTO, self.module, qualname), key)) if v[0] == FUNC}
        elsewhere = self._overrides_elsewhere.get((cls, key))
        if elsewhere is None:  # (what the symbols say: the same all through the fixpoint)
            elsewhere = self._overrides_elsewhere[(cls, key)] = self.project.overrides(self, cls, key)
        named = {fqn_of(v) for v in here}  # type: ignore[arg-type]
        return sorted(here | {v for v in elsewhere if fqn_of(v) not in named}, key=str)  # type: ignore[arg-type]

    def call_hooks(self, site: Site, receiver: Value, name: str, args: list) -> Values | None:
        """`this.name(args)` in the code of a class that lacks `name` (nor do its bases): the methods
        of that name its subclasses define, each a guess (Analysis.hooks), given the arguments as any
        call; None when no subclass defines it."""
        hooks = self.overrides((CLASS, receiver[1], receiver[2]), name) if self.follows_hooks else None
        if not hooks:
            return None
        out: set[Value] = set()
        self.guessing = True
        try:
            for hook in hooks:
                out |= self.invoke(site, hook, args, EMPTY)  # (its `this`: its own class's code says)
        finally:
            self.guessing = False
        return out

    def outside_based(self, cls: Value) -> bool:
        """Whether a class along cls's bases extends something outside the project (the runtime's, a
        package's), whose members are not known."""
        for owner in self.mro(cls):
            bases = self.cell(("base", owner)) if owner[1] == self.module else self.project.bases(self, owner)
            if any(b[0] == OUTSIDE for b in bases):
                return True
        return False

    def accessor(self, obj: Value, key: str, flag: str) -> list[Value]:
        if obj[0] not in (INST, CLASS, OBJECT):
            return []
        return [v for v in self.lookup(obj, key) if v[0] == FUNC and flag in self.flags(v)]

    def all_fields(self, obj: Value) -> Values:
        """Every property of an object (a read with a key not known): arrays and objects only."""
        obj = obj[:3]
        if obj[0] not in (ARRAY, OBJECT):
            return EMPTY
        out: set[Value] = set()
        for key in self.fields_of(obj):
            out |= self.cell(key)
        return out

    def copy_fields(self, source: Value, target: Value) -> None:
        """`{...source}`, `Object.assign(target, source)`: source's properties become target's."""
        source, target = source[:3], target[:3]
        if source[0] not in (OBJECT, ARRAY, PROTO, CLASS, INST):
            return
        self.wrote(ANY)
        # (only enumerable properties are copied: not the methods, getters and setters of a class body)
        hidden = self.class_members.get(source, set()) if source[1] == self.module else \
            self.project.class_members(source, self.layer + 1)
        for key in self.fields_of(source):
            if key[2] not in hidden:
                self.add_cell(("F", target, key[2]), self.cell(key))
        if source[1] != self.module and source[0] in (CLASS, PROTO):  # another module's class
            for name in self.project.member_names(source):
                if name not in hidden:
                    self.add_cell(("F", target, name), self.project.field(source, name, self.layer + 1))

    def exports(self, module: str) -> Values:
        """What `require` of this file gives: what `module.exports` was set to, else its exports."""
        return self.cell(("X", module)) or {(NAMESPACE, module, "")}

    def flags(self, fn: Value) -> str:
        """The function's flags (a getter and a setter of one property share its name: both)."""
        if fn[1] == self.module:
            return self.p.flags_of(fn[2])  # type: ignore[arg-type]
        return self.project.flags(fn, self.layer + 1)

    def mro(self, cls: Value) -> list[Value]:
        """The class, then its bases, nearest first (single inheritance; a mixin is copied in)."""
        chain = [cls]
        seen = {cls}
        while len(chain) < MAX_CHAIN:
            last = chain[-1]
            bases = self.cell(("base", last)) if last[1] == self.module else self.project.bases(self, last)
            nxt = next((b for b in sorted(bases, key=str) if b[0] in (CLASS, FUNC) and b not in seen), None)
            if nxt is None:
                break
            chain.append((CLASS, nxt[1], nxt[2]))
            seen.add(nxt)
        return chain

    # iteration -----------------------------------------------------------------------------------
    def index(self, values: Values, i: int) -> Values:
        out: set[Value] = set()
        for value in values:
            if value[0] == ARRAY:
                out |= self.field(value, str(i)) | self.field(value, ANY)
            elif value[0] in (GENERATOR, INST):
                out |= self.iterate({value}, -1)
        return out

    def rest(self, values: Values, start: int, end: int | None = None) -> Values:
        """`[a, ...rest] = list`: a list of the items from `start` on (to `end`: `list.slice(1, 3)`)."""
        out: set[Value] = set()
        for value in values:
            if value[0] != ARRAY:
                continue
            rest: Value = (ARRAY, value[1], f"{value[2]}[{start}:{'' if end is None else end}]")
            for key in self.fields_of(value):
                index = int(key[2]) if key[2].isdigit() else None
                shifted = (str(index - start) if start <= index and (end is None or index < end) else None) \
                    if index is not None else ANY if key[2] == ANY else None
                if shifted is not None:
                    self.add_cell(("F", rest, shifted), self.cell(key))
            out.add(rest)
        return out

    def iterate(self, values: Values, site: Site) -> Values:
        """The items a loop, a spread or `yield*` takes from values: an array's, a generator's
        yields, what an iterable object's `[Symbol.iterator]` gives (called at `site`)."""
        out: set[Value] = set()
        for value in values:
            kind = value[0]
            if kind == ARRAY:
                out |= self.all_fields(value) | self.field(value, ANY)
            elif kind == PARAM:  # the items of what a caller passes: theirs to tell
                out.add((PARAM, value[1], value[2], (*value[3], ANY)))  # type: ignore[misc]
            elif kind == GENERATOR:
                fn = (FUNC, value[1], value[2])
                if fn[1] == self.module:  # (its body runs here, as it is iterated)
                    self.invoked.setdefault(self.cur, set()).update(self.p.scopes_of(fn[2]))  # type: ignore[arg-type]
                out |= self.cell(("y", fn)) if fn[1] == self.module else self.project.yields(fn, self.layer + 1)
            elif kind == INST:
                for method in self.lookup(value, ITERATOR):
                    results = self.invoke(site, method, [], {value})
                    if "g" in self.flags(method):
                        out |= self.iterate(results, site)
                        continue
                    for iterator in results:
                        for step in self.attr(iterator, "next", -1):
                            for result in self.invoke((site, "next"), step, [], {iterator}):
                                out |= self.attr(result, "value", -1)
        return out

    # calls ---------------------------------------------------------------------------------------
    def e_call(self, expr: list) -> Values:
        return self.call(expr[1], expr[2], [self.argument(a) for a in expr[3]])

    def e_jsx(self, expr: list) -> Values:
        """`<Comp {...props}/>`: a function component is called with its props, a class component
        is instantiated with them."""
        site, props = expr[1], [self.eval(expr[3])]
        components = self.eval(expr[2])
        for component in components:
            if component[0] == CLASS:
                self.instantiate(site, component, props)
            else:
                self.invoke(site, component, props, EMPTY)
        if not components:
            self.unknown[site] = "member" if expr[2].__class__ is list and expr[2][0] == "a" else "free"
        return EMPTY

    def argument(self, arg: object) -> Values | tuple[str, Values]:
        if arg.__class__ is list and arg[0] == "*":  # type: ignore[index]
            return ("*", self.iterate(self.eval(arg[1]), -1))  # type: ignore[index]
        return self.eval(arg)

    def call(self, site: Site, callee: object, args: list) -> Values:
        out: set[Value] = set()
        found = False
        if callee.__class__ is list and callee[0] == "a":  # type: ignore[index]
            name = callee[2]  # type: ignore[index]
            self.reads[callee[3]] = (self.cur, callee[1], name)  # type: ignore[index]
            receivers = self.eval(callee[1])  # type: ignore[index]
            for receiver in receivers:
                result = self.method_call(site, receiver, name, args, callee[3])  # type: ignore[index]
                if result is not None:
                    out |= result
                    found = True
            if not receivers:
                self.unknown[site] = "member"
                known = runtime.table("array").get(name) or runtime.table("promise").get(name)
                if known is not None:  # `rows.forEach(f)` of rows nothing is known of: the runtime's, likely
                    self.builtin(site, known, EMPTY, args)
        elif callee.__class__ is list and callee[0] == "S":  # type: ignore[index]
            this = self.eval(["this", callee[2]])  # type: ignore[index]
            for base in self.mro(self.klass(callee[1]))[1:]:  # type: ignore[index]
                methods = self.field((PROTO, base[1], base[2]), callee[3])  # type: ignore[index]
                if methods:
                    for method in methods:
                        out |= self.invoke(site, method, args, this)
                    found = True
                    break
        else:
            callees = self.eval(callee)
            for fn in callees:
                out |= self.invoke(site, fn, args, EMPTY)
            found = any(fn[0] != PARAM for fn in callees)
            if not callees:
                self.unknown[site] = "free" if callee.__class__ is list and callee[0] == "n" else "local"  # type: ignore[index]
        if found:
            self.unknown.pop(site, None)
            self.opaque.pop(("unknown", site), None)
        else:
            self.opaque[("unknown", site)] = self.cur  # (what was called, and what it did, is not known)
        if site not in self.edges:  # nothing of the project called here: what it is given is handed out
            self.hand_out(site, args)
        return out

    def method_call(self, site: Site, receiver: Value, name: str, args: list, member_site: Site) -> Values | None:
        """`receiver.name(args)`; None when the receiver has no such member."""
        kind = receiver[0]
        if kind in (FUNC, BOUND) and name in ("call", "apply", "bind"):
            return self.function_protocol(site, receiver, name, args)
        if kind == PARAM:  # a method of what callers pass: theirs to tell; the names meanwhile
            self.invoke(site, (PARAM, receiver[1], receiver[2], (*receiver[3], name)), args, EMPTY)  # type: ignore[misc]
            return None
        methods = self.attr(receiver, name, member_site)
        if methods:
            out: set[Value] = set()
            for method in methods:
                result = self.invoke(site, method, args, {receiver})
                if not ours(result) and method[0] == FUNC and is_generic(receiver):  # `find(): T` of a Repo<User>
                    result = self.project.declared_returns(self, method, receiver)
                out |= result
            if len(receiver) > 3:  # `this` in a class's code: an instance of a subclass may override it
                for method in methods:
                    if method[0] == FUNC:
                        base = fqn_of(method)  # type: ignore[arg-type]
                        for override in self.overrides((CLASS, receiver[1], receiver[2]), name):
                            self.dispatch.setdefault(site, {}).setdefault(fqn_of(override), base)  # type: ignore[arg-type]
            return out
        if kind == INST and len(receiver) > 3 and (hooked := self.call_hooks(site, receiver, name, args)) is not None:
            return hooked
        if kind == ARRAY and name in runtime.table("array"):
            return self.builtin(site, runtime.table("array")[name], {receiver}, args)
        if name in runtime.table("promise") and kind not in (ARRAY,):
            return self.builtin(site, runtime.table("promise")[name], {receiver}, args)
        if kind == OUTSIDE:
            return self.outside_call(site, f"{receiver[2]}.{name}", args)
        if kind == INST and len(receiver) > 3 and not self.outside_based((CLASS, receiver[1], receiver[2])):
            self.lost.add(site)  # (nothing of the project has it: no target, kept by its name)
        return None

    def function_protocol(self, site: Site, fn: Value, name: str, args: list) -> Values:
        """`f.call(this, ...)`, `f.apply(this, [args])`, `f.bind(this, ...)`."""
        plain = [a for a in args if not isinstance(a, tuple)]
        this = plain[0] if plain else EMPTY
        if name == "call":
            return self.invoke(site, fn, args[1:], this)
        if name == "apply":
            packed = plain[1] if len(plain) > 1 else EMPTY
            spread = [self.index(packed, i) for i in range(4)] if packed else []
            return self.invoke(site, fn, spread, this)
        bound: Value = (BOUND, self.module, f"{self.p.sites[site][2]}@{site}")
        self.add_cell(("F", bound, "$target"), {fn})
        self.add_cell(("F", bound, "$this"), this)
        for i, arg in enumerate(args[1:]):
            if not isinstance(arg, tuple):
                self.add_cell(("F", bound, f"${i}"), arg)
        return {bound}

    def invoke(self, site: Site | tuple[Site, str], callee: Value, args: list, this: Values) -> Values:
        kind = callee[0]
        if site.__class__ is int and kind in (FUNC, BOUND):
            self.site_funcs.setdefault(site, set()).add(callee)  # type: ignore[arg-type]
        if kind == FUNC:
            self.edge(site, Relation.CALLS, fqn_of(callee))  # type: ignore[arg-type]
            if callee[1] == self.module:
                self.pass_args(callee, args, this)
            else:
                self.replay(site, callee, args)
            if "g" in self.flags(callee):
                return {(GENERATOR, callee[1], callee[2])}
            if callee[1] == self.module:
                return self.passed_back(callee, args) or self.returns(callee)
            result = self.returns(callee)
            if not any(v[0] == PARAM for v in result):
                return result
            return self.given(callee, result, args)  # what another module's function returns of its arguments
        if kind == BOUND:
            return self.invoke_bound(site, callee, args)
        if kind == OUTSIDE:
            if callee[2] == "eval":
                self.dynamic.add(site)
                self.opaque[("eval", site)] = self.cur
            return self.outside_call(site, str(callee[2]), args)
        if kind == PARAM:
            self.opaque[("param", site)] = self.cur  # (what the caller passes runs)
        if kind == PARAM and site.__class__ is int and site >= 0:  # type: ignore[operator]
            src = self.p.fqn(self.p.sites[site][2])  # type: ignore[index]
            name = self.p.sites[site][1]  # type: ignore[index]
            self.note_param_call(callee, src, name, args)
        return EMPTY

    def invoke_bound(self, site: Site | tuple[Site, str], callee: Value, args: list) -> Values:
        """A bound function called: its target, with the bound `this` and the bound arguments first.
        A bound function may be bound again, to itself too (`this.f = this.f.bind(this)` read back
        by the fixpoint): each one is followed once, by a loop, so no chain or cycle of binds nests."""
        if site.__class__ is int:
            self.bound_sites.add(site)  # type: ignore[arg-type]
        out: set[Value] = set()
        pending, seen = [(callee, args)], {callee}
        while pending:
            bound, given = pending.pop()
            bound_this = self.field(bound, "$this")
            bound_args = []
            i = 0
            while ("F", bound, f"${i}") in self.cells:
                bound_args.append(self.field(bound, f"${i}"))
                i += 1
            for target in self.field(bound, "$target"):
                if target[0] != BOUND:
                    out |= self.invoke(site, target, [*bound_args, *given], bound_this)
                elif target not in seen:  # (its own `this` holds: a bound function ignores another)
                    seen.add(target)
                    if site.__class__ is int:
                        self.site_funcs.setdefault(site, set()).add(target)  # type: ignore[arg-type]
                    pending.append((target, [*bound_args, *given]))
        return out

    def passed_back(self, fn: Value, args: list) -> Values:
        """What a function of this file that returns its own parameters returns at this call: the
        arguments given there (nothing known when a spread, a missing argument or two definitions
        of the name leave it open)."""
        scopes = self.p.scopes_of(fn[2])  # type: ignore[arg-type]
        positions = self.p.passes_through.get(scopes[0]) if len(scopes) == 1 else None
        if not positions or positions[-1] >= len(args) or any(isinstance(a, tuple) for a in args):
            return EMPTY
        return set().union(*(args[i] for i in positions))

    def note_param_call(self, token: Value, src: str, name: str, args: list) -> None:
        given = self.param_calls.setdefault(token[2], {}).setdefault((token[3], src, name), [])  # type: ignore[arg-type, index]
        for i, arg in enumerate(args):
            if i >= len(given):
                given.append(set())
            self._grow(given[i], arg[1] if isinstance(arg, tuple) else arg)

    def replay(self, site: Site | tuple[Site, str], fn: Value, args: list) -> None:
        """What another module's function does with its parameters, done with these arguments:
        the functions it calls through them (edges from it, owned by this file, at this call), the
        properties it writes into them."""
        there = self.project.analysis(fn[1], self.layer + 1)  # type: ignore[arg-type]
        if there is None or site.__class__ is not int:
            return
        calls = there.param_calls.get(fn[2], {})  # type: ignore[arg-type]
        writes = there.param_writes.get(fn[2], {})  # type: ignore[arg-type]
        self.spend(len(calls) + len(writes))
        for (path, src, name), passed in sorted(calls.items()):
            given = [self.given(fn, values, args) for values in passed]
            for target in self.through(args, path):
                if target[0] == FUNC:
                    targets = self.foreign.setdefault(site, {}).setdefault((src, path), set())  # type: ignore[call-overload]
                    targets.add(fqn_of(target))  # type: ignore[arg-type]
                    if target[1] == self.module:  # our callback gets what that function gives it
                        self.pass_args(target, given, EMPTY)
                elif target[0] == PARAM:  # passed on from our own caller
                    self.note_param_call(target, src, name, given)
        for (path, key), values in sorted(writes.items()):
            for target in self.through(args, path):
                self.write(target, key, self.given(fn, values, args), -1)

    def given(self, fn: Value, values: Values, args: list) -> set[Value]:
        """Values another module's function passes or stores, its own parameters replaced by what
        this call gives them (another function's parameters there are not known here)."""
        out: set[Value] = set()
        self.spend(len(values))
        for value in values:
            if value[0] != PARAM:
                self._grow(out, (value,))
            elif value[2] == fn[2]:
                self._grow(out, self.through(args, value[3]))  # type: ignore[arg-type]
        return out

    def through(self, args: list, path: tuple) -> Values:
        """The values at a parameter's path (position, then properties) in these arguments (each step
        capped as any set is: a path through every item of every item grows without one)."""
        position = path[0]
        if position >= len(args) or isinstance(args[position], tuple):
            return EMPTY
        values: Values = args[position]
        for key in path[1:]:
            found: set[Value] = set()
            self.spend(len(values))
            for value in values:
                self._grow(found, self.all_fields(value) if key == ANY else self.attr(value, key, -1))
                if len(found) >= MAX_VALUES:
                    break
            values = found
        return values

    def pass_args(self, fn: Value, args: list, this: Values, by_project: bool = True) -> None:
        for idx in self.p.scopes_of(fn[2]):  # type: ignore[arg-type]
            self.invoked.setdefault(self.cur, set()).add(idx)
            if by_project:
                self.called.add(idx)
            if this and "a" not in self.p.flags(idx):
                self.add_cell(("t", idx), this)
            params = self.p.params(idx)
            if not any(isinstance(arg, tuple) for arg in args):
                self.defaults(idx, len(args))
            for i, arg in enumerate(args):
                if isinstance(arg, tuple):  # a spread: from here on, every parameter may get its items
                    for var, _, _ in params[i:]:
                        self.add_var(var, arg[1])
                    break
                if i < len(params):
                    var, rest, _ = params[i]
                    if rest:
                        packed: Value = (ARRAY, self.module, f"{fn[2]}(...)")
                        for arg_ in args[i:]:
                            self.add_cell(("F", packed, ANY), arg_[1] if isinstance(arg_, tuple) else arg_)
                        self.add_var(var, {packed})
                        break
                    self.add_var(var, arg)

    def returns(self, fn: Value) -> Values:
        found = self.cell(("r", fn)) if fn[1] == self.module else self.project.returns(fn, self.layer + 1)
        declared = self.project.declared_returns(self, fn)
        return found | self.interfaces(declared) if settled(found) else found | declared

    def e_new(self, expr: list) -> Values:
        site = expr[1]
        args = [self.argument(a) for a in expr[3]]
        callees = self.eval(expr[2])
        out: set[Value] = set()
        for callee in callees:
            if callee[0] == CLASS:
                out |= self.instantiate(site, callee, args)
            elif callee[0] == FUNC:  # a constructor function: `this` is the new object
                instance: Value = (INST, callee[1], callee[2])
                self.edge(site, Relation.CALLS, fqn_of(callee))  # type: ignore[arg-type]
                if callee[1] == self.module:
                    self.pass_args(callee, args, {instance})
                out.add(instance)
            elif callee[0] == OUTSIDE:
                built = runtime.table("constructors").get(str(callee[2]))
                if built is not None:
                    self.builtin(site, built, EMPTY, args)
                out.add((OUTSIDE, "", f"{callee[2]}()"))
        if not callees:
            self.unknown[site] = "new"
            self.opaque[("unknown", site)] = self.cur
        else:
            self.opaque.pop(("unknown", site), None)
        if site not in self.edges:
            self.hand_out(site, args)
        return out

    def instantiate(self, site: Site, cls: Value, args: list) -> Values:
        self.edge(site, Relation.INSTANTIATES, fqn_of(cls))  # type: ignore[arg-type]
        instance: Value = (INST, cls[1], cls[2])
        for owner in self.mro(cls):
            for idx in self.local_class_scopes(owner):
                self.add_cell(("t", idx), {instance})  # its field initialisers run on the instance
        for owner in self.mro(cls):
            constructors = self.field((PROTO, owner[1], owner[2]), "constructor")
            if not constructors and owner[1] != self.module:
                constructors = self.project.constructors(self, owner)
            if constructors:
                for ctor in constructors:
                    self.invoke(site, ctor, args, {instance})
                break
        return {instance}

    def local_class_scopes(self, cls: Value) -> list[int]:
        if cls[1] != self.module:
            return []
        return [i for i in self.p.scopes_of(cls[2]) if self.p.scopes[i][1] == "class"]  # type: ignore[arg-type]

    def e_super_call(self, expr: list) -> Values:
        """`super(args)`: the first constructor along the bases, on this `this`."""
        site, this = expr[1], self.eval(["this", expr[3]])
        args = [self.argument(a) for a in expr[4]]
        for base in self.mro(self.klass(expr[2]))[1:]:
            constructors = self.field((PROTO, base[1], base[2]), "constructor")
            if not constructors and base[1] != self.module:
                constructors = self.project.constructors(self, base)
            if constructors:
                for ctor in constructors:
                    self.invoke(site, ctor, args, this)
                break
        return EMPTY

    def e_super_member(self, expr: list) -> Values:
        for base in self.mro(self.klass(expr[1]))[1:]:
            found = self.field((PROTO, base[1], base[2]), expr[3])
            if found:
                return found
        return EMPTY

    # the runtime ---------------------------------------------------------------------------------
    def outside_call(self, site: Site, name: str, args: list) -> Values:
        """A function of the runtime or of a package: what runtime.toml says it does."""
        if name == "Object.assign" and args and not isinstance(args[0], tuple):
            for target in args[0]:
                for source_values in args[1:]:
                    for source in (source_values[1] if isinstance(source_values, tuple) else source_values):
                        self.copy_fields(source, target)
            return args[0]
        if name == "Object.create" and args and not isinstance(args[0], tuple):
            made: Value = (OBJECT, self.module, f"create@{site}")
            for proto in args[0]:
                self.copy_fields(proto, made)
            return {made}
        built = runtime.table("functions").get(name)
        if built is None:
            if name.partition(".")[0] not in self.project.rules.builtins or name in runtime.MUTATORS:
                self.opaque[("outside", site)] = self.cur  # a package's, or the runtime's writing properties
            return EMPTY
        items = args[built.items] if 0 <= built.items < len(args) else EMPTY
        return self.builtin(site, built, items[1] if isinstance(items, tuple) else items, args)

    def builtin(self, site: Site, built: runtime.Builtin, receiver: Values, args: list) -> Values:
        """A method of the runtime on `receiver` (for a function: the argument whose items it takes)."""
        plain = [a[1] if isinstance(a, tuple) else a for a in args]
        items = self.iterate(receiver, -1)
        results: set[Value] = set()
        initial = plain[built.initial] if 0 <= built.initial < len(plain) else EMPTY
        if built.callback:
            self.runtime_calls.add(site)
        for position in built.callback:
            if position >= len(plain):
                continue
            acc = set(initial) | results
            given = {"item": items, "receiver": receiver, "value": receiver, "acc": acc, "some": {SOMETHING}}
            for fn in plain[position]:
                if fn[0] in (FUNC, BOUND):
                    results |= self.invoke_handed(site, fn, [given.get(role, EMPTY) for role in built.args])
        if built.adds:
            self.wrote(ANY)
            for arg in plain:
                for value in receiver:
                    self.add_cell(("F", value, ANY), arg)
        return self._builtin_result(site, built.returns, receiver, items, results, initial, plain)

    def _builtin_result(self, site: Site, returns: str, receiver: Values, items: Values, results: Values,
                        initial: Values, plain: list) -> Values:
        if returns == "slice":  # `list.slice(1, 3)`: the items between two indices known (of this file's arrays)
            bounds = [_index(plain[i]) if i < len(plain) else None for i in (0, 1)]
            if (bounds[0] is not None or len(plain) == 0) and (bounds[1] is not None or len(plain) < 2) and all(
                    value[0] == ARRAY and value[1] == self.module for value in receiver) and receiver:
                return self.rest(receiver, bounds[0] or 0, bounds[1])
            returns = "items"
        if returns == "results" or returns == "items":
            made: Value = (ARRAY, self.module, f"{returns}@{site}")
            self.add_cell(("F", made, ANY), results if returns == "results" else items)
            return {made}
        if returns == "item":
            return items
        if returns == "receiver":
            return receiver
        if returns in ("value", "acc"):
            return set(results) | (set(initial) if returns == "acc" else set())
        if returns == "first":
            return plain[0] if plain else EMPTY
        return EMPTY

    def invoke_handed(self, site: Site, fn: Value, args: list) -> Values:
        """A function the runtime calls back with these arguments: an edge from the caller of the
        runtime, as for any function handed out (edges.py), and its parameters get them."""
        if fn[0] == FUNC and fn[1] == self.module:
            self.pass_args(fn, args, EMPTY, by_project=False)
            return self.returns(fn)
        return self.invoke(-1, fn, args, EMPTY) if fn[0] == BOUND else self.returns(fn)

    def hand_out(self, site: Site, args: list) -> None:
        """Functions given to a call nothing of the project answers: the runtime's or a package's
        code calls them, on behalf of the function that handed them over."""
        handed = [a[1] if isinstance(a, tuple) else a for a in args]
        functions = [{v for v in values if v[0] in (FUNC, BOUND)} for values in handed]
        if any(functions):
            self.handed[site] = [f for f in functions if f]

    def edge(self, site: Site | tuple[Site, str], relation: str, target: str) -> None:
        """A target of a call site; (site, name): another call the site makes (`next` of a loop)."""
        if (site if site.__class__ is int else site[0]) < 0:  # type: ignore[index]
            return
        if self.guessing:
            self.hooks.setdefault(site, set()).add(target)  # type: ignore[arg-type]
            return
        self.edges.setdefault(site, {}).setdefault(relation, set()).add(target)


_EXECUTE = {
    "=": Analysis.s_assign, "e": Analysis.s_effects, "r": Analysis.s_return, "y": Analysis.s_yield,
    "for": Analysis.s_for, "b": Analysis.s_base, "m": Analysis.member, "fld": Analysis.s_field,
    "exp": Analysis.s_export, "dflt": Analysis.s_defaults, "star": Analysis.s_none,
}


def _index(values: Values) -> int | None:
    """The one non-negative integer constant values hold (an array index), else None."""
    if len(values) != 1:
        return None
    key = key_of(next(iter(values)))
    return int(key) if key is not None and key.isdigit() else None


def ours(values: Values) -> bool:
    """Whether any of the values is the program's own (not the runtime's, a constant, a parameter)."""
    return any(v[0] not in (OUTSIDE, CONST, SOME, PARAM) for v in values)


def settled(values: Values) -> bool:
    """Whether values hold an object of the program's (a `new`, a function) that a declared type
    would only widen; a placeholder (`undefined`, `[]`, a constant, what a caller passes) leaves the
    declared type to say what the variable, field or result holds."""
    return any(v[0] not in (OUTSIDE, CONST, SOME, PARAM, ARRAY) for v in values)


def is_generic(value: Value) -> bool:
    """An instance whose type arguments a declared type gave (`Repo<User>`): (INST, module, qualname,
    (the values each argument says, ...))."""
    return len(value) > 3 and value[0] == INST and value[3].__class__ is tuple  # type: ignore[misc]


def open_instance(module: str, qualname: str) -> Value:
    """An instance of the class or of a subclass: `this` in the class's own code. A call on it
    goes to the class's member (along its bases), and the overrides subclasses define are the
    dispatch candidates (`Analysis.dispatch`)."""
    return (INST, module, qualname, "open")  # type: ignore[return-value]


_EVAL = {
    "v": Analysis.e_vars, "n": Analysis.e_free, "k": Analysis.e_const, "ks": Analysis.e_some,
    "a": Analysis.e_member, "s": Analysis.e_subscript, "c": Analysis.e_call, "new": Analysis.e_new,
    "f": Analysis.e_function, "C": Analysis.e_class, "this": Analysis.e_this, "o": Analysis.e_object,
    "l": Analysis.e_array, "imp": Analysis.e_import, "req": Analysis.e_require, "T": Analysis.e_declared,
    "td": Analysis.e_typed, "as": Analysis.e_cast, "u": Analysis.e_union, "q": Analysis.e_sequence,
    "x": Analysis.e_effects, "await": Analysis.e_await, "jsx": Analysis.e_jsx, "sc": Analysis.e_super_call,
    "S": Analysis.e_super_member,
}
