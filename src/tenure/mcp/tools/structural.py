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
    "Before changing a symbol: its dependants (callers, subclasses, implementers, importers, overriders) to "
    "`depth`, each with file:line and tier: resolved (compiler-confirmed), observed (ran, in traces), "
    "inferred (name match), ambiguous (candidates), dynamic (undecidable). summary.text says if the count "
    "is a lower bound and why (summary: dynamic_sites, escapes, unresolved_files). Rows come `limit` at a "
    "time from `offset` (`more`: the rest)."
)
FIND_SYMBOL = (
    "A name or dotted suffix (`Service.retry`) to full symbol names, kind, file:line. how: exact | suffix | "
    "inherited; ambiguous and none are errors listing matches. A phrase in words: use resolve."
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
