"""The span index: every span seen lately, reduced to what linking needs, on disk in the project db.

Spans of one trace arrive in different lines, files and requests, children often before their
parents (a child ends first and is exported first). Each span is stored once with its parent's
key, service, mapped symbol, kind and messaging role; a parent arriving later finds its waiting
children by the `parent` index, a span link (messaging batches) waits in `trace_links` the same
way. Rows older than the retention window (in trace time) are pruned, so the table stays bounded
however much is ingested.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tenure.storage import Database, Migrations

migrations = Migrations("traces")


@migrations
def m001_span_index(db: Database) -> None:
    db.execute("CREATE TABLE trace_origins (id INTEGER PRIMARY KEY, origin TEXT NOT NULL UNIQUE)")
    # Keyed by the span id as a 64-bit integer (a rowid: compact, shallow, cheap to insert into) with
    # the trace id beside it; every lookup checks both, so ids shared by two traces never mix up.
    db.execute(
        """CREATE TABLE trace_spans (
            id INTEGER PRIMARY KEY,        -- span id, signed 64-bit
            trace BLOB NOT NULL,           -- trace id
            parent INTEGER,                -- parent span id (same trace); NULL for a root
            origin_id INTEGER NOT NULL,
            service TEXT NOT NULL,         -- '' when unknown
            symbol TEXT,                   -- the symbol it ran in (own mapping, or inherited)
            kind INTEGER NOT NULL,
            role TEXT NOT NULL,            -- produce | consume | ''
            destination TEXT NOT NULL,
            start_ns INTEGER NOT NULL,
            detail TEXT NOT NULL
        )"""
    )
    # Only the lookup every batch makes is indexed: origins and start times are scanned once per run
    # (orphans, pruning), and each index more is one more B-tree every span is written into.
    db.execute("CREATE INDEX trace_spans_parent ON trace_spans(parent) WHERE parent IS NOT NULL")
    db.execute(
        """CREATE TABLE trace_links (
            target BLOB NOT NULL,          -- the linked span (trace id + span id)
            span BLOB NOT NULL,            -- the span that carries the link
            origin_id INTEGER NOT NULL,
            start_ns INTEGER NOT NULL
        )"""
    )
    db.execute("CREATE INDEX trace_links_target ON trace_links(target)")


@dataclass
class SpanNode:
    key: bytes
    parent: bytes | None
    service: str
    symbol: str | None
    kind: int
    role: str
    destination: str
    start_ns: int
    detail: str
    origin_id: int = 0
    own_symbol: str | None = None  # mapped by its own attributes (not stored: only the batch needs it)
    how: str = ""  # how own_symbol was found (mapping.Mapped.how)
    links: tuple[bytes, ...] = ()


_COLUMNS = "id, trace, parent, service, symbol, kind, role, destination, start_ns, detail, origin_id"


def span_number(key: bytes) -> int:
    """The span id part of a key (trace id + span id) as the table's integer id."""
    return int.from_bytes(key[16:], "big", signed=True)


