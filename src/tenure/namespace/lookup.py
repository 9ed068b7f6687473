"""Finding symbols by name: a full name, a unique suffix, or the candidates when it is not unique."""

from __future__ import annotations

from dataclasses import dataclass

from tenure.namespace.symbols import Symbol, symbols_called, symbols_named
from tenure.storage import Database
from tenure.structural.naming import has_suffix, short_name


@dataclass
class SymbolMatch:
    fqn: str
    kind: str
    language: str
    path: str
    line: int
    generated: bool = False

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class Lookup:
    query: str
    how: str  # exact | suffix | ambiguous | none
    matches: list[SymbolMatch]
    total: int = 0  # how many symbols matched: more than `matches` lists when the list was cut short

    @property
    def unique(self) -> SymbolMatch | None:
        fqns = {m.fqn for m in self.matches}
        return self.matches[0] if len(fqns) == 1 else None

    def message(self) -> str:
        if self.how == "none":
            return f"no symbol matches {self.query!r}"
        if self.how == "ambiguous":
            names = sorted({m.fqn for m in self.matches})
            shown = f" (the first {len(self.matches)} listed)" if self.total > len(self.matches) else ""
            more = f" (+{len(names) - 10} more)" if len(names) > 10 else ""
            return (f"{self.query!r} names {max(self.total, len(names))} symbols{shown}: " + ", ".join(names[:10])
                    + more)
        return ""

    def as_dict(self) -> dict:
        return {"query": self.query, "how": self.how, "matches": [m.as_dict() for m in self.matches],
                "total": self.total}


def find_symbols(db: Database, query: str, limit: int = 50) -> Lookup:
    query = query.strip().lstrip(".")  # (`.retry`: a suffix written as one)
    exact = symbols_named(db, [query])
    if exact:
        return Lookup(query, "exact", _matches(exact), len(exact))
    found = [s for s in symbols_called(db, short_name(query)) if has_suffix(s.fqn, query)]
    if not found:
        return Lookup(query, "none", [])
    how = "suffix" if len({s.fqn for s in found}) == 1 else "ambiguous"
    return Lookup(query, how, _matches(found[:limit]), len(found))


def _matches(symbols: list[Symbol]) -> list[SymbolMatch]:
    return [SymbolMatch(s.fqn, s.kind, s.language, s.path, s.start, s.generated) for s in symbols]
