"""What breaks: the dependants of a symbol, transitively, each with its tier and sources, and a
summary that says when the count is a lower bound and why."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

from tenure.namespace.lookup import Lookup
from tenure.namespace.tiers import Relation, Tier
from tenure.storage import Database
from tenure.structural.escapes import Escape, escapes_of
from tenure.structural.gaps import Gap, gaps_naming, how_unresolved
from tenure.structural.graph import (
    TREE_SITTER,
    DynamicSite,
    GraphEdge,
    Names,
    dependants_of,
    dynamic_sites,
    related_types,
    type_edges,
    undecided_dispatch_sites,
    unlinked_sites,
)
from tenure.structural.languages import is_declaration, language_table
from tenure.structural.lsp.state import SOURCE as LSP
from tenure.structural.lsp.state import files_verified, last_run, verified_since
from tenure.structural.memo import Memo
from tenure.structural.naming import short_name
from tenure.structural.traces import SOURCE as TRACE
from tenure.words import counted, first_few, plural


@dataclass
class Dependant:
    symbol: str
    relation: str
    tier: str
    sources: list[str]
    path: str
    line: int
    depth: int
    via: str  # the symbol it depends on (the target at depth 1)
    generated: bool = False
    contexts: list[str] = field(default_factory=list)  # profiles, services the evidence holds in
    refuted_by: list[str] = field(default_factory=list)  # checkers that ruled this edge out
    detail: str = ""  # what the evidence says (e.g. the bean DI wiring picked)
    count: int = 0  # times observed (traces), with the first and last time
    first_seen: str = ""
    last_seen: str = ""

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class Impact:
    symbol: str | None
    lookup: Lookup
    dependants: list[Dependant] = field(default_factory=list)
    refuted: list[Dependant] = field(default_factory=list)  # name matches a checker ruled out: kept, not counted
    unresolved_dynamic: int = 0  # dynamic call sites that may reach it (by the objects or names they look up)
    dynamic_reaching: list[DynamicSite] = field(default_factory=list)  # those sites, each with its file and line
    unresolved_files: list[Gap] = field(default_factory=list)  # files naming it whose calls are not all linked
    escapes: list[Escape] = field(default_factory=list)  # sites that take it as a value (calls from there unseen)
    escapes_untracked: str = ""  # the language of a function whose values taken are not recorded (no escapes)
    dynamic_anywhere: int = 0  # dynamic call sites that may reach anything (listed once, by `tenure status`)
    unlinked_by_name: int = 0  # call sites of its name linked to no target (too many candidates, or none found)
    unresolved_dispatch: int = 0  # virtual/interface calls that may reach it, implementation undecided
    interface_method: bool = False  # its overriders are implementers
    depth: int = 1
    enriched: bool = False  # a language server has verified files of this project (structural/lsp)
    enrichment: dict | None = None  # the latest enrichment run (lsp.state.last_run)
    changed_by_enrichment: int = 0  # the edges shown whose language server verdicts that run made
    declaration: bool = False  # it is declared in a stub or a .d.ts: calls link to the code it declares
    declares: str = ""  # ... that code, when one definition of its name in its package is known

    def summary(self) -> dict:
        direct = {(d.relation, d.symbol) for d in self.dependants if d.depth == 1}
        by_relation = Counter(relation for relation, _ in direct)  # dependants, not the sites they depend at
        tiers = Counter(d.tier for d in self.dependants)
        generated = len({d.symbol for d in self.dependants if d.generated})
        reasons = []
        weak = sum(n for t, n in tiers.items() if t not in (Tier.RESOLVED, Tier.OBSERVED))
        if weak:
            reasons.append(f"{counted(weak, 'edge')} {'is' if weak == 1 else 'are'} unverified (inferred/ambiguous)")
        traced_only = sum(1 for d in self.dependants if d.sources == [TRACE])
        if traced_only:  # traces show the paths that ran, never that no other caller exists
            reasons.append(f"{counted(traced_only, 'edge')} seen only in traces (callers on paths not traced are "
                           "missing)")
        if self.unresolved_dynamic:
            reasons.append(f"{counted(self.unresolved_dynamic, 'dynamic call site')} may reach it (by what "
                           f"{'it looks' if self.unresolved_dynamic == 1 else 'they look'} up): "
                           + first_few([f"{s.path}:{s.line}" for s in self.dynamic_reaching]))
        if self.unlinked_by_name:
            reasons.append(f"{counted(self.unlinked_by_name, 'call site')} of .{short_name(self.symbol or '')}() "
                           f"{'is' if self.unlinked_by_name == 1 else 'are'} linked to no target (too many candidates, "
                           "or a receiver of unknown type): any may reach it")
        if self.unresolved_dispatch:
            reasons.append(f"{counted(self.unresolved_dispatch, 'interface/virtual dispatch')} no wiring decides")
        if self.unresolved_files:
            reasons.append(self._gaps_reason())
        if self.escapes_untracked:
            reasons.append(f"functions taken as values are not tracked in {self.escapes_untracked} (a callback handed "
                           "to a framework may call it)")
        if self.escapes:
            reasons.append(f"it escapes as a value at {counted(len(self.escapes), 'site')} ("
                           + first_few([f"{e.detail} {e.path}:{e.line}" for e in self.escapes])
                           + "): what calls it from there (templates, callbacks, other code) is not followed")
        if self.declaration:
            reasons.append(self._declaration_reason())
        # no dependants is an answer like any other: as complete as the reasons against it allow. A name
        # that matched no symbol, or several, has no answer to bound: None, and the text is the lookup's
        lower_bound = bool(reasons) if self.symbol is not None else None
        coverage = self.coverage()
        return {
            # (in the order of Relation, as the text lists them, then by name: a set's order follows the hash seed)
            "by_relation": dict(sorted(by_relation.items(), key=_relation_order)),
            "by_tier": {t.value: tiers.get(t.value, 0) for t in Tier},
            "total": len({d.symbol for d in self.dependants}),
            "direct": len({symbol for _, symbol in direct}),
            "sites": len(self.dependants),  # every edge: a caller calling at three lines is three
            "generated": generated,
            "unresolved_dynamic": self.unresolved_dynamic,
            "dynamic_anywhere": self.dynamic_anywhere,
            "unlinked_by_name": self.unlinked_by_name,
            "unresolved_dispatch": self.unresolved_dispatch,
            "dynamic_sites": [site.as_dict() for site in self.dynamic_reaching],
            "unresolved_files": [gap.as_dict() for gap in self.unresolved_files],
            "escapes": [escape.as_dict() for escape in self.escapes],
            "lower_bound": lower_bound,
            "reasons": reasons,
            "coverage": coverage,
            "text": self._text(generated, traced_only, coverage["text"], lower_bound),
        }

    def coverage(self) -> dict:
        """How many of the call sites that may reach it a language server checked (an edge to it
        confirmed or refuted): the direct call sites shown, and those of its name linked to no target
        (unchecked by definition). Enrichment runs in the background, so an answer may be only partly
        verified, and says so."""
        calls = (Relation.CALLS, Relation.INSTANTIATES)
        checked: dict[tuple[str, str, int], bool] = {}
        for d in (*self.dependants, *self.refuted):
            if d.depth == 1 and d.relation in calls:
                site = (d.symbol, d.path, d.line)
                checked[site] = checked.get(site, False) or LSP in d.sources or LSP in d.refuted_by
        verified = sum(checked.values())
        in_scope = len(checked) + self.unlinked_by_name
        percent = round(100 * verified / in_scope) if in_scope else None
        run = self.enrichment
        if not self.enriched and run and run["running"]:  # (not "not enriched": it is being enriched)
            text = "no file verified by a language server yet"
        elif not self.enriched:
            text = "not enriched (no language server ran)"
        elif not in_scope:
            text = "lsp: no call sites in scope"
        else:
            text = f"lsp verified {percent}% of the call sites that may reach it ({verified} of {in_scope})"
        if run and run["running"]:  # the answer moves while it runs: say how far, and how much moved
            text += (f"; enrichment running since {run['started_at']} ({run['files_done']} of "
                     f"{counted(run['files_total'], 'file')}): {counted(self.changed_by_enrichment, 'edge')} of this "
                     "answer changed since it started")
        return {"source": LSP, "enriched": self.enriched, "in_scope": in_scope, "verified": verified,
                "unlinked": self.unlinked_by_name, "percent": percent, "text": text,
                "run": run and {k: run[k] for k in ("running", "stopped", "started_at", "finished_at", "files_done",
                                                    "files_total")} | {"changed": self.changed_by_enrichment}}

    def _text(self, generated: int, traced_only: int, coverage: str, lower_bound: bool | None) -> str:
        if self.symbol is None:
            return self.lookup.message()
        direct = [d for d in self.dependants if d.depth == 1]
        groups: dict[str, list[Dependant]] = {}
        for d in direct:
            groups.setdefault(d.relation, []).append(d)
        parts = []
        for rel in Relation:
            group = groups.get(rel.value)
            if group:
                tier_counts = Counter(d.tier for d in group)
                detail = ", ".join(f"{n} {t}" for t in Tier if (n := tier_counts.get(t.value)))
                who = len({d.symbol for d in group})
                noun = plural("implementer", who) if rel == Relation.OVERRIDES and self.interface_method else (
                    rel.dependant_noun(who))
                if len(group) == who:
                    parts.append(f"{who} {noun} ({detail})")
                else:  # the tiers are the sites'
                    detail = f"all {group[0].tier}" if len(tier_counts) == 1 else detail
                    parts.append(f"{who} {noun} ({len(group)} sites, {detail})")
        text = ", ".join(parts) or "no known dependants"
        deeper = len({d.symbol for d in self.dependants} - {d.symbol for d in direct})
        if deeper:
            text += f"; {deeper} more up to depth {self.depth}"
        if self.unresolved_dispatch:
            text += f", {counted(self.unresolved_dispatch, 'unresolved interface dispatch')}"
        if generated:
            what = "method" if self.lookup.unique and self.lookup.unique.kind in ("method", "function") else "dependant"
            text += f", {counted(generated, 'generated ' + what)}"
        if self.unresolved_dynamic:
            text += f", {counted(self.unresolved_dynamic, 'dynamic call site')} that may reach it"
        if self.unlinked_by_name:
            text += f", {counted(self.unlinked_by_name, 'call site')} of its name linked to no target"
        if self.unresolved_files:
            text += f", {counted(len(self.unresolved_files), 'file')} naming it not fully resolved"
        if self.escapes:
            text += f", taken as a value at {counted(len(self.escapes), 'site')}"
        elif self.escapes_untracked:  # (the reason to doubt "no known dependants" most: say it here)
            text += f", where it is taken as a value is not tracked in {self.escapes_untracked}"
        if traced_only:
            text += f", {traced_only} seen only in traces"
        return f"{text}; {coverage} — {self._verdict(lower_bound)}"

    def _verdict(self, lower_bound: bool | None) -> str:
        """How complete the answer is, claimed no further than its evidence: every edge shown confirmed
        by the sources that confirmed it (a language server, bytecode, wiring, traces), or, with none
        shown, what tree-sitter's resolution saw (every file naming it resolved, no site of its name
        unlinked, no dynamic site that may reach it by name)."""
        if lower_bound:
            return "a lower bound"
        # (what may reach anything is listed once, by `tenure status`)
        but = f", but for {counted(self.dynamic_anywhere, 'dynamic call site')} that may reach anything" \
            if self.dynamic_anywhere else ""
        if self.dependants:  # (each one resolved or observed: a weaker edge makes it a lower bound)
            sources = sorted({s for d in self.dependants for s in d.sources} - {TREE_SITTER})
            return f"complete (every edge confirmed by {', '.join(sources) or 'a checker'}){but}"
        return ("complete as far as the resolver sees (every file that names it resolved, no call site of its name "
                f"left unlinked){but}")

    def _declaration_reason(self) -> str:
        if self.declares:
            return (f"it is a declaration (a stub or a .d.ts): its callers are counted at the code it declares, most "
                    f"likely {self.declares}, the one definition of its name in its package (matched by name, "
                    f"`tenure what-breaks {self.declares}`); here are only those a checker linked to the declaration "
                    "itself")
        return ("it is a declaration (a stub or a .d.ts) whose definition is not known: calls are linked to the code "
                "it declares, not to it, so its callers here are a lower bound")

    def _gaps_reason(self) -> str:
        gaps = self.unresolved_files
        how = how_unresolved([g.status for g in gaps])
        named = first_few([g.path for g in gaps])
        return (f"{counted(len(gaps), 'file')} that {'names' if len(gaps) == 1 else 'name'} "
                f".{short_name(self.symbol or '')} {'was' if len(gaps) == 1 else 'were'} not fully resolved ({how}: "
                f"{named}): calls there may be missing (`tenure status` says why)")

    def as_dict(self) -> dict:
        return {
            "symbol": self.symbol,
            "matches": [m.as_dict() for m in self.lookup.matches],
            "lookup": self.lookup.how,
            "lookup_message": self.lookup.message(),  # how the name was found, when it is not the symbol's own
            "depth": self.depth,
            "dependants": [d.as_dict() for d in self.dependants],
            "refuted": [d.as_dict() for d in self.refuted],
            "summary": self.summary(),
        }


def _declared(db: Database, fqn: str) -> str:
    """The definition a declaration declares: the one symbol of its name in its package (the code a stub
    re-exports, `attr.fields` in `attr/__init__.pyi` being `attr._make.fields`) outside declaration files;
    "" when there is none or several."""
    package = re.split(r"[./]", fqn, maxsplit=1)[0]  # (`attr` of attr.fields, `lib` of lib/index.d.fields)
    rows = db.rows("SELECT fqn, path FROM symbols WHERE name = ? AND fqn > ? AND fqn < ?",
                   (short_name(fqn), package + ".", package + "0"))  # (its fqns: "/" then "0" follow ".")
    found = {f for f, p in rows if f != fqn and not is_declaration(p or "")}
    return found.pop() if len(found) == 1 else ""


def by_dependant(dependants: list[dict]) -> list[dict]:
    """Dependants as a person reads them: one row per dependant (and depth and relation), with the
    sites it depends at, in the order the answer lists them; its tier the strongest of its sites', its
    sources and contexts all of theirs."""
    rank = {t.value: i for i, t in enumerate(Tier)}
    rows: dict[tuple[int, str, str], dict] = {}
    for d in dependants:
        row = rows.get((d["depth"], d["relation"], d["symbol"]))
        if row is None:
            row = rows[(d["depth"], d["relation"], d["symbol"])] = {
                **d, "sites": [], "tiers": {}, "sources": [], "contexts": [], "count": 0}
        row["sites"].append({"path": d["path"], "line": d["line"], "tier": d["tier"]})
        row["tiers"][d["tier"]] = row["tiers"].get(d["tier"], 0) + 1
        row["tier"] = min(row["tiers"], key=rank.__getitem__)
        row["sources"] = sorted({*row["sources"], *d["sources"]})
        row["contexts"] += [c for c in d["contexts"] if c not in row["contexts"]]
        row["count"] += d["count"]
        row["last_seen"] = max(row["last_seen"], d["last_seen"])
    return list(rows.values())


def what_breaks(db: Database, lookup: Lookup, depth: int = 1) -> Impact:
    target = lookup.unique
    if target is None:
        return Impact(None, lookup, depth=depth)
    impact = Impact(target.fqn, lookup, depth=depth, enriched=files_verified(db) > 0, enrichment=last_run(db))
    if is_declaration(target.path or ""):
        impact.declaration, impact.declares = True, _declared(db, target.fqn)
    seen = {target.fqn}
    frontier = {target.fqn: target.fqn}  # symbol -> the depth-1 dependant it came through
    for level in range(1, depth + 1):
        edges = dependants_of(db, frontier)
        if level == 1:
            edges += _overriders(db, target.fqn, target.kind)
        next_frontier: dict[str, str] = {}
        for e in edges:
            via = e.dst if level == 1 else frontier[e.dst]
            dependant = Dependant(
                symbol=e.src, relation=e.relation, tier=e.tier, sources=sorted(e.sources), path=e.path, line=e.line,
                depth=level, via=via, generated=e.generated, contexts=e.contexts, refuted_by=sorted(e.refuted_by),
                detail=e.detail, count=e.count, first_seen=e.first_seen, last_seen=e.last_seen,
            )
            if e.refuted:
                impact.refuted.append(dependant)
                continue
            impact.dependants.append(dependant)
            if e.src not in seen:
                seen.add(e.src)
                next_frontier[e.src] = via if level > 1 else e.src
        frontier = next_frontier
        if not frontier:
            break
    # Only code of the target's own language family can reach it through an unknown target.
    spec = language_table().get(target.language)  # services and topics (traces) have no language entry
    family = list(spec.extra.get("family", [target.language])) if spec else [target.language]
    hierarchy = cache(lambda cls: related_types(db, cls))  # (asked by the dynamic sites and the escapes)
    sites = dynamic_sites(db, family)
    impact.dynamic_anywhere = sum(1 for site in sites if not site.reach)
    if any(site.reach for site in sites):
        names = Names(_names_reaching(db, target.fqn, hierarchy))
        reached = Memo(names.match)  # (sites share their globs: `Model.*` at 28 of Django's)
        impact.dynamic_reaching = [site for site in sites if any(reached[glob] for glob in site.reach)]
        impact.unresolved_dynamic = len(impact.dynamic_reaching)
    impact.unresolved_files = gaps_naming(db, family, short_name(target.fqn))
    impact.escapes = escapes_of(db, target.fqn, family, hierarchy)
    if target.kind in ("function", "method") and spec is not None and not spec.extra.get("escapes"):
        impact.escapes_untracked = target.language
    impact.unlinked_by_name = unlinked_sites(db, family, short_name(target.fqn))
    impact.unresolved_dispatch = undecided_dispatch_sites(db, target.fqn)
    if impact.enrichment is not None:
        impact.changed_by_enrichment = _changed_since(db, impact, target.path, impact.enrichment["started_at"])
    impact.interface_method = _in_interface(db, target.fqn)
    return impact


def _changed_since(db: Database, impact: Impact, target_path: str, started_at: str) -> int:
    """The direct edges whose language server verdict is as new as the run: their call site's file,
    or the symbol's own (its references), was verified since it started."""
    checked = [d for d in (*impact.dependants, *impact.refuted)
               if d.depth == 1 and (LSP in d.sources or LSP in d.refuted_by)]
    if not checked:
        return 0
    fresh = verified_since(db, started_at, [target_path, *(d.path for d in checked)])
    return len(checked) if target_path in fresh else sum(1 for d in checked if d.path in fresh)


