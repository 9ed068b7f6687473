"""Java: the query pass (java.scm) plus one walk over the same tree for what the Java resolver
(resolve/java/) types and captures cannot say:

- javac's names for local and anonymous classes (`Outer$1Local`, `Outer$1`: numbered in source order
  per enclosing class), so source and class files name the same code alike;
- each call site's receiver and arguments as expressions (below), so overloads are chosen by arity
  and argument types, lambda parameters are typed from the method they are passed to, and string
  constants reach reflection;
- lexical scoping: a name read in a method is resolved here to the local, parameter or lambda
  parameter it means (blocks, loops, catch clauses, patterns, resources, captured by lambdas and by
  local and anonymous classes);
- sites of calls the compiler writes without a call in the source (enhanced `for` -> `iterator()`,
  try-with-resources -> `close()`, string concatenation -> `toString()`, a constructor's implicit
  `super()`, enum constants -> the enum's constructor, an anonymous class's super type), added as
  references.

`FileFacts.flow` holds, by index (no lines: the facts' shape covers what moves):

    {"sites": [site | None] per reference, "defs": [def | None] per definition,
     "locals": [[name, type, value]], "lambdas": [[context, arity, result]],
     "reassigned": [indexes of locals assigned again after their declaration],
     "lexical": {definition index: index of the definition it is declared in (local, anonymous classes)}}

    site   ["call", receiver | None, [args], cast]      a method call (`Iface.super.m()`: receiver ["super", "Iface"])
           ["new", type, [args], anonymous qualname, outer | None, cast]      (`outer.new Inner()`)
           ["ref", qualifier]                          a method reference (`Foo::bar`, `this::m`, `Foo::new`)
           ["super", [args]] ["this", [args]]          `super(...)` (["super", [args], "implicit"] where javac
                                                       adds it), `this(...)`
           ["iter", expr] ["close", expr] ["str", expr]    compiler- and JVM-made calls on a value
    def    [flags, [[type, name]], [[type variable, bound]], [constant]]   flags: s static, a abstract,
           d default, p private, v varargs, i (a type) has static initialiser code, r a record (params:
           its components); constants: a type's static final fields of constant value
    expr   ["l", local] ["p", lambda, i] (a lambda's untyped parameter) ["n", name] (a field, type,
           package or static import) ["this"] ["this", "Outer"] ["super"] ["super", "Iface"]
           ["f", expr, name] ["c", site] (a call or `new`) ["k", type, value] (a literal; value for
           strings) ["cast", [types], expr] ["ix", expr] ["?", expr, expr] ["lam", lambda]
           ["mr", site] ["cls", type] ["arr", type] ["+", expr, expr] ["x"] (anything else)
    value  an expr, or ["el", expr] (the element a for-each loop takes from it)
    context ["a", site, i] (argument i of a call) ["t", type] (declared: a variable, a cast, a
           field) ["r", definition] (returned from a method) ["?"]

A type written in the file that names a local class is written `%<qualname>` (`%Outer$1Local`).
"""

from __future__ import annotations

from collections.abc import Iterator

import msgspec
from tree_sitter import Node, Tree

from tenure.structural.extract import Located, Span, extract_located, text_of
from tenure.structural.facts import Binding, FileFacts, Reference
from tenure.structural.languages import LanguageSpec

# Declarations whose body holds members (and names nested member types `Outer$Inner`).
TYPE_DECLARATIONS = frozenset({"class_declaration", "interface_declaration", "enum_declaration",
                               "record_declaration", "annotation_type_declaration"})
MEMBER_PARENTS = frozenset({"program", "class_body", "interface_body", "enum_body_declarations",
                            "annotation_type_body", "enum_body"})
CALLABLES = frozenset({"method_declaration", "constructor_declaration", "compact_constructor_declaration"})
COMMENTS = frozenset({"line_comment", "block_comment"})
LITERALS = {"string_literal": "String", "character_literal": "char", "true": "boolean", "false": "boolean",
            "null_literal": "null", "decimal_floating_point_literal": "double",
            "hex_floating_point_literal": "double"}
