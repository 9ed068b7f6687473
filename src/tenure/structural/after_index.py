"""The contract of a source that runs after tree-sitter's pass (bytecode, DI wiring, traces,
language servers; structural/sources.py lists and runs them).

A source sees the project through a `SourceContext` alone, never through the API built over the
structural store, and says which sources' evidence it builds on (`after`): the runner orders them
from those declarations.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from tenure.storage import Database
    from tenure.structural.report import IndexReport
    from tenure.structural.store import StructuralStore


@dataclass(frozen=True)
class SourceContext:
    """What a source is given of the project."""

    root: Path
    state_dir: Path  # where it may keep caches and logs (`tenure.state.state_dir`)
    db: Database
    structural: StructuralStore


class AfterIndex(Protocol):
    name: str  # its summary's key in `IndexReport.sources`
    after: tuple[str, ...]  # the names of the sources whose evidence it reads: they run before it

    def run(self, context: SourceContext, report: IndexReport) -> dict:
        """What it did, short and JSON-ready ({} when it had nothing to read: it then says nothing).
        It writes its evidence as `source_edges` (and source symbols) through the structural store."""
        ...
