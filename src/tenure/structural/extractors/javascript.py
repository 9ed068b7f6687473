"""JavaScript and TypeScript: the query pass (extract.py) gives the definitions, imports, references
and bindings; one walk over the same tree adds the data-flow program the value-following resolver
(resolve/javascript/) runs on. `FileFacts.flow` holds it, msgpack-encoded on its own:

    {"scopes": [[qualname, kind, parent, params, flags]],   # 0 is the module
     "stmts": [[op, scope, ...]], "sites": [[line, name, scope, receiver, kind, detail]], "nvars": int,
     "generics": {qualname: [type parameter]},                # classes, interfaces, type aliases
     "cond": [stmt index],                                    # statements that may not run (see below)
     "reassigned": [var]}                                     # variables of names assigned, not declared

A scope is the module, a function (arrow, method, getter, constructor, ...) or a class; its qualname
is its definition's (the query pass names them, anonymous ones `<arrow1>`). `params` is
`[[var, rest, default]]` (a default is an expression, taken when the argument is missing); `flags`
holds a (arrow: `this` is the enclosing function's), g (generator), s (static), G (getter), S
(setter), c (constructor). Names are resolved here, once per file: every binding of a name is a
fresh variable (an int), and a read lists the variables that may reach it. Inside one function
that follows the statements (an assignment replaces what came before, branches join, block scopes
are the function's), so `p = f; p = g; p()` reads only `g`; a read from a nested function sees
every binding of the name; imports and function declarations are bound before their block runs.

A statement is conditional (`cond`) when its function may run past it without running it once:
in a branch, a loop, a `try`, a `case`, the right of `&&`/`||`/`??`, a ternary, an optional call, or
after a `return` in a branch, an `await` or a `yield`. The others run once, in order, per call of
their function (the resolver's strong updates rely on it).

Statements (`scope` is where calls in them are attributed):
    ["=", scope, target, value]    target: ["v", var] | ["a", obj, name, site] | ["s", obj, key]
                                      | ["O", [[key, target, default]], rest] | ["A", [[target, default] | None], rest]
    ["e", scope, expr]             evaluated for its calls
    ["r", scope, expr]  ["y", scope, expr, delegates]    return, yield (yield*: delegates)
    ["for", scope, target, iterable, site]               for ... of
    ["b", scope, class, base]      `class C extends base`
    ["m", class, key, value, static]     a method, getter or setter (key None: computed)
    ["fld", class, key, value, static]   a field: each instance's (run with `this` the instance), or the class's
    ["exp", name, value]  ["star", specifier]             ESM exports, `export * from`
Expressions:
    var (a read only one binding reaches)  ["v", [vars]]  ["n", name] (bound nowhere in the file)
    ["k", constant] (strings as property keys are: `1` is "1")  ["ks"] (some primitive)
    ["a", obj, name, site]  ["s", obj, key, site]  ["c", site, callee, [args]]  ["new", site, callee, [args]]
    (an argument or array item ["*", e] is spread; site -1: none)
    ["S", class, this, name] (`super.name`)  ["sc", site, class, this, [args]] (`super(...)`)
    ["f", scope] (a function)  ["C", scope] (a class)  ["this", scope] (the `this` of that scope)
    ["o", alloc, [[key, value] | ["*", e]]] (an object literal)  ["l", alloc, [item | None]] (an array)
    (alloc: "qualname#n", the n-th allocation in that scope)
    ["imp", specifier, name] (an import: name "" is the namespace)  ["req", specifier] (`require`)
    ["T", type, scope] (a declared type, as written, and the qualname it is written in)
    ["td", expr, type]  (what expr is, else what the type says: `const x: T = expr`)
    ["as", expr, type]  (what the type says, else what expr is: `expr as T`)
    ["u", [exprs]] (any of them)  ["q", [exprs]] (the last, after the others)  ["x", [exprs]] (only their calls)
    ["await", expr]  ["jsx", site, callee, props]
Site kinds: c (call), n (new), x (a computed callee: `a[k]()`), j (JSX element), d (decorator),
t (tagged template), g (a member read, in case it runs a getter), s (a member write: a setter),
i (a for-of loop: the iterator protocol).
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec
from tree_sitter import Node, Tree

from tenure.structural.extract import extract_located, text_of
from tenure.structural.extractors import State, join
from tenure.structural.extractors import flow_lines as flow_lines  # (parse.shape asks the extractor)
from tenure.structural.facts import Binding, FileFacts, Import
from tenure.structural.languages import LanguageSpec

_NOTHING: tuple = ()
_FUNCTIONS = frozenset({"function_expression", "arrow_function", "generator_function", "function_declaration",
                        "generator_function_declaration", "function"})
_CLASSES = frozenset({"class_declaration", "abstract_class_declaration", "class"})
_TYPED = frozenset({"as_expression", "satisfies_expression", "type_assertion"})
_TRANSPARENT = frozenset({"parenthesized_expression", "non_null_expression", "instantiation_expression"})
_SKIPPED = frozenset({"comment", "empty_statement", "break_statement", "continue_statement", "debugger_statement",
                      "ambient_declaration",
                      "function_signature", "abstract_method_signature", "method_signature", "index_signature",
                      "hash_bang_line", "enum_declaration"})
_ASSIGNMENTS = frozenset({"assignment_expression", "augmented_assignment_expression"})
_CALLABLE_JSX = frozenset({"identifier", "member_expression", "nested_identifier"})


class _Read:
    """A name read, resolved once the whole file is walked (a later binding may make it local)."""

    __slots__ = ("vars", "name")

    def __init__(self) -> None:
        self.vars: list[int] | tuple = _NOTHING
        self.name = ""  # set when nothing in the file binds it


def _encode_read(obj: object) -> object:
    if isinstance(obj, _Read):
        if obj.name:
            return ["n", obj.name]
        return obj.vars[0] if len(obj.vars) == 1 else ["v", list(obj.vars)]
    raise NotImplementedError(f"cannot encode {type(obj).__name__}")


class _Scope:
    __slots__ = ("idx", "kind", "qualname", "parent", "state", "versions", "this", "exited", "params")

    def __init__(self, idx: int, kind: str, qualname: str, parent: _Scope | None, this: int) -> None:
        self.idx = idx
        self.kind = kind  # module, function, class
        self.qualname = qualname
        self.parent = parent
        self.state: State = {}
        self.versions: dict[str, list[int]] = {}  # every variable of a name bound here
        self.this = this  # the scope whose `this` this one's is (-1: none)
        self.exited = False  # a return in a branch, an await or a yield: what follows may not run
        self.params: set[str] = set()  # the names its parameters bind (not destructured ones)


class _Walker:
    def __init__(self, spans: dict[tuple[int, int], str]) -> None:
        self.spans = spans
        self.hoisted: set[tuple[int, int]] = set()  # function declarations walked ahead of their block
        self.scopes: list[list] = []
        self.stmts: list[list] = []
        self.sites: list[list] = []
        self.nvars = 0
        self.allocs: dict[str, int] = {}
        self.generics: dict[str, list[str]] = {}
        self.reads: list[tuple[_Scope, str, _Read, list[int] | tuple]] = []
        self.depth = 0  # nesting in code that may not run (branches, loops, ...) of the current function
        self.optional = False  # an optional call (`a?.f()`) since the last statement
        self.conditional: list[int] = []
        self.reassigned: set[str] = set()  # names assigned again somewhere (not declared)
        self.all_scopes: list[_Scope] = []
        self.by_qualname: dict[str, list[_Scope]] = {}  # (made once the walk is done: is_parameter)
        self.module_value: Binding | None = None  # `export = name` (the query pass's `module.exports = name`)
        # Imports of a reserved word (`import { function as f }`), which tree-sitter-javascript parses as
        # errors the query pass misses or misreads: (line, source, name, alias), their Import facts
        # (`extract`); and the lines of the import or export statements broken otherwise: not read (a gap)
        self.reserved_imports: list[tuple[int, str, str, str]] = []
        self.unread_imports: list[tuple[int, str]] = []  # (line, the words written there)
        self.open_heads: set[int] = set()  # the lists of the loops being walked (loop_head), by id
        self.scope = self._new_scope("", "module", None, "", -1)

    # scopes and names ----------------------------------------------------------------------------
    def _new_scope(self, qualname: str, kind: str, parent: _Scope | None, flags: str, this: int | None) -> _Scope:
        """A scope whose `this` is that of scope `this` (-1: none; None: its own)."""
        idx = len(self.scopes)
        self.scopes.append([qualname, kind, parent.idx if parent else -1, [], flags])
        scope = _Scope(idx, kind, qualname, parent, idx if this is None else this)
        self.all_scopes.append(scope)
        return scope

    def qualname_of(self, node: Node) -> str:
        """The qualname the query pass gave a function or class node (or the named definition it is
        the value of); a node it did not name (a class expression in an argument) runs in the
        enclosing scope's name."""
        found = self.spans.get((node.start_byte, node.end_byte))
        if found is None and node.parent is not None:
            found = self.spans.get((node.parent.start_byte, node.parent.end_byte))
        return found if found is not None else self.scope.qualname

    def is_parameter(self, qualname: str, name: str, defined: set[str]) -> bool:
        """Whether `name` read in the definition `qualname` is a parameter of its function or of one
        enclosing it (the nearest binding of the name: no local function of that name is nearer).
        Such a name taken as a value is what the caller passed, whose own site took it (as Python's
        walk keeps no parameter passed on)."""
        if not self.by_qualname:
            for scope in self.all_scopes:
                self.by_qualname.setdefault(scope.qualname, []).append(scope)
        for scope in self.by_qualname.get(qualname) or self.all_scopes[:1]:
            outer: _Scope | None = scope
            while outer is not None and name not in outer.versions:
                outer = outer.parent
            if outer is None or name not in outer.params or f"{outer.qualname}.{name}" in defined:
                return False
        return True

    def function_scope(self) -> _Scope:
        scope = self.scope
        while scope.kind == "class" and scope.parent is not None:
            scope = scope.parent
        return scope

    def bind(self, name: str) -> int:
        var = self.nvars
        self.nvars += 1
        scope = self.function_scope()
        scope.versions.setdefault(name, []).append(var)
        scope.state[name] = [var]
        return var

    def read(self, name: str) -> _Read:
        scope = self.function_scope()
        ref = _Read()
        self.reads.append((scope, name, ref, scope.state.get(name, _NOTHING)))
        return ref

    def _resolve_reads(self) -> None:
        for scope, name, ref, reaching in self.reads:
            if name in scope.versions:
                ref.vars = reaching or scope.versions[name]
                continue
            outer = scope.parent
            while outer is not None and name not in outer.versions:
                outer = outer.parent
            if outer is None:
                ref.name = name
            else:
                ref.vars = outer.versions[name]

    def fork(self) -> State:
        return dict(self.function_scope().state)

    def set_state(self, state: State) -> None:
        self.function_scope().state = state

    def branch(self, start: State, node: Node | None) -> State:
        self.set_state(dict(start))
        if node is not None:
            self.depth += 1
            try:
                self.statement(node)
            finally:
                self.depth -= 1
        return self.function_scope().state

    def maybe(self, node: Node | None) -> object:
        """An expression that may not be evaluated (the right of `&&`, a ternary's branch)."""
        self.depth += 1
        try:
            return self.expr(node)
        finally:
            self.depth -= 1

    def alloc(self) -> str:
        qualname = self.scope.qualname
        count = self.allocs[qualname] = self.allocs.get(qualname, -1) + 1
        return f"{qualname}#{count}"

    def site(self, node: Node, name: str, kind: str, receiver: str = "", detail: str = "") -> int:
        self.sites.append([node.start_point[0] + 1, name, self.scope.idx, receiver, kind, detail])
        return len(self.sites) - 1

    def emit(self, *stmt: object) -> None:
        if self.depth or self.optional or self.function_scope().exited:
            self.conditional.append(len(self.stmts))
        self.optional = False
        self.stmts.append(list(stmt))

    # statements ------------------------------------------------------------------------------------
    def block(self, node: Node) -> None:
        children = [c for c in node.named_children if c.type not in _SKIPPED]
        for child in children:  # imports and function declarations are bound before the block runs
            declared = child.child_by_field_name("declaration") if child.type == "export_statement" else child
            if declared is not None and declared.type in ("function_declaration", "generator_function_declaration"):
                self.s_function_declaration(declared)
            elif child.type == "import_statement":
                self.s_import(child)
            elif child.type == "ERROR":
                self.s_broken_import(child)
        for child in children:
            self.statement(child)

    def statement(self, node: Node) -> None:
        handler = _STATEMENTS.get(node.type)
        if handler is not None:
            handler(self, node)
        elif node.type not in _SKIPPED:
            self.effects(node)

    def effects(self, node: Node) -> None:
        before = len(self.sites)
        value = self.expr(node)
        if len(self.sites) > before and node.type not in _ASSIGNMENTS:  # (an assignment emitted itself)
            self.emit("e", self.scope.idx, value)

    def s_generic(self, node: Node) -> None:
        """A generic type's parameters, in order (an interface or type alias has no code besides)."""
        params = node.child_by_field_name("type_parameters")
        if params is not None:
            names = [self.text(n) for p in params.named_children if (n := p.child_by_field_name("name")) is not None]
            self.generics[self.qualname_of(node)] = names

    def s_skip(self, node: Node) -> None:
        """Bound before its block ran (imports)."""

    def s_block(self, node: Node) -> None:
        self.block(node)

    def s_expression_statement(self, node: Node) -> None:
        for child in node.named_children:
            self.effects(child)

    def s_declaration(self, node: Node) -> None:
        for declarator in node.named_children:
            if declarator.type != "variable_declarator":
                continue
            name = declarator.child_by_field_name("name")
            value_node = declarator.child_by_field_name("value")
            type_node = declarator.child_by_field_name("type")
            value = self.expr(value_node) if value_node is not None else None
            if type_node is not None:
                declared = self.declared(type_node)
                value = declared if value is None else ["td", value, declared]
            if name is not None and value is not None:
                self.assign(name, value)
            elif name is not None and name.type == "identifier":
                self.bind(self.text(name))  # `let x;`: a new binding with nothing in it yet

    def s_function_declaration(self, node: Node) -> None:
        if (node.start_byte, node.end_byte) in self.hoisted:
            return
        self.hoisted.add((node.start_byte, node.end_byte))
        name = node.child_by_field_name("name")
        value = self.function(node)
        if name is not None:
            self.emit("=", self.scope.idx, ["v", self.bind(self.text(name))], value)

    def s_class_declaration(self, node: Node, decorators: list[Node] | None = None) -> None:
        name = node.child_by_field_name("name")
        value = self.klass(node, decorators)
        if name is not None:
            self.emit("=", self.scope.idx, ["v", self.bind(self.text(name))], value)

    def s_return(self, node: Node) -> None:
        children = node.named_children
        value = self.expr(children[0]) if children else None
        if value is not None:
            self.emit("r", self.function_scope().idx, value)
        if self.depth:
            self.function_scope().exited = True

    def s_if(self, node: Node) -> None:
        cond = node.child_by_field_name("condition")
        if cond is not None:
            self.effects(cond)
        start = self.fork()
        taken = self.branch(self.narrowed(start, cond), node.child_by_field_name("consequence"))
        alternative = node.child_by_field_name("alternative")
        if alternative is None:
            self.set_state(join(start, taken))
            return
        body = next((c for c in alternative.named_children if c.type != "comment"), None)
        other = self.branch(start, body)
        self.set_state(join(taken, other))

    def narrowed(self, start: State, cond: Node | None) -> State:
        """The state a branch taken when `x instanceof C` (or `x instanceof C && ...`) holds starts in:
        `x` is a C there, as TypeScript narrows it."""
        while cond is not None and cond.type == "parenthesized_expression" and cond.named_children:
            cond = cond.named_children[0]
        if cond is None or cond.type != "binary_expression":
            return start
        left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
        operator = cond.child_by_field_name("operator")
        op = operator.type if operator is not None else ""
        if op == "&&":
            return self.narrowed(start, left)
        if op != "instanceof" or left is None or right is None or left.type != "identifier" \
                or right.type not in ("identifier", "member_expression") or self.text(left) not in start:
            return start  # (a variable of this function only: another's is not rebound here)
        self.set_state(dict(start))
        declared = ["T", self.text(right), self.function_scope().qualname]
        self.emit("=", self.scope.idx, ["v", self.bind(self.text(left))], declared)
        return self.fork()

    def s_loop(self, node: Node) -> None:
        """while, do, for (;;): the body may run any number of times."""
        initializer = node.child_by_field_name("initializer")
        if initializer is not None:
            self.statement(initializer) if initializer.type.endswith("declaration") else self.effects(initializer)
        start, heads = self.loop_head(node)
        condition = node.child_by_field_name("condition")
        if condition is not None:
            self.depth += 1  # (evaluated again after each turn)
            self.effects(condition)
            self.depth -= 1
        body = self.branch(start, node.child_by_field_name("body"))
        increment = node.child_by_field_name("increment")
        if increment is not None:
            self.depth += 1
            self.effects(increment)
            self.depth -= 1
        self.loop_back(heads, body)
        self.set_state(join(start, body))

    def loop_head(self, node: Node) -> tuple[State, dict[str, list[int]]]:
        """The state a loop's body starts in: a variable the loop assigns reaches it by a list that
        `loop_back` extends with what the body's end leaves (`i++`, `node = node.next`), so every read
        in the body sees each iteration's values."""
        start = self.fork()
        # (a loop inside another's body shares the outer's list: each sees what the other's end leaves)
        heads = {name: start[name] if id(start[name]) in self.open_heads else list(start[name])
                 for name in _assigned_names(node) if name in start}
        start.update(heads)
        self.set_state(dict(start))
        made = {id(head) for head in heads.values()} - self.open_heads
        self.open_heads |= made
        return start, {name: head for name, head in heads.items() if id(head) in made}

    def loop_back(self, heads: dict[str, list[int]], end: State) -> None:
        for name, head in heads.items():
            head.extend(v for v in end.get(name, ()) if v not in head)
            self.open_heads.discard(id(head))

    def s_for_in(self, node: Node) -> None:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        of = any(c.type == "of" for c in node.children if not c.is_named)
        iterable = self.expr(right) if right is not None else None
        start, heads = self.loop_head(node)
        if left is not None and iterable is not None:
            if left.type not in ("lexical_declaration", "variable_declaration"):
                self.note_reassigned(left)
            target = self.target(left)
            if target is not None:
                self.depth += 1  # (once per item)
                if of:
                    self.emit("for", self.scope.idx, target, iterable, self.site(node, "[Symbol.iterator]", "i"))
                else:
                    self.emit("=", self.scope.idx, target, ["ks"])  # for ... in: the keys
                self.depth -= 1
        body = self.branch(self.fork(), node.child_by_field_name("body"))
        self.loop_back(heads, body)
        self.set_state(join(start, body))

    def s_try(self, node: Node) -> None:
        start = self.fork()
        body = self.branch(start, node.child_by_field_name("body"))
        ends = [body]
        handler = node.child_by_field_name("handler")
        if handler is not None:
            self.set_state(join(start, body))
            parameter = handler.child_by_field_name("parameter")
            if parameter is not None:
                target = self.target(parameter)
                if target is not None:
                    self.depth += 1
                    self.emit("=", self.scope.idx, target, ["ks"])
                    self.depth -= 1
            ends.append(self.branch(self.fork(), handler.child_by_field_name("body")))
        self.set_state(join(*ends))
        finalizer = node.child_by_field_name("finalizer")
        if finalizer is not None:
            self.statement(finalizer.child_by_field_name("body") or finalizer)

    def s_switch(self, node: Node) -> None:
        value = node.child_by_field_name("value")
        if value is not None:
            self.effects(value)
        body = node.child_by_field_name("body")
        start = self.fork()
        ends, has_default = [], False
        self.depth += 1
        for case in body.named_children if body is not None else ():
            has_default |= case.type == "switch_default"
            self.set_state(join(start, ends[-1]) if ends else dict(start))  # cases fall through
            test = case.child_by_field_name("value")
            if test is not None:
                self.effects(test)
            for part in case.children_by_field_name("body"):
                self.statement(part)
            ends.append(self.function_scope().state)
        self.depth -= 1
        self.set_state(join(*ends) if has_default and ends else join(start, *ends))

    def s_labeled(self, node: Node) -> None:
        body = node.child_by_field_name("body")
        if body is not None:
            self.statement(body)

    def s_with(self, node: Node) -> None:
        self.depth += 1  # (its names may be the object's properties)
        for child in node.named_children:
            self.statement(child) if child.type == "statement_block" else self.effects(child)
        self.depth -= 1

    def s_export(self, node: Node) -> None:
        source = node.child_by_field_name("source")
        spec = self.string(source) if source is not None else None
        declaration = node.child_by_field_name("declaration")
        if declaration is not None:
            decorators = node.children_by_field_name("decorator")
            if decorators and declaration.type in _CLASSES:
                self.s_class_declaration(declaration, decorators)
            else:
                self.statement(declaration)
            default = any(not c.is_named and c.type == "default" for c in node.children)
            for name in _declared_names(declaration):
                self.emit("exp", "default" if default else name, self.read(name))
            return
        value = node.child_by_field_name("value")
        if value is not None:  # export default <expression>
            self.emit("exp", "default", self.expr(value))
            return
        if any(not c.is_named and c.type == "=" for c in node.children) and node.named_children:
            # TypeScript's `export = value`: the module's value, as CommonJS `module.exports = value`
            assigned = node.named_children[-1]
            self.emit("=", self.scope.idx, ["a", ["n", "module"], "exports", -1], self.expr(assigned))
            if assigned.type == "identifier":
                self.module_value = Binding(name="exports", type=self.text(assigned), scope="",
                                            line=node.start_point[0] + 1, alias=True)
            return
        for child in node.named_children:
            if child.type == "export_clause":
                for spec_node in child.named_children:
                    name = spec_node.child_by_field_name("name")
                    alias = spec_node.child_by_field_name("alias") or _reserved_alias(spec_node)
                    if name is None or spec_node.type != "export_specifier":
                        continue
                    # (a name may be a string: `export { g as "a-b" }`, `export { "a-b" } from`)
                    exported = self.string(alias) if alias is not None else self.string(name)
                    local = self.string(name)
                    self.emit("exp", exported, ["imp", spec, local] if spec is not None else self.read(local))
            elif child.type == "namespace_export" and spec is not None and child.named_children:
                self.emit("exp", self.text(child.named_children[0]), ["imp", spec, ""])
        if spec is not None and any(not c.is_named and c.type == "*" for c in node.children) and not any(
                c.type == "namespace_export" for c in node.named_children):
            self.emit("star", spec)

    def s_import(self, node: Node) -> None:
        for clause in node.named_children:  # TypeScript's `import x = require("./x")`: its own source
            required = clause.child_by_field_name("source") if clause.type == "import_require_clause" else None
            if required is not None and clause.named_children:
                self._bind_import(clause.named_children[0], ["req", self.string(required)])
        source = node.child_by_field_name("source")
        if source is None:
            return
        spec = self.string(source)
        for clause in node.named_children:
            if clause.type != "import_clause":
                continue
            for part in clause.named_children:
                if part.type == "identifier":
                    self._bind_import(part, ["imp", spec, "default"])
                elif part.type == "namespace_import" and part.named_children:
                    self._bind_import(part.named_children[0], ["imp", spec, ""])
                elif part.type == "named_imports":
                    reserved = None  # (`function as` parsed as an error before the specifier of its alias)
                    for item in part.named_children:
                        if item.type == "ERROR":
                            words = item.children
                            if len(words) == 2 and words[1].type == "as":
                                reserved = self.text(words[0])
                            else:
                                self._unread(node)
                            continue
                        name, alias = item.child_by_field_name("name"), item.child_by_field_name("alias")
                        if name is not None and reserved is not None and alias is None:
                            self.reserved_imports.append((node.start_point[0] + 1, spec, reserved, self.text(name)))
                            self._bind_import(name, ["imp", spec, reserved])
                        elif name is not None:
                            self._bind_import(alias or name, ["imp", spec, self.string(name)])
                        reserved = None

    def s_broken_import(self, node: Node) -> None:
        """`import { function as f } from "./x.js"`: tree-sitter-javascript takes no reserved word as an
        imported name (TypeScript's grammar does), so the statement is an error, its source the next
        statement; the names are read from the error's tokens (as `_reserved_alias` does for exports).
        An import or export the error holds otherwise is not read: `unread_imports`."""
        tokens, after = node.children, node.next_named_sibling
        if not tokens or tokens[0].type not in ("import", "export"):
            return
        line = node.start_point[0] + 1
        ends = [t.type for t in (tokens[0], tokens[1], tokens[-2], tokens[-1])] if len(tokens) >= 4 else []
        source = after.named_children[0] if after is not None and after.type == "expression_statement" \
            and after.named_children else None
        if ends != ["import", "{", "}", "from"] or source is None or source.type != "string":
            self._unread(node)
            return
        spec = self.string(source)
        items: list[list[Node]] = [[]]
        for token in tokens[2:-2]:
            if token.type == ",":
                items.append([])
            else:
                items[-1].append(token)
        for item in items:
            if len(item) == 3 and self.text(item[1]) == "as" and item[2].type == "identifier":
                self.reserved_imports.append((line, spec, self.text(item[0]), self.text(item[2])))
                self._bind_import(item[2], ["imp", spec, self.text(item[0])])
            elif len(item) == 1 and item[0].type == "identifier":
                self.reserved_imports.append((line, spec, self.text(item[0]), ""))
                self._bind_import(item[0], ["imp", spec, self.text(item[0])])
            elif item:
                self._unread(node)

    def _unread(self, node: Node) -> None:
        """An import or export statement whose names are not read: its words are those a call through
        what it binds may reach (a gap, resolve/javascript)."""
        self.unread_imports.append((node.start_point[0] + 1, self.text(node)[:300]))

    def _bind_import(self, local: Node, value: list) -> None:
        self.emit("=", self.scope.idx, ["v", self.bind(self.text(local))], value)

    def s_namespace(self, node: Node) -> None:
        body = node.child_by_field_name("body")
        if body is not None:
            self.block(body)

    # targets ---------------------------------------------------------------------------------------
    def assign(self, target_node: Node, value: object) -> None:
        target = self.target(target_node)
        if target is not None:
            self.emit("=", self.scope.idx, target, value)

    def target(self, node: Node) -> list | None:
        kind = node.type
        if kind in ("identifier", "shorthand_property_identifier_pattern"):
            return ["v", self.bind(self.text(node))]
        if kind in ("lexical_declaration", "variable_declaration"):  # for (const x of ...)
            declarator = next((c for c in node.named_children if c.type == "variable_declarator"), None)
            name = declarator.child_by_field_name("name") if declarator is not None else None
            return self.target(name) if name is not None else None
        if kind == "member_expression":
            obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
            if obj is None or prop is None:
                return None
            name = self.text(prop)
            return ["a", self.expr(obj), name, self.site(node, name, "s")]
        if kind == "subscript_expression":
            obj, index = node.child_by_field_name("object"), node.child_by_field_name("index")
            if obj is None:
                return None
            return ["s", self.expr(obj), self.expr(index) if index is not None else ["ks"]]
        if kind == "object_pattern":
            props, rest = [], None
            for child in node.named_children:
                if child.type == "shorthand_property_identifier_pattern":
                    props.append([self.text(child), self.target(child), None])
                elif child.type == "object_assignment_pattern":  # { a = 1 }
                    left, right = child.child_by_field_name("left"), child.child_by_field_name("right")
                    if left is not None:
                        default = self.expr(right) if right is not None else None
                        props.append([self.text(left), self.target(left), default])
                elif child.type == "pair_pattern":
                    key, value = child.child_by_field_name("key"), child.child_by_field_name("value")
                    if key is not None and value is not None:
                        default = None
                        if value.type == "assignment_pattern":
                            right = value.child_by_field_name("right")
                            default = self.expr(right) if right is not None else None
                            value = value.child_by_field_name("left") or value
                        props.append([self.key(key), self.target(value), default])
                elif child.type == "rest_pattern" and child.named_children:
                    rest = self.target(child.named_children[0])
            return ["O", props, rest]
        if kind == "array_pattern":
            items: list = []
            rest = None
            for child, _ in _positions(node):
                if child is None:
                    items.append(None)  # a hole
                elif child.type == "rest_pattern" and child.named_children:
                    rest = self.target(child.named_children[0])
                elif child.type == "assignment_pattern":
                    left, right = child.child_by_field_name("left"), child.child_by_field_name("right")
                    items.append([self.target(left) if left is not None else None,
                                  self.expr(right) if right is not None else None])
                else:
                    items.append([self.target(child), None])
            return ["A", items, rest]
        if kind == "assignment_pattern":  # a parameter's default: handled by the caller
            left = node.child_by_field_name("left")
            return self.target(left) if left is not None else None
        if kind in _TRANSPARENT and node.named_children:
            return self.target(node.named_children[0])
        self.effects(node)
        return None

    # functions and classes -----------------------------------------------------------------------
    def function(self, node: Node, flags: str = "") -> list:
        arrow = node.type == "arrow_function"
        if arrow:
            flags += "a"
        if node.type.startswith("generator") or any(c.type == "*" for c in node.children if not c.is_named):
            flags += "g"
        outer, depth = self.scope, self.depth
        scope = self._new_scope(self.qualname_of(node), "function", outer, flags, outer.this if arrow else None)
        self.scope, self.depth = scope, 0  # (a function's body runs in order when it is called)
        try:
            self._parameters(node, scope)
            body = node.child_by_field_name("body")
            if body is not None:
                if body.type == "statement_block":
                    self.block(body)
                else:  # `x => x + 1`
                    self.emit("r", scope.idx, self.expr(body))
        finally:
            self.scope, self.depth = outer, depth
        return ["f", scope.idx]

    def _parameters(self, node: Node, scope: _Scope) -> None:
        params = node.child_by_field_name("parameters")
        single = node.child_by_field_name("parameter")  # `x => ...`
        nodes = [single] if single is not None else (params.named_children if params is not None else [])
        entry = self.scopes[scope.idx][3]
        for param in nodes:
            if param.type in ("comment", "this"):
                continue
            pattern, default, declared, field = param, None, None, False
            if param.type in ("required_parameter", "optional_parameter"):
                pattern = param.child_by_field_name("pattern") or param
                value = param.child_by_field_name("value")
                default = self.expr(value) if value is not None else None
                type_node = param.child_by_field_name("type")
                declared = self.declared(type_node) if type_node is not None else None
                field = any(c.type == "accessibility_modifier" or c.type == "readonly" for c in param.children)
            if pattern.type == "assignment_pattern":
                right = pattern.child_by_field_name("right")
                default = self.expr(right) if right is not None else None
                pattern = pattern.child_by_field_name("left") or pattern
            rest = pattern.type == "rest_pattern"
            if rest and pattern.named_children:
                pattern = pattern.named_children[0]
            if pattern.type == "identifier":
                var = self.bind(self.text(pattern))
                scope.params.add(self.text(pattern))
                target = None
            else:  # a destructured parameter: a slot of its own, taken apart on entry
                var = self.nvars
                self.nvars += 1
                target = self.target(pattern)
            entry.append([var, rest, default])
            if declared is not None:
                self.emit("=", scope.idx, ["v", var], declared)
            if target is not None:
                self.emit("=", scope.idx, target, var)
            if field and pattern.type == "identifier":  # `constructor(private repo: Repo)`
                self.emit("=", scope.idx, ["a", ["this", scope.idx], self.text(pattern), -1], var)

    def klass(self, node: Node, decorators: list[Node] | None = None) -> list:
        """A class (its decorators written before an `export` come with it)."""
        outer = self.scope
        scope = self._new_scope(self.qualname_of(node), "class", outer, "", None)
        self.s_generic(node)
        for decorator in [*(decorators or ()), *node.children_by_field_name("decorator")]:
            self._decorate(decorator, ["C", scope.idx])
        for child in node.named_children:
            if child.type == "class_heritage":
                clause = next((c for c in child.named_children if c.type == "extends_clause"), None)
                base = clause.child_by_field_name("value") if clause is not None else (
                    child.named_children[0] if child.named_children else None)
                if base is not None:
                    self.emit("b", outer.idx, scope.idx, self.expr(base))
        body = node.child_by_field_name("body")
        self.scope = scope
        try:
            pending: list[Node] = []
            for member in body.named_children if body is not None else ():
                if member.type == "comment":
                    continue
                if member.type == "decorator":
                    pending.append(member)
                    continue
                self._member(member, scope, pending)
                pending = []
        finally:
            self.scope = outer
        return ["C", scope.idx]

    def _member(self, member: Node, cls: _Scope, decorators: list[Node]) -> None:
        static = any(not c.is_named and c.type == "static" for c in member.children)
        if member.type == "method_definition":
            name = member.child_by_field_name("name")
            words = {c.type for c in member.children if not c.is_named}
            key = self.key(name) if name is not None else None
            flags = ("s" if static else "") + ("G" if "get" in words else "") + ("S" if "set" in words else "")
            flags += "c" if key == "constructor" and not static else ""
            value = self.function(member, flags)
            for decorator in decorators:
                self._decorate(decorator, value)
            self.emit("m", cls.idx, key, value, static)
        elif member.type in ("field_definition", "public_field_definition"):
            name = member.child_by_field_name("property") or member.child_by_field_name("name")
            value_node = member.child_by_field_name("value")
            type_node = member.child_by_field_name("type")
            key = self.key(name) if name is not None else None
            value = self.expr(value_node) if value_node is not None else None
            if type_node is not None:
                declared = self.declared(type_node)
                value = declared if value is None else ["td", value, declared]
            for decorator in decorators:
                self._decorate(decorator, ["ks"])
            if value is not None:
                self.emit("fld", cls.idx, key, value, static)
        elif member.type == "class_static_block":
            body = member.child_by_field_name("body")
            if body is not None:
                self.block(body)

    def _decorate(self, decorator: Node, target: list) -> None:
        """`@dec` calls dec with what it decorates; `@dec(options)` calls dec, then what it returned."""
        expression = next((c for c in decorator.named_children if c.type != "comment"), None)
        if expression is None:
            return
        name = _callee_name(expression.child_by_field_name("function") if expression.type == "call_expression"
                            else expression, self)
        callee = self.expr(expression)
        self.emit("e", self.scope.idx, ["c", self.site(decorator, name, "d"), callee, [target]])

    # expressions -----------------------------------------------------------------------------------
    def text(self, node: Node) -> str:
        return text_of(node)

    def string(self, node: Node) -> str:
        """A string literal's value (or an identifier's name: `import { default as X }`)."""
        if node.type == "string":
            return "".join(self.text(c) for c in node.named_children if c.type == "string_fragment")
        return self.text(node)

    def key(self, node: Node) -> str | None:
        """A property name as a key: `a`, `'a'` and `"a"` are "a", `1` is "1", `#p` is "#p", a computed
        `[Symbol.iterator]` keeps its brackets, any other computed key is unknown (None)."""
        kind = node.type
        if kind == "string":
            return self.string(node)
        if kind == "number":
            return _number_key(self.text(node))
        if kind == "computed_property_name":
            inner = next((c for c in node.named_children if c.type != "comment"), None)
            if inner is None:
                return None
            if inner.type in ("string", "number"):
                return self.key(inner)
            return f"[{self.text(inner)}]" if inner.type == "member_expression" else None
        return self.text(node)

    def declared(self, type_node: Node) -> list:
        inner = type_node.named_children[0] if type_node.type == "type_annotation" and type_node.named_children \
            else type_node
        return ["T", " ".join(self.text(inner).split())[:200], self.function_scope().qualname]

    def expr(self, node: Node | None) -> object:
        if node is None:
            return None
        handler = _EXPRESSIONS.get(node.type)
        if handler is not None:
            return handler(self, node)
        if node.type in _TRANSPARENT:
            inner = next((c for c in node.named_children if c.type != "comment"), None)
            return self.expr(inner)
        if node.type in _TYPED:
            children = [c for c in node.named_children if c.type != "comment"]
            if len(children) == 2:
                value, type_node = (children[1], children[0]) if node.type == "type_assertion" else children
                return ["as", self.expr(value), self.declared(type_node)]
        return self.others(node)

    def others(self, node: Node) -> list:
        """An expression whose value is no object of the program's (arithmetic, a template, a
        comparison): only the calls in it matter."""
        parts = [self.expr(c) for c in node.named_children if c.type not in ("comment", "string_fragment")]
        return ["x", [p for p in parts if p is not None]] if parts else ["ks"]

    def e_identifier(self, node: Node) -> object:
        name = self.text(node)
        if name == "undefined":
            return ["k", None]
        return self.read(name)

    def e_constant(self, node: Node) -> list:
        kind = node.type
        if kind == "string":
            return ["k", self.string(node)]
        if kind == "number":
            return ["k", _number_key(self.text(node))]
        if kind in ("true", "false"):
            return ["k", kind]
        if kind == "null":
            return ["k", None]
        return ["ks"]

    def e_this(self, node: Node) -> list:
        return ["this", self.scope.this] if self.scope.this >= 0 else ["k", None]

    def e_member(self, node: Node) -> list:
        obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
        if obj is None or prop is None:
            return ["ks"]
        name = self.text(prop)
        if obj.type == "super":
            cls = self._class_scope()
            return ["S", cls, self.scope.this, name] if cls >= 0 else ["ks"]
        return ["a", self.expr(obj), name, self.site(node, name, "g")]

    def e_subscript(self, node: Node) -> list:
        obj, index = node.child_by_field_name("object"), node.child_by_field_name("index")
        if obj is None:
            return ["ks"]
        key_node = index
        name = self.key(key_node) if key_node is not None and key_node.type in ("string", "number") else ""
        return ["s", self.expr(obj), self.expr(index) if index is not None else ["ks"],
                self.site(node, name or "", "g")]

    def _class_scope(self) -> int:
        scope: _Scope | None = self.scope
        while scope is not None and scope.kind != "class":
            scope = scope.parent
        return scope.idx if scope is not None else -1

    def arguments(self, node: Node | None) -> list:
        if node is None:
            return []
        out = []
        for arg in node.named_children:
            if arg.type == "comment":
                continue
            if arg.type == "spread_element" and arg.named_children:
                out.append(["*", self.expr(arg.named_children[0])])
            else:
                out.append(self.expr(arg))
        return out

    def e_call(self, node: Node) -> object:
        function, args_node = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if function is None:
            return ["ks"]
        if args_node is not None and args_node.type == "template_string":  # f`...`
            callee = self.expr(function)
            return ["c", self.site(node, _callee_name(function, self), "t"), callee, [self.others(args_node)]]
        if function.type == "identifier" and self.text(function) == "require" and args_node is not None:
            first = next((a for a in args_node.named_children if a.type != "comment"), None)
            if first is not None and first.type == "string":
                return ["req", self.string(first)]
        if function.type == "identifier" and args_node is not None and self.text(function) == "await" \
                and _may_await(node):  # `await (f)(x)`: the grammar reads `await(f)` called with x
            self.function_scope().exited = True
            parts = self.arguments(args_node)
            return ["await", parts[0] if len(parts) == 1 else ["q", parts]]
        if function.type == "import" and args_node is not None:
            first = next((a for a in args_node.named_children if a.type != "comment"), None)
            return ["imp", self.string(first), ""] if first is not None and first.type == "string" else ["ks"]
        args = self.arguments(args_node)
        if function.type == "super":
            cls = self._class_scope()
            return ["sc", self.site(node, "super", "c"), cls, self.scope.this, args] if cls >= 0 else ["ks"]
        receiver = ""
        kind = "c"
        if function.type == "member_expression":
            obj = function.child_by_field_name("object")
            receiver = self.text(obj) if obj is not None else ""
        elif function.type == "subscript_expression":
            kind = "x"
        name = _callee_name(function, self)
        site = self.site(node, name, kind, receiver, self.text(node)[:120] if kind == "x" else "")
        self.optional |= any(c.type in ("optional_chain", "?.") for c in (*node.children, *function.children))
        return ["c", site, self.expr(function), args]

    def e_new(self, node: Node) -> list:
        constructor = node.child_by_field_name("constructor")
        if constructor is None:
            return ["ks"]
        receiver = ""
        if constructor.type == "member_expression":
            obj = constructor.child_by_field_name("object")
            receiver = self.text(obj) if obj is not None else ""
        site = self.site(node, _callee_name(constructor, self), "n", receiver)
        return ["new", site, self.expr(constructor), self.arguments(node.child_by_field_name("arguments"))]

    def e_function(self, node: Node) -> list:
        return self.function(node)

    def e_class(self, node: Node) -> list:
        return self.klass(node)

    def e_object(self, node: Node) -> list:
        alloc = self.alloc()
        props: list = []
        for child in node.named_children:
            kind = child.type
            if kind == "pair":
                key, value = child.child_by_field_name("key"), child.child_by_field_name("value")
                if key is not None and value is not None:
                    props.append([self.key(key), self.expr(value)])
            elif kind == "shorthand_property_identifier":
                props.append([self.text(child), self.read(self.text(child))])
            elif kind == "method_definition":
                name = child.child_by_field_name("name")
                words = {c.type for c in child.children if not c.is_named}
                flags = ("G" if "get" in words else "") + ("S" if "set" in words else "")
                props.append([self.key(name) if name is not None else None, self.function(child, flags)])
            elif kind == "spread_element" and child.named_children:
                props.append(["*", self.expr(child.named_children[0])])
        return ["o", alloc, props]

    def e_array(self, node: Node) -> list:
        alloc = self.alloc()
        items: list = []
        for child, _ in _positions(node):
            if child is None:
                items.append(None)
            elif child.type == "spread_element" and child.named_children:
                items.append(["*", self.expr(child.named_children[0])])
            else:
                items.append(self.expr(child))
        return ["l", alloc, items]

    def e_assignment(self, node: Node) -> object:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return ["ks"]
        value = self.expr(right)
        self.note_reassigned(left)
        if node.type == "augmented_assignment_expression":
            operator = next((c.type for c in node.children if not c.is_named), "")
            if operator not in ("||=", "&&=", "??="):
                self.assign(left, ["x", [self.expr(left), value]])
                return ["ks"]
            value = ["u", [self.expr(left), value]]
        self.assign(left, value)
        return value

    def note_reassigned(self, left: Node) -> None:
        """The names an assignment (not a declaration) binds again: a nested function's `x = ...`
        changes the enclosing function's `x`, which a variable of its own here does not show."""
        if left.type in ("member_expression", "subscript_expression"):
            return
        stack = [left]
        while stack:
            node = stack.pop()
            if node.type in ("identifier", "shorthand_property_identifier_pattern"):
                self.reassigned.add(self.text(node))
            elif node.type not in ("member_expression", "subscript_expression"):
                stack.extend(node.named_children)

    def e_update(self, node: Node) -> list:
        """`i++`, `--i`: the variable now holds some number (a loop's counter is no one constant)."""
        argument = node.child_by_field_name("argument")
        if argument is not None:
            self.note_reassigned(argument)
            self.assign(argument, ["ks"])
        return ["ks"]

    def e_ternary(self, node: Node) -> list:
        cond = node.child_by_field_name("condition")
        if cond is not None:
            self.effects(cond)
        start = self.fork()
        yes = self.maybe(node.child_by_field_name("consequence"))
        taken = self.function_scope().state
        self.set_state(dict(start))
        no = self.maybe(node.child_by_field_name("alternative"))
        self.set_state(join(taken, self.function_scope().state))
        return ["u", [v for v in (yes, no) if v is not None]]

    def e_binary(self, node: Node) -> list:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        operator = node.child_by_field_name("operator")
        op = operator.type if operator is not None else ""
        logical = op in ("||", "&&", "??")
        first = self.expr(left)
        parts = [p for p in (first, self.maybe(right) if logical else self.expr(right)) if p is not None]
        return ["u", parts] if logical else ["x", parts]

    def e_unary(self, node: Node) -> object:
        """`delete o.k` writes the property (it holds nothing after); other operators only read."""
        argument = node.child_by_field_name("argument")
        if argument is not None and argument.type in ("member_expression", "subscript_expression") and any(
                c.type == "delete" for c in node.children if not c.is_named):
            self.assign(argument, ["k", None])
            return ["ks"]
        return self.others(node)

    def e_sequence(self, node: Node) -> list:
        return ["q", [e for e in (self.expr(c) for c in node.named_children if c.type != "comment") if e is not None]]

    def e_await(self, node: Node) -> list:
        inner = next((c for c in node.named_children if c.type != "comment"), None)
        value = ["await", self.expr(inner)]
        self.function_scope().exited = True  # (other code runs before what follows)
        return value

    def e_yield(self, node: Node) -> list:
        inner = next((c for c in node.named_children if c.type != "comment"), None)
        delegates = any(not c.is_named and c.type == "*" for c in node.children)
        if inner is not None:
            self.emit("y", self.function_scope().idx, self.expr(inner), delegates)
        self.function_scope().exited = True
        return ["ks"]

    def e_jsx(self, node: Node) -> object:
        opening = node.child_by_field_name("open_tag") if node.type == "jsx_element" else node
        parts: list = []
        if node.type == "jsx_element":
            for child in node.named_children:
                if child.type in ("jsx_element", "jsx_self_closing_element", "jsx_expression"):
                    parts.append(self.expr(child))
        if opening is None:
            return ["x", parts]
        name = opening.child_by_field_name("name")
        alloc = self.alloc()
        props: list = []
        for attr in opening.children_by_field_name("attribute"):
            if attr.type == "jsx_attribute" and attr.named_children:
                key = self.text(attr.named_children[0])
                value = self.expr(attr.named_children[1]) if len(attr.named_children) > 1 else ["ks"]
                props.append([key, value])
            elif attr.type == "jsx_expression":
                spread = next((c for c in attr.named_children if c.type == "spread_element"), None)
                if spread is not None and spread.named_children:
                    props.append(["*", self.expr(spread.named_children[0])])
        if parts:
            props.append(["children", ["l", self.alloc(), parts]])
        if name is None or name.type not in _CALLABLE_JSX or (
                name.type == "identifier" and not self.text(name)[:1].isupper()):  # <div>: no code of ours
            return ["x", [p[1] for p in props]]
        callee_name = _callee_name(name, self)
        receiver = ""
        if name.type == "member_expression":
            obj = name.child_by_field_name("object")
            receiver = self.text(obj) if obj is not None else ""
        return ["jsx", self.site(opening, callee_name, "j", receiver), self.expr(name), ["o", alloc, props]]

    def e_jsx_expression(self, node: Node) -> object:
        inner = next((c for c in node.named_children if c.type != "comment"), None)
        if inner is not None and inner.type == "spread_element" and inner.named_children:
            return self.expr(inner.named_children[0])
        return self.expr(inner) if inner is not None else ["ks"]

    def e_namespace(self, node: Node) -> list:
        self.s_namespace(node)
        return ["ks"]

    def flow(self) -> bytes:
        self._resolve_reads()
        return msgspec.msgpack.encode(
            {"scopes": self.scopes, "stmts": self.stmts, "sites": self.sites, "nvars": self.nvars,
             "generics": self.generics, "cond": self.conditional,
             "reassigned": sorted(v for scope in self.all_scopes for name in self.reassigned
                                  for v in scope.versions.get(name, ())),
             **({"unread": sorted(set(self.unread_imports))} if self.unread_imports else {})},
            enc_hook=_encode_read,
        )


