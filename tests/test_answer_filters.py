"""The key filters of stored answers: matching all dependants' filters at once gives exactly what
testing each filter on its own gives; a question that read many keys is told apart from keys it
did not read by a wide filter of its own."""

from __future__ import annotations

import random

from tenure.structural.resolve import ProjectIndex, ProjectView, answers


def test_packed_filters_match_exactly_those_holding_every_bit_of_a_key() -> None:
    rng = random.Random(3)
    for trial in range(100):
        filters = [rng.getrandbits(128) | rng.getrandbits(128) for _ in range(rng.randint(1, 300))]
        packed = b"".join(f.to_bytes(16, "little") for f in filters)
        mask = answers.key_bits(f"sym:pkg.mod.f{trial}")
        found = answers.filters_holding(packed, mask).to_bytes(len(filters), "little")
        assert found == bytes(f & mask == mask for f in filters)


def test_a_question_that_read_many_keys_keeps_a_wide_filter_that_tells_unread_keys_apart() -> None:
    view = ProjectView(ProjectIndex(load_facts=lambda path: None))
    read = ({f"items:pkg.m{i}" for i in range(300)}, set())
    key_filter = answers.key_filter(view, read)
    assert len(key_filter) > answers.FILTER_BYTES
    assert all(answers.may_have_read(key_filter, [key]) for key in read[0])  # no false negative
    unread = [f"miss:pkg.m{i}#f" for i in range(1000)]
    narrow_only = key_filter[: answers.FILTER_BYTES]
    assert sum(answers.may_have_read(narrow_only, [key]) for key in unread) > 900  # 128 bits: full
    assert sum(answers.may_have_read(key_filter, [key]) for key in unread) < 100


def test_a_question_that_read_thousands_of_keys_keeps_a_wide_filter_holding_each_of_them() -> None:
    # (past 512 keys its bits are set position by position, not OR-ed as masks)
    view = ProjectView(ProjectIndex(load_facts=lambda path: None))
    read = ({f"item:pkg.m{i}#f" for i in range(3000)}, set())
    key_filter = answers.key_filter(view, read)
    assert len(key_filter) - answers.FILTER_BYTES > 4096 // 8
    assert all(answers.may_have_read(key_filter, [key]) for key in read[0])
    assert sum(answers.may_have_read(key_filter, [f"miss:pkg.m{i}#f"]) for i in range(1000)) < 100


def test_a_question_that_read_few_keys_keeps_only_the_packed_filter() -> None:
    view = ProjectView(ProjectIndex(load_facts=lambda path: None))
    assert len(answers.key_filter(view, ({"name:f", "items:pkg.m"}, set()))) == answers.FILTER_BYTES


def test_the_packed_filter_of_many_keys_holds_the_bits_of_every_key_read_and_no_other() -> None:
    # (its bits stop being gathered once all 128 are set: the same filter as gathering them all)
    index = ProjectIndex(load_facts=lambda path: None)
    index.add_modules((f"pkg.m{i}", f"pkg/m{i}.py") for i in range(0, 400, 2))
    view = ProjectView(index)
    for count in (20, 60, 250, 1500):
        keys = {f"item:pkg.m{i}#f{count}" for i in range(count)}
        modules = {f"pkg.m{i}" for i in range(count // 4)}  # (half of them no module: no bits)
        expected = 0
        for key in [*keys, *(f"mod:{m}" for m in modules if m in index.module_paths)]:
            expected |= answers.key_bits(key)
        narrow = answers.key_filter(view, (keys, modules))[: answers.FILTER_BYTES]
        assert int.from_bytes(narrow, "little") == expected
