"""Several processes remembering and recalling at once lose no write; a process killed in the
middle of a write leaves the database as it was before that write."""

from __future__ import annotations

import multiprocessing as mp
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tenure import Tenure
from tests.memory_support import ConceptProvider, memories_of

pytestmark = pytest.mark.usefixtures("shared_stores")  # each test on SQLite and on PostgreSQL

PROCESSES = 4
WRITES = 50


def writer(root: str, worker: int) -> None:
    """One process: WRITES distinct facts, a recall after each."""
    with Tenure.open(root, discover=False) as t:
        m = memories_of(t, provider=None)
        for n in range(WRITES):
            m.remember(f"fact {worker}-{n}: worker{worker} wrote entry{n}", elements=["OrderProcessor"])
            m.recall(f"worker{worker}", session=f"w{worker}")


def repeater(root: str, worker: int) -> None:
    """One process: the same fact, ten times."""
    with Tenure.open(root, discover=False) as t:
        m = memories_of(t, provider=None)
        for _ in range(10):
            m.remember("orders are idempotent", elements=["OrderProcessor"])


def run_processes(target, root: Path) -> None:
    ctx = mp.get_context("spawn")  # fresh interpreters, each with its own database connection
    procs = [ctx.Process(target=target, args=(str(root), w)) for w in range(PROCESSES)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=300)
    assert [p.exitcode for p in procs] == [0] * PROCESSES


def test_four_processes_writing_and_recalling_at_once_lose_no_write(shop: Tenure) -> None:
    memories_of(shop, provider=None).remember("warm up: key and schema exist")
    run_processes(writer, shop.root)
    contents = {r["content"] for r in memories_of(shop, provider=None).recall("", limit=500)["results"]}
    expected = {f"fact {w}-{n}: worker{w} wrote entry{n}" for w in range(PROCESSES) for n in range(WRITES)}
    assert expected <= contents and len(contents) == PROCESSES * WRITES + 1


def test_the_same_fact_written_by_four_processes_is_one_memory(shop: Tenure) -> None:
    memories_of(shop, provider=None).remember("warm up: key and schema exist")
    run_processes(repeater, shop.root)
    rows = shop.shared.query("SELECT id, confirmations FROM memories WHERE kind = 'note' AND id > 1")
    assert [r["confirmations"] for r in rows] == [PROCESSES * 10 - 1]


KILLED = textwrap.dedent("""
    import os, sys
    from tenure import Tenure
    from tenure.memories import links
    from tenure.memories.api import Memories
    t = Tenure.open(sys.argv[1], discover=False)
    m = Memories(t.shared, t.root, code=t.db, provider=None)
    def die(*args, **kwargs):
        os._exit(9)  # killed after the memory row, its elements and terms were written, before commit
    links.store = die
    m.remember("half written fact", title="Half", elements=["OrderProcessor"])
""")


def test_a_process_killed_mid_write_leaves_the_database_consistent(shop: Tenure) -> None:
    m = memories_of(shop, provider=None)
    kept = m.remember("a fact written before the crash")["id"]
    done = subprocess.run([sys.executable, "-c", KILLED, str(shop.root)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 9, done.stderr
    assert shop.db.query("PRAGMA integrity_check")[0]["integrity_check"] == "ok"
    assert [r["id"] for r in shop.shared.query("SELECT id FROM memories")] == [kept]
    for table in ("memory_elements", "memory_terms", "memory_events"):
        orphans = shop.shared.query(f"SELECT COUNT(*) AS n FROM {table}"
                                    " WHERE memory_id NOT IN (SELECT id FROM memories)")
        assert orphans[0]["n"] == 0, table
    assert m.remember("half written fact", title="Half")["deduplicated"] is False  # the title is free again


def test_a_running_process_sees_a_vector_filled_in_later_for_an_older_memory(shop: Tenure) -> None:
    """A server holds the vectors it read; another process backfills an older memory's vector."""
    old = memories_of(shop, provider=None).remember("requests are throttled per client")["id"]
    server = memories_of(shop, provider=ConceptProvider())
    server.remember("orders are booked after payment")  # newer, with its vector
    query = ConceptProvider().embed(["rate limiting"])[0]
    assert list(server.vectors.cosines(query, [old, old + 1])) == [old + 1]  # the old one has none yet
    with Tenure.open(shop.root, discover=False) as other:
        assert memories_of(other, provider=ConceptProvider()).backfill() == 1
    [hit] = [h for h in server.recall("rate limiting")["results"] if h["id"] == old]
    assert hit["explain"]["relevance"]["semantic"] > 0.3  # by meaning: "throttled" is rate limiting


def test_a_memory_embedded_again_replaces_its_vector_in_a_running_process(shop: Tenure) -> None:
    provider = ConceptProvider()
    server = memories_of(shop, provider=provider)
    first = server.remember("requests are throttled per client")["id"]
    server.remember("orders are booked after payment")
    invoices = provider.embed(["invoices are rendered at night"])[0]
    assert server.vectors.cosines(invoices, [first])[first] < 0.5  # (read: a server holds it)
    with Tenure.open(shop.root, discover=False) as other:
        again = memories_of(other, provider=provider)
        with other.shared.transaction():
            again.vectors.put(first, invoices, "project")
    assert server.vectors.cosines(invoices, [first])[first] > 0.99
    assert sorted(server.vectors.nearest(invoices, 3, None, set())) == [first, first + 1]  # each memory once
