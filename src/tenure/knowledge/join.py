"""The join (SPEC 2.5): every entity that can name code is mapped to symbols through the namespace's
ladder; the rows keep the tier and how it was reached. Decision ids, tickets, config keys and incidents
name no symbol and are not asked. Rows are rewritten only where the answer changed (a new index can
resolve a phrase that was unresolved, or move it), and only for the entities asked again: every
entity when a symbol was named differently (added, removed, renamed, moved to another file), else the
touched ones only (an edit of bodies leaves every answer as it was)."""

from __future__ import annotations

from collections import Counter

from tenure.knowledge.store import get_meta, set_meta
from tenure.namespace.phrases import PhraseIndex
from tenure.namespace.symbols import naming_state
from tenure.storage import Database

NAMES_NO_CODE = {"decision", "rfc", "ticket", "config", "incident", "person", "organization", "event"}


def join(db: Database, code: Database, touched: set[str] | None) -> dict:
    """Every entity is asked again when the symbols are named differently since the last join, else only
    `touched` ones (None: all). The phrase index is built only when some entity is to be asked."""
    state = naming_state(code)
    if get_meta(db, "joined_symbols") != state:
        touched = None
    if touched is None:
        entities = db.rows("SELECT key, name, type FROM knowledge_entities")
        current_rows = db.rows("SELECT entity, fqn, tier, how FROM knowledge_entity_symbols")
    else:
        entities = [tuple(r.values()) for r in db.query("SELECT key, name, type FROM knowledge_entities"
                                                            f" WHERE key IN {db.each}", (db.many(sorted(touched)),))]
        sql = f"SELECT entity, fqn, tier, how FROM knowledge_entity_symbols WHERE entity IN {db.each}"
        current_rows = [tuple(r.values()) for r in db.query(sql, (db.many(sorted(touched)),))]
    asked = [(key, name) for key, name, type_ in entities if type_ not in NAMES_NO_CODE]
    index = PhraseIndex.of(code) if asked else PhraseIndex()
    tiers: Counter = Counter()
    wanted: dict[tuple[str, str], tuple[str, str]] = {}
    for key, name in asked:
        match = index.resolve(name)
        tiers[match.tier] += 1
        for fqn in match.symbols:
            wanted[(key, fqn)] = (match.tier, match.how)
    current = {(e, f): (t, h) for e, f, t, h in current_rows}
    with db.transaction():
        db.executemany("DELETE FROM knowledge_entity_symbols WHERE entity = ? AND fqn = ?",
                       [k for k in current if k not in wanted])
        db.executemany("INSERT INTO knowledge_entity_symbols (entity, fqn, tier, how) VALUES (?, ?, ?, ?)"
                       " ON CONFLICT (entity, fqn) DO UPDATE SET tier = excluded.tier, how = excluded.how",
                       [(*k, *v) for k, v in wanted.items() if current.get(k) != v])
        set_meta(db, "joined_symbols", state)
    return {"entities_asked": sum(tiers.values()), **{tier: tiers.get(tier, 0) for tier in
                                                      ("exact", "strong", "weak", "unresolved")},
            "symbols_indexed": len(index.fqns)}
