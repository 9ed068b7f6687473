"""A server's tools are made by the SDK (their argument models and JSON schemas) when a client first
lists or calls one, not when the server is built (`tenure serve` answers `initialize` without them):
what it lists is what the SDK makes of every store's tools at once — names, descriptions, lean schemas,
annotations — and a call that comes before any listing is answered."""

from __future__ import annotations

import asyncio
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.tools import Tool

from tenure import Tenure
from tenure.mcp.registry import Registry
from tenure.mcp.schema import lean
from tenure.mcp.server import build_server
from tenure.mcp.tools import STORES

FILES = {
    "shop/__init__.py": "",
    "shop/orders.py": "class Order:\n    def total(self):\n        return 1\n",
    "shop/checkout.py": "from shop.orders import Order\n\n\ndef checkout():\n    return Order().total()\n",
    "tenure.toml": '[procedures.unit-tests]\nrun = "echo ok"\nwhen = "after changing shop/"\n',
}


@pytest.fixture
def repo(make_indexed_repo) -> Path:
    return make_indexed_repo(FILES)


def made_at_once(t: Tenure) -> MCPServer:
    """Every store's tools made by the SDK as the server is built, each schema leaned."""
    registry = Registry()
    for store in STORES:
        store.register(registry, t)
    tools = []
    for d in registry.tools:
        tool = Tool.from_function(d.fn, name=d.name, description=d.description, annotations=d.annotations)
        tool.parameters = lean(tool.parameters)
        tools.append(tool)
    return MCPServer("tenure", tools=tools)


def test_the_tools_listed_are_those_the_sdk_makes_of_every_store_at_once(repo: Path) -> None:
    with Tenure.open(repo, discover=False) as t:
        listed = asyncio.run(build_server(t).list_tools())
        expected = asyncio.run(made_at_once(t).list_tools())
    assert len(listed) >= 17 and "procedure_unit_tests" in {tool.name for tool in listed}
    assert [tool.model_dump(by_alias=True) for tool in listed] == [tool.model_dump(by_alias=True) for tool in expected]
    what_breaks = next(tool for tool in listed if tool.name == "what_breaks")
    assert what_breaks.input_schema["properties"]["depth"] == {
        "default": 1, "description": "1 = direct dependants", "maximum": 10, "minimum": 1, "type": "integer"}


def test_no_tool_is_made_until_a_client_asks_and_a_call_before_any_listing_is_answered(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []
    from_function = Tool.from_function.__func__  # (counted, then made as ever)

    def counted(cls: type[Tool], fn, name=None, **kwargs) -> Tool:  # noqa: ANN001
        made.append(name or fn.__name__)
        return from_function(cls, fn, name=name, **kwargs)

    monkeypatch.setattr(Tool, "from_function", classmethod(counted))

    async def first_call_then_list(server: MCPServer) -> tuple:
        async with Client(server) as client:
            result = await client.call_tool("find_symbol", {"symbol": "Order.total"})
            return result, {tool.name for tool in (await client.list_tools()).tools}

    with Tenure.open(repo, discover=False) as t:
        server = build_server(t)
        assert made == []  # built, and no schema computed
        result, names = anyio.run(first_call_then_list, server)
    found = result.structured_content
    assert not result.is_error and (found["how"], found["matches"][0]["fqn"]) == ("suffix", "shop.orders.Order.total")
    assert sorted(made) == sorted(names) and len(made) == len(set(made))  # every tool made once
