"""Links with tiers (issue 28.2, 29.11): a decision record that names code bare in its prose, a comment
that cites the decision, and `why` of a method reporting what is linked to its class, its module and
the constants it reads (`via`, with tiers), without duplicate lines or English words taken for code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tenure import Tenure
from tests.knowledge_support import git

ADR = """# ADR-0003: Retry timed-out settlement submissions

## Context

The clearing house times out submissions under load; a lost submission leaves a trade unsettled.

## Decision

SettlementService retries a timed-out submission at most three times (MAX_RETRIES = 3), then marks the
trade for manual reconciliation. More retries submit twice when the clearing house is slow.
"""

SERVICE = '''"""Settlement of trades with the clearing house."""

MAX_RETRIES = 3  # see [[ADR-0003]]


class SettlementService:
    """Submits trades to the clearing house (decided in ADR-0003)."""

    def submit(self, trade):
        return trade.ok

    def retry(self, trade):
        for _ in range(MAX_RETRIES):
            if self.submit(trade):
                return True
        return False

    def route(self, trade):
        def decorator(view):
            return view
        return decorator


def reconcile(batch):
    # the ledger's own check, see #412
    return [t for t in batch if t.ok]
'''

GUIDE = """# Settlement guide

Use `settlement.service.SettlementService.retry` to resubmit a trade; see #412.
`SettlementService.retry` gives up after MAX_RETRIES attempts (#412).

If you're used to ``@decorator`` style, wrap the view with a decorator and it works with any route.
"""


@pytest.fixture
def settlement(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TENURE_KNOWLEDGE", "off")  # the index alone: the build is the one under test
    repo = tmp_path / "ledger"
    files = {"docs/adr/0003-settlement-retries.md": ADR, "docs/guide.md": GUIDE,
             "settlement/__init__.py": "", "settlement/service.py": SERVICE}
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    for n, (path, text) in enumerate(files.items()):
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"Add {path} with what it says about settlement retries",
            "--date", f"2024-01-{n + 1:02d}T10:00:00")
    service = repo / "settlement/service.py"
    for n, message in enumerate(["Submit settlements once before retrying them on a timeout",
                                 "Reconcile the batch after the settlement retries gave up"]):
        service.write_text(service.read_text() + f"\n\ndef step_{n}():\n    return {n}\n")
        git(repo, "commit", "-q", "-am", message, "--date", f"2024-02-{n + 1:02d}T10:00:00")
    with Tenure.open(repo) as t:
        t.index()
        t.knowledge.build(embed=False)
        yield t


def test_the_limit_governs_the_commits_listed_and_the_summary_says_how_to_see_the_rest(settlement) -> None:
    answer = settlement.knowledge.why("settlement.service", limit=1)
    commits = answer["commits"]
    assert len(commits["listed"]) == 1 and commits["total"] == 3
    assert "1 listed; 2 more" in answer["summary"]["text"] and "a limit of 3" in answer["summary"]["text"]
    assert len(settlement.knowledge.why("settlement.service", limit=50)["commits"]["listed"]) == 3


def test_a_ticket_two_phrases_of_a_symbol_link_to_is_related_once(settlement) -> None:
    related = [r["entity"] for r in settlement.knowledge.why("SettlementService.retry")["related"]]
    assert related.count("#412") == 1


def test_an_inner_function_named_decorator_takes_no_sentence_about_decorators(settlement) -> None:
    evidence = settlement.knowledge.why("SettlementService.route", limit=50)["evidence"]
    assert not [e for e in evidence if "decorator" in e["quote"]]
