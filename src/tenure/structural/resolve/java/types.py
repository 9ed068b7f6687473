"""Java types as the resolver reasons about them: written (parsed from source text, not yet looked
up) and resolved (`JType`: a project class by its fqn, a JDK or library class by its qualified or
simple name, a primitive, an array), with type arguments, and substitution of type variables."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tenure.structural.resolve import SymbolInfo

PRIMITIVES = frozenset({"int", "long", "short", "byte", "char", "boolean", "float", "double", "void"})
BOXES = {"int": "java.lang.Integer", "long": "java.lang.Long", "short": "java.lang.Short",
         "byte": "java.lang.Byte", "char": "java.lang.Character", "boolean": "java.lang.Boolean",
         "float": "java.lang.Float", "double": "java.lang.Double"}
# Widening primitive conversions (JLS 5.1.2): a parameter of the key type takes an argument of these.
WIDER_THAN = {"short": {"byte"}, "int": {"byte", "short", "char"}, "long": {"byte", "short", "char", "int"},
              "float": {"byte", "short", "char", "int", "long"},
              "double": {"byte", "short", "char", "int", "long", "float"}}
OBJECT = "java.lang.Object"
STRING = "java.lang.String"
LOCAL_CLASS = "%"  # a type written in the file that names a local class: `%Outer$1Local` (extractors/java.py)

_TOKEN = re.compile(r"%?[A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*|\[\s*\]|\.\.\.|[<>,?&|]")
_ANNOTATION = re.compile(r"@[A-Za-z_$][\w$.]*(\([^()]*\))?")


@dataclass(frozen=True)
class Written:
    """A type as written: `Map<String, List<Ledger>>[]` -> Written("Map", (Written("String"), ...), 1).
    A wildcard is its bound (`? extends T` -> T, `? super T` -> T, `?` -> Object)."""

    name: str
    args: tuple[Written, ...] = ()
    dims: int = 0


def parse(text: str) -> Written | None:
    """A type as written, or None when it is not one (a union of catch types gives its first)."""
    tokens = _TOKEN.findall(_ANNOTATION.sub(" ", text))
    if not tokens:
        return None
    parser = _Parser(tokens)
    try:
        return parser.type()
    except IndexError:
        return None


class _Parser:
    def __init__(self, tokens: list[str]) -> None:
        self.tokens, self.i = tokens, 0

    def peek(self) -> str:
        return self.tokens[self.i] if self.i < len(self.tokens) else ""

    def take(self) -> str:
        token = self.tokens[self.i]
        self.i += 1
        return token

    def type(self) -> Written:
        token = self.take()
        if token == "?":
            if self.peek() in ("extends", "super"):
                self.take()
                return self.type()
            return Written(OBJECT)
        name = "".join(token.split())
        args: list[Written] = []
        if self.peek() == "<":
            self.take()
            while self.peek() not in (">", ""):
                args.append(self.type())
                if self.peek() == ",":
                    self.take()
            self.take()
            if self.peek().startswith("."):  # `Outer<T>.Inner`
                name += self.take()
        while self.peek() == "&":  # an intersection bound: its first type
            self.take()
            self.type()
        dims = 0
        while self.peek().startswith("[") or self.peek() == "...":
            self.take()
            dims += 1
        return Written(name, tuple(args), dims)


@dataclass(frozen=True)
class JType:
    """A resolved type. `project`: `name` is the fqn of a project type. `kind`: what an expression of
    it denotes: "" a value of the type, "type" the type itself (`Util` in `Util.twice()`), "package"
    a package name (`java.util` of `java.util.List`), "var" a type variable not substituted (`name`
    is the variable; `note` holds its bound), "lambda" and "ref" a lambda or method reference argument
    (`note`: the lambda's arity). `note`: what a value is known to hold beyond its type (a constant
    string, a reflective target, a Thread's Runnable: see runtime.py)."""

    name: str
    args: tuple[JType, ...] = ()
    dims: int = 0
    project: bool = False
    kind: str = ""
    note: tuple = ()

    @property
    def primitive(self) -> bool:
        return self.name in PRIMITIVES and not self.dims

    def element(self) -> JType:
        return JType(self.name, self.args, self.dims - 1, self.project) if self.dims else self

    def value(self) -> JType:
        """A value of this type (of a type named as an expression: `new Util()`), noting nothing."""
        return JType(self.name, self.args, self.dims, self.project) if self.kind or self.note else self

    def noting(self, *note: object) -> JType:
        return JType(self.name, self.args, self.dims, self.project, self.kind, tuple(note))

    def __str__(self) -> str:
        args = f"<{', '.join(map(str, self.args))}>" if self.args else ""
        return f"{self.name}{args}{'[]' * self.dims}"


Substitution = dict[str, JType]


def substitute(t: JType, subst: Substitution) -> JType:
    """`t` with the type variables `subst` binds replaced (`List<T>` with T=Ledger: `List<Ledger>`)."""
    if not subst:
        return t
    if t.kind == "var":
        found = subst.get(t.name)
        if found is None:
            return t
        return JType(found.name, found.args, found.dims + t.dims, found.project, found.kind, found.note)
    if not t.args:
        return t
    return JType(t.name, tuple(substitute(a, subst) for a in t.args), t.dims, t.project, t.kind, t.note)


def erased(t: JType) -> JType | None:
    """A type variable left unbound as what is known of it: its bound (None when it has none)."""
    if t.kind != "var":
        return t
    bound = t.note[0] if t.note else None
    return JType(bound.name, bound.args, bound.dims + t.dims, bound.project) if isinstance(bound, JType) else None


def assignable_primitive(param: str, arg: str) -> bool:
    """Whether an argument of primitive (or boxed) type `arg` may be passed for primitive `param`."""
    unboxed = next((p for p, box in BOXES.items() if box == arg), arg)
    return param == unboxed or unboxed in WIDER_THAN.get(param, ())


Types = list[JType]  # what an expression may be; [] when that is not known


@dataclass(frozen=True)
class Method:
    """A method or constructor a call may reach, its types seen from the receiver (`List<Ledger>.get`
    returns Ledger). `sym` is None for the JDK's (never a target; they type what they return)."""

    name: str
    sym: SymbolInfo | None
    params: tuple[JType, ...]
    returns: JType | None  # None: a constructor
    tparams: tuple[str, ...] = ()
    flags: str = ""
    owner: str = ""  # the declaring type

    @property
    def static(self) -> bool:
        return "s" in self.flags

    @property
    def varargs(self) -> bool:
        return "v" in self.flags

    def param(self, i: int, spread: bool = True) -> JType | None:
        """The type argument `i` is passed for; `spread`: a varargs method's trailing arguments are its
        array's elements (else, as javac tries first, the array is passed whole)."""
        if spread and self.varargs and self.params and i >= len(self.params) - 1:
            return self.params[-1].element()
        return self.params[i] if i < len(self.params) else None


@dataclass
class Call:
    """What a call site reaches: the methods chosen, and whether the receiver's type was unknown
    (then they are every project method of that name and arity: a guess)."""

    methods: list[Method]
    unknown: bool = False
    owners: tuple[JType, ...] = ()
