"""Links, Obsidian style: `[[Title]]` in a memory's content names another memory, an element
(`[[ApiGateway]]`) or a decision (`[[ADR-17]]`). A title nobody has written yet stays pending and
attaches itself when a memory with that title appears. Link targets are stored as keyed hashes:
the text of a link is part of the (encrypted) content."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from tenure.namespace.elements import DECISION
from tenure.namespace.terms import normalised
from tenure.storage import Database

LINK = re.compile(r"\[\[([^\[\]|]+)(?:\|[^\[\]]*)?\]\]")  # [[Target]] or [[Target|shown text]]


def targets(content: str) -> list[str]:
    """The link targets in `content`, each once, in order."""
    return list(dict.fromkeys(m.group(1).strip() for m in LINK.finditer(content) if m.group(1).strip()))


def title_text(title: str) -> str:
    """What makes two titles the same: case, spacing and punctuation do not count."""
    return "title:" + normalised(title)


@dataclass(frozen=True)
class Link:
    target: str
    kind: str  # memory | element | decision | pending
    target_id: int | None = None
    element: str | None = None

    def as_dict(self) -> dict:
        return {"target": self.target, "kind": self.kind, "memory": self.target_id, "element": self.element}


def resolve(target: str, memory_by_title: Callable[[str], int | None],
            element_of: Callable[[str], str | None]) -> Link:
    """A memory title wins over an element name; what matches nothing waits for its memory."""
    memory_id = memory_by_title(target)
    if memory_id is not None:
        return Link(target, "memory", target_id=memory_id)
    if DECISION.match(target) or target.startswith("doc:"):
        return Link(target, "decision", element=element_of(target))
    element = element_of(target)
    if element is not None:
        return Link(target, "element", element=element)
    return Link(target, "pending")


def store(db: Database, source_id: int, links: list[Link], key: Callable[[str], str], scope: str) -> None:
    db.executemany(
        "INSERT INTO memory_links (source_id, target_key, kind, target_id, element, scope) VALUES (?, ?, ?, ?, ?, ?)",
        [(source_id, key(title_text(link.target)), link.kind, link.target_id, link.element, scope) for link in links],
    )


def attach_pending(db: Database, memory_id: int, title_key: str) -> int:
    """Point the links that waited for this title at the new memory; returns how many attached."""
    waiting = db.query("SELECT COUNT(*) AS n FROM memory_links WHERE kind = 'pending' AND target_key = ?",
                       (title_key,))[0]["n"]
    if waiting:
        db.execute("UPDATE memory_links SET kind = 'memory', target_id = ? WHERE kind = 'pending' AND target_key = ?",
                   (memory_id, title_key))
    return waiting


@dataclass(frozen=True)
class Outgoing:
    of: set[int]  # the memories whose outgoing links were read
    rows: list[dict]


def around(db: Database, memory_ids: list[int], targets: list[int]) -> tuple[Outgoing, list[dict]]:
    """(the outgoing links of `memory_ids`, the memory links into `targets`), read in one statement."""
    if not memory_ids:
        return Outgoing(set(), []), []
    sources, into = db.many(memory_ids), db.many(targets)
    rows = db.query(f"""SELECT source_id, kind, target_id, element,
                               source_id IN {db.each} AND kind != 'pending' AS outbound,
                               kind = 'memory' AND target_id IN {db.each} AS inbound
                        FROM memory_links WHERE (source_id IN {db.each} AND kind != 'pending')
                                             OR (kind = 'memory' AND target_id IN {db.each})
                        ORDER BY id""", (sources, into, sources, into))
    return (Outgoing(set(memory_ids), [{k: r[k] for k in ("source_id", "kind", "target_id", "element")}
                                       for r in rows if r["outbound"]]),
            [{"source_id": r["source_id"], "target_id": r["target_id"]} for r in rows if r["inbound"]])


def outgoing(db: Database, memory_ids: list[int]) -> list[dict]:
    return db.query(f"SELECT source_id, kind, target_id, element FROM memory_links"
                    f" WHERE source_id IN {db.each} AND kind != 'pending' ORDER BY id", (db.many(memory_ids),))


def incoming(db: Database, memory_ids: list[int]) -> list[dict]:
    return db.query(f"SELECT source_id, target_id FROM memory_links WHERE kind = 'memory'"
                    f" AND target_id IN {db.each} ORDER BY id", (db.many(memory_ids),))
