"""Steps 2-3: mentions merged into entities, links into relationships, each with one description.

An entity's inputs are its mentions as they stand (a retracted chunk's are gone); one whose inputs
changed gets its description again, from what remains: a model summarises several model descriptions
(`summarize`), otherwise the description is extractive (the most telling distinct sentences, decisions
before changelogs before commits). An entity no mention names any more is deleted, and its
relationships with it. Unchanged inputs are not looked at again: no model call.

What the merge changed is recorded for the steps after it (store.touch): the entities whose row
changed (description, name, degree) or went, and whether any relationship came, went or changed weight
(the only input of the communities: `communities_stale`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from tenure.knowledge.sources import kind_rank
from tenure.knowledge.store import delete_keys, digest, get_meta, set_meta, touch
from tenure.storage import Database

EXTRACTIVE_SENTENCES = 3
EXTRACTIVE_CHARS = 700

# (id, name, descriptions) -> {id: summary}; may summarise only some (a budget ran out): the rest
# keep an extractive description and are summarised by the next build
Summarize = Callable[[list[tuple[str, str, list[str]]]], dict[str, str]]


@dataclass
class _Inputs:
    names: Counter = field(default_factory=Counter)
    types: Counter = field(default_factory=Counter)
    model: list[str] = field(default_factory=list)
    offline: list[tuple[tuple, str]] = field(default_factory=list)  # (`_place`, sentence)
    mentions: int = 0
    weight: float = 0.0

    def hash(self) -> str:
        return digest(*sorted(self.model), "\x01", *sorted(s for _, s in self.offline))


@dataclass
class MergeReport:
    entities: int = 0
    relationships: int = 0
    described: int = 0  # entities and relationships whose description was made again
    summarised: int = 0  # ... of them by a model
    pending: int = 0  # waiting for a model summary (budget)
    removed_entities: int = 0
    removed_relationships: int = 0
    # entities whose description, relationships or existence changed: the communities to report on again
    touched: set[str] | None = field(default=None, repr=False)
    reweighted: bool = False  # a relationship came, went or changed weight: the communities are clustered again

    def as_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in ("touched", "reweighted")} | {
            "touched": len(self.touched) if self.touched is not None else "all"}


def merge(db: Database, summarize: Summarize | None) -> MergeReport:
    """Entities marked dirty (their mentions or links changed: tenure.knowledge.store.mark_dirty) and those
    still waiting for a summary are merged again; all of them after an extractor change (`merge_all`)."""
    report = MergeReport()
    keys: set[str] | None = None
    if not get_meta(db, "merge_all"):
        keys = {r[0] for r in db.rows("SELECT entity FROM knowledge_dirty")}
        keys |= {r[0] for r in db.rows("SELECT key FROM knowledge_entities WHERE inputs_hash = ''")}
        keys |= {k for r in db.rows("SELECT source, target FROM knowledge_relationships WHERE inputs_hash = ''")
                 for k in r}
    stored_entities = {r[0] for r in db.rows("SELECT key FROM knowledge_entities")}
    entities = _entity_inputs(db, keys)
    known = set(entities) | (stored_entities - keys if keys is not None else set())
    links = _link_inputs(db, keys, known)
    # the model is asked before anything is written: a budget stopping it rolls back no paid answer
    plans = [_plan(db, "entity", entities, keys, summarize, report),
             _plan(db, "relationship", links, keys, summarize, report)]
    (_, entities_gone, entity_rows), (_, links_gone, link_rows) = plans
    touched = None if keys is None else set(entities_gone) | {row[0] for row in entity_rows} | {
        k for key in [*links_gone, *(row[0] for row in link_rows)] for k in key.split("\x00")}
    with db.transaction():
        for plan in plans:
            _apply(db, *plan)
        _degrees(db, touched)
        db.execute("DELETE FROM knowledge_dirty")
        set_meta(db, "merge_all", False)
        touch(db, touched)
        if keys is None or report.reweighted:
            set_meta(db, "communities_stale", True)
    report.touched = touched
    report.entities = db.rows("SELECT COUNT(*) FROM knowledge_entities")[0][0]
    report.relationships = db.rows("SELECT COUNT(*) FROM knowledge_relationships")[0][0]
    return report


_MENTIONS = ("SELECT m.entity, m.mode, m.name, m.type, m.description, d.kind, c.id, d.authored_at, d.key, c.ordinal"
             " FROM knowledge_mentions m"
             " JOIN knowledge_chunks c ON c.id = m.chunk_id JOIN knowledge_documents d ON d.id = c.document_id")
_LINKS = ("SELECT l.source, l.target, l.mode, l.description, l.weight, d.kind, c.id, d.authored_at, d.key,"
          " c.ordinal FROM knowledge_links l"
          " JOIN knowledge_chunks c ON c.id = l.chunk_id JOIN knowledge_documents d ON d.id = c.document_id")


def _entity_inputs(db: Database, keys: set[str] | None) -> dict[str, _Inputs]:
    out: dict[str, _Inputs] = {}
    rows = db.rows(_MENTIONS) if keys is None else [
        tuple(r.values()) for r in db.query(_MENTIONS + f" WHERE m.entity IN {db.each}", (db.many(sorted(keys)),))]
    for entity, mode, name, type_, description, kind, _, authored_at, document, ordinal in rows:
        item = out.setdefault(entity, _Inputs())
        item.names[name] += 1
        item.types[type_] += 1
        item.mentions += 1
        if mode == "model":
            item.model.append(description)
        else:
            item.offline.append((_place(kind, authored_at, document, ordinal), description))
    return out


def _place(kind: str, authored_at: str | None, document: str, ordinal: int) -> tuple:
    """Where a sentence comes in an extractive description: decisions first (the kind of document), the
    newest first, then by document and chunk. Never by row id: an update must describe as a build of
    everything does, whatever order the documents were stored in."""
    newest = -datetime.fromisoformat(authored_at).timestamp() if authored_at else 0.0
    return kind_rank(kind), newest, document, ordinal


def _link_inputs(db: Database, keys: set[str] | None, known: set[str]) -> dict[str, _Inputs]:
    """Links with an entity at both ends (`known`), of the `keys` entities (all when None)."""
    if keys is None:
        rows = db.rows(_LINKS)
    else:
        seen: dict[tuple, tuple] = {}
        for column in ("source", "target"):
            for r in db.query(_LINKS + f" WHERE l.{column} IN {db.each}", (db.many(sorted(keys)),)):
                row = tuple(r.values())
                seen[(row[0], row[1], row[2], row[6])] = row
        rows = list(seen.values())
    out: dict[str, _Inputs] = {}
    for source, target, mode, description, weight, kind, _, authored_at, document, ordinal in rows:
        if source not in known or target not in known or source == target:
            continue  # a model named an endpoint it did not list as an entity
        item = out.setdefault(f"{source}\x00{target}", _Inputs())
        item.mentions += 1
        item.weight += weight
        if mode == "model":
            item.model.append(description)
        else:
            item.offline.append((_place(kind, authored_at, document, ordinal), description))
    return out


_Plan = tuple[str, list[str], list[tuple[str, _Inputs, str, str, str]]]


def _plan(db: Database, what: str, inputs: dict[str, _Inputs], keys: set[str] | None, summarize: Summarize | None,
          report: MergeReport) -> _Plan:
    """What to delete and what to write: (what, keys gone, rows (key, inputs, description, mode, hash))."""
    if what == "entity":
        rows = db.rows("SELECT key, inputs_hash FROM knowledge_entities") if keys is None else [
            tuple(r.values()) for r in db.query("SELECT key, inputs_hash FROM knowledge_entities"
                                                    f" WHERE key IN {db.each}", (db.many(sorted(keys)),))]
        stored = dict(rows)
    else:
        sql = "SELECT source, target, inputs_hash, weight FROM knowledge_relationships"
        rows = db.rows(sql) if keys is None else [
            tuple(r.values()) for column in ("source", "target")
            for r in db.query(sql + f" WHERE {column} IN {db.each}", (db.many(sorted(keys)),))]
        stored = {f"{s}\x00{t}": h for s, t, h, _ in rows}
        weights = {f"{s}\x00{t}": w for s, t, _, w in rows}
    gone = [key for key in stored if key not in inputs]
    changed = {key: item for key, item in inputs.items() if stored.get(key) != item.hash()}
    if what == "entity":
        report.removed_entities = len(gone)
    else:
        report.removed_relationships = len(gone)
        report.reweighted = bool(gone) or any(weights.get(key) != item.weight for key, item in changed.items())
    summaries: dict[str, str] = {}
    wanted = [(key, _label(key, item), sorted(set(item.model))) for key, item in sorted(changed.items())
              if len(set(item.model)) > 1]
    if wanted and summarize is not None:
        summaries = summarize(wanted)
    rows = []
    for key, item in changed.items():
        distinct = sorted(set(item.model))
        if key in summaries:
            description, mode, done = summaries[key], "model", True
        elif len(distinct) == 1:
            description, mode, done = distinct[0], "model", True
        elif distinct:  # several model descriptions, not summarised yet
            description, mode, done = " ".join(distinct)[:EXTRACTIVE_CHARS], "model", summarize is None
            report.pending += 0 if done else 1
        else:
            description, mode, done = extractive(item.offline), "offline", True
        report.summarised += key in summaries
        report.described += 1
        rows.append((key, item, description, mode, item.hash() if done else ""))
    return what, gone, rows


def _apply(db: Database, what: str, gone: list[str], rows: list[tuple[str, _Inputs, str, str, str]]) -> None:
    if what == "entity":
        delete_keys(db, "knowledge_entities", "key", gone)
        db.executemany(
            "INSERT INTO knowledge_entities (key, name, type, description, mode, inputs_hash, mentions)"
            " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET name = excluded.name, type = excluded.type,"
            " description = excluded.description, mode = excluded.mode, inputs_hash = excluded.inputs_hash,"
            " mentions = excluded.mentions",
            [(key, _label(key, item), _type(item), d, mode, h, item.mentions) for key, item, d, mode, h in rows])
    else:
        db.executemany("DELETE FROM knowledge_relationships WHERE source = ? AND target = ?",
                       [tuple(key.split("\x00")) for key in gone])
        db.executemany(
            "INSERT INTO knowledge_relationships (source, target, description, weight, mode, inputs_hash, mentions)"
            " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (source, target) DO UPDATE SET"
            " description = excluded.description, weight = excluded.weight, mode = excluded.mode,"
            " inputs_hash = excluded.inputs_hash, mentions = excluded.mentions",
            [(*key.split("\x00"), d, item.weight, mode, h, item.mentions) for key, item, d, mode, h in rows])


def extractive(sentences: list[tuple[tuple, str]]) -> str:
    """The most telling distinct sentences: by the kind of document (decisions first), then in order."""
    chosen: list[str] = []
    for _, sentence in sorted(sentences):
        if sentence not in chosen:
            chosen.append(sentence)
        if len(chosen) == EXTRACTIVE_SENTENCES:
            break
    return " … ".join(chosen)[:EXTRACTIVE_CHARS]


def _label(key: str, item: _Inputs) -> str:
    if "\x00" in key:
        return key.replace("\x00", " — ")
    return item.names.most_common(1)[0][0] if item.names else key


def _type(item: _Inputs) -> str:
    return item.types.most_common(1)[0][0] if item.types else "concept"


def _degrees(db: Database, keys: set[str] | None) -> None:
    """Each entity's number of relationships, for `keys` (all when None)."""
    sql = "SELECT source, target FROM knowledge_relationships"
    if keys is None:
        ends = db.rows(sql)
        current = dict(db.rows("SELECT key, degree FROM knowledge_entities"))
    else:
        ends = {tuple(r.values()) for column in ("source", "target")
                for r in db.query(sql + f" WHERE {column} IN {db.each}", (db.many(sorted(keys)),))}
        current = {r["key"]: r["degree"] for r in db.query("SELECT key, degree FROM knowledge_entities"
                                                               f" WHERE key IN {db.each}", (db.many(sorted(keys)),))}
    degree: Counter = Counter()
    for source, target in ends:
        degree[source] += 1
        degree[target] += 1
    db.executemany("UPDATE knowledge_entities SET degree = ? WHERE key = ?",
                   [(degree.get(k, 0), k) for k, d in current.items() if d != degree.get(k, 0)])
