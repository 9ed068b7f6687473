"""One module per store, each with `register(registry, tenure)` contributing that store's tools and
resources as thin wrappers over the Tenure API.

A store that lands later adds a module here and an entry in STORES; nothing else changes.
"""

from __future__ import annotations

from types import ModuleType

from tenure.mcp.tools import episodic, join, knowledge, memories, procedural, structural

STORES: tuple[ModuleType, ...] = (join, structural, memories, knowledge, episodic, procedural)
