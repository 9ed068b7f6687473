"""A file's data-flow program (extractors/javascript.py), decoded once and kept while its encoded
form is the same object (the facts a process holds)."""

from __future__ import annotations

from collections import OrderedDict

import msgspec

from tenure.structural.facts import FileFacts
from tenure.structural.naming import qualify
from tenure.structural.resolve.javascript.values import SAME

PROGRAMS_KEPT = 512
_DECODED: OrderedDict[str, tuple[bytes | None, Program]] = OrderedDict()  # path -> (the encoded flow, its program)


class Program:
    """Scopes, statements and sites of one file (see the extractor's docstring)."""

    def __init__(self, facts: FileFacts) -> None:
        raw = msgspec.msgpack.decode(facts.flow) if facts.flow is not None else {}
        self.module = facts.module
        self.scopes: list[list] = raw.get("scopes") or [["", "module", -1, [], ""]]
        self.stmts: list[list] = raw.get("stmts", [])
        self.sites: list[list] = raw.get("sites", [])
        self.nvars: int = raw.get("nvars", 0)
        self.generics: dict[str, list[str]] = raw.get("generics", {})
        # the statements that may not run once per call of their function (None: facts written before
        # the extractor told, so nothing is known to run)
        self.conditional: frozenset[int] | None = frozenset(raw["cond"]) if "cond" in raw else None
        self.reassigned: frozenset[int] = frozenset(raw.get("reassigned", ()))
        self.unread: list[list] = raw.get("unread", [])  # [line, text]: imports the extractor could not read
        self.stars: list[str] = [s[1] for s in self.stmts if s[0] == "star"]
        self.names = _names(self.scopes)
        self.by_name: dict[str, list[int]] = {}  # a value's name -> its scopes (a qualname: every scope of it)
        for idx, scope in enumerate(self.scopes):
            if idx:
                self.by_name.setdefault(scope[0], []).append(idx)
                if self.names[idx] != scope[0]:
                    self.by_name[self.names[idx]] = [idx]
        # (asked for every call the fixpoint follows: joined once here)
        self.flags_by_name = {q: "".join(self.scopes[i][4] for i in idxs) for q, idxs in self.by_name.items()}
        # a class scope -> its own class, whose instances `this` in its field initialisers is
        self.classes = {idx: scope[0] for idx, scope in enumerate(self.scopes) if scope[1] == "class"}
        self.passes_through = _passes_through(self.scopes, self.stmts)


    def fqn(self, scope: int) -> str:
        qualname = self.scopes[scope][0]
        return qualify(self.module, qualname) if qualname else self.module

    def qualname(self, scope: int) -> str:
        return self.scopes[scope][0]

    def name(self, scope: int) -> str:
        """The name of the scope's function in values (values.SAME)."""
        return self.names[scope]

    def flags(self, scope: int) -> str:
        return self.scopes[scope][4]

    def params(self, scope: int) -> list[list]:
        return self.scopes[scope][3]

    def parent(self, scope: int) -> int:
        return self.scopes[scope][2]

    def flags_of(self, name: str) -> str:
        """The flags of every scope of that name (a getter and a setter of one property share it)."""
        return self.flags_by_name.get(name, "")

    def scopes_of(self, name: str) -> list[int]:
        """The scopes of a function's name in a value: its own, or every scope of a qualname (a value
        the project's symbols made)."""
        return self.by_name.get(name, [])

    def names_of(self, qualname: str) -> list[str]:
        """The names in values of the functions a qualname stands for: each one's, where others of
        the file share it (a value the project's symbols made names the qualname alone)."""
        return sorted({self.names[i] for i in self.by_name.get(qualname, ())}) or [qualname]


def _names(scopes: list[list]) -> list[str]:
    """Each scope's name in values: its qualname, unless other functions of the file have it too (two
    object literals' `init`, two `function f` in two branches), then its place among them as well, so
    what is known of one (its parameters, returns, what it does with what it is given) is not the
    other's. A getter and a setter of one property keep sharing it: a read or a write finds the one
    it runs by its flags."""
    by_qualname: dict[str, list[int]] = {}
    for idx, scope in enumerate(scopes):
        if idx and scope[1] != "class":
            by_qualname.setdefault(scope[0], []).append(idx)
    names = [scope[0] for scope in scopes]
    for qualname, idxs in by_qualname.items():
        if len(idxs) > 1 and not all(set(scopes[i][4]) & {"G", "S"} for i in idxs):
            for n, idx in enumerate(idxs):
                names[idx] = f"{qualname}{SAME}{n}"
    return names


def _passes_through(scopes: list[list], stmts: list[list]) -> dict[int, list[int]]:
    """Functions whose every return gives back one of their own parameters, untouched (`return arg`):
    scope -> those parameters' positions. A call of one returns what that call passes there."""
    position = {p[0]: (idx, i) for idx, scope in enumerate(scopes) for i, p in enumerate(scope[3]) if not p[1]}
    reassigned = {v for s in stmts if s[0] in ("=", "for") for v in _ints(s[2])}  # (more than vars: safe)
    returned: dict[int, list[int] | None] = {}
    for stmt in stmts:
        if stmt[0] in ("y", "r") and returned.get(stmt[1], ()) is not None:
            expr = stmt[2] if stmt[0] == "r" else None
            reads = [expr] if isinstance(expr, int) else expr[1] if isinstance(expr, list) and expr[0] == "v" else None
            if reads is None or any(position.get(v, (None,))[0] != stmt[1] or v in reassigned for v in reads):
                returned[stmt[1]] = None
            else:
                returned.setdefault(stmt[1], []).extend(position[v][1] for v in reads)
    return {idx: sorted(set(found)) for idx, found in returned.items() if found and "g" not in scopes[idx][4]}


def _ints(part: object) -> list[int]:
    if isinstance(part, int):
        return [part]
    return [i for item in part for i in _ints(item)] if isinstance(part, list) else []


def program_of(facts: FileFacts) -> Program:
    found = _DECODED.get(facts.path)
    if found is not None and found[0] is facts.flow and found[1].module == facts.module:
        _DECODED.move_to_end(facts.path)
        return found[1]
    program = Program(facts)
    _DECODED[facts.path] = (facts.flow, program)
    if len(_DECODED) > PROGRAMS_KEPT:
        _DECODED.popitem(last=False)
    return program
