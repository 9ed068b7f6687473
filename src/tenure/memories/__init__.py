"""Agent- and human-written memories attached to elements (SPEC §3): remember, recall, confirm,
supersede, history, work sessions, drift, briefing and the knowledge map.

The façade, :class:`tenure.memories.api.Memories`, brings the memory stack (numpy, cryptography):
it is imported where memories are used, so this package stays light for commands that only stamp
drift (`tenure index`) or name an error."""

from tenure.memories.errors import KeyProblem, MemoriesError

__all__ = ["KINDS", "KeyProblem", "MemoriesError"]


def __getattr__(name: str) -> object:
    # KINDS on first use: the ranking it is read from is a twentieth of the start of a hook, which
    # names no kind (only opens the package, for its errors)
    if name == "KINDS":
        from tenure.memories.ranking import KIND_WEIGHTS

        return tuple(KIND_WEIGHTS)
    raise AttributeError(f"module 'tenure.memories' has no attribute {name!r}")
