"""What every store raises when it refuses a request: the message says what to do instead, and
nothing was written. The interfaces show it as it is (CLI: exit 2; MCP: a tool error)."""

from __future__ import annotations


class Refusal(ValueError):
    """A request a store refused; nothing was written."""