def _names_reaching(db: Database, fqn: str, hierarchy: Callable[[str], set[str]]) -> set[str]:
    """The full names a lookup may reach the symbol by: its own, and a member's as named on every
    type of its class's hierarchy (`getattr(self, m)` in a base class finds a subclass's method)."""
    names = {fqn}
    for r in db.query("SELECT s.name, s.parent_fqn, s.language, p.kind FROM symbols s"
                      " JOIN symbols p ON p.fqn = s.parent_fqn WHERE s.fqn = ?", (fqn,)):
        spec = language_table().get(r["language"])
        if spec is not None and r["kind"] in spec.type_kinds:
            names |= {f"{t}.{r['name']}" for t in hierarchy(r["parent_fqn"])}
    return names


def _in_interface(db: Database, fqn: str) -> bool:
    rows = db.query("SELECT kind FROM symbols WHERE fqn = (SELECT parent_fqn FROM symbols WHERE fqn = ? LIMIT 1)",
                    (fqn,))
    return any(r["kind"] == "interface" for r in rows)


def _overriders(db: Database, fqn: str, kind: str) -> list[GraphEdge]:
    """Methods of the same name in subclasses and implementers: changing the contract breaks them."""
    if kind not in ("method", "function"):
        return []
    owner = db.query("SELECT parent_fqn, name FROM symbols WHERE fqn = ?", (fqn,))
    if not owner:
        return []
    parent, name = owner[0]["parent_fqn"], owner[0]["name"]
    subclasses = type_edges(db).reached(parent)
    methods: dict[str, list[dict]] = {}
    for m in db.query(f"SELECT parent_fqn, fqn, path, start_line, generated FROM symbols WHERE parent_fqn IN {db.each}"
                      " AND name = ? ORDER BY id", (db.many(subclasses), name)):
        methods.setdefault(m["parent_fqn"], []).append(m)
    return [GraphEdge(
        src=m["fqn"], dst=fqn, relation=Relation.OVERRIDES.value, tier=inherits.tier, path=m["path"] or "",
        line=m["start_line"] or 0, sources=list(inherits.sources), contexts=list(inherits.contexts),
        generated=bool(m["generated"]),
    ) for sub, inherits in subclasses.items() for m in methods.get(sub, ())]


_RELATIONS = {r.value: i for i, r in enumerate(Relation)}


def _relation_order(item: tuple[str, int]) -> tuple[int, str]:
    return _RELATIONS.get(item[0], len(_RELATIONS)), item[0]
