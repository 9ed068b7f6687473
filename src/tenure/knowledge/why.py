"""`why SYMBOL`: the decisions, incidents, constraints, threads and commits behind a symbol, each with
its source (document and section, PR number, commit), a quoted passage, the tier of the link between
the prose and the symbol, and the mode that extracted it.

Links, each with its ladder tier: the entities whose phrase names the symbol or a member of it (the
join), the decisions, tickets and titles the comments in its code cite (`exact`), and, one rung below
the symbol's own, the decisions linked to the class and module it is in and to what it calls (with the
call edge's tier), and what the comments there cite, and what is cited on the names it reads
(``MAX_RETRIES = 3  # see [[ADR-0003]]``): each marked `via`, with the path.

Everything is read from what the build stored (a handful of indexed queries): nothing is extracted
or embedded at query time. A name that is no symbol (a config key, a concept) is looked up as a
phrase: what the documents say about it, marked ``unresolved``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from tenure.history.api import first_touched
from tenure.history.model import is_sweep
from tenure.knowledge import grounding
from tenure.knowledge.offline import document_entities, entity_key, sentences
from tenure.knowledge.sources import KIND_NOUNS, kind_rank
from tenure.knowledge.sources.commits import SYMBOLS_KEPT
from tenure.knowledge.store import get_meta, model_coverage
from tenure.namespace.lookup import Lookup
from tenure.namespace.phrases import CONTAINERS, EXACT, STRONG, TIERS, UNRESOLVED, WEAK, PhraseMatch
from tenure.namespace.symbols import calls_from, symbols_named
from tenure.storage import Database
from tenure.structural.naming import short_name
from tenure.words import counted

EVIDENCE_LIMIT = 12
MEMBER_TIER_PENALTY = 1  # a member's evidence ranks one tier below the symbol's own
VIA_TIER_PENALTY = 1  # so does what is linked to its class, module, the names it reads, what it calls
VIA_ORDER = ("reads", "calls", "class", "module")  # the nearest path first
READ_EDGE = "inferred"  # a read is its code naming the name (text, not a resolved reference): unverified
# what a class, module or callee passes on: a decision (not every sentence naming it), or what its code cites
DECISION_KINDS = ("adr", "rfc", "postmortem", "design")


@dataclass(frozen=True)
class _Link:
    entity: str
    fqn: str  # the symbol the entity is linked to
    tier: str  # the ladder's tier of that link
    how: str
    via: str = ""  # "" (the symbol's own, or a member's) | class | module | reads | calls
    via_symbol: str = ""  # what it passes through: the class, the module, the name read, the callee
    edge: str = ""  # the tier of the call edge it crosses (via calls)
    cited: tuple[str, int, str] | None = None  # (path, line, text) of the comment that cites the entity

    def as_via(self) -> list[dict] | None:
        """How it reaches the symbol: None for the symbol's own, else the paths (several lead to one passage)."""
        if not self.via:
            return None
        return [{"path": self.via, "symbol": self.via_symbol, "edge": self.edge or None, "link": self.tier}]