def _reserved_alias(specifier: Node) -> Node | None:
    """The name an export is given when it is a reserved word (zod's `export { functionType as
    function, nullType as null }`): tree-sitter-javascript parses `as function` as an error beside
    the specifier (TypeScript's grammar takes it), so the word is read from there."""
    after = specifier.next_sibling
    if after is None or after.type != "ERROR" or after.child_count != 2 or after.children[0].type != "as":
        return None
    return after.children[1]


def _callee_name(node: Node | None, walker: _Walker) -> str:
    """The simple name a call is written with: `f`, the `m` of `a.m`, a string key of `a['m']`."""
    if node is None:
        return ""
    if node.type in ("identifier", "property_identifier", "private_property_identifier", "super"):
        return walker.text(node)
    if node.type == "member_expression":
        prop = node.child_by_field_name("property")
        return walker.text(prop) if prop is not None else ""
    if node.type == "subscript_expression":
        index = node.child_by_field_name("index")
        return walker.key(index) or "" if index is not None and index.type in ("string", "number") else ""
    if node.type in _TRANSPARENT or node.type in _TYPED:
        inner = next((c for c in node.named_children if c.type != "comment"), None)
        return _callee_name(inner, walker)
    return ""


def _may_await(node: Node) -> bool:
    """Whether `await` is the operator where `node` is: in an async function, or a module's top level
    (a script whose own function is named `await` is the only other reading)."""
    parent = node.parent
    while parent is not None:
        if parent.type in _FUNCTIONS or parent.type == "method_definition":
            return any(c.type == "async" for c in parent.children)
        parent = parent.parent
    return True


