"""Bad input to a command or an endpoint gets a message that says what is wrong, never a traceback or
a 500: arguments that are not UTF-8, ids past what SQLite holds, bodies of the wrong shape, input
nested thousands deep, configuration files that cannot be read."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from tenure import Tenure
from tenure.cli import app
from tenure.http_guard import HostCheck
from tenure.memories import MemoriesError
from tenure.structural.traces.ingest import TraceIngestor
from tenure.structural.traces.receiver import TRACES_PATH, TraceReceiver, build_app
from tenure.web.app import create_app

FILES = {"pay/__init__.py": "", "pay/ledger.py": "class Ledger:\n    def book(self, entry):\n        return entry\n"}
TOO_LARGE = "99999999999999999999999"  # past SQLite's 64-bit integers
DEEP = "[" * 50_000 + "]" * 50_000


@pytest.fixture
def project(make_indexed_repo) -> Path:
    return make_indexed_repo(FILES)


def tenure(*args: str | bytes) -> subprocess.CompletedProcess:
    """The command as a shell runs it: arguments are bytes, and Python decodes them."""
    return subprocess.run([sys.executable, "-m", "tenure.cli", *args], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})


@pytest.mark.parametrize("args", [
    ["what-breaks", b"\xff"], ["find", b"Led\xe9ger"], ["remember", b"caf\xe9 is closed"], ["recall", b"\xff"],
    ["traces", "ingest", b"/tmp/\xff.json"],
], ids=["what-breaks", "find", "remember", "recall", "traces ingest"])
def test_an_argument_that_is_not_utf8_is_refused_by_every_command(project: Path, args: list) -> None:
    out = tenure(*args, "--repo", str(project))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "is not valid UTF-8" in out.stderr and "\\x" in out.stderr  # the bytes, shown as bytes


@pytest.mark.parametrize("command", ["ask", "resolve"])
def test_text_on_stdin_that_is_not_utf8_is_refused_like_an_argument(project: Path, command: str) -> None:
    out = subprocess.run([sys.executable, "-m", "tenure.cli", command, "-", "--repo", str(project)],
                         input=b"What breaks in the \xff\xfe ledger?", capture_output=True,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    stderr = out.stderr.decode()
    assert out.returncode == 2 and "Traceback" not in stderr
    assert "the text on stdin is not valid UTF-8 (byte 19" in stderr


def test_an_id_past_what_sqlite_holds_is_no_memory_on_every_door(project: Path) -> None:
    with Tenure.open(project) as t:
        t.memories.remember("the ledger books in UTC")
        for ref in (TOO_LARGE, f"#{TOO_LARGE}", "²"):  # ("²" is a digit to str.isdigit, but no number)
            with pytest.raises(MemoriesError, match="no memory"):
                t.memories.confirm(ref)
        web = TestClient(create_app(t), base_url="http://127.0.0.1:8766")
        assert web.get(f"/api/memory/{TOO_LARGE}").status_code == 400
        assert web.post(f"/api/memory/{TOO_LARGE}/confirm", json={}).status_code == 400
    for args in (["confirm", TOO_LARGE], ["history", TOO_LARGE], ["supersede", TOO_LARGE, "new text"]):
        result = CliRunner().invoke(app, [*args, "--repo", str(project)])
        assert result.exit_code == 2 and "no memory" in result.output, result.output


@pytest.mark.parametrize("body", [
    "[1, 2]", "{nope", DEEP, '{"content": 5}', '{"title": "no content"}', '{"content": "\\ud800 lone"}',
    '{"content": "x", "extra": ' + DEEP + "}",
], ids=["a list", "not JSON", "nested deep", "content a number", "no content", "a lone surrogate",
        "an unknown field nested deep"])
def test_the_web_pages_supersede_refuses_a_body_that_is_not_its_object(project: Path, body: str) -> None:
    with Tenure.open(project) as t:
        memory = t.memories.remember("the ledger books in UTC")["id"]
        web = TestClient(create_app(t), base_url="http://127.0.0.1:8766")
        refused = web.post(f"/api/memory/{memory}/supersede", content=body,
                           headers={"content-type": "application/json"})
        assert refused.status_code == 400 and "`content` string" in refused.json()["error"]
        assert t.memories.get(memory)["supersededBy"] is None  # nothing written
        ok = web.post(f"/api/memory/{memory}/supersede", json={"content": "the ledger books in local time"})
        assert ok.status_code == 200


def test_the_otlp_receiver_answers_input_nested_thousands_deep_with_400(project: Path) -> None:
    with Tenure.open(project) as t:
        receiver = TraceReceiver(TraceIngestor(t.structural, t.root))
        otlp = TestClient(build_app(receiver, HostCheck("127.0.0.1", 4318)), base_url="http://127.0.0.1:4318")
        answer = otlp.post(TRACES_PATH, content='{"resourceSpans": ' + DEEP + "}",
                           headers={"content-type": "application/json"})
        assert answer.status_code == 400 and "nested too deep" in answer.json()["message"]
        assert receiver.ingestor.report.problems["nested_too_deep"] == 1


@pytest.mark.parametrize("content", [DEEP.encode(), b'{"mcpServers": {"x": "\xff"}}'], ids=["nested deep", "not UTF-8"])
def test_setup_names_a_client_file_it_cannot_read(project: Path, content: bytes, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (project / ".mcp.json").write_bytes(content)
    result = CliRunner().invoke(app, ["setup", "claude", "--repo", str(project)])
    assert result.exit_code == 2 and ".mcp.json" in result.output and "fix it" in result.output
    assert (project / ".mcp.json").read_bytes() == content  # untouched


@pytest.mark.parametrize("content", [f"a = {DEEP}\n".encode(), b'[jvm]\nclasspath = ["\xff"]\n'],
                         ids=["nested deep", "not UTF-8"])
def test_a_tenure_toml_that_cannot_be_read_is_named_by_the_index(project: Path, content: bytes) -> None:
    (project / "tenure.toml").write_bytes(content)
    with Tenure.open(project) as t:
        report = t.index()
    for source in ("jvm", "lsp"):
        assert str(project / "tenure.toml") in report.sources[source]["error"]
        assert "RecursionError" not in report.sources[source]["error"]
    assert json.dumps(report.as_dict())  # and the index still answers
