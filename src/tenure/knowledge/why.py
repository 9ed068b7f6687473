"""`why SYMBOL`: the decisions, incidents, constraints, threads and commits behind a symbol, each with
its source (document and section, PR number, commit), a quoted passage, the tier of the link between
the prose and the symbol, and the mode that extracted it.

Everything is read from what the build stored (a handful of indexed queries): nothing is extracted
or embedded at query time. A name that is no symbol (a config key, a concept) is looked up as a
phrase: what the documents say about it, marked ``unresolved``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from tenure.knowledge import grounding
from tenure.knowledge.offline import entity_key, sentences
from tenure.knowledge.sources import KIND_NOUNS, kind_rank
from tenure.knowledge.store import get_meta, model_coverage
from tenure.namespace.lookup import Lookup
from tenure.namespace.phrases import EXACT, STRONG, TIERS, UNRESOLVED, WEAK, PhraseMatch
from tenure.storage import Database
from tenure.words import counted

EVIDENCE_LIMIT = 12
COMMITS_LIMIT = 10
SWEEP_FILES = 10  # a diff past these touched the symbol among many: listed after focused ones
SWEEP_SYMBOLS = 25
MEMBER_TIER_PENALTY = 1  # a member's evidence ranks one tier below the symbol's own


@dataclass(frozen=True)
class _Link:
    entity: str
    fqn: str
    tier: str
    how: str


def why(db: Database, lookup: Lookup, limit: int = EVIDENCE_LIMIT,
        resolve: Callable[[str], PhraseMatch] | None = None) -> dict:
    """`resolve`: the join's ladder, asked when the query is neither a symbol's name nor a phrase the
    documents use (``flask.Flask.make_response`` for ``flask.app.Flask.make_response``)."""
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
        links = _links(db, fqn)
    else:
        links = [_Link(key, "", UNRESOLVED, "no one symbol by this name: what the documents say of the phrase")] \
            if db.rows("SELECT 1 FROM knowledge_entities WHERE key = ?", (key,)) else []
    evidence, counts = _evidence(db, links, limit)
    answer["evidence"] = evidence
    answer["evidence_total"] = sum(counts.values())
    answer["related"] = _related(db, links)
    answer["communities"] = _communities(db, [link.entity for link in links])
    answer["commits"] = _commits(db, fqn, links)
    answer["summary"] = {"text": _summary(answer, counts, built)}
    return answer


def _links(db: Database, fqn: str) -> list[_Link]:
    """The entities whose phrase names the symbol or one of its members (``fqn.*``)."""
    rows = db.rows("SELECT entity, fqn, tier, how FROM knowledge_entity_symbols WHERE fqn = ? OR (fqn > ? AND fqn < ?)",
                   (fqn, fqn + ".", fqn + "/"))  # '/' sorts right after '.': the range is fqn's dotted members
    return [_Link(*r) for r in rows]


def _rank(link: _Link, fqn_of_symbol: str | None) -> int:
    rank = TIERS.index(link.tier) if link.tier in TIERS else len(TIERS)
    return rank + (MEMBER_TIER_PENALTY if fqn_of_symbol and link.fqn != fqn_of_symbol else 0)


def _evidence(db: Database, links: list[_Link], limit: int) -> tuple[list[dict], Counter]:
    if not links:
        return [], Counter()
    by_entity: dict[str, _Link] = {}
    own = min((link.fqn for link in links if link.fqn), key=len, default=None)
    for link in links:
        if link.entity not in by_entity or _rank(link, own) < _rank(by_entity[link.entity], own):
            by_entity[link.entity] = link
    rows = db.query("SELECT m.entity, m.mode, m.name, m.description, c.id, c.section, c.line, c.text, d.kind,"
                        " d.ref, d.path, d.title, d.authored_at FROM knowledge_mentions m JOIN knowledge_chunks c"
                        " ON c.id = m.chunk_id JOIN knowledge_documents d ON d.id = c.document_id"
                        f" WHERE m.entity IN {db.each} AND d.kind <> 'commit'", (db.many(sorted(by_entity)),))
    items: dict[tuple[str, str], dict] = {}
    for row in rows:
        entity, mode, name, description, chunk_id, section, line, text, kind, ref, path, title, authored_at = \
            row.values()
        quote = _quote(text, f"{ref} {title} {section}", name, description, mode)
        if quote is None:
            continue  # a model's claim its passage does not bear out (stored before claims were checked)
        link = by_entity[entity]
        item = {"kind": kind, "what": KIND_NOUNS.get(kind, kind),
                "source": {"ref": ref, "title": title, "path": path, "section": section or None, "line": line or None,
                           "chunk": chunk_id, **({"date": authored_at} if authored_at else {})},
                "quote": quote, **({"model_says": description} if mode == "model" and description != quote else {}),
                "phrase": name, "symbol": link.fqn or None, "tier": link.tier, "how": link.how,
                "mode": mode, "_rank": (_rank(link, own), link.fqn != own, kind_rank(kind), -(len(quote) > 40), ref,
                                    line or 0)}
        seen = items.setdefault((ref, quote), item)  # one passage: listed once, with a model's description if any
        if seen is not item:
            better, other = sorted((item, seen), key=lambda i: (i["_rank"], "model_says" not in i))
            if "model_says" in other and "model_says" not in better:
                better["model_says"] = other["model_says"]
            items[(ref, quote)] = better
    ranked = sorted(items.values(), key=lambda i: i["_rank"])
    counts = Counter(i["what"] for i in ranked)
    for item in ranked:
        del item["_rank"]
    return ranked[:limit], counts


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
        " ORDER BY r.weight DESC LIMIT 10", tuple(keys) * 3)
    return [{"entity": name, "type": type_, "relationship": description, "weight": round(weight, 2), "mode": mode}
            for _, _, description, weight, mode, _, name, type_ in rows]


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


def _commits(db: Database, fqn: str | None, links: list[_Link]) -> dict:
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
    for meta, title, authored_at, is_thin, how, touched, symbols in rows:
        if is_thin:
            thin += 1
            continue
        info = json.loads(meta)
        what = "it" if touched == fqn else touched.removeprefix(fqn)
        listed.setdefault(info.get("sha", ""), {**_commit(info, title, authored_at, f"diff touched {what} ({how})"),
                                                **_breadth(len(info.get("files") or ()), symbols)})
    keys = sorted({link.entity for link in links if link.tier != WEAK})  # a weak link lists no commit by name
    for row in db.query("SELECT DISTINCT d.meta, d.title, d.authored_at FROM knowledge_mentions m"
                            " JOIN knowledge_chunks c ON c.id = m.chunk_id JOIN knowledge_documents d"
                            f" ON d.id = c.document_id WHERE d.kind = 'commit' AND m.entity IN {db.each}"
                            # as written in the message: not the symbols its diff touched (offline.document_entities)
                            " AND instr(lower(c.text), lower(m.name)) > 0", (db.many(keys),)):
        info = json.loads(row["meta"])
        sha = info.get("sha", "")
        named = _commit(info, row["title"], row["authored_at"], "its message names it")
        listed[sha] = {**listed.get(sha, {}), **named, "named": True}
    by_date = sorted(listed.values(), key=lambda c: c["date"] or "", reverse=True)
    commits = sorted(by_date, key=lambda c: (not c.get("named"), c.get("sweep", False)))
    sweeps = sum(1 for c in commits if c.get("sweep"))
    out = {"listed": commits[:COMMITS_LIMIT], "total": len(commits), "thin": thin, "sweeps": sweeps}
    history = get_meta(db, "history")
    if history and not history.get("available"):
        out["history"] = f"not read ({history.get('reason')})"
    return out


def _commit(info: dict, subject: str, date: str | None, how: str) -> dict:
    return {"sha": info.get("sha", "")[:10], "date": date, "author": info.get("author"), "subject": subject,
            "how": how}


def _breadth(files: int, symbols: int) -> dict:
    return {"files": files, "symbols": symbols, "sweep": files > SWEEP_FILES or symbols > SWEEP_SYMBOLS}


def _summary(answer: dict, counts: Counter, built: dict | None) -> str:
    name = answer["symbol"] or answer["query"]
    if built is None:
        return f"{name}: the knowledge store is not built yet (run `tenure knowledge build`); mode: offline"
    parts = [counted(n, what) for what, n in counts.most_common()]
    commits = answer["commits"]
    if commits["total"]:
        parts.append(counted(commits['total'], 'commit'))
    left = [f"{commits['thin']} thin left out"] if commits["thin"] else []
    left += [f"{commits['sweeps']} sweeps listed last"] if commits.get("sweeps") else []
    thin = f" ({', '.join(left)})" if left else ""
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
