"""The join's tools (SPEC §2.5, §2.6): a phrase or task text resolved to symbols, and one question
answered from every store. Thin wrappers over `Tenure.ask`."""

from __future__ import annotations

from typing import Annotated

from mcp_types import CallToolResult
from pydantic import Field

from tenure.api import Tenure
from tenure.ask.pack import DEFAULT_BUDGET, MIN_BUDGET
from tenure.mcp.registry import READ_ONLY, Registry
from tenure.mcp.tools.results import refusals, structured
from tenure.refusal import Refusal

RESOLVE = (
    "A phrase or task text to the symbols it is about, ranked, each with why it matched. Tiers: exact (named "
    "verbatim), strong (one symbol, unambiguous) — act on them; weak (a concept's candidates: check them); "
    "unresolved (no symbol: a constraint, kept)."
)
ASK = (
    "Planning a change described in words: one answer from every store for the symbols it names — what "
    "breaks, why (decisions, incidents), past attempts (failures first, lessons), rules, pitfalls — packed "
    "to `budget` tokens; items carry store, tier, source, confidence; `degraded` says what was not read."
)


def register(registry: Registry, tenure: Tenure) -> None:
    def ask(
        question: Annotated[str, Field(description="The change and what you want to know")],
        budget: Annotated[int, Field(ge=MIN_BUDGET, le=50_000, description="Tokens the answer may take")]
        = DEFAULT_BUDGET,
    ) -> CallToolResult:
        with refusals(Refusal):
            answer = tenure.ask(question, budget)
        return structured(answer, text=answer["text"])  # (as JSON, with its items and resolution: 3x the budget)

    def resolve(
        text: Annotated[str, Field(description="A phrase or a task text")],
        limit: Annotated[int, Field(ge=1, le=50)] = 10,
    ) -> CallToolResult:
        with refusals(Refusal):
            return structured(tenure.resolve(text, limit).as_dict())

    registry.tool(ask, ASK, READ_ONLY)
    registry.tool(resolve, RESOLVE, READ_ONLY)
