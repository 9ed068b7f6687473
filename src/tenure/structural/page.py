"""A what-breaks answer sized for an agent's context: the summary and totals whole, the dependants one
row each (as the CLI lists them) from `offset`, at most `limit` of them, each row's sites written
compactly, and how to ask for the rest. A name fanned out to thousands of callers (Django's
`QuerySet.filter`: 864 KB of JSON) becomes a few kilobytes; nothing is dropped without saying so."""

from __future__ import annotations

from tenure.structural.impact import by_dependant
from tenure.words import counted

SITES_SHOWN = 10  # of one dependant's sites; its count says how many it has


def page(result: dict, limit: int, offset: int = 0) -> dict:
    """`result`: what `Tenure.what_breaks` answers. The page keeps every key but `dependants` and
    `refuted`, which become `rows` and `refutedRows` from `offset`, with their totals and `more`."""
    if result["symbol"] is None:
        return result
    rows = by_dependant(result["dependants"])
    refuted = by_dependant(result["refuted"])
    shown = rows[offset:offset + limit]
    sized = {k: v for k, v in result.items() if k not in ("dependants", "refuted")}
    sized["rows"] = [_row(r) for r in shown]
    sized["refutedRows"] = [_row(r) for r in refuted[:limit]]
    sized["totals"] = {"rows": len(rows), "sites": len(result["dependants"]), "refutedRows": len(refuted)}
    left = len(rows) - offset - len(shown)
    if shown:
        sized["shown"] = f"rows {offset + 1}–{offset + len(shown)} of {len(rows)}"
    else:
        sized["shown"] = f"no rows from {offset} (there are {len(rows)})"
    if left > 0:
        sized["more"] = (f"{counted(left, 'more dependant')}: call again with offset={offset + len(shown)} "
                         f"(limit up to 500), or run `tenure what-breaks {result['symbol']} --json` for every site")
    return sized


def _row(row: dict) -> dict:
    sites = [f"{s['path']}:{s['line']}" for s in row["sites"] if s["path"]]
    compact = {"symbol": row["symbol"], "relation": row["relation"], "depth": row["depth"], "tier": row["tier"],
               "tiers": row["tiers"], "sources": row["sources"], "sites": sites[:SITES_SHOWN],
               "siteCount": len(row["sites"])}
    for key in ("contexts", "refuted_by", "detail", "count", "last_seen", "generated", "via"):
        if row.get(key) and not (key == "via" and row["depth"] == 1):
            compact[key] = row[key]
    return compact
