"""Step 2 with a model: entities and relationships from the chunks no model has read yet.

Small chunks share a call: chunks are packed, in document order, into batches of up to
`batch_tokens` (a commit message is 50 tokens: graphrag makes two calls for each). Every chunk in a
batch is a text unit with an id, and the model says which units each entity and relationship came
from. A batch of at least `glean_min_tokens` gets `gleanings` more passes asking for what was missed.
A malformed answer is repaired once; a batch still unreadable (or not answered) is recorded failed,
with the reason, on each of its chunks, counted in the build's report, and read again by the next
build. Only chunks no model has read are asked about: a rebuild asks nothing.

An answer is untrusted input. What one batch may add is capped (MAX_ENTITIES, MAX_RELATIONSHIPS, names
and descriptions cut), and an item is kept only for the units that name it and whose text supports its
description (tenure.knowledge.grounding): a model cannot tie its own words to a document.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tenure.knowledge import grounding, prompts, tokens
from tenure.knowledge.answers import MalformedAnswer, ask_json, has_lists
from tenure.knowledge.cache import CachedModel
from tenure.knowledge.config import KnowledgeConfig
from tenure.knowledge.offline import entity_key
from tenure.knowledge.providers.base import Message, ProviderError
from tenure.knowledge.sources import KIND_NOUNS
from tenure.knowledge.store import mark_dirty
from tenure.storage import Database

ANSWER_TOKENS = 2500
MAX_ENTITIES = 80  # per batch, gleanings included: 1,200 tokens of text name far fewer
MAX_RELATIONSHIPS = 120
MAX_NAME_CHARS = 120  # a longer "name" is prose, not an entity
MAX_DESCRIPTION_CHARS = 600
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
        " JOIN knowledge_documents d ON d.id = c.document_id WHERE c.model_state IS NULL OR c.model_state = 'failed'"
        " ORDER BY d.key, c.ordinal")
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
    done = failed = failed_chunks = 0
    kept: Counter = Counter()
    reason = ""
    for number, batch in enumerate(batches, 1):
        try:
            items = extract_batch(model, batch, config)
        except (MalformedAnswer, ProviderError) as exc:
            reason = str(exc)[:500]
            _mark(db, batch, "failed", reason)
            failed += 1
            failed_chunks += len(batch)
        else:
            with db.transaction():
                kept += _write(db, batch, items)
                _mark(db, batch, "done", None)
            done += 1
        if progress:
            progress("extraction", number, len(batches))
    return {"batches": len(batches), "done": done, "failed": failed, "chunks": sum(len(b) for b in batches),
            "failed_chunks": failed_chunks, **({"reason": reason} if reason else {}),
            "capped": kept["capped"], "unsupported": kept["unsupported"]}


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


def _write(db: Database, batch: list[Unit], items: dict[str, list]) -> Counter:
    """Store what the answer claims that its units bear out; counts of the items `capped` (past the
    caps) and `unsupported` (no unit names them, or none says what their description says)."""
    counts: Counter = Counter()
    entities, relationships = items["entities"], items["relationships"]
    counts["capped"] = max(0, len(entities) - MAX_ENTITIES) + max(0, len(relationships) - MAX_RELATIONSHIPS)
    mentions: dict[tuple[int, str], tuple] = {}
    for item in entities[:MAX_ENTITIES]:
        if not isinstance(item, dict) or not _name(item.get("name")):
            continue
        name = _name(item["name"])
        type_ = str(item.get("type") or "concept").strip().lower()
        if type_ not in prompts.ENTITY_TYPES:
            type_ = "concept"
        key = entity_key(name, type_)
        description = _description(item) or name
        grounded = _grounded(item, batch, [name], description)
        counts["unsupported"] += not grounded
        for chunk_id in grounded:
            mentions.setdefault((chunk_id, key), (chunk_id, key, name, type_, description))
    links: dict[tuple[int, str, str], tuple] = {}
    for item in relationships[:MAX_RELATIONSHIPS]:
        if not isinstance(item, dict) or not (_name(item.get("source")) and _name(item.get("target"))):
            continue
        ends = _name(item["source"]), _name(item["target"])
        a, b = entity_key(ends[0]), entity_key(ends[1])
        if a == b:
            continue
        description = _description(item) or f"{ends[0]} — {ends[1]}"
        weight = _weight(item.get("weight"))
        source, target = sorted((a, b))
        grounded = _grounded(item, batch, list(ends), description)
        counts["unsupported"] += not grounded
        for chunk_id in grounded:
            for key, name in ((a, ends[0]), (b, ends[1])):  # an endpoint the model did not list
                mentions.setdefault((chunk_id, key), (chunk_id, key, name, "concept", description))
            links.setdefault((chunk_id, source, target), (chunk_id, source, target, description, weight))
    mark_dirty(db, {key for _, key in mentions})
    db.executemany("INSERT INTO knowledge_mentions (chunk_id, entity, mode, name, type, description)"
                   " VALUES (?, ?, 'model', ?, ?, ?) ON CONFLICT DO NOTHING", list(mentions.values()))
    db.executemany("INSERT INTO knowledge_links (chunk_id, source, target, mode, description, weight)"
                   " VALUES (?, ?, ?, 'model', ?, ?) ON CONFLICT DO NOTHING", list(links.values()))
    return counts


def _name(value: Any) -> str:
    """A name as the model wrote it, or '' when it is none (not text, empty, prose-long)."""
    name = value.strip() if isinstance(value, str) else ""
    return name if len(name) <= MAX_NAME_CHARS else ""


def _description(item: dict[str, Any]) -> str:
    return str(item.get("description") or "").strip()[:MAX_DESCRIPTION_CHARS]


def _grounded(item: dict[str, Any], batch: list[Unit], names: list[str], description: str) -> list[int]:
    """The chunks of the item's units that name every one of `names` and support its description."""
    by_id = {u.chunk_id: u for u in batch}
    out = []
    for chunk_id in _units(item, batch):
        unit = by_id[chunk_id]
        text = f"{unit.label}\n{unit.text}"
        if grounding.bears_out(text, names, description):
            out.append(chunk_id)
    return out


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
