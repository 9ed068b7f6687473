"""An answer sized for an agent: a symbol with many dependants comes a page at a time, the totals whole,
and the answer says how to get the rest."""

from __future__ import annotations

from tenure import Tenure
from tenure.structural.page import SITES_SHOWN, page

CALLERS = 45
ROWS = CALLERS + 1  # and the module that imports it
FILES = {
    "core.py": "def charge(amount):\n    return amount\n",
    "callers.py": "from core import charge\n\n\n" + "".join(
        f"def caller_{i}():\n" + "    charge(1)\n" * (12 if i == 0 else 1) + "\n\n" for i in range(CALLERS)),
}


def test_a_page_lists_rows_from_an_offset_with_totals_and_how_to_get_the_rest(make_indexed_repo) -> None:
    with Tenure.open(make_indexed_repo(FILES), discover=False) as t:
        result = t.what_breaks("core.charge")
    first = page(result, limit=20)
    assert len(first["rows"]) == 20 and first["shown"] == "rows 1–20 of 46"
    assert first["totals"] == {"rows": ROWS, "sites": ROWS + 11, "refutedRows": 0}
    assert "26 more dependants: call again with offset=20" in first["more"]
    assert first["summary"] == result["summary"]  # the summary counts every dependant, not the page's
    last = page(result, limit=20, offset=40)
    assert last["shown"] == "rows 41–46 of 46" and "more" not in last
    busiest = next(r for r in first["rows"] if r["symbol"] == "callers.caller_0")
    assert busiest["siteCount"] == 12 and len(busiest["sites"]) == SITES_SHOWN
    everyone = {r["symbol"] for offset in (0, 20, 40) for r in page(result, 20, offset)["rows"]}
    assert len(everyone) == ROWS  # pages neither skip nor repeat a dependant


def test_an_unknown_symbol_is_answered_as_it_is(make_indexed_repo) -> None:
    with Tenure.open(make_indexed_repo(FILES), discover=False) as t:
        result = t.what_breaks("NoSuchThing")
    assert page(result, limit=20) == result
