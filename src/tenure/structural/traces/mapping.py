"""A span -> the symbol of the index it ran in.

In order: the `code.*` attributes (a full name, namespace + function, a unique suffix, then the
file path + line -> the innermost enclosing definition, or the function's name in that file); for
a server span left unmapped, its `http.route` -> the handler whose decorator or annotation carries
that route. Answers are cached per distinct attribute set: a million spans come from a few hundred
code locations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from tenure.structural.naming import has_suffix, short_name
from tenure.structural.store import StructuralStore, Symbol
from tenure.structural.traces import conventions as cv
from tenure.structural.traces.otlp import Span

CACHE_LIMIT = 200_000
_CALLABLE_KINDS = frozenset({"function", "method", "constructor"})


@dataclass(frozen=True)
class Mapped:
    fqn: str | None
    how: str  # full_name | suffix | file_line | file_function | route | "" (unmapped)


UNMAPPED = Mapped(None, "")


@dataclass
class SymbolIndex:
    """The indexed symbols that have a source file, as the mapper needs them."""

    root: Path
    store: StructuralStore
    by_fqn: dict[str, Symbol] = field(default_factory=dict)
    by_name: dict[str, list[Symbol]] = field(default_factory=dict)
    by_path: dict[str, list[Symbol]] = field(default_factory=dict)

    @classmethod
    def load(cls, store: StructuralStore, root: Path) -> SymbolIndex:
        index = cls(root, store)
        for d in store.defined_symbols():
            if d.kind == "module":
                continue
            index.by_fqn[d.fqn] = d
            index.by_name.setdefault(d.name, []).append(d)
            index.by_path.setdefault(d.path, []).append(d)
        return index


class SpanMapper:
    def __init__(self, index: SymbolIndex) -> None:
        self.index = index
        self._cache: dict[tuple, Mapped] = {}
        self._path_cache: dict[str, str | None] = {}
        self._routes: RouteTable | None = None

    def map(self, span: Span) -> Mapped:
        key = (span.kind, *map(span.attributes.get, _KEY_NAMES))  # one C-level pass: this runs per span
        found = self._cache.get(key)
        if found is None:
            if len(self._cache) >= CACHE_LIMIT:
                self._cache.clear()
            a = span.attributes
            found = self._cache[key] = self._map(span.kind, *(cv.first(a, names) for names in _KEY_ATTRIBUTES))
        return found

    def _map(self, kind: int, function: object, namespace: object, file_path: object, line: object,
             route: object, method: object) -> Mapped:
        path = self._indexed_path(file_path) if isinstance(file_path, str) else None
        if isinstance(function, str) and function:
            found = self._by_function(cv.normalize_function(function), namespace, path)
            if found.fqn:
                return found
        if path is not None:
            if isinstance(line, int) and line > 0:
                found = self._by_line(path, line)
                if found.fqn:
                    return found
            if isinstance(function, str) and function:
                name = short_name(cv.normalize_function(function))
                matches = [d for d in self.index.by_path.get(path, ()) if d.name == name]
                if len({d.fqn for d in matches}) == 1:
                    return Mapped(matches[0].fqn, "file_function")
        if kind == cv.SpanKind.SERVER and isinstance(route, str) and route:
            return self.routes.handler(route, method if isinstance(method, str) else "")
        return UNMAPPED

    def _by_function(self, function: str, namespace: object, path: str | None) -> Mapped:
        names = [function]
        if isinstance(namespace, str) and namespace:
            names.insert(0, f"{cv.normalize_function(namespace)}.{function}")
        for name in names:
            if name in self.index.by_fqn:
                return Mapped(name, "full_name")
        for name in names:
            candidates = [d for d in self.index.by_name.get(short_name(name), ()) if has_suffix(d.fqn, name)]
            if path is not None and len(candidates) > 1:
                candidates = [d for d in candidates if d.path == path]
            if len({d.fqn for d in candidates}) == 1:
                return Mapped(candidates[0].fqn, "suffix")
        return UNMAPPED

    def _by_line(self, path: str, line: int) -> Mapped:
        enclosing = [d for d in self.index.by_path.get(path, ()) if d.start <= line <= d.end]
        if not enclosing:
            return UNMAPPED
        innermost = min(enclosing, key=lambda d: (d.end - d.start, d.kind not in _CALLABLE_KINDS))
        return Mapped(innermost.fqn, "file_line")

    def _indexed_path(self, file_path: str) -> str | None:
        """The indexed path a span's (often absolute, deployment-side) path ends with."""
        if file_path not in self._path_cache:
            if len(self._path_cache) >= CACHE_LIMIT:
                self._path_cache.clear()
            parts = file_path.replace("\\", "/").split("/")
            self._path_cache[file_path] = next(
                (p for i in range(len(parts)) if (p := "/".join(parts[i:])) in self.index.by_path), None
            )
        return self._path_cache[file_path]

    @property
    def routes(self) -> RouteTable:
        if self._routes is None:  # built on the first server span that needs it: it reads source files
            self._routes = RouteTable.build(self.index)
        return self._routes


