"""The points-to fixpoint over one module's statements."""

from __future__ import annotations

import builtins
from collections import deque
from collections.abc import Callable

from tenure.namespace.tiers import Relation
from tenure.structural.naming import qualify
from tenure.structural.resolve import MAX_CANDIDATES, SymbolInfo, note_order_dependence, shortfall
from tenure.structural.resolve.python.flows import ModuleFlow
from tenure.structural.resolve.python.modules import Lower, Project
from tenure.structural.resolve.python.values import (
    BOUND,
    BUILTIN,
    CLASS,
    CONST,
    DICT,
    EMPTY,
    EXT,
    EXT_INST,
    FUNC,
    GEN,
    INST,
    MODULE,
    NONE,
    NONE_KEY,
    OPEN,
    SEQ,
    SOME_BYTES_KIND,
    SOME_STR_KIND,
    SUPER,
    TYPE_METHOD,
    Value,
    allowed,
    constant,
    declared,
)

MAX_VALUES = 24  # a set that grows past this stops growing: precision is gone anyway
EVALUATIONS_PER_STATEMENT = 12  # the fixpoint's budget, so one pathological file stays cheap
SOME_STR: Value = (SOME_STR_KIND, "", "str")  # a string whose value is not known
SOME_BYTES: Value = (SOME_BYTES_KIND, "", "bytes")
_BUILTINS = frozenset(dir(builtins))
# Methods of literals, named as PyCG's benchmark names them; a list's have no benchmark name and
# give no edge (`<list>`), though their effect on the list is followed.
_LITERAL_TYPES = {CONST: "<**PyStr**>", SOME_STR_KIND: "<**PyStr**>", DICT: "<**PyDict**>", SEQ: "<list>",
                  SOME_BYTES_KIND: "<bytes>"}
_KEEPS_ITEMS = frozenset({"list", "tuple", "set", "frozenset", "sorted", "reversed", "iter"})
# Builtins that call one method of an instance they are given: `len(x)` is x.__len__()
_DUNDER_BUILTINS = {"len": "__len__", "str": "__str__", "repr": "__repr__", "format": "__format__",
                    "hash": "__hash__", "bool": "__bool__", "abs": "__abs__", "bytes": "__bytes__",
                    "int": "__int__", "float": "__float__", "complex": "__complex__", "round": "__round__",
                    "reversed": "__reversed__", "dir": "__dir__", "iter": "__iter__", "next": "__next__",
                    "aiter": "__aiter__", "anext": "__anext__"}
_ITERATES = frozenset({"list", "tuple", "set", "frozenset", "sorted", "min", "max", "sum", "any", "all",
                       "enumerate", "zip", "dict"})  # builtins that iterate over their first argument
_ITERATION = {"__iter__": "__next__", "__aiter__": "__anext__"}
_CONTEXT = {"__enter__": "__exit__", "__aenter__": "__aexit__"}
_IDENTITY = frozenset({"staticmethod", "classmethod", "property"})
_NAMED = frozenset({"v", "n"})  # callees written as a name (not `f()()`, `fs[0]()`)
_OPEN = frozenset({INST, CLASS, MODULE, SUPER})  # values whose members the project defines
_ATTR_LOOKUPS = frozenset({"getattr", "setattr", "delattr"})
# Bases only a type checker reads: they give an instance no member (a member a class lacks is
# not guessed to be theirs)
_TYPING_ONLY = frozenset(f"{m}.{n}" for m in ("typing", "typing_extensions") for n in ("Protocol", "Generic"))
# (the members themselves: looking one up on its enum class is a descriptor call, at every call site)
_CALLS, _INSTANTIATES = Relation.CALLS, Relation.INSTANTIATES


