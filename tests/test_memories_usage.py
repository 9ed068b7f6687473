"""Learning from use: impressions per session, citations declared or inferred from edits, the
review queue for ignored memories; nothing is deleted by a heuristic."""

from __future__ import annotations

import pytest

from tenure.memories.api import Memories
from tests.memory_support import SHOP

pytestmark = pytest.mark.usefixtures("shared_stores")  # each test on SQLite and on PostgreSQL

CHECKOUT_CHANGED = SHOP["shop/orders.py"].replace("return basket.total", "return basket.total_with_vat")


def served_to(memories: Memories, sessions: int, query: str) -> None:
    for n in range(sessions):
        memories.recall(query, session=f"agent-session-{n}")


def test_every_recall_logs_an_impression_per_memory_per_session(memories: Memories) -> None:
    memory = memories.remember("stock is booked after payment")["id"]
    memories.recall("stock payment", session="a")
    memories.recall("stock payment", session="a")
    memories.recall("stock payment", session="b")
    usage = memories.history(memory)["versions"][0]["usage"]
    assert (usage["impressions"], usage["sessions_served"]) == (3, 2)


def test_a_recall_without_a_session_logs_nothing(memories: Memories) -> None:
    memory = memories.remember("stock is booked after payment")["id"]
    memories.recall("stock payment")
    assert memories.history(memory)["versions"][0]["usage"]["impressions"] == 0


def test_impressions_alone_never_raise_rank(memories: Memories) -> None:
    memories.remember("stock is booked after payment")
    served_to(memories, 3, "stock payment")
    assert memories.recall("stock payment")["results"][0]["explain"]["citations"]["factor"] == 1.0


def test_ending_a_session_records_its_used_memories_as_citations(memories: Memories) -> None:
    memory = memories.remember("stock is booked after payment")["id"]
    session = memories.start_session("claude-code/vincent", "fix stock booking")["session"]
    ended = memories.end_session(session, "booked stock after payment", used=[memory])
    assert ended["citations"] == {"declared": [memory], "inferred": []}
    explain = memories.recall("stock payment")["results"][0]["explain"]
    assert explain["citations"] == {"declared": 1, "inferred": 0, "factor": 1.2}


def test_a_session_that_edited_a_served_memorys_element_cites_it(memories: Memories, edit) -> None:
    memory = memories.remember("charge returns the basket total", elements=["OrderProcessor.charge"])["id"]
    session = memories.start_session("agent", "charge VAT")["session"]
    memories.recall("charge basket total", session=session)
    edit({"shop/orders.py": CHECKOUT_CHANGED})
    assert memories.end_session(session, "charged VAT")["citations"] == {"declared": [], "inferred": [memory]}


def test_a_served_memory_on_a_module_is_cited_when_the_session_edits_a_file_of_it(memories: Memories) -> None:
    memory = memories.remember("orders are idempotent", elements=["module:shop.orders"])["id"]
    session = memories.start_session("agent", "orders idempotent")["session"]
    memories.recall("orders idempotent", session=session)
    ended = memories.end_session(session, "done", edited=["shop/orders.py"])
    assert ended["citations"]["inferred"] == [memory]


def test_a_served_memory_on_untouched_code_is_not_cited(memories: Memories) -> None:
    memories.remember("invoices are PDF", elements=["InvoiceWriter"])
    session = memories.start_session("agent", "invoices")["session"]
    memories.recall("invoices", session=session)
    assert memories.end_session(session, "done", edited=["shop/orders.py"])["citations"]["inferred"] == []


def test_served_to_five_sessions_never_cited_is_demoted_and_queued_with_its_impressions(memories: Memories) -> None:
    memory = memories.remember("stock is booked after payment")["id"]
    served_to(memories, 5, "stock payment")
    result = memories.recall("stock payment")["results"][0]
    assert result["explain"]["ignored"] == {"sessions_served": 5, "impressions": 5, "ignored": True, "factor": 0.75}
    item = memories.review()["items"][0]
    assert (item["id"], item["impressions"]) == (memory, 5)
    assert item["reasons"] == ["ignored: served to 5 sessions (5 impressions), never cited"]


def test_one_citation_takes_a_memory_out_of_the_ignored_queue(memories: Memories) -> None:
    memory = memories.remember("stock is booked after payment")["id"]
    served_to(memories, 5, "stock payment")
    session = memories.start_session("agent", "stock")["session"]
    memories.end_session(session, "done", used=[memory])
    assert memories.review()["items"] == []


def test_nothing_is_deleted_by_a_heuristic(memories: Memories, edit) -> None:
    memory = memories.remember("charge returns the basket total", elements=["OrderProcessor"])["id"]
    served_to(memories, 20, "charge basket total")
    edit({"shop/orders.py": CHECKOUT_CHANGED})
    result = memories.recall("charge basket total")["results"][0]
    assert result["id"] == memory
    assert (result["explain"]["ignored"]["factor"], result["explain"]["drift"]["factor"]) == (0.75, 0.6)