INTEGERS = frozenset({"decimal_integer_literal", "hex_integer_literal", "octal_integer_literal",
                      "binary_integer_literal"})
BOOLEAN_OPERATORS = frozenset({"==", "!=", "<", ">", "<=", ">=", "&&", "||", "instanceof"})
MAX_CONSTANT = 200  # longer string literals are kept as "some string": only short ones name anything
MODIFIER_FLAGS = {"static": "s", "abstract": "a", "default": "d", "private": "p"}

Expr = list


def extract(spec: LanguageSpec, tree: Tree, path: str) -> FileFacts:
    renamed = javac_names(tree.root_node)
    facts, located = extract_located(spec, tree, path, renamed)
    facts.flow = _Walk(facts, located, set(renamed)).run(tree.root_node)
    return facts


# javac's names -------------------------------------------------------------------------------------
def javac_names(root: Node) -> dict[Span, tuple[str, str]]:
    """(name, qualname) of each local and anonymous class by its definition's span (an anonymous
    class's is its body's), as javac names them: `Outer$<n>Name` and `Outer$<n>`, counted in source
    order per directly enclosing class."""
    renamed: dict[Span, tuple[str, str]] = {}
    counters: dict[tuple[str, str], int] = {}

    def number(outer: str, name: str) -> str:
        n = counters[outer, name] = counters.get((outer, name), 0) + 1
        return f"{outer}${n}{name}"

    stack: list[tuple[Node, str]] = [(root, "")]
    while stack:
        node, outer = stack.pop()
        inner = outer
        body = _anonymous_body(node)
        if node.type in TYPE_DECLARATIONS and (name := node.child_by_field_name("name")) is not None:
            simple = text_of(name)
            if node.parent is None or node.parent.type in MEMBER_PARENTS:
                inner = f"{outer}${simple}" if outer else simple
            else:  # declared in a block: a local class
                inner = number(outer, simple)
                renamed[node.start_byte, node.end_byte] = (simple, inner)
        elif body is not None:
            inner = number(outer, "")
            renamed[body.start_byte, body.end_byte] = (inner.rpartition("$")[2], inner)
        for child in reversed(node.children):
            # an anonymous class's arguments are evaluated outside it
            stack.append((child, inner if body is None or child == body else outer))
    return renamed


def _anonymous_body(node: Node) -> Node | None:
    """The class body of `new T(...) { ... }` or of an enum constant with a body."""
    if node.type == "object_creation_expression":
        return next((c for c in node.named_children if c.type == "class_body"), None)
    if node.type == "enum_constant":
        return node.child_by_field_name("body")
    return None


# the walk ------------------------------------------------------------------------------------------
class _Env:
    """Names in lexical scope: locals (an index into the locals table), untyped lambda parameters
    ((lambda, i)) and local classes ("%qualname")."""

    __slots__ = ("names", "parent")

    def __init__(self, parent: _Env | None = None) -> None:
        self.parent = parent
        self.names: dict[str, int | tuple[int, int] | str] = {}

    def get(self, name: str) -> int | tuple[int, int] | str | None:
        env: _Env | None = self
        while env is not None:
            if name in env.names:
                return env.names[name]
            env = env.parent
        return None


