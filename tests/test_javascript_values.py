"""JavaScript values hash the same in every process, so a graph built twice is the same graph."""

from __future__ import annotations

from tenure.structural.resolve.javascript.analysis import Analysis
from tenure.structural.resolve.javascript.values import CONST, key_of


def test_null_is_a_constant_keyed_null_and_holds_no_none() -> None:
    # Python 3.11 hashes None by its address: a value holding it would reorder every set it is in
    # from one process to the next, and a capped set or the fixpoint's budget would then keep other
    # values (Django's jquery.js gave 482 different edge rows run to run)
    (null,) = Analysis.e_const(None, ["k", None])  # type: ignore[arg-type]
    assert null == (CONST, "", "null") and key_of(null) == "null"
    assert None not in null
