"""Steps 3 and 5 with a model: descriptions summarised (many items per call) and community reports.

Summaries are asked for in batches of items up to SUMMARY_BATCH_TOKENS of descriptions (graphrag asks
once per entity); an item whose answer is missing keeps its extractive description and is asked again
by the next build. A report's citations of entities, relationships and sub-reports are turned into
the chunks they rest on, so every finding cites documents.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tenure.knowledge import prompts, tokens
from tenure.knowledge.answers import MalformedAnswer, ask_json, has_text
from tenure.knowledge.cache import CachedModel
from tenure.knowledge.providers.base import ProviderError
from tenure.storage import Database

SUMMARY_WORDS = 120
SUMMARY_BATCH_TOKENS = 3000
SUMMARY_ANSWER_TOKENS = 3000
REPORT_WORDS = 600
REPORT_ANSWER_TOKENS = 2000
CITES_PER_ID = 3
_CITE = re.compile(r"^\[?(e:.+|r:.+\|.+|c[0-9a-f]{15})\]?$")


def summarizer(model: CachedModel):
    def summarize(items: list[tuple[str, str, list[str]]]) -> dict[str, str]:
        out: dict[str, str] = {}
        for batch in _summary_batches(items):
            numbered = {f"i{n}": item for n, item in enumerate(batch, 1)}
            body = json.dumps([{"id": i, "name": name, "descriptions": descriptions}
                               for i, (_, name, descriptions) in numbered.items()], ensure_ascii=False, indent=0)
            messages = [{"role": "system", "content": prompts.SUMMARIZE.format(words=SUMMARY_WORDS)},
                        {"role": "user", "content": body}]
            try:
                answer, _ = ask_json(model, "summarisation", messages, SUMMARY_ANSWER_TOKENS, _has_summaries)
            except (MalformedAnswer, ProviderError):
                continue  # these items keep an extractive description; the next build asks again
            for i, text in answer["summaries"].items():
                if i in numbered and isinstance(text, str) and text.strip():
                    out[numbered[i][0]] = text.strip()
        return out
    return summarize


def _summary_batches(items: list[tuple[str, str, list[str]]]) -> list[list[tuple[str, str, list[str]]]]:
    batches: list[list] = []
    current: list = []
    used = 0
    for item in items:
        size = sum(tokens.count(d) for d in item[2]) + 10
        if current and used + size > SUMMARY_BATCH_TOKENS:
            batches.append(current)
            current, used = [], 0
        current.append(item)
        used += size
    if current:
        batches.append(current)
    return batches


def _has_summaries(value: dict[str, Any]) -> str | None:
    return None if isinstance(value.get("summaries"), dict) else "no object 'summaries'"


def report_writer(model: CachedModel, db: Database):
    def write(context: str, level: int) -> dict | None:
        messages = [{"role": "system", "content": prompts.REPORT.format(words=REPORT_WORDS)},
                    {"role": "user", "content": context}]
        try:
            answer, _ = ask_json(model, "community reports", messages, REPORT_ANSWER_TOKENS,
                                 has_text("title", "summary"))
        except (MalformedAnswer, ProviderError):
            return None
        findings = []
        for finding in answer.get("findings") or []:
            if not isinstance(finding, dict) or not isinstance(finding.get("summary"), str):
                continue
            cites = _chunks_of(db, [str(c) for c in finding.get("cites") or []])
            findings.append({"summary": finding["summary"], "explanation": str(finding.get("explanation") or ""),
                             "cites": cites, "refs": _refs(db, cites)})
        try:
            rating = min(10.0, max(0.0, float(answer.get("rating", 0))))
        except (TypeError, ValueError):
            rating = 0.0
        return {"title": answer["title"], "summary": answer["summary"], "rating": rating, "findings": findings}
    return write


def _chunks_of(db: Database, cites: list[str]) -> list[int]:
    """The chunks the cited entities, relationships and reports rest on (a few per id)."""
    out: list[int] = []
    for cite in cites:
        match = _CITE.match(cite.strip())
        if not match:
            continue
        ref = match.group(1)
        if ref.startswith("e:"):
            rows = db.rows("SELECT chunk_id FROM knowledge_mentions WHERE entity = ? ORDER BY chunk_id LIMIT ?",
                           (ref[2:], CITES_PER_ID))
        elif ref.startswith("r:"):
            source, _, target = ref[2:].partition("|")
            rows = db.rows("SELECT chunk_id FROM knowledge_links WHERE source = ? AND target = ? ORDER BY chunk_id"
                           " LIMIT ?", (source, target, CITES_PER_ID))
        else:
            found = db.rows("SELECT findings FROM knowledge_reports WHERE community = ?", (ref,))
            rows = [(c,) for f in (json.loads(found[0][0]) if found else []) for c in f.get("cites", [])][:CITES_PER_ID]
        out += [r[0] for r in rows if r[0] not in out]
    return out


def _refs(db: Database, chunk_ids: list[int]) -> list[str]:
    if not chunk_ids:
        return []
    rows = db.rows(f"SELECT DISTINCT d.ref FROM knowledge_chunks c JOIN knowledge_documents d ON d.id = c.document_id"
                   f" WHERE c.id IN ({', '.join('?' * len(chunk_ids))})", tuple(chunk_ids))
    return sorted(r[0] for r in rows)
