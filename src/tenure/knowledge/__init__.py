"""Knowledge memory (SPEC 2.2): why the code is the way it is, from decision records, incident
reviews, PR and issue threads, changelogs and the git history, as a GraphRAG pipeline that runs with
a model (model mode) or without one (offline mode, the default); every answer says which.

Modules, in pipeline order: sources/ (what is read) -> sections, chunking -> ingest (documents, chunks,
offline extraction, retraction) -> extraction (model) -> graph (entities, relationships, summaries) ->
join (phrases -> symbols, through tenure.namespace.phrases) -> communities (Leiden) -> reports ->
vectors. Queries: why, ask. Around them: cost (knowledge check), cache (every model call by input
hash, the budget), providers/, prompts, answers (JSON out of a model's answer), pipeline, api.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tenure.knowledge.api import Knowledge

__all__ = ["Knowledge"]


def __getattr__(name: str) -> Any:
    """`Knowledge` on first use (PEP 562): a module of the package (`tokens`, which the ask's budget
    and the MCP server's tool defaults read) does not load the whole store with it."""
    if name != "Knowledge":
        raise AttributeError(name)
    from tenure.knowledge.api import Knowledge

    return Knowledge
