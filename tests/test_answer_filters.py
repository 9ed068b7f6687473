"""The key filters of stored answers: matching all dependants' filters at once gives exactly what
testing each filter on its own gives."""

from __future__ import annotations

import random

from tenure.structural.resolve import python


def test_packed_filters_match_exactly_those_holding_every_bit_of_a_key() -> None:
    rng = random.Random(3)
    for trial in range(100):
        filters = [rng.getrandbits(128) | rng.getrandbits(128) for _ in range(rng.randint(1, 300))]
        packed = b"".join(f.to_bytes(16, "little") for f in filters)
        mask = python._KEY_BITS[f"sym:pkg.mod.f{trial}"]
        found = python._filters_holding(packed, mask).to_bytes(len(filters), "little")
        assert found == bytes(f & mask == mask for f in filters)
