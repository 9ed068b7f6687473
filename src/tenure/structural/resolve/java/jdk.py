"""The JDK as the resolver knows it (jdk.toml): generic types, their super types and the signatures
a project's values flow through. Names here are qualified (`java.util.List`)."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from tenure.structural.resolve.java.types import PRIMITIVES, Written, parse

_SIGNATURE = re.compile(r"^(static\s+)?(?:<([^()]*?)>\s+)?(?:(.+?)\s+)?(\w+)\((.*)\)$")
# Types of java.lang, which every Java file sees by their simple names.
JAVA_LANG = frozenset({"Object", "String", "Class", "Integer", "Long", "Short", "Byte", "Character", "Boolean",
                       "Float", "Double", "Void", "Number", "Math", "System", "Thread", "Runnable", "Iterable",
                       "Comparable", "AutoCloseable", "Throwable", "Exception", "RuntimeException", "Error",
                       "StringBuilder", "CharSequence", "Enum", "Record", "ThreadLocal", "Override", "Deprecated"})


@dataclass(frozen=True)
class Signature:
    name: str  # "<init>" for a constructor
    params: tuple[Written, ...]
    returns: Written | None  # None: a constructor
    tparams: tuple[str, ...] = ()
    static: bool = False
    varargs: bool = False


@dataclass
class JdkType:
    name: str
    params: tuple[str, ...] = ()
    supers: tuple[Written, ...] = ()
    methods: dict[str, list[Signature]] = field(default_factory=dict)
    sam: Signature | None = None  # the single abstract method of a functional interface


@dataclass
class Jdk:
    types: dict[str, JdkType]
    simple: dict[str, str]  # simple (or `Outer.Inner`) name -> qualified

    def qualified(self, name: str) -> str:
        """The qualified name of a JDK type written by its simple name (java.lang's, or this
        table's), else the name as it is."""
        if name in self.simple:
            return self.simple[name]
        return f"java.lang.{name}" if name in JAVA_LANG else name

    def package_member(self, package: str, name: str) -> str | None:
        """`name` in a JDK package a wildcard import names (`import java.util.*;`)."""
        found = f"{package}.{name}"
        return found if found in self.types else None


@cache
def jdk() -> Jdk:
    raw = tomllib.loads(resources.files("tenure.structural.resolve.java").joinpath("jdk.toml").read_text("utf-8"))
    names = list(raw["types"])
    simple: dict[str, str] = {}
    for name in names:
        parts = name.split(".")
        cut = next(i for i, p in enumerate(parts) if p[:1].isupper())  # the package ends at the first type
        simple.setdefault(".".join(parts[cut:]), name)
    types = {}
    for name, entry in raw["types"].items():
        t = JdkType(name, tuple(entry.get("params", ())))
        t.supers = tuple(w for s in entry.get("supers", ()) if (w := _qualify(parse(s), simple, t.params)))
        sam = entry.get("sam")
        for text in ([sam] if sam else []) + list(entry.get("methods", ())):
            sig = _signature(text, simple, t.params)
            t.methods.setdefault(sig.name, []).append(sig)
            if text == sam:
                t.sam = sig
        types[name] = t
    return Jdk(types, simple)


def _signature(text: str, simple: dict[str, str], outer: tuple[str, ...]) -> Signature:
    m = _SIGNATURE.match(text.strip())
    if m is None:
        raise ValueError(f"jdk.toml: not a signature: {text}")
    static, tparams_text, returns, name, params_text = m.groups()
    tparams = tuple(p.split()[0] for p in _split(tparams_text or ""))
    variables = (*outer, *tparams)
    params = []
    varargs = False
    for p in _split(params_text):
        varargs = p.endswith("...")
        written = _qualify(parse(p), simple, variables)
        if written is not None:
            params.append(written)
    constructor = name == "new" and returns is None
    return Signature("<init>" if constructor else name, tuple(params),
                     None if constructor else _qualify(parse(returns or "void"), simple, variables),
                     tparams, bool(static), varargs)


def _qualify(w: Written | None, simple: dict[str, str], variables: tuple[str, ...]) -> Written | None:
    if w is None:
        return None
    name = w.name
    if name not in variables and name not in PRIMITIVES:
        name = simple.get(name) or (f"java.lang.{name}" if name in JAVA_LANG else name)
    return Written(name, tuple(a for x in w.args if (a := _qualify(x, simple, variables))), w.dims)


def _split(text: str) -> list[str]:
    """Split at the commas outside angle brackets."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    last = text[start:].strip()
    return [*out, last] if last else out