def why(db: Database, code: Database, lookup: Lookup, limit: int = EVIDENCE_LIMIT,
        resolve: Callable[[str], PhraseMatch] | None = None,
        memory_titled: Callable[[str], int | None] | None = None) -> dict:
    """`resolve`: the join's ladder, asked when the query is neither a symbol's name nor a phrase the
    documents use (``flask.Flask.make_response`` for ``flask.app.Flask.make_response``); `memory_titled`:
    the memory a cited ``[[Title]]`` names, when no document has the title."""
    built = get_meta(db, "last_build")
    coverage = model_coverage(db, built.get("model") or "(earlier)") if built else None
    answer: dict = {"query": lookup.query, "symbol": None, "lookup": lookup.as_dict(),
                    "mode": "model" if coverage and coverage["read"] else "offline", "built": built,
                    "model_coverage": coverage}
    fqn = lookup.unique.fqn if lookup.unique else None
    key = entity_key(lookup.query)
    if fqn is None:  # not one symbol's name: as the documents' phrase, through the join's ladder
        joined = db.rows("SELECT fqn, tier, how FROM knowledge_entity_symbols WHERE entity = ?", (key,))
        if len(joined) == 1:
            fqn = joined[0][0]
            answer["resolved"] = {"fqn": fqn, "tier": joined[0][1], "how": joined[0][2]}
        elif not joined and resolve is not None:
            match = resolve(lookup.query)
            if len(match.symbols) == 1 and match.tier in (EXACT, STRONG):
                fqn = match.symbols[0]
                answer["resolved"] = {"fqn": fqn, "tier": match.tier, "how": match.how}
    if fqn is not None:
        answer["symbol"] = fqn
        links = _links(db, fqn) + _citations(code, fqn)
        own = list(links)
        links += _via(db, code, fqn)
    else:
        links = [_Link(key, "", UNRESOLVED, "no one symbol by this name: what the documents say of the phrase")] \
            if db.rows("SELECT 1 FROM knowledge_entities WHERE key = ?", (key,)) else []
        own = links
    evidence, counts, through = _evidence(db, links, limit, fqn, memory_titled)
    answer["evidence"] = evidence
    answer["evidence_total"] = sum(counts.values())
    answer["evidence_via"] = through
    answer["related"] = _related(db, own)
    answer["communities"] = _communities(db, [link.entity for link in own])
    answer["commits"] = _commits(db, code, fqn, own, limit)
    answer["summary"] = {"text": _summary(answer, counts, built)}
    return answer


def _links(db: Database, fqn: str) -> list[_Link]:
    """The entities whose phrase names the symbol or one of its members (``fqn.*``)."""
    rows = db.rows("SELECT entity, fqn, tier, how FROM knowledge_entity_symbols WHERE fqn = ? OR (fqn > ? AND fqn < ?)",
                   (fqn, fqn + ".", fqn + "/"))  # '/' sorts right after '.': the range is fqn's dotted members
    return [_Link(*r) for r in rows]


def _citations(code: Database, fqn: str) -> list[_Link]:
    """What the comments and docstrings in the symbol (and its members) cite: `exact` links (kept in the
    checkout's database: knowledge.citations)."""
    return _cited(code, "c.fqn = ? OR (c.fqn > ? AND c.fqn < ?)", (fqn, fqn + ".", fqn + "/"))


def _cited(code: Database, where: str, params: tuple, via: str = "", via_symbol: str = "", edge: str = "",
           read: bool = False) -> list[_Link]:
    """The citations in the code `where` selects, as `exact` links; `read`: joined with the reads of the
    names they are on (`r.reader`), each reached through the name."""
    sql = "SELECT c.entity, c.fqn, c.path, c.line, c.kind, c.text, c.assigns FROM knowledge_code_citations c"
    if read:
        sql += " JOIN knowledge_code_reads r ON c.path = r.source AND c.assigns = r.name"
    return [_Link(entity, holder, EXACT, f"cited in a {kind} at {path}:{line}", via,
                  f"{holder}.{assigns}" if read else via_symbol, edge, (path, line, text))
            for entity, holder, path, line, kind, text, assigns in code.rows(f"{sql} WHERE {where}", params)]


