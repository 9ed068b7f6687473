"""Python: one walk over the tree gives the definitions, imports and dynamic call sites, and the
data-flow program the points-to resolver (resolve/python/) runs on. (The query pass is not
needed: Python's calls are resolved from the flow, not from call captures.)

`FileFacts.flow` holds one file's data-flow program, msgpack-encoded on its own so that loading a
file's facts does not build it (the resolver decodes it when it reads the file):

    {"scopes": [[qualname, kind, parent, params, flags, names]],   # 0 is the module
     "stmts": [[op, scope, ...]], "star": [[module, level]], "nvars": int,
     "body": [[op, scope, ...]], "body_at": [int], "sites": [[line, name, scope, looked_up]]}

The statements are split in two: `body` holds those only the module's own analysis runs (`e`,
`raise`, `Y`), each at its position `body_at` in the whole program; `stmts` the others, in order.
Other modules read a module's bindings, returns and bases: they decode neither the body nor the sites.

Names are resolved here, once per file: every binding of a name is a fresh variable (an int), and a
read lists the variables that may reach it. Inside one scope that follows the statements (an
assignment replaces what came before, branches join), so `a = f; a = g; a()` reads only `g`; a read
from a nested scope sees every binding of the name. `kind` is module, function, class or lambda;
`params` is `[[name, var, mode]]` (mode: see PARAM_*); `flags` holds g (generator), s (staticmethod),
c (classmethod), p (property); `names` maps a module's or class's names to all their variables.

A site's `looked_up` is "" unless its target is computed at run time (a dynamic site); then it says
what the target is looked up by, as a glob of the constant parts (`*` where computed): `.visit_*`
for a member of a value (getattr, globals()[...]), a full name for a module (import_module), `*`
for code (eval).

Statements (`scope` is where calls in them are attributed):
    ["=", scope, target, value]      target: ["v", var] | ["a", obj, attr] | ["s", obj, key, site]
                                             | ["t", [targets], star position or -1, site]
    ["e", scope, expr]               evaluated for its calls
    ["r", scope, expr] / ["y", scope, expr]    return, yield
    ["Y", scope, expr, site]         yield from
    ["for", scope, target, iterable, site]      also comprehension clauses (site: __iter__ or __aiter__)
    ["w", scope, target or None, context, site]    `with context as target` (site: __enter__ or __aenter__)
    ["raise", scope, expr, site]     raising a class instantiates it
    ["b", scope, class scope, [bases]]
Expressions:
    var (an int: a read that only one binding reaches)  ["v", [vars]]
    ["n", name] (bound nowhere in the file: a star import, a builtin, or unknown)
    ["a", obj, attr]  ["s", obj, key, site]  ["s:", obj, lo, hi, site]  ["c", site, func, [args], [[kw, value]]]
    ["@", site, decorator, decorated]  ["k", constant]  ["ks"] (some string)  ["kb"] (some bytes)
    ["l", alloc, [items]] (list, tuple, set; ["*", e] for a starred item)  ["d", alloc, [[key, value]]]
    (alloc: "scope qualname#n", the n-th allocation in that scope)
    ["L", alloc, item] (a comprehension)  ["f", scope] (a function or lambda)  ["C", scope] (a class)
    ["i", scope] / ["ic", scope] (the instance / class a method's first parameter is)
    ["m", module, name, level] (an import)  ["u", [exprs]] (any of them)  ["o", [exprs]] (only their calls)
    ["fx", name] (the pytest fixture of that name: a test's or fixture's parameter in a test module)
    ["A", [types], [class types]] (what an annotation declares: instances of the classes `types` name,
    the classes `class types` name, as `type[C]`; a parameter's value, and a return of its function)
    ["Ad", annotation, value, local] (an annotated assignment's value: the annotation's ["A", ...] types,
    and those of the value's the annotation allows; `local`: a function's own variable, which only
    this assignment binds here, so a value the annotation allows is all it holds)
    ["op", site, receiver, other, [methods], reflected, keep] (an operator: the first of the methods the
    receiver's class has, called with `other`, else `reflected` on `other`; `keep`: values with neither
    are the result, as `x += y` keeps x's and y's)
Sites are named by what they call: the callee's last identifier, or the method Python calls (a
subscript ["s", obj, key, site] calls __getitem__ / __setitem__ on an instance, a tuple target __iter__).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from contextlib import suppress
from fnmatch import fnmatchcase
from operator import attrgetter

import msgspec
from tree_sitter import Node, Tree

from tenure.structural.extract import _count_errors, fingerprint_of, signature_of, text_of
from tenure.structural.extractors import State, join
from tenure.structural.extractors import flow_lines as flow_lines  # (parse.shape asks the extractor)
from tenure.structural.facts import Definition, FileFacts, Import, Reference
from tenure.structural.languages import LanguageSpec

PARAM_POSITIONAL = 0  # positional or keyword
PARAM_STAR = 1  # *args
PARAM_DOUBLE_STAR = 2  # **kwargs
PARAM_KEYWORD = 3  # keyword-only
PARAM_POSITIONAL_ONLY = 4

MAX_CONST_LEN = 40  # longer strings are kept as "some string": only short ones are ever dict keys
_QUOTES = frozenset(b"\"'")
_INT64 = 2**63
# Decorators that change how a method binds, not what it is: no call, the function stays itself.
_DESCRIPTORS = {"staticmethod": "s", "classmethod": "c", "property": "p", "cached_property": "p",
                "functools.cached_property": "p", "abstractmethod": "", "abc.abstractmethod": ""}
_IMPLICIT_CLASSMETHODS = frozenset({"__new__", "__init_subclass__", "__class_getitem__"})
# The methods Python calls on an operand's behalf: `a + b` is a.__add__(b), else b.__radd__(a);
# `a += b` a.__iadd__(b), else as `a + b`; a comparison its method, else the reflected one on the right.
_BINARY_OPERATORS = {"+": "add", "-": "sub", "*": "mul", "@": "matmul", "/": "truediv", "//": "floordiv",
                     "%": "mod", "**": "pow", "<<": "lshift", ">>": "rshift", "&": "and", "|": "or", "^": "xor"}
_COMPARISONS = {"<": (["__lt__"], "__gt__"), "<=": (["__le__"], "__ge__"), ">": (["__gt__"], "__lt__"),
                ">=": (["__ge__"], "__le__"), "==": (["__eq__"], "__eq__"),
                "!=": (["__ne__", "__eq__"], "__ne__")}  # (object.__ne__ calls __eq__)
_MEMBERSHIP = frozenset({"in", "not in"})  # `a in b` is b.__contains__(a)
_UNARY_OPERATORS = {"-": "__neg__", "+": "__pos__", "~": "__invert__"}
# Typing forms in annotations, by their last name: a union's members are each a possible type,
# a qualifier's first argument is the type, `type[C]` is the class C itself; other generics are
# their origin (`list[Foo]` is a list, `Mapping[str, Foo]` a mapping: neither a Foo).
_UNION_FORMS = frozenset({"Optional", "Union"})
_QUALIFIER_FORMS = frozenset({"Annotated", "Final", "ClassVar", "Required", "NotRequired", "ReadOnly", "TypeGuard"})
_CLASS_FORMS = frozenset({"type", "Type"})
_NO_TYPE_FORMS = frozenset({"Literal", "Callable", "Concatenate", "Unpack", "TypeIs"})
_DYNAMIC_ATTR = frozenset({"getattr", "setattr", "delattr"})
_DYNAMIC_NAMESPACES = frozenset({"globals", "locals", "vars"})
_DYNAMIC_IMPORTS = frozenset({"__import__", "import_module", "importlib.import_module"})
_MAYBE_DYNAMIC = frozenset({*_DYNAMIC_ATTR, "eval", "exec", "__import__", "import_module"})  # or a subscript
_PERCENT_FIELD = re.compile(r"%[-#0 +]*(?:\d+|\*)?(?:\.\d+)?[a-zA-Z]")  # "get_%s" % x
_BRACE_FIELD = re.compile(r"\{[^{}]*\}")  # "get_{}".format(x)
_TARGET_SEQUENCES = frozenset({"pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "expression_list"})
_SEQUENCES = frozenset({"list", "tuple", "set", "expression_list", "pattern_list"})
_COMPREHENSIONS = frozenset({"list_comprehension", "set_comprehension", "generator_expression",
                             "dictionary_comprehension"})
_SKIPPED = frozenset({"comment", "pass_statement", "break_statement", "continue_statement", "type",
                      "ellipsis", "future_import_statement", "line_continuation"})

_NOTHING: tuple = ()

# Node kinds the hot paths test by id (`node.kind_id in _K.identifier`, no string made): a kind of
# several ids (aliases) is each of them.
_KIND_NAMES = ("assignment", "attribute", "call", "comment", "dictionary_splat", "generator_expression", "identifier",
               "keyword_argument", "list_splat", "list_splat_pattern", "pair", "string_content", "subscript")

_FIELD_NAMES = ("alias", "alternative", "argument", "attribute", "body", "condition", "consequence", "definition",
                "function", "key", "left", "module_name", "name", "object", "operator", "parameters", "return_type",
                "right", "subject", "subscript", "superclasses", "type", "value")


class _Fields:
    """The grammar's field ids, by name (`node.child_by_field_id(_F.value)`): child_by_field_name
    looks the id up by its name at every call. Read from the grammar at its first extraction, with
    the visitors by node kind id (`_STATEMENT_OF_KIND`, `_EXPRESSION_OF_KIND`): a node's `type` is a
    new string at every call, its `kind_id` an int."""

    __slots__ = (*_FIELD_NAMES, "grammar")

    def __init__(self) -> None:
        self.grammar = ""  # the grammar the ids are of

    def load(self, spec: LanguageSpec) -> None:
        language = spec.language
        for name in _FIELD_NAMES:
            setattr(self, name, language.field_id_for_name(name))
        self.grammar = spec.grammar
        _STATEMENT_OF_KIND.clear()
        _EXPRESSION_OF_KIND.clear()
        ids: dict[str, set[int]] = {name: set() for name in _KIND_NAMES}
        # (ids past node_kind_count: ERROR and its repeat; a kind of several ids is each of them)
        for kind_id in (*range(language.node_kind_count), 0xFFFF, 0xFFFE):
            kind = language.node_kind_for_id(kind_id)
            if kind in ids:
                ids[kind].add(kind_id)
            # (every id the grammar has gets its visitor, the default one too: `table[id]`, not `.get`)
            _STATEMENT_OF_KIND[kind_id] = _STATEMENTS.get(kind, _Walker.effects)
            _EXPRESSION_OF_KIND[kind_id] = _EXPRESSIONS.get(kind, _Walker.e_other)
        for name, kind_ids in ids.items():
            setattr(_K, name, frozenset(kind_ids))
        _K.named_value = _K.identifier | _K.attribute
        _K.stored_into = _K.attribute | _K.subscript
        _K.splat = _K.list_splat | _K.list_splat_pattern


class _Kinds:
    """The ids of each of `_KIND_NAMES` (set by `_Fields.load`), and unions of them: `named_value`, the
    values `_Walker.escape` keeps (identifier, attribute); `stored_into`, the targets that store into a
    value (attribute, subscript); `splat`, a starred item (list_splat, list_splat_pattern)."""

    __slots__ = (*_KIND_NAMES, "named_value", "stored_into", "splat")


_F = _Fields()
_K = _Kinds()


class _Read:
    """A name read, resolved once the whole file is walked (a later binding may make it local);
    the encoder writes it as `encoded`, set then: its variable, `["v", [vars]]`, or `["n", name]`.
    (No `__init__`: one is made per name read, and a bare object costs no Python call.)"""

    __slots__ = ("encoded",)

    def settle(self, vars_: list[int] | tuple, name: str = "") -> None:
        """What the encoder writes: `name` when nothing in the file binds it, else the variables."""
        self.encoded = ["n", name] if name else vars_[0] if len(vars_) == 1 else ["v", vars_]


Expr = list | _Read | None


class _Scope:
    """A scope while walking: its bindings so far and, per name, the variables reaching this point."""

    __slots__ = ("idx", "kind", "qualname", "parent", "state", "versions", "weak", "globals",
                 "nonlocals", "lambdas")

    def __init__(self, idx: int, kind: str, qualname: str, parent: _Scope | None) -> None:
        self.idx = idx  # the flow scope calls are attributed to (a comprehension's is its parent's)
        self.kind = kind  # module, function, class, lambda, comprehension
        self.qualname = qualname
        self.parent = parent
        self.state: State = {}
        self.versions: dict[str, list[int]] = {}  # every variable of a name bound here
        self.weak: dict[str, list[int]] = {}  # bound from a nested scope (global, nonlocal)
        self.globals: set[str] = set()
        self.nonlocals: set[str] = set()
        self.lambdas = 0


def numbered(counts: dict[str, int], qualname: str) -> str:
    """The next name made in scope `qualname` (`counts`: how many so far, per scope), as `f#0`: how
    allocations and call sites are named in values, so that an edit of another scope leaves the
    name as it was (readers of a module's analysis compare its values)."""
    count = counts[qualname] = counts.get(qualname, -1) + 1
    return f"{qualname}#{count}"


class _Walker:
    def __init__(self, facts: FileFacts, root: Node, spec: LanguageSpec) -> None:
        self.facts = facts
        self.spec = spec  # (its parser reads string annotations)
        self.defined: set[str] = set()  # qualnames of the definitions walked so far (`escape`)
        base = facts.path.rsplit("/", 1)[-1]
        # pytest's own file names, which the language table's `tests` globs are.
        self.pytest_module = any(fnmatchcase(base, glob) for glob in spec.extra.get("tests", ()))  # type: ignore[attr-defined]
        # Padded so that a node's byte offsets index it directly (the root may start after blank lines).
        self.source = b" " * root.start_byte + (root.text or b"")
        # An ASCII file's byte offsets index its decoded text too: a name is then a slice, not a decode.
        self.chars = self.source.decode("ascii") if self.source.isascii() else None
        self.scopes: list[list] = []
        self.stmts: list[list] = []
        self.sites: list[list] = []
        self.star: list[list] = []
        self.nvars = 0
        self.allocs: dict[str, int] = {}  # scope qualname -> allocations numbered in it so far
        self.reads: list[tuple[_Scope, str, _Read, list[int] | tuple]] = []
        # (their variables known where they are read: that list, which grows while the comprehension is walked)
        self.comprehension_reads: list[tuple[_Read, list[int]]] = []
        self.names_of: list[tuple[list, _Scope]] = []  # module and class scopes: names filled at the end
        self.scope = self._new_scope("", "module", None)

    def text(self, node: Node) -> str:
        """A node's text, sliced from the source (cheaper than asking the node for it)."""
        if self.chars is not None:
            return self.chars[node.start_byte : node.end_byte]
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    # scopes and names ----------------------------------------------------------------------------
    def _new_scope(self, qualname: str, kind: str, parent: _Scope | None, flags: str = "") -> _Scope:
        idx = len(self.scopes)
        entry = [qualname, kind, parent.idx if parent else -1, [], flags, {}]
        self.scopes.append(entry)
        scope = _Scope(idx, kind, qualname, parent)
        if kind in ("module", "class"):
            self.names_of.append((entry, scope))
        return scope

    def bind(self, name: str, walrus: bool = False) -> int:
        """A new variable for `name` in the current scope (or the one `global`/`nonlocal` names)."""
        var = self.nvars
        self.nvars += 1
        scope = self.scope
        while walrus and scope.kind == "comprehension":
            scope = scope.parent  # type: ignore[assignment]  # a walrus binds outside the comprehension
        if (scope.globals or scope.nonlocals) and (owner := self._declared_owner(scope, name)) is not scope:
            owner.versions.setdefault(name, []).append(var)
            owner.weak.setdefault(name, []).append(var)
            return var
        versions = scope.versions.get(name)
        if versions is None:
            scope.versions[name] = [var]
        else:
            versions.append(var)
        scope.state[name] = [var]
        return var

    def _declared_owner(self, scope: _Scope, name: str) -> _Scope:
        if name in scope.globals:
            while scope.parent is not None:
                scope = scope.parent
        elif name in scope.nonlocals:
            outer = scope.parent
            while outer is not None and (outer.kind == "class" or name not in outer.versions):
                outer = outer.parent
            scope = outer or scope
        return scope

    def read(self, name: str) -> _Read:
        scope = self.scope
        while scope.kind == "comprehension":
            if name in scope.versions:
                ref = _Read()
                self.comprehension_reads.append((ref, scope.versions[name]))
                return ref
            scope = scope.parent  # comprehensions run where they are written
        ref = _Read()
        self.reads.append((scope, name, ref, scope.state.get(name, _NOTHING)))
        return ref

    def _resolve_reads(self) -> None:
        for scope, name, ref, reaching in self.reads:
            # most scopes declare nothing global or nonlocal: then a name is owned where it is read
            owner = self._declared_owner(scope, name) if scope.globals or scope.nonlocals else scope
            if owner is scope and name in scope.versions:
                vars_ = reaching or scope.versions[name]  # (shared, not copied: nothing changes them now)
                if scope.weak and name in scope.weak:
                    vars_ = [*vars_, *scope.weak[name]]
                ref.encoded = vars_[0] if len(vars_) == 1 else ["v", vars_]  # (ref.settle(vars_), inlined: hot)
                continue
            outer = owner if owner is not scope else scope.parent
            while outer is not None and (outer.kind == "class" or name not in outer.versions):
                outer = outer.parent
            if outer is None:
                ref.settle(_NOTHING, name)
            else:
                ref.settle(outer.versions[name])
        for ref, vars_ in self.comprehension_reads:
            ref.settle(vars_)
        for entry, scope in self.names_of:
            entry[5] = scope.versions

    # flow through branches -------------------------------------------------------------------------
    def fork(self) -> State:
        return dict(self.scope.state)

    def branch(self, start: State, node: Node | None) -> State:
        self.scope.state = dict(start)
        if node is not None:
            self.block(node)
        return self.scope.state

    # statements ------------------------------------------------------------------------------------
    def block(self, node: Node) -> None:
        for child in node.named_children:
            _STATEMENT_OF_KIND[child.kind_id](self, child)  # (not through a method: hot)

    def skip(self, node: Node) -> None:
        """A statement or expression of no effect (comment, pass, ...): nothing to record."""

    def effects(self, node: Node) -> None:
        """An expression statement: only its calls matter."""
        before = len(self.sites)
        expr = _EXPRESSION_OF_KIND[node.kind_id](self, node)  # self.expr(node): hot
        if len(self.sites) > before:
            self.stmts.append(["e", self.scope.idx, expr])

    def s_assignment(self, node: Node) -> None:
        targets = []
        statement = node
        declared = None
        while node.kind_id in _K.assignment:  # a = b = value
            parts = node.children  # left "=" right | left ":" type ("=" right)
            if len(parts) < 3 or parts[-2].type != "=":
                return  # an annotation without a value binds nothing
            if declared is None and parts[1].type == ":":
                declared = self.annotation(node.child_by_field_id(_F.type))
            targets.append(parts[0])
            node = parts[-1]
        value = _EXPRESSION_OF_KIND[node.kind_id](self, node)  # self.expr(node): hot
        for target in targets:
            if target.kind_id in _K.stored_into:
                self.escape(node, "stored", statement)
                break
        if declared is not None:  # `x: Base = f()`: what the annotation declares, narrowing the value
            local = self.scope.kind in ("function", "lambda") and targets[0].kind_id in _K.identifier
            value = ["Ad", declared, value, local]
        for target in reversed(targets):
            self.assign(target, value)

    def assign(self, target: Node, value: Expr) -> None:
        if target.kind_id in _K.identifier:  # the common case, without the unwrapping and unpacking below
            self.stmts.append(["=", self.scope.idx, ["v", self.bind(self.text(target))], value])
            return
        pairs = _unpack(_unwrap(target), value)
        if pairs is not None:  # `a, (b, *c) = f, (g, h, i)`: each name gets its own item
            for item_target, item in pairs:
                self.assign(item_target, item)
            return
        tgt = self.target(target)
        if tgt is not None:
            self.stmts.append(["=", self.scope.idx, tgt, value])

    def target(self, node: Node) -> list | None:
        node = _unwrap(node)  # `(a) = ...`
        kind = node.type
        if kind == "identifier":
            return ["v", self.bind(self.text(node))]
        if kind == "attribute":
            obj = node.child_by_field_id(_F.object)
            attr = node.child_by_field_id(_F.attribute)
            return ["a", self.expr(obj), self.text(attr)] if obj is not None and attr is not None else None
        if kind == "subscript":
            value = node.child_by_field_id(_F.value)
            keys = node.children_by_field_id(_F.subscript)
            key = self.expr(keys[0]) if len(keys) == 1 else None
            return ["s", self.expr(value), key, self._site(node.start_point[0] + 1, "__setitem__")] \
                if value is not None else None
        if kind in _TARGET_SEQUENCES or kind == "parenthesized_expression":
            items = [c for c in node.named_children if c.type != "comment"]
            star = next((i for i, c in enumerate(items) if c.type in ("list_splat_pattern", "list_splat")), -1)
            targets = [self.target(c.named_children[0] if i == star else c) for i, c in enumerate(items)]
            return ["t", targets, star, self._site(node.start_point[0] + 1, "__iter__")]  # (unpacking iterates)
        if kind in ("list_splat_pattern", "list_splat") and node.named_children:
            return self.target(node.named_children[0])
        if kind == "as_pattern_target" and node.named_children:
            return self.target(node.named_children[0])
        self.effects(node)
        return None

    def s_augmented_assignment(self, node: Node) -> None:
        left, right = node.child_by_field_id(_F.left), node.child_by_field_id(_F.right)
        if left is None or right is None:
            return
        value = self.expr(right)
        operator = node.child_by_field_id(_F.operator)
        name = _BINARY_OPERATORS.get(operator.type[:-1]) if operator is not None else None
        if name is not None:  # keeps what the target was and adds the right side, or what its methods give
            site = self._site(node.start_point[0] + 1, f"__i{name}__")
            value = ["op", site, self.expr(left), value, [f"__i{name}__", f"__{name}__"], f"__r{name}__", 1]
        elif left.type == "identifier":
            value = ["u", [self.read(self.text(left)), value]]
        self.assign(left, value)

    def s_delete_statement(self, node: Node) -> None:
        targets = [c for c in node.named_children if c.type != "comment"]
        if len(targets) == 1 and targets[0].type == "expression_list":
            targets = [c for c in targets[0].named_children if c.type != "comment"]
        for target in targets:
            value = target.child_by_field_id(_F.value) if target.type == "subscript" else None
            if value is None:
                self.effects(target)
                continue
            keys = target.children_by_field_id(_F.subscript)
            key = self.expr(keys[0]) if len(keys) == 1 else self._only_calls(keys)
            site = self._site(target.start_point[0] + 1, "__delitem__")
            self.stmts.append(["e", self.scope.idx, ["op", site, self.expr(value), key, ["__delitem__"], None, 0]])

    def s_return_statement(self, node: Node) -> None:
        for child in node.named_children:
            self.escape(child, "returned", node)
            self.stmts.append(["r", self.scope.idx, self.expr(child)])

    def s_raise_statement(self, node: Node) -> None:
        children = node.named_children
        if children:
            line = node.start_point[0] + 1
            value = self.expr(children[0])
            self.stmts.append(["raise", self.scope.idx, value, self._site(line, self.callee_name(children[0]))])

    def s_global_statement(self, node: Node) -> None:
        self.scope.globals.update(self.text(c) for c in node.named_children if c.type == "identifier")

    def s_nonlocal_statement(self, node: Node) -> None:
        self.scope.nonlocals.update(self.text(c) for c in node.named_children if c.type == "identifier")

    def s_if_statement(self, node: Node) -> None:
        cond = node.child_by_field_id(_F.condition)
        if cond is not None:
            self.effects(cond)
        start = self.fork()
        branches = [self.branch(start, node.child_by_field_id(_F.consequence))]
        has_else = False
        for alt in node.children_by_field_id(_F.alternative):
            self.scope.state = dict(start)
            if alt.type == "elif_clause":
                elif_cond = alt.child_by_field_id(_F.condition)
                if elif_cond is not None:
                    self.effects(elif_cond)
                branches.append(self.branch(self.scope.state, alt.child_by_field_id(_F.consequence)))
            else:
                has_else = True
                branches.append(self.branch(start, alt.child_by_field_id(_F.body)))
        self.scope.state = join(*branches) if has_else else join(start, *branches)

    def s_for_statement(self, node: Node) -> None:
        left, right = node.child_by_field_id(_F.left), node.child_by_field_id(_F.right)
        iterable = self.expr(right) if right is not None else None
        start = self.fork()
        if left is not None:
            tgt = self.target(left)
            if tgt is not None:
                site = self._site(node.start_point[0] + 1, _iterates(node))
                self.stmts.append(["for", self.scope.idx, tgt, iterable, site])
        body = self.branch(self.scope.state, node.child_by_field_id(_F.body))
        self.scope.state = join(start, body)
        alternative = node.child_by_field_id(_F.alternative)
        if alternative is not None:
            self.block(alternative)

    def s_while_statement(self, node: Node) -> None:
        cond = node.child_by_field_id(_F.condition)
        if cond is not None:
            self.effects(cond)
        start = self.fork()
        body = self.branch(start, node.child_by_field_id(_F.body))
        self.scope.state = join(start, body)
        alternative = node.child_by_field_id(_F.alternative)
        if alternative is not None:
            self.block(alternative)

    def s_try_statement(self, node: Node) -> None:
        start = self.fork()
        body = self.branch(start, node.child_by_field_id(_F.body))
        ends = []
        finally_ = None
        for clause in node.named_children:
            if clause.type in ("except_clause", "except_group_clause"):
                ends.append(self._except(join(start, body), clause))
            elif clause.type == "else_clause":
                body = self.branch(body, clause.child_by_field_id(_F.body))
            elif clause.type == "finally_clause":
                finally_ = clause
        self.scope.state = join(body, *ends)
        if finally_ is not None:
            self.block(finally_)

    def _except(self, start: State, clause: Node) -> State:
        self.scope.state = dict(start)
        for child in clause.named_children:
            if child.type == "block":
                self.block(child)
            elif child.type == "as_pattern":
                alias = child.child_by_field_id(_F.alias)
                if alias is not None:
                    self.assign(alias, None)
        return self.scope.state

    def s_with_statement(self, node: Node) -> None:
        enter = "__aenter__" if _is_async(node) else "__enter__"
        for clause in node.named_children:
            if clause.type == "with_clause":
                for item in clause.named_children:
                    self._with_item(item, enter)
            elif clause.type == "block":
                self.block(clause)

    def _with_item(self, item: Node, enter: str) -> None:
        value = item.child_by_field_id(_F.value)
        if value is None:
            return
        tgt = None
        if value.type == "as_pattern" and value.named_children:
            alias = value.child_by_field_id(_F.alias)
            context = self.expr(value.named_children[0])
            tgt = self.target(alias) if alias is not None else None
        else:
            context = self.expr(value)
        self.stmts.append(["w", self.scope.idx, tgt, context, self._site(item.start_point[0] + 1, enter)])

    def s_match_statement(self, node: Node) -> None:
        subject = node.child_by_field_id(_F.subject)
        if subject is not None:
            self.effects(subject)
        start = self.fork()
        branches = [start]
        for body in node.children_by_field_id(_F.body):
            for case in body.named_children:
                self.scope.state = dict(start)
                for part in case.named_children:
                    if part.type == "case_pattern":
                        for name in _captures(part):
                            self.bind(self.text(name))  # what it captures is not followed
                    elif part.type == "if_clause":
                        self.effects(part)
                branches.append(self.branch(self.scope.state, case.child_by_field_id(_F.consequence)))
        self.scope.state = join(*branches)

    def s_import_statement(self, node: Node) -> None:
        for name in node.children_by_field_id(_F.name):
            if name.type == "aliased_import":
                module, alias = name.child_by_field_id(_F.name), name.child_by_field_id(_F.alias)
                if module is not None and alias is not None:
                    self._import(node, self.text(module), alias=self.text(alias))
                    self._bind_value(self.text(alias), ["m", self.text(module), "", 0])
            else:
                dotted = self.text(name)
                head = dotted.split(".", 1)[0]
                self._import(node, dotted)
                self._bind_value(head, ["m", head, "", 0, dotted])

    def _import(self, node: Node, module: str, name: str = "", alias: str = "", level: int = 0,
                wildcard: bool = False) -> None:
        self.facts.imports.append(
            Import(module=module, scope=self._named_scope().qualname, line=node.start_point[0] + 1, name=name,
                   alias=alias, level=level, wildcard=wildcard)
        )

    def s_import_from_statement(self, node: Node) -> None:
        module_node = node.child_by_field_id(_F.module_name)
        if module_node is None:
            return
        module, level = _module_and_level(module_node)
        if any(c.type == "wildcard_import" for c in node.named_children):
            self._import(node, module, level=level, wildcard=True)
            if self.scope.kind == "module":
                self.star.append([module, level])
            return
        for name in node.children_by_field_id(_F.name):
            if name.type == "aliased_import":
                member, alias = name.child_by_field_id(_F.name), name.child_by_field_id(_F.alias)
                if member is not None and alias is not None:
                    self._import(node, module, self.text(member), self.text(alias), level)
                    self._bind_value(self.text(alias), ["m", module, self.text(member), level])
            else:
                self._import(node, module, self.text(name), level=level)
                self._bind_value(self.text(name), ["m", module, self.text(name), level])

    def _bind_value(self, name: str, value: Expr) -> None:
        self.stmts.append(["=", self.scope.idx, ["v", self.bind(name)], value])

    # definitions -----------------------------------------------------------------------------------
    def s_decorated_definition(self, node: Node) -> None:
        definition = node.child_by_field_id(_F.definition)
        if definition is None:
            return
        decorators = [c.named_children[0] for c in node.named_children if c.type == "decorator" and c.named_children]
        flags = "".join(_DESCRIPTORS.get(_dotted(d), "") for d in decorators)
        applied = [d for d in decorators if _dotted(d) not in _DESCRIPTORS and not _is_property_accessor(d)]
        if definition.type == "class_definition":
            self.s_class_definition(definition, applied, decorators)
        elif definition.type == "function_definition":
            self.s_function_definition(definition, applied, flags, decorators)

    def _decorate(self, value: list, decorators: list[Node]) -> list:
        for dec in reversed(decorators):  # the one nearest the definition applies first
            value = ["@", self._site(dec.start_point[0] + 1, self.callee_name(dec)), self.expr(dec), value]
        return value

    def s_function_definition(self, node: Node, decorators: Sequence[Node] = (), flags: str = "",
                              written: Sequence[Node] = ()) -> None:
        name_node = node.child_by_field_id(_F.name)
        if name_node is None:
            return
        name = self.text(name_node)
        outer = self.scope
        in_class = outer.kind == "class"
        if in_class and name in _IMPLICIT_CLASSMETHODS:
            flags += "c"
        scope = self._new_scope(_qualify(outer.qualname, name), "function", outer, flags)
        self._define(node, name, "function", scope.qualname, written)
        # pytest passes a test, and a fixture, the fixtures its parameters name
        injected = self.pytest_module and outer.kind in ("module", "class") and (
            name.startswith("test") or any(self.callee_name(d) == "fixture" for d in written))
        self._parameters(node.child_by_field_id(_F.parameters), scope, in_class, flags, injected)
        declared = self.annotation(node.child_by_field_id(_F.return_type))
        if declared is not None:  # what a caller gets, whatever the body's returns tell
            self.stmts.append(["r", scope.idx, declared])
        body = node.child_by_field_id(_F.body)
        if body is not None:
            self.scope = scope
            self.block(body)
            self.scope = outer
        self._bind_value(name, self._decorate(["f", scope.idx], list(decorators)))

    def _parameters(self, params: Node | None, scope: _Scope, in_class: bool, flags: str,
                    injected: bool = False) -> None:
        if params is None:
            return
        outer, entry = self.scope, self.scopes[scope.idx]
        mode = PARAM_POSITIONAL
        for param in params.named_children:
            kind = param.type
            if kind == "positional_separator":
                for p in entry[3]:
                    p[2] = PARAM_POSITIONAL_ONLY
                continue
            if kind == "keyword_separator":
                mode = PARAM_KEYWORD
                continue
            name_node, default = _param_parts(param)
            if name_node is None:
                continue
            this_mode = mode
            if kind == "list_splat_pattern":
                this_mode, mode = PARAM_STAR, PARAM_KEYWORD
            elif kind == "dictionary_splat_pattern":
                this_mode = PARAM_DOUBLE_STAR
            name = self.text(name_node)
            self.scope = scope
            var = self.bind(name)
            self.scope = outer
            entry[3].append([name, var, this_mode])
            if default is not None:
                self.stmts.append(["=", outer.idx, ["v", var], self.expr(default)])
            declared = self.annotation(param.child_by_field_id(_F.type)) if this_mode in (
                PARAM_POSITIONAL, PARAM_POSITIONAL_ONLY, PARAM_KEYWORD) else None
            if declared is not None:  # (read where the function is defined, as Python evaluates it)
                self.stmts.append(["=", outer.idx, ["v", var], declared])
            bound = in_class and len(entry[3]) == 1 and "s" not in flags  # (self, cls)
            if injected and default is None and this_mode in (PARAM_POSITIONAL, PARAM_KEYWORD) and not bound:
                self.stmts.append(["=", outer.idx, ["v", var], ["fx", name]])
        first = entry[3][0] if entry[3] else None
        takes_self = first is not None and first[2] in (PARAM_POSITIONAL, PARAM_POSITIONAL_ONLY)
        if in_class and takes_self and "s" not in flags:
            self.stmts.append(["=", scope.idx, ["v", first[1]], ["ic" if "c" in flags else "i", outer.idx]])

    def s_class_definition(self, node: Node, decorators: Sequence[Node] = (), written: Sequence[Node] = ()) -> None:
        name_node = node.child_by_field_id(_F.name)
        if name_node is None:
            return
        name = self.text(name_node)
        outer = self.scope
        scope = self._new_scope(_qualify(outer.qualname, name), "class", outer)
        bases, base_texts = [], []
        superclasses = node.child_by_field_id(_F.superclasses)
        for arg in superclasses.named_children if superclasses is not None else ():
            if arg.type == "keyword_argument":
                self.effects(arg)
            elif arg.type not in ("comment", "list_splat", "dictionary_splat"):
                origin = arg.child_by_field_id(_F.value) if arg.type == "subscript" else None
                bases.append(self.expr(origin or arg))  # `class P(Proxy[T])` derives from Proxy
                if arg.type in ("identifier", "attribute"):
                    base_texts.append(self.text(arg))
        self._define(node, name, "class", scope.qualname, written, tuple(base_texts))
        self.stmts.append(["b", outer.idx, scope.idx, bases])
        body = node.child_by_field_id(_F.body)
        if body is not None:
            self.scope = scope
            self.block(body)
            self.scope = outer
        self._bind_value(name, self._decorate(["C", scope.idx], list(decorators)))

    def _define(self, node: Node, name: str, kind: str, qualname: str, decorators: Sequence[Node] = (),
                bases: tuple[str, ...] = ()) -> None:
        start, end = node.start_byte, node.end_byte
        # Only the first line is decoded: a class's whole text would be decoded for one line otherwise.
        first_line_end = self.source.find(b"\n", start, end)
        first_line = self.source[start : end if first_line_end < 0 else first_line_end].decode("utf-8", "replace")
        self.defined.add(qualname)
        self.facts.definitions.append(
            Definition(name=name, kind=kind, qualname=qualname, start_line=node.start_point[0] + 1,
                       end_line=node.end_point[0] + 1, signature=signature_of(first_line),
                       fingerprint=fingerprint_of(self.source[start:end]),
                       bases=bases, decorators=tuple([self.text(d) for d in decorators]) if decorators else ())
        )

    # annotations -----------------------------------------------------------------------------------
    def annotation(self, node: Node | None) -> list | None:
        """What an annotation declares (`["A", types, class types]`), None when it names no type."""
        if node is None:
            return None
        found: tuple[list, list] = ([], [])
        self._types(node, found, False)
        return ["A", *found] if found[0] or found[1] else None

    def _types(self, node: Node, found: tuple[list, list], of_class: bool) -> None:
        """The type expressions an annotation's node names, into `found` (instances, classes): `Foo`,
        `mod.Foo`, `Self`, each member of `A | B`, `Optional[...]` and `Union[...]`, a generic's
        origin, a string's expression; `type[...]` names classes."""
        kind = node.type
        if kind in ("identifier", "attribute"):
            if self.text(node).rsplit(".", 1)[-1] != "Self":
                found[of_class].append(self.expr(node))
            elif (cls := self._enclosing_class()) is not None:
                found[of_class].append(["ic" if of_class else "i", cls])
        elif kind in ("type", "parenthesized_expression", "union_type"):
            for child in node.named_children:
                self._types(child, found, of_class)
        elif kind == "binary_operator":
            operator = node.child_by_field_id(_F.operator)
            if operator is not None and operator.type == "|":
                for side in (node.child_by_field_id(_F.left), node.child_by_field_id(_F.right)):
                    if side is not None:
                        self._types(side, found, of_class)
        elif kind in ("generic_type", "subscript"):
            self._generic(node, found, of_class)
        elif kind == "string":
            self._string_types(node, found, of_class)

    def _generic(self, node: Node, found: tuple[list, list], of_class: bool) -> None:
        if node.type == "generic_type":
            children = node.named_children
            origin = children[0] if children else None
            params = next((c for c in children if c.type == "type_parameter"), None)
            args = params.named_children if params is not None else []
        else:
            origin = node.child_by_field_id(_F.value)
            args = node.children_by_field_id(_F.subscript)
        form = self.text(origin).rsplit(".", 1)[-1] if origin is not None else ""
        if form in _UNION_FORMS:
            for arg in args:
                self._types(arg, found, of_class)
        elif form in _QUALIFIER_FORMS or form in _CLASS_FORMS:
            if args:
                self._types(args[0], found, of_class or form in _CLASS_FORMS)
        elif form not in _NO_TYPE_FORMS and origin is not None:
            self._types(origin, found, of_class)

    def _string_types(self, node: Node, found: tuple[list, list], of_class: bool) -> None:
        """A string annotation (a forward reference): its text parsed as the expression it holds."""
        parts = node.named_children
        if len(parts) != 3 or parts[1].type != "string_content" or b"b" in self.text(parts[0]).encode().lower():
            return
        tree = self.spec.parser().parse(self.text(parts[1]).strip().encode())
        root = tree.root_node
        expression = root.named_children[0] if len(root.named_children) == 1 and not root.has_error else None
        if expression is not None and expression.type == "expression_statement":
            expression = expression.named_children[0] if len(expression.named_children) == 1 else None
        if expression is None:
            return
        saved = self.source, self.chars  # (names are sliced from the text being read)
        self.source = b" " * root.start_byte + (root.text or b"")
        self.chars = self.source.decode("ascii") if self.source.isascii() else None
        try:
            self._types(expression, found, of_class)
        finally:
            self.source, self.chars = saved

    def _enclosing_class(self) -> int | None:
        scope: _Scope | None = self.scope
        while scope is not None and scope.kind not in ("class", "module"):
            scope = scope.parent
        return scope.idx if scope is not None and scope.kind == "class" else None

    def lambda_(self, node: Node) -> list:
        outer = self.scope
        named = outer
        while named.kind == "comprehension":
            named = named.parent
        named.lambdas += 1
        qualname = _qualify(named.qualname, f"<lambda{named.lambdas}>")
        scope = self._new_scope(qualname, "lambda", outer)
        self._define(node, f"<lambda{named.lambdas}>", "lambda", qualname)
        self._parameters(node.child_by_field_id(_F.parameters), scope, False, "")
        body = node.child_by_field_id(_F.body)
        if body is not None:
            self.scope = scope
            self.stmts.append(["r", scope.idx, self.expr(body)])
            self.scope = outer
        return ["f", scope.idx]

    # expressions -----------------------------------------------------------------------------------
    def expr(self, node: Node | None) -> Expr:
        if node is None:
            return None
        return _EXPRESSION_OF_KIND[node.kind_id](self, node)

    def e_other(self, node: Node) -> Expr:
        return self._only_calls(node.named_children)

    def _only_calls(self, children: list[Node]) -> Expr:
        """Operators and the like: their value is not tracked, their calls are."""
        parts = []
        for child in children:
            before = len(self.sites)
            value = self.expr(child)
            if len(self.sites) > before:
                parts.append(value)
        return ["o", parts] if parts else None

    def e_identifier(self, node: Node) -> Expr:
        # self.read(self.text(node)), inlined outside comprehensions: identifiers are the commonest node
        name = self.chars[node.start_byte : node.end_byte] if self.chars is not None else self.text(node)
        scope = self.scope
        if scope.kind == "comprehension":
            return self.read(name)
        ref = _Read()
        self.reads.append((scope, name, ref, scope.state.get(name, _NOTHING)))
        return ref

    def e_attribute(self, node: Node) -> Expr:
        parts = node.children  # object "." attribute
        if len(parts) != 3:
            return self._only_calls(parts)  # recovered from a syntax error
        obj, attr = parts[0], parts[2]
        value = _EXPRESSION_OF_KIND[obj.kind_id](self, obj)  # self.expr(obj): hot
        if self.chars is not None:  # self.text(attr), inlined: hot
            return ["a", value, self.chars[attr.start_byte : attr.end_byte]]
        return ["a", value, self.text(attr)]

    def e_subscript(self, node: Node) -> Expr:
        value = self.expr(node.child_by_field_id(_F.value))
        keys = node.children_by_field_id(_F.subscript)
        if len(keys) == 1 and keys[0].type == "slice":
            bounds = [c for c in keys[0].children if c.type != "comment"]
            lo, hi = _slice_bounds(bounds)
            return ["s:", value, lo, hi, self._site(node.start_point[0] + 1, "__getitem__")]
        key = self.expr(keys[0]) if len(keys) == 1 else self._only_calls(keys)
        return ["s", value, key, self._site(node.start_point[0] + 1, "__getitem__")]

    def e_binary_operator(self, node: Node) -> Expr:
        left, right = node.child_by_field_id(_F.left), node.child_by_field_id(_F.right)
        operator = node.child_by_field_id(_F.operator)
        name = _BINARY_OPERATORS.get(operator.type) if operator is not None else None
        if name is None or left is None or right is None:
            return self._only_calls(node.named_children)
        site = self._site(node.start_point[0] + 1, f"__{name}__")
        return ["op", site, self.expr(left), self.expr(right), [f"__{name}__"], f"__r{name}__", 0]

    def e_comparison_operator(self, node: Node) -> Expr:
        operands = [c for c in node.children if c.is_named and c.type != "comment"]
        operators = [c.type for c in node.children if not c.is_named]
        values = [self.expr(c) for c in operands]
        line = node.start_point[0] + 1
        calls: list = []
        used: set[int] = set()  # operands some method is called with (evaluated there)
        for i, operator in enumerate(operators[: len(values) - 1]):
            left, right = values[i], values[i + 1]
            if operator in _MEMBERSHIP:
                calls.append(["op", self._site(line, "__contains__"), right, left, ["__contains__"], None, 0])
            elif operator in _COMPARISONS:
                methods, reflected = _COMPARISONS[operator]
                calls.append(["op", self._site(line, methods[0]), left, right, methods, reflected, 0])
            else:
                continue  # `is`: no method
            used |= {i, i + 1}
        calls += [v for i, v in enumerate(values) if i not in used and v is not None]
        return ["o", calls] if calls else None  # (a truth value: not followed)

    def e_unary_operator(self, node: Node) -> Expr:
        operator, argument = node.child_by_field_id(_F.operator), node.child_by_field_id(_F.argument)
        method = _UNARY_OPERATORS.get(operator.type) if operator is not None else None
        if method is None or argument is None or argument.type in ("integer", "float"):
            return self._only_calls(node.named_children)  # (a negative number calls nothing)
        return ["op", self._site(node.start_point[0] + 1, method), self.expr(argument), None, [method], None, 0]

    def e_call(self, node: Node) -> Expr:
        parts = node.children  # function arguments
        func = parts[0] if parts else None
        args = parts[1] if len(parts) > 1 else None
        line = node.start_point[0] + 1
        positional: list = []
        keywords: list = []
        kinds = _K
        arg_nodes = [] if args is None else [args] if args.kind_id in kinds.generator_expression \
            else args.named_children
        chars = self.chars
        for arg in arg_nodes:
            kind = arg.kind_id
            if kind in kinds.identifier:  # the commonest argument: escape's and e_identifier's work, inlined
                name = chars[arg.start_byte : arg.end_byte] if chars is not None else self.text(arg)
                if not self._local_variable(name):
                    self._escaped("argument", name, "", arg, node)
                positional.append(self.read(name))
            elif kind in kinds.keyword_argument:
                name = arg.child_by_field_id(_F.name)
                value_node = arg.child_by_field_id(_F.value)
                if value_node is not None and value_node.kind_id in kinds.named_value:  # (escape's own test: hot)
                    self.escape(value_node, "keyword", arg)
                keywords.append([self.text(name) if name is not None else None, self.expr(value_node)])
            elif kind in kinds.list_splat:
                positional.append(["*", self.expr(_first_named(arg))])
            elif kind in kinds.dictionary_splat:
                keywords.append([None, self.expr(_first_named(arg))])
            elif kind not in kinds.comment:
                if kind in kinds.named_value:
                    self.escape(arg, "argument", node)
                positional.append(_EXPRESSION_OF_KIND[kind](self, arg))  # self.expr(arg): hot
        func_kind = func.kind_id if func is not None else -1
        if func_kind in kinds.identifier:  # (callee_name's first case, inlined: hot)
            name = chars[func.start_byte : func.end_byte] if chars is not None else self.text(func)  # type: ignore[union-attr]
        else:
            name = self.callee_name(func)
        dynamic = _dynamic_kind(func, arg_nodes) if name in _MAYBE_DYNAMIC or name == "" else ""
        if dynamic:
            self.facts.references.append(
                Reference(kind="dynamic", name=dynamic, scope=self._named_scope().qualname, line=line,
                          detail=self.text(node)[:120])
            )
        sites = self.sites  # (self._site, inlined: hot)
        sites.append([line, name, self.scope.idx, _looked_up(dynamic, func, arg_nodes) if dynamic else ""])
        site = len(sites) - 1
        # A plain name as callee is the name just read (its read, made after the site, is the same).
        if func is None:
            callee = None
        elif func_kind in kinds.identifier:
            callee = self.read(name)
        else:
            callee = _EXPRESSION_OF_KIND[func_kind](self, func)  # self.expr(func): hot
        return ["c", site, callee, positional, keywords]

    def e_string(self, node: Node) -> Expr:
        # Most strings are string_start string_content string_end: build only the middle node.
        middle = node.child(1) if node.child_count == 3 and not node.has_error else None
        if middle is not None and middle.kind_id in _K.string_content:
            start, content_start, content_end = node.start_byte, middle.start_byte, middle.end_byte
            # string_start: a prefix, if it does not start with a quote, then quotes
            if self.source[start] not in _QUOTES and b"b" in self.source[start:content_start].lower():
                return ["kb"]  # bytes: not a str, never a key we could match
            if self.chars is not None:  # (ASCII: as many characters as bytes, none decoded for a long one)
                return ["k", self.chars[content_start:content_end]] if content_end - content_start <= MAX_CONST_LEN \
                    else ["ks"]
            content = self.text(middle)
            return ["k", content] if len(content) <= MAX_CONST_LEN else ["ks"]
        parts = node.children  # string_start, string_content and interpolation in any order, string_end
        interpolations = [part for part in parts if part.type == "interpolation"]
        if interpolations:
            calls = self._only_calls(interpolations)
            return ["u", [["ks"], calls]] if calls else ["ks"]
        if parts and "b" in self.text(parts[0]).lower():
            return ["kb"]
        content = "".join([self.text(part) for part in parts if part.type == "string_content"])
        return ["k", content] if len(content) <= MAX_CONST_LEN else ["ks"]

    def e_concatenated_string(self, node: Node) -> Expr:
        parts = [self.e_string(c) for c in node.named_children if c.type == "string"]
        if any(p == ["kb"] for p in parts):
            return ["kb"]
        if all(isinstance(p, list) and p[0] == "k" for p in parts):
            joined = "".join(p[1] for p in parts)  # type: ignore[index]
            return ["k", joined] if len(joined) <= MAX_CONST_LEN else ["ks"]
        calls = [p[1][1] for p in parts if isinstance(p, list) and p[0] == "u"]
        return ["u", [["ks"], *calls]] if calls else ["ks"]

    def e_integer(self, node: Node) -> Expr:
        text = self.text(node).replace("_", "").lower()
        try:
            value = int(text, 0)
        except ValueError:
            return None  # complex (`2j`) or malformed
        return ["k", value] if -_INT64 <= value < _INT64 else None

    def e_float(self, node: Node) -> Expr:
        try:
            return ["k", float(self.text(node).replace("_", ""))]
        except ValueError:
            return None

    def e_true(self, node: Node) -> Expr:
        return ["k", True]

    def e_false(self, node: Node) -> Expr:
        return ["k", False]

    def e_none(self, node: Node) -> Expr:
        return ["k", None]

    def e_sequence(self, node: Node) -> Expr:
        items = []
        for child in node.named_children:
            kind = child.kind_id
            if kind in _K.splat:
                items.append(["*", self.expr(_first_named(child))])
            elif kind not in _K.comment:
                items.append(_EXPRESSION_OF_KIND[kind](self, child))  # self.expr(child): hot
        return ["l", self._alloc(), items]

    def e_dictionary(self, node: Node) -> Expr:
        pairs = []
        for child in node.named_children:
            kind = child.kind_id
            if kind in _K.pair:
                key = self.expr(child.child_by_field_id(_F.key))
                value_node = child.child_by_field_id(_F.value)
                if value_node is not None and value_node.kind_id in _K.named_value:  # (as in e_call)
                    self.escape(value_node, "item", child)
                pairs.append([key, self.expr(value_node)])
            elif kind in _K.dictionary_splat and child.named_children:
                pairs.append([None, self.expr(child.named_children[0])])
        return ["d", self._alloc(), pairs]

    def e_comprehension(self, node: Node) -> Expr:
        alloc = self._alloc()
        outer = self.scope
        clauses = [c for c in node.named_children if c.type in ("for_in_clause", "if_clause")]
        body = node.child_by_field_id(_F.body)
        comp = _Scope(outer.idx, "comprehension", outer.qualname, outer)
        for i, clause in enumerate(clauses):
            if clause.type == "for_in_clause":
                # the first iterable is evaluated outside the comprehension
                self.scope = outer if i == 0 else comp
                right = clause.child_by_field_id(_F.right)
                iterable = self.expr(right)
                self.scope = comp
                left = clause.child_by_field_id(_F.left)
                tgt = self.target(left) if left is not None else None
                if tgt is not None:
                    site = self._site(clause.start_point[0] + 1, _iterates(clause))
                    self.stmts.append(["for", outer.idx, tgt, iterable, site])
            else:
                self.scope = comp
                for cond in clause.named_children:
                    self.effects(cond)
        self.scope = comp
        if body is not None and body.type == "pair":
            self.effects(body.child_by_field_id(_F.key))  # type: ignore[arg-type]
            item = self.expr(body.child_by_field_id(_F.value))
        else:
            item = self.expr(body)
        self.scope = outer
        return ["L", alloc, item]

    def e_parenthesized_expression(self, node: Node) -> Expr:
        children = [c for c in node.named_children if c.type != "comment"]
        return self.expr(children[0]) if len(children) == 1 else self._only_calls(children)

    def e_conditional_expression(self, node: Node) -> Expr:
        parts = [c for c in node.named_children if c.type != "comment"]
        if len(parts) != 3:
            return self._only_calls(parts)
        return ["u", [self.expr(parts[0]), self.expr(parts[2]), self._only_calls([parts[1]])]]

    def e_boolean_operator(self, node: Node) -> Expr:
        return ["u", [self.expr(node.child_by_field_id(_F.left)), self.expr(node.child_by_field_id(_F.right))]]

    def e_await(self, node: Node) -> Expr:
        children = node.named_children
        return self.expr(children[0]) if children else None

    def e_named_expression(self, node: Node) -> Expr:
        name, value = node.child_by_field_id(_F.name), node.child_by_field_id(_F.value)
        if name is None:
            return self.expr(value)
        computed = self.expr(value)
        var = self.bind(self.text(name), walrus=True)
        self.stmts.append(["=", self.scope.idx, ["v", var], computed])
        return ["v", [var]]

    def e_yield(self, node: Node) -> Expr:
        children = node.named_children
        owner = self._named_scope()
        if "g" not in self.scopes[owner.idx][4]:
            self.scopes[owner.idx][4] += "g"
        if children:
            delegates = any(c.type == "from" for c in node.children)
            if delegates:
                value = self.expr(children[0])
                self.stmts.append(["Y", owner.idx, value, self._site(node.start_point[0] + 1, "__iter__")])
            else:
                self.stmts.append(["y", owner.idx, self.expr(children[0])])
        return None

    # helpers ---------------------------------------------------------------------------------------
    def escape(self, value: Node | None, how: str, site: Node) -> None:
        """A plain name or a member (`f`, `self.url_for`) taken as a value, not called: kept in
        `FileFacts.escapes` (a function escaping there is called by code the graph may not follow)."""
        if value is None or (kind := value.kind_id) not in _K.named_value:
            return
        if kind in _K.identifier:
            name = self.text(value)
            if not self._local_variable(name):
                self._escaped(how, name, "", value, site)
            return
        # an attribute
        owner, value = value.child_by_field_id(_F.object), value.child_by_field_id(_F.attribute)
        if value is not None:
            self._escaped(how, self.text(value), self.text(owner) if owner is not None else "", value, site)

    def _escaped(self, how: str, name: str, receiver: str, value: Node, site: Node) -> None:
        self.facts.escapes.append(Reference(kind=how, name=name, scope=self._named_scope().qualname,
                                            line=value.start_point[0] + 1, receiver=receiver,
                                            detail=" ".join(self.text(site).split())[:120]))

    def _local_variable(self, name: str) -> bool:
        """Whether `name` is a parameter or local variable of the function it is read in or of one
        enclosing it (a closure), not a function defined there: what it holds is the flow's to follow."""
        scope: _Scope | None = self._named_scope()
        while scope is not None and scope.kind != "module":
            if scope.kind in ("function", "lambda") and name in scope.versions:
                return f"{scope.qualname}.{name}" not in self.defined
            scope = scope.parent
        return False

    def _named_scope(self) -> _Scope:
        scope = self.scope
        while scope.kind == "comprehension":
            scope = scope.parent  # type: ignore[assignment]
        return scope

    def callee_name(self, node: Node | None) -> str:
        """The name a call site shows: the last identifier of its callee (`b` of `a.b()`)."""
        while node is not None:
            kind = node.kind_id
            if kind in _K.identifier:
                return self.text(node)
            if kind in _K.attribute:
                parts = node.children  # object "." attribute; kept on the node, e_attribute reads them next
                if len(parts) == 3 and (attr := parts[2]).kind_id in _K.identifier:
                    if self.chars is not None:  # self.text(attr), inlined: hot
                        return self.chars[attr.start_byte : attr.end_byte]
                    return self.text(attr)
                attr = node.child_by_field_id(_F.attribute)
                return self.text(attr) if attr is not None else ""
            if kind not in _K.call:
                return ""
            node = node.child_by_field_id(_F.function)
        return ""

    def _site(self, line: int, name: str, looked_up: str = "") -> int:
        self.sites.append([line, name, self.scope.idx, looked_up])
        return len(self.sites) - 1

    def _alloc(self) -> str:
        return numbered(self.allocs, self.scope.qualname)

    def flow(self) -> bytes:
        self._resolve_reads()
        stmts: list[list] = []
        body: list[list] = []
        body_at: list[int] = []
        for i, stmt in enumerate(self.stmts):
            if stmt[0] in _BODY_ONLY:
                body.append(stmt)
                body_at.append(i)
            else:
                stmts.append(stmt)
        return _ENCODER.encode({"scopes": self.scopes, "stmts": stmts, "star": self.star, "nvars": self.nvars,
                                "body": body, "body_at": body_at, "sites": self.sites})


# Statements only the module's own analysis runs: other modules read its bindings, returns, yields,
# bases and assigned attributes, never these (nor the sites), so they are stored apart (`body`).
_BODY_ONLY = frozenset({"e", "raise", "Y"})


_STATEMENTS = {
    "expression_statement": _Walker.block,  # (each of its expressions a statement)
    "assignment": _Walker.s_assignment,
    "augmented_assignment": _Walker.s_augmented_assignment,
    "delete_statement": _Walker.s_delete_statement,
    "return_statement": _Walker.s_return_statement,
    "raise_statement": _Walker.s_raise_statement,
    "global_statement": _Walker.s_global_statement,
    "nonlocal_statement": _Walker.s_nonlocal_statement,
    "if_statement": _Walker.s_if_statement,
    "for_statement": _Walker.s_for_statement,
    "while_statement": _Walker.s_while_statement,
    "try_statement": _Walker.s_try_statement,
    "with_statement": _Walker.s_with_statement,
    "match_statement": _Walker.s_match_statement,
    "import_statement": _Walker.s_import_statement,
    "import_from_statement": _Walker.s_import_from_statement,
    "decorated_definition": _Walker.s_decorated_definition,
    "function_definition": _Walker.s_function_definition,
    "class_definition": _Walker.s_class_definition,
    "block": _Walker.block,
    **dict.fromkeys(_SKIPPED, _Walker.skip),
}

_EXPRESSIONS = {
    "identifier": _Walker.e_identifier,
    "attribute": _Walker.e_attribute,
    "subscript": _Walker.e_subscript,
    "binary_operator": _Walker.e_binary_operator,
    "comparison_operator": _Walker.e_comparison_operator,
    "unary_operator": _Walker.e_unary_operator,
    "call": _Walker.e_call,
    "string": _Walker.e_string,
    "concatenated_string": _Walker.e_concatenated_string,
    "integer": _Walker.e_integer,
    "float": _Walker.e_float,
    "true": _Walker.e_true,
    "false": _Walker.e_false,
    "none": _Walker.e_none,
    "dictionary": _Walker.e_dictionary,
    "parenthesized_expression": _Walker.e_parenthesized_expression,
    "conditional_expression": _Walker.e_conditional_expression,
    "boolean_operator": _Walker.e_boolean_operator,
    "await": _Walker.e_await,
    "named_expression": _Walker.e_named_expression,
    "yield": _Walker.e_yield,
    "lambda": _Walker.lambda_,
    **dict.fromkeys(_SEQUENCES, _Walker.e_sequence),
    **dict.fromkeys(_COMPREHENSIONS, _Walker.e_comprehension),
    **dict.fromkeys(_SKIPPED, _Walker.skip),
}


_STATEMENT_OF_KIND: dict[int, Callable[[_Walker, Node], None]] = {}  # (filled by `_F.load`)
_EXPRESSION_OF_KIND: dict[int, Callable[[_Walker, Node], Expr]] = {}

_ENCODER = msgspec.msgpack.Encoder(enc_hook=attrgetter("encoded"))  # (the only objects it meets are _Reads)


def _qualify(parent: str, name: str) -> str:
    return f"{parent}.{name}" if parent else name


def _is_async(node: Node) -> bool:
    return any(c.type == "async" for c in node.children)


def _iterates(node: Node) -> str:
    """The method a `for` (statement or comprehension clause) calls first: __iter__, or __aiter__."""
    return "__aiter__" if _is_async(node) else "__iter__"


def _first_named(node: Node) -> Node | None:
    children = node.named_children
    return children[0] if children else None


def _unwrap(node: Node) -> Node:
    while node.type == "parenthesized_expression" and len(node.named_children) == 1:
        node = node.named_children[0]
    return node


def _unpack(target: Node, value: Expr) -> list[tuple[Node, Expr]] | None:
    """Pairs (target, item) when a tuple target takes a display of matching length, else None."""
    if target.type not in _TARGET_SEQUENCES or not isinstance(value, list) or value[0] != "l":
        return None
    items = value[2]
    if any(isinstance(item, list) and item[0] == "*" for item in items):
        return None
    names = [c for c in target.named_children if c.type != "comment"]
    star = next((i for i, c in enumerate(names) if c.type == "list_splat_pattern"), -1)
    if star < 0:
        return list(zip(names, items, strict=True)) if len(names) == len(items) else None
    tail = len(names) - star - 1
    if len(items) < len(names) - 1 or not names[star].named_children:
        return None
    middle: Expr = ["l", value[1], items[star : len(items) - tail]]
    return [*zip(names[:star], items[:star], strict=True), (names[star].named_children[0], middle),
            *zip(names[star + 1 :], items[len(items) - tail :], strict=True)]


def _captures(pattern: Node) -> list[Node]:
    """The names a `case` pattern binds: `action` in `[action]`, `y` in `Point(x=0, y=y)`,
    `rest` in `{**rest}`, `p` in `... as p`; not class names, keywords, dotted values or `_`."""
    found: list[Node] = []
    stack = [pattern]
    while stack:
        node = stack.pop()
        kind = node.type
        children = [c for c in node.children if c.is_named]
        if kind == "dotted_name":
            if len(children) == 1 and text_of(children[0]) != "_":
                found.append(children[0])
        elif kind in ("splat_pattern", "as_pattern"):
            names = [c for c in children if c.type == "identifier"]
            found += names[-1:]
            stack += [c for c in children if c.type != "identifier"]
        elif kind in ("class_pattern", "keyword_pattern"):
            stack += children[1:]  # the class's name, the keyword
        else:
            stack += children
    return found


def _module_and_level(node: Node) -> tuple[str, int]:
    if node.type == "relative_import":
        prefix = next((c for c in node.named_children if c.type == "import_prefix"), None)
        dotted = next((c for c in node.named_children if c.type == "dotted_name"), None)
        return (text_of(dotted) if dotted is not None else "", len(text_of(prefix)) if prefix is not None else 0)
    return text_of(node), 0


def _param_parts(param: Node) -> tuple[Node | None, Node | None]:
    """(name node, default value node) of one parameter."""
    kind = param.type
    if kind == "identifier":
        return param, None
    if kind in ("default_parameter", "typed_default_parameter"):
        return param.child_by_field_id(_F.name), param.child_by_field_id(_F.value)
    if kind == "typed_parameter":
        inner = next((c for c in param.named_children if c.type != "type"), None)
        return _param_parts(inner) if inner is not None else (None, None)
    if kind in ("list_splat_pattern", "dictionary_splat_pattern"):
        inner = next((c for c in param.named_children if c.type == "identifier"), None)
        return inner, None
    return None, None


def _slice_bounds(parts: list[Node]) -> tuple[int | None, int | None]:
    """`[1:3]` -> (1, 3); a bound that is not an integer literal is unknown (None)."""
    values: list[int | None] = [None, None]
    slot = 0
    for part in parts:
        if part.type == ":":
            slot += 1
        elif slot < 2 and part.type == "integer":
            with suppress(ValueError):
                values[slot] = int(text_of(part).replace("_", ""), 0)
    return values[0], values[1]


def _dotted(node: Node) -> str:
    return text_of(node) if node.type in ("identifier", "attribute") else ""


def _is_property_accessor(node: Node) -> bool:
    """`@name.setter` and friends: they replace a property, never call anything of the project."""
    return node.type == "attribute" and text_of(node).rsplit(".", 1)[-1] in ("setter", "getter", "deleter")


def _is_constant_string(node: Node | None) -> bool:
    return node is not None and node.type in ("string", "concatenated_string") and not any(
        c.type == "interpolation" for c in node.named_children
    )


def _dynamic_kind(func: Node | None, args: list[Node]) -> str:
    """Why a call's target is computed at run time, as the name to record; '' when it is not."""
    if func is None:
        return ""
    name = _dotted(func)
    positional = [a for a in args if a.type not in ("keyword_argument", "comment")]
    if name in _DYNAMIC_ATTR:
        return name if len(positional) < 2 or not _is_constant_string(positional[1]) else ""
    if name in ("eval", "exec"):
        return name
    if name in _DYNAMIC_IMPORTS:
        return name if not positional or not _is_constant_string(positional[0]) else ""
    if func.type == "subscript":
        value = func.child_by_field_id(_F.value)
        if value is not None and value.type == "call":
            inner = value.child_by_field_id(_F.function)
            if inner is not None and text_of(inner) in _DYNAMIC_NAMESPACES:
                return text_of(inner) + "()[...]"
    return ""


def _looked_up(kind: str, func: Node | None, args: list[Node]) -> str:
    """What a dynamic site looks its target up by (see the module's docstring)."""
    positional = [a for a in args if a.type not in ("keyword_argument", "comment")]
    if kind in _DYNAMIC_ATTR:
        return "." + _name_glob(positional[1] if len(positional) > 1 else None)
    if kind in _DYNAMIC_IMPORTS:
        module = _name_glob(positional[0] if positional else None)
        return "*" if module.startswith(".") else module  # relative to a package computed too
    if kind.endswith("()[...]") and func is not None:
        return "." + _name_glob(func.child_by_field_id(_F.subscript))
    return "*"


def _name_glob(node: Node | None) -> str:
    """The string an expression computes, as a glob of its constant parts: `"visit_" + kind` ->
    `visit_*`, `f"get_{x}_display"` -> `get_*_display`, `"do_%s" % x` -> `do_*`; `*` for the rest."""
    kind = node.type if node is not None else ""
    if node is None:
        glob = "*"
    elif kind == "string":
        glob = "".join(text_of(c) if c.type == "string_content" else "*" if c.type == "interpolation" else ""
                       for c in node.children)
    elif kind == "concatenated_string":
        glob = "".join(_name_glob(c) for c in node.named_children if c.type == "string")
    elif kind == "parenthesized_expression" and node.named_children:
        glob = _name_glob(node.named_children[0])
    elif kind == "binary_operator":
        left, op, right = (node.child_by_field_id(f) for f in (_F.left, _F.operator, _F.right))
        if op is not None and op.type == "+":
            glob = _name_glob(left) + _name_glob(right)
        elif op is not None and op.type == "%" and left is not None and left.type == "string":
            glob = _PERCENT_FIELD.sub("*", _name_glob(left)).replace("%%", "%")
        else:
            glob = "*"
    elif kind == "call" and (callee := node.child_by_field_id(_F.function)) is not None \
            and callee.type == "attribute" and text_of(callee.children[-1]) == "format" \
            and callee.children[0].type == "string":
        glob = _BRACE_FIELD.sub("*", _name_glob(callee.children[0]))
    else:
        glob = "*"
    return re.sub(r"\*+", "*", glob) or "*"


def extract(spec: LanguageSpec, tree: Tree, path: str) -> FileFacts:
    facts = FileFacts(path=path, language=spec.name, module="", definitions=[], references=[], imports=[],
                      error_nodes=_count_errors(tree))
    if _F.grammar != spec.grammar:
        _F.load(spec)
    walker = _Walker(facts, tree.root_node, spec)
    walker.block(tree.root_node)
    facts.flow = walker.flow()
    return facts