_KEY_ATTRIBUTES = (cv.FUNCTION, cv.NAMESPACE, cv.FILE_PATH, cv.LINE_NUMBER, cv.HTTP_ROUTE, cv.HTTP_METHOD)
_KEY_NAMES = tuple(name for names in _KEY_ATTRIBUTES for name in names)


@dataclass
class _Route:
    fqn: str
    text: str  # the decorator / annotation text, to tell GET from POST handlers of one route


class RouteTable:
    """Normalised route -> the handlers whose decorators (Python: `@app.get("/x")`) or annotations
    (Java, Kotlin, TypeScript: `@GetMapping("/x")`, under a class-level `@RequestMapping` prefix)
    carry it."""

    def __init__(self) -> None:
        self.routes: dict[str, list[_Route]] = {}

    @classmethod
    def build(cls, index: SymbolIndex) -> RouteTable:
        table = cls()
        decorations = _Decorations(index)
        for path, definitions in index.by_path.items():
            for d in definitions:
                if d.kind not in _CALLABLE_KINDS:
                    continue
                text = decorations.of(path, d)
                literals = cv.ROUTE_LITERAL.findall(text)
                if not literals:
                    continue
                parent = index.by_fqn.get(d.parent)
                prefixes = cv.ROUTE_LITERAL.findall(decorations.of(path, parent)) if parent else []
                for literal in literals:
                    for route in {literal, *(p.rstrip("/") + literal for p in prefixes)}:
                        table.routes.setdefault(cv.normalize_route(route), []).append(_Route(d.fqn, text))
        return table

    def handler(self, route: str, method: str) -> Mapped:
        normalized = cv.normalize_route(route)
        candidates = self.routes.get(normalized, [])
        if not candidates:
            # a prefix the code cannot show (a blueprint or router mounted elsewhere): a unique
            # registered route the span's route ends with
            suffixes = [r for key, rs in self.routes.items() if key != "/" and normalized.endswith(key) for r in rs]
            candidates = suffixes
        if len({r.fqn for r in candidates}) > 1 and method:
            # `@app.get(`, `methods=["GET"]`, and the CamelCase of `@GetMapping` / `@HttpGet`
            word = re.compile(rf"\b{re.escape(method)}\b", re.IGNORECASE)
            verb = re.escape(method.capitalize())
            camel = re.compile(rf"{verb}(?=[A-Z(])|(?<=[a-z]){verb}\b")
            candidates = [r for r in candidates if word.search(r.text) or camel.search(r.text)] or candidates
        fqns = {r.fqn for r in candidates}
        return Mapped(fqns.pop(), "route") if len(fqns) == 1 else UNMAPPED


class _Decorations:
    """The decorator or annotation text of a definition, from the stored facts (Python: decorators
    are recorded per definition) or else the source lines its annotations occupy."""

    def __init__(self, index: SymbolIndex) -> None:
        self.index = index
        self._python: dict[str, dict[int, str]] = {}
        self._lines: dict[str, list[str]] = {}

    def of(self, path: str, d: Symbol) -> str:
        if d.language == "python":
            return self._python_decorators(path).get(d.start, "")
        lines = self._source(path)
        taken: list[str] = []
        depth = 0
        for line in lines[max(d.start - 1, 0):]:
            stripped = line.strip()
            if depth <= 0 and not stripped.startswith("@"):
                break
            taken.append(stripped)
            depth += stripped.count("(") - stripped.count(")")
        return "\n".join(taken)

    def _python_decorators(self, path: str) -> dict[int, str]:
        if path not in self._python:
            facts = self.index.store.load_facts(path)
            self._python[path] = {
                d.start_line: "\n".join(d.decorators) for d in (facts.definitions if facts else ()) if d.decorators
            }
        return self._python[path]

    def _source(self, path: str) -> list[str]:
        if path not in self._lines:
            try:
                self._lines[path] = (self.index.root / path).read_text(errors="replace").splitlines()
            except OSError:
                self._lines[path] = []
        return self._lines[path]