def _via(db: Database, code: Database, fqn: str) -> list[_Link]:
    """The links of the classes and module the symbol is in, of the cited names it reads and of the
    callees that carry a decision, each marked with the path it takes."""
    found: list[_Link] = []
    prefixes = [fqn[:i] for i in range(len(fqn)) if fqn[i] == "."]
    symbol = next(iter(symbols_named(code, [fqn])), None)
    for outer in sorted({s.fqn: s for s in symbols_named(code, prefixes) if s.kind in CONTAINERS}.values(),
                        key=lambda s: -len(s.fqn)):
        if symbol is not None and symbol.module and len(outer.fqn) < len(symbol.module):
            continue  # the packages above its module say nothing of it
        path = "module" if outer.kind == "module" else "class"
        found += [_Link(e, f, t, h, path, outer.fqn) for e, f, t, h in db.rows(
            "SELECT entity, fqn, tier, how FROM knowledge_entity_symbols WHERE fqn = ?", (outer.fqn,))]
        # (a citation on an assignment is the name's: it comes through what reads the name)
        found += _cited(code, "c.fqn = ? AND c.assigns = ''", (outer.fqn,), path, outer.fqn)
    found += _cited(code, "r.reader = ?", (fqn,), "reads", edge=READ_EDGE, read=True)
    for callee, edge in sorted(calls_from(code, fqn).items()):
        found += [_Link(e, f, t, h, "calls", callee, edge) for e, f, t, h in db.rows(
            "SELECT entity, fqn, tier, how FROM knowledge_entity_symbols WHERE fqn = ?", (callee,))]
        found += _cited(code, "c.fqn = ?", (callee,), "calls", callee, edge)
    return found


def _rank(link: _Link, fqn_of_symbol: str | None) -> int:
    rank = TIERS.index(link.tier) if link.tier in TIERS else len(TIERS)
    if link.via:
        return rank + VIA_TIER_PENALTY
    return rank + (MEMBER_TIER_PENALTY if fqn_of_symbol and link.fqn != fqn_of_symbol else 0)


def _evidence(db: Database, links: list[_Link], limit: int, own: str | None,
              memory_titled: Callable[[str], int | None] | None = None) -> tuple[list[dict], Counter, int]:
    """The passages behind the links, best first (cut at `limit`); how many there are of each kind, and
    how many come through the class, module, reads or calls."""
    if not links:
        return [], Counter(), 0
    by_entity: dict[str, _Link] = {}
    vias: dict[str, list[dict]] = {}  # every path that leads to an entity the symbol has no link of its own to
    cited: dict[str, list[dict]] = {}
    for link in links:
        if link.entity not in by_entity or _rank(link, own) < _rank(by_entity[link.entity], own):
            by_entity[link.entity] = link
        vias.setdefault(link.entity, []).extend(v for v in link.as_via() or () if v not in vias[link.entity])
        if link.cited:
            where = dict(zip(("path", "line", "text"), link.cited, strict=True))
            cited.setdefault(link.entity, []).extend([where] if where not in cited.get(link.entity, []) else [])
    rows = db.query("SELECT m.entity, m.mode, m.name, m.description, c.id, c.section, c.line, c.text, d.kind,"
                        " d.ref, d.path, d.title, d.authored_at, d.key FROM knowledge_mentions m"
                        " JOIN knowledge_chunks c ON c.id = m.chunk_id"
                        " JOIN knowledge_documents d ON d.id = c.document_id"
                        f" WHERE m.entity IN {db.each} AND d.kind <> 'commit'", (db.many(sorted(by_entity)),))
    items: dict[tuple[str, str], dict] = {}
    for row in rows:
        entity, mode, name, description, chunk_id, section, line, text, kind, ref, path, title, authored_at, key = \
            row.values()
        quote = _quote(text, f"{ref} {title} {section}", name, description, mode)
        if quote is None:
            continue  # a model's claim its passage does not bear out (stored before claims were checked)
        link = by_entity[entity]
        if link.via and not link.cited and kind not in DECISION_KINDS:
            continue  # what the docs say of its class, or of what it calls, is about them: their decisions only
        itself = entity in {m.key for m in document_entities(kind, ref, title, key, {})}  # the decision, not a line
        item = {"kind": kind, "what": KIND_NOUNS.get(kind, kind),
                "source": {"ref": ref, "title": title, "path": path, "section": section or None,
                           "line": line_of(quote, text, line) or None,
                           "chunk": chunk_id, **({"date": authored_at} if authored_at else {})},
                "quote": quote, **({"model_says": description} if mode == "model" and description != quote else {}),
                "phrase": name, "symbol": link.fqn or None, "tier": link.tier, "how": link.how,
                "via": sorted(vias[entity], key=lambda v: VIA_ORDER.index(v["path"])) if link.via else None,
                "mode": mode,
                **({"cited": cited[entity]} if entity in cited else {}),
                "_rank": (_rank(link, own), link.fqn != own, kind_rank(kind), -(len(quote) > 40), ref, line or 0),
                "_itself": itself, "_entity": entity}
        place = (ref, entity) if itself else (ref, quote)  # a decision's chunks: one item, its best passage
        seen = items.get(place)
        if seen is None or item["_rank"] < seen["_rank"]:
            seen, items[place] = item, item
        if "model_says" in item and "model_says" not in seen and item["source"]["chunk"] == seen["source"]["chunk"]:
            seen["model_says"] = item["model_says"]  # one passage: listed once, with a model's description if any
    _quote_decisions(db, [i for i in items.values() if i["_itself"]], links)
    evidenced = {i["_entity"] for i in items.values()}
    for link in by_entity.values():  # a citation of what no document here is (a ticket, a memory's title)
        if link.cited and link.entity not in evidenced:
            memory = memory_titled(link.entity.removeprefix("title:")) \
                if memory_titled and link.entity.startswith("title:") else None
            items[(link.cited[0], link.entity)] = _citation_only(link, own, memory)
    ranked = _one_per_passage(sorted(items.values(), key=lambda i: i["_rank"]))
    counts = Counter(i["what"] for i in ranked)
    for item in ranked:
        del item["_rank"], item["_itself"], item["_entity"]
    return ranked[:limit], counts, sum(1 for i in ranked if i["via"])


