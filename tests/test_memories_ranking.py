"""Recall ranks exactly as SPEC §3, and every result explains each factor of its score."""

from __future__ import annotations

import math

import pytest

from tenure.memories import ranking
from tenure.memories.api import Memories
from tenure.memories.ranking import Signals
from tests.memory_support import START, Clock

pytestmark = pytest.mark.usefixtures("shared_stores")  # each test on SQLite and on PostgreSQL


def signals(**overrides) -> Signals:
    base = dict(kind="note", last_true=START, drifted_at=None, drifted=False, citations_declared=0,
                citations_inferred=0, sessions_served=0, impressions=0)
    return Signals(**{**base, **overrides})


def test_relevance_is_055_semantic_plus_045_term_overlap() -> None:
    assert ranking.relevance(0.8, 0.5) == pytest.approx(0.55 * 0.8 + 0.45 * 0.5)


def test_relevance_without_a_vector_is_term_overlap_alone() -> None:
    assert ranking.relevance(None, 0.5) == 0.5


def test_kind_weights_are_pitfall_3_convention_2_note_1_5_session_outcome_1() -> None:
    assert ranking.KIND_WEIGHTS == {"pitfall": 3.0, "convention": 2.0, "note": 1.5, "session_outcome": 1.0}


def test_freshness_halves_every_45_days_from_last_confirmation() -> None:
    clock = Clock()
    clock.advance(days=45)
    assert ranking.freshness(START, clock()) == pytest.approx(0.5)
    clock.advance(days=45)
    assert ranking.freshness(START, clock()) == pytest.approx(0.25)


def test_citation_boost_is_log_scaled() -> None:
    assert ranking.citation_factor(0) == 1.0
    assert ranking.citation_factor(1) == pytest.approx(1.2)
    assert ranking.citation_factor(3) == pytest.approx(1.4)
    assert ranking.citation_factor(7) - ranking.citation_factor(3) == pytest.approx(0.2)


def test_citation_boost_is_capped_at_1_8() -> None:
    assert ranking.citation_factor(15) == pytest.approx(1.8)
    assert ranking.citation_factor(10_000) == 1.8


def test_served_to_five_sessions_and_never_cited_gets_075() -> None:
    assert ranking.explain(None, 1.0, signals(sessions_served=4), START)["ignored"]["factor"] == 1.0
    assert ranking.explain(None, 1.0, signals(sessions_served=5), START)["ignored"]["factor"] == 0.75
    assert ranking.explain(None, 1.0, signals(sessions_served=5, citations_inferred=1), START)["ignored"][
        "factor"] == 1.0


def test_a_drifted_memory_gets_06() -> None:
    drifted = ranking.explain(None, 1.0, signals(drifted_at=START, drifted=True), START)
    assert drifted["drift"] == {"drifted_at": START.isoformat(), "drifted": True, "factor": 0.6}
    assert ranking.explain(None, 1.0, signals(drifted_at=START), START)["drift"]["factor"] == 1.0


def test_score_is_the_product_of_every_factor() -> None:
    clock = Clock()
    clock.advance(days=90)
    s = signals(kind="pitfall", drifted_at=START, drifted=True, citations_declared=1, sessions_served=1)
    e = ranking.explain(0.9, 0.5, s, clock())
    expected = (0.55 * 0.9 + 0.45 * 0.5) * 3.0 * 0.25 * 1.2 * 1.0 * 0.6
    assert e["score"] == pytest.approx(expected, abs=1e-6)


def test_every_recall_result_explains_each_factor_in_json(semantic: Memories) -> None:
    semantic.remember("Throttling: the gateway allows 100 requests per second", kind="pitfall", elements=["ApiGateway"])
    explain = semantic.recall("rate limiting")["results"][0]["explain"]
    assert set(explain) == {"score", "relevance", "kind", "freshness", "citations", "ignored", "drift"}
    assert set(explain["relevance"]) == {"value", "semantic", "terms", "formula"}
    assert explain["kind"] == {"kind": "pitfall", "factor": 3.0}
    assert explain["freshness"]["half_life_days"] == 45.0


def test_rate_limiting_finds_the_note_about_throttling(semantic: Memories) -> None:
    semantic.remember("Requests above 100/s are throttled by the gateway", elements=["ApiGateway"])
    semantic.remember("Invoices are written as PDF", elements=["InvoiceWriter"])
    results = semantic.recall("rate limiting")["results"]
    assert results[0]["content"] == "Requests above 100/s are throttled by the gateway"
    assert results[0]["explain"]["relevance"]["terms"] == 0.0  # no shared word: found by meaning


def test_without_a_provider_recall_is_lexical_and_says_so(memories: Memories) -> None:
    memories.remember("Requests above 100/s are throttled by the gateway")
    result = memories.recall("throttled requests")
    assert result["mode"] == "lexical"
    assert "lexical only" in result["note"]
    assert result["results"][0]["explain"]["relevance"]["semantic"] is None


def test_a_pitfall_outranks_an_equally_relevant_note(memories: Memories) -> None:
    note = memories.remember("the basket total includes VAT", kind="note")["id"]
    pitfall = memories.remember("basket total includes VAT twice on refunds", kind="pitfall")["id"]
    assert [r["id"] for r in memories.recall("basket total VAT")["results"]] == [pitfall, note]


def test_an_old_memory_ranks_below_a_fresh_one_by_its_half_life(memories: Memories, clock: Clock) -> None:
    old = memories.remember("stock is booked after payment")["id"]
    clock.advance(days=45)
    fresh = memories.remember("stock is booked before the payment is captured")["id"]
    results = {r["id"]: r for r in memories.recall("stock booked payment")["results"]}
    assert results[old]["explain"]["freshness"]["factor"] == pytest.approx(0.5)
    assert results[fresh]["explain"]["freshness"]["factor"] == 1.0


def test_confirming_resets_the_freshness_clock(memories: Memories, clock: Clock) -> None:
    memory = memories.remember("stock is booked after payment")["id"]
    clock.advance(days=90)
    memories.confirm(memory)
    clock.advance(days=45)
    result = memories.recall("stock booked")["results"][0]
    assert result["explain"]["freshness"]["days"] == 45.0
    assert math.isclose(result["explain"]["freshness"]["factor"], 0.5)


def test_an_element_filter_keeps_memories_on_the_element_and_inside_it(memories: Memories) -> None:
    on_method = memories.remember("charge before booking", elements=["OrderProcessor.checkout"])["id"]
    on_module = memories.remember("orders are idempotent", elements=["module:shop.orders"])["id"]
    memories.remember("the gateway strips headers", elements=["ApiGateway"])
    found = memories.recall("", elements=["module:shop.orders"])["results"]
    assert sorted(r["id"] for r in found) == [on_method, on_module]


def test_recall_with_an_empty_element_list_is_not_filtered(memories: Memories) -> None:
    memories.remember("stock is booked after payment")
    assert len(memories.recall("stock", elements=[])["results"]) == 1