def _positions(node: Node) -> list[tuple[Node | None, int]]:
    """The items of an array or array pattern by position, a hole (`[, a]`) as None."""
    out: list[tuple[Node | None, int]] = []
    pending = True  # no item since the last comma
    for child in node.children:
        if child.type == ",":
            if pending:
                out.append((None, len(out)))
            pending = True
        elif child.is_named and child.type != "comment":
            out.append((child, len(out)))
            pending = False
    return out


def _declared_names(declaration: Node) -> list[str]:
    """The names an exported declaration binds: `export function f`, `export const a = 1, b = 2`."""
    name = declaration.child_by_field_name("name")
    if name is not None:
        return [text_of(name)]
    return [text_of(n) for d in declaration.named_children if d.type == "variable_declarator"
            and (n := d.child_by_field_name("name")) is not None and n.type == "identifier"]


def _number_key(text: str) -> str:
    """A numeric literal as the property key it stands for: `1` and `1.0` are "1", `0x10` "16"."""
    try:
        value = float(int(text, 0)) if text[:2].lower() in ("0x", "0o", "0b") else float(text.replace("_", ""))
    except ValueError:
        return text
    return str(int(value)) if value.is_integer() and abs(value) < 2**53 else repr(value)


_STATEMENTS: dict[str, Callable[[_Walker, Node], None]] = {
    "statement_block": _Walker.s_block, "program": _Walker.s_block,
    "expression_statement": _Walker.s_expression_statement,
    "lexical_declaration": _Walker.s_declaration, "variable_declaration": _Walker.s_declaration,
    "function_declaration": _Walker.s_function_declaration,
    "generator_function_declaration": _Walker.s_function_declaration,
    "class_declaration": _Walker.s_class_declaration, "abstract_class_declaration": _Walker.s_class_declaration,
    "return_statement": _Walker.s_return, "if_statement": _Walker.s_if,
    "for_statement": _Walker.s_loop, "while_statement": _Walker.s_loop, "do_statement": _Walker.s_loop,
    "for_in_statement": _Walker.s_for_in, "try_statement": _Walker.s_try, "switch_statement": _Walker.s_switch,
    "labeled_statement": _Walker.s_labeled, "throw_statement": _Walker.s_expression_statement,
    "with_statement": _Walker.s_with,
    "export_statement": _Walker.s_export, "internal_module": _Walker.s_namespace, "module": _Walker.s_namespace,
    "import_statement": _Walker.s_skip,
    "interface_declaration": _Walker.s_generic, "type_alias_declaration": _Walker.s_generic,
}
_EXPRESSIONS: dict[str, Callable[[_Walker, Node], object]] = {
    "identifier": _Walker.e_identifier, "shorthand_property_identifier": _Walker.e_identifier,
    "string": _Walker.e_constant, "number": _Walker.e_constant, "true": _Walker.e_constant,
    "false": _Walker.e_constant, "null": _Walker.e_constant, "regex": _Walker.e_constant,
    "template_string": _Walker.others, "this": _Walker.e_this,
    "member_expression": _Walker.e_member, "subscript_expression": _Walker.e_subscript,
    "call_expression": _Walker.e_call, "new_expression": _Walker.e_new,
    "arrow_function": _Walker.e_function, "function_expression": _Walker.e_function,
    "function": _Walker.e_function, "generator_function": _Walker.e_function,
    "class": _Walker.e_class, "object": _Walker.e_object, "array": _Walker.e_array,
    "assignment_expression": _Walker.e_assignment, "augmented_assignment_expression": _Walker.e_assignment,
    "update_expression": _Walker.e_update, "ternary_expression": _Walker.e_ternary,
    "binary_expression": _Walker.e_binary, "sequence_expression": _Walker.e_sequence,
    "unary_expression": _Walker.e_unary, "await_expression": _Walker.e_await,
    "yield_expression": _Walker.e_yield, "jsx_element": _Walker.e_jsx, "jsx_self_closing_element": _Walker.e_jsx,
    "jsx_expression": _Walker.e_jsx_expression, "internal_module": _Walker.e_namespace,
}


