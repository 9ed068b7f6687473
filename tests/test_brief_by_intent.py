"""The briefing chooses its elements by intent (related_by_intent): a symbol the task names exactly comes
first, people read words, never stems; and it gathers what the other stores know of those elements —
the decisions and incidents behind them, the past attempts that failed, their pitfalls."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tenure import Tenure
from tenure.cli import app
from tenure.memories.api import Memories
from tests.ask_support import RETRY, build

HELPERS = {  # url_for is named by the task; the other two speak of every word of it
    "web/__init__.py": "",
    "web/helpers.py": '''def url_for(endpoint, _external=False):
    """Generate a URL to the given endpoint."""
    return endpoint
''',
    "web/routing.py": '''class ExternalUrlBuilder:
    """Builds external URLs: changes how urls are built for external hosts."""

    def build(self, endpoint, change_external_urls=True):
        return endpoint


def build_external_urls(changes):
    return [change for change in changes]
''',
}
TASK = "change how url_for builds external URLs"


def test_a_symbol_the_task_names_comes_first_and_the_text_has_words_not_stems(make_indexed_repo) -> None:
    root = make_indexed_repo(HELPERS)
    with Tenure.open(root, discover=False) as t:
        brief = t.brief(TASK)
    assert brief["elements"][0]["element"] == "web.helpers.url_for"
    assert brief["elements"][0]["tier"] == "exact"
    listed = brief["text"].split("Elements this task is about:")[1].split("\n\n")[0]
    for stem in ("chang,", "chang ", " ur,", " ls", "extern,"):
        assert stem not in listed, listed


def test_selection_by_terms_shows_the_words_of_the_task(memories: Memories) -> None:
    selected = memories.select_elements("changing the checkouts")
    assert selected[0]["why"] == ["code speaks of checkouts"]  # the task's word, not the stem "checkout"


def test_the_briefing_gathers_decisions_past_failures_and_pitfalls_for_its_elements(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TENURE_ENRICH", "off")
    root = build(tmp_path / "payments").root
    with Tenure.open(root) as t:
        started = t.start_session("claude-code", "change how SettlementService.retry handles timeouts")
        brief = t.brief("change how SettlementService.retry handles timeouts")
    assert brief["elements"][0]["element"] == RETRY
    text = brief["text"]
    assert started["briefing"].startswith(text.rstrip())
    decisions = text.split("## Decisions and incidents behind them")[1].split("\n\n")[0]
    assert "ADR-0003" in decisions and "settled twice" in decisions
    failures = text.split("## Past attempts that failed")[1].split("\n\n")[0]
    assert "reverted: “Retry settlements twice more when the bank is slow”" in failures
    assert "lesson: Five retries settled payments twice" in failures
    assert len(failures.strip().splitlines()) == 1  # the class's history repeats its method's: said once
    assert "[PITFALL]" in text and "idempotency key" in text


def test_the_cli_briefing_by_task(make_indexed_repo) -> None:
    root = make_indexed_repo(HELPERS)
    result = CliRunner().invoke(app, ["brief", "--task", TASK, "--repo", str(root)])
    assert result.exit_code == 0, result.output
    assert "- url_for (web.helpers.url_for): exact" in result.output


def test_two_elements_of_one_short_name_are_told_apart(make_indexed_repo) -> None:
    root = make_indexed_repo({**HELPERS, "web/app.py": "class App:\n    def url_for(self, endpoint):\n"
                                                        "        return endpoint\n"})
    with Tenure.open(root, discover=False) as t:
        started = t.start_session("claude-code", TASK, ["web.helpers.url_for", "web.app.App.url_for"])
        t.memories.remember("Both build URLs: change them together.", "pitfall",
                            elements=["web.helpers.url_for", "web.app.App.url_for"])
        brief = t.brief(TASK)
    assert "Leased: helpers.url_for, App.url_for." in started["briefing"]  # the shortest tails that differ
    [pitfall] = [line for line in brief["text"].splitlines() if "[PITFALL]" in line]
    assert "**App.url_for, helpers.url_for**" in pitfall
