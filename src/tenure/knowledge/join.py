"""The join (SPEC 2.5): every entity that can name code is mapped to symbols through the namespace's
ladder; the rows keep the tier and how it was reached. Decision ids, tickets, config keys and incidents
name no symbol and are not asked. Rows are rewritten only where the answer changed (a new index can
resolve a phrase that was unresolved, or move it)."""

from __future__ import annotations

from collections import Counter

from tenure.namespace.phrases import PhraseIndex
from tenure.storage import Database

NAMES_NO_CODE = {"decision", "rfc", "ticket", "config", "incident", "person", "organization", "event"}


def join(db: Database, index: PhraseIndex) -> dict:
    tiers: Counter = Counter()
    wanted: dict[tuple[str, str], tuple[str, str]] = {}
    for key, name, type_ in db.rows("SELECT key, name, type FROM knowledge_entities"):
        if type_ in NAMES_NO_CODE:
            continue
        match = index.resolve(name)
        tiers[match.tier] += 1
        for fqn in match.symbols:
            wanted[(key, fqn)] = (match.tier, match.how)
    current = {(e, f): (t, h) for e, f, t, h in db.rows("SELECT entity, fqn, tier, how FROM knowledge_entity_symbols")}
    with db.transaction():
        db.executemany("DELETE FROM knowledge_entity_symbols WHERE entity = ? AND fqn = ?",
                       [k for k in current if k not in wanted])
        db.executemany("INSERT INTO knowledge_entity_symbols (entity, fqn, tier, how) VALUES (?, ?, ?, ?)"
                       " ON CONFLICT (entity, fqn) DO UPDATE SET tier = excluded.tier, how = excluded.how",
                       [(*k, *v) for k, v in wanted.items() if current.get(k) != v])
    return {"entities_asked": sum(tiers.values()), **{tier: tiers.get(tier, 0) for tier in
                                                      ("exact", "strong", "weak", "unresolved")},
            "symbols_indexed": len(index.fqns)}
