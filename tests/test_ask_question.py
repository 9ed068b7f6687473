"""A change question split into the stores it asks, what its change verb names, and the value a why asks
about; a question that names no store asks them all."""

from __future__ import annotations

import pytest

from tenure.ask.question import split


@pytest.mark.parametrize(("text", "changed", "named", "value"), [
    ("I am changing the settlement retry policy. What breaks, why is it 3, and has anyone tried this before?",
     "the settlement retry policy", ("structural", "knowledge", "episodic"), "3"),
    ("What breaks if I change Flask.wsgi_app?", "Flask.wsgi_app", ("structural",), ""),
    ("Why do we follow the counterparty SLA?", "", ("knowledge",), ""),
    ("What are the rules for renaming `url_for`?", "`url_for`", ("procedural",), ""),
    ("Make the session cookie configurable.", "the session cookie configurable", (), ""),
])
def test_a_question_is_split_into_what_it_asks(text: str, changed: str, named: tuple, value: str) -> None:
    asked = split(text)
    assert (asked.changed, asked.named, asked.value) == (changed, named, value)
    assert set(asked.asks) >= {"procedural", "memories"}  # rules and pitfalls: always
    if not named:
        assert asked.asks == ("structural", "knowledge", "episodic", "procedural", "memories")


def test_the_value_asked_about_reads_as_a_number_word_too() -> None:
    assert split("Why is it 3?").value_words() == ("3", "three")
    assert split("Why is it 500ms?").value_words() == ("500ms",)
