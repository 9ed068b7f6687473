"""Step 4: hierarchical Leiden communities over the relationships (graspologic-native, as
microsoft/graphrag), no model.

The clustering is deterministic for a given graph (a fixed seed, edges in sorted order); a community's
id is the hash of its level and members, so one whose members did not change keeps its id, and with
it its report. Communities larger than `max_cluster_size` are split again one level down. Its only
input is the weighted edges: until a relationship comes, goes or changes weight (the merge says so,
`communities_stale`), clustering again would find the same communities, and is not run.
"""

from __future__ import annotations

from collections import defaultdict

import graspologic_native as gn

from tenure.knowledge.store import delete_keys, digest, get_meta, set_meta
from tenure.storage import Database

SEED = 0xDEADBEEF  # graphrag's seed: any fixed one would do


def stale(db: Database) -> bool:
    """Whether the edges changed since the last clustering (a store that never said: yes)."""
    return get_meta(db, "communities_stale") is not False


def cluster(db: Database, max_cluster_size: int) -> dict:
    rows = db.rows("SELECT source, target, weight FROM knowledge_relationships")
    edges = sorted((s, t, float(w)) for s, t, w in rows)
    found: _Found = {}
    if edges:
        found = _communities(edges, max(2, max_cluster_size))
    current = {r[0] for r in db.rows("SELECT id FROM knowledge_communities")}
    gone = current - found.keys()
    new = found.keys() - current
    with db.bulk():  # (a statement or two per community: sent without waiting for each)
        delete_keys(db, "knowledge_communities", "id", sorted(gone))
        for cid in sorted(new, key=lambda c: found[c][0]):
            level, _, members = found[cid]
            db.execute("INSERT INTO knowledge_communities (id, level, parent, size) VALUES (?, ?, NULL, ?)",
                       (cid, level, len(members)))
            db.executemany("INSERT INTO knowledge_community_members (community, entity) VALUES (?, ?)",
                           [(cid, m) for m in members])
        parents = dict(db.rows("SELECT id, parent FROM knowledge_communities"))
        db.executemany("UPDATE knowledge_communities SET parent = ? WHERE id = ?",
                       [(parent, cid) for cid, (_, parent, _) in found.items() if parents.get(cid) != parent])
        set_meta(db, "communities_stale", False)
    levels = defaultdict(int)
    for level, _, _ in found.values():
        levels[level] += 1
    return {"communities": len(found), "new": len(new), "kept": len(found) - len(new), "removed": len(gone),
            "levels": dict(sorted(levels.items())),
            "nodes_clustered": len({m for _, _, ms in found.values() for m in ms})}


_Found = dict[str, tuple[int, str | None, list[str]]]


def _communities(edges: list[tuple[str, str, float]], max_cluster_size: int) -> _Found:
    """id -> (level, parent id, sorted members)."""
    entries = gn.hierarchical_leiden(edges, max_cluster_size=max_cluster_size, seed=SEED, use_modularity=True)
    members: dict[tuple[int, int], list[str]] = defaultdict(list)
    parent_of: dict[tuple[int, int], int | None] = {}
    for entry in entries:
        members[(entry.level, entry.cluster)].append(entry.node)
        parent_of[(entry.level, entry.cluster)] = entry.parent_cluster
    ids = {key: "c" + digest(str(key[0]), *sorted(nodes))[:15] for key, nodes in members.items()}
    out: _Found = {}
    for (level, number), nodes in members.items():
        parent = parent_of[(level, number)]
        parent_id = ids.get((level - 1, parent)) if parent is not None else None
        out[ids[(level, number)]] = (level, parent_id, sorted(nodes))
    return out
