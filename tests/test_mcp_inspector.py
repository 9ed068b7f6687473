"""The MCP Inspector's CLI mode (a client written by the protocol's authors, in TypeScript) lists and
calls tenure's tools over stdio and over streamable HTTP.

The Inspector is installed from npm into a cache directory on first use (about a minute). Versions
from 0.16 on need Node 22; Debian's Node is 20, so 0.15.0 is pinned (its CLI sends no custom headers:
the bearer token over HTTP is tested with the SDK's client in test_mcp_server.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.mcp_support import http_server, server_env

INSPECTOR = "@modelcontextprotocol/inspector@0.15.0"
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tenure-tests" / "inspector-0.15.0"
FILES = {
    "pay/__init__.py": "",
    "pay/gateway.py": "class Gateway:\n    def send(self, payment):\n        return payment\n",
    "pay/batch.py": "from pay.gateway import Gateway\n\n\ndef run(p):\n    return Gateway().send(p)\n",
}


@pytest.fixture(scope="module")
def inspector() -> Path:
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed: the MCP Inspector comes from npm (apt-get install npm)")
    cli = CACHE / "node_modules" / ".bin" / "mcp-inspector"
    if not cli.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(CACHE), INSPECTOR],
                       check=True, capture_output=True, text=True, timeout=600)
    return cli


@pytest.fixture
def repo(make_indexed_repo) -> Path:
    return make_indexed_repo(FILES)


def tenure_command() -> str:
    """The installed `tenure` script of this interpreter's environment."""
    beside = Path(sys.executable).with_name("tenure")
    return str(beside) if beside.exists() else shutil.which("tenure") or "tenure"


def run(inspector: Path, env: dict[str, str], *args: str) -> dict:
    done = subprocess.run([str(inspector), "--cli", *args], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def test_inspector_over_stdio(inspector: Path, repo: Path, tmp_path: Path) -> None:
    env = server_env(tmp_path / "home")
    server = [tenure_command(), "serve", "--repo", str(repo), "-e", f"XDG_CONFIG_HOME={env['XDG_CONFIG_HOME']}"]
    listed = run(inspector, env, *server, "--method", "tools/list")
    assert {t["name"] for t in listed["tools"]} >= {"what_breaks", "recall", "remember", "session_start"}

    broke = run(inspector, env, *server, "--method", "tools/call", "--tool-name", "what_breaks",
                "--tool-arg", "symbol=Gateway.send")
    impact = broke["structuredContent"]
    assert impact["rows"][0]["symbol"] == "pay.batch.run" and impact["rows"][0]["tier"] == "inferred"

    wrote = run(inspector, env, *server, "--method", "tools/call", "--tool-name", "remember",
                "--tool-arg", "kind=convention", "--tool-arg", "content=Payments go through Gateway.send only.")
    assert wrote["structuredContent"]["deduplicated"] is False
    rules = run(inspector, env, *server, "--method", "resources/read", "--uri", "tenure://rules")
    assert "Gateway.send only" in rules["contents"][0]["text"]


def test_inspector_over_streamable_http(inspector: Path, repo: Path, tmp_path: Path) -> None:
    """0.15.0 sends no custom headers, so it is refused where a token is required, and served where not."""
    env = server_env(tmp_path / "home")
    with http_server(repo, tmp_path / "home") as url:
        listed = run(inspector, env, url, "--transport", "http", "--method", "tools/list")
        assert len(listed["tools"]) == 14
        found = run(inspector, env, url, "--transport", "http", "--method", "tools/call", "--tool-name",
                    "find_symbol", "--tool-arg", "symbol=send")
        assert found["structuredContent"]["matches"][0]["fqn"] == "pay.gateway.Gateway.send"
    with http_server(repo, tmp_path / "home", token="t0ken") as url:
        refused = subprocess.run([str(inspector), "--cli", url, "--transport", "http", "--method", "tools/list"],
                                 env=env, capture_output=True, text=True, timeout=120)
        assert refused.returncode != 0 and "bearer token" in refused.stdout + refused.stderr
