"""Links, Obsidian style: [[Title]] to memories, elements and decisions; pending links attach
later; recall brings the linked neighbours of its top hits, marked `via`."""

from __future__ import annotations

import pytest

from tenure.memories.api import Memories

pytestmark = pytest.mark.usefixtures("shared_stores")  # each test on SQLite and on PostgreSQL


def test_a_link_to_a_titled_memory_resolves_to_it(memories: Memories) -> None:
    target = memories.remember("headers over 8KB are dropped", title="Header limit")["id"]
    written = memories.remember("put payloads in the body, see [[Header limit]]")
    assert written["links"] == [{"target": "Header limit", "kind": "memory", "memory": target, "element": None}]


def test_a_link_to_an_element_resolves_through_the_index(memories: Memories) -> None:
    written = memories.remember("payloads go in the body because of [[ApiGateway]]")
    assert written["links"][0] == {"target": "ApiGateway", "kind": "element", "memory": None,
                                   "element": "shop.gateway.ApiGateway"}


def test_a_link_to_a_decision_names_the_document(memories: Memories) -> None:
    assert memories.remember("see [[ADR-17]]")["links"][0]["element"] == "doc:ADR-17"


def test_a_link_to_a_title_not_written_yet_stays_pending(memories: Memories) -> None:
    assert memories.remember("see [[Header limit]]")["links"][0]["kind"] == "pending"


def test_a_pending_link_attaches_when_its_memory_is_written(memories: Memories) -> None:
    source = memories.remember("see [[Header limit]]")["id"]
    target = memories.remember("headers over 8KB are dropped", title="header LIMIT")
    assert target["pendingLinksAttached"] == 1
    assert memories.recall("see")["results"][0]["links"] == [{"kind": "memory", "memory": target["id"],
                                                                "element": None}]
    assert memories.recall("see")["results"][0]["id"] == source


def test_recall_brings_a_top_hits_linked_memory_marked_via(memories: Memories) -> None:
    memories.remember("the 8KB limit exists because of the load balancer", title="Why 8KB")
    hit = memories.remember("the gateway strips custom headers, see [[Why 8KB]]", kind="pitfall")["id"]
    results = memories.recall("gateway strips custom headers")["results"]
    assert results[0]["id"] == hit and results[0]["via"] is None
    assert results[1]["content"] == "the 8KB limit exists because of the load balancer"
    assert results[1]["via"] == {"from": hit, "link": "links to"}


def test_recall_brings_memories_about_a_linked_decision(memories: Memories) -> None:
    rationale = memories.remember("the CDN rejects big requests", elements=["ADR-17"])["id"]
    hit = memories.remember("the gateway strips custom headers, see [[ADR-17]]", kind="pitfall")["id"]
    results = memories.recall("gateway strips custom headers")["results"]
    assert results[1]["id"] == rationale
    assert results[1]["via"] == {"from": hit, "link": "links to [[ADR-17]]"}


def test_recall_brings_memories_that_link_to_a_top_hit(memories: Memories) -> None:
    hit = memories.remember("the gateway strips custom headers", title="Rule 7")["id"]
    memories.remember("payloads go in the body: [[Rule 7]]")
    results = memories.recall("gateway strips custom headers")["results"]
    assert results[1]["via"] == {"from": hit, "link": "linked from"}


def test_a_link_to_a_superseded_memory_brings_its_live_version(memories: Memories) -> None:
    memories.remember("limit is 8KB", title="Balancer limit")
    hit = memories.remember("the gateway strips custom headers, see [[Balancer limit]]")["id"]
    live = memories.supersede("Balancer limit", "16KB since the new balancer")["id"]
    results = memories.recall("gateway strips custom headers")["results"]
    assert [(r["id"], r["via"]) for r in results] == [(hit, None), (live, {"from": hit, "link": "links to"})]
