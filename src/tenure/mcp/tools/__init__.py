"""One module per store, each with `register(server, tenure)` adding that store's tools and resources.

A store that lands later adds a module here and an entry in STORES; nothing else changes.
"""

from __future__ import annotations

from types import ModuleType

from tenure.mcp.tools import structural

STORES: tuple[ModuleType, ...] = (structural,)
