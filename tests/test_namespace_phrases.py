"""The join's ladder (SPEC 2.5): exact, strong, weak, unresolved, each with how it was reached."""

from __future__ import annotations

from tenure.namespace.phrases import EXACT, STRONG, UNRESOLVED, WEAK, PhraseIndex
from tenure.namespace.symbols import Symbol


def symbol(fqn: str, kind: str = "function", path: str = "pay/settlement.py", parent: str | None = None,
           bases: tuple[str, ...] = ()) -> Symbol:
    module = "pay.settlement"
    return Symbol(fqn=fqn, name=fqn.rsplit(".", 1)[-1], kind=kind, language="python", path=path, start=1, end=1,
                  module=module, parent=parent if parent is not None else fqn.rsplit(".", 1)[0], fingerprint="",
                  generated=False, bases=bases)


INDEX = PhraseIndex.from_symbols([
    symbol("pay.settlement", "module", parent=""),
    symbol("pay.settlement.SettlementService", "class"),
    symbol("pay.settlement.SettlementService.retry", parent="pay.settlement.SettlementService"),
    symbol("pay.settlement.reconcile"),
    symbol("pay.base.Base", "class", path="pay/base.py"),
    symbol("pay.base.Base.close", path="pay/base.py", parent="pay.base.Base"),
    symbol("pay.settlement.Ledger", "class", bases=("Base",)),
    symbol("pay.settlement.SettlementReport", "class"),
    symbol("pay.settlement.SettlementRetryPolicy", "class"),
    symbol("pay.settlement.SettlementRetryQueue", "class"),
    symbol("pay.settlement.Ledger.reconcile", parent="pay.settlement.Ledger"),
    symbol("test_pay.test_retry", path="tests/test_pay.py", parent="test_pay"),
    symbol("test_pay.helper.g", path="tests/test_pay.py", parent="test_pay.helper"),
])


def test_a_full_name_a_file_and_a_unique_suffix_are_exact() -> None:
    assert INDEX.resolve("pay.settlement.SettlementService.retry").tier == EXACT
    assert INDEX.resolve("pay/settlement.py").symbols == ("pay.settlement",)
    found = INDEX.resolve("`SettlementService.retry()`")
    assert (found.tier, found.symbols) == (EXACT, ("pay.settlement.SettlementService.retry",))


def test_a_folded_phrase_a_re_export_an_inherited_member_and_the_module_level_one_are_strong() -> None:
    assert INDEX.resolve("the settlement service").symbols == ("pay.settlement.SettlementService",)
    assert INDEX.resolve("the settlement service").tier == STRONG
    assert INDEX.resolve("pay.SettlementService").tier == STRONG  # package and name: a re-export
    inherited = INDEX.resolve("Ledger.close")
    assert (inherited.tier, inherited.symbols) == (STRONG, ("pay.base.Base.close",))
    assert "inherits" in inherited.how
    several = INDEX.resolve("reconcile")  # a function and a method: prose means the module-level one
    assert (several.tier, several.symbols, several.total) == (STRONG, ("pay.settlement.reconcile",), 2)


def test_a_concept_spanning_several_symbols_is_weak_with_the_set() -> None:
    found = INDEX.resolve("the settlement retry path")
    assert found.tier == WEAK and found.symbols == ("pay.settlement.SettlementRetryPolicy",
                                                    "pay.settlement.SettlementRetryQueue")
    assert found.total == 2 and "retry, settlement" in found.how
    assert INDEX.resolve("settlement objects").tier == UNRESOLVED  # no name has both words
    assert INDEX.resolve("Retry").tier == UNRESOLVED  # one word inside several names names none of them


def test_a_constraint_with_no_symbol_and_a_name_only_tests_use_stay_unresolved() -> None:
    assert INDEX.resolve("the counterparty SLA").tier == UNRESOLVED
    only_tests = INDEX.resolve("g")
    assert only_tests.tier == UNRESOLVED and "tests" in only_tests.how
    assert PhraseIndex().resolve("SettlementService").how == "no symbols indexed"


def test_a_phrase_of_a_class_and_its_method_names_the_method_strongly() -> None:
    service = [symbol("a.SettlementService", "class", path="a.py"),
               symbol("a.SettlementService.retry", path="a.py", parent="a.SettlementService"),
               symbol("a.SettlementService.submit", path="a.py", parent="a.SettlementService")]
    found = PhraseIndex.from_symbols(service).resolve("the settlement retry policy")  # "policy": what of it
    assert (found.tier, found.symbols) == (STRONG, ("a.SettlementService.retry",))
    assert "retry of SettlementService" in found.how
    # a class named by the whole phrase is what it names (the folded rung comes first)
    assert INDEX.resolve("the settlement retry policy").symbols == ("pay.settlement.SettlementRetryPolicy",)
    # two methods of that shape, or a word left over, are no one method: not strong
    two = PhraseIndex.from_symbols([*service, symbol("b.SettlementManager", "class", path="b.py"),
                                    symbol("b.SettlementManager.retry", path="b.py", parent="b.SettlementManager")])
    assert two.resolve("the settlement retry policy").tier != STRONG
    assert PhraseIndex.from_symbols(service).resolve("the settlement retry timeout").tier != STRONG


def test_a_function_defined_inside_a_function_is_not_the_english_word_its_name_is() -> None:
    route = "pay.settlement.SettlementService.route"
    index = PhraseIndex.from_symbols([
        symbol("pay.settlement", "module", parent=""),
        symbol("pay.settlement.SettlementService", "class"),
        symbol(route, parent="pay.settlement.SettlementService"),
        symbol(f"{route}.decorator", parent=route),
        symbol(f"{route}.decorator.wrapped", parent=f"{route}.decorator"),
    ])
    assert index.resolve("decorator").tier == UNRESOLVED  # the docs' ``@decorator``, not route's inner function
    assert index.resolve("wrapped").tier == UNRESOLVED
    assert index.resolve("route").symbols == (route,)
    assert index.resolve(f"{route}.decorator").symbols == (f"{route}.decorator",)  # its full name still finds it


def test_an_index_built_after_another_takes_its_names_words_and_is_the_same_as_one_built_alone(monkeypatch) -> None:
    from tenure.namespace import phrases

    symbols = [symbol("pay.settlement.SettlementService", "class"), symbol("pay.settlement.reconcile"),
               symbol("pay.base.Base", "class", path="pay/base.py")]
    monkeypatch.setattr(phrases, "_last_names", ({}, {}))
    alone = PhraseIndex.from_symbols(symbols)
    after = PhraseIndex.from_symbols([*symbols, symbol("pay.settlement.SettlementRetryQueue", "class")])
    assert after.name_words["SettlementService"] is alone.name_words["SettlementService"]  # taken, not made again
    monkeypatch.setattr(phrases, "_last_names", ({}, {}))
    assert after == PhraseIndex.from_symbols([*symbols, symbol("pay.settlement.SettlementRetryQueue", "class")])
