"""Knowledge memory (SPEC 2.2): why the code is the way it is, from decision records, incident
reviews, PR and issue threads, changelogs and the git history, as a GraphRAG pipeline that runs with
a model (model mode) or without one (offline mode, the default); every answer says which.

Modules, in pipeline order: sources/ (what is read) -> sections, chunking -> ingest (documents, chunks,
offline extraction, retraction) -> extraction (model) -> graph (entities, relationships, summaries) ->
join (phrases -> symbols, through tenure.namespace.phrases) -> communities (Leiden) -> reports ->
vectors. Queries: why, ask. Around them: cost (knowledge check), cache (every model call by input
hash, the budget), providers/, prompts, answers (JSON out of a model's answer), pipeline, api.
"""

from tenure.knowledge.api import Knowledge

__all__ = ["Knowledge"]