def _one_per_passage(ranked: list[dict]) -> list[dict]:
    """One item per passage quoted (a decision, and a name it writes, can both lead to one sentence): the
    best ranked, with every path that led to it when none was the symbol's own."""
    kept: dict[tuple[str, str], dict] = {}
    for item in ranked:
        first = kept.setdefault((item["source"]["ref"], item["quote"]), item)
        if first is not item and first["via"] and item["via"]:
            first["via"] += [v for v in item["via"] if v not in first["via"]]
    return list(kept.values())


def _quote_decisions(db: Database, items: list[dict], links: list[_Link]) -> None:
    """A document that is itself the decision (an ADR, an incident review, a thread) quotes its passage that
    names the symbol or what it passes through, else the first of its decision section, else its first:
    not its title again."""
    if not items:
        return
    names = {short_name(n) for link in links for n in (link.fqn, link.via_symbol) if n}
    rows = db.query("SELECT c.id, c.document_id, c.section, c.line, c.text FROM knowledge_chunks c"
                    " WHERE c.document_id IN (SELECT document_id FROM knowledge_chunks"
                    f" WHERE id IN {db.each}) ORDER BY c.ordinal",
                    (db.many([i["source"]["chunk"] for i in items]),))
    document_of = {r["id"]: r["document_id"] for r in rows}
    for item in items:
        chunks = [r for r in rows if r["document_id"] == document_of.get(item["source"]["chunk"])]
        said = [(r, s) for r in chunks for s in sentences(r["text"])]
        best = next((p for p in said if any(n in p[1] for n in names)), None) \
            or next((p for p in said if "decision" in p[0]["section"].casefold()), None) or next(iter(said), None)
        if best is not None:
            chunk, item["quote"] = best
            if chunk["id"] != item["source"]["chunk"]:
                item.pop("model_says", None)  # it rested on another passage of the document
            item["source"].update(section=chunk["section"] or None, chunk=chunk["id"],
                                  line=line_of(item["quote"], chunk["text"], chunk["line"]) or None)


