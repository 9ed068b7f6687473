"""The memory commands: each has --json, and a refusal says what to do (exit code 2)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from tenure import Tenure
from tenure.cli import app

pytestmark = pytest.mark.usefixtures("shared_stores")  # each test on SQLite and on PostgreSQL

runner = CliRunner()


@pytest.fixture
def repo(shop: Tenure, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("TENURE_EMBEDDINGS", "none")  # lexical: no model load per command
    return str(shop.root)


def run(repo: str, *args: str) -> dict:
    result = runner.invoke(app, [*args, "--repo", repo, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_remember_then_recall(repo: str) -> None:
    written = run(repo, "remember", "headers over 8KB are stripped", "--kind", "pitfall", "-e", "ApiGateway",
                  "--title", "Header limit")
    recalled = run(repo, "recall", "headers stripped")
    assert recalled["results"][0]["id"] == written["id"]
    assert recalled["results"][0]["explain"]["kind"]["factor"] == 3.0
    assert recalled["mode"] == "lexical"


def test_recall_in_words_shows_every_factor(repo: str) -> None:
    run(repo, "remember", "headers over 8KB are stripped", "-e", "ApiGateway")
    out = runner.invoke(app, ["recall", "headers", "--repo", repo]).stdout
    assert "lexical only" in out
    assert "× kind 1.5 × freshness 1.00 (0 days) × citations 1.00" in out


def test_confirm_supersede_and_history(repo: str) -> None:
    first = run(repo, "remember", "refunds take 3 days", "--title", "Refunds")["id"]
    assert run(repo, "confirm", "Refunds")["confirmations"] == 1
    second = run(repo, "supersede", str(first), "refunds take 5 days")["id"]
    assert [v["id"] for v in run(repo, "history", "Refunds")["versions"]] == [first, second]


def test_a_work_session_from_start_to_end(repo: str) -> None:
    started = run(repo, "session", "start", "--agent", "claude-code/sarah", "--task", "change checkout",
                  "-e", "OrderProcessor")
    assert "Briefing: change checkout" in started["briefing"]
    ended = run(repo, "session", "end", started["session"], "--summary", "moved VAT", "--outcome", "partial",
                "--edited", "shop/orders.py")
    assert ended["elements"] == ["shop.orders.OrderProcessor"] and ended["outcome"] == "partial"


def test_brief_map_and_review(repo: str) -> None:
    run(repo, "remember", "charge before booking", "--kind", "pitfall", "-e", "OrderProcessor")
    assert "[PITFALL]" in run(repo, "brief", "--task", "checkout")["text"]
    assert run(repo, "map", "--level", "package")["headline"] == "1 of 2 elements documented"
    assert run(repo, "review")["items"] == []


def test_brief_takes_the_task_as_an_argument_like_ask_and_recall(repo: str) -> None:
    run(repo, "remember", "charge before booking", "--kind", "pitfall", "-e", "OrderProcessor")
    by_argument, by_option = run(repo, "brief", "checkout"), run(repo, "brief", "--task", "checkout")
    assert by_argument["text"] == by_option["text"] and by_argument["task"] == by_option["task"] == "checkout"
    # (the same memories; their scores differ in the sixth digit: freshness decays by the second)
    assert [m["id"] for m in by_argument["memories"]] == [m["id"] for m in by_option["memories"]] != []
    twice = runner.invoke(app, ["brief", "checkout", "--task", "refunds", "--repo", repo])
    assert twice.exit_code == 2 and "give the task once" in twice.output


def test_brief_prints_the_briefing_text(repo: str) -> None:
    run(repo, "remember", "charge before booking", "--kind", "pitfall", "-e", "OrderProcessor")
    out = runner.invoke(app, ["brief", "--repo", repo]).stdout
    assert out.startswith("# Briefing: the project")
    assert "- **OrderProcessor** [PITFALL] (" in out


def test_map_shows_the_headline_and_the_gaps(repo: str) -> None:
    out = runner.invoke(app, ["map", "--repo", repo]).stdout
    assert "0 of 4 elements documented" in out and "nothing written" in out


def test_a_refusal_says_what_to_do_and_exits_2(repo: str) -> None:
    result = runner.invoke(app, ["remember", "x", "-e", "Nope", "--repo", repo])
    assert result.exit_code == 2
    assert "no symbol matches 'Nope'" in result.output and "tenure index" in result.output


def test_a_wrong_key_is_a_clear_cli_error(repo: str, monkeypatch: pytest.MonkeyPatch) -> None:
    run(repo, "remember", "x")
    monkeypatch.setenv("TENURE_KEY", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")
    result = runner.invoke(app, ["recall", "x", "--repo", repo])
    assert result.exit_code == 2 and "is not the one these memories were written with" in result.output