_OWN_SCOPE = frozenset({"arrow_function", "function_expression", "function", "function_declaration",
                        "generator_function", "generator_function_declaration", "method_definition", "class",
                        "class_declaration"})


def _assigned_names(loop: Node) -> set[str]:
    """The variables a loop assigns (`x = ...`, `x += ...`, `x++`), outside the functions in it."""
    names: set[str] = set()
    stack = list(loop.named_children)
    while stack:
        node = stack.pop()
        if node.type in _OWN_SCOPE:
            continue
        target = (node.child_by_field_name("left") if node.type in _ASSIGNMENTS
                  else node.child_by_field_name("argument") if node.type == "update_expression" else None)
        if target is not None and target.type == "identifier":
            names.add(target.text.decode("utf-8", "replace") if target.text else "")
        stack.extend(node.named_children)
    return names


def extract(spec: LanguageSpec, tree: Tree, path: str) -> FileFacts:
    facts, located = extract_located(spec, tree, path)
    spans = located.spans
    walker = _Walker(spans)
    walker.block(tree.root_node)
    facts.flow = walker.flow()
    if walker.reserved_imports:  # (the query pass read none of them, or the alias as the imported name)
        misread = {(line, spec, alias) for line, spec, _, alias in walker.reserved_imports}
        facts.imports = [i for i in facts.imports if (i.line, i.module, i.name) not in misread]
        facts.imports += [Import(module=spec, scope="", line=line, name=name, alias=alias)
                          for line, spec, name, alias in walker.reserved_imports]
    if walker.module_value is not None:
        facts.bindings.append(walker.module_value)
    defined = {d.qualname for d in facts.definitions}
    facts.escapes = [e for e in facts.escapes if e.receiver or not walker.is_parameter(e.scope, e.name, defined)]
    return facts
