"""`related_by_intent` / `tenure resolve` (SPEC 2.5): the ladder exact / strong / weak / unresolved, each match
with why it matched; English words never become symbols; a task text of forty lines; degraded modes said."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tenure.api import Tenure
from tenure.cli import app
from tenure.namespace.intent import IntentError, Resolution
from tests.git_support import GitRepo

SETTLEMENT = '''"""Settlement of payments with the clearing house."""

MAX_RETRIES = 3


class SettlementService:
    """Submits payments for settlement and retries a timed-out submission."""

    def retry(self, submission):
        """Retry a timed-out submission at most MAX_RETRIES times, with exponential backoff."""
        for attempt in range(MAX_RETRIES):
            if submit(submission, attempt):
                return True
        return False

    def route(self, rule):
        def decorator(handler):
            return handler
        return decorator


def submit(submission, attempt):
    """Send one submission to the clearing house."""
    return attempt > 1
'''

LEDGER = '''class Ledger:
    """The general ledger: double-entry bookkeeping of every settled payment."""

    def post_entry(self, debit, credit, amount):
        """Post a balanced journal entry: the debit and the credit accounts move by the amount."""
        return (debit, credit, amount)

    def trial_balance(self):
        """Sum every account's debits and credits: they must balance."""
        return 0
'''

THROTTLE = '''class RateLimiter:
    """Throttles requests per client: a token bucket refilled every second."""

    def allow(self, client):
        """Whether the client may send one more request now (throttling the rest)."""
        return bool(client)


def run(app, port):
    return app, port


def get(key):
    return key