class _Walk:
    def __init__(self, facts: FileFacts, located: Located, renamed: set[Span]) -> None:
        self.facts = facts
        self.renamed = renamed
        self.spans = located.spans
        self.def_index = {span: i for i, span in enumerate(located.spans)}
        self.sites_by_anchor: dict[Span, list[int]] = {}
        for i, span in enumerate(located.anchors):
            self.sites_by_anchor.setdefault(span, []).append(i)
        self.sites: list[list | None] = [None] * len(facts.references)
        self.defs: list[list | None] = [None] * len(facts.definitions)
        self.locals: list[list] = []
        self.reassigned: set[int] = set()  # locals whose declared value is not all they hold
        self.lambdas: list[list] = []
        self.lambda_ids: dict[Span, int] = {}
        self.lexical: dict[int, int] = {}
        self.bases: dict[str, list[str]] = {}  # a type -> its super types as written

    def run(self, root: Node) -> dict:
        self._walk(root, _Env(), -1)
        if self.bases:
            self.facts.definitions = [msgspec.structs.replace(d, bases=tuple(self.bases[d.qualname]))
                                      if d.qualname in self.bases else d for d in self.facts.definitions]
        return {"sites": self.sites, "defs": self.defs, "locals": self.locals, "lambdas": self.lambdas,
                "lexical": self.lexical, "reassigned": sorted(self.reassigned)}

    # scopes ----------------------------------------------------------------------------------------
    def _walk(self, node: Node, env: _Env, owner: int) -> None:
        """Visit `node` in `env`; `owner` is the index of the innermost definition around it."""
        span = (node.start_byte, node.end_byte)
        if span in self.def_index:
            index = self.def_index[span]
            if owner >= 0 and span in self.renamed:
                self.lexical[index] = owner  # a local or anonymous class: declared inside `owner`
            owner = index
            env = _Env(env)
            self._definition(node, index, env)
        kind = node.type
        if span in self.sites_by_anchor:
            self._site(node, env, owner)
        if kind == "class_body" and span in self.renamed and node.parent is not None:
            self._anonymous_base(node.parent, env, owner)
        elif kind == "enum_constant":
            self._enum_constant(node, env, owner)
        elif kind == "binary_expression" and _operator(node) == "+":
            self._string_operands(node, env, owner)
        elif kind in ("instanceof_expression", "type_pattern"):
            self._pattern(node, env)
        elif kind == "field_access":
            self._static_field(node, env, owner)
        elif kind == "assignment_expression":
            self._assigned(node.child_by_field_name("left"), env)
        if kind in ("block", "constructor_body", "switch_block", "switch_rule", "for_statement",
                    "try_with_resources_statement", "catch_clause", "switch_block_statement_group"):
            env = _Env(env)
        if kind == "lambda_expression":
            self._lambda_scope(node, env, owner)
            return
        if kind == "enhanced_for_statement":
            self._for_each(node, env, owner)
            return
        for child in node.named_children:
            self._walk(child, env, owner)
            self._declare(child, env, owner)

    def _declare(self, node: Node, env: _Env, owner: int) -> None:
        """Names a statement or clause declares for what follows it in the same scope."""
        kind = node.type
        if kind == "local_variable_declaration":
            self._variables(node, env, owner)
        elif kind in TYPE_DECLARATIONS and (span := (node.start_byte, node.end_byte)) in self.def_index:
            name = node.child_by_field_name("name")
            if name is not None:
                env.names[text_of(name)] = "%" + self.spans[span]
        elif kind == "resource":
            name = node.child_by_field_name("name")
            if name is not None:
                self._local(env, text_of(name), self._type(node.child_by_field_name("type"), env),
                            self._expr(node.child_by_field_name("value"), env))
                resource = ["l", env.names[text_of(name)]]
            else:  # `try (existing)`
                resource = self._expr(node.named_children[0] if node.named_children else None, env)
            self._implicit(node, "close", "close", owner, [resource])  # closed when the block is left
        elif kind == "catch_formal_parameter" and (name := node.child_by_field_name("name")) is not None:
            types = [self._type(t, env) for c in node.named_children if c.type == "catch_type"
                     for t in c.named_children]
            self._local(env, text_of(name), " | ".join(types), None)

    def _assigned(self, target: Node | None, env: _Env) -> None:
        if target is not None and target.type == "identifier":
            local = env.get(text_of(target))
            if isinstance(local, int):
                self.reassigned.add(local)

    def _pattern(self, node: Node, env: _Env) -> None:
        """`x instanceof Foo f`, `case Foo f ->`: in scope from here on in the enclosing block (Java
        scopes a pattern variable by where it is definitely matched; this is wider, never narrower)."""
        if node.type == "instanceof_expression":
            name, written = node.child_by_field_name("name"), node.child_by_field_name("right")
        elif len(node.named_children) == 2:
            written, name = node.named_children
        else:
            return
        if name is not None and written is not None:
            self._local(env, text_of(name), self._type(written, env), None)

    def _variables(self, node: Node, env: _Env, owner: int) -> None:
        written = node.child_by_field_name("type")
        type_text = "" if written is None or text_of(written) == "var" else self._type(written, env)
        for declarator in node.children_by_field_name("declarator"):
            name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
            if name is not None:
                self._local(env, text_of(name), type_text, self._expr(value, env) if value is not None else None)

    def _local(self, env: _Env, name: str, type_text: str, value: Expr | None) -> None:
        env.names[name] = len(self.locals)
        self.locals.append([name, type_text, value])

    def _for_each(self, node: Node, env: _Env, owner: int) -> None:
        value = node.child_by_field_name("value")
        for child in node.named_children:
            if child != node.child_by_field_name("body"):
                self._walk(child, env, owner)
        inner = _Env(env)
        name, written = node.child_by_field_name("name"), node.child_by_field_name("type")
        if name is not None and value is not None:
            type_text = "" if written is None or text_of(written) == "var" else self._type(written, env)
            self._local(inner, text_of(name), type_text, ["el", self._expr(value, env)])
            self._implicit(node, "iter", "iterator", owner, [self._expr(value, env)])
        body = node.child_by_field_name("body")
        if body is not None:
            self._walk(body, inner, owner)

    def _lambda_scope(self, node: Node, env: _Env, owner: int) -> None:
        lam = self._lambda(node, env)
        inner = _Env(env)
        for i, (name, written) in enumerate(_lambda_params(node)):
            if written is None:
                inner.names[name] = (lam, i)
            else:
                self._local(inner, name, self._type(written, env), None)
        body = node.child_by_field_name("body")
        if body is not None:
            self._walk(body, inner, owner)
            if body.type != "block":
                self.lambdas[lam][2] = self._expr(body, inner)

    # definitions -----------------------------------------------------------------------------------
    def _definition(self, node: Node, index: int, env: _Env) -> None:
        d = self.facts.definitions[index]
        decl = node.parent if node.type == "class_body" else node  # (an anonymous class's node is its body)
        flags = "".join(MODIFIER_FLAGS[m] for m in _modifiers(decl) if m in MODIFIER_FLAGS)
        if d.kind == "method" and decl.parent is not None and decl.parent.type == "interface_body" \
                and not set(flags) & set("dsp") and decl.child_by_field_name("body") is None:
            flags += "a"  # an interface method without a body
        params: list[list[str]] = []
        parameters = decl.child_by_field_name("parameters")
        if decl.type in CALLABLES or decl.type == "record_declaration":
            for p in parameters.named_children if parameters is not None else ():
                if p.type == "formal_parameter":
                    name = p.child_by_field_name("name")
                    params.append([self._type(p.child_by_field_name("type"), env), text_of(name) if name else ""])
                elif p.type == "spread_parameter":  # `String... rest`: an array inside the method
                    written = next((c for c in p.named_children if c.type not in ("modifiers", "variable_declarator")),
                                   None)
                    declarator = next((c for c in p.named_children if c.type == "variable_declarator"), None)
                    name = declarator.child_by_field_name("name") if declarator is not None else None
                    params.append([self._type(written, env) + "[]", text_of(name) if name else ""])
                    flags += "v"
            if decl.type == "record_declaration":
                flags += "r"
            elif decl.type in CALLABLES:
                for type_text, name in params:
                    if name:
                        self._local(env, name, type_text, None)
        if d.kind in ("class", "interface", "enum") and _has_static_initialiser(decl):
            flags += "i"
        if decl.type in TYPE_DECLARATIONS and (written := _super_types(decl)):
            self.bases[d.qualname] = [self._type(t, env) for t in written]  # with their type arguments
        self.defs[index] = [flags, params, _type_parameters(decl), _constants(decl)]
        body = decl.child_by_field_name("body")
        if decl.type == "constructor_declaration" and body is not None and not any(
                c.type == "explicit_constructor_invocation" for c in body.named_children):
            self._implicit(decl, "super", "super", index, [])  # javac calls super() first
        if d.kind == "class" and decl.type == "class_declaration" and body is not None and not any(
                c.type == "constructor_declaration" for c in body.named_children):
            self._implicit(decl, "super", "super", index, [])  # the default constructor calls super()

    def _anonymous_base(self, creation: Node, env: _Env, owner: int) -> None:
        """An anonymous class extends or implements the type it is made of (an enum constant's body, its
        enum); its constructor passes the arguments on to the super class's."""
        d = self.facts.definitions[owner]
        if creation.type == "enum_constant":
            base = self.facts.definitions[self.lexical[owner]].name if owner in self.lexical else ""
        else:
            written = creation.child_by_field_name("type")
            base = text_of(written) if written is not None else ""
        if not base:
            return
        self.bases.setdefault(d.qualname, []).append(base)
        self.facts.references.append(Reference("inherits", _bare(base), d.qualname, creation.start_point[0] + 1))
        self.sites.append(None)
        self._implicit(creation, "super", "super", owner, [self._expr(a, env) for a in _arguments(creation)])

    def _enum_constant(self, node: Node, env: _Env, owner: int) -> None:
        """The enum's static initialiser makes each constant (of its anonymous class, when it has a body)."""
        if owner < 0 or self.facts.definitions[owner].kind != "enum":
            return
        enum = self.facts.definitions[owner]
        body = node.child_by_field_name("body")
        made = self.spans.get((body.start_byte, body.end_byte), "") if body is not None else ""
        args = [self._expr(a, env) for a in _arguments(node)] if not made else []
        line = node.start_point[0] + 1
        self.facts.references.append(Reference("new", (made or enum.qualname).rpartition("$")[2], enum.qualname, line))
        self.sites.append(["new", "%" + (made or enum.qualname), args, made, None, ""])
        name = node.child_by_field_name("name")
        if name is not None:  # a constant is a static field of its enum's type
            self.facts.bindings.append(Binding(text_of(name), "%" + enum.qualname, enum.qualname, line))

    def _static_field(self, node: Node, env: _Env, owner: int) -> None:
        """`Config.LIMIT`: reading or writing a static field initialises its class (a site the
        resolver keeps when the qualifier is a type with static initialiser code)."""
        obj, name = node.child_by_field_name("object"), node.child_by_field_name("field")
        if obj is None or name is None or name.type != "identifier" or obj.type not in ("identifier", "field_access"):
            return
        qualifier = self._expr(obj, env)
        last = qualifier[1] if qualifier[0] == "n" else qualifier[-1] if qualifier[0] == "f" else ""
        if isinstance(last, str) and last[:1].isupper() or last.startswith("%"):  # a type, by Java's naming
            self._implicit(node, "static", text_of(name), owner, [qualifier])

    def _implicit(self, node: Node, kind: str, name: str, owner: int, args: list[Expr]) -> None:
        """A call the compiler or the JVM makes on the program's behalf, as a reference of its own."""
        scope = self.facts.definitions[owner].qualname if owner >= 0 else ""
        self.facts.references.append(Reference("call", name, scope, node.start_point[0] + 1))
        self.sites.append([kind, *args] if kind != "super" else ["super", args, "implicit"])

    # sites -----------------------------------------------------------------------------------------
    def _site(self, node: Node, env: _Env, owner: int) -> None:
        site = self._site_of(node, env)
        for i in self.sites_by_anchor[node.start_byte, node.end_byte]:
            if self.facts.references[i].kind in ("call", "new"):
                self.sites[i] = site

    def _site_of(self, node: Node, env: _Env) -> list | None:
        kind = node.type
        cast = _cast_around(node)
        if kind == "method_invocation":
            obj = node.child_by_field_name("object")
            receiver = self._expr(obj, env) if obj is not None else None
            if obj is not None and any(c.type == "super" for c in node.children):
                receiver = ["super", text_of(obj)]  # `Iface.super.m()`
            return ["call", receiver, [self._expr(a, env) for a in _arguments(node)], cast]
        if kind == "object_creation_expression":
            written = node.child_by_field_name("type")
            body = _anonymous_body(node)
            anonymous = self.spans.get((body.start_byte, body.end_byte), "") if body is not None else ""
            outer = next((c for c in node.named_children if c != written and c.type not in (
                "argument_list", "class_body", "type_arguments")), None)
            return ["new", self._type(written, env), [self._expr(a, env) for a in _arguments(node)], anonymous,
                    self._expr(outer, env) if outer is not None else None, cast]
        if kind == "method_reference":
            qualifier = node.named_children[0] if node.named_children else None
            if qualifier is None:
                return None
            if qualifier.type in ("type_identifier", "generic_type", "scoped_type_identifier", "array_type"):
                return ["ref", ["n", self._type(qualifier, env)]]
            return ["ref", self._expr(qualifier, env)]
        if kind == "explicit_constructor_invocation":
            which = node.child_by_field_name("constructor")
            return ["this" if which is not None and which.type == "this" else "super",
                    [self._expr(a, env) for a in _arguments(node)]]
        return None

    def _string_operands(self, node: Node, env: _Env, owner: int) -> None:
        """`"total: " + order`: the JVM calls `order.toString()` (StringConcatFactory)."""
        sides = [node.child_by_field_name("left"), node.child_by_field_name("right")]
        if not any(map(_is_string, sides)):
            return
        for side in sides:
            if side is not None and side.type not in LITERALS and side.type not in INTEGERS and not _is_string(side):
                self._implicit(side, "str", "toString", owner, [self._expr(side, env)])

    # expressions -----------------------------------------------------------------------------------
    def _expr(self, node: Node | None, env: _Env) -> Expr:
        if node is None:
            return ["x"]
        kind = node.type
        if kind == "identifier":
            found = env.get(text_of(node))
            if isinstance(found, int):
                return ["l", found]
            if isinstance(found, tuple):
                return ["p", *found]
            return ["n", found if isinstance(found, str) else text_of(node)]
        if kind == "this":
            return ["this"]
        if kind == "super":
            return ["super"]
        if kind == "field_access":
            obj, name = node.child_by_field_name("object"), node.child_by_field_name("field")
            if name is not None and name.type == "this":
                return ["this", text_of(obj) if obj is not None else ""]
            if any(c.type == "super" for c in node.children if c != obj):
                return ["f", ["super", text_of(obj) if obj is not None else ""], text_of(name) if name else ""]
            return ["f", self._expr(obj, env), text_of(name) if name is not None else ""]
        if kind in ("method_invocation", "object_creation_expression", "method_reference"):
            sites = self.sites_by_anchor.get((node.start_byte, node.end_byte), [])
            site = next((i for i in sites if self.facts.references[i].kind in ("call", "new")), -1)
            return ["mr" if kind == "method_reference" else "c", site] if site >= 0 else ["x"]
        if kind == "parenthesized_expression":
            return self._expr(node.named_children[0] if node.named_children else None, env)
        if kind in LITERALS:
            text = text_of(node)
            value = _string_value(text) if kind == "string_literal" and len(text) <= MAX_CONSTANT else ""
            return ["k", LITERALS[kind], value]
        if kind in INTEGERS:
            return ["k", "long" if text_of(node).endswith(("l", "L")) else "int", ""]
        if kind == "cast_expression":
            types = [self._type(t, env) for t in node.children_by_field_name("type")]
            return ["cast", types, self._expr(node.child_by_field_name("value"), env)]
        if kind == "array_access":
            return ["ix", self._expr(node.child_by_field_name("array"), env)]
        if kind == "ternary_expression":
            return ["?", self._expr(node.child_by_field_name("consequence"), env),
                    self._expr(node.child_by_field_name("alternative"), env)]
        if kind == "lambda_expression":
            return ["lam", self._lambda(node, env)]
        if kind == "class_literal":
            return ["cls", self._type(node.named_children[0], env) if node.named_children else ""]
        if kind == "array_creation_expression":
            dims = sum(1 for c in node.named_children if c.type in ("dimensions_expr", "dimensions"))
            dims += sum(text_of(c).count("[") - 1 for c in node.named_children if c.type == "dimensions")
            return ["arr", self._type(node.child_by_field_name("type"), env) + "[]" * max(dims, 1)]
        if kind == "binary_expression":
            operator = _operator(node)
            if operator in BOOLEAN_OPERATORS:
                return ["k", "boolean", ""]
            return ["+" if operator == "+" else "#", self._expr(node.child_by_field_name("left"), env),
                    self._expr(node.child_by_field_name("right"), env)]
        if kind == "instanceof_expression" or (kind == "unary_expression" and _operator(node) == "!"):
            return ["k", "boolean", ""]
        if kind in ("unary_expression", "update_expression"):
            return self._expr(node.named_children[0] if node.named_children else None, env)
        if kind == "assignment_expression":
            return self._expr(node.child_by_field_name("right"), env)
        return ["x"]

    def _lambda(self, node: Node, env: _Env) -> int:
        span = (node.start_byte, node.end_byte)
        if span not in self.lambda_ids:
            self.lambda_ids[span] = len(self.lambdas)
            self.lambdas.append([self._lambda_context(node, env), len(_lambda_params(node)), None])
        return self.lambda_ids[span]

    def _lambda_context(self, node: Node, env: _Env) -> list:
        """What gives a lambda its type: the parameter it is passed to, or a declared type."""
        parent = node.parent
        while parent is not None and parent.type == "parenthesized_expression":
            node, parent = parent, parent.parent
        if parent is None:
            return ["?"]
        if parent.type == "argument_list" and parent.parent is not None:
            sites = self.sites_by_anchor.get((parent.parent.start_byte, parent.parent.end_byte), [])
            site = next((i for i in sites if self.facts.references[i].kind in ("call", "new")), -1)
            position = _code(parent).index(node)
            return ["a", site, position] if site >= 0 else ["?"]
        if parent.type == "variable_declarator" and parent.parent is not None:
            written = parent.parent.child_by_field_name("type")
            if written is not None and text_of(written) != "var":
                return ["t", self._type(written, env)]
        if parent.type == "cast_expression":
            types = parent.children_by_field_name("type")
            return ["t", self._type(types[0], env)] if types else ["?"]
        if parent.type == "return_statement":
            method = parent
            while method is not None and method.type not in CALLABLES and method.type != "lambda_expression":
                method = method.parent
            if method is not None and (span := (method.start_byte, method.end_byte)) in self.def_index:
                return ["r", self.def_index[span]]
        return ["?"]

    def _type(self, node: Node | None, env: _Env) -> str:
        """A type as written, on one line; a leading name of a local class becomes `%qualname`."""
        if node is None:
            return ""
        text = " ".join(text_of(node).split())
        head = text.split("<", 1)[0].split("[", 1)[0].split(".", 1)[0].strip()
        found = env.get(head)
        if isinstance(found, str) and found.startswith("%"):
            return found + text[len(head):]
        return text


