"""Knowledge store tools (SPEC 2.2, 2.6): why a symbol is the way it is, questions to the knowledge
graph, and a build that can use the agent's own model (MCP sampling). Thin wrappers over
`Tenure.knowledge`."""

from __future__ import annotations

from typing import Annotated

import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from tenure.api import Tenure
from tenure.knowledge.providers import ProviderError
from tenure.mcp.registry import READ_ONLY, WRITES, Registry
from tenure.mcp.tools.results import refusals, structured

WHY_IS_THIS = (
    "Why a symbol is this way: decisions, incidents, PR/issue threads, changelog entries, commits — each with "
    "source, quote (the source's words; model_says is a model's), link tier (exact|strong|weak|unresolved), "
    "`via` (class, module, a name it reads, a callee: a rung below) and mode (offline|model; model_coverage). "
    "Concepts and config keys work too."
)
ASK = "Ask the project's knowledge graph; global_search for corpus-wide patterns. Cites sources, says its mode."
BUILD = (
    "Build or update the knowledge graph (only new or changed material; a rebuild asks nothing), with your "
    "model through sampling when none is configured. max_calls/max_tokens stop it; call again to resume."
)


def register(registry: Registry, tenure: Tenure) -> None:
    def why_is_this(
        symbol: Annotated[str, Field(description="Symbol name or suffix, or a phrase")],
        limit: Annotated[int, Field(ge=1, le=50)] = 8,
    ) -> CallToolResult:
        return structured(tenure.knowledge.why(symbol, limit))

    def knowledge_ask(question: str, global_search: bool = False) -> CallToolResult:
        with refusals(ValueError, ProviderError):
            return structured(tenure.knowledge.ask(question, global_search))

    async def knowledge_build(
        max_calls: Annotated[int | None, Field(ge=0)] = None,
        max_tokens: Annotated[int | None, Field(ge=0)] = None,
        ctx: Context | None = None,
    ) -> CallToolResult:
        from tenure.knowledge.providers.sampling import SamplingProvider, supports_sampling

        with refusals(ValueError, ProviderError):
            provider = tenure.knowledge.provider()
            if provider is None and ctx is not None and supports_sampling(ctx):
                params = ctx.session.client_params
                provider = SamplingProvider(ctx.session, params.client_info.name if params else "client",
                                            ctx.request_id)
            report = await anyio.to_thread.run_sync(
                lambda: tenure.knowledge.build(max_calls=max_calls, max_tokens=max_tokens, provider=provider,
                                               offline=provider is None))
        return structured(report)

    registry.tool(why_is_this, WHY_IS_THIS, READ_ONLY)
    registry.tool(knowledge_ask, ASK, READ_ONLY)
    registry.tool(knowledge_build, BUILD, WRITES)
