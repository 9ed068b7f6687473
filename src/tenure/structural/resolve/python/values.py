"""The abstract values Python names point to: (kind, module, key)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

# A value: (kind, module, key). Kinds:
FUNC, BOUND, CLASS, INST, MODULE = "f", "b", "c", "i", "m"  # key: qualname (module: "")
EXT, EXT_INST, BUILTIN, TYPE_METHOD = "x", "xi", "B", "T"  # key: dotted name
CONST, SOME_STR_KIND, SOME_BYTES_KIND, SEQ, DICT, GEN, SUPER = "k", "K", "Kb", "l", "d", "g", "S"
# Beside a declared instance (an annotation's): it may be an instance of a subclass, so a method
# called on it may run a subclass's override. A mark only the callee lookup reads (key: qualname).
OPEN = "o"
Value = tuple[str, str, object]

EMPTY: frozenset = frozenset()

# None's key in a constant: None itself hashes by its address (Python 3.11), so every set holding it
# would iterate in another order from one process to the next, and a capped set or the fixpoint's
# budget would then keep other values. (A literal is never an empty tuple.)
NONE_KEY = ()
NONE: Value = (CONST, "", NONE_KEY)


def constant(literal: object) -> Value:
    """The value of a literal (str, int, float, bool, None)."""
    return NONE if literal is None else (CONST, "", literal)

# Externals an annotation may name that are no class of the value: typing's forms and protocols
_NOT_A_CLASS = ("typing.", "typing_extensions.", "collections.abc.", "abc.", "types.")


def declared(types: Iterable[Value], classes: Iterable[Value]) -> frozenset:
    """What an annotation declares the value is (see the extractor's `A`): an instance of each
    class `types` names (of the project, or external by name; `Self` is one already; a `str` or
    `bytes` some string or bytes) with the mark that it may be a subclass's (`OPEN`), and the
    classes `classes` names."""
    out: set[Value] = set()
    for value in types:
        kind = value[0]
        if kind == CLASS or kind == EXT and not str(value[2]).startswith(_NOT_A_CLASS):
            out.add((INST if kind == CLASS else EXT_INST, value[1], value[2]))
        elif kind == INST:
            out.add(value)
        if kind in (CLASS, INST):
            out.add((OPEN, value[1], value[2]))
        elif kind == BUILTIN and value[2] in ("str", "bytes"):
            out.add((SOME_STR_KIND if value[2] == "str" else SOME_BYTES_KIND, "", value[2]))
    out.update(v for v in classes if v[0] in (CLASS, EXT))
    return frozenset(out)


def allowed(declared_values: frozenset, value: Value, derives: Callable[[Value, Value], bool]) -> bool:
    """Whether an annotated assignment's value is one its annotation allows: an instance of the
    project whose class derives from a declared one."""
    return value[0] == INST and any(
        d[0] == INST and derives((CLASS, value[1], value[2]), (CLASS, d[1], d[2])) for d in declared_values)