# tree helpers --------------------------------------------------------------------------------------
def _arguments(node: Node) -> list[Node]:
    args = node.child_by_field_name("arguments")
    if args is None:
        args = next((c for c in node.named_children if c.type == "argument_list"), None)
    return _code(args) if args is not None else []


def _code(node: Node) -> list[Node]:
    """The named children but comments (`f(x, true /* add */)` passes two arguments)."""
    return [c for c in node.named_children if c.type not in COMMENTS]


def _super_types(decl: Node) -> list[Node]:
    """The super types a declaration writes, the super class first (`extends Box<Item> implements I`)."""
    out = []
    for child in decl.named_children:
        if child.type == "superclass":
            out += [t for t in child.named_children]
        elif child.type in ("super_interfaces", "extends_interfaces"):
            out += [t for lst in child.named_children if lst.type == "type_list" for t in lst.named_children]
    return out


def _modifiers(node: Node) -> Iterator[str]:
    for child in node.children:
        if child.type == "modifiers":
            for m in child.children:
                yield m.type


def _type_parameters(node: Node) -> list[list[str]]:
    found = node.child_by_field_name("type_parameters")
    out = []
    for p in found.named_children if found is not None else ():
        name = next((c for c in p.named_children if c.type in ("type_identifier", "identifier")), None)
        bound = next((c for c in p.named_children if c.type == "type_bound"), None)
        bounds = [text_of(b) for b in bound.named_children] if bound is not None else []
        if name is not None:
            out.append([text_of(name), bounds[0] if bounds else ""])
    return out


