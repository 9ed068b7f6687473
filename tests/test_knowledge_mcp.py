"""The knowledge tools over MCP, with the SDK's own client: why_is_this and knowledge_ask answer with
their mode; knowledge_build uses the client's model through sampling when no model is configured, and
runs offline when the client offers none."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp_types import CreateMessageRequestParams, CreateMessageResult, TextContent

from tenure import Tenure
from tenure.mcp.server import build_server
from tests.knowledge_support import canned_answer, make_repo

pytestmark = pytest.mark.usefixtures("shared_stores")  # each test on SQLite and on PostgreSQL


def _sampled(params: CreateMessageRequestParams, seen: list) -> CreateMessageResult:
    messages = ([{"role": "system", "content": params.system_prompt}] if params.system_prompt else []) + [
        {"role": m.role, "content": m.content.text} for m in params.messages]
    seen.append(messages)
    return CreateMessageResult(role="assistant", content=TextContent(type="text", text=canned_answer(messages)),
                               model="client-model")


def test_knowledge_build_over_mcp_uses_the_clients_model_through_sampling(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    (repo / "tenure.toml").write_text("[knowledge]\nhistory = false\n")
    seen: list = []

    async def sampling(context, params: CreateMessageRequestParams) -> CreateMessageResult:
        return _sampled(params, seen)

    async def main(t: Tenure) -> tuple[dict, dict, dict]:
        # the handshake-era protocol, as agents' clients speak it: its server-to-client requests carry sampling
        async with Client(build_server(t), mode="legacy", sampling_callback=sampling) as client:
            built = await client.call_tool("knowledge_build", {})
            why = await client.call_tool("why_is_this", {"symbol": "SettlementService.retry"})
            rebuilt = await client.call_tool("knowledge_build", {})
            return built.structured_content, why.structured_content, rebuilt.structured_content

    with Tenure.open(repo) as t:
        t.index()
        built, why, rebuilt = anyio.run(main, t)
    assert built["mode"] == "model" and built["model"]["model"].startswith("mcp-sampling:")
    assert built["model"]["calls"] == len(seen) > 0
    assert any("extract the knowledge graph" in m[0]["content"] for m in seen)
    assert why["mode"] == "model" and why["symbol"] == "settlement.service.SettlementService.retry"
    assert rebuilt["model"]["calls"] == 0  # answers are cached under the client's model


def test_without_sampling_the_build_runs_offline_and_why_says_so(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    (repo / "tenure.toml").write_text("[knowledge]\nhistory = false\n")

    async def main(t: Tenure) -> tuple[dict, dict, str]:
        async with Client(build_server(t)) as client:
            built = await client.call_tool("knowledge_build", {})
            why = await client.call_tool("why_is_this", {"symbol": "SettlementService.retry"})
            asked = await client.call_tool("knowledge_ask", {"question": "why does `SettlementService.retry` "
                                                                         "retry three times?"})
            return built.structured_content, why.structured_content, asked.content[0].text

    with Tenure.open(repo) as t:
        t.index()
        built, why, asked = anyio.run(main, t)
    assert built["mode"] == "offline" and built["model"] is None
    assert why["mode"] == "offline" and "mode: offline" in why["summary"]["text"]
    refs = {e["source"]["ref"] for e in why["evidence"]}
    assert {"ADR-0001", "#412"} <= refs
    assert json.loads(asked)["mode"] == "offline"
