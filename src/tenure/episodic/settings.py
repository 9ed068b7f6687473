"""The episodic store's settings: the `[episodic]` table of tenure.toml.

```toml
[episodic]
conclusion_half_life_days = 30   # an agent's conclusion loses half its confidence in this many days
recency_half_life_days = 365     # an attempt's weight in the timeline halves over this many days
expiry_rewritten = 0.8           # a symbol whose lines today were last written after the episode past this share ...
expiry_edges = 0.5               # ... or its edges changed past this (Jaccard distance): the episode leaves retrieval
fixup_days = 3                   # a fix to the same symbols within this many days marks the attempt fixed up
```
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tenure.config import SHARE, load_settings


@dataclass(frozen=True)
class EpisodicSettings:
    """The `[episodic]` table, its defaults filled in (see the module's doc)."""

    conclusion_half_life_days: float = 30.0
    recency_half_life_days: float = 365.0
    expiry_rewritten: float = field(default=0.8, metadata=SHARE)
    expiry_edges: float = field(default=0.5, metadata=SHARE)
    fixup_days: float = 3.0


def load(root: Path) -> EpisodicSettings:
    return load_settings(root, "episodic", EpisodicSettings)