class Analysis:
    """The points-to fixpoint over one module's statements."""

    def __init__(self, mf: ModuleFlow, lower: Lower, project: Project, record: bool) -> None:
        self.mf = mf
        self.module = mf.module
        self.lower = lower
        self.project = project
        self.record = record
        self.vars: list[set | None] = [None] * mf.nvars
        self.var_readers: list[set[int] | None] = [None] * mf.nvars  # statements to run again when it grows
        self.cells: dict[tuple, set] = {}
        self.readers: dict[object, set[int]] = {}
        self.keys: dict[Value, set[object]] = {}  # an object's field keys, for reads of all of them
        self.edges: dict[object, dict[str, set[str]]] = {}  # site -> relation -> targets
        # site -> what each value called there gave (relation, target): values that give different
        # edges are alternatives, and none of them is certain
        self.called: dict[object, dict[Value, set[tuple[str, str]]]] = {}
        # site -> relation -> targets only a guess gives: an override or hook in a subclass (where the
        # receiver may be a subclass's instance), a definition found by its name alone
        self.guesses: dict[object, dict[str, set[str]]] = {}
        # site -> a guessed override -> the method the call names (the receiver's declared class's)
        self.dispatch: dict[object, dict[str, str]] = {}
        self.blind: dict[int, str] = {}  # call sites whose receiver is unknown -> the method name
        # implicit call sites (with, for, operators, subscripts, len() ...) -> 1: a receiver value is a
        # project object with the method, 2: one is something else (a builtin's, an external's method runs)
        self.implicit: dict[int, int] = {}
        # operator sites where the right operand's reflected method was asked, the left one unknown
        # (its own method may answer first), and those where the left one was known
        self.unknown_left: set[int] = set()
        self.known_left: set[int] = set()
        self.targetless: set[int] = set()  # call sites whose callee, a name or member, names nothing known
        self.looked_up: dict[int, tuple[frozenset, frozenset]] = {}  # dynamic getattr sites: objects, names
        self._calling: tuple[object, Value] | None = None  # (site, value) whose call is being followed
        self._guessing = False
        self._guessed_names: set[str] = set()  # free names found only by a definition of that name
        self.cur = 0
        self.scope = 0
        self.settling = -1  # the statement whose unknown decorators may now keep their function
        self.undecided: set[int] = set()
        self.budget = 0
        self.queue: deque[int] = deque()
        self.queued = bytearray()
        # statements woken by the one running, queued after it in source order: the order a set's
        # values are met in (string hashing) then never decides what runs first, nor what a spent
        # budget leaves undone
        self.woken: list[int] = []
        self.statements_left = 0  # what a spent budget left undone (`shortfall`)
        self.too_deep: set[int] = set()  # statements nested past Python's stack: their effects are skipped
        self._mro: dict[Value, list[Value]] = {}
        self._mro_users: dict[Value, set[Value]] = {}  # class -> the linearisations that include it
        self._subclasses: dict[Value, list[Value]] = {}
        # lookups into other modules, fixed during a run: asked once (the first ask records what they read)
        self._static: dict[tuple, frozenset | set | str] = {}

    # running -------------------------------------------------------------------------------------
    def run(self) -> None:
        stmts = self.mf.stmts
        self.queue = deque(range(len(stmts)))
        self.queued = bytearray(b"\x01" * len(stmts))
        self.budget = EVALUATIONS_PER_STATEMENT * len(stmts) + 1000
        self._drain()
        # Decorations still unknown at the fixpoint leave their function as it is, decided one at a
        # time in source order (an inner function's decorator first), the effects of each first.
        settled: set[int] = set()
        while pending := sorted(self.undecided - settled):
            self.settling = pending[0]
            settled.add(pending[0])
            self._wake_one(pending[0])
            self._drain()

    def _drain(self) -> None:
        stmts, queue, woken = self.mf.stmts, self.queue, self.woken
        while (queue or woken) and self.budget > 0:
            if woken:
                woken.sort()
                queue.extend(woken)
                woken.clear()
            self.budget -= 1
            i = queue.popleft()
            self.queued[i] = 0
            stmt = stmts[i]
            self.cur, self.scope = i, stmt[1]
            try:
                self.execute(stmt)
            except RecursionError:  # (a value nested deeper than the stack: the rest of the module still counts)
                self.too_deep.add(i)
        if queue or woken:
            self.statements_left = max(self.statements_left, len(queue) + len(woken))
            note_order_dependence()  # out of budget: what was left undone followed the order

    def shortfall(self) -> str:
        """Why this analysis is a part of what the module does ("" when it is not)."""
        return shortfall(self.statements_left, len(self.too_deep))

    def _wake_one(self, i: int) -> None:
        if not self.queued[i]:
            self.queued[i] = 1
            self.woken.append(i)

    def _wake(self, key: object) -> None:
        for i in self.readers.get(key, ()):
            self._wake_one(i)

    def _read(self, key: object) -> None:
        readers = self.readers.get(key)
        if readers is None:
            self.readers[key] = {self.cur}
        else:
            readers.add(self.cur)

    def add_var(self, var: int, values: frozenset | set) -> None:
        if not values:
            return
        have = self.vars[var]
        if have is None:
            have = self.vars[var] = set()
        size = len(have)
        if size < MAX_VALUES:
            have |= values
            if len(have) != size:
                for i in self.var_readers[var] or ():
                    self._wake_one(i)
        elif not values <= have:
            note_order_dependence()  # which values got in first followed the iteration order

    def add_cell(self, key: tuple, values: frozenset | set) -> bool:
        """Add to a cell; True when it grew."""
        if not values:
            return False
        have = self.cells.get(key)
        if have is None:
            have = self.cells[key] = set()
        size = len(have)
        if size >= MAX_VALUES:
            if not values <= have:
                note_order_dependence()
            return False
        have |= values
        if len(have) == size:
            return False
        self._wake(key)
        if key[0] == "F":
            self.keys.setdefault(key[1], set()).add(key[2])
            self._wake(("F*", key[1]))
        return True

    def read_var(self, var: int) -> frozenset | set:
        readers = self.var_readers[var]  # (the hottest read: `_read` inlined)
        if readers is None:
            self.var_readers[var] = {self.cur}
        else:
            readers.add(self.cur)
        return self.vars[var] or EMPTY

    def cell(self, key: tuple) -> frozenset | set:
        self._read(key)
        return self.cells.get(key) or EMPTY

    def field(self, obj: Value, key: object) -> frozenset | set:
        slot = ("F", obj, key)
        readers = self.readers.get(slot)  # (`cell` inlined: the hottest read after variables')
        if readers is None:
            self.readers[slot] = {self.cur}
        else:
            readers.add(self.cur)
        local = self.cells.get(slot) or EMPTY
        if obj[1] and obj[1] != self.module:
            other = self._static.get(slot)
            if other is None:
                other = self._static[slot] = self.lower.field(obj, key)
            if other:
                return local | other if local else other
        return local

    def all_fields(self, obj: Value) -> set:
        self._read(("F*", obj))
        out: set = set()
        for key in self.keys.get(obj, ()):
            out |= self.cells[("F", obj, key)]
        return out

    # statements ----------------------------------------------------------------------------------
    def execute(self, stmt: list) -> None:
        op = stmt[0]
        if op == "=":
            self.assign(stmt[2], self.eval(stmt[3]))
        elif op == "e":
            self.eval(stmt[2])
        elif op == "r":
            self.add_cell(("r", self.mf.scopes[stmt[1]][0]), self.eval(stmt[2]))
        elif op == "y":
            self.add_cell(("y", self.mf.scopes[stmt[1]][0]), self.eval(stmt[2]))
        elif op == "Y":
            self.add_cell(("y", self.mf.scopes[stmt[1]][0]), self.items(self.eval(stmt[2]), stmt[3]))
        elif op == "for":
            self.assign(stmt[2], self.items(self.eval(stmt[3]), stmt[4]))
        elif op == "w":
            entered = self.entered(self.eval(stmt[3]), stmt[4])
            if stmt[2] is not None:
                self.assign(stmt[2], entered)
        elif op == "raise":
            for value in self.eval(stmt[2]):
                if value[0] == CLASS:
                    self.instantiate(stmt[3], value, [], [])
        elif op == "b":
            changed = False
            for i, base in enumerate(stmt[3]):
                changed = self.add_cell(("B", stmt[2], i), self.eval(base)) or changed
            if changed:
                self._forget_mro(self.mf.value(stmt[2]))

    def assign(self, target: list, values: frozenset | set) -> None:
        tag = target[0]
        if tag == "v":
            self.add_var(target[1], values)
        elif tag == "a":
            for obj in self.eval(target[1]):
                self.add_cell(("F", obj, target[2]), values)
        elif tag == "s":
            objs = self.eval(target[1])
            keys = self.eval(target[2]) if target[2] is not None else EMPTY
            for obj in objs:
                if obj[0] in (SEQ, DICT):
                    for key in _keys(keys):
                        self.add_cell(("F", obj, key), values)
                if obj[0] == INST:
                    self.call_method(target[3], obj, "__setitem__", [keys, values])
                else:
                    self.note_implicit(target[3], obj, False)
        elif tag == "t":
            self.unpack(target[1], target[2], values, target[3])

    def unpack(self, targets: list, star: int, values: frozenset | set, site: int) -> None:
        # each target gets what all the values give it at once: added value by value, a capped
        # set would keep those met first, in string-hash order
        assigned = [i for i, target in enumerate(targets) if target is not None and i != star]
        got: dict[int, set] = {i: set() for i in assigned}
        for value in values:
            if value[0] != SEQ:
                items = self.items((value,), site)
                for i in assigned:
                    got[i] |= items
                continue
            self.note_implicit(site, value, False)
            for i in assigned:
                positional = star < 0 or i < star
                got[i] |= self.field(value, i) | self.field(value, "*") if positional else self.all_fields(value)
        for i in assigned:
            self.assign(targets[i], got[i])

    # expressions ---------------------------------------------------------------------------------
    def eval(self, expr: list | int | None) -> frozenset | set:
        if expr.__class__ is int:
            return self.read_var(expr)  # type: ignore[arg-type]
        if expr is None:
            return EMPTY
        return _EVAL[expr[0]](self, expr)  # type: ignore[index]

    def e_vars(self, expr: list) -> frozenset | set:
        ids = expr[1]
        if len(ids) == 1:
            return self.read_var(ids[0])
        out: set = set()
        for var in ids:
            out |= self.read_var(var)
        return out

    def e_free(self, expr: list) -> frozenset | set:
        hit = self._static.get(("n", expr[1]))
        if hit is None:
            hit = self._static[("n", expr[1])] = self.free_name(expr[1])
        return hit

    def free_name(self, name: str) -> frozenset:
        """A name the file binds nowhere: from a star import, a builtin, or (a guess) a definition
        of that name elsewhere in the project."""
        outside = []
        for module, level in reversed(self.mf.star):  # the last star import binds over the ones before
            target = self.mf.absolute(module, level)
            if not target:
                continue  # above the top level: imports nothing
            if not self.project.exists(target):
                outside.append(target)
                continue
            found = self.lower.star_export(target, name)
            if found:
                return found
        if name in _BUILTINS:
            return frozenset({(BUILTIN, "", name)})
        if outside:  # most likely from the one module we cannot see into
            return frozenset({(EXT, "", f"{outside[0]}.{name}")}) if len(outside) == 1 else EMPTY
        self._guessed_names.add(name)
        return frozenset(_value_of(s) for s in self.project.named(name) if s.parent == s.module)

    def e_attr(self, expr: list) -> frozenset | set:
        out: set = set()
        for obj in self.eval(expr[1]):
            out |= self.attr(obj, expr[2])
        return out

    def e_subscript(self, expr: list) -> frozenset | set:
        given = self.eval(expr[2]) if expr[2] is not None else EMPTY
        keys = _keys(given) if expr[2] is not None else ["*"]
        out: set = set()
        for obj in self.eval(expr[1]):
            if obj[0] in (SEQ, DICT):
                if "*" in keys:
                    out |= self.all_fields(obj)
                else:
                    for key in keys:
                        out |= self.field(obj, key) | self.field(obj, "*")
            if obj[0] == INST:
                out |= self.call_method(expr[3], obj, "__getitem__", [given])
            else:
                self.note_implicit(expr[3], obj, False)
        return out

    def e_slice(self, expr: list) -> frozenset | set:
        out: set = set()
        lo, hi = expr[2] or 0, expr[3]
        for obj in self.eval(expr[1]):
            if obj[0] == INST:
                out |= self.call_method(expr[4], obj, "__getitem__", [EMPTY])
            else:
                self.note_implicit(expr[4], obj, False)
            if obj[0] != SEQ:
                continue
            copy = (SEQ, self.module, ("slice", obj, lo, NONE_KEY if hi is None else hi))  # (not None: see NONE)
            self._read(("F*", obj))
            for key in list(self.keys.get(obj, ())):
                inside = isinstance(key, int) and lo <= key and (hi is None or key < hi)
                if lo >= 0 and (hi is None or hi >= 0):
                    if inside:
                        self.add_cell(("F", copy, key - lo), self.cells[("F", obj, key)])
                elif key != "*":  # negative bounds: positions unknown
                    self.add_cell(("F", copy, "*"), self.cells[("F", obj, key)])
            self.add_cell(("F", copy, "*"), self.field(obj, "*"))
            out.add(copy)
        return out

    def e_const(self, expr: list) -> frozenset:
        return frozenset((constant(expr[1]),))

    def e_some_str(self, expr: list) -> frozenset:
        return frozenset({SOME_STR})

    def e_some_bytes(self, expr: list) -> frozenset:
        return frozenset({SOME_BYTES})

    def e_op(self, expr: list) -> frozenset | set:
        """An operator on instances: the first of its methods the receiver's class has, else the
        reflected one of the other operand's class (see the flow format)."""
        site, methods, reflected, keep = expr[1], expr[4], expr[5], expr[6]
        receivers = self.eval(expr[2])
        other = self.eval(expr[3]) if expr[3] is not None else EMPTY
        args = [other] if expr[3] is not None else []
        out: set = set()
        unanswered = not receivers  # (nothing known of the receiver: the other side may be asked)
        if reflected:  # (a receiver known in the end: a value nothing is known of was only not there yet)
            (self.known_left if receivers else self.unknown_left).add(site)
        for value in receivers:
            if value[0] == OPEN:
                continue
            found = next(((m, got) for m in methods if value[0] == INST and (got := self.dunder(value, m))), None)
            if found is not None:
                self.note_implicit(site, value, True)
                out |= self.call_methods((site, found[0]), found[1], args)
                if keep:  # (an in-place method returns its object: a method's `self` is its own class's)
                    out.add(value)
                continue
            unanswered = True
            if not reflected:  # (else the other operand's reflected method, or a builtin's, answers)
                self.note_implicit(site, value, False)
            if keep:
                out.add(value)
        for value in other if reflected and unanswered or keep else ():
            found_r = self.dunder(value, reflected) if reflected and unanswered and value[0] == INST else ()
            if reflected and unanswered:
                self.note_implicit(site, value, bool(found_r))
            if found_r:
                out |= self.call_methods((site, reflected), found_r, [receivers])
            elif keep and unanswered:  # (what a receiver's own method returned is the result)
                out.add(value)
        return out

    def e_seq(self, expr: list) -> frozenset:
        obj = (SEQ, self.module, expr[1])
        index: object = 0
        for item in expr[2]:
            if item.__class__ is list and item[0] == "*":
                self.add_cell(("F", obj, "*"), self.items(self.eval(item[1]), None))
                index = "*"  # positions after a starred item are unknown
                continue
            self.add_cell(("F", obj, index), self.eval(item))
            if index != "*":
                index += 1  # type: ignore[operator]
        return frozenset({obj})

    def e_dict(self, expr: list) -> frozenset:
        obj = (DICT, self.module, expr[1])
        for key, value in expr[2]:
            if key is None:  # {**other}
                for other in self.eval(value):
                    if other[0] == DICT:
                        self.add_cell(("F", obj, "*"), self.all_fields(other))
                continue
            for k in _keys(self.eval(key)):
                self.add_cell(("F", obj, k), self.eval(value))
        return frozenset({obj})

    def e_comprehension(self, expr: list) -> frozenset:
        obj = (SEQ, self.module, expr[1])
        self.add_cell(("F", obj, "*"), self.eval(expr[2]))
        return frozenset({obj})

    def e_def(self, expr: list) -> frozenset:
        return frozenset({self.mf.value(expr[1])})

    def e_instance(self, expr: list) -> frozenset:
        cls = self.mf.value(expr[1])
        return frozenset({(INST, cls[1], cls[2])})

    def e_class_of(self, expr: list) -> frozenset:
        return frozenset({self.mf.value(expr[1])})

    def e_import(self, expr: list) -> frozenset:
        key = ("import", *expr[1:])
        hit = self._static.get(key)
        if hit is None:
            hit = self._static[key] = self.project.import_values(self.mf, expr, self.lower.export)
        return hit

    def e_union(self, expr: list) -> frozenset | set:
        out: set = set()
        for part in expr[1]:
            out |= self.eval(part)
        return out

    def e_declared(self, expr: list) -> frozenset:
        """An annotation's types (a name found only by a definition of that name elsewhere is no
        evidence of what the value is)."""
        types, classes = ([v for part in parts if not self._guessed(part) for v in self.eval(part)]
                          for parts in (expr[1], expr[2]))
        return declared(types, classes)

    def e_declared_value(self, expr: list) -> frozenset | set:
        """An annotated assignment's value: what the annotation declares, with those of the value's
        instances it allows (a subclass's); the value alone when the annotation names no class of
        the project (`x: int = 0`, `f: Callable = g`). An external the annotation contradicts
        (`current_app: FlaskProxy = LocalProxy(...)`) is left out: the annotation is what its
        readers are written against. A function's local holding only instances the annotation
        allows is what it holds (`p: Base = Sub()`)."""
        declared_values = self.e_declared(expr[1])
        value = self.eval(expr[2])
        if not any(v[0] == OPEN for v in declared_values):
            return value
        kept = {v for v in value if allowed(declared_values, v, self._derives)}
        if expr[3] and kept and len(kept) == len(value):  # a local the value alone decides
            return kept
        return declared_values | kept

    def _derives(self, cls: Value, base: Value) -> bool:
        return base in self.mro(cls)

    def _guessed(self, part: object) -> bool:
        if part.__class__ is not list or part[0] != "n":  # type: ignore[index]
            return False
        self.eval(part)
        return part[1] in self._guessed_names  # type: ignore[index]

    def e_fixture(self, expr: list) -> frozenset | set:
        """What pytest passes for a parameter: the fixture of its name in this module, else in the
        nearest conftest.py above it, called (a generator fixture gives what it yields)."""
        local = self.mf.fixture_vars(expr[1])
        if not local:
            key = ("fixture", expr[1])
            found = self._static.get(key)
            if found is None:
                found = self._static[key] = self._conftest_fixture(expr[1])
            return found
        out: set = set()
        for fn in self.e_vars(["v", local]):
            if fn[0] == FUNC:
                made = self.returns(fn)
                out |= self.items(made, None) if "g" in self._flags(fn) else made
        return out

    def _conftest_fixture(self, name: str) -> frozenset:
        """The fixture `name` of the nearest conftest.py above this file that has one. (Such files
        may share a module name, each rooted where it lies: each is found by its path.)"""
        folders = self.mf.path.split("/")[:-1]
        for depth in range(len(folders), -1, -1):
            path = "/".join([*folders[:depth], "conftest.py"])
            dotted = [*folders[:depth], "conftest"]
            for module in (".".join(dotted[i:]) for i in range(len(dotted)) if path != self.mf.path):
                mf = self.project.flow_at(module, path) if self.project.exists(module) else None
                if mf is not None:
                    if mf.fixture_vars(name):
                        return self.lower.fixture(module, path, name)
                    break
        return EMPTY

    def e_effects(self, expr: list) -> frozenset:
        for part in expr[1]:
            self.eval(part)
        return EMPTY

    # attributes ----------------------------------------------------------------------------------
    def attr(self, obj: Value, name: str) -> frozenset | set:
        kind = obj[0]
        if kind == INST:
            return self.instance_attr(obj, name)
        if kind == MODULE:
            return self.module_attr(obj[1], name)
        if kind == CLASS:
            return self.class_attr(obj, name) | self.field(obj, name)
        if kind in (EXT, EXT_INST):
            return frozenset({(EXT, "", f"{obj[2]}.{name}")})
        if kind == SUPER:
            return self.super_attr(obj, name)
        if kind == OPEN:
            return EMPTY
        if kind in (SOME_STR_KIND, SOME_BYTES_KIND, SEQ, DICT) or kind == CONST and isinstance(obj[2], str):
            # (TYPE_METHOD, the container or "", "<type>.name"): a container's methods change it
            container = obj if kind in (SEQ, DICT) else ""
            return frozenset({(TYPE_METHOD, container, f"{_LITERAL_TYPES[kind]}.{name}")})  # type: ignore[arg-type]
        if kind == TYPE_METHOD:
            return EMPTY
        return self.field(obj, name)

    def module_attr(self, module: str, name: str) -> frozenset | set:
        assigned = self.field((MODULE, module, ""), name)  # `module.name = ...` in this file
        if module == self.module:
            found = self.module_attr_local(name)
            return found | assigned if assigned else found
        key = ("module", module, name)
        found = self._static.get(key)
        if found is None:
            found = self._static[key] = self._other_module_attr(module, name)
        return found | assigned if assigned else found

    def _other_module_attr(self, module: str, name: str) -> frozenset:
        """`name` in another module: what it binds there, else a submodule of that name."""
        if self.project.exists(module):
            found = self.lower.export(module, name)
            if found:
                return found
        sub = self.project.module_named(f"{module}.{name}")
        if self.project.exists(sub) or not self.project.exists(module):
            return frozenset({(MODULE, sub, "")})  # a submodule, or a step through a namespace package
        return EMPTY

    def module_attr_local(self, name: str) -> frozenset | set:
        out: set = set()
        for var in self.mf.names(0, name):
            out |= self.read_var(var)
        return out

    def own_class_attr(self, cls: Value, name: str) -> frozenset | set:
        """`name` in the class body itself (not inherited)."""
        if cls[1] != self.module:
            hit = self._static.get((cls, name))
            if hit is None:
                hit = self._static[(cls, name)] = self.lower.class_attr(cls, name)
            return hit
        out: set = set()
        for idx in self.mf.scopes_of(cls[2]):
            for var in self.mf.names(idx, name):
                out |= self.read_var(var)
        return out

    def binds(self, cls: Value, name: str) -> bool:
        """Whether a class of this module binds `name` in its body, whatever is known of the value
        yet: a lookup stops there (not at a base) even before the fixpoint reached the binding."""
        return cls[1] == self.module and any(self.mf.names(idx, name) for idx in self.mf.scopes_of(cls[2]))

    def class_attr(self, cls: Value, name: str) -> frozenset | set:
        for owner in self.mro(cls):
            if owner[0] == EXT:
                return frozenset({(EXT, "", f"{owner[2]}.{name}")})
            found = self.own_class_attr(owner, name)
            if found or self.binds(owner, name):
                return {self._via_class(v) for v in found}
        return EMPTY

    def instance_attr(self, inst: Value, name: str) -> frozenset | set:
        """`name` read through an instance: its class's (`instance_member`), else a subclass's."""
        return self.instance_member(inst, name) or self._from_subclasses(inst, name)

    def instance_member(self, inst: Value, name: str) -> frozenset | set:
        """`name` through the instance's class and its bases."""
        mro = self.mro((CLASS, inst[1], inst[2]))
        if mro[0][1] != self.module:  # wholly elsewhere: fixed for the run
            key = ("attr", inst, name)
            hit = self._static.get(key)
            if hit is None:
                hit = self._static[key] = frozenset(self._instance_member(inst, mro, name))
            return hit
        return self._instance_member(inst, mro, name)

    def _instance_member(self, inst: Value, mro: list[Value], name: str) -> set:
        split = len(mro)
        while split > 1 and mro[split - 1][1] != self.module:
            split -= 1  # the classes from here on lie elsewhere: what they give is fixed for the run
        out, class_found = self._instance_attr_from(mro[:split], name, False)
        class_found = class_found or bool(out)  # an instance field hides what an external base has
        if split < len(mro):
            key = ("tail", tuple(mro[split:]), name, class_found)
            tail = self._static.get(key)
            if tail is None:
                tail = self._static[key] = frozenset(self._instance_attr_from(mro[split:], name, class_found)[0])
            out |= tail
        return out

    def _instance_attr_from(self, owners: list[Value], name: str, class_found: bool) -> tuple[set, bool]:
        """`name` through part of a linearisation: the fields every class sets on the object, and
        the first class member (unless one came earlier); also whether something was found. Past
        an external base the member is guessed to be that base's, if nothing of ours had it."""
        out: set = set()
        for owner in owners:
            if owner[0] == EXT:
                if not class_found and not out:
                    out.add((EXT, "", f"{owner[2]}.{name}"))
                    class_found = True
                continue
            out |= self.field((INST, owner[1], owner[2]), name)
            if not class_found:
                found = self.own_class_attr(owner, name)
                assigned = self.field(owner, name)  # also `cls.x = ...`
                if assigned:
                    found = found | assigned
                if found or self.binds(owner, name):
                    class_found = True
                    for value in found:
                        out |= self._via_instance(value)
        return out, class_found

    def _from_subclasses(self, inst: Value, name: str) -> set:
        """A member the class lacks but its subclasses define (a template method's hook): those of
        this module, and methods of that name elsewhere whose class derives from it."""
        out: set = set()
        for sub in self.subclasses((CLASS, inst[1], inst[2])):
            out |= self.field((INST, sub[1], sub[2]), name)
        return out | self.overrides(inst, name)

    def overrides(self, inst: Value, name: str) -> set:
        """The methods called `name` of the classes deriving from the instance's: those of this
        module, and of the rest of the project."""
        cls = (CLASS, inst[1], inst[2])
        out = self.overrides_here(cls, name)
        key = ("overrides", cls, name)
        elsewhere = self._static.get(key)
        if elsewhere is None:
            found: set = set()
            named = self.project.named(name)
            # A name defined all over the project would give more candidates than a site may have:
            # not worth reading every module that defines it.
            for sym in named if len(named) <= 2 * MAX_CANDIDATES else ():
                owner = (CLASS, sym.module, sym.parent[len(sym.module) + 1 :])
                if sym.kind == "function" and owner[2] and owner[1] != self.module and cls in self.mro(owner)[1:]:
                    found |= self._via_instance((FUNC, sym.module, sym.fqn[len(sym.module) + 1 :]))
            elsewhere = self._static[key] = frozenset(found)
        return out | elsewhere

    def overrides_here(self, cls: Value, name: str) -> set:
        """The methods called `name` of this module's classes deriving from `cls`."""
        out: set = set()
        for sub in self.subclasses(cls):
            for value in self.own_class_attr(sub, name):
                out |= self._via_instance(value)
        return out

    def subclasses(self, cls: Value) -> list[Value]:
        """The classes of this module that have `cls` among their ancestors."""
        hit = self._subclasses.get(cls)
        if hit is None:
            hit = self._subclasses[cls] = [sub for sub in self.mf.classes if sub != cls and cls in self.mro(sub)]
        return hit

    def super_attr(self, proxy: Value, name: str) -> frozenset | set:
        for owner in self.mro((CLASS, proxy[1], proxy[2]))[1:]:
            if owner[0] == EXT:
                return frozenset({(EXT, "", f"{owner[2]}.{name}")})
            found = self.own_class_attr(owner, name)
            if found or self.binds(owner, name):
                out: set = set()
                for value in found:
                    out |= self._via_instance(value)
                return out
        return EMPTY

    def _flags(self, fn: Value) -> str:
        if fn[1] == self.module:
            return self.mf.flags(fn[2])
        hit = self._static.get(("flags", fn))
        if hit is None:
            hit = self._static[("flags", fn)] = self.project.flags(fn)
        return hit

    def _via_instance(self, value: Value) -> frozenset | set:
        """A class member read through an instance: methods bind, properties run their getter."""
        if value[0] != FUNC:
            return frozenset({value})
        flags = self._flags(value)
        if "p" in flags:
            return self.returns(value)
        if "s" in flags:
            return frozenset({value})
        return frozenset({(BOUND, value[1], value[2])})

    def _via_class(self, value: Value) -> Value:
        return (BOUND, value[1], value[2]) if value[0] == FUNC and "c" in self._flags(value) else value

    # classes -------------------------------------------------------------------------------------
    def bases(self, cls: Value) -> list[Value]:
        if cls[1] == self.module:
            groups = [self.cell(("B", idx, i)) for idx in self.mf.scopes_of(cls[2])
                      for i in range(len(self.mf.bases.get(idx, ())))]
        else:
            groups = self.lower.bases(cls)
        out: list[Value] = []
        for group in groups:
            for value in sorted(group, key=str) if len(group) > 1 else group:
                if value[0] in (CLASS, EXT) and value not in out and value[2] not in _TYPING_ONLY:
                    out.append(value)
        return out

    def _forget_mro(self, cls: Value) -> None:
        """`cls` got a base: drop every linearisation it is part of."""
        for user in self._mro_users.pop(cls, ()):
            self._mro.pop(user, None)
        self._subclasses.clear()

    def mro(self, cls: Value) -> list[Value]:
        """C3 linearisation; an external base ends its own line (what lies above it is unknown)."""
        hit = self._mro.get(cls)
        if hit is not None:
            return hit
        self._mro[cls] = [cls]  # a class that inherits itself (bad code) stops here
        if cls[0] == EXT:
            return self._mro[cls]
        bases = self.bases(cls)
        lines = [list(self.mro(b)) for b in bases] + [list(bases)]
        order = [cls]
        while any(lines):
            head = next((line[0] for line in lines if line and not any(line[0] in rest[1:] for rest in lines)), None)
            if head is None:  # no consistent order: keep the depth-first one
                order += [c for line in lines for c in line if c not in order]
                break
            order.append(head)
            lines = [line[1:] if line and line[0] == head else line for line in lines]
        self._mro[cls] = order
        for member in order:
            self._mro_users.setdefault(member, set()).add(cls)
        return order

    # calls ---------------------------------------------------------------------------------------
    def e_call(self, expr: list) -> frozenset | set:
        site = expr[1]
        callees, hooks, overrides = self.callee(site, expr[2])
        args = [("*", self.eval(a[1])) if a.__class__ is list and a[0] == "*" else self.eval(a) for a in expr[3]]
        kwargs = [(k, self.eval(v)) for k, v in expr[4]]
        out: set = set()
        for callee in callees:
            out |= self.invoke(site, callee, args, kwargs)
        if hooks or overrides:
            self._guessing = True
            try:
                for callee in hooks:
                    out |= self.invoke(site, callee, args, kwargs)
                for callee in overrides:
                    if callee[0] == BOUND and callee not in callees:
                        self.invoke(site, callee, args, kwargs, kept=False)  # (what it returns is no more than a guess)
            finally:
                self._guessing = False
        return out

    def callee(self, site: int, func: object) -> tuple[frozenset | set, frozenset | set, frozenset | set]:
        """What the callee of a call or a decorator names: (callees, hooks, overrides). Hooks are what
        only a subclass has, the receiver's class not; overrides, on `self`, are a subclass's own
        versions of what was found: both only guesses. A member of a receiver nothing is known of (a
        parameter no caller in the module passes, a pytest fixture) makes the site blind: every
        method of that name may be meant."""
        hooks: frozenset | set = EMPTY
        overrides: frozenset | set = EMPTY
        if func.__class__ is list and func[0] == "a":  # type: ignore[index]
            receivers = self.eval(func[1])  # type: ignore[index]
            callees: frozenset | set = set()
            on_self = func[1].__class__ is int and func[1] in self.mf.instance_params  # type: ignore[index]
            for receiver in receivers:
                if receiver[0] != INST:
                    callees |= self.attr(receiver, func[2])  # type: ignore[index, operator]
                    continue
                found = self.instance_member(receiver, func[2])  # type: ignore[index]
                if not found:
                    hooks = hooks | self._from_subclasses(receiver, func[2])  # type: ignore[index]
                    continue
                callees |= found  # type: ignore[operator]
                if on_self or (OPEN, receiver[1], receiver[2]) in receivers:  # (a declared instance)
                    # (an analysis of another module records no edge: an override elsewhere gives it
                    # nothing, what it returns being no more than a guess; one here takes the arguments)
                    dispatched = (self.overrides(receiver, func[2]) if self.record  # type: ignore[index]
                                  else self.overrides_here((CLASS, receiver[1], receiver[2]), func[2]))  # type: ignore[index]
                    overrides = overrides | dispatched
                    self._note_dispatch(site, found, dispatched)
            if receivers:
                self.blind.pop(site, None)
            else:
                self.blind[site] = func[2]  # type: ignore[index]
            # an object of the project lacking the member (set at run time, `__getattr__`) may still
            # reach a method of that name; a literal's (`n.bit_length()`) never does
            lost = not callees and not hooks and any(r[0] in _OPEN for r in receivers)
        else:
            callees = self.eval(func)
            if func.__class__ is list and func[0] == "n" and func[1] in self._guessed_names:  # type: ignore[index]
                callees, hooks = EMPTY, callees
            # (a parameter called: its name says nothing of what a caller passes; a callee that is no
            # name, `(c_ubyte * n)()`, names nothing it could be counted by)
            lost = not callees and not hooks and (func.__class__ is int and func not in self.mf.param_vars
                                                  or func.__class__ is list and func[0] in _NAMED)  # type: ignore[index]
        if lost:
            self.targetless.add(site)
        else:
            self.targetless.discard(site)
        return callees, hooks, overrides

    def _note_dispatch(self, site: int, found: frozenset | set, dispatched: set) -> None:
        """Which method the call names, for each override it may run instead."""
        if not self.record or not dispatched:
            return
        named = sorted(qualify(m[1], m[2]) for m in found if m[0] in (FUNC, BOUND))  # type: ignore[arg-type]
        if named:
            notes = self.dispatch.setdefault(site, {})
            for override in dispatched:
                notes.setdefault(qualify(override[1], override[2]), named[0])  # type: ignore[arg-type]

    def e_decorate(self, expr: list) -> frozenset | set:
        decorators = self.callee(expr[1], expr[2])[0]
        inner = self.eval(expr[3])
        out: set = set()
        known = False  # a decorator of the project: the name is what it returns
        for dec in decorators:
            result = self.invoke(expr[1], dec, [inner], [])
            if dec[0] in (FUNC, BOUND) and self._returns_something(dec) or dec[0] == CLASS:
                out |= result
                known = True
        if out:
            return out
        if decorators and not known or self.cur == self.settling:
            return inner  # an external or builtin decorator: the function stays what it is
        self.undecided.add(self.cur)  # nothing known yet: decide once the fixpoint has settled
        return EMPTY

    def _returns_something(self, fn: Value) -> bool:
        if fn[1] != self.module:
            return self.project.returns_something(fn)
        return any(i in self.mf.returns for i in self.mf.scopes_of(fn[2]))

    def invoke(self, site: object, callee: Value, args: list, kwargs: list, kept: bool = True) -> frozenset | set:
        """What calling `callee` returns (unless not `kept`: then another module's function is
        not asked what it returns, and EMPTY stands for it)."""
        calling = self._calling
        if calling is None or calling[0] != site:
            self._calling = (site, callee)  # the edges this call gives are this value's
        try:
            return self._invoke(site, callee, args, kwargs, kept)
        finally:
            self._calling = calling

    def _invoke(self, site: object, callee: Value, args: list, kwargs: list, kept: bool = True) -> frozenset | set:
        kind = callee[0]
        if kind in (FUNC, BOUND):
            self.edge(site, _CALLS, qualify(callee[1], callee[2]))  # type: ignore[arg-type]
            if callee[1] == self.module:
                self.pass_args(callee[2], args, kwargs, 1 if kind == BOUND else 0)
            elif not kept:
                return EMPTY
            return self.returns(callee)
        if kind == CLASS:
            return self.instantiate(site, callee, args, kwargs)
        if kind == EXT:
            self.edge(site, _CALLS, callee[2])  # type: ignore[arg-type]
            short = str(callee[2]).rsplit(".", 1)[-1]
            return frozenset({(EXT_INST, "", callee[2])}) if short[:1].isupper() else EMPTY
        if kind == BUILTIN:
            return self.builtin(site, callee[2], args, kwargs)  # type: ignore[arg-type]
        if kind == TYPE_METHOD:
            if str(callee[2]).startswith("<**"):
                self.edge(site, _CALLS, callee[2])  # type: ignore[arg-type]
            if callee[1]:
                return self.container_call(callee[1], str(callee[2]).rsplit(".", 1)[-1], args, kwargs)  # type: ignore[arg-type]
        elif kind == INST:
            out: set = set()
            for method in self.instance_member(callee, "__call__"):  # (its class's: not a subclass's)
                out |= self.invoke(site, method, args, kwargs)
            return out
        return EMPTY

    def returns(self, fn: Value) -> frozenset | set:
        if fn[1] == self.module:
            return frozenset({(GEN, fn[1], fn[2])}) if "g" in self.mf.flags(fn[2]) else self.cell(("r", fn[2]))
        hit = self._static.get(("returns", fn))
        if hit is None:
            hit = self._static[("returns", fn)] = (
                frozenset({(GEN, fn[1], fn[2])}) if "g" in self._flags(fn) else self.lower.returns(fn))
        return hit

    def instantiate(self, site: object, cls: Value, args: list, kwargs: list) -> frozenset:
        self.edge(site, _INSTANTIATES, qualify(cls[1], cls[2]))  # type: ignore[arg-type]
        for owner in self.mro(cls):
            if owner[0] == EXT:
                self.edge(site, _CALLS, f"{owner[2]}.__init__")
                break
            inits = self.own_class_attr(owner, "__init__")
            if inits or self.binds(owner, "__init__"):
                for init in inits:
                    if init[0] == FUNC:
                        self.invoke(site, (BOUND, init[1], init[2]), args, kwargs)
                break
        return frozenset({(INST, cls[1], cls[2])})

    def pass_args(self, qualname: object, args: list, kwargs: list, offset: int) -> None:
        # (packed arguments are named by the function's qualname, not its scope's number: an edit
        # elsewhere in the module renumbers scopes, and readers of the module's analysis compare values)
        for nth, idx in enumerate(self.mf.scopes_of(qualname)):
            positional, star, by_name, double = self.mf.parameters(idx)
            positional = positional[offset:]
            for i, arg in enumerate(args):
                if isinstance(arg, tuple):  # *args at the call: positions are unknown from here
                    break
                if i < len(positional):
                    self.add_var(positional[i][1], arg)
                elif star is not None:
                    packed = (SEQ, self.module, ("*args", qualname, nth))
                    self.add_cell(("F", packed, "*"), arg)
                    self.add_var(star[1], frozenset({packed}))
            for name, value in kwargs:
                if name is None:
                    continue
                param = by_name.get(name)
                if param is not None:
                    self.add_var(param[1], value)
                elif double is not None:
                    packed = (DICT, self.module, ("**kwargs", qualname, nth))
                    self.add_cell(("F", packed, name), value)
                    self.add_var(double[1], frozenset({packed}))

    def builtin(self, site: object, name: str, args: list, kwargs: list) -> frozenset | set:
        self.edge(site, _CALLS, f"<builtin>.{name}")
        plain = [a for a in args if not isinstance(a, tuple)]
        if name in _ATTR_LOOKUPS and len(plain) >= 2 and isinstance(site, int) and self.mf.sites[site][3]:
            # a member looked up at run time: of which objects, by which names, as far as known
            objects, names = self.looked_up.get(site, (EMPTY, EMPTY))
            self.looked_up[site] = (objects | plain[0], names | plain[1])
        if name == "super":
            if plain:
                return frozenset({(SUPER, c[1], c[2]) for c in plain[0] if c[0] == CLASS})
            cls = self.mf.enclosing_class(self.scope)
            return frozenset({(SUPER, self.module, self.mf.scopes[cls][0])}) if cls > 0 else EMPTY
        if name in ("map", "filter"):
            return self._higher_order(site, name, plain)
        first = plain[0] if plain else EMPTY
        for key, value in kwargs:
            if key == "key":  # sorted(..., key=f), min, max
                for fn in value:
                    self.invoke((site, "key"), fn, [self.items(first, None)], [])
        method = _DUNDER_BUILTINS.get(name)
        called: set = set()  # what the instance's own method gave (len(x): x.__len__())
        for value in first if method is not None else ():
            if value[0] == INST:
                called |= self.call_method(site, value, method)
            else:
                self.note_implicit(site, value, False)
        if method is not None and name in _KEEPS_ITEMS and first and all(v[0] in (INST, OPEN) for v in first):
            return called  # iter(x), reversed(x): what x's own method returns
        if plain and (name in _KEEPS_ITEMS or name in ("next", "min", "max")):
            found = self.items(first, site if name in _ITERATES else None)
            if name not in _KEEPS_ITEMS:
                return found | called
            packed = (SEQ, self.module, ("builtin", self._site_name(site)))
            self.add_cell(("F", packed, "*"), found)
            return frozenset({packed}) | called
        if name == "getattr" and len(plain) >= 2:
            out: set = set(plain[2]) if len(plain) > 2 else set()
            for key in plain[1]:
                if key[0] == CONST and isinstance(key[2], str):
                    for obj in plain[0]:
                        out |= self.attr(obj, key[2])
            return out
        if name in _IDENTITY and plain:
            return plain[0]
        return EMPTY

    def container_call(self, obj: Value, method: str, args: list, kwargs: list) -> frozenset | set:
        """What a list's or dict's own method puts into it or takes out of it."""
        plain = [a for a in args if not isinstance(a, tuple)]
        if method in ("append", "insert", "add") and plain:
            self.add_cell(("F", obj, "*"), plain[-1])
        elif method == "extend" and plain:
            self.add_cell(("F", obj, "*"), self.items(plain[0], None))
        elif method == "update":
            for other in plain[0] if plain else ():
                for key in list(self.keys.get(other, ())) if other[0] == DICT else ():
                    self.add_cell(("F", obj, key), self.cells[("F", other, key)])
                self._read(("F*", other))
            for key, value in kwargs:
                self.add_cell(("F", obj, key if key is not None else "*"), value)
        elif method in ("get", "pop", "setdefault"):
            keys = _keys(plain[0]) if plain else ["*"]
            if method == "setdefault" and len(plain) > 1:
                for key in keys:
                    self.add_cell(("F", obj, key), plain[1])
            found = self.all_fields(obj) if "*" in keys else {v for k in keys for v in self.field(obj, k)}
            return found | self.field(obj, "*") | (plain[1] if len(plain) > 1 else EMPTY)
        elif method == "values":
            packed = (SEQ, self.module, ("values", obj))
            self.add_cell(("F", packed, "*"), self.all_fields(obj))
            return frozenset({packed})
        elif method == "items":
            pair = (SEQ, self.module, ("item", obj))
            self.add_cell(("F", pair, 1), self.all_fields(obj))
            packed = (SEQ, self.module, ("items", obj))
            self.add_cell(("F", packed, "*"), frozenset({pair}))
            return frozenset({packed})
        elif method == "copy":
            return frozenset({obj})
        return EMPTY

    def _higher_order(self, site: object, name: str, args: list) -> frozenset | set:
        """map(f, xs) and filter(f, xs) call f on the items (PyCG also accepts the arguments swapped)."""
        functions = [v for a in args for v in a if v[0] in (FUNC, BOUND, CLASS)]
        items: set = set()
        for a in args:
            items |= self.items(a, None)
        results: set = set()
        for fn in functions:
            results |= self.invoke((site, name), fn, [items], [])
        packed = (SEQ, self.module, ("builtin", self._site_name(site)))
        self.add_cell(("F", packed, "*"), results if name == "map" else items)
        return frozenset({packed})

    def _site_name(self, site: object) -> object:
        return self.mf.site_names[site] if site.__class__ is int else site  # type: ignore[index]

    def items(self, values: frozenset | set, site: int | None) -> frozenset | set:
        """What iterating over `values` gives: an instance's `__iter__` is called, then `__next__` of
        what it returns (`__aiter__` and `__anext__` at an `async for`'s site); without a site, no call."""
        start = self.mf.sites[site][1] if site is not None else ""
        start = start if start in _ITERATION else "__iter__"
        out: set = set()
        for value in values:
            kind = value[0]
            if site is not None and kind != INST:
                self.note_implicit(site, value, False)
            if kind == SEQ:
                out |= self.all_fields(value)
            elif kind == GEN:
                out |= self.cell(("y", value[2])) if value[1] == self.module else self.lower.yields(value)
            elif kind == INST and site is not None:
                for it in self.call_method(site, value, start):
                    if it[0] == INST:
                        out |= self.call_method(site, it, _ITERATION[start], note=False)
                    elif it[0] == GEN:
                        out |= self.items((it,), None)
        return out

    def dunder(self, inst: Value, name: str) -> list[Value]:
        """The project's methods `name` of an instance's class (through its bases): what Python calls
        on the program's behalf. Not a subclass's, nor one guessed on an external base."""
        return [m for m in self.instance_member(inst, name) if m[0] in (FUNC, BOUND)]

    def call_method(self, site: int, inst: Value, name: str, args: list | None = None, note: bool = True) -> set:
        """`inst.name(*args)` called by Python at `site`; `note`: the receiver is the site's (not
        what its `__iter__` returned)."""
        methods = self.dunder(inst, name)
        if note:
            self.note_implicit(site, inst, bool(methods))
        return self.call_methods((site, name), methods, args or [])

    def note_implicit(self, site: int, value: Value, found: bool) -> None:
        """Whether a receiver value at an implicit call site is a project object with the method
        (`found`) or something else, whose own method runs: a site with both is a choice. (None has
        no method: the code runs only where the value is another.)"""
        if value != NONE and value[0] != OPEN:
            self.implicit[site] = self.implicit.get(site, 0) | (1 if found else 2)

    def call_methods(self, key: tuple, methods: list[Value], args: list) -> set:
        out: set = set()
        for method in methods:
            out |= self.invoke(key, method, args, [])
        return out

    def entered(self, values: frozenset | set, site: int) -> set:
        """`with x as y`: what x.__enter__() returns (its __exit__ is called too), x itself when its
        class has none; a generator (a @contextmanager function's) gives what it yields."""
        enter = self.mf.sites[site][1]
        out: set = set()
        for value in values:
            methods = self.dunder(value, enter) if value[0] == INST else []
            exits = self.dunder(value, _CONTEXT[enter]) if value[0] == INST else []
            self.note_implicit(site, value, bool(methods or exits))  # (a library base may give one)
            if methods:
                out |= self.call_methods((site, enter), methods, [])
            elif value[0] == GEN:
                out |= self.items((value,), None)
            else:
                out.add(value)
            self.call_methods((site, _CONTEXT[enter]), exits, [EMPTY, EMPTY, EMPTY])
        return out

    def edge(self, site: object, relation: str, target: str) -> None:
        if not self.record or isinstance(site, int) and self.mf.sites[site][3]:
            return  # a dynamic site keeps only its dynamic edge
        if self._guessing:
            self.guesses.setdefault(site, {}).setdefault(relation, set()).add(target)
            return
        # (not `setdefault`: the hottest write, it would make a dict and a set each time to throw away)
        by_relation = self.edges.get(site)
        if by_relation is None:
            by_relation = self.edges[site] = {}
        targets = by_relation.get(relation)
        if targets is None:
            targets = by_relation[relation] = set()
        targets.add(target)
        calling = self._calling
        if calling is not None and calling[0] == site:
            by_value = self.called.get(site)
            if by_value is None:
                by_value = self.called[site] = {}
            given = by_value.get(calling[1])
            if given is None:
                given = by_value[calling[1]] = set()
            given.add((relation, target))


