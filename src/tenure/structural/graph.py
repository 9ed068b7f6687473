"""The graph as all sources see it: tree-sitter's edges merged, when read, with what the other
sources (lsp, bytecode, di, trace) hold in `source_edges`.

A source row that names the same (src, dst, relation) as a tree-sitter edge, on the same line or
on no line, is evidence about that edge: `confirms` adds the source and lifts the tier to the
strongest one confirmed; `refutes` keeps the edge but marks it ruled out (`refuted_by`), so a
checker's verdict is shown with its provenance instead of deleting anything. A row that matches
no tree-sitter edge is an edge only that source knows (a call through an attribute, a generated
method, a trace between services).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import cache
from operator import itemgetter

from tenure.namespace.tiers import Relation, Tier
from tenure.storage import Database, derived
from tenure.structural.memo import Memo

TREE_SITTER = "tree-sitter"
# The detail of a dispatch candidate (a virtual or interface call that may run this implementation),
# followed by the method the call names: how what-breaks counts the dispatches nothing decided.
DISPATCH_DETAIL = "dispatch of "
# The detail of the override a dispatch runs when something decided it (never a `dispatch of`
# candidate): the class the receiver was made as, the one class the program instantiates.
ALLOCATION_DETAIL = "decided by the allocation: "
INSTANTIATED_DETAIL = "decided by instantiation: "
# The details of edges for calls made at run time that no call instruction spells: by the JVM on the
# program's behalf (a static initialiser, a thread's run(), serialization hooks), and by reflection
# to the target its constants name. A class file has no instruction for them to confirm or refute.
JVM_DETAIL = "jvm: "
REFLECTION_DETAIL = "reflection: "
_RANK = {t.value: i for i, t in enumerate(Tier)}


@dataclass
class GraphEdge:
    src: str
    dst: str | None
    relation: str
    tier: str
    path: str
    line: int
    name: str = ""
    detail: str = ""
    sources: list[str] = field(default_factory=list)
    refuted_by: list[str] = field(default_factory=list)
    contexts: list[str] = field(default_factory=list)  # profiles, services: where the evidence holds
    count: int = 0  # times observed (traces)
    first_seen: str = ""
    last_seen: str = ""
    generated: bool = False  # the dependant exists only in compiled or generated code

    @property
    def refuted(self) -> bool:
        """Ruled out by a checker and confirmed by nothing stronger than a name match."""
        return bool(self.refuted_by) and self.tier not in (Tier.RESOLVED, Tier.OBSERVED)

    def absorb(self, row: dict) -> None:
        if row["source"] not in self.sources:
            self.sources.append(row["source"])
        if row["verdict"] == "refutes":
            if row["source"] not in self.refuted_by:
                self.refuted_by.append(row["source"])
            return
        if _RANK[row["tier"]] < _RANK[self.tier]:
            self.tier = row["tier"]
        if row["context"] and row["context"] not in self.contexts:
            self.contexts.append(row["context"])
        self.count += row["count"]
        if row["first_seen"] and (not self.first_seen or row["first_seen"] < self.first_seen):
            self.first_seen = row["first_seen"]
        self.last_seen = max(self.last_seen, row["last_seen"])
        if row["detail"] and not self.detail:
            self.detail = row["detail"]

    def as_dict(self) -> dict:
        return {
            "src": self.src, "dst": self.dst, "name": self.name, "relation": self.relation, "tier": self.tier,
            "sources": sorted(self.sources), "refuted_by": sorted(self.refuted_by), "contexts": self.contexts,
            "count": self.count, "first_seen": self.first_seen, "last_seen": self.last_seen,
            "path": self.path, "line": self.line, "detail": self.detail, "generated": self.generated,
        }


_TS_SQL = "SELECT e.src_fqn, e.dst_fqn, e.dst_name, e.relation, e.tier, e.path, e.line, e.detail FROM edges e"
_SOURCE_SQL = "SELECT e.* FROM source_edges e"


def generated_symbols(db: Database) -> frozenset[str]:
    """The full names that compiled or generated code defines (bytecode's): their edges are marked
    `generated`. Read once per change of the data (through the partial index `symbols_generated`,
    store.py m013), not a lookup per edge read."""
    return derived(db, "generated symbols", lambda: frozenset(
        r[0] for r in db.rows("SELECT DISTINCT fqn FROM symbols WHERE generated != 0")))


def dependants_of(db: Database, fqns: Iterable[str]) -> list[GraphEdge]:
    """Every edge into one of `fqns` (not self loops), merged over all sources, refuted ones included."""
    where, params = f" WHERE e.dst_fqn IN {db.each} AND e.src_fqn != e.dst_fqn", (db.many(fqns),)
    edges = merge(db.query(_TS_SQL + where, params), db.query(_SOURCE_SQL + where, params), generated_symbols(db))
    edges.sort(key=_listed)
    return edges


def _listed(e: GraphEdge) -> tuple:
    """The order dependants are listed in: by relation, strongest tier first, then by dependant and line."""
    return e.relation, _RANK[e.tier], e.src, e.line


def all_edges(db: Database) -> Iterator[GraphEdge]:
    """Every edge of the project, merged: tree-sitter's in file order, then those only other sources know."""
    by_key: dict[tuple, list[dict]] = {}
    for row in db.iter_query(_SOURCE_SQL + " ORDER BY e.id"):
        by_key.setdefault((row["src_fqn"], row["dst_fqn"], row["relation"]), []).append(row)
    used: set[int] = set()
    generated = generated_symbols(db)
    for row in db.iter_query(_TS_SQL + " ORDER BY e.path, e.line, e.src_fqn, e.dst_fqn"):
        edge = _from_tree_sitter(row, generated)
        for srow in by_key.get((edge.src, edge.dst, edge.relation), ()):
            if srow["line"] in (0, edge.line):
                edge.absorb(srow)
                used.add(srow["id"])
        yield edge
    leftover = [r for rows in by_key.values() for r in rows if r["id"] not in used]
    yield from merge([], leftover, generated)


def merge(ts_rows: list[dict], source_rows: list[dict], generated: AbstractSet[str]) -> list[GraphEdge]:
    """The edges of tree-sitter's rows with what other sources' rows say of them, then the edges only
    those know; `generated`: the names compiled or generated code defines."""
    edges = [_from_tree_sitter(r, generated) for r in ts_rows]
    by_key: dict[tuple, list[GraphEdge]] = {}
    for e in edges:
        by_key.setdefault((e.src, e.dst, e.relation), []).append(e)
    only_source: dict[tuple, GraphEdge] = {}
    for row in source_rows:
        key = (row["src_fqn"], row["dst_fqn"], row["relation"])
        matches = [e for e in by_key.get(key, ()) if row["line"] in (0, e.line)]
        for e in matches:
            e.absorb(row)
        if matches or row["verdict"] == "refutes":
            continue  # a refutation of an edge tree-sitter never had says nothing
        edge = only_source.get((*key, row["line"]))
        if edge is None:
            edge = only_source[(*key, row["line"])] = GraphEdge(
                src=row["src_fqn"], dst=row["dst_fqn"], relation=row["relation"], tier=row["tier"],
                path=row["path"], line=row["line"], name=row["dst_name"], generated=row["src_fqn"] in generated,
            )
        edge.absorb(row)
    return edges + list(only_source.values())


def _from_tree_sitter(row: dict, generated: AbstractSet[str]) -> GraphEdge:
    return GraphEdge(
        src=row["src_fqn"], dst=row["dst_fqn"], relation=row["relation"], tier=row["tier"], path=row["path"] or "",
        line=row["line"] or 0, name=row["dst_name"], detail=row["detail"], sources=[TREE_SITTER],
        generated=row["src_fqn"] in generated,
    )


@dataclass(frozen=True)
class DynamicSite:
    """A call whose target is computed at run time, and what it may reach: globs over full names
    (`flask.views.MethodView.*`, `*.create_app`, `django.db.backends.*.base`), none when anything."""

    src: str
    path: str
    line: int
    detail: str
    reach: tuple[str, ...]

    def reaches(self, names: Names | Iterable[str]) -> bool:
        names = names if isinstance(names, Names) else Names(names)
        return any(names.match(g) for g in self.reach)

    def as_dict(self) -> dict:
        return {"src": self.src, "path": self.path, "line": self.line, "detail": self.detail, "reach": list(self.reach)}


def dynamic_sites(db: Database, languages: list[str] | None = None) -> list[DynamicSite]:
    """The dynamic call sites in code of these languages (of all, when None), in path and line order.
    A dynamic edge's name is what it may reach, globs separated by spaces ("" for anything); a site two
    sources both saw is one, reaching anything when one of them says so. Read once per change of the
    data: every what-breaks asks them all."""
    key = ("dynamic sites", None if languages is None else tuple(languages))
    return list(derived(db, key, lambda: tuple(_dynamic_sites(db, languages))))


def _dynamic_sites(db: Database, languages: list[str] | None) -> list[DynamicSite]:
    where, params = "", []
    if languages is not None:
        where, params = f" AND file_id IN (SELECT id FROM files WHERE language IN {db.each})", [db.many(languages)]
    rows = db.query("SELECT src_fqn, path, line, dst_name, detail FROM edges WHERE dst_fqn IS NULL AND tier = ?"
                    + where, (Tier.DYNAMIC.value, *params))
    where = where.replace("file_id IN (SELECT id FROM files", "src_fqn IN (SELECT fqn FROM symbols")
    rows += db.query("SELECT src_fqn, path, line, dst_name, detail FROM source_edges WHERE dst_fqn IS NULL"
                     " AND tier = ? AND verdict = 'confirms'" + where, (Tier.DYNAMIC.value, *params))
    by_site: dict[tuple[str, int], tuple[str, str, set[str]]] = {}
    for r in rows:
        path, detail, reach = by_site.setdefault((r["src_fqn"], r["line"] or 0), (r["path"] or "", r["detail"], set()))
        reach.update(r["dst_name"].split() or [""])
    return sorted((DynamicSite(src, path, line, detail, () if "" in reach else tuple(sorted(reach)))
                   for (src, line), (path, detail, reach) in by_site.items()), key=lambda d: (d.path, d.line, d.src))


class Names:
    """Full names a dynamic site's globs are matched against, held for the shapes globs take: a name
    (a set lookup), `prefix*` (a search of the sorted names), else one regex scan of all of them. A method
    of a deep hierarchy reaches thousands of names, and Django has hundreds of sites: one match per name
    and glob took 1.1 s for `Model.save`."""

    def __init__(self, names: Iterable[str]) -> None:
        self.exact = set(names)
        self.sorted = sorted(self.exact)
        self._reversed: list[str] | None = None
        self._text: str | None = None

    def match(self, glob: str) -> bool:
        head, star, rest = glob.partition("*")
        if not star:
            return glob in self.exact
        if not _begins(self.sorted, head):
            return False
        tail = rest.rpartition("*")[2]
        if not tail:  # `prefix*`, `prefix*middle*`
            return not rest or self._scan(glob)
        if self._reversed is None:
            self._reversed = sorted(name[::-1] for name in self.exact)
        # (no name ends as the glob does: the scan would find nothing, at 10 to 100 times the cost)
        return _begins(self._reversed, tail[::-1]) and self._scan(glob)

    def _scan(self, glob: str) -> bool:
        if self._text is None:
            self._text = "\n".join(self.sorted)
        return _line_glob(glob).search(self._text) is not None


def _begins(ordered: list[str], head: str) -> bool:
    """Whether a string of `ordered` (sorted) begins with `head`."""
    i = bisect.bisect_left(ordered, head)
    return i < len(ordered) and ordered[i].startswith(head)


@cache
def _line_glob(pattern: str) -> re.Pattern[str]:
    """The glob matching a whole line of a text (`.` never crosses a line's end). A leading or trailing `*`
    is left unanchored rather than spelled `^.*` / `.*$`: the same lines match, and the scan looks for
    the literal part instead of trying every line's start (a thousand times faster on Django's names)."""
    body = ".*".join(re.escape(part) for part in pattern.split("*"))
    body = body.removeprefix(".*") if pattern.startswith("*") else "^" + body
    body = body.removesuffix(".*") if pattern.endswith("*") else body + "$"
    return re.compile(body, re.MULTILINE)


def related_types(db: Database, cls: str) -> set[str]:
    """`cls`, the types it derives from and those deriving from it: a member looked up on a `cls`
    may be any of theirs."""
    return {cls, *supertypes(db, cls), *type_edges(db).subtypes(cls)}


def supertypes(db: Database, cls: str) -> list[str]:
    """The types `cls` derives from, nearest first, through every source's inherits and implements
    edges."""
    found: list[str] = []
    frontier = [cls]
    while frontier:
        step = [r["t"] for table, also in (("edges", ""), ("source_edges", " AND verdict = 'confirms'"))
                for r in db.query(f"SELECT dst_fqn AS t FROM {table} WHERE src_fqn IN {db.each}"
                                  f" AND relation IN {_TYPE_RELATIONS} AND dst_fqn IS NOT NULL{also} ORDER BY line",
                                  (db.many(frontier),))]
        frontier = [t for t in dict.fromkeys(step) if t != cls and t not in found]
        found += frontier
    return found


_TYPE_RELATIONS = f"('{Relation.INHERITS.value}', '{Relation.IMPLEMENTS.value}')"  # literal: the partial index


def type_edges(db: Database) -> TypeEdges:
    """The project's inherits and implements edges, read once per change of the data."""
    return derived(db, TypeEdges, lambda: TypeEdges(db))


class TypeEdges:
    """Every inherits and implements edge of the project, by the type derived from: what-breaks walks a
    class's subtypes for a method's overriders and for the names its dynamic sites and escapes may
    reach. In memory, each class walked once per change of the data, not a query per level: a method of
    Django's SimpleTestCase has 2,000 subclasses over 9 levels (110 ms of queries a question)."""

    def __init__(self, db: Database) -> None:
        # (in the order `dependants_of` reads them for a list of types: by type, relation, then as stored)
        where = (f" WHERE e.relation IN {_TYPE_RELATIONS} AND e.dst_fqn IS NOT NULL AND e.src_fqn != e.dst_fqn"
                 " ORDER BY e.dst_fqn, e.relation, e.id")
        ts_rows, source_rows = db.query(_TS_SQL + where), db.query(_SOURCE_SQL + where)
        self._merged: dict[str, tuple[list[tuple[tuple, GraphEdge]], list[tuple[tuple, GraphEdge]]]] = {}
        # (tree-sitter's first, then those only another source knows)
        for i, edge in enumerate(merge(ts_rows, source_rows, generated_symbols(db))):
            self._merged.setdefault(edge.dst or "", ([], []))[i >= len(ts_rows)].append((_listed(edge), edge))
        self._derived: dict[str, list[str]] = {}  # every source's word, refuted or not (as `supertypes` reads them)
        for r in (*ts_rows, *(r for r in source_rows if r["verdict"] == "confirms")):
            self._derived.setdefault(r["dst_fqn"], []).append(r["src_fqn"])
        self._subtypes = Memo(self._walk_subtypes, limit=1 << 14)
        self._reached = Memo(self._walk_reached, limit=1 << 14)

    def subtypes(self, cls: str) -> set[str]:
        """The types deriving from `cls`, at any depth, as any source says (a refuted edge too). Shared:
        never mutate it."""
        return self._subtypes[cls]

    def reached(self, cls: str) -> dict[str, GraphEdge]:
        """The types deriving from `cls` through edges no checker ruled out, each with the edge it was
        first reached by: nearest first, at one depth in the order `dependants_of` lists edges (as
        walking it level by level finds them). Shared: never mutate them."""
        return self._reached[cls]

    def _walk_subtypes(self, cls: str) -> set[str]:
        found: set[str] = set()
        frontier = [cls]
        while frontier:
            frontier = [t for t in dict.fromkeys(s for f in frontier for s in self._derived.get(f, ()))
                        if t != cls and t not in found]
            found.update(frontier)
        return found

    def _walk_reached(self, cls: str) -> dict[str, GraphEdge]:
        reached: dict[str, GraphEdge] = {}
        frontier = [cls]
        none: tuple[list, list] = ([], [])
        while frontier:
            listed = sorted(set(frontier))
            edges = [*(p for t in listed for p in self._merged.get(t, none)[0]),
                     *(p for t in listed for p in self._merged.get(t, none)[1])]
            edges.sort(key=itemgetter(0))
            frontier = []
            for _, e in edges:
                if not e.refuted and e.src not in reached:
                    reached[e.src] = e
                    frontier.append(e.src)
        return reached


def unlinked_sites(db: Database, languages: list[str], name: str) -> int:
    """Call sites of `name` in code of these languages that were linked to no target: too many
    candidates, or none found (a member of a receiver whose type nothing tells). Any of them may reach
    a symbol of that name. A site a later source linked (a language server's definition) is linked."""
    sites = _sites_without_target(db, languages, "dst_name = ? AND tier != ?", [name, Tier.DYNAMIC.value])
    if sites:
        sites -= {(r["src_fqn"], r["line"]) for r in db.query(
            "SELECT src_fqn, line FROM source_edges WHERE dst_name = ? AND dst_fqn IS NOT NULL"
            " AND verdict = 'confirms'", (name,))}
    return len(sites)


def _sites_without_target(db: Database, languages: list[str], cond: str, params: list) -> set[tuple[str, int]]:
    """(caller, line) of the sites with no known target in code of these languages that meet `cond`,
    in tree-sitter's edges or another source's: a site two sources both saw is one."""
    sql = (
        f"SELECT src_fqn, line FROM edges WHERE dst_fqn IS NULL AND {cond}"
        f" AND file_id IN (SELECT id FROM files WHERE language IN {db.each})"
        f" UNION SELECT src_fqn, line FROM source_edges WHERE dst_fqn IS NULL AND {cond} AND verdict = 'confirms'"
        f" AND src_fqn IN (SELECT fqn FROM symbols WHERE language IN {db.each})"
    )
    return {(r["src_fqn"], r["line"]) for r in db.query(sql, (*params, db.many(languages), *params,
                                                               db.many(languages)))}


def undecided_dispatch_sites(db: Database, fqn: str) -> int:
    """Virtual or interface call sites that name `fqn` or may dispatch to it, whose implementation
    no wiring decided (their candidates are kept, `ambiguous`, or `inferred` when there is one):
    another source's, and tree-sitter's (a call on a declared or `self` receiver whose class has
    overrides), the latter found from the sites calling `fqn`: the candidates naming it (in the files of
    those sites) at one of those sites."""
    named = DISPATCH_DETAIL + fqn
    sites = {(r["src_fqn"], r["line"]) for r in db.query(
        "SELECT src_fqn, line FROM source_edges WHERE relation = 'calls' AND verdict = 'confirms'"
        " AND detail LIKE ? AND (detail = ? OR dst_fqn = ?)", (DISPATCH_DETAIL + "%", named, fqn))}
    calling = db.query("SELECT file_id, src_fqn, line, detail FROM edges WHERE dst_fqn = ? AND relation = 'calls'",
                       (fqn,))
    sites |= {(r["src_fqn"], r["line"]) for r in calling if r["detail"].startswith(DISPATCH_DETAIL)}
    if calling:
        files, calling_sites = {r["file_id"] for r in calling}, {(r["src_fqn"], r["line"]) for r in calling}
        sites |= {(r["src_fqn"], r["line"]) for r in db.query(_DISPATCH_CANDIDATES, (named,))
                  if r["file_id"] in files and (r["src_fqn"], r["line"]) in calling_sites}
    return len(sites)


# The LIKE term spelled as in the partial index `edges_dispatch` (store.py m013), which it makes usable.
_DISPATCH_CANDIDATES = f"SELECT file_id, src_fqn, line FROM edges WHERE detail = ? AND detail LIKE '{DISPATCH_DETAIL}%'"
