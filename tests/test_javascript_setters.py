"""A JavaScript setter may assign to the variable the assignment that called it reads its objects from."""

from __future__ import annotations

from tenure import Tenure


def test_a_setter_assigning_the_variable_its_objects_are_read_from_is_resolved(make_repo) -> None:
    # (the write's setter grew the set the assignment was going through: "Set changed size during
    # iteration" failed 29 of hono@4.6.0's files)
    root = make_repo({"a.js": "const o = { set x(v) { v.x = { y: v } } }\no.x = o\n"})
    with Tenure.open(root, discover=False) as t:
        report = t.index()
        assert report.unresolved == [] and report.resolved_partly == []