'''

FILES = {"pay/__init__.py": "", "pay/settlement.py": SETTLEMENT, "pay/ledger.py": LEDGER,
         "pay/throttle.py": THROTTLE}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("resolve") / "pay"
    repo = GitRepo(root)
    repo.commit("Add the settlement service, the ledger and the rate limiter", FILES)
    repo.commit("Back off exponentially between settlement retries of a timed-out submission",
                {"pay/settlement.py": SETTLEMENT.replace("at most", "no more than")})
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TENURE_ENRICH", "off")
        patch.setenv("TENURE_EMBED_BACKGROUND", "off")
        patch.setenv("TENURE_KNOWLEDGE", "off")
        with Tenure.open(root, discover=False) as t:
            t.index()
    return root


def resolve(root: Path, text: str, limit: int = 10) -> Resolution:
    with Tenure.open(root, discover=False) as t:
        return t.resolve(text, limit)


def test_a_name_written_verbatim_is_exact_and_says_so(project: Path) -> None:
    found = resolve(project, "SettlementService.retry")
    assert found.tier == "exact"
    first = found.matches[0]
    assert (first.symbol, first.tier, first.path) == ("pay.settlement.SettlementService.retry", "exact",
                                                      "pay/settlement.py")
    assert first.line == 9 and first.kind in ("function", "method")
    assert any(e.kind == "name" and "named verbatim: `SettlementService.retry`" in e.detail for e in first.why)
    assert all(m.tier == "weak" for m in found.matches[1:])  # its collaborators, never above weak


def test_a_folded_phrase_naming_one_class_is_strong(project: Path) -> None:
    found = resolve(project, "the settlement service")
    assert (found.tier, found.matches[0].symbol) == ("strong", "pay.settlement.SettlementService")
    assert "case and spaces folded" in found.matches[0].why[0].detail


def test_a_concept_by_its_words_is_a_weak_ranked_set_with_its_total(project: Path) -> None:
    found = resolve(project, "post balanced journal entries", limit=2)
    assert found.tier == "weak" and all(m.tier == "weak" for m in found.matches)
    assert found.matches[0].symbol == "pay.ledger.Ledger.post_entry"
    assert len(found.matches) <= 2 and found.total >= len(found.matches)
    detail = " ".join(e.detail for e in found.matches[0].why)
    assert "'balanced'" in detail and "'journal'" in detail  # the words a person wrote, not stems


def test_a_constraint_no_symbol_holds_is_unresolved_and_kept(project: Path) -> None:
    found = resolve(project, "the counterparty SLA")
    assert (found.tier, found.matches, found.unresolved) == ("unresolved", (), ("the counterparty SLA",))


def test_english_words_that_are_also_names_never_become_symbols(project: Path) -> None:
    found = resolve(project, "run the app and get the route with a decorator")
    assert not [m for m in found.matches if m.tier in ("exact", "strong")]
    assert "pay.settlement.SettlementService.route.decorator" not in {m.symbol for m in found.matches}


def test_a_task_text_of_forty_lines_puts_the_named_symbol_first_and_keeps_its_constraints(project: Path) -> None:
    filler = [f"Step {i}: keep the audit trail readable for the operations team." for i in range(32)]
    task = "\n".join([
        "# Settlement retries are too aggressive",
        "",
        "When the clearing house times out, SettlementService.retry submits again at once.",
        "We must back off between attempts and respect the counterparty SLA of two hours.",
        *filler[:16],
        "The ledger must not post an entry twice for one payment.",
        *filler[16:],
        "Acceptance: retries back off exponentially; no duplicate journal entry.",
        "",
        "Out of scope: throttling of client requests.",
    ])
    assert len(task.splitlines()) == 40
    found = resolve(project, task, limit=5)
    assert found.matches[0].symbol == "pay.settlement.SettlementService.retry"
    assert found.matches[0].tier == "exact" and found.tier == "exact"
    assert len(found.matches) <= 5 and found.total >= len(found.matches)
    assert "counterparty SLA" in found.unresolved
    assert all(m.tier == "weak" for m in found.matches[1:])


def test_the_history_says_which_symbols_commits_speaking_like_the_text_changed(project: Path) -> None:
    found = resolve(project, "exponential backoff between settlement retries")
    retry = next(m for m in found.matches if m.symbol == "pay.settlement.SettlementService.retry")
    assert any(e.kind == "history" and "Back off exponentially" in e.detail for e in retry.why)


def test_degraded_modes_are_listed(project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TENURE_EMBEDDINGS", "none")
    found = resolve(project, "the settlement service")
    assert any("no embedding model" in d for d in found.degraded)
    assert any("no knowledge store built yet" in d for d in found.degraded)
    plain = tmp_path / "plain"  # the same code, no git: no history
    for rel, text in FILES.items():
        (plain / rel).parent.mkdir(parents=True, exist_ok=True)
        (plain / rel).write_text(text)
    with Tenure.open(plain, discover=False) as t:
        t.index()
        found = t.resolve("the settlement service")
    assert found.matches[0].symbol == "pay.settlement.SettlementService"
    assert any("no git history" in d for d in found.degraded)


def test_an_empty_text_is_refused_and_nothing_indexed_is_said(project: Path, tmp_path: Path) -> None:
    with pytest.raises(IntentError, match="empty"):
        resolve(project, "   ")
    empty = tmp_path / "empty"
    empty.mkdir()
    with Tenure.open(empty, discover=False) as t:
        found = t.resolve("the settlement service")
    assert found.tier == "unresolved" and "nothing is indexed yet" in found.degraded[0]


def test_the_cli_reads_stdin_answers_json_and_exits_1_when_unresolved(project: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["resolve", "-", "--json", "--repo", str(project), "-n", "3"],
                           input="Why does SettlementService.retry back off?\n")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert answer["matches"][0]["symbol"] == "pay.settlement.SettlementService.retry"
    assert {"text", "tier", "matches", "total", "unresolved", "degraded"} <= set(answer)
    assert {"symbol", "kind", "path", "line", "tier", "score", "why"} <= set(answer["matches"][0])
    human = runner.invoke(app, ["resolve", "the counterparty SLA", "--repo", str(project)])
    assert human.exit_code == 1 and "unresolved" in human.output

def test_the_cli_counts_the_matches_below_the_answers_tier_apart(project: Path) -> None:
    answer = resolve(project, "SettlementService.retry").as_dict()
    assert [m["tier"] for m in answer["matches"]] == ["exact", "weak"]  # the method, and what calls it
    human = CliRunner().invoke(app, ["resolve", "SettlementService.retry", "--repo", str(project)])
    assert human.output.splitlines()[0] == "exact: 1 symbol and 1 weaker match"  # never "exact: 2 symbols"


def test_an_edited_file_is_read_again_and_the_others_are_kept(tmp_path: Path) -> None:
    root = tmp_path / "edited"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    with Tenure.open(root, discover=False) as t:
        t.index()
        assert resolve(root, "the fluxcapacitor calibration").tier == "unresolved"
        (root / "pay/ledger.py").write_text(LEDGER.replace("The general ledger", "The fluxcapacitor calibration"))
        t.index()
    found = resolve(root, "the fluxcapacitor calibration")
    assert found.matches[0].symbol == "pay.ledger.Ledger"
    assert resolve(root, "post balanced journal entries").matches[0].symbol == "pay.ledger.Ledger.post_entry"
    assert resolve(root, "the settlement service").matches[0].symbol == "pay.settlement.SettlementService"


def test_a_text_longer_than_the_bound_is_read_in_part_and_says_so(project: Path) -> None:
    found = resolve(project, "SettlementService.retry backs off. " + "The operations team reads logs. " * 1000)
    assert found.matches[0].symbol == "pay.settlement.SettlementService.retry"
    assert any("only the first 20,000 of" in d for d in found.degraded)
