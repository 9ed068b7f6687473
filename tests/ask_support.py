"""The repository of SPEC §2.6's question, built for real: a settlement service whose retry limit a
decision record explains, an incident review of the time it was raised, an earlier attempt to raise it
that was reverted (with its lesson in the revert's message), a service outside the repository seen
calling it only in traces, a house rule, a co-change rule and a pitfall on the method."""

from __future__ import annotations

from pathlib import Path

from tenure import Tenure
from tests.git_support import GitRepo
from tests.trace_support import CLIENT, SERVER, T0, request, span, span_id, trace_id, write_json_lines

QUESTION = "I am changing the settlement retry policy. What breaks, why is it 3, and has anyone tried this before?"
RETRY = "settlement.service.SettlementService.retry"

SERVICE = '''"""Settlement: submitting payments to the bank."""

MAX_RETRIES = 3  # see [[ADR-0003]]


class SettlementService:
    def retry(self, payment):
        """Retry a timed-out submission to the bank, at most MAX_RETRIES times."""
        for _ in range(MAX_RETRIES):
            if self.submit(payment):
                return True
        return False

    def submit(self, payment):
        return payment.ok
'''

PAYOUTS = '''from settlement.service import SettlementService


def pay_out(batch):
    return [SettlementService().retry(p) for p in batch]
'''

ROUTES = '''from settlement.service import SettlementService


def retry_endpoint(payment):
    return SettlementService().retry(payment)
'''

ADR = """# ADR-0003: Retry a timed-out settlement at most three times

## Context

Submissions to the bank time out under load; `SettlementService.retry` submits again.

## Decision

`SettlementService.retry` retries a timed-out submission at most three times (`MAX_RETRIES = 3`),
because the counterparty SLA allows three attempts within its five-minute window.
"""

POSTMORTEM = """# Incident review: duplicate settlements (2026-01-20)

## What happened

Retrying five times made `SettlementService.retry` submit a fourth time while the bank's
first answer was still in flight: payments were settled twice.

## Follow-up

Never retry more than the counterparty SLA allows (ADR-0003).
"""

TESTS = '''from settlement.service import SettlementService


def test_retry_gives_up():
    assert SettlementService() is not None
'''


def build(root: Path) -> GitRepo:
    """The repository's history, commit by commit; indexed (history, knowledge offline), with the traces
    ingested and the rules and the pitfall written."""
    repo = GitRepo(root)
    repo.commit("Add the settlement service", {
        "settlement/__init__.py": "", "settlement/service.py": SERVICE, "settlement/routes.py": ROUTES,
        "payouts/__init__.py": "", "payouts/batch.py": PAYOUTS, "tests/test_service.py": TESTS})
    repo.commit("Record ADR-0003 on settlement retries", {"docs/adr/0003-settlement-retries.md": ADR})
    raised = repo.commit("Retry settlements twice more when the bank is slow\n\nSettlementService.retry gives up too "
                         "early under load.", {"settlement/service.py": SERVICE.replace("range(MAX_RETRIES)",
                                                                                        "range(MAX_RETRIES + 2)")})
    repo.revert(raised, days=2)
    repo.git("commit", "--amend", "-q", "-m",
             f'Revert "Retry settlements twice more when the bank is slow"\n\nThis reverts commit {raised}.\n\n'
             "Five retries settled payments twice: a fourth submission went out while the bank's first answer was in "
             "flight. Keep the limit at the SLA's three.")
    repo.commit("Add the duplicate settlements incident review",
                {"docs/postmortems/2026-01-duplicate-settlements.md": POSTMORTEM})
    with Tenure.open(repo.root, discover=False) as t:
        t.index()
        t.ingest_traces([write_json_lines(root.parent / "traces.jsonl", ledger_trace())])
        t.rules_store.add("Settlement changes are reviewed by the payments team.", author="human/ana")
        t.rules_store.add(None, author="human/ana", change="settlement/service.py", also="tests/test_service.py")
        t.memories.remember("The bank answers late under load: a retry without the idempotency key "
                            "settles a payment twice.", "pitfall", elements=[RETRY],
                            title="Retries need the idempotency key", author="human/ana")
    return repo


def ledger_trace() -> list[dict]:
    """The ledger service (not in this repository) calls POST /settlements/retry on settlement, whose
    handler is SettlementService.retry."""
    t = trace_id()
    client, server = span_id(), span_id()
    return [
        request("ledger", [span(t, client, "POST", CLIENT, start=T0 + 10, http_request_method="POST",
                                url_full="http://settlement/settlements/retry")]),
        request("settlement", [span(t, server, "POST /settlements/retry", SERVER, parent=client, start=T0 + 20,
                                    http_route="/settlements/retry", http_request_method="POST",
                                    code_function_name=RETRY)]),
    ]
