"""Writing memories: kinds, elements in the structural namespace, dedupe, supersede, history."""

from __future__ import annotations

import pytest

from tenure import Tenure
from tenure.embeddings import get_provider
from tenure.memories import MemoriesError
from tenure.memories.api import LIMITS, Memories
from tenure.memories.dedupe import specifics
from tests.memory_support import Clock, FixedProvider, at_angle, memories_of

pytestmark = pytest.mark.usefixtures("shared_stores")  # each test on SQLite and on PostgreSQL


def test_a_memory_is_attached_to_a_symbol_named_by_a_unique_suffix(memories: Memories) -> None:
    written = memories.remember("charge before booking stock", kind="pitfall", elements=["OrderProcessor.checkout"])
    assert memories.get(written["id"])["elements"] == ["shop.orders.OrderProcessor.checkout"]


def test_an_ambiguous_name_is_refused_with_the_candidates(shop: Tenure, memories: Memories) -> None:
    (shop.root / "shop" / "legacy.py").write_text("class OrderProcessor:\n    pass\n")
    shop.index()
    with pytest.raises(MemoriesError, match="names 2 symbols: shop.legacy.OrderProcessor, shop.orders.OrderProcessor"):
        memories.remember("x", elements=["OrderProcessor"])


def test_an_unknown_symbol_is_refused_with_what_to_do(memories: Memories) -> None:
    with pytest.raises(MemoriesError, match="no symbol matches 'Nope'.*tenure index"):
        memories.remember("x", elements=["Nope"])


def test_elements_can_be_modules_directories_services_documents_or_the_project(memories: Memories) -> None:
    written = memories.remember("x", elements=["module:shop.orders", "path:billing", "service:shop", "ADR-17",
                                               "project"])
    assert memories.get(written["id"])["elements"] == ["doc:ADR-17", "module:shop.orders", "path:billing/", "project",
                                                       "service:shop"]


def test_a_module_named_as_a_symbol_is_the_module_element(memories: Memories) -> None:
    written = memories.remember("x", elements=["shop.orders"])
    assert memories.get(written["id"])["elements"] == ["module:shop.orders"]


def test_a_memory_without_elements_is_about_the_project(memories: Memories) -> None:
    assert memories.get(memories.remember("we deploy on Tuesdays")["id"])["elements"] == ["project"]


def test_an_unknown_module_is_refused_with_suggestions(memories: Memories) -> None:
    with pytest.raises(MemoriesError, match="Did you mean: module:shop.orders"):
        memories.remember("x", elements=["module:orders"])


def test_session_outcome_cannot_be_written_directly(memories: Memories) -> None:
    with pytest.raises(MemoriesError, match="written when a work session ends"):
        memories.remember("done", kind="session_outcome")


def test_empty_content_is_refused(memories: Memories) -> None:
    with pytest.raises(MemoriesError, match="needs content"):
        memories.remember("   ")


def test_a_memory_over_its_size_limits_is_refused_with_what_to_write_instead(memories: Memories) -> None:
    """A fact is a few sentences: a 13 MB one took a minute and gigabytes, and then filled every briefing."""
    with pytest.raises(MemoriesError, match="content holds at most 16,000 characters; this one has 16,001"):
        memories.remember("x" * (LIMITS["content"] + 1))
    with pytest.raises(MemoriesError, match="title holds at most 200 characters"):
        memories.remember("the gateway strips long headers", title="t" * (LIMITS["title"] + 1))
    with pytest.raises(MemoriesError, match="author holds at most"):
        memories.remember("the gateway strips long headers", author="a" * (LIMITS["author"] + 1))
    with pytest.raises(MemoriesError, match="task holds at most"):
        memories.start_session("claude-code/sarah", task="t" * (LIMITS["task"] + 1))
    session = memories.start_session("claude-code/sarah", task="change the gateway")["session"]
    with pytest.raises(MemoriesError, match="content holds at most"):
        memories.end_session(session, "s" * (LIMITS["content"] + 1))
    assert memories.recall("")["results"] == []  # nothing was written
    assert memories.remember("y" * LIMITS["content"], title="t" * LIMITS["title"])["id"]  # the limits themselves


