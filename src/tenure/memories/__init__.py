"""Agent- and human-written memories attached to elements (SPEC §3): remember, recall, confirm,
supersede, history, work sessions, drift, briefing and the knowledge map."""

from tenure.memories.api import KINDS, Memories
from tenure.memories.errors import KeyProblem, MemoriesError

__all__ = ["KINDS", "KeyProblem", "Memories", "MemoriesError"]