class SpanIndex:
    def __init__(self, db: Database) -> None:
        self.db = db
        migrations.apply(db)

    def origin_id(self, origin: str) -> int:
        self.db.execute("INSERT INTO trace_origins (origin) VALUES (?) ON CONFLICT (origin) DO NOTHING", (origin,))
        return self.db.query("SELECT id FROM trace_origins WHERE origin = ?", (origin,))[0]["id"]

    def forget_origin(self, origin_id: int) -> None:
        self.db.execute("DELETE FROM trace_spans WHERE origin_id = ?", (origin_id,))
        self.db.execute("DELETE FROM trace_links WHERE origin_id = ?", (origin_id,))

    def existing(self, keys: list[bytes]) -> set[bytes]:
        return set(self.get(keys))

    def get(self, keys: Iterable[bytes]) -> dict[bytes, SpanNode]:
        wanted = set(keys)
        rows = self.db.query(f"SELECT {_COLUMNS} FROM trace_spans WHERE id IN {self.db.each}",
                             (self.db.many([span_number(k) for k in wanted]),))
        return {n.key: n for n in map(_node, rows) if n.key in wanted}

    def waiting_children(self, parents: list[bytes]) -> list[SpanNode]:
        wanted = set(parents)
        rows = self.db.query(f"SELECT {_COLUMNS} FROM trace_spans WHERE parent IN {self.db.each}",
                             (self.db.many([span_number(k) for k in parents]),))
        return [n for n in map(_node, rows) if n.parent in wanted]

    def waiting_links(self, targets: list[bytes]) -> list[tuple[bytes, bytes]]:
        """(target, linking span) for links whose target is one of these spans: a lookup each (the
        keys are bytes, which `Database.many` does not carry), none while no link waits (most traces
        have no span links)."""
        if not self.db.rows("SELECT 1 FROM trace_links LIMIT 1"):
            return []
        return [(target, span) for target in targets
                for (span,) in self.db.rows("SELECT span FROM trace_links WHERE target = ?", (target,))]

    def add(self, nodes: Iterable[SpanNode]) -> None:
        # DO NOTHING: two traces sharing a 64-bit span id (odds about 3 in 10^8 for a million spans)
        # keep the first in the index; the second still gives its own edges
        self.db.executemany(
            f"INSERT INTO trace_spans ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            [(span_number(n.key), n.key[:16], span_number(n.parent) if n.parent else None, n.service, n.symbol,
              n.kind, n.role, n.destination, n.start_ns, n.detail, n.origin_id) for n in nodes],
        )

    def set_symbols(self, nodes: list[SpanNode]) -> None:
        self.db.executemany("UPDATE trace_spans SET symbol = ? WHERE id = ? AND trace = ?",
                            [(n.symbol, span_number(n.key), n.key[:16]) for n in nodes])

    def add_links(self, links: Iterable[tuple[bytes, SpanNode]]) -> None:
        self.db.executemany(
            "INSERT INTO trace_links (target, span, origin_id, start_ns) VALUES (?, ?, ?, ?)",
            [(target, n.key, n.origin_id, n.start_ns) for target, n in links],
        )

    def origin_names(self) -> dict[int, str]:
        return {r["id"]: r["origin"] for r in self.db.query("SELECT id, origin FROM trace_origins")}

    def orphans(self, origin_ids: list[int]) -> int:
        """Spans of these origins whose parent has not been seen."""
        return self.db.query(
            f"SELECT COUNT(*) AS n FROM trace_spans s WHERE s.origin_id IN {self.db.each} AND s.parent IS NOT NULL"
            " AND NOT EXISTS (SELECT 1 FROM trace_spans p WHERE p.id = s.parent AND p.trace = s.trace)",
            (self.db.many(origin_ids),),
        )[0]["n"]

    def prune(self, retention_ns: int) -> int:
        """Drop spans that started more than `retention_ns` before the newest one; returns how many."""
        newest = self.db.query("SELECT MAX(start_ns) AS n FROM trace_spans")[0]["n"]
        if not newest:
            return 0
        cutoff = newest - retention_ns
        before = self.db.query("SELECT COUNT(*) AS n FROM trace_spans WHERE start_ns < ?", (cutoff,))[0]["n"]
        self.db.execute("DELETE FROM trace_spans WHERE start_ns < ?", (cutoff,))
        self.db.execute("DELETE FROM trace_links WHERE start_ns < ?", (cutoff,))
        return before


def _node(r: dict) -> SpanNode:
    trace = r["trace"]
    key = trace + r["id"].to_bytes(8, "big", signed=True)
    parent = None if r["parent"] is None else trace + r["parent"].to_bytes(8, "big", signed=True)
    return SpanNode(key, parent, r["service"], r["symbol"], r["kind"], r["role"], r["destination"],
                    r["start_ns"], r["detail"], r["origin_id"])
