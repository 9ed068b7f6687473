"""Structural store tools: what a change breaks, and finding a symbol's full name."""

from __future__ import annotations

from typing import Annotated

from mcp_types import CallToolResult
from pydantic import Field

from tenure.api import Tenure
from tenure.mcp.registry import READ_ONLY, Registry
from tenure.mcp.tools.results import structured
from tenure.structural.page import page

WHAT_BREAKS = (
    "Call before changing a symbol's signature or behaviour: its dependants (callers, subclasses, "
    "implementers, importers, overriders) up to `depth`, each with file:line and a tier — resolved "
    "(compiler-confirmed: act on it), observed (seen at run time), inferred (one name match, unverified), "
    "ambiguous (several candidates, all listed), dynamic (target undecidable). summary.text says whether "
    "the count is a lower bound and why; freshness says how old the index is. One row per dependant, "
    "`limit` from `offset`; totals count all, `more` says how to get the rest. A name that is unknown "
    "or not unique is an error whose `matches` lists the candidates."
)
FIND_SYMBOL = (
    "Resolve a name or dotted suffix (e.g. `Service.retry`) to full symbol names with kind and "
    "file:line. how: exact | suffix (unique) | inherited (a super type's member; member_of says whose) | "
    "ambiguous and none are errors (pick one of matches; freshness says if the index is missing)."
)

Symbol = Annotated[str, Field(description="Full name or unique suffix, e.g. SettlementService.retry")]


def register(registry: Registry, tenure: Tenure) -> None:
    def what_breaks(
        symbol: Symbol,
        depth: Annotated[int, Field(ge=1, le=10, description="1 = direct dependants")] = 1,
        limit: Annotated[int, Field(ge=1, le=500)] = 30,
        offset: Annotated[int, Field(ge=0)] = 0,
    ) -> CallToolResult:
        result = tenure.what_breaks(symbol, depth)
        return structured(page(result, limit, offset), error=result["symbol"] is None)

    def find_symbol(symbol: Symbol) -> CallToolResult:
        lookup = tenure.find_symbol(symbol)
        if lookup.unique is not None:
            return structured(lookup.as_dict())
        return structured({**lookup.as_dict(), "message": lookup.message(), "freshness": tenure.freshness()},
                          error=True)

    registry.tool(what_breaks, WHAT_BREAKS, READ_ONLY)
    registry.tool(find_symbol, FIND_SYMBOL, READ_ONLY)