def line_of(quote: str, text: str, first: int) -> int:
    """The line a quote starts on, of a chunk whose text starts on line `first` (a section's heading: the
    quote may sit tens of lines below it). The quote's whitespace is collapsed and a list item's marker
    gone: its first words are looked for with any whitespace between them, as whole words (a quote of
    `save` is not the `saved` of an earlier line), but for the last of a cut quote (`…`), which may be
    part of one; `first` when not found."""
    cut = quote.endswith("…")
    words = quote.rstrip("…").split()
    whole = not cut or len(words) > 6  # (the sixth word is whole when more follow it)
    words = words[:6]
    pattern = r"(?<!\w)" + r"\s+".join(map(re.escape, words)) + (r"(?!\w)" if whole else "")
    found = re.search(pattern, text) if words and first else None
    return first + text.count("\n", 0, found.start()) if found else first


def _citation_only(link: _Link, own: str | None, memory: int | None) -> dict:
    """A citation of what no document here is: a ticket with no thread imported, a memory's title."""
    path, line, text = link.cited or ("", 0, "")
    named = f"memory #{memory}, titled so" if memory is not None else f"nothing indexed here is {link.entity}"
    return {"kind": "citation", "what": "citation in the code", "source": {"ref": path, "title": text,
            "path": path, "section": None, "line": line, "chunk": None},
            "quote": text, "phrase": link.entity, "symbol": link.fqn, "tier": link.tier,
            **({"memory": memory} if memory is not None else {}),
            "how": f"{link.how}; {named}", "via": link.as_via(), "mode": "offline",
            "cited": [{"path": path, "line": line, "text": text}],
            "_rank": (_rank(link, own), link.fqn != own, 99, 0, path, line), "_itself": False, "_entity": link.entity}


def _quote(text: str, label: str, name: str, description: str, mode: str) -> str | None:
    """The source's own words a mention rests on: its description where that is verbatim in the text
    (offline: the sentence), else the sentence naming the phrase, else (a document about the entity,
    naming it only in its title) the text's first sentence. None for a model's claim the text does not
    name or bear out: a model's words are never shown as a document's."""
    if mode == "model" and not grounding.bears_out(f"{label}\n{text}", [name], description):
        return None
    if grounding.verbatim(description, f"{label}\n{text}"):
        return description
    found = grounding.passage(text, name)
    if found is None and grounding.names_it(label, name):
        found = next(iter(sentences(text)), None)
    return found


def _related(db: Database, links: list[_Link]) -> list[dict]:
    """Decisions, incidents, constraints and tickets linked to the symbol's entities in the graph."""
    keys = sorted({link.entity for link in links})
    if not keys:
        return []
    marks = ", ".join("?" * len(keys))
    rows = db.rows(
        "SELECT r.source, r.target, r.description, r.weight, r.mode, e.key, e.name, e.type"
        " FROM knowledge_relationships r JOIN knowledge_entities e"
        f" ON e.key = CASE WHEN r.source IN ({marks}) THEN r.target ELSE r.source END"
        f" WHERE (r.source IN ({marks}) OR r.target IN ({marks})) AND e.type IN"
        " ('decision', 'incident', 'constraint', 'requirement', 'rfc', 'ticket')"
        " ORDER BY r.weight DESC, e.key LIMIT 30", tuple(keys) * 3)
    related: dict[str, dict] = {}  # one line per entity: two phrases of the symbol may link to one ticket
    for _, _, description, weight, mode, key, name, type_ in rows:
        if key not in related and key not in keys:
            related[key] = {"entity": name, "type": type_, "relationship": description, "weight": round(weight, 2),
                            "mode": mode}
    return list(related.values())[:10]