def _lambda_params(node: Node) -> list[tuple[str, Node | None]]:
    params = node.child_by_field_name("parameters")
    if params is None:
        return []
    if params.type == "identifier":
        return [(text_of(params), None)]
    out: list[tuple[str, Node | None]] = []
    for p in params.named_children:
        if p.type == "identifier":
            out.append((text_of(p), None))
        elif p.type == "formal_parameter" and (name := p.child_by_field_name("name")) is not None:
            written = p.child_by_field_name("type")
            out.append((text_of(name), None if written is not None and text_of(written) == "var" else written))
    return out


def _has_static_initialiser(decl: Node) -> bool:
    """Whether initialising the class runs code of the project: a static block, or a static field
    (an interface's fields are) initialised by a call or `new` (constants are inlined: they run nothing)."""
    body = decl.child_by_field_name("body")
    if body is None:
        return False
    if decl.type == "enum_declaration":
        return True  # its constants are constructed then
    for member in body.named_children:
        if member.type == "enum_body_declarations":
            return True
        if member.type == "static_initializer":
            return True
        static = member.type == "constant_declaration" or (
            member.type == "field_declaration" and "static" in _modifiers(member))
        if static and any(_calls_something(d.child_by_field_name("value"))
                          for d in member.children_by_field_name("declarator")):
            return True
    return False


