"""Procedural store: each situational procedure of tenure.toml is a tool, its trigger in its
description (tools, not docs); the always-loaded rules are the `tenure://rules` resource (memories.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from mcp_types import CallToolResult
from pydantic import Field

from tenure.api import Tenure
from tenure.mcp.registry import WRITES, Registry
from tenure.mcp.tools.results import refusals, structured
from tenure.procedural.procedures import Procedure, procedures
from tenure.refusal import Refusal


def register(registry: Registry, tenure: Tenure) -> None:
    # (read from tenure.toml, not through the rules' store: that loads at a procedure's first run)
    for procedure in procedures(tenure.root):
        registry.tool(_runner(tenure, procedure), _description(procedure), WRITES, name=procedure.tool_name)


def _description(procedure: Procedure) -> str:
    if procedure.not_run:  # (listed, not dropped: the agent can tell the user; none of the repository's words)
        return f"A procedure of tenure.toml, {procedure.not_run}."
    return (f"Call {procedure.when}: runs `{procedure.run}` at the project root; returns its exit status and "
            "output (pass session to record its test verdict).")


def _runner(tenure: Tenure, procedure: Procedure) -> Callable[..., CallToolResult]:
    def run(session: Annotated[str | None, Field(description="Session id from session_start")] = None
            ) -> CallToolResult:
        with refusals(Refusal):
            return structured(tenure.rules_store.run_procedure(procedure.name, session))

    return run
