"""`ask` and `resolve` over MCP (the SDK's own client, in process): the same answer as the API, its
budget honoured; an empty question is a tool error that says how to ask."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client

from tenure import Tenure
from tenure.mcp.server import build_server
from tests.ask_support import QUESTION, RETRY, build


def test_ask_and_resolve_over_mcp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TENURE_ENRICH", "off")
    root = build(tmp_path / "payments").root

    async def main(t: Tenure) -> tuple:
        async with Client(build_server(t)) as client:
            answer = await client.call_tool("ask", {"question": QUESTION, "budget": 900})
            empty = await client.call_tool("ask", {"question": "   "})
            resolved = await client.call_tool("resolve", {"text": "SettlementService.retry", "limit": 3})
            return answer, empty, resolved

    with Tenure.open(root) as t:
        answer, empty, resolved = anyio.run(main, t)
        direct = t.ask(QUESTION, 900)
    assert not answer.is_error
    result = answer.structured_content
    assert result["focus"][0]["symbol"] == RETRY and result["budget"]["used"] <= 900
    assert result["text"] == direct["text"]
    assert answer.content[0].text == direct["text"]  # what an agent reads is what the budget packed, not 3x it
    assert empty.is_error and "ask a question" in empty.content[0].text
    assert not resolved.is_error
    best = resolved.structured_content["matches"][0]
    assert (best["symbol"], best["tier"]) == (RETRY, "exact") and best["why"]
