"""Memory tools and resources (SPEC §3): sessions, recall, remember, confirm, briefing, map, review.

Thin wrappers over `Tenure.memories`: each returns the API's dict; the API's refusals (they say
what to do) come back as tool errors.
"""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from tenure.api import Tenure
from tenure.mcp.registry import READ_ONLY, WRITES, Registry
from tenure.mcp.tools.results import refusals, structured
from tenure.memories import MemoriesError

SESSION_START = (
    "Call first, once per task: opens a work session and returns its id, leases on `elements`, and the "
    "briefing (pitfalls first; [VERIFY] marks memories whose code changed since they were last confirmed: "
    "check before relying on them). Pass the id to recall and session_end."
)
RECALL = (
    "Search this project's memories (pitfalls, conventions, notes, session outcomes) by meaning. `explain` "
    "gives each ranking factor; verify=true: its element changed since; via: pulled in by a [[link]]."
)
REMEMBER = (
    "Write what the next agent must know and cannot read from the code (pitfall, convention, note) on elements; "
    "scope=org: for the whole organisation. The same fact again confirms it; similarTo: near misses "
    "(pass supersedes=ID). [[Title]] links memories (by title), elements, ADRs."
)
CONFIRM = "Call when you checked that a memory (id or title) still holds: resets its freshness, clears [VERIFY]."
SESSION_END = (
    "Call when the task is done: `used` = ids of memories you relied on (this is what raises their rank); "
    "writes one session_outcome memory for the leased elements and the session's episode (what changed, "
    "test outcomes)."
)
BRIEF = "Call when the task changes within a session: the briefing for the new task (session_start returns the first)."
KNOWLEDGE_MAP = (
    "What is documented where: one cell per element at `level` (counts, pitfalls, freshness) and the gaps."
)
REVIEW_QUEUE = (
    "Memories to maintain: drifted (code changed since confirmed) and ignored (served, never cited)."
)

Session = Annotated[str | None, Field(description="Session id from session_start")]
Elements = Annotated[list[str] | None, Field(
    description="Symbol names, module:<name>, path:<dir>/, service:<name>, ADR-N or project")]
MemoryRef = Annotated[int | str, Field(description="Memory id or title")]


def register(registry: Registry, tenure: Tenure) -> None:
    # (`tenure.memories` is asked per call: loading the memory stack, NumPy with it, is left to the
    # server's preparing thread rather than done before the server answers `initialize`)

    def session_start(
        agent: Annotated[str, Field(description="Who works, e.g. claude-code")],
        task: Annotated[str, Field(description="The task in one sentence")],
        elements: Elements = None,
    ) -> CallToolResult:
        with refusals(MemoriesError):
            return structured(tenure.start_session(agent, task, elements or ()))

    def recall(
        query: str, session: Session = None, elements: Elements = None,
        limit: Annotated[int, Field(ge=1, le=50)] = 10,
    ) -> CallToolResult:
        with refusals(MemoriesError):
            return structured(tenure.memories.recall(query, session, elements, limit))

    def remember(
        content: str,
        kind: Literal["pitfall", "convention", "note"] = "note",
        elements: Elements = None,
        title: str | None = None,
        supersedes: Annotated[int | str | None, Field(description="Id or title it replaces")] = None,
        session: Session = None,
        scope: Literal["project", "org"] = "project",
        ctx: Context | None = None,
    ) -> CallToolResult:
        with refusals(MemoriesError):
            return structured(tenure.memories.remember(content, kind, elements, title, supersedes,
                                                       author=_author(ctx), session=session, scope=scope))

    def confirm_memory(memory: MemoryRef, ctx: Context | None = None) -> CallToolResult:
        with refusals(MemoriesError):
            return structured(tenure.memories.confirm(memory, author=_author(ctx)))

    def session_end(
        session: Annotated[str, Field(description="Session id from session_start")],
        summary: Annotated[str, Field(description="What was done and what was learned")],
        used: Annotated[list[int | str] | None, Field(description="Ids of memories you relied on")] = None,
        outcome: Literal["success", "failure", "partial", "abandoned"] = "success",
        conclusions: Annotated[list[str] | None, Field(description="What you concluded; kept apart, low "
                                                                    "confidence")] = None,
    ) -> CallToolResult:
        with refusals(MemoriesError):
            return structured(tenure.end_session(session, summary, used or (), outcome, conclusions=conclusions or ()))

    def brief(task: str | None = None, session: Session = None) -> CallToolResult:
        with refusals(MemoriesError):
            return structured(tenure.brief(task, session))

    def knowledge_map(level: Literal["package", "module", "service"] = "module") -> CallToolResult:
        with refusals(MemoriesError):
            return structured(tenure.memories.knowledge_map(level))

    def review_queue() -> CallToolResult:
        with refusals(MemoriesError):
            return structured(tenure.memories.review())

    registry.tool(session_start, SESSION_START, WRITES)
    registry.tool(recall, RECALL, READ_ONLY)
    registry.tool(remember, REMEMBER, WRITES)
    registry.tool(confirm_memory, CONFIRM, WRITES)
    registry.tool(session_end, SESSION_END, WRITES)
    registry.tool(brief, BRIEF, READ_ONLY)
    registry.tool(knowledge_map, KNOWLEDGE_MAP, READ_ONLY)
    registry.tool(review_queue, REVIEW_QUEUE, READ_ONLY)

    def briefing() -> str:
        return tenure.memories.brief()["text"]

    def rules() -> str:
        return tenure.rules()["text"]

    registry.resource("tenure://briefing", briefing, "The session briefing: pitfalls first, drift warnings in words.")
    registry.resource("tenure://rules", rules, "Always-loaded house rules: the project's conventions.")


def _author(ctx: Context | None) -> str:
    """agent/<client name> from the MCP handshake, so memories say which agent wrote them."""
    params = ctx.session.client_params if ctx is not None else None
    return f"agent/{params.client_info.name}" if params is not None else "agent/mcp"
