"""Step 5: a report per community, bottom-up: the deepest communities from their entities and
relationships, a community above from the reports of the communities it was split into.

A report is made again only when what it is made of changed (its inputs' hash): an unchanged community
keeps its report and costs no call. A model writes reports for communities of at least
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
    communities = _load(db)
    children: dict[str, list[str]] = defaultdict(list)
    for c in communities.values():
        if c.parent:
            children[c.parent].append(c.id)
    entities = {r[0]: r[1:] for r in db.rows("SELECT key, name, type, description, degree FROM knowledge_entities")}
    stored = {r[0]: (r[1], r[2]) for r in db.rows("SELECT community, inputs_hash, mode FROM knowledge_reports")}
    made = {"model": 0, "offline": 0, "kept": 0, "failed": 0}
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
            report = write(context, community.level) if model and write is not None else None
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
    return {"reports": len(order), **made}


def _load(db: Database) -> dict[str, _Community]:
    members: dict[str, list[str]] = defaultdict(list)
    for community, entity in db.rows("SELECT community, entity FROM knowledge_community_members ORDER BY entity"):
        members[community].append(entity)
    return {cid: _Community(cid, level, parent, members[cid])
            for cid, level, parent in db.rows("SELECT id, level, parent FROM knowledge_communities")}


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
    return tokens.cut("\n".join(lines), MAX_INPUT_TOKENS)


def _relationships(db: Database, members: list[str]) -> list[tuple[str, str, str, float]]:
    inside = set(members)
    rows = [tuple(r.values()) for r in db.query("SELECT source, target, description, weight FROM"
                                                   f" knowledge_relationships WHERE source IN {db.each}",
                                                       (db.many(members),))
            if r["target"] in inside]
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
    rows = db.query("SELECT l.source, l.target, l.description, l.weight, l.chunk_id, d.ref FROM knowledge_links l"
                        " JOIN knowledge_chunks c ON c.id = l.chunk_id JOIN knowledge_documents d"
                        f" ON d.id = c.document_id WHERE l.source IN {db.each}", (db.many(members),))
    for row in rows:
        source, target, sentence, weight, chunk_id, ref = row.values()
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