def _communities(db: Database, keys: list[str]) -> list[dict]:
    if not keys:
        return []
    keys = sorted(set(keys))[:400]
    rows = db.rows(
        "SELECT DISTINCT c.id, c.level, c.size, r.title, r.summary, r.mode, r.rating FROM knowledge_community_members m"
        " JOIN knowledge_communities c ON c.id = m.community JOIN knowledge_reports r ON r.community = c.id"
        f" WHERE m.entity IN ({', '.join('?' * len(keys))}) ORDER BY c.level DESC, r.rating DESC LIMIT 3", tuple(keys))
    return [{"id": cid, "level": level, "size": size, "title": title, "summary": summary, "mode": mode}
            for cid, level, size, title, summary, mode, _ in rows]


def _commits(db: Database, code: Database, fqn: str | None, links: list[_Link], limit: int) -> dict:
    """Commits whose diff touched the symbol (as tenure.history mapped it: deterministic) and commits
    whose message names it; thin ones are counted, not listed.

    The commits that shaped a symbol come first: those whose message names it, then focused ones by
    date, then sweeps (a diff over many files or symbols: a formatter, a dependency bump, a merge of a
    long branch), which touched it among hundreds and say little about why it is this way."""
    listed: dict[str, dict] = {}
    thin = 0
    # one row per commit (its first touched name: the symbol itself sorts before its members)
    rows = db.rows("SELECT d.meta, d.title, d.authored_at, d.thin, cs.how, cs.fqn,"
                   " (SELECT COUNT(*) FROM knowledge_commit_symbols x WHERE x.document_id = d.id)"
                   " FROM (SELECT document_id, MIN(fqn) AS fqn FROM knowledge_commit_symbols"
                   " WHERE fqn = ? OR (fqn > ? AND fqn < ?) GROUP BY document_id) AS touching"
                   " JOIN knowledge_commit_symbols cs"
                   " ON cs.document_id = touching.document_id AND cs.fqn = touching.fqn"
                   " JOIN knowledge_documents d ON d.id = touching.document_id ORDER BY d.authored_at DESC",
                   (fqn, fqn + ".", fqn + "/")) if fqn else []
    if fqn:
        rows += _cut_commits(db, code, fqn, {json.loads(row[0]).get("sha") for row in rows})
    for meta, title, authored_at, is_thin, how, touched, symbols in rows:
        if is_thin:
            thin += 1
            continue
        info = json.loads(meta)
        what = "it" if touched == fqn else touched.removeprefix(fqn)
        # the commit's own counts: its lists of files and symbols were cut (a store built before they were kept: those)
        files, symbols = info.get("breadth") or (len(info.get("files") or ()), symbols)
        listed.setdefault(info.get("sha", ""), {**_commit(info, title, authored_at, f"diff touched {what} ({how})"),
                                                **_breadth(files, symbols)})
    tier_of: dict[str, str] = {}  # entity -> its surest link to the symbol (a weak one lists no commit by name)
    for link in links:
        if link.tier != WEAK and link.tier in TIERS and \
                TIERS.index(link.tier) <= TIERS.index(tier_of.get(link.entity, UNRESOLVED)):
            tier_of[link.entity] = link.tier
    keys = sorted(tier_of)
    for row in db.query("SELECT DISTINCT m.entity, d.meta, d.title, d.authored_at FROM knowledge_mentions m"
                            " JOIN knowledge_chunks c ON c.id = m.chunk_id JOIN knowledge_documents d"
                            f" ON d.id = c.document_id WHERE d.kind = 'commit' AND m.entity IN {db.each}"
                            # as written in the message: not the symbols its diff touched (offline.document_entities)
                            " AND instr(lower(c.text), lower(m.name)) > 0", (db.many(keys),)):
        info = json.loads(row["meta"])
        sha = info.get("sha", "")
        named = _commit(info, row["title"], row["authored_at"], "its message names it")
        tier = tier_of[row["entity"]]  # how surely the name it writes is this symbol
        if "tier" in listed.get(sha, {}) and TIERS.index(listed[sha]["tier"]) < TIERS.index(tier):
            tier = listed[sha]["tier"]
        listed[sha] = {**listed.get(sha, {}), **named, "named": True, "tier": tier}
    by_date = sorted(listed.values(), key=lambda c: c["date"] or "", reverse=True)
    commits = sorted(by_date, key=lambda c: (not c.get("named"), c.get("sweep", False)))
    sweeps = sum(1 for c in commits if c.get("sweep"))
    out = {"listed": commits[:limit], "total": len(commits), "thin": thin, "sweeps": sweeps}
    history = get_meta(db, "history")
    if history and not history.get("available"):
        out["history"] = f"not read ({history.get('reason')})"
    return out


