"""The model path against an OpenAI-compatible server run on loopback with canned answers: extraction,
summaries, reports; retries (429 with Retry-After, a timeout), a malformed answer repaired, a budget
that stops a build and a build that resumes it; a rebuild that asks nothing; a deleted or edited
document retracting what it gave."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tenure import Tenure
from tests.knowledge_support import fake_model, make_repo, model_settings

pytestmark = pytest.mark.usefixtures("shared_stores")  # each test on SQLite and on PostgreSQL


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path)


def configure(repo: Path, url: str, timeout: float = 5.0) -> None:
    (repo / "tenure.toml").write_text("[knowledge]\nhistory = false\n" + model_settings(url, timeout))


def entity(t: Tenure, key: str) -> dict | None:
    rows = t.shared.query("SELECT * FROM knowledge_entities WHERE key = ?", (key,))
    return rows[0] if rows else None


def test_a_model_build_extracts_summarises_and_reports_then_a_rebuild_makes_no_call(repo: Path) -> None:
    with fake_model() as model, Tenure.open(repo) as t:
        configure(repo, model.url)
        t.index()
        first = t.knowledge.build(embed=False)
        assert first["mode"] == "model" and first["stopped"] is None
        assert first["model"]["calls"] == model.calls > 0
        assert set(first["model"]["steps"]) >= {"extraction", "summarisation", "community reports"}
        retry = entity(t, "SettlementService.retry")
        assert retry["mode"] == "model" and "merged from" in retry["description"]  # several units: summarised
        reports = t.shared.query("SELECT mode FROM knowledge_reports")
        assert any(r["mode"] == "model" for r in reports)
        asked = model.calls
        again = t.knowledge.build(embed=False)
        assert model.calls == asked
        assert again["model"]["calls"] == 0
        why = t.knowledge.why("SettlementService.retry")
        assert why["mode"] == "model"
        assert any(e.get("model_says") for e in why["evidence"])  # beside the passage it rests on
        for item in why["evidence"]:  # every quote is the document's own words
            [text] = t.shared.rows("SELECT text FROM knowledge_chunks WHERE id = ?", (item["source"]["chunk"],))[0]
            assert " ".join(item["quote"].split()) in " ".join(text.split())


def test_429_with_retry_after_is_waited_out_and_a_timeout_is_retried(repo: Path) -> None:
    with fake_model() as model, Tenure.open(repo) as t:
        configure(repo, model.url, timeout=0.5)
        model.fail_with_429 = 1
        model.hang_next = 1
        started = time.monotonic()
        report = t.knowledge.build(embed=False)
        assert report["stopped"] is None
        assert not t.shared.query("SELECT 1 FROM knowledge_chunks WHERE model_state = 'failed'")
        assert time.monotonic() - started >= 1.0  # Retry-After: 1 was honoured
        assert model.calls == report["model"]["calls"] + 2  # the 429 and the hung request were asked again


def test_a_malformed_answer_is_repaired_once_then_the_batch_is_recorded_failed_and_the_build_goes_on(
        repo: Path) -> None:
    with fake_model() as model, Tenure.open(repo) as t:
        configure(repo, model.url)
        model.malformed_next = 1
        t.knowledge.build(embed=False)
        repair = [r for r in model.requests if "could not be read" in r["messages"][-1]["content"]]
        assert len(repair) == 1
        assert not t.shared.query("SELECT 1 FROM knowledge_chunks WHERE model_state = 'failed'")

    with fake_model() as model, Tenure.open(repo) as t:  # a fresh cache key: another server's model
        (repo / "docs/adr/0003-new.md").write_text(
            "# ADR-0003: Batch size\n\n`reconcile` keeps batches of 500 payments: the bank rejects larger files.\n")
        configure(repo, model.url)
        model.malformed_next = 2
        report = t.knowledge.build(embed=False)
        failed = t.shared.query("SELECT model_reason FROM knowledge_chunks WHERE model_state = 'failed'")
        assert failed and "malformed answer twice" in failed[0]["model_reason"]
        assert report["stopped"] is None and report["steps"]["reports"]["reports"] > 0


def test_a_budget_stops_the_build_cleanly_and_the_next_build_resumes_without_asking_twice(repo: Path) -> None:
    with fake_model() as model, Tenure.open(repo) as t:
        configure(repo, model.url)
        stopped = t.knowledge.build(embed=False, max_calls=2)
        assert stopped["stopped"] and "--max-calls 2" in stopped["stopped"]
        assert model.calls == 2
        resumed = t.knowledge.build(embed=False)
        assert resumed["stopped"] is None
        assert resumed["model"]["cached"] == 0 or resumed["model"]["calls"] > 0
        prompts = [str(r["messages"]) for r in model.requests]
        assert len(prompts) == len(set(prompts))  # no call was made twice
        assert t.knowledge.build(embed=False)["model"]["calls"] == 0


def test_a_token_budget_stops_before_the_call_that_would_pass_it(repo: Path) -> None:
    with fake_model() as model, Tenure.open(repo) as t:
        configure(repo, model.url)
        report = t.knowledge.build(embed=False, max_tokens=10)
        assert model.calls == 0 and "--max-tokens 10" in report["stopped"]


def test_deleting_a_document_retracts_its_mentions_descriptions_and_reports(repo: Path) -> None:
    with fake_model() as model, Tenure.open(repo) as t:
        configure(repo, model.url)
        t.knowledge.build(embed=False)
        assert entity(t, "adr-2") is not None
        before = entity(t, "reconcile")["description"]
        reports_before = {r["community"] for r in t.shared.query("SELECT community FROM knowledge_reports")}
        (repo / "docs/adr/0002-nightly-reconciliation.md").unlink()
        report = t.knowledge.build(embed=False)
        assert report["steps"]["ingest"]["removed"] == 1
        assert entity(t, "adr-2") is None  # named only there: gone
        assert not t.shared.query("SELECT 1 FROM knowledge_mentions m JOIN knowledge_chunks c ON c.id = m.chunk_id"
                              " JOIN knowledge_documents d ON d.id = c.document_id WHERE d.path LIKE '%0002%'")
        after = entity(t, "reconcile")
        assert after is not None and after["description"] != before  # described again from what remains
        assert "ADR-0002" not in after["description"]
        reports_after = {r["community"] for r in t.shared.query("SELECT community FROM knowledge_reports")}
        assert reports_after != reports_before  # the communities it was in changed, and their reports
        assert "extraction" not in report["model"]["steps"]  # nothing new to read: not one call


def test_editing_a_document_reads_only_its_changed_chunk_and_summarises_again(repo: Path) -> None:
    with fake_model() as model, Tenure.open(repo) as t:
        configure(repo, model.url)
        t.knowledge.build(embed=False)
        retry_before = entity(t, "SettlementService.retry")
        adr = repo / "docs/adr/0001-retry-settlements.md"
        adr.write_text(adr.read_text().replace("retries three times, because",
                                               "retries three times (#412), because"))
        asked = model.calls
        report = t.knowledge.build(embed=False)
        extraction = report["model"]["steps"]["extraction"]
        assert extraction["calls"] == 1  # the one chunk whose text changed; its other sections kept theirs
        assert report["steps"]["ingest"]["changed"] == 1 and report["steps"]["ingest"]["chunks_added"] == 1
        retry_after = entity(t, "SettlementService.retry")
        assert retry_after["inputs_hash"] != retry_before["inputs_hash"]
        assert report["model"]["steps"]["summarisation"]["calls"] >= 1
        assert model.calls > asked


def test_a_server_that_refuses_the_model_name_fails_the_batches_with_the_setting_to_check(repo: Path) -> None:
    with Tenure.open(repo) as t:
        configure(repo, "http://127.0.0.1:9/v1", timeout=0.2)  # nothing listens on the discard port
        settings = repo / "tenure.toml"
        settings.write_text(settings.read_text().replace("timeout", "max_retries = 0\ntimeout"))
        report = t.knowledge.build(embed=False)
        reasons = {r["model_reason"] for r in t.shared.query("SELECT model_reason FROM knowledge_chunks")}
        assert all("cannot be reached" in r and "url" in r for r in reasons)
        assert report["stopped"] is None
        assert t.knowledge.why("SettlementService.retry")["evidence"]  # the offline links still answer
