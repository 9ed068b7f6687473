"""SPEC §2.6's question, end to end, on a repository the test builds: the phrase resolves to the retry
method, what breaks lists its callers and the service seen only in traces, why cites the decision record
and the incident review, history reports the reverted attempt and its lesson, and the rules that apply
are listed; the answer is packed to its budget and says what it left out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tenure import Tenure
from tenure.ask.answer import AskError
from tenure.cli import app
from tenure.knowledge import tokens
from tests.ask_support import QUESTION, RETRY, build


@pytest.fixture
def payments(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TENURE_ENRICH", "off")
    return build(tmp_path / "payments").root


def items(answer: dict, store: str) -> list[dict]:
    return next(s["items"] for s in answer["sections"] if s["store"] == store)


def test_the_spec_question_gets_one_answer_from_every_store(payments: Path) -> None:
    with Tenure.open(payments) as t:
        answer = t.ask(QUESTION)
    assert [f["symbol"] for f in answer["focus"]] == [RETRY] and answer["focus"][0]["tier"] == "strong"
    assert set(answer["asked"]["named"]) == {"structural", "knowledge", "episodic"}
    assert answer["asked"]["value"] == "3"

    breaks = {i["text"].split()[0]: i for i in items(answer, "structural")}
    assert set(breaks) == {"payouts.batch.pay_out", "settlement.routes.retry_endpoint", "service:ledger"}
    assert breaks["service:ledger"]["tier"] == "observed" and "seen only in traces" in breaks["service:ledger"]["text"]
    assert "a lower bound" in next(s for s in answer["sections"] if s["store"] == "structural")["headlines"][0]

    why = items(answer, "knowledge")
    assert {i["kind"] for i in why} >= {"decision", "incident review"}
    assert why[0]["text"].startswith("ADR-0003") and "three times" in why[0]["text"]  # it states the value asked
    assert any("settled twice" in i["text"] for i in why if i["kind"] == "incident review")

    before = items(answer, "episodic")
    assert before[0]["kind"] == "failed attempt" and before[0]["tier"] == "failure"
    assert "Retry settlements twice more" in before[0]["text"]
    assert "settled payments twice" in before[0]["detail"]["lesson"]

    rules = [i["text"] for i in items(answer, "procedural")]
    assert any("tests/test_service.py" in r for r in rules) and any("payments team" in r for r in rules)
    assert [i["kind"] for i in items(answer, "memories")] == ["pitfall"]

    every = [i for s in answer["sections"] for i in s["items"]]
    assert [i["n"] for i in every] == list(range(1, len(every) + 1))
    assert all(i["store"] and i["tier"] and i["source"] and 0 < i["confidence"] <= 1 for i in every)
    assert any("no language server ran" in d for d in answer["degraded"])
    assert any("no model configured" in d for d in answer["degraded"])
    assert answer["synthesis"] is None


def test_the_answer_reads_as_sections_and_is_the_same_each_time(payments: Path) -> None:
    with Tenure.open(payments) as t:
        first, second = t.ask(QUESTION)["text"], t.ask(QUESTION)["text"]
    assert first == second
    for title in ("## What breaks", "## Why it is this way", "## What happened before", "## Rules that apply",
                  "## Pitfalls and notes"):
        assert title in first
    assert "lesson: Five retries settled payments twice" in first


def test_a_small_budget_keeps_each_stores_most_trusted_items_and_says_what_it_left_out(payments: Path) -> None:
    with Tenure.open(payments) as t:
        whole = t.ask(QUESTION)
        budget = whole["budget"]["used"] - 150  # (some items must go; every section's best can stay)
        small = t.ask(QUESTION, budget=budget)
    assert whole["budget"]["leftOut"] == 0
    assert small["budget"]["leftOut"] > 0 and small["budget"]["used"] <= budget
    assert tokens.count(small["text"]) <= budget + 3  # (the count it states is written after counting)
    for before, after in zip(whole["sections"], small["sections"], strict=True):
        assert after["items"], f"{after['store']} is not heard"  # every store asked keeps its best
        kept = {i["text"] for i in after["items"]}
        worst_kept = min(i["confidence"] * i["relevance"] for i in after["items"])
        assert all(i["confidence"] * i["relevance"] <= worst_kept + 1e-9 for i in before["items"]
                   if i["text"] not in kept)
        assert after["leftOut"] == len(before["items"]) - len(after["items"])
    assert "left out for the budget" in small["text"] and f"`--budget {budget * 2}`" in small["text"]


def test_a_constraint_with_no_symbol_is_listed_and_searched_in_the_documents(payments: Path) -> None:
    with Tenure.open(payments) as t:
        answer = t.ask("Why do we follow the counterparty SLA?")
    assert any("counterparty SLA" in c for c in answer["constraints"])
    assert "Constraints with no symbol (kept as written, searched in the documents)" in answer["text"]
    assert all(f["tier"] == "weak" for f in answer["focus"])  # (whatever else matched is only a candidate)


def test_a_project_without_traces_says_callers_in_other_services_are_unknown(make_repo) -> None:
    root = make_repo({"pay/__init__.py": "", "pay/retry.py": "def settle(p):\n    return p\n"})
    with Tenure.open(root, discover=False) as t:
        t.index()
        answer = t.ask("What breaks if I change settle?")
    assert any("no traces ingested" in d for d in answer["degraded"])


def test_an_answer_about_several_symbols_names_which_one_each_dependant_depends_on(make_repo) -> None:
    root = make_repo({"pay/__init__.py": "", "pay/retry.py": (
        "class RetryPolicy:\n    pass\n\n\nclass RetryBudget:\n    pass\n\n\n"
        "class StrictRetryBudget(RetryBudget):\n    pass\n\n\ndef plan():\n    return RetryPolicy()\n")})
    with Tenure.open(root, discover=False) as t:
        t.index()
        answer = t.ask("What breaks if I change RetryPolicy and RetryBudget?")
    assert {f["symbol"] for f in answer["focus"]} >= {"pay.retry.RetryPolicy", "pay.retry.RetryBudget"}
    texts = [i["text"] for i in items(answer, "structural")]
    assert "pay.retry.StrictRetryBudget inherits from RetryBudget" in texts  # not "from it": the first's
    assert "pay.retry.plan instantiates RetryPolicy" in texts


def test_an_empty_or_huge_question_is_refused_with_how_to_ask(payments: Path) -> None:
    with Tenure.open(payments) as t:
        for bad in ("  ", "x" * 9000):
            with pytest.raises(AskError):
                t.ask(bad)
        with pytest.raises(AskError):
            t.ask(QUESTION, budget=50)


def test_the_cli_answers_in_text_and_json_and_reads_the_question_from_stdin(payments: Path) -> None:
    runner = CliRunner()
    text = runner.invoke(app, ["ask", QUESTION, "--repo", str(payments)])
    assert text.exit_code == 0, text.output
    assert "## What breaks" in text.output
    as_json = runner.invoke(app, ["ask", "-", "--json", "--budget", "800", "--repo", str(payments)], input=QUESTION)
    assert as_json.exit_code == 0, as_json.output
    answer = json.loads(as_json.output)
    assert answer["budget"]["tokens"] == 800 and answer["focus"][0]["symbol"] == RETRY


def test_a_folder_outside_git_says_once_that_it_has_no_history(tmp_path: Path) -> None:
    root = tmp_path / "unpacked-sdist"
    (root / "pay").mkdir(parents=True)
    (root / "pay" / "retry.py").write_text("def settle(p):\n    return p\n")
    with Tenure.open(root, discover=False) as t:
        t.index()
        answer = t.ask("Has anyone changed how we settle before?")
    [history] = [d for d in answer["degraded"] if d.startswith("no git history")]
    assert "only work sessions and recorded outcomes are known" in history
