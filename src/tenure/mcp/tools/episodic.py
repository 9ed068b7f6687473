"""Episodic store tool: what happened when we tried before."""

from __future__ import annotations

from typing import Annotated

from mcp_types import CallToolResult
from pydantic import Field

from tenure.api import Tenure
from tenure.mcp.registry import READ_ONLY, Registry
from tenure.mcp.tools.results import refusals, structured
from tenure.refusal import Refusal

WHAT_HAPPENED_BEFORE = (
    "Before changing a symbol: past attempts on it and its dependants (commits, PRs, sessions), grouped, "
    "failures first, with evidence (revert, tests, reviews) and confidence; conclusions decay. expired: "
    "about code restructured since (include_expired lists them)."
)


def register(registry: Registry, tenure: Tenure) -> None:
    def what_happened_before(
        symbol: Annotated[str, Field(description="Full name or unique suffix")],
        include_expired: bool = False,
        limit: Annotated[int, Field(ge=1, le=50)] = 10,
    ) -> CallToolResult:
        with refusals(Refusal):
            return structured(tenure.episodes.what_happened_before(symbol, include_expired, limit))

    registry.tool(what_happened_before, WHAT_HAPPENED_BEFORE, READ_ONLY)
