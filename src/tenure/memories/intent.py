"""The memories' evidence for `related_by_intent`: the elements of the memories that recall of the text
finds (a pitfall about "throttling" attached to `ApiGateway` is evidence that a task about rate limits
is about `ApiGateway`), weighed by the memory's relevance."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tenure.namespace.intent import Evidence, Found, Gathered

if TYPE_CHECKING:
    from tenure.memories.api import Memories

RECALLED = 20
WEIGHT = 0.6  # of a memory of relevance 1


class MemoryEvidence:
    """An `EvidenceProvider` over the project's memories (`Memories.recall`, without a session: no
    impression is logged)."""

    def __init__(self, memories: Memories) -> None:
        self.memories = memories

    def gather(self, text: str) -> Gathered:
        from tenure.memories.api import memory_signals

        if not self.memories.db.rows("SELECT 1 FROM memories LIMIT 1"):
            return Gathered()
        hits = self.memories.recall(text, limit=RECALLED)["results"]
        return Gathered(tuple(Found(element, Evidence("memory", why, WEIGHT * relevance))
                              for element, relevance, why in memory_signals(hits)))
