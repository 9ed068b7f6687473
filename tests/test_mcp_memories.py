"""The memory verbs over MCP with the SDK's client on stdio: a whole work session, the briefing and
rules resources, refusals as tool errors, and the size of the tool list."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp_types import Implementation

from tenure import Tenure
from tenure.mcp.schema import lean
from tests.mcp_support import stdio_params

pytestmark = pytest.mark.usefixtures("shared_stores")  # each test on SQLite and on PostgreSQL

FILES = {
    "pay/__init__.py": "",
    "pay/gateway.py": (
        "class Gateway:\n"
        "    def send(self, payment):\n"
        "        return payment\n"
    ),
    "pay/retry.py": (
        "from pay.gateway import Gateway\n\n\n"
        "def settle(payment):\n"
        "    return Gateway().send(payment)\n"
    ),
}
ALL_TOOLS = {"what_breaks", "find_symbol", "remember", "recall", "confirm_memory", "session_start",
             "session_end", "brief", "knowledge_map", "review_queue", "why_is_this", "knowledge_ask",
             "knowledge_build", "what_happened_before", "ask", "resolve"}
TOOL_LIST_BUDGET = 10_000  # characters of the tools/list JSON (about a quarter as many tokens): issue 28


def test_a_work_session_over_stdio(make_repo, tmp_path: Path) -> None:
    root = make_repo(FILES)
    with Tenure.open(root, discover=False) as t:
        t.index()

    async def call(client: Client, tool: str, **args: object) -> dict:
        result = await client.call_tool(tool, args)
        assert not result.is_error, result.content
        return result.structured_content

    async def main() -> None:
        async with Client(stdio_params(root, tmp_path / "home"),
                          client_info=Implementation(name="pytest-agent", version="1")) as client:
            tools = (await client.list_tools()).tools
            assert {t.name for t in tools} == ALL_TOOLS
            listed = json.dumps([t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools])
            print(f"tool list: {len(tools)} tools, {len(listed)} characters, ~{len(listed) // 4} tokens")
            assert len(listed) < TOOL_LIST_BUDGET

            started = await call(client, "session_start", agent="claude-code", task="change how payments are sent",
                                 elements=["Gateway"])
            session = started["session"]
            assert started["leases"] == ["pay.gateway.Gateway"] and "Briefing" in started["briefing"]

            pitfall = await call(client, "remember", kind="pitfall", title="Gateway throttles",
                                 content="The gateway rejects more than 4 sends per minute: batch payments.",
                                 elements=["Gateway.send"], session=session)
            assert pitfall["deduplicated"] is False
            again = await call(client, "remember", kind="pitfall",
                               content="The gateway rejects more than 4 sends per minute: batch payments.",
                               elements=["Gateway.send"])
            assert again["deduplicated"] is True and again["id"] == pitfall["id"]
            await call(client, "remember", kind="convention", content="Money is Decimal, never float.")

            found = await call(client, "recall", query="gateway sends per minute", session=session)
            top = found["results"][0]
            assert top["id"] == pitfall["id"] and top["author"] == "agent/pytest-agent"  # named after the client
            assert {"score", "explain", "verify", "ageDays"} <= set(top)

            assert (await call(client, "confirm_memory", memory="Gateway throttles"))["id"] == pitfall["id"]
            ended = await call(client, "session_end", session=session, summary="Batched the sends.",
                               used=[pitfall["id"]])
            assert ended["citations"]["declared"] == [pitfall["id"]]

            refused = await client.call_tool("session_end", {"session": session, "summary": "again"})
            assert refused.is_error and "already ended" in refused.content[0].text

            documented = await call(client, "knowledge_map", level="module")
            assert documented["headline"].endswith("elements documented") and documented["documented"] >= 1
            assert (await call(client, "review_queue"))["count"] == 0
            assert "Briefing" in (await call(client, "brief", task="payments"))["text"]

            uris = {str(r.uri) for r in (await client.list_resources()).resources}
            assert uris == {"tenure://briefing", "tenure://rules"}
            rules = (await client.read_resource("tenure://rules")).contents[0].text
            assert "Money is Decimal" in rules and "gateway" not in rules
            briefing = (await client.read_resource("tenure://briefing")).contents[0].text
            assert "[PITFALL]" in briefing

    anyio.run(main)


def test_lean_schema_folds_optional_and_drops_titles() -> None:
    schema = {"title": "fArguments", "type": "object", "properties": {
        "title": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None, "title": "Title"},
        "ids": {"anyOf": [{"items": {"type": "integer"}, "type": "array"}, {"type": "null"}], "default": None},
        "ref": {"anyOf": [{"type": "integer"}, {"type": "string"}], "title": "Ref"},
    }}
    assert lean(schema) == {"type": "object", "properties": {
        "title": {"type": ["string", "null"]},
        "ids": {"type": ["array", "null"], "items": {"type": "integer"}},
        "ref": {"type": ["integer", "string"]},
    }}
