"""Encryption at rest: titles, contents, tasks and vectors are AES-GCM ciphertext in every database
file; terms are keyed hashes; a wrong or missing key is refused clearly and loses nothing."""

from __future__ import annotations

import base64
import os
import stat
from pathlib import Path

import numpy as np
import pytest

from tenure import Tenure
from tenure.memories import KeyProblem
from tenure.memories.api import Memories
from tenure.memories.crypto import key_file
from tenure.memories.store import get_meta
from tests.memory_support import ConceptProvider, memories_of

pytestmark = pytest.mark.usefixtures("shared_stores")  # each test on SQLite and on PostgreSQL

TITLE = "Zebracorn title 7731"
CONTENT = "quokkasecret content 9981 about the throttling gateway"
TASK = "platypustask 4410"


def db_files(t: Tenure) -> list[Path]:
    return sorted((t.root / ".tenure").glob("tenure.db*"))


def raw_bytes(t: Tenure) -> bytes:
    return b"".join(p.read_bytes() for p in db_files(t))


def key_b64() -> str:
    return base64.b64encode(os.urandom(32)).decode()


def test_no_plaintext_title_content_or_task_in_the_database_files_wal_included(shop: Tenure,
                                                                              shared_stores: str) -> None:
    m = memories_of(shop, provider=None)
    m.remember(CONTENT, kind="pitfall", title=TITLE, elements=["ApiGateway"])
    session = m.start_session("agent", TASK)["session"]
    m.end_session(session, "summary " + CONTENT)
    if shared_stores == "sqlite":  # (on PostgreSQL the checkout's file holds the code alone)
        assert any(p.name.endswith("-wal") and p.stat().st_size for p in db_files(shop))  # still in the WAL
    data = raw_bytes(shop).lower()
    for secret in ("zebracorn", "quokkasecret", "platypustask", "throttling", "9981"):
        assert secret.encode() not in data, secret


def test_no_plaintext_after_the_wal_is_checkpointed_into_the_main_file(shop: Tenure) -> None:
    m = memories_of(shop, provider=None)
    m.remember(CONTENT, title=TITLE)
    shop.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert b"quokkasecret" not in raw_bytes(shop) and b"Zebracorn" not in raw_bytes(shop)


def test_vectors_are_stored_encrypted(shop: Tenure) -> None:
    provider = ConceptProvider()
    m = memories_of(shop, provider=provider)
    m.remember(CONTENT)
    vector = np.asarray(provider.embed([CONTENT])[0], dtype=np.float32)
    nonzero = np.flatnonzero(vector)
    assert vector[nonzero[0] : nonzero[-1] + 1].tobytes() not in raw_bytes(shop)
    assert m.recall("rate limiting")["results"][0]["content"] == CONTENT  # and still used


def test_term_overlap_works_on_keyed_hashes(memories: Memories) -> None:
    memories.remember(CONTENT)
    result = memories.recall("throttling gateway")["results"][0]
    assert result["explain"]["relevance"]["terms"] == 1.0
    stored = {r["term"] for r in memories.db.query("SELECT term FROM memory_terms")}
    assert "throttl" not in stored and len(next(iter(stored))) == 16


def test_a_key_file_is_created_0600_outside_the_repository(shop: Tenure, tmp_path: Path) -> None:
    memories_of(shop, provider=None).remember(CONTENT)
    path = key_file(get_meta(shop.shared, "project_id"))
    assert path.parent == tmp_path / "config" / "tenure"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_the_state_directory_and_the_key_file_are_private_whatever_the_umask(make_repo, tmp_path: Path) -> None:
    """Under a umask that lets everyone in (000, as some shared machines set), the memories' database
    and their key are still their owner's alone."""
    from tenure.setup.install import install

    previous = os.umask(0)
    try:
        with Tenure.open(make_repo({"a.py": "x = 1\n"}, name="project"), discover=False) as t:
            memories_of(t, provider=None).remember(CONTENT)
            path = key_file(get_meta(t.shared, "project_id"))
        install("cursor", make_repo({}, name="set-up-first"), tmp_path / "home", with_bridge=False)
    finally:
        os.umask(previous)
    for state in (t.root / ".tenure", tmp_path / "set-up-first" / ".tenure"):  # (setup can make it first)
        assert stat.S_IMODE(state.stat().st_mode) == 0o700 and (state / ".gitignore").read_text() == "*\n"
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_key_file_readable_by_others_is_refused(shop: Tenure) -> None:
    memories_of(shop, provider=None).remember(CONTENT)
    path = key_file(get_meta(shop.shared, "project_id"))
    path.chmod(0o644)
    with pytest.raises(KeyProblem, match=f"readable by others.*chmod 600 {path}"):
        memories_of(shop, provider=None).recall("gateway")


def test_a_key_file_inside_the_project_is_refused(shop: Tenure, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(shop.root / ".config"))
    with pytest.raises(KeyProblem, match="lies inside the project"):
        memories_of(shop, provider=None).remember(CONTENT)


def test_the_key_can_come_from_tenure_key(shop: Tenure, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TENURE_KEY", key_b64())
    memories_of(shop, provider=None).remember(CONTENT)
    assert not key_file(get_meta(shop.shared, "project_id")).exists()
    assert memories_of(shop, provider=None).recall("gateway")["results"][0]["content"] == CONTENT


def test_a_malformed_tenure_key_says_how_to_make_one(shop: Tenure, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TENURE_KEY", base64.b64encode(b"short").decode())
    with pytest.raises(KeyProblem, match="decodes to 5 bytes; it must be 32 bytes"):
        memories_of(shop, provider=None).remember(CONTENT)


def test_a_wrong_key_is_refused_with_a_clear_error(shop: Tenure, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TENURE_KEY", key_b64())
    memories_of(shop, provider=None).remember(CONTENT)
    monkeypatch.setenv("TENURE_KEY", key_b64())
    with pytest.raises(KeyProblem, match="is not the one these memories were written with"):
        memories_of(shop, provider=None).recall("gateway")


def test_a_wrong_key_writes_nothing_and_the_right_key_still_reads_everything(
        shop: Tenure, monkeypatch: pytest.MonkeyPatch) -> None:
    right = key_b64()
    monkeypatch.setenv("TENURE_KEY", right)
    memories_of(shop, provider=None).remember(CONTENT)
    monkeypatch.setenv("TENURE_KEY", key_b64())
    with pytest.raises(KeyProblem):
        memories_of(shop, provider=None).remember("written with the wrong key")
    monkeypatch.setenv("TENURE_KEY", right)
    results = memories_of(shop, provider=None).recall("")["results"]
    assert [r["content"] for r in results] == [CONTENT]


def test_a_lost_key_file_is_refused_and_not_replaced(shop: Tenure) -> None:
    memories_of(shop, provider=None).remember(CONTENT)
    path = key_file(get_meta(shop.shared, "project_id"))
    path.unlink()
    with pytest.raises(KeyProblem, match="no key: these memories are encrypted.*Restore the key file"):
        memories_of(shop, provider=None).remember("another")
    assert not path.exists()


def test_a_tampered_ciphertext_is_an_error_never_garbage(memories: Memories) -> None:
    memory = memories.remember(CONTENT)["id"]
    blob = bytearray(memories.db.query("SELECT content FROM memories WHERE id = ?", (memory,))[0]["content"])
    blob[-1] ^= 1
    memories.db.execute("UPDATE memories SET content = ? WHERE id = ?", (bytes(blob), memory))
    with pytest.raises(KeyProblem, match="does not decrypt with this key"):
        memories.get(memory)
