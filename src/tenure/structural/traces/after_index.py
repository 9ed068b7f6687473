"""After `tenure index`: how many observed edges the traces hold, and how many of them name symbols
the index no longer has (renamed or deleted code) — those wait for the traces to be ingested again."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tenure.structural.traces import SOURCE

if TYPE_CHECKING:
    from tenure.structural.after_index import SourceContext
    from tenure.structural.report import IndexReport


class TraceEdgesCheck:
    name = "traces"
    after = ()  # (trace edges name tree-sitter's symbols and the services traces add)

    def run(self, context: SourceContext, report: IndexReport) -> dict:
        row = context.db.query(
            "SELECT COUNT(*) AS edges, SUM(NOT EXISTS (SELECT 1 FROM symbols s WHERE s.fqn = e.src_fqn)"
            " OR NOT EXISTS (SELECT 1 FROM symbols s WHERE s.fqn = e.dst_fqn)) AS stale"
            " FROM source_edges e WHERE e.source = ?", (SOURCE,),
        )[0]
        if not row["edges"]:
            return {}  # no traces ingested: nothing to say
        found = {"observed edges": row["edges"]}
        if row["stale"]:
            found["on symbols gone from the index (ingest the traces again to re-map)"] = row["stale"]
        return found
