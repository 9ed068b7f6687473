"""Memory vectors are stored turned by the scope key's rotation: not the model's vectors, yet ranked
exactly as the model's would be (on PostgreSQL by pgvector in the server, on SQLite in the process);
vectors stored encrypted before are turned by the first process with the key, and recall is unchanged."""

from __future__ import annotations

import numpy as np
import pytest

from tenure import Tenure
from tenure.memories.crypto import Cipher, KeyedRotation
from tests.memory_support import ConceptProvider, memories_of

pytestmark = pytest.mark.usefixtures("shared_stores")  # each test on SQLite and on PostgreSQL

TEXTS = ["Requests above 100 per second are throttled by the gateway",
         "The checkout charges the card before it books stock",
         "Long headers are stripped by the gateway",
         "Invoices are written at night as PDF"]


def stored(t: Tenure) -> dict[int, np.ndarray]:
    return {memory_id: embedding for memory_id, embedding in
            t.shared.rows("SELECT memory_id, embedding FROM memory_embeddings")}


def test_stored_vectors_are_not_the_models_yet_rank_exactly_as_the_models_do(shop: Tenure) -> None:
    provider = ConceptProvider()
    m = memories_of(shop, provider=provider)
    ids = [m.remember(text)["id"] for text in TEXTS]
    model = dict(zip(ids, provider.embed(TEXTS), strict=True))
    kept = stored(shop)
    assert sorted(kept) == sorted(ids)
    for memory_id in ids:
        assert isinstance(kept[memory_id], np.ndarray) and kept[memory_id].shape == model[memory_id].shape
        assert np.abs(kept[memory_id] - model[memory_id]).max() > 0.05  # not the model's vector
    for a in ids:  # every inner product kept: the database's ranking is the model's
        for b in ids:
            assert abs(float(kept[a] @ kept[b]) - float(model[a] @ model[b])) < 1e-5
    query = provider.embed(["rate limiting at the gateway"])[0]
    results = m.recall("rate limiting at the gateway", limit=len(TEXTS))["results"]
    assert {r["id"] for r in results} == set(ids)
    for r in results:
        assert r["explain"]["relevance"]["semantic"] == pytest.approx(float(model[r["id"]] @ query), abs=1e-5)
    assert results[0]["content"] == TEXTS[0]


def test_vectors_stored_encrypted_before_are_turned_once_and_recall_is_unchanged(shop: Tenure) -> None:
    provider = ConceptProvider()
    m = memories_of(shop, provider=provider)
    for text in TEXTS:
        m.remember(text)
    before = m.recall("gateway headers and rate limiting", limit=4)["results"]
    # the database as an earlier tenure left it: each vector the model's, encrypted, in memory_vectors
    cipher = m.cipher()
    with shop.shared.transaction():
        for r in shop.shared.query("SELECT memory_id, written FROM memory_embeddings"):
            plain = provider.embed([m.get(r["memory_id"])["content"]])[0]
            shop.shared.execute("INSERT INTO memory_vectors (memory_id, model, vector, scope, written)"
                                " VALUES (?, ?, ?, 'project', ?)",
                                (r["memory_id"], provider.name, cipher.encrypt(plain.tobytes(), "vector"),
                                 r["written"]))
        shop.shared.execute("DELETE FROM memory_embeddings")
    again = memories_of(shop, provider=provider)  # (a process that starts on that database)
    after = again.recall("gateway headers and rate limiting", limit=4)["results"]
    assert [(r["id"], r["score"]) for r in after] == pytest.approx([(r["id"], r["score"]) for r in before])
    assert shop.shared.rows("SELECT COUNT(*) FROM memory_vectors") == [(0,)]
    assert len(stored(shop)) == len(TEXTS)


def test_the_rotation_is_the_keys_own_and_keeps_inner_products() -> None:
    vectors = np.random.default_rng(7).standard_normal((20, 389))  # (a dimension no block size divides)
    key = b"k" * 32
    turned = KeyedRotation(key, 389)(vectors)
    assert np.allclose(turned @ turned.T, vectors @ vectors.T, atol=1e-9)
    assert np.array_equal(KeyedRotation(key, 389)(vectors), turned)  # drawn from the key alone
    assert not np.allclose(KeyedRotation(b"j" * 32, 389)(vectors), turned)
    assert np.abs(Cipher(key).rotate(vectors[0]) - Cipher(b"j" * 32).rotate(vectors[0])).max() > 0.05
