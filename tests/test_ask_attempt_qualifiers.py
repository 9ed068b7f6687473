"""`ask` lists a past attempt with the qualifiers `tenure history` gives it: that it touched a close
dependant and not the symbol, and that it is a sweep (a diff over many files or symbols). It reads
them from the episodic store's answer, as the history command does."""

from __future__ import annotations

from types import SimpleNamespace

from tenure.ask.gather import episodic
from tenure.ask.phrases import Focus
from tenure.episodic.timeline import qualifiers

FOCUS = Focus("flask.helpers.url_for", "function", "src/flask/helpers.py", 200, "strong", 1.0, "")


def _attempt(relation: str, sweep: bool) -> dict:
    return {"kind": "pr", "ref": "39fc0c6bad", "task": "Publish workflow", "when": "2023-01-20T00:00:00+00:00",
            "commit": "39fc0c6bad00", "relation": relation, "sweep": sweep, "files": 40, "symbolsChanged": 300,
            "verdict": {"verdict": "merged", "class": "success", "confidence": 0.9, "source": "git-merge"},
            "evidence": [], "conclusions": []}


def _ask_line(attempt: dict) -> str:
    group = {"verdict": "success", "size": 1, "attempts": [attempt]}
    result = {"text": "1 past attempt", "notes": [], "groups": [group]}
    stores = SimpleNamespace(episodes=SimpleNamespace(what_happened_before=lambda symbol, limit: result))
    return episodic(stores, [FOCUS], []).items[0].text


def test_ask_says_an_attempt_on_a_close_dependant_is_one_and_a_sweep_is_one() -> None:
    attempt = _attempt("dependant", sweep=True)
    line = _ask_line(attempt)
    assert "(a close dependant)" in line and "(a sweep: 40 files, 300 symbols)" in line
    assert qualifiers(attempt) in line  # the words `tenure history` prints


def test_ask_adds_nothing_to_a_focused_attempt_on_the_symbol_itself() -> None:
    line = _ask_line(_attempt("touched", sweep=False))
    assert "close dependant" not in line and "sweep" not in line


def test_an_attempt_on_two_of_the_symbols_asked_about_is_listed_once_where_it_ranks_higher() -> None:
    # (cobra: "Fix --version help and output for plugins (#2180)" touched updateParentsPflags, a caller
    # of VisitParents: ask listed it twice, once "(a close dependant)")
    caller = Focus("cobra.Command.updateParentsPflags", "method", "command.go", 1907, "weak", 0.8, "")
    answers = {FOCUS.symbol: _attempt("dependant", sweep=False), caller.symbol: _attempt("touched", sweep=False)}

    def what_happened_before(symbol: str, limit: int) -> dict:
        group = {"verdict": "success", "size": 1, "attempts": [answers[symbol]]}
        return {"text": "1 past attempt", "notes": [], "groups": [group]}

    stores = SimpleNamespace(episodes=SimpleNamespace(what_happened_before=what_happened_before))
    items = episodic(stores, [FOCUS, caller], []).items
    assert [(i.symbol, i.detail["relation"]) for i in items] == [(caller.symbol, "touched")]
