"""What an index tells its caller: the report of one run, and the progress callback it calls."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

Progress = Callable[[str, int, int], None]  # (phase, done, total)


@dataclass
class IndexReport:
    files_seen: int = 0
    files_parsed: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    files_resolved: int = 0
    files_verified: int = 0  # dependants whose answers from other files still held: edges kept as they were
    # dependants that read edited modules only whole, whose analysis reads the same: kept unchecked
    files_spared: int = 0
    symbols: int = 0
    edges: int = 0
    partial: list[tuple[str, str]] = field(default_factory=list)  # parsed with recovered syntax errors
    unresolved: list[tuple[str, str]] = field(default_factory=list)  # (path, why its resolver gave up)
    resolved_partly: list[tuple[str, str]] = field(default_factory=list)  # (path, why its edges are a part)
    read_cheaply: list[tuple[str, str]] = field(default_factory=list)  # (path, why: vendored, minified)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    # Symbols whose code changed or that went away: memories attached to them have drifted.
    drifted: list[str] = field(default_factory=list)
    seconds: float = 0.0
    phases: dict[str, float] = field(default_factory=dict)  # wall seconds per phase
    sources: dict[str, dict] = field(default_factory=dict)  # what each after-index source did (sources.py)
    changed_paths: list[str] | None = None  # what a watcher said changed; None: the whole tree was walked
    listing: str = ""  # how the files were listed (discover.Listing.how); "" when a watcher named them

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}
