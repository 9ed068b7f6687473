"""Code names written bare in prose become symbols through the ladder; English words never do."""

from __future__ import annotations

import pytest

from tenure.api import Tenure
from tenure.namespace.mentions import code_mentions
from tenure.namespace.phrases import EXACT, STRONG, WEAK, PhraseIndex

SETTLEMENT = '''
MAX_RETRIES = 3


class SettlementService:
    def retry(self, submission):
        return submit(submission)

    def route(self, rule):
        def decorator(f):
            return f
        return decorator


def submit(submission):
    return submission


def url_for(endpoint):
    return "/" + endpoint
'''

APP = '''
class App:
    def url_for(self, endpoint):
        return endpoint

    def run(self):
        pass

    def get(self, rule):
        pass


def with_appcontext(f):
    def decorator(*args):
        return f(*args)
    return decorator
'''


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> PhraseIndex:
    root = tmp_path_factory.mktemp("mentions")
    (root / "pay").mkdir()
    (root / "pay" / "__init__.py").write_text("")
    (root / "pay" / "settlement.py").write_text(SETTLEMENT)
    (root / "pay" / "app.py").write_text(APP)
    with Tenure.open(root, discover=False) as t:
        t.index()
        return PhraseIndex.of(t.db)


def named(index: PhraseIndex, text: str) -> dict[str, tuple[str, tuple[str, ...]]]:
    return {m.name: (m.tier, m.symbols) for m in code_mentions(index, text)}


def test_code_names_written_bare_or_in_backticks_name_their_symbols(index: PhraseIndex) -> None:
    text = ("SettlementService retries a timed-out submission at most three times; see `submit` and "
            "SettlementService.retry, pay.settlement.url_for and pay/settlement.py.")
    found = named(index, text)
    assert found["SettlementService"] == (EXACT, ("pay.settlement.SettlementService",))
    assert found["submit"] == (EXACT, ("pay.settlement.submit",))
    assert found["SettlementService.retry"] == (EXACT, ("pay.settlement.SettlementService.retry",))
    assert found["pay.settlement.url_for"] == (EXACT, ("pay.settlement.url_for",))
    assert found["pay/settlement.py"] == (EXACT, ("pay.settlement",))


def test_a_mention_carries_its_span_and_how_the_ladder_reached_it(index: PhraseIndex) -> None:
    text = "I am changing how url_for builds URLs."
    [mention] = code_mentions(index, text)
    assert text[mention.start:mention.end] == "url_for"
    assert (mention.tier, mention.symbols, mention.total) == (STRONG, ("pay.settlement.url_for",), 2)
    assert "module level" in mention.how


def test_english_words_that_are_also_names_never_become_symbols(index: PhraseIndex) -> None:
    text = ("What are the recurring problems with url building? The decorator of a route: run the app, get "
            "the submission and retry with and without a route.")
    assert code_mentions(index, text) == []


def test_a_plain_word_never_names_a_closure_even_in_backticks(index: PhraseIndex) -> None:
    assert "decorator" not in named(index, "the `decorator` returned by `route`")
    assert named(index, "`run()` starts it")["run()"][0] == WEAK  # a call names the member, weakly


def test_a_capitalised_word_counts_inside_a_sentence_not_at_its_start_or_in_a_heading(index: PhraseIndex) -> None:
    assert "App" in named(index, "the App class runs")
    assert "App" not in named(index, "App developers rejoice.")
    assert "App" not in named(index, "# Writing an App\n")


def test_urls_are_skipped_whole(index: PhraseIndex) -> None:
    assert code_mentions(index, "see https://example.org/pay.settlement.url_for") == []


def test_a_name_that_names_nothing_and_an_empty_project_give_no_mention(index: PhraseIndex) -> None:
    assert code_mentions(index, "MAX_RETRIES_EVER and NoSuchService") == []
    assert code_mentions(PhraseIndex(), "SettlementService") == []
