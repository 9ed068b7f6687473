"""A what-breaks answer sized for an agent's context: the summary and totals whole, the dependants one
row each (as the CLI lists them) from `offset`, at most `limit` of them, each row's sites written
compactly, and how to ask for the rest. A name fanned out to thousands of callers (Django's
`QuerySet.filter`: 864 KB of JSON) becomes a few kilobytes; nothing is dropped without saying so."""

from __future__ import annotations

from tenure.structural.impact import by_dependant
from tenure.words import counted

SITES_SHOWN = 10  # of one dependant's sites; its count says how many it has
REASONS_SHOWN = 20  # of the summary's named dynamic sites, escapes and files not fully resolved
REASON_LISTS = ("dynamic_sites", "escapes", "unresolved_files")


def page(result: dict, limit: int, offset: int = 0) -> dict:
    """`result`: what `Tenure.what_breaks` answers. The page keeps every key but `dependants` and
    `refuted`, which become `rows` and `refutedRows` from `offset`, with their totals and `more`."""
    if result["symbol"] is None:
        return result
    shown, rows = _rows(result["dependants"], offset, limit)
    refuted, refuted_rows = _rows(result["refuted"], 0, limit)
    sized = {k: v for k, v in result.items() if k not in ("dependants", "refuted")}
    sized["summary"] = _summary(result["summary"])
    sized["rows"] = [_row(r) for r in shown]
    sized["refutedRows"] = [_row(r) for r in refuted]
    sized["totals"] = {"rows": rows, "sites": len(result["dependants"]), "refutedRows": refuted_rows}
    left = rows - offset - len(shown)
    if shown:
        sized["shown"] = f"rows {offset + 1}–{offset + len(shown)} of {rows}"
    else:
        sized["shown"] = f"no rows from {offset} (there are {rows})"
    if left > 0:
        sized["more"] = (f"{counted(left, 'more dependant')}: call again with offset={offset + len(shown)} "
                         f"(limit up to 500), or run `tenure what-breaks {result['symbol']} --json` for every site")
    return sized


def _rows(dependants: list[dict], offset: int, limit: int) -> tuple[list[dict], int]:
    """The rows `offset` to `offset + limit` of `by_dependant(dependants)`, and how many rows there are:
    only the rows shown are built (a fanned-out name has thousands)."""
    keys = dict.fromkeys(_row_key(d) for d in dependants)  # (in the order the rows come)
    wanted = set(list(keys)[offset:offset + limit])
    return by_dependant([d for d in dependants if _row_key(d) in wanted]), len(keys)


def _row_key(dependant: dict) -> tuple[int, str, str]:
    return dependant["depth"], dependant["relation"], dependant["symbol"]


def _summary(summary: dict) -> dict:
    """The summary with each list of reasons cut to its first few; `<list>_total` counts them all."""
    cut = dict(summary)
    for key in REASON_LISTS:
        if len(summary.get(key) or ()) > REASONS_SHOWN:
            cut[key], cut[f"{key}_total"] = summary[key][:REASONS_SHOWN], len(summary[key])
    return cut


def _row(row: dict) -> dict:
    sites = [f"{s['path']}:{s['line']}" for s in row["sites"] if s["path"]]
    compact = {"symbol": row["symbol"], "relation": row["relation"], "depth": row["depth"], "tier": row["tier"],
               "tiers": row["tiers"], "sources": row["sources"], "sites": sites[:SITES_SHOWN],
               "siteCount": len(row["sites"])}
    for key in ("contexts", "refuted_by", "detail", "count", "last_seen", "generated", "via"):
        if row.get(key) and not (key == "via" and row["depth"] == 1):
            compact[key] = row[key]
    return compact
