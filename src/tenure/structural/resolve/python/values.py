"""The abstract values Python names point to: (kind, module, key)."""

from __future__ import annotations

# A value: (kind, module, key). Kinds:
FUNC, BOUND, CLASS, INST, MODULE = "f", "b", "c", "i", "m"  # key: qualname (module: "")
EXT, EXT_INST, BUILTIN, TYPE_METHOD = "x", "xi", "B", "T"  # key: dotted name
CONST, SOME_STR_KIND, SOME_BYTES_KIND, SEQ, DICT, GEN, SUPER = "k", "K", "Kb", "l", "d", "g", "S"
Value = tuple[str, str, object]

EMPTY: frozenset = frozenset()