def _cut_commits(db: Database, code: Database, fqn: str, found: set[str]) -> list[tuple]:
    """The sweeps whose document kept only their first symbols (commits.SYMBOLS_KEPT) that touched the
    symbol past them, as the history store, which keeps them all, says; rows as `_commits` reads them."""
    cut = {json.loads(meta).get("sha"): (meta, title, authored_at, is_thin) for meta, title, authored_at, is_thin
           in db.rows("SELECT d.meta, d.title, d.authored_at, d.thin FROM knowledge_documents d WHERE d.id IN"
                      " (SELECT document_id FROM knowledge_commit_symbols GROUP BY document_id HAVING COUNT(*) >= ?)",
                      (SYMBOLS_KEPT,))}
    touched = first_touched(code, fqn, set(cut) - found) if set(cut) - found else {}
    return [(*cut[sha], how, name, SYMBOLS_KEPT) for sha, (name, how) in touched.items()]


def _commit(info: dict, subject: str, date: str | None, how: str) -> dict:
    return {"sha": info.get("sha", "")[:10], "date": date, "author": info.get("author"), "subject": subject,
            "how": how}


def _breadth(files: int, symbols: int) -> dict:
    return {"files": files, "symbols": symbols, "sweep": is_sweep(files, symbols)}


def _commits_left(commits: dict) -> str:
    """How many commits the limit left out, how many of those are sweeps, and the limit that lists them."""
    more = commits["total"] - len(commits["listed"])
    if not more:
        return f", {commits['sweeps']} of them sweeps listed last" if commits["sweeps"] else ""
    sweeps = commits["sweeps"] - sum(1 for c in commits["listed"] if c.get("sweep"))
    of_them = f", {sweeps} of them sweeps" if sweeps else ""
    return f" ({len(commits['listed'])} listed; {more} more{of_them}: a limit of {commits['total']} lists them all)"


def _summary(answer: dict, counts: Counter, built: dict | None) -> str:
    name = answer["symbol"] or answer["query"]
    if built is None:
        return f"{name}: the knowledge store is not built yet (run `tenure knowledge build`); mode: offline"
    parts = [counted(n, what) for what, n in counts.most_common()]
    if answer.get("evidence_via") and parts:
        parts[-1] += f" ({answer['evidence_via']} of these through its class, module, or what it reads or calls)"
    commits = answer["commits"]
    if commits["total"]:
        parts.append(counted(commits['total'], 'commit') + _commits_left(commits))
    thin = f"; {counted(commits['thin'], 'thin commit')} left out (their messages say nothing)" \
        if commits["thin"] else ""
    mode = answer["mode"]
    how = ("offline: entities are the code, decision ids and tickets the text names, linked by the sentences "
           "that name them together; descriptions and reports are extractive" if mode == "offline"
           else f"{answer['model_coverage']['text']}, with offline links")
    if mode == "offline" and built.get("model"):  # a model build that read nothing (its endpoint failed)
        how += f" ({answer['model_coverage']['text']})"
    if not parts:
        found = "nothing in the documents, threads or history names it"
        if answer["symbol"] is None and answer["lookup"]["how"] == "none":
            found = "no symbol or phrase by that name"
        return f"{name}: {found}{thin}; mode: {how}"
    return f"{name}: {', '.join(parts)}{thin}; mode: {how}"
