"""Finding symbols by name: a full name, a unique suffix, or the candidates when it is not unique."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from tenure.namespace.symbols import Symbol, short_names, supertypes, symbols_called, symbols_named
from tenure.storage import Database
from tenure.structural.languages import is_declaration, language_table
from tenure.structural.naming import has_suffix, short_name

NEAR = 3  # symbols a lookup that found none suggests
NEAR_CUTOFF = 0.8  # difflib's ratio: one letter off in a name of ten


@dataclass
class SymbolMatch:
    fqn: str
    kind: str
    language: str
    path: str
    line: int
    generated: bool = False
    member_of: str = ""  # the class it was asked of, when it is inherited from a super type of it

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class Lookup:
    query: str
    how: str  # exact | suffix | inherited (a member of a super type) | ambiguous | none
    matches: list[SymbolMatch]
    total: int = 0  # how many symbols (full names) matched: more than `matches` names when the list was cut short
    near: list[str] = field(default_factory=list)  # when none matched: symbols named almost so (a typo)

    @property
    def unique(self) -> SymbolMatch | None:
        fqns = {m.fqn for m in self.matches}
        return self.matches[0] if len(fqns) == 1 else None

    def message(self) -> str:
        if self.how == "none":
            return f"no symbol matches {self.query!r}" + (f" (did you mean {' or '.join(self.near)}?)"
                                                          if self.near else "")
        if self.how == "inherited" and (m := self.unique) is not None:
            return (f"{m.member_of}.{short_name(m.fqn)} is inherited: defined as {m.fqn} ({m.path}:{m.line})")
        if self.how == "ambiguous":
            names = sorted({m.fqn for m in self.matches})
            shown = f" (the first {len(names)} listed)" if self.total > len(names) else ""
            more = f" (+{len(names) - 10} more)" if len(names) > 10 else ""
            return (f"{self.query!r} names {max(self.total, len(names))} symbols{shown}: " + ", ".join(names[:10])
                    + more)
        return ""

    def as_dict(self) -> dict:
        return {"query": self.query, "how": self.how, "matches": [m.as_dict() for m in self.matches],
                "total": self.total, **({"near": self.near} if self.near else {})}


def find_symbols(db: Database, query: str, limit: int = 50) -> Lookup:
    query = query.strip().lstrip(".")  # (`.retry`: a suffix written as one)
    exact = _code_first(symbols_named(db, [query]))
    if exact:
        return Lookup(query, "exact", _matches(exact), 1)
    found = _code_first([s for s in symbols_called(db, short_name(query)) if has_suffix(s.fqn, query)])
    if not found:
        return _inherited(db, query, limit) or Lookup(query, "none", [], near=_near(db, query))
    how = "suffix" if len({s.fqn for s in found}) == 1 else "ambiguous"
    # (a name defined twice, `if sys.version_info …: def f` / `else: def f`, is one symbol)
    return Lookup(query, how, _matches(found[:limit]), len({s.fqn for s in found}))


def _near(db: Database, query: str) -> list[str]:
    """The symbols whose short name is close to the one asked for (`AddComand`: Command.AddCommand),
    the closest first, code before declarations."""
    import difflib

    owner = query.rpartition(".")[0].rpartition(".")[2]  # (its class or module, however much of it is written)
    close = difflib.get_close_matches(short_name(query), short_names(db), n=NEAR, cutoff=NEAR_CUTOFF)
    found = [(name, s.fqn) for name in close for s in _code_first(symbols_called(db, name))]
    owned = [fqn for name, fqn in found if owner and has_suffix(fqn, f"{owner}.{name}")]  # `QuerySet.filtr`
    return list(dict.fromkeys(owned or [fqn for _, fqn in found]))[:NEAR]


def _inherited(db: Database, query: str, limit: int) -> Lookup | None:
    """`Flask.route` where Flask defines no `route`: the member of the nearest super type that does,
    for each type the rest of the name finds."""
    owner, _, member = query.rpartition(".")
    if not owner or not member:
        return None
    named = symbols_called(db, member)
    matches: list[SymbolMatch] = []
    for cls in find_symbols(db, owner, limit).matches:
        spec = language_table().get(cls.language)
        if spec is None or cls.kind not in spec.type_kinds:
            continue
        for above in supertypes(db, cls.fqn):
            found = [s for s in named if s.parent == above]
            if found:
                matches += [replace(m, member_of=cls.fqn) for m in _matches(found)]
                break
    if not matches:
        return None
    how = "inherited" if len({m.fqn for m in matches}) == 1 else "ambiguous"
    return Lookup(query, how, matches[:limit], len(matches))


def _code_first(symbols: list[Symbol]) -> list[Symbol]:
    """Definitions in code before those in stubs and .d.ts files (stable otherwise): the first match is
    where a name is shown and the example given of a name that is not unique, and a declaration's own
    dependants are few (its callers are linked to the code)."""
    return sorted(symbols, key=lambda s: is_declaration(s.path or ""))


def _matches(symbols: list[Symbol]) -> list[SymbolMatch]:
    return [SymbolMatch(s.fqn, s.kind, s.language, s.path, s.start, s.generated) for s in symbols]