def test_writing_the_same_content_again_confirms_it_without_vectors(memories: Memories) -> None:
    first = memories.remember("Stock is booked after payment.", elements=["OrderProcessor"])
    again = memories.remember("stock is booked  after payment", elements=["OrderRepository"])
    assert again["deduplicated"] is True and again["id"] == first["id"]
    assert memories.get(first["id"])["confirmations"] == 1
    assert memories.get(first["id"])["elements"] == ["shop.orders.OrderProcessor", "shop.orders.OrderRepository"]


def test_above_cosine_094_a_write_confirms_the_live_memory(shop: Tenure, clock: Clock) -> None:
    provider = FixedProvider()
    provider.set("the gateway strips long headers", at_angle(1.0))
    provider.set("long headers are stripped by the gateway", at_angle(0.95))
    m = memories_of(shop, clock=clock, provider=provider)
    first = m.remember("the gateway strips long headers")
    again = m.remember("long headers are stripped by the gateway")
    assert again == {"id": first["id"], "deduplicated": True, "similarity": 0.95, "similarTo": [], "confirmations": 1,
                     "elementsAdded": []}


def test_between_082_and_094_a_write_is_stored_and_names_its_near_misses(shop: Tenure, clock: Clock) -> None:
    provider = FixedProvider()
    provider.set("Header limit\nthe gateway strips long headers", at_angle(1.0))  # vectors cover title + content
    provider.set("the gateway strips headers over 8KB", at_angle(0.9))
    m = memories_of(shop, clock=clock, provider=provider)
    first = m.remember("the gateway strips long headers", title="Header limit")
    second = m.remember("the gateway strips headers over 8KB")
    assert second["deduplicated"] is False and second["id"] != first["id"]
    assert second["similarTo"] == [{"id": first["id"], "title": "Header limit", "similarity": 0.9,
                                    "differs": {"written": ["8kb"], "existing": []}}]


@pytest.mark.parametrize("first, second, differs", [
    ("the ledger 1 rounds half-even", "the ledger 2 rounds half-even", (["2"], ["1"])),  # cosine 0.98
    ("the gateway strips headers over 8KB", "the gateway strips headers over 16KB", (["16kb"], ["8kb"])),  # 0.95
    ("flask 3.0.3 needs Werkzeug 3.0", "flask 3.0.2 needs Werkzeug 3.0", (["3.0.2"], ["3.0.3"])),  # 0.998
])
def test_facts_a_sentence_model_reads_alike_stay_apart_when_a_number_version_or_size_differs(
        shop: Tenure, clock: Clock, first: str, second: str, differs: tuple[list[str], list[str]]) -> None:
    m = memories_of(shop, clock=clock, provider=get_provider({"provider": "minilm"}))
    kept = m.remember(first)
    written = m.remember(second)
    assert written["deduplicated"] is False and written["id"] != kept["id"]
    [near] = written["similarTo"]
    assert near["id"] == kept["id"] and near["similarity"] > 0.94  # above the line: only its specifics differ
    assert near["differs"] == {"written": differs[0], "existing": differs[1]}
    assert [r["content"] for r in m.recall("", limit=5)["results"]] == [second, first]  # both live


def test_above_094_the_same_fact_is_the_closest_memory_naming_the_same_specifics(shop: Tenure, clock: Clock) -> None:
    provider = FixedProvider()
    provider.set("the ledger 1 rounds half-even", at_angle(1.0))
    provider.set("the ledger 2 rounds half-even", at_angle(0.99))
    provider.set("ledger 1 rounds every amount half-even", at_angle(0.98))
    m = memories_of(shop, clock=clock, provider=provider)
    first = m.remember("the ledger 1 rounds half-even")
    m.remember("the ledger 2 rounds half-even")
    again = m.remember("ledger 1 rounds every amount half-even")
    assert again["deduplicated"] is True and again["id"] == first["id"]


