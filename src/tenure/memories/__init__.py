"""Agent- and human-written memories attached to elements (SPEC §3): remember, recall, confirm,
supersede, history, work sessions, drift, briefing and the knowledge map.

The façade, :class:`tenure.memories.api.Memories`, brings the memory stack (numpy, cryptography):
it is imported where memories are used, so this package stays light for commands that only stamp
drift (`tenure index`) or name an error."""

from tenure.memories.errors import KeyProblem, MemoriesError
from tenure.memories.ranking import KIND_WEIGHTS

KINDS = tuple(KIND_WEIGHTS)

__all__ = ["KINDS", "KeyProblem", "MemoriesError"]