# Expression tag -> evaluator (a table on the class, not bound methods on each analysis: those would
# tie every analysis into a reference cycle that only the garbage collector frees).
_EVAL: dict[str, Callable[[Analysis, list], frozenset | set]] = {
    "v": Analysis.e_vars, "n": Analysis.e_free, "a": Analysis.e_attr, "s": Analysis.e_subscript,
    "s:": Analysis.e_slice, "c": Analysis.e_call, "@": Analysis.e_decorate, "k": Analysis.e_const,
    "ks": Analysis.e_some_str, "kb": Analysis.e_some_bytes, "l": Analysis.e_seq, "d": Analysis.e_dict,
    "L": Analysis.e_comprehension, "op": Analysis.e_op,
    "f": Analysis.e_def, "C": Analysis.e_def, "i": Analysis.e_instance, "ic": Analysis.e_class_of,
    "m": Analysis.e_import, "u": Analysis.e_union, "o": Analysis.e_effects, "A": Analysis.e_declared,
    "fx": Analysis.e_fixture, "Ad": Analysis.e_declared_value,
}


def _value_of(sym: SymbolInfo) -> Value:
    qualname = sym.fqn[len(sym.module) + 1 :] if sym.module else sym.fqn
    return (CLASS if sym.kind == "class" else FUNC, sym.module, qualname)


def _keys(values: frozenset | set) -> list:
    """Container keys from a key expression's values; ["*"] when any of them is not a constant."""
    keys = [v[2] for v in values if v[0] == CONST]
    return keys if keys and len(keys) == len(values) else ["*"]