@pytest.mark.parametrize("text, named", [
    ("the ledger 1 rounds half-even", {"1"}),
    ("headers over 8KB are stripped; bodies over 1.5 MB too", {"8kb", "1.5"}),
    ("needs Python 3.11 and flask==3.0.3, see ADR-17 and #412", {"3.11", "3.0.3", "adr-17", "412"}),
    ("`charge` calls OrderProcessor.book and max_retries in src/app.py", {"charge", "orderprocessor.book",
                                                                          "max_retries", "src/app.py"}),
    ("NEVER round half-up, e.g. in the read-only ledger", set()),  # words, in capitals or hyphenated
])
def test_specifics_are_the_numbers_versions_sizes_and_identifiers_a_fact_names(text: str, named: set[str]) -> None:
    assert specifics(text) == named


def test_below_082_a_write_has_no_near_misses(shop: Tenure, clock: Clock) -> None:
    provider = FixedProvider()
    provider.set("the gateway strips long headers", at_angle(1.0))
    provider.set("orders ship on Mondays", at_angle(0.8))
    m = memories_of(shop, clock=clock, provider=provider)
    m.remember("the gateway strips long headers")
    assert m.remember("orders ship on Mondays")["similarTo"] == []


def test_without_vectors_near_misses_share_most_terms(memories: Memories) -> None:
    first = memories.remember("the gateway strips custom headers longer than 8KB")
    second = memories.remember("the gateway strips custom headers longer than 16KB")
    assert [s["id"] for s in second["similarTo"]] == [first["id"]]


def test_supersedes_retires_the_old_memory_from_recall(memories: Memories) -> None:
    memories.remember("refunds take 3 days", title="Refund time")
    new = memories.remember("refunds take 5 days since the new bank", supersedes="Refund time")["id"]
    assert [r["id"] for r in memories.recall("refunds days")["results"]] == [new]


def test_a_superseding_memory_keeps_the_title_kind_and_elements_unless_given(memories: Memories) -> None:
    memories.remember("refunds take 3 days", kind="pitfall", elements=["InvoiceWriter"], title="Refund time")
    new = memories.get(memories.supersede("Refund time", "refunds take 5 days")["id"])
    assert (new["title"], new["kind"], new["elements"]) == ("Refund time", "pitfall", ["invoice.InvoiceWriter"])


def test_history_keeps_every_version_oldest_first(memories: Memories) -> None:
    first = memories.remember("refunds take 3 days", title="Refund time")["id"]
    second = memories.supersede(first, "refunds take 5 days")["id"]
    history = memories.history("Refund time")
    assert [v["id"] for v in history["versions"]] == [first, second]
    assert history["live"] == second
    assert history["versions"][0]["content"] == "refunds take 3 days"
    assert [e["event"] for e in history["versions"][0]["events"]] == ["created", "superseded"]


def test_a_superseded_memory_cannot_be_superseded_again(memories: Memories) -> None:
    first = memories.remember("refunds take 3 days")["id"]
    second = memories.supersede(first, "refunds take 5 days")["id"]
    with pytest.raises(MemoriesError, match=f"superseded by #{second}; act on #{second}"):
        memories.supersede(first, "refunds take 7 days")


def test_a_title_belongs_to_one_live_memory(memories: Memories) -> None:
    first = memories.remember("refunds take 3 days", title="Refund time")["id"]
    with pytest.raises(MemoriesError, match=f"#{first} already has the title 'refund  TIME': pass supersedes={first}"):
        memories.remember("refunds are instant", title="refund  TIME")


def test_confirm_counts_confirmations(memories: Memories) -> None:
    memory = memories.remember("refunds take 3 days")["id"]
    memories.confirm(memory)
    assert memories.confirm(f"#{memory}")["confirmations"] == 2


def test_an_unknown_memory_is_refused_with_what_to_do(memories: Memories) -> None:
    with pytest.raises(MemoriesError, match="no memory '42': name it by id"):
        memories.confirm(42)
