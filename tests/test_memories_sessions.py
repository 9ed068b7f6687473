"""Work sessions: start with a briefing and leases, end with exactly one outcome memory."""

from __future__ import annotations

import pytest

from tenure import Tenure
from tenure.memories import MemoriesError
from tenure.memories.api import Memories

pytestmark = pytest.mark.usefixtures("shared_stores")  # each test on SQLite and on PostgreSQL


def test_starting_a_session_returns_its_id_and_a_briefing(memories: Memories) -> None:
    memories.remember("charge before booking stock", kind="pitfall", elements=["OrderProcessor"])
    started = memories.start_session("claude-code/sarah", "change the checkout", elements=["OrderProcessor"])
    assert started["session"].startswith("s-")
    assert started["leases"] == ["shop.orders.OrderProcessor"]
    assert "[PITFALL]" in started["briefing"] and "charge before booking stock" in started["briefing"]


def test_the_briefing_at_start_counts_as_served_to_the_session(memories: Memories) -> None:
    memory = memories.remember("charge before booking stock", kind="pitfall", elements=["OrderProcessor"])["id"]
    memories.start_session("agent", "change the checkout")
    assert memories.history(memory)["versions"][0]["usage"]["sessions_served"] == 1


def test_a_lease_held_by_another_open_session_is_reported(memories: Memories) -> None:
    first = memories.start_session("agent-a", "checkout", elements=["OrderProcessor"])["session"]
    second = memories.start_session("agent-b", "checkout too", elements=["OrderProcessor"])
    assert second["conflicts"] == [{"element": "shop.orders.OrderProcessor", "session": first, "agent": "agent-a"}]
    assert f"OrderProcessor is also leased by session {first} (agent-a)" in second["briefing"]


def test_elements_of_one_short_name_are_told_apart_where_shown_together(shop: Tenure, memories: Memories) -> None:
    ledger = "class Ledger:\n    def save(self, entry):\n        return entry\n"
    (shop.root / "billing" / "ledger.py").write_text(ledger)
    shop.index()
    both = ["shop.orders.OrderRepository.save", "ledger.Ledger.save"]
    started = memories.start_session("agent", "saving", elements=both)
    assert "Leased: OrderRepository.save, Ledger.save." in started["briefing"]
    memories.end_session(started["session"], "both saves take an entry")
    text = memories.brief("saving")["text"]
    assert "**Ledger.save, OrderRepository.save** [SESSION OUTCOME: SUCCESS]" in text, text


def test_a_lease_of_an_ended_session_is_no_conflict(memories: Memories) -> None:
    first = memories.start_session("agent-a", "checkout", elements=["OrderProcessor"])["session"]
    memories.end_session(first, "done")
    assert memories.start_session("agent-b", "checkout", elements=["OrderProcessor"])["conflicts"] == []


def test_ending_writes_one_session_outcome_attached_to_every_leased_element(memories: Memories) -> None:
    session = memories.start_session("agent", "checkout", elements=["OrderProcessor", "ApiGateway"])["session"]
    memories.lease(session, ["InvoiceWriter"])
    ended = memories.end_session(session, "moved VAT into charge; CI green", outcome="success")
    outcome = memories.get(ended["outcomeMemory"])
    assert outcome["kind"] == "session_outcome" and outcome["outcome"] == "success"
    assert outcome["elements"] == ["invoice.InvoiceWriter", "shop.gateway.ApiGateway", "shop.orders.OrderProcessor"]
    all_outcomes = memories.recall("", elements=["project"])["results"]
    assert [m["id"] for m in all_outcomes if m["kind"] == "session_outcome"] == [ended["outcomeMemory"]]


def test_a_session_that_leased_nothing_files_its_outcome_under_the_modules_it_edited(memories: Memories) -> None:
    session = memories.start_session("agent", "checkout")["session"]
    ended = memories.end_session(session, "done", edited=["shop/orders.py"])
    assert ended["elements"] == ["module:shop.orders"]


def test_a_session_that_leased_and_edited_nothing_files_its_outcome_under_the_project(memories: Memories) -> None:
    session = memories.start_session("agent", "look around")["session"]
    assert memories.end_session(session, "read the code")["elements"] == ["project"]


def test_the_outcome_shows_in_later_briefings_of_the_element(memories: Memories) -> None:
    session = memories.start_session("agent", "checkout", elements=["OrderProcessor"])["session"]
    memories.end_session(session, "changing checkout without updating the repository broke 3 tests",
                         outcome="failure")
    assert "[SESSION OUTCOME: FAILURE]" in memories.brief("change the checkout")["text"]


def test_a_session_ends_once(memories: Memories) -> None:
    session = memories.start_session("agent", "checkout")["session"]
    memories.end_session(session, "done")
    with pytest.raises(MemoriesError, match=f"session {session} already ended"):
        memories.end_session(session, "again")


def test_an_unknown_outcome_is_refused(memories: Memories) -> None:
    session = memories.start_session("agent", "checkout")["session"]
    with pytest.raises(MemoriesError, match="not one of success, failure, partial, abandoned"):
        memories.end_session(session, "done", outcome="great")


def test_an_unknown_session_says_how_to_start_one(memories: Memories) -> None:
    with pytest.raises(MemoriesError, match="tenure session start"):
        memories.end_session("s-nope", "done")


def test_a_session_may_start_before_its_task_is_known(memories: Memories) -> None:
    memories.remember("charge before booking stock", kind="pitfall", elements=["OrderProcessor"])
    started = memories.start_session("claude-code")
    assert "charge before booking stock" in started["briefing"]  # the general briefing
    assert memories.session(started["session"])["task"] is None
    ended = memories.end_session(started["session"], "looked around")
    assert memories.get(ended["outcomeMemory"])["title"] == f"Session {started['session']}"


def test_reading_a_session_changes_nothing(memories: Memories) -> None:
    session = memories.start_session("agent", "checkout", elements=["OrderProcessor"])["session"]
    state = memories.session(session)
    assert (state["open"], state["task"], state["leases"]) == (True, "checkout", ["shop.orders.OrderProcessor"])
    memories.end_session(session, "done")
    assert memories.session(session)["open"] is False and memories.session(session)["outcomeMemory"]


def test_an_empty_session_closed_without_keep_empty_leaves_no_outcome_memory(memories: Memories) -> None:
    session = memories.start_session("claude-code")["session"]
    ended = memories.end_session(session, "closed by a hook", outcome="abandoned", keep_empty=False)
    assert ended["outcomeMemory"] is None
    assert memories.session(session)["open"] is False
    assert not [m for m in memories.recall("closed by a hook")["results"] if m["kind"] == "session_outcome"]


def test_a_session_that_did_something_keeps_its_outcome_even_without_keep_empty(memories: Memories) -> None:
    session = memories.start_session("agent", "checkout", elements=["OrderProcessor"])["session"]
    ended = memories.end_session(session, "closed by a hook", outcome="abandoned", keep_empty=False)
    assert ended["outcomeMemory"] is not None
