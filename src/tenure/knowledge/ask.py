"""`knowledge ask QUESTION [--global]`.

Local search starts from the entities the question names (code phrases, names of entities, and with
vectors the nearest entity descriptions), and gathers their descriptions, strongest relationships,
source passages and community reports. Global search is map-reduce over community reports: each
report relevant to the question gives scored points, the best are combined, every claim cites its
reports. With a model the answer is written by it (and cached like every call); offline the answer
is extractive, the passages quoted as they are, and says so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tenure.embeddings import EmbeddingError, EmbeddingProvider
from tenure.knowledge import prompts, themes, tokens
from tenure.knowledge.answers import MalformedAnswer, ask_json, has_lists, has_text
from tenure.knowledge.cache import CachedModel
from tenure.knowledge.offline import entity_key, extract, sentences
from tenure.knowledge.providers.base import ProviderError
from tenure.knowledge.store import get_meta, model_coverage
from tenure.knowledge.vectors import Vectors
from tenure.namespace.mentions import Mention
from tenure.namespace.phrases import EXACT, STRONG, TIERS, words_of
from tenure.storage import Database
from tenure.words import counted

SEED_ENTITIES = 10
RELATIONSHIPS = 12
PASSAGES = 8
REPORTS_MAPPED = 40  # global search maps the most relevant reports, not all of them
MAP_BATCH_TOKENS = 6000
POINTS_REDUCED = 20
ANSWER_TOKENS = 1500
_NGRAM = re.compile(r"[\w.#:/-]+")
CODE_TYPES = {"symbol", "module", "file", "config"}
_ADORNED = re.compile(r"[-=~^*#]{4,}")


@dataclass
class Searcher:
    db: Database
    model: CachedModel | None = None
    embedder: EmbeddingProvider | None = None
    mentions: Callable[[str], list[Mention]] | None = None  # the code names a text writes (tenure.namespace)

    def ask(self, question: str, global_: bool = False) -> dict:
        built = get_meta(self.db, "last_build")
        if built is None:
            return {"question": question, "mode": "offline", "search": "global" if global_ else "local",
                    "answer": "The knowledge store is not built yet: run `tenure knowledge build`.", "sources": []}
        out = self._global(question) if global_ else self._local(question)
        coverage = model_coverage(self.db, built.get("model") or "(earlier)")
        return {"question": question, "mode": "model" if self.model else "offline",
                "search": "global" if global_ else "local", **out,
                "corpus": coverage["text"] if coverage["read"] or built.get("model") else "no model read it: offline"}

    # local -------------------------------------------------------------------------------------
    def _local(self, question: str) -> dict:
        seeds = self.seed_entities(question)
        titled = self._sections_about(question)
        if not seeds and not titled:
            return {"answer": "No entity of the knowledge graph and no section title is named in the question"
                              + ("" if self._vector_model() else " (no embeddings to match it by meaning)") + ".",
                    "entities": [], "sources": []}
        marks = ", ".join("?" * len(seeds))
        entities = self.db.query("SELECT key, name, type, description, mode FROM knowledge_entities"
                                 f" WHERE key IN ({marks})", tuple(seeds))
        entities.sort(key=lambda e: seeds.index(e["key"]))
        for entity in entities:  # the link to the code, with its ladder tier: an answer that crosses stores says it
            entity["symbols"] = [{"fqn": fqn, "tier": tier} for fqn, tier in self.db.rows(
                "SELECT fqn, tier FROM knowledge_entity_symbols WHERE entity = ? ORDER BY tier, fqn LIMIT 5",
                (entity["key"],))]
        relationships = self.db.query(
            f"SELECT source, target, description, weight, mode FROM knowledge_relationships WHERE source IN ({marks})"
            f" OR target IN ({marks}) ORDER BY weight DESC LIMIT {RELATIONSHIPS}", tuple(seeds) * 2)
        passages = self.db.query(
            "SELECT DISTINCT c.id, c.section, c.text, d.ref, d.kind, d.path FROM knowledge_mentions m"
            " JOIN knowledge_chunks c ON c.id = m.chunk_id JOIN knowledge_documents d ON d.id = c.document_id"
            f" WHERE m.entity IN ({marks}) ORDER BY c.id LIMIT 200", tuple(seeds)) if seeds else []
        passages = self._rank_passages(question, titled + [p for p in passages if p not in titled])[:PASSAGES]
        sources = [{"id": f"t:{p['id']}", "ref": p["ref"], "section": p["section"], "path": p["path"]}
                   for p in passages]
        if self.model is None:
            lines = [f"- “{_excerpt(p['text'], question)}” [{p['ref']}" + (f", {p['section']}" if p["section"] else "")
                     + "]" for p in passages[:4]]
            lines += [f"- **{e['name']}** ({_linked(e)}): {_said(e)}{e['description']}" for e in entities[:5]]
            lines += [f"- {_said(r)}{r['description']} [{r['source']} — {r['target']}]" for r in relationships[:6]
                      if not r["description"].startswith("both named in section")]
            return {"answer": "Extractive (offline mode: quoted, not composed):\n" + "\n".join(lines),
                    "entities": entities, "relationships": relationships, "sources": sources}
        context = "\n".join(
            ["Entities:"] + [f"[e:{e['key']}] {e['name']} ({e['type']}): {e['description']}" for e in entities]
            + ["Relationships:"] + [f"[r:{r['source']}|{r['target']}] {r['description']}" for r in relationships]
            + ["Source passages:"] + [f"[t:{p['id']}] ({p['ref']}, {p['section']}) {p['text']}" for p in passages])
        messages = [{"role": "system", "content": prompts.LOCAL},
                    {"role": "user", "content": f"Question: {question}\n\n{tokens.cut(context, 10000)}"}]
        try:
            answer, _ = ask_json(self.model, "local search", messages, ANSWER_TOKENS, has_text("answer"))
            text = answer["answer"]
        except (MalformedAnswer, ProviderError) as exc:
            text = f"The model gave no usable answer ({exc}); the entities and passages found are listed."
        return {"answer": text, "entities": entities, "relationships": relationships, "sources": sources}

    def seed_entities(self, question: str) -> list[str]:
        """Entity keys the question names: its code phrases and the entities joined to the symbols they
        name, word n-grams that are entity names (a plain word only of an entity that is no code: "and",
        "with" are English), then the entities nearest in meaning (with vectors)."""
        found: list[str] = []
        candidates = list(extract(question, "").mentions)
        for mention in self.mentions(question) if self.mentions else ():
            candidates.append(entity_key(mention.name))
            if len(mention.symbols) == 1 and mention.tier in (EXACT, STRONG):
                candidates += [r[0] for r in self.db.rows(
                    "SELECT s.entity FROM knowledge_entity_symbols s JOIN knowledge_entities e ON e.key = s.entity"
                    " WHERE s.fqn = ? AND s.tier IN ('exact', 'strong') ORDER BY e.mentions DESC LIMIT 3",
                    (mention.symbols[0],))]
        words = _NGRAM.findall(question)
        grams = [entity_key(" ".join(words[i:i + n])) for n in (3, 2, 1) for i in range(len(words) - n + 1)]
        known = {r["key"]: r["type"] for r in self.db.query(f"SELECT key, type FROM knowledge_entities WHERE key IN"
                                                            f" {self.db.each}", (self.db.many(candidates + grams),))}
        candidates += [g for g in grams if not (g.isalpha() and g.islower() and known.get(g) in CODE_TYPES)]
        found += [c for c in candidates if c in known and c not in found]
        for key, score in self._nearest("entity", question, SEED_ENTITIES):
            if score > 0.35 and key not in found:
                found.append(key)
        return found[:SEED_ENTITIES]

    def _rank_passages(self, question: str, passages: list[dict]) -> list[dict]:
        """By the question's words in the section's title (counted thrice), then in the text."""
        asked = words_of(question)
        def score(p: dict) -> int:
            return 3 * len(asked & words_of(p["section"])) + len(asked & words_of(p["text"]))

        return sorted(passages, key=lambda p: (-score(p), p["id"]))

    def _sections_about(self, question: str) -> list[dict]:
        """Chunks of the documents (not commits) whose section title has two of the question's words or more:
        "why is the application object explicit" finds "The Explicit Application Object"."""
        asked = words_of(question)
        rows = self.db.query("SELECT c.id, c.section, c.text, d.ref, d.kind, d.path FROM knowledge_chunks c"
                             " JOIN knowledge_documents d ON d.id = c.document_id WHERE d.kind <> 'commit'")
        scored = [(len(asked & words_of(r["section"])), r) for r in rows]
        return [r for n, r in sorted(scored, key=lambda x: (-x[0], x[1]["id"])) if n >= 2][:PASSAGES]

    # global ------------------------------------------------------------------------------------
    def _global(self, question: str) -> dict:
        reports = self.db.query("SELECT r.community, r.title, r.summary, r.findings, r.rating, r.mode, c.level, c.size"
                                " FROM knowledge_reports r JOIN knowledge_communities c ON c.id = r.community")
        if not reports:
            return {"answer": "No community reports yet (the graph has no relationships): nothing to search globally.",
                    "sources": []}
        ranked = self._rank_reports(question, reports)
        chosen = _distinct([r for r, score in ranked if score > 0])[:REPORTS_MAPPED]
        if not chosen:
            return {"answer": "No community report is about the question's terms"
                              + ("" if self._vector_model() else " (no embeddings to match it by meaning)") + ".",
                    "sources": [], "reports_considered": len(reports)}
        if self.model is None:
            return self._global_extractive(question, chosen, len(reports))
        points = self._map(question, chosen)
        best = sorted(points, key=lambda p: -p["score"])[:POINTS_REDUCED]
        sources = [{"id": r["community"], "title": r["title"], "mode": r["mode"]} for r in chosen]
        if not best:
            return {"answer": "The reports mapped hold nothing that answers the question.", "points": [],
                    "sources": sources, "reports_considered": len(reports), "reports_mapped": len(chosen)}
        messages = [{"role": "system", "content": prompts.REDUCE},
                    {"role": "user", "content": f"Question: {question}\n\nPoints:\n" + "\n".join(
                        f"- ({p['score']}) {p['description']}" for p in best)}]
        try:
            answer, _ = ask_json(self.model, "global search", messages, ANSWER_TOKENS, has_text("answer"))
            text = answer["answer"]
        except (MalformedAnswer, ProviderError) as exc:
            text = f"The model could not combine the points ({exc}); the best points are listed."
        return {"answer": text, "points": best, "sources": sources, "reports_considered": len(reports),
                "reports_mapped": len(chosen)}

    def _global_extractive(self, question: str, chosen: list[dict], considered: int) -> dict:
        """Offline map-reduce: each relevant report's findings are its partial answers, scored by the
        report's relevance; reduced into the recurring themes they share (knowledge.themes), each with the
        sentences and commits behind it."""
        points: dict[str, dict] = {}
        for rank, report in enumerate(chosen):
            for finding in json.loads(report["findings"]):
                points.setdefault(finding["summary"], {
                    "description": finding["summary"], "report": report["community"],
                    "refs": finding.get("refs", []), "score": round(100 / (1 + rank), 1)})
        best = sorted(points.values(), key=lambda p: -p["score"])
        found, rest = themes.group(best, question, self._joined)
        lines = []
        for n, theme in enumerate(found, 1):
            shown = theme.as_dict()
            behind = [counted(len(shown["documents"]), "document")] if shown["documents"] else []
            behind += [counted(len(shown["commits"]), "commit") + f" ({', '.join(shown['commits'][:3])}"
                       + (" …)" if len(shown["commits"]) > 3 else ")")] if shown["commits"] else []
            kind = f"{theme.kind}, {theme.tier}" if theme.tier else theme.kind
            lines.append(f"{n}. {theme.name} ({kind}): {counted(shown['sentences'], 'sentence')} from "
                         + " and ".join(behind))
            lines += [f"   - {p['description']} [{', '.join(p['refs'][:3]) or p['report']}]" for p in shown["points"]]
        if rest:
            lines.append(f"Not recurring ({counted(len(rest), 'sentence')}), the most relevant:")
            lines += [f"   - {p['description']} [{', '.join(p['refs'][:3]) or p['report']}]" for p in rest[:3]]
        head = (f"Extractive (offline mode: {counted(len(found), 'recurring theme')} across "
                f"{counted(len(chosen), 'community report')}, grouped by the code, tickets and words their central "
                "sentences share; quoted, not composed):")
        return {"answer": "\n".join([head, *lines]), "themes": [t.as_dict() for t in found],
                "points": best[:POINTS_REDUCED], "reports_considered": considered, "reports_mapped": len(chosen),
                "sources": [{"id": r["community"], "title": r["title"], "mode": r["mode"]} for r in chosen]}

    def _joined(self, keys: set[str]) -> dict[str, tuple[str, str]]:
        """Entity key -> (fqn, tier) for the entities the join linked to one symbol, exact or strong."""
        rows = self.db.query("SELECT entity, MIN(fqn) AS fqn, MIN(tier) AS tier, COUNT(*) AS n FROM"
                             f" knowledge_entity_symbols WHERE entity IN {self.db.each} AND tier IN ('exact', 'strong')"
                             " GROUP BY entity", (self.db.many(sorted(keys)),))
        return {r["entity"]: (r["fqn"], r["tier"]) for r in rows if r["n"] == 1}

    def _map(self, question: str, chosen: list[dict]) -> list[dict]:
        assert self.model is not None
        points: list[dict] = []
        batch: list[str] = []
        used = 0
        batches: list[list[str]] = []
        for report in chosen:
            text = f"[{report['community']}] {report['title']}: {report['summary']}\n" + "\n".join(
                f"- {f['summary']}" for f in json.loads(report["findings"]))
            size = tokens.count(text)
            if batch and used + size > MAP_BATCH_TOKENS:
                batches.append(batch)
                batch, used = [], 0
            batch.append(text)
            used += size
        if batch:
            batches.append(batch)
        for part in batches:
            messages = [{"role": "system", "content": prompts.MAP},
                        {"role": "user", "content": f"Question: {question}\n\nReports:\n" + "\n\n".join(part)}]
            try:
                answer, _ = ask_json(self.model, "global search", messages, ANSWER_TOKENS, has_lists("points"))
            except (MalformedAnswer, ProviderError):
                continue
            for point in answer.get("points") or []:
                if isinstance(point, dict) and isinstance(point.get("description"), str):
                    try:
                        score = float(point.get("score", 0))
                    except (TypeError, ValueError):
                        score = 0.0
                    if score > 0:
                        points.append({"description": point["description"], "score": score})
        return points

    def _rank_reports(self, question: str, reports: list[dict]) -> list[tuple[dict, float]]:
        asked = words_of(question)
        near = dict(self._nearest("report", question, len(reports)))
        scored = []
        for report in reports:
            overlap = len(asked & words_of(f"{report['title']} {report['summary']} {report['findings']}"))
            score = overlap / max(1, len(asked)) + max(0.0, near.get(report["community"], 0.0) - 0.2)
            scored.append((report, round(score, 4)))
        return sorted(scored, key=lambda x: (-x[1], -x[0]["rating"], x[0]["community"]))

    # vectors -----------------------------------------------------------------------------------
    def _vector_model(self) -> str | None:
        if self.embedder is None:
            return None
        return self.embedder.name if self.db.rows("SELECT 1 FROM knowledge_vectors WHERE model = ? LIMIT 1",
                                                  (self.embedder.name,)) else None

    def _nearest(self, kind: str, text: str, k: int) -> list[tuple[str, float]]:
        model = self._vector_model()
        if model is None or self.embedder is None:
            return []
        try:
            query = self.embedder.embed([text])[0]
        except EmbeddingError:
            return []
        return Vectors.load(self.db, kind, model).nearest(np.asarray(query), k)


def _said(item: dict) -> str:
    """A model's description is labelled as the model's (a passage is quoted as the source's)."""
    return "(the model's description) " if item["mode"] == "model" else ""


def _linked(entity: dict) -> str:
    """`symbol; exact: flask.helpers.url_for`: the entity's type and the symbols the join linked it to."""
    linked = entity["symbols"]
    if not linked:
        return entity["type"] + ("; names no symbol" if entity["type"] in CODE_TYPES else "")
    tiers = sorted({s["tier"] for s in linked}, key=TIERS.index)
    return f"{entity['type']}; {'/'.join(tiers)}: " + ", ".join(s["fqn"] for s in linked[:3]) \
        + (" …" if len(linked) > 3 else "")


def _distinct(reports: list[dict]) -> list[dict]:
    """Reports that say something the ones before did not: a community whose parts are one community
    has that one's findings and title, and would be listed twice."""
    seen: set[str] = set()
    titles: set[str] = set()
    kept = []
    for report in reports:
        findings = {f["summary"] for f in json.loads(report["findings"])}
        if (findings and findings <= seen) or report["title"] in titles:
            continue
        seen |= findings
        titles.add(report["title"])
        kept.append(report)
    return kept


def _excerpt(text: str, question: str, chars: int = 300) -> str:
    """The sentence of a passage that shares most words with the question."""
    asked = words_of(question)
    prose = [s for s in sentences(text) if not _ADORNED.search(s)] or [text]  # (a heading is no answer)
    best = max(prose, key=lambda s: len(asked & words_of(s)))
    return best[:chars]
