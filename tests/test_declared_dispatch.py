"""A call through a receiver declared of a base class (an annotated field, global or return) may run
any override: what-breaks of the override lists it, and of the base counts the undecided dispatch."""

from __future__ import annotations

from tests.conftest import FIXTURES

CASE = FIXTURES / "graph" / "python_declared_dispatch"


def test_what_breaks_of_an_override_lists_the_calls_through_its_declared_base(indexed) -> None:
    t = indexed(CASE)
    answer = t.what_breaks("providers.YamlProvider.dumps")
    callers = {(d["symbol"], d["tier"], d["detail"]) for d in answer["dependants"] if d["relation"] == "calls"}
    assert ("api.dumps", "ambiguous", "dispatch of providers.Provider.dumps") in callers  # the declared field
    assert ("api.through_return", "ambiguous", "dispatch of providers.Provider.dumps") in callers
    assert not any(symbol in ("api.exact", "api.local") for symbol, _, _ in callers)  # a Provider, exactly
    assert answer["summary"]["lower_bound"]


def test_what_breaks_of_the_base_method_counts_its_undecided_dispatches(indexed) -> None:
    t = indexed(CASE)
    summary = t.what_breaks("providers.Provider.dumps")["summary"]
    # Provider.dump's self.dumps(), api.dumps's current_app.json.dumps() and through_return's
    # make().dumps(): overrides may run instead
    assert summary["unresolved_dispatch"] == 3
    assert summary["lower_bound"]
