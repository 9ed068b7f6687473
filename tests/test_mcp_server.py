"""The MCP server with the SDK's own client: over stdio, over streamable HTTP, and refusing requests
without the bearer token when bound beyond loopback."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.mcp_support import TENURE, http_server, server_env, stdio_params

FILES = {
    "shop/__init__.py": "",
    "shop/orders.py": "class Order:\n    def total(self):\n        return 1\n",
    "shop/checkout.py": (
        "from shop.orders import Order\n\n\n"
        "def checkout():\n    return Order().total()\n"
    ),
    "billing/invoice.py": "class Invoice:\n    def total(self):\n        return 3\n",
}
STRUCTURAL_TOOLS = {"what_breaks", "find_symbol"}


@pytest.fixture
def repo(make_indexed_repo) -> Path:
    return make_indexed_repo(FILES)


async def exercise(client: Client) -> None:
    """What every transport must do: list the tools, answer with tiers, freshness and candidates."""
    names = {t.name for t in (await client.list_tools()).tools}
    assert names >= STRUCTURAL_TOOLS
    result = await client.call_tool("what_breaks", {"symbol": "shop.orders.Order.total"})
    assert not result.is_error
    data = result.structured_content
    assert data["symbol"] == "shop.orders.Order.total"
    [dependant] = data["rows"]
    assert (dependant["symbol"], dependant["tier"], dependant["sites"]) == ("shop.checkout.checkout", "inferred",
                                                                            ["shop/checkout.py:5"])
    assert data["totals"] == {"rows": 1, "sites": 1, "refutedRows": 0} and "more" not in data
    assert "lower bound" in data["summary"]["text"]
    assert data["freshness"]["text"].endswith("up to date")
    assert json.loads(result.content[0].text) == data  # the same, as text, for clients that show only text
    # both tools take the symbol by the same name; a name that is not unique is an error with the candidates
    found = await client.call_tool("find_symbol", {"symbol": "total"})
    assert found.is_error and found.structured_content["how"] == "ambiguous"
    assert len(found.structured_content["matches"]) == 2 and "names 2 symbols" in found.structured_content["message"]
    unique = await client.call_tool("find_symbol", {"symbol": "Order.total"})
    assert not unique.is_error and unique.structured_content["how"] == "suffix"
    for tool in ("what_breaks", "find_symbol"):
        unknown = await client.call_tool(tool, {"symbol": "NoSuchThing"})
        assert unknown.is_error and unknown.structured_content["matches"] == []
        assert "freshness" in unknown.structured_content
    not_found = (await client.call_tool("what_breaks", {"symbol": "NoSuchThing"})).structured_content["summary"]
    assert not_found["lower_bound"] is None and not_found["reasons"] == []  # no answer: no bound is claimed
    assert not_found["text"] == "no symbol matches 'NoSuchThing'"
    ambiguous = await client.call_tool("what_breaks", {"symbol": "total"})
    assert ambiguous.is_error and len(ambiguous.structured_content["matches"]) == 2


def test_stdio(repo: Path, tmp_path: Path) -> None:
    async def main() -> None:
        async with Client(stdio_params(repo, tmp_path / "home")) as client:
            await exercise(client)

    anyio.run(main)


def test_a_line_that_is_no_message_gets_an_error_reply_over_stdio_and_the_server_serves_on(
        repo: Path, tmp_path: Path) -> None:
    # a lone surrogate (`"\\ud800"`) is JSON but no Unicode text: the SDK's transport handed the server the
    # parse error, which logged it and answered nothing; the client waited for ever
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "find_symbol", "arguments": {"symbol": "\ud800"}}},
        "{not json",
        {"jsonrpc": "2.0", "id": 3, "no": "method"},
        [{"jsonrpc": "2.0", "id": 5, "method": "ping"}],  # a batch: JSON, no message here
        {"jsonrpc": "2.0", "id": "\ud800x", "method": "ping"},  # an id that is no text: not echoed
        {"jsonrpc": "2.0", "id": 4, "method": "tools/list"},
    ]
    sent = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    # (stdin stays open until the last reply, as a client's does: at its end the server stops serving)
    proc = subprocess.Popen([*TENURE, "serve", "--repo", str(repo)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=server_env(tmp_path / "home"))
    watchdog = threading.Timer(120, proc.kill)
    watchdog.start()
    try:
        proc.stdin.write(sent.encode())
        proc.stdin.flush()
        replies = []
        for line in iter(proc.stdout.readline, b""):
            replies.append(json.loads(line))
            if replies[-1].get("id") == 4:
                proc.stdin.close()
    finally:
        watchdog.cancel()
        proc.kill()
        proc.wait()
    assert [(r["id"], r.get("error", {}).get("code")) for r in replies] == [
        (1, None), (2, -32602), (None, -32700), (3, -32600), (None, -32600), (None, -32600), (4, None)]
    assert "lone surrogate" in replies[1]["error"]["message"]
    assert {t["name"] for t in replies[-1]["result"]["tools"]} >= STRUCTURAL_TOOLS


def test_streamable_http_on_loopback(repo: Path, tmp_path: Path) -> None:
    async def main(url: str) -> None:
        async with Client(url) as client:
            await exercise(client)

    with http_server(repo, tmp_path / "home") as url:
        anyio.run(main, url)


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


@pytest.mark.parametrize("host", ["0.0.0.0", "127.0.0.2"], ids=["every interface", "another loopback address"])
def test_a_bind_but_the_literal_loopback_names_needs_the_token_and_checks_host_and_origin(
        repo: Path, tmp_path: Path, host: str) -> None:
    """Binding every interface exposes the server beyond loopback; 127.0.0.2 is loopback, but not a
    name the SDK guards by itself: without the token and the Host check a page of another site that
    rebinds its name to the address could read and write memories. (The test's own requests travel
    over loopback.)"""
    refused = subprocess.run([*TENURE, "serve", "--http", "--host", host, "--repo", str(repo)],
                             env=server_env(tmp_path / "home"), capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "--token" in refused.stderr
    token = "s3cret-token"
    with http_server(repo, tmp_path / "home", host=host, token=token) as url:
        address = url.split("/")[2]
        sent = {"accept": "application/json, text/event-stream", "authorization": f"Bearer {token}"}

        def status(**headers: str) -> int:
            return httpx2.post(url, json=INITIALIZE, headers={**sent, **headers}).status_code

        assert status(authorization="Bearer nope") == 401
        anonymous = httpx2.post(url, json=INITIALIZE, headers={**sent, "authorization": ""})
        assert anonymous.status_code == 401 and "bearer token" in anonymous.json()["error"]
        assert status(host="evil.example:" + address.split(":")[1]) == 421  # a rebound name, even with the token
        assert status(origin="http://evil.example") == 403
        assert status() == status(origin=f"http://{address}") == 200
        # the scheme's name in any case (RFC 9110): clients and proxies spell it so
        assert status(authorization=f"bearer {token}") == status(authorization=f"BEARER  {token}") == 200
        assert status(authorization=f"Basic {token}") == 401

        async def main() -> None:
            with pytest.raises(Exception):  # noqa: B017 - whatever the SDK makes of a 401, it does not connect
                async with Client(url) as client:
                    await client.list_tools()
            authorised = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
            async with authorised, Client(streamable_http_client(url, http_client=authorised)) as client:
                await exercise(client)

        anyio.run(main)


def test_the_literal_loopback_bind_checks_host_too(repo: Path, tmp_path: Path) -> None:
    with http_server(repo, tmp_path / "home") as url:
        port = url.split(":")[2].split("/")[0]
        headers = {"accept": "application/json, text/event-stream", "host": f"evil.example:{port}"}
        assert httpx2.post(url, json=INITIALIZE, headers=headers).status_code == 421
