"""Step 2 with a model: entities and relationships from the chunks no model has read yet.

Small chunks share a call: chunks are packed, in document order, into batches of up to
`batch_tokens` (a commit message is 50 tokens: graphrag makes two calls for each). Every chunk in a
batch is a text unit with an id, and the model says which units each entity and relationship came
from. A batch of at least `glean_min_tokens` gets `gleanings` more passes asking for what was missed.
A malformed answer is repaired once; a batch still unreadable is recorded failed (with the reason)
on each of its chunks, and the build goes on. Only pending chunks are read: a rebuild asks nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tenure.knowledge import prompts, tokens
from tenure.knowledge.answers import MalformedAnswer, ask_json, has_lists
from tenure.knowledge.cache import CachedModel
from tenure.knowledge.config import KnowledgeConfig
from tenure.knowledge.offline import entity_key
from tenure.knowledge.providers.base import Message, ProviderError
from tenure.knowledge.sources import KIND_NOUNS
from tenure.knowledge.store import mark_dirty
from tenure.storage import Database

ANSWER_TOKENS = 2500
_UNIT = re.compile(r"^u(\d+)$")


@dataclass(frozen=True)
class Unit:
    chunk_id: int
    label: str  # what the document is, for the model: 'decision ADR-0003 "Use Postgres", section "Context"'
    text: str
    tokens: int


def pending_batches(db: Database, config: KnowledgeConfig) -> list[list[Unit]]:
    rows = db.rows(
        "SELECT c.id, c.text, c.tokens, c.section, d.kind, d.ref, d.title FROM knowledge_chunks c"
        " JOIN knowledge_documents d ON d.id = c.document_id WHERE c.model_state IS NULL ORDER BY d.key, c.ordinal")
    batches: list[list[Unit]] = []
    current: list[Unit] = []
    used = 0
    for chunk_id, text, stored, section, kind, ref, title in rows:
        label = f'{KIND_NOUNS.get(kind, kind)} {ref} "{title}"' + (f', section "{section}"' if section else "")
        size = tokens.recorded(stored, text)
        unit = Unit(chunk_id, label, text, size)
        if current and used + size > config.batch_tokens:
            batches.append(current)
            current, used = [], 0
        current.append(unit)
        used += size
    if current:
        batches.append(current)
    return batches


def extract_all(db: Database, model: CachedModel, config: KnowledgeConfig,
                progress: Callable[[str, int, int], None] | None = None) -> dict:
    batches = pending_batches(db, config)
    done = failed = 0
    for number, batch in enumerate(batches, 1):
        try:
            items = extract_batch(model, batch, config)
        except (MalformedAnswer, ProviderError) as exc:
            _mark(db, batch, "failed", str(exc)[:500])
            failed += 1
        else:
            with db.transaction():
                _write(db, batch, items)
                _mark(db, batch, "done", None)
            done += 1
        if progress:
            progress("extraction", number, len(batches))
    return {"batches": len(batches), "done": done, "failed": failed,
            "chunks": sum(len(b) for b in batches)}


def extract_batch(model: CachedModel, batch: list[Unit], config: KnowledgeConfig) -> dict[str, list]:
    text = "\n\n".join(f"[u{i}] ({unit.label})\n{unit.text}" for i, unit in enumerate(batch, 1))
    messages: list[Message] = [{"role": "system", "content": prompts.EXTRACT}, {"role": "user", "content": text}]
    found, conversation = ask_json(model, "extraction", messages, ANSWER_TOKENS,
                                   has_lists("entities", "relationships"))
    entities, relationships = list(found.get("entities") or []), list(found.get("relationships") or [])
    if sum(u.tokens for u in batch) >= config.glean_min_tokens:
        for _ in range(config.gleanings):
            asked = [*conversation, {"role": "user", "content": prompts.GLEAN}]
            more, conversation = ask_json(model, "gleaning", asked, ANSWER_TOKENS,
                                          has_lists("entities", "relationships"))
            new_entities, new_relationships = more.get("entities") or [], more.get("relationships") or []
            entities += new_entities
            relationships += new_relationships
            if not new_entities and not new_relationships:
                break
    return {"entities": entities, "relationships": relationships}


def _units(item: dict[str, Any], batch: list[Unit]) -> list[int]:
    """The chunks an item came from; all of the batch's when the model did not say (or said nonsense)."""
    named = []
    for unit in item.get("units") or []:
        match = _UNIT.match(str(unit).strip())
        if match and 1 <= int(match.group(1)) <= len(batch):
            named.append(batch[int(match.group(1)) - 1].chunk_id)
    return named or [u.chunk_id for u in batch]


def _write(db: Database, batch: list[Unit], items: dict[str, list]) -> None:
    mentions: dict[tuple[int, str], tuple] = {}
    for item in items["entities"]:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not item["name"].strip():
            continue
        name = item["name"].strip()
        type_ = str(item.get("type") or "concept").strip().lower()
        if type_ not in prompts.ENTITY_TYPES:
            type_ = "concept"
        key = entity_key(name, type_)
        description = str(item.get("description") or "").strip() or name
        for chunk_id in _units(item, batch):
            mentions.setdefault((chunk_id, key), (chunk_id, key, name, type_, description))
    links: dict[tuple[int, str, str], tuple] = {}
    for item in items["relationships"]:
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) and item[k].strip()
                                                 for k in ("source", "target")):
            continue
        a, b = entity_key(item["source"]), entity_key(item["target"])
        if a == b:
            continue
        description = str(item.get("description") or "").strip() or f"{item['source']} — {item['target']}"
        weight = _weight(item.get("weight"))
        source, target = sorted((a, b))
        for chunk_id in _units(item, batch):
            for key, name in ((a, item["source"]), (b, item["target"])):  # an endpoint the model did not list
                mentions.setdefault((chunk_id, key), (chunk_id, key, name.strip(), "concept", description))
            links.setdefault((chunk_id, source, target), (chunk_id, source, target, description, weight))
    mark_dirty(db, {key for _, key in mentions})
    db.executemany("INSERT INTO knowledge_mentions (chunk_id, entity, mode, name, type, description)"
                   " VALUES (?, ?, 'model', ?, ?, ?) ON CONFLICT DO NOTHING", list(mentions.values()))
    db.executemany("INSERT INTO knowledge_links (chunk_id, source, target, mode, description, weight)"
                   " VALUES (?, ?, ?, 'model', ?, ?) ON CONFLICT DO NOTHING", list(links.values()))


def _weight(value: Any) -> float:
    try:
        weight = float(value)
    except (TypeError, ValueError):
        return 1.0
    return min(10.0, max(0.1, weight)) / 5.0  # the model's 1-10 around offline's 1.0 per sentence


def _mark(db: Database, batch: list[Unit], state: str, reason: str | None) -> None:
    with db.transaction():
        db.executemany("UPDATE knowledge_chunks SET model_state = ?, model_reason = ? WHERE id = ?",
                       [(state, reason, u.chunk_id) for u in batch])
