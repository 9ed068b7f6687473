"""`tenure repair` on a real database with a damaged page: the copy aside first, every readable
memory kept, the graph rebuilt; and a damaged database's error offers the repair, never deletion."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from tenure import Tenure

FACTS = [  # distinct facts (no two deduplicated): enough rows for more than one page

    "the ledger rounds half-even because the bank's settlement file does",
    "retries of a settlement back off exponentially and stop after five attempts",
    "the gateway strips headers longer than 8KB before they reach the service",
    "currency codes are stored as ISO 4217 strings, never as numbers",
    "refunds are booked as negative payments, not as a separate table",
    "the nightly export to the warehouse runs at 02:00 UTC and locks the payments table",
    "card numbers never reach our servers: the tokenizer replaces them in the browser",
    "tests that touch the clock use the frozen_time fixture, never time.sleep",
    "the fraud score threshold was raised to 0.8 after the March incident",
    "merchant ids are UUIDv7 so that they sort by creation time",
    "webhooks from the acquirer arrive at least once: handlers must be idempotent",
    "the settlement batch is capped at ten thousand rows per file",
    "logging a full request body is forbidden because it may hold personal data",
    "database migrations must be backward compatible for one release",
    "the reconciliation job compares totals per currency, not per transaction",
    "timeouts to the acquirer are thirty seconds; the client retries once",
    "the admin dashboard reads from the replica and may lag by a minute",
    "chargebacks freeze the merchant's payouts until a person reviews them",
    "feature flags are read once per request, never cached across requests",
]
FILES = {
    "shop/__init__.py": "",
    "shop/orders.py": "class Order:\n    def total(self):\n        return 1\n",
    "shop/checkout.py": "from shop.orders import Order\n\n\ndef checkout():\n    return Order().total()\n",
}


def tenure(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tenure.cli", *args], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})


def leaf_pages(database: Path, table: str) -> list[int]:
    """The leaf pages of a table, read from the file as SQLite lays it out: its root, or the children
    of its root (an interior table page: type 5, cell count at 3, right-most child at 8, cell pointers
    from 12)."""
    with sqlite3.connect(database) as db:
        root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
    data = database.read_bytes()
    page = data[(root - 1) * page_size: root * page_size]
    if page[0] == 13:  # a leaf: the table fits on one page
        return [root]
    cells = int.from_bytes(page[3:5], "big")
    pointers = [int.from_bytes(page[12 + 2 * i: 14 + 2 * i], "big") for i in range(cells)]
    return [int.from_bytes(page[p: p + 4], "big") for p in pointers] + [int.from_bytes(page[8:12], "big")]


def damage(database: Path, page: int) -> None:
    with sqlite3.connect(database) as db:
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
    with database.open("r+b") as f:
        f.seek((page - 1) * page_size)
        f.write(b"\xde\xad\xbe\xef" * (page_size // 4))


def test_repair_keeps_every_readable_memory_and_rebuilds_the_graph(make_indexed_repo) -> None:
    root = make_indexed_repo(FILES)
    with Tenure.open(root) as t:
        ids = [t.memories.remember(fact, title=f"fact {i}")["id"] for i, fact in enumerate(FACTS)]
        t.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every page in the file, none left in the log
    database = root / ".tenure" / "tenure.db"
    first_leaf, *others = leaf_pages(database, "memories")
    assert others, "the memories fit on one page: write more of them"
    damage(database, first_leaf)
    damage(database, leaf_pages(database, "symbols")[0])
    damaged = database.read_bytes()

    refused = tenure("what-breaks", "Order.total", "--repo", str(root))
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "Do not delete it" in refused.stderr and "`tenure repair`" in refused.stderr

    repaired = tenure("repair", "--repo", str(root), "--json")
    assert repaired.returncode == 0, repaired.stderr
    result = json.loads(repaired.stdout)
    assert (Path(result["backup"]) / "tenure.db").read_bytes() == damaged  # the copy first, as it was
    kept = {k["table"]: k for k in result["kept"]}
    [unreadable] = kept["memories"]["unreadable"]
    lost = [i for i in ids if unreadable["after"] is None or i > unreadable["after"]]
    lost = [i for i in lost if unreadable["through"] is None or i <= unreadable["through"]]
    assert 0 < len(lost) < len(ids) and kept["memories"]["rows"] == len(ids) - len(lost)
    assert kept["memory_elements"]["dropped"] == len(lost)  # what belonged to a lost memory goes with it
    assert not result["key_record_lost"] and "symbols" in result["rebuilt"]

    with Tenure.open(root) as t:
        recalled = sorted(m["id"] for m in t.memories.recall("", limit=100)["results"])
        assert recalled == sorted(set(ids) - set(lost))
        assert [d["symbol"] for d in t.what_breaks("Order.total")["dependants"]] == ["shop.checkout.checkout"]
