"""Fixtures for the memories tests: a settable clock, a tiny deterministic embedding provider, and a
small indexed project whose code speaks of checkout without naming it."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from tenure import Tenure
from tenure.memories.api import Memories
from tenure.namespace.terms import stem, words
from tenure.structural.report import IndexReport

START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

SHOP = {
    "shop/__init__.py": "",
    "shop/orders.py": '''class OrderProcessor:
    """Runs the checkout: validates the basket, charges the card, books stock."""

    def checkout(self, basket):
        self.charge(basket)

    def charge(self, basket):
        return basket.total


class OrderRepository:
    def save(self, order):
        return order
''',
    "shop/gateway.py": '''class ApiGateway:
    def forward(self, request):
        return request.headers


def strip_headers(request):
    return request
''',
    "billing/invoice.py": '''class InvoiceWriter:
    def write(self, order):
        return str(order)
''',
}


class Clock:
    """Injectable time: starts at START, moves only when told."""

    def __init__(self, now: datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, days: float = 0, seconds: float = 0) -> None:
        self.now += timedelta(days=days, seconds=seconds)


# Words that mean the same thing to the fake model: enough to show recall by meaning.
CONCEPTS = {
    "throttl": "ratelimit", "rate": "ratelimit", "limit": "ratelimit",
    "checkout": "purchase", "purchas": "purchase", "buy": "purchase",
    "header": "header", "gateway": "gateway",
}


class ConceptProvider:
    """A deterministic stand-in for a sentence model: texts sharing concepts get close vectors.
    Every word maps to a concept (itself unless CONCEPTS says otherwise), hashed into 4096 dims."""

    name = "test:concepts"
    dim = 4096

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for w in words(text):
                concept = CONCEPTS.get(stem(w), stem(w))
                out[row, int(hashlib.sha1(concept.encode()).hexdigest(), 16) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)


class FixedProvider:
    """Returns the vector registered for a text: cosine-threshold tests set similarities exactly."""

    name = "test:fixed"

    def __init__(self) -> None:
        self.vectors: dict[str, np.ndarray] = {}

    def set(self, text: str, vector: list[float]) -> None:
        v = np.asarray(vector, dtype=np.float32)
        self.vectors[text] = v / np.linalg.norm(v)

    def embed(self, texts: list[str]) -> np.ndarray:
        unrelated = np.array([0, 0, 1], dtype=np.float32)  # orthogonal to every at_angle() vector
        return np.stack([self.vectors.get(t, unrelated) for t in texts])


def at_angle(cosine: float) -> list[float]:
    """A vector whose cosine with [1, 0, 0] is exactly `cosine`."""
    return [cosine, float(np.sqrt(1 - cosine**2)), 0.0]


def memories_of(t: Tenure, **options) -> Memories:
    """A project's memories as Tenure makes them (in its shared database, reading its checkout's code),
    with the test's options (clock, provider)."""
    return Memories(t.shared, t.root, code=t.db, **options)


@pytest.fixture
def shop(make_repo) -> Iterator[Tenure]:
    """The SHOP project, indexed."""
    t = Tenure.open(make_repo(SHOP, name="shop"), discover=False)
    t.index()
    yield t
    t.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def memories(shop: Tenure, clock: Clock) -> Memories:
    """Memories of the SHOP project on the test clock, without an embedding provider (lexical recall).
    They are the project's own: `shop.index()` reports drift to them."""
    shop.memories = memories_of(shop, clock=clock, provider=None)
    return shop.memories


@pytest.fixture
def semantic(shop: Tenure, clock: Clock) -> Memories:
    """As `memories`, with the concept provider (semantic + lexical recall), the code's elements
    embedded as the background backfill after `tenure index` embeds them."""
    shop.memories = memories_of(shop, clock=clock, provider=ConceptProvider())
    shop.memories.prepare_elements()
    return shop.memories


@pytest.fixture
def edit(shop: Tenure) -> Callable[[dict[str, str]], IndexReport]:
    """Rewrite files of the SHOP project and re-index it."""

    def run(files: dict[str, str]) -> IndexReport:
        for rel, text in files.items():
            (shop.root / rel).write_text(text)
        return shop.index()

    return run
