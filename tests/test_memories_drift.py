"""Drift: when the code behind an element changes, memories about it are stamped, demoted,
queued for review and flagged in briefings, until someone confirms them."""

from __future__ import annotations

from datetime import datetime

import pytest

from tenure import Tenure
from tenure.memories.api import Memories
from tests.memory_support import SHOP, Clock

pytestmark = pytest.mark.usefixtures("shared_stores")  # each test on SQLite and on PostgreSQL

CHECKOUT_CHANGED = SHOP["shop/orders.py"].replace("self.charge(basket)",
                                                  "self.charge(basket)\n        self.book(basket)")


def test_changing_a_symbols_code_stamps_the_memories_attached_to_it(memories: Memories, edit, clock: Clock) -> None:
    memory = memories.remember("charge before booking", kind="pitfall", elements=["OrderProcessor.checkout"])["id"]
    clock.advance(days=3)
    edit({"shop/orders.py": CHECKOUT_CHANGED})
    assert memories.get(memory)["verify"] is True
    assert datetime.fromisoformat(memories.get(memory)["driftedAt"]) == clock()


def test_a_memory_on_untouched_code_is_not_stamped(memories: Memories, edit) -> None:
    memory = memories.remember("save returns the order", elements=["OrderRepository.save"])["id"]
    edit({"shop/orders.py": CHECKOUT_CHANGED})
    assert memories.get(memory)["verify"] is False


def test_a_class_drifts_when_one_of_its_methods_changes(memories: Memories, edit) -> None:
    memory = memories.remember("the processor is not thread safe", elements=["OrderProcessor"])["id"]
    edit({"shop/orders.py": CHECKOUT_CHANGED})
    assert memories.get(memory)["verify"] is True


def test_a_module_drifts_when_any_of_its_symbols_does(memories: Memories, edit) -> None:
    memory = memories.remember("orders are idempotent", elements=["module:shop.orders"])["id"]
    edit({"shop/orders.py": CHECKOUT_CHANGED})
    assert memories.get(memory)["verify"] is True


def test_a_directory_drifts_when_code_under_it_does(memories: Memories, edit) -> None:
    memory = memories.remember("the shop package owns orders", elements=["path:shop/"])["id"]
    billing = memories.remember("billing is run nightly", elements=["path:billing/"])["id"]
    edit({"shop/orders.py": CHECKOUT_CHANGED})
    assert (memories.get(memory)["verify"], memories.get(billing)["verify"]) == (True, False)


def test_a_removed_symbol_drifts(memories: Memories, edit) -> None:
    memory = memories.remember("the repository never deletes", elements=["OrderRepository"])["id"]
    edit({"shop/orders.py": SHOP["shop/orders.py"].split("class OrderRepository")[0]})
    assert memories.get(memory)["verify"] is True


def test_tenure_index_reports_drift_to_the_projects_memories(shop: Tenure, edit) -> None:
    memory = shop.memories.remember("charge before booking", elements=["OrderProcessor"])["id"]
    edit({"shop/orders.py": CHECKOUT_CHANGED})
    assert shop.memories.get(memory)["verify"] is True


def test_a_drifted_memory_is_demoted_by_06_not_hidden(memories: Memories, edit) -> None:
    memories.remember("charge before booking stock", kind="pitfall", elements=["OrderProcessor"])
    edit({"shop/orders.py": CHECKOUT_CHANGED})
    result = memories.recall("charge booking stock")["results"][0]
    assert result["explain"]["drift"]["factor"] == 0.6
    assert result["score"] == pytest.approx(3.0 * 0.6)


def test_a_drifted_memory_enters_the_review_queue(memories: Memories, edit) -> None:
    memory = memories.remember("charge before booking", elements=["OrderProcessor"])["id"]
    edit({"shop/orders.py": CHECKOUT_CHANGED})
    item = memories.review()["items"][0]
    assert item["id"] == memory
    assert item["reasons"][0].startswith("drifted: an element it is attached to changed on 2026-01-01")


def test_the_briefing_warns_in_words_with_the_age_in_days(memories: Memories, edit, clock: Clock) -> None:
    memories.remember("the gateway strips custom headers longer than 8KB.", kind="pitfall", elements=["ApiGateway"],
                      author="claude-code/sarah")
    clock.advance(days=10)
    edit({"shop/gateway.py": SHOP["shop/gateway.py"].replace("request.headers", "request.headers[:8192]")})
    clock.advance(days=86)
    assert ("- **ApiGateway** [PITFALL] [VERIFY — the element drifted since this was written] "
            "(claude-code/sarah, 96 days ago): the gateway strips custom headers longer than 8KB."
            ) in memories.brief()["text"]


def test_confirming_clears_the_drift_flag(memories: Memories, edit) -> None:
    memory = memories.remember("charge before booking", elements=["OrderProcessor"])["id"]
    edit({"shop/orders.py": CHECKOUT_CHANGED})
    assert memories.confirm(memory)["clearedDrift"] is True
    assert memories.get(memory)["verify"] is False
    assert memories.review()["items"] == []


def test_a_memory_confirmed_after_the_stamp_is_not_demoted(memories: Memories, edit, clock: Clock) -> None:
    memory = memories.remember("charge before booking", elements=["OrderProcessor"])["id"]
    edit({"shop/orders.py": CHECKOUT_CHANGED})
    clock.advance(seconds=1)
    memories.confirm(memory)
    assert memories.recall("charge booking")["results"][0]["explain"]["drift"]["factor"] == 1.0


def test_drift_missed_by_an_interrupted_index_is_found_at_the_next_one(
        shop: Tenure, memories: Memories, edit, monkeypatch: pytest.MonkeyPatch) -> None:
    memory = memories.remember("charge before booking", elements=["OrderProcessor"])["id"]
    with monkeypatch.context() as patched:
        patched.setattr(memories, "on_drift", lambda fqns: [])  # the process died before stamping
        edit({"shop/orders.py": CHECKOUT_CHANGED})
    assert memories.get(memory)["verify"] is False
    assert shop.index().drifted == []  # nothing changed since: the report alone would miss it
    assert memories.get(memory)["verify"] is True


def test_a_confirmed_memory_is_not_stamped_again_by_later_indexes(shop: Tenure, memories: Memories, edit) -> None:
    memory = memories.remember("charge before booking", elements=["OrderProcessor"])["id"]
    edit({"shop/orders.py": CHECKOUT_CHANGED})
    memories.confirm(memory)
    shop.index()
    assert memories.get(memory)["verify"] is False
