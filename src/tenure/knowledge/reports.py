"""Step 5: a report per community, bottom-up: the deepest communities from their entities and
relationships, a community above from the reports of the communities it was split into.

A report is made again only when what it is made of changed (its inputs' hash: of the whole context,
so knowing it needs no tokenizer; the model reads the context cut at MAX_INPUT_TOKENS): an unchanged
community keeps its report and costs no call. After an update only the communities it can have changed
are looked at: those with a changed entity, those without a report (new, or failed), those a model
can now write, and the communities above them. A model writes reports for communities of at least
`min_report_size` entities (`write` given); otherwise, and for smaller ones, the report is extractive:
its most central sentences (those linking the community's best-connected entities), each citing the
chunks it came from.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from tenure.knowledge import tokens
from tenure.knowledge.store import digest
from tenure.storage import Database

MAX_INPUT_TOKENS = 8000  # a report's input is cut here (graphrag: max_input_length 8000)
FINDINGS = 5
TITLE_NAMES = 3

# (context, level) -> {"title", "summary", "rating", "findings": [{"summary", "explanation", "cites": [ids]}]}
# or None when the model gave nothing usable (recorded as failed; the report stays extractive)
WriteReport = Callable[[str, int], dict | None]


@dataclass
class _Community:
    id: str
    level: int
    parent: str | None
    members: list[str]


def build_reports(db: Database, write: WriteReport | None, min_report_size: int,
                  progress: Callable[[str, int, int], None] | None = None, touched: set[str] | None = None) -> dict:
    """`touched`: the entities the merge changed (None: all); a community none of whose members changed,
    and whose parts kept their reports, keeps its report without its inputs being looked at."""
    tree = {r[0]: (r[1], r[2]) for r in db.rows("SELECT id, level, parent FROM knowledge_communities")}
    stored = {r[0]: (r[1], r[2]) for r in db.rows("SELECT community, inputs_hash, mode FROM knowledge_reports")}
    children: dict[str, list[str]] = defaultdict(list)
    for cid, (_, parent) in tree.items():
        if parent:
            children[parent].append(cid)
    looked_at = set(tree) if touched is None else _reach(db, tree, stored, touched, write is not None, min_report_size)
    communities = _load(db, looked_at)
    entities = _entities(db, {m for c in communities.values() for m in c.members})
    made = {"model": 0, "offline": 0, "kept": len(tree) - len(communities), "failed": 0}
    order = sorted(communities.values(), key=lambda c: (-c.level, c.id))
    redone: set[str] = set()
    for done, community in enumerate(order, 1):
        model = write is not None and len(community.members) >= min_report_size
        subs = sorted(children.get(community.id, []))
        old_inputs, old_mode = stored.get(community.id, ("", ""))
        upgrade = model and old_mode != "model"
        if (touched is not None and old_inputs and not upgrade and not redone.intersection(subs)
                and touched.isdisjoint(community.members)):
            made["kept"] += 1
            continue
        context = _context(db, community, entities, subs)
        inputs = digest(context)
        if old_inputs == inputs and not upgrade:  # a model's report outlives a build without the model
            made["kept"] += 1
        else:
            redone.add(community.id)
            report = write(tokens.cut(context, MAX_INPUT_TOKENS), community.level) \
                if model and write is not None else None
            if model and report is None:
                made["failed"] += 1
            mode = "model" if report is not None else "offline"
            if report is None:
                report = _extractive(db, community, entities, subs)
            made[mode] += 1
            with db.transaction():
                db.execute(
                    "INSERT INTO knowledge_reports (community, title, summary, findings, rating, mode, inputs_hash)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (community) DO UPDATE SET title = excluded.title,"
                    " summary = excluded.summary, findings = excluded.findings, rating = excluded.rating,"
                    " mode = excluded.mode, inputs_hash = excluded.inputs_hash",
                    (community.id, report["title"], report["summary"], json.dumps(report["findings"]),
                     float(report["rating"]), mode, "" if model and mode != "model" else inputs))
        if progress:
            progress("community reports", done, len(order))
    return {"reports": len(tree), **made}


def _reach(db: Database, tree: dict[str, tuple[int, str | None]], stored: dict[str, tuple[str, str]],
           touched: set[str], model: bool, min_report_size: int) -> set[str]:
    """The communities whose report an update can have changed: those with a touched member, without a
    usable report (new, or the model's failed: stored without its inputs), or that a model now writes
    in place of an extractive one, and every community above one of them (it is made from their reports)."""
    sql = f"SELECT DISTINCT community FROM knowledge_community_members WHERE entity IN {db.each}"
    found = {r["community"] for r in db.query(sql, (db.many(sorted(touched)),))}
    found |= {cid for cid in tree if not stored.get(cid, ("", ""))[0]}
    if model:
        found |= {r[0] for r in db.rows("SELECT c.id FROM knowledge_communities c LEFT JOIN knowledge_reports r"
                                        " ON r.community = c.id WHERE c.size >= ? AND r.mode IS NOT 'model'",
                                        (min_report_size,))}
    for cid in list(found):
        parent = tree.get(cid, (0, None))[1]
        while parent is not None and parent not in found:
            found.add(parent)
            parent = tree.get(parent, (0, None))[1]
    return found


def _load(db: Database, ids: set[str]) -> dict[str, _Community]:
    members: dict[str, list[str]] = defaultdict(list)
    for community, entity in db.rows("SELECT community, entity FROM knowledge_community_members"
                                     f" WHERE community IN {db.each} ORDER BY entity", (db.many(sorted(ids)),)):
        members[community].append(entity)
    return {cid: _Community(cid, level, parent, members[cid]) for cid, level, parent in db.rows(
        f"SELECT id, level, parent FROM knowledge_communities WHERE id IN {db.each}", (db.many(sorted(ids)),))}


def _entities(db: Database, keys: set[str]) -> dict[str, tuple]:
    """key -> (name, type, description, degree) of these entities."""
    return {r[0]: r[1:] for r in db.rows("SELECT key, name, type, description, degree FROM knowledge_entities"
                                         f" WHERE key IN {db.each}", (db.many(sorted(keys)),))}


def _context(db: Database, community: _Community, entities: dict[str, tuple], subs: list[str]) -> str:
    """What the report is written from, as the model reads it: ids let its findings cite."""
    lines: list[str] = []
    if subs:
        lines.append("Reports of the communities it is made of:")
        for row in db.rows(f"SELECT community, title, summary FROM knowledge_reports WHERE community IN "
                           f"({', '.join('?' * len(subs))}) ORDER BY rating DESC, community", tuple(subs)):
            lines.append(f"[{row[0]}] {row[1]}: {row[2]}")
    ranked = sorted(community.members, key=lambda k: (-(entities[k][3] if k in entities else 0), k))
    lines.append("Entities:")
    for key in ranked:
        if key in entities:
            name, type_, description, _ = entities[key]
            lines.append(f"[e:{key}] {name} ({type_}): {description}")
    lines.append("Relationships:")
    for source, target, description, weight in _relationships(db, community.members):
        lines.append(f"[r:{source}|{target}] {source} — {target} ({weight:g}): {description}")
    return "\n".join(lines)


def _relationships(db: Database, members: list[str]) -> list[tuple[str, str, str, float]]:
    inside = set(members)
    rows = [r for r in db.rows(f"SELECT source, target, description, weight FROM knowledge_relationships WHERE source"
                               f" IN {db.each}", (db.many(members),)) if r[1] in inside]
    return sorted(rows, key=lambda r: (-r[3], r[0], r[1]))


def _extractive(db: Database, community: _Community, entities: dict[str, tuple], subs: list[str]) -> dict:
    ranked = sorted((k for k in community.members if k in entities), key=lambda k: (-entities[k][3], k))
    names = [entities[k][0] for k in ranked[:TITLE_NAMES]]
    findings = _central_sentences(db, community.members, entities)
    if subs:  # the findings of the parts, best first, where this level's own sentences are few
        for row in db.rows(f"SELECT findings FROM knowledge_reports WHERE community IN ({', '.join('?' * len(subs))})",
                           tuple(subs)):
            findings += [f for f in json.loads(row[0]) if f not in findings]
        findings.sort(key=lambda f: -f.get("score", 0))
    findings = findings[:FINDINGS]
    sources = sorted({ref for f in findings for ref in f.get("refs", [])})
    weight = sum(f.get("score", 0) for f in findings)
    named = f"; named in {', '.join(sources[:6])}" + (" and more" if len(sources) > 6 else "") if sources else ""
    summary = f"{len(community.members)} entities around {', '.join(names)}{named}"
    return {"title": ", ".join(names) or community.id, "summary": summary,
            "rating": round(min(10.0, 2.0 * math.log2(1 + weight)), 1), "findings": findings}


def _central_sentences(db: Database, members: list[str], entities: dict[str, tuple]) -> list[dict]:
    """Distinct sentences that link two members, scored by the link's weight and how connected its ends
    are: what the community is most about."""
    inside = set(members)
    scored: dict[str, dict] = {}
    rows = db.rows("SELECT l.source, l.target, l.description, l.weight, l.chunk_id, d.ref FROM knowledge_links l"
                   " JOIN knowledge_chunks c ON c.id = l.chunk_id JOIN knowledge_documents d"
                   f" ON d.id = c.document_id WHERE l.source IN {db.each}", (db.many(members),))
    for source, target, sentence, weight, chunk_id, ref in rows:
        if target not in inside or sentence.startswith("both named in section"):
            continue
        score = weight * (1 + math.log1p(entities.get(source, (0, 0, 0, 0))[3])
                          + math.log1p(entities.get(target, (0, 0, 0, 0))[3]))
        item = scored.setdefault(sentence, {"summary": sentence, "explanation": "", "cites": [], "refs": [],
                                            "score": 0.0})
        item["score"] = round(max(item["score"], score), 3)
        if chunk_id not in item["cites"]:
            item["cites"].append(chunk_id)
        if ref not in item["refs"]:
            item["refs"].append(ref)
    return sorted(scored.values(), key=lambda f: (-f["score"], f["summary"]))[:FINDINGS]