def _constants(decl: Node) -> list[str]:
    """The type's constant variables (`static final int LIMIT = 10;`, an interface's `String NAME = "x";`):
    reading one runs no initialiser (javac inlines it)."""
    body = decl.child_by_field_name("body")
    found = []
    for member in body.named_children if body is not None and decl.type in TYPE_DECLARATIONS else ():
        modifiers = set(_modifiers(member))
        if member.type == "constant_declaration" or (
                member.type == "field_declaration" and {"static", "final"} <= modifiers):
            found += [text_of(name) for d in member.children_by_field_name("declarator")
                      if (name := d.child_by_field_name("name")) is not None
                      and (value := d.child_by_field_name("value")) is not None and not _calls_something(value)
                      and value.type != "array_initializer"]
    return found


def _calls_something(node: Node | None) -> bool:
    stack = [node] if node is not None else []
    while stack:
        n = stack.pop()
        if n.type in ("method_invocation", "object_creation_expression", "lambda_expression", "method_reference"):
            return True
        stack.extend(n.named_children)
    return False


def _cast_around(node: Node) -> str:
    parent = node.parent
    while parent is not None and parent.type == "parenthesized_expression":
        parent = parent.parent
    if parent is not None and parent.type == "cast_expression":
        types = parent.children_by_field_name("type")
        return " ".join(text_of(types[0]).split()) if types else ""
    return ""


def _operator(node: Node) -> str:
    op = node.child_by_field_name("operator")
    return text_of(op) if op is not None else ""


def _is_string(node: Node | None) -> bool:
    while node is not None and node.type == "parenthesized_expression":
        node = node.named_children[0] if node.named_children else None
    if node is None:
        return False
    if node.type == "string_literal":
        return True
    return node.type == "binary_expression" and _operator(node) == "+" and any(
        _is_string(node.child_by_field_name(side)) for side in ("left", "right"))


def _string_value(text: str) -> str:
    if text.startswith('"""'):
        return text[3:-3]
    body = text[1:-1]
    return body if "\\" not in body else body.encode("utf-8", "replace").decode("unicode_escape", "replace")


def _bare(type_text: str) -> str:
    return type_text.split("<", 1)[0].strip().rpartition(".")[2]
