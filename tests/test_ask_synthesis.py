"""With a model (an OpenAI-compatible server the test serves on loopback), the answer adds a short
synthesis whose every sentence cites items of this answer: a sentence citing nothing, or a number that
is no item of it, is dropped and listed with the reason."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tenure import Tenure
from tenure.ask.synthesis import checked
from tests.ask_support import QUESTION, build
from tests.knowledge_support import fake_model, model_settings


@pytest.fixture
def payments(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TENURE_ENRICH", "off")
    return build(tmp_path / "payments").root  # (indexed offline: the model comes after)


def careless_model(messages: list[dict]) -> str:
    """Cites the first item it was given, then says something uncited, then cites an item it never got."""
    numbers = [int(n) for n in re.findall(r"^\[(\d+)\]", messages[-1]["content"], re.MULTILINE)]
    return (f"The limit of three comes from the counterparty SLA [{numbers[0]}]. "
            "Nobody should ever change it. "
            f"An earlier attempt was reverted [{numbers[-1]}][{max(numbers) + 40}].")


def test_every_sentence_kept_cites_only_items_of_the_answer(payments: Path) -> None:
    with fake_model(careless_model) as model:
        (payments / "tenure.toml").write_text(model_settings(model.url))
        with Tenure.open(payments) as t:
            answer = t.ask(QUESTION)
    synthesis = answer["synthesis"]
    numbers = {i["n"] for s in answer["sections"] for i in s["items"]}
    assert synthesis["model"] == "openai:canned" and model.calls == 1
    assert [s["text"] for s in synthesis["sentences"]] == ["The limit of three comes from the counterparty SLA [1]."]
    assert all(s["cites"] and set(s["cites"]) <= numbers for s in synthesis["sentences"])
    assert sorted(d["reason"] for d in synthesis["dropped"]) == [
        f"cites [{max(numbers) + 40}], not an item of this answer", "cites no item"]
    assert "## In short (openai:canned; every sentence cites its items)" in answer["text"]
    assert "Nobody should ever change it" not in answer["text"]
    assert not any("no model configured" in d for d in answer["degraded"])


def test_offline_asks_no_model_and_an_unreachable_one_is_a_note(payments: Path) -> None:
    with fake_model(careless_model) as model:
        (payments / "tenure.toml").write_text(model_settings(model.url))
        with Tenure.open(payments) as t:
            assert t.ask(QUESTION, offline=True)["synthesis"] is None
        assert model.calls == 0
    (payments / "tenure.toml").write_text(model_settings("http://127.0.0.1:9/v1", timeout=0.5))
    with Tenure.open(payments) as t:
        answer = t.ask(QUESTION)
    assert answer["synthesis"] is None and any("could not be asked" in d for d in answer["degraded"])
    assert "## What breaks" in answer["text"]


@pytest.mark.parametrize(("text", "kept", "reasons"), [
    ("A [1]. B [2][3].", ["A [1].", "B [2][3]."], []),
    ("A [1] and [7]. No cite here.", [], ["cites [7], not an item of this answer", "cites no item"]),
    ("", [], []),
])
def test_citations_are_checked_sentence_by_sentence(text: str, kept: list[str], reasons: list[str]) -> None:
    result = checked(text, {1, 2, 3})
    assert [s["text"] for s in result["sentences"]] == kept
    assert [d["reason"] for d in result["dropped"]] == reasons
