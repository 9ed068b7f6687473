"""Where a function escapes as a value: a site that takes its name without calling it (a keyword
argument, an argument, a dict item, a store into an attribute or item, a return). Whatever calls it
from there (a template global, a callback registry, a framework) the graph may not follow, so each
such site is a reason what-breaks' count is a lower bound, named with its file and line.

Matched by name, as the extractor saw them (`FileFacts.escapes`, the `escapes` table), and narrowed
where the text tells: a bare name is the definition it finds from the site (the nearest enclosing one,
else the file's import of it); a member taken from `self`/`cls` belongs to the class the site is written in,
so it is this symbol's only when that class is of the symbol's class's hierarchy; a method is never
taken by its bare name, nor as a member of a module. (Receivers meaning "this object" are the
languages' `self_names`.)"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

from tenure.storage import Database
from tenure.structural.graph import related_types
from tenure.structural.languages import language_table
from tenure.structural.store import StructuralStore


@dataclass(frozen=True)
class Escape:
    path: str
    line: int
    how: str  # keyword | argument | item | stored | returned | default (a parameter's default value)
    receiver: str
    detail: str  # the text that takes it
    scope: str  # the definition it is taken in

    def as_dict(self) -> dict:
        return asdict(self)


def escapes_of(db: Database, fqn: str, languages: list[str],
               hierarchy: Callable[[str], set[str]] | None = None) -> list[Escape]:
    """The sites in code of these languages that take the function or method `fqn` as a value, in
    path and line order (none for any other kind of symbol). `hierarchy`: a class's related types, when
    the caller has them (what-breaks asks them for its dynamic sites too)."""
    rows = db.query("SELECT name, kind, parent_fqn, language FROM symbols WHERE fqn = ? LIMIT 1", (fqn,))
    if not rows or rows[0]["kind"] not in ("function", "method"):
        return []
    name, parent = rows[0]["name"], rows[0]["parent_fqn"]
    spec = language_table().get(rows[0]["language"])
    type_kinds = tuple(spec.type_kinds) if spec is not None else ()
    sites = [Escape(r["path"], r["line"], r["how"], r["receiver"], r["detail"], r["scope"]) for r in db.query(
        "SELECT f.path, e.line, e.how, e.receiver, e.detail, e.scope FROM escapes e JOIN files f ON f.id = e.file_id"
        f" WHERE e.name = ? AND f.language IN {db.each} ORDER BY f.path, e.line", (name, db.many(languages)))]
    bare = _by_bare_name(db, fqn, parent, [site for site in sites if not site.receiver])
    members = [site for site in sites if site.receiver]
    own = {n for language in languages if (s := language_table().get(language)) for n in s.self_names}
    if _kind_of(db, parent) not in type_kinds:  # (a member of `self` is a method)
        return sorted([*bare, *(site for site in members if site.receiver not in own)], key=_order)
    # a method is taken through an object: never by its bare name, nor from a module; from `self`,
    # only in its class's hierarchy
    modules = _modules_named(db, {site.receiver for site in members})
    family = (hierarchy or (lambda cls: related_types(db, cls)))(parent) \
        if any(site.receiver in own for site in members) else set()
    return [site for site in members if site.receiver not in modules
            and (site.receiver not in own or _enclosing_type(db, site.scope, type_kinds) in family)]


def _by_bare_name(db: Database, fqn: str, parent: str, sites: list[Escape]) -> list[Escape]:
    """The sites whose bare name is the function's: where the name, looked up from the site, is this
    function. The nearest definition of the name in the scopes enclosing the site (its function's, the
    functions' around it, its module's; a class body's names are not in scope) decides; where none
    is, an import of the name into the site's file does (the function, or another module's symbol);
    with neither, a name alone may be it (a global of scripts). Of a local function, only where it is
    visible."""
    name = fqn.rpartition(".")[2]
    scopes: dict[str, str | None] = {}  # a site's scope -> the definition its name finds there
    imported: dict[str, tuple[set[str | None], bool]] = {}  # a site's file -> what its imports bind the name to
    store = StructuralStore(db)
    kept = []
    for site in sites:
        if site.scope not in scopes:
            scopes[site.scope] = _nearest(db, site.scope, name)
        found = scopes[site.scope]
        if found is None:
            if site.path not in imported:
                imported[site.path] = _imported(store, site.path, name)
            bound, star = imported[site.path]
            found = fqn if fqn in bound or star or not bound else None
        if found == fqn:
            kept.append(site)
    if _kind_of(db, parent) in ("function", "method"):
        kept = [site for site in kept if site.scope == parent or site.scope.startswith(parent + ".")]
    return kept


def _imported(store: StructuralStore, path: str, name: str) -> tuple[set[str | None], bool]:
    """What the imports of a file bind `name` to (None: a symbol outside the project), by the name
    each binds (`import { helper as h }` binds h, not helper), and whether a star import may bind it
    too (then the name alone may be any function of it)."""
    db, facts = store.db, store.load_facts(path)
    imports = facts.imports if facts else None
    if imports is None:  # no facts: the imports' edges, by the name they import
        return {r["dst_fqn"] for r in db.query(
            "SELECT dst_fqn FROM edges WHERE path = ? AND relation = 'imports' AND dst_name = ?", (path, name))}, False
    bound: set[str | None] = set()
    for imp in imports:
        if imp.wildcard or not imp.name or (imp.alias or imp.name) != name:
            continue
        targets = db.query("SELECT dst_fqn, dst_name FROM edges WHERE path = ? AND relation = 'imports' AND line = ?",
                           (path, imp.line))
        named = {r["dst_fqn"] for r in targets if r["dst_name"] == imp.name}
        bound |= named or {r["dst_fqn"] for r in targets} or {None}
    return bound, any(imp.wildcard for imp in imports)


def _nearest(db: Database, scope: str, name: str) -> str | None:
    """The definition `name` finds from code written in `scope`: of the nearest enclosing function or
    module that defines it (None: none)."""
    seen = set()
    while scope and scope not in seen:  # (a parent is a prefix of its child's name: no cycle, but no trust either)
        seen.add(scope)
        rows = db.query("SELECT kind, parent_fqn FROM symbols WHERE fqn = ? LIMIT 1", (scope,))
        if not rows:
            return None
        kind = rows[0]["kind"]
        if kind in ("function", "method", "module") and \
                db.query("SELECT 1 FROM symbols WHERE fqn = ? LIMIT 1", (f"{scope}.{name}",)):
            return f"{scope}.{name}"
        if kind == "module":  # (a package's names are not its modules')
            return None
        scope = rows[0]["parent_fqn"]
    return None


def _order(site: Escape) -> tuple[str, int]:
    return site.path, site.line


def _modules_named(db: Database, receivers: set[str]) -> set[str]:
    """The receivers, as written, that name a module of the project (`flask` of `flask.url_for`)."""
    names = sorted(r for r in receivers if r)
    if not names:
        return set()
    return {r["fqn"] for r in db.query(f"SELECT fqn FROM symbols WHERE kind = 'module' AND fqn IN {db.each}",
                                       (db.many(names),))}


def _kind_of(db: Database, fqn: str) -> str:
    rows = db.query("SELECT kind FROM symbols WHERE fqn = ? LIMIT 1", (fqn,))
    return rows[0]["kind"] if rows else ""


def _enclosing_type(db: Database, scope: str, type_kinds: tuple[str, ...]) -> str:
    """The innermost type the definition `scope` is written in (itself when it is one), "" for none."""
    seen = set()
    while scope and scope not in seen:  # (a parent is a prefix of its child's name: no cycle, but no trust either)
        seen.add(scope)
        rows = db.query("SELECT kind, parent_fqn FROM symbols WHERE fqn = ? LIMIT 1", (scope,))
        if not rows:
            return ""
        if rows[0]["kind"] in type_kinds:
            return scope
        scope = rows[0]["parent_fqn"]
    return ""
