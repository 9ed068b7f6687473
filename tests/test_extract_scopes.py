"""The generic extractor's definition spans: a byte range finds its innermost enclosing definition."""

from __future__ import annotations

import random

from tenure.structural.extract import _Scopes


def _enclosing_by_scan(spans: list[tuple[int, int, str]], start: int, end: int) -> str:
    """The reference: of the spans starting at or before `start` that reach `end`, the last added."""
    found = ""
    for s, e, q in sorted(spans, key=lambda span: span[0]):  # a stable sort keeps the order of adding
        if s <= start and end <= e:
            found = q
    return found


def _random_spans(rng: random.Random, count: int) -> list[tuple[int, int, str]]:
    spans = []
    for n in range(count):
        start = rng.randrange(0, 200)
        spans.append((start, start + rng.randrange(0, 60), f"d{n}"))
    return spans


def test_enclosing_matches_a_full_scan_for_spans_added_in_order_or_not() -> None:
    rng = random.Random(7)
    for trial in range(200):
        spans = _random_spans(rng, rng.randrange(1, 30))
        if trial % 2:
            spans.sort(key=lambda span: (span[0], -span[1]))  # as the extractor adds them
        scopes = _Scopes()
        for span in spans:
            scopes.add(*span)
        for start in range(0, 260, 3):
            for end in (start, start + 5, start + 40):
                assert scopes.enclosing(start, end) == _enclosing_by_scan(spans, start, end)


def test_a_reference_after_many_sibling_definitions_finds_the_module_level_one() -> None:
    scopes = _Scopes()
    scopes.add(0, 100_000, "Outer")
    for n in range(5_000):
        scopes.add(10 + n * 10, 15 + n * 10, f"Outer.f{n}")
    assert scopes.enclosing(99_990) == "Outer"
    assert scopes.enclosing(12) == "Outer.f0"
    assert scopes.enclosing(200_000) == ""
