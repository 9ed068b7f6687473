"""An update of the knowledge store does work in proportion to the change: the communities are
clustered again only when an edge changed, reports are looked at only where a changed entity is, a
short new text is never counted, and a build stopped half-way leaves the rest to the next one. Every
update ends where a build of everything would."""

from __future__ import annotations

from pathlib import Path

import pytest

from tenure import Tenure
from tenure.knowledge import reports, tokens
from tests.knowledge_support import built_store, git

pytestmark = pytest.mark.usefixtures("shared_stores")  # each test on SQLite and on PostgreSQL

DERIVED = {  # what the steps after the merge make: compared with what a build of everything makes
    "entities": "SELECT key, name, type, description, mode, degree FROM knowledge_entities ORDER BY key",
    "relationships": "SELECT source, target, description, weight FROM knowledge_relationships ORDER BY 1, 2",
    "joined": "SELECT entity, fqn, tier FROM knowledge_entity_symbols ORDER BY 1, 2",
    "communities": "SELECT id, level, parent, size FROM knowledge_communities ORDER BY id",
    "reports": "SELECT community, title, summary, findings, rating, mode FROM knowledge_reports ORDER BY 1",
}


@pytest.fixture
def built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TENURE_KNOWLEDGE", "off")  # the index alone: the builds are the ones under test
    with built_store(tmp_path) as (t, _):
        yield t


def derived(t: Tenure) -> dict[str, list[tuple]]:
    return {name: t.shared.rows(sql) for name, sql in DERIVED.items()}


def from_scratch(t: Tenure) -> dict[str, list[tuple]]:
    """What the same store holds once every entity is merged, joined, clustered and reported again."""
    for key in ("merge_all", "touched_all", "communities_stale"):
        t.shared.execute("INSERT INTO knowledge_meta (key, value) VALUES (?, 'true')"
                     " ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key,))
    t.shared.execute("DELETE FROM knowledge_reports")
    t.knowledge.build(embed=False)
    return derived(t)


def test_an_edit_that_changes_no_edge_keeps_the_communities_without_clustering_again(built) -> None:
    adr = built.root / "docs/adr/0002-nightly-reconciliation.md"
    adr.write_text(adr.read_text() + "\nThe team agreed on this in March.\n")
    update = built.knowledge.build(embed=False)
    assert update["steps"]["ingest"]["changed"] == 1
    assert "communities" not in update["steps"]  # Leiden would find the same communities: not run
    assert update["steps"]["reports"]["kept"] == update["steps"]["reports"]["reports"]
    assert derived(built) == from_scratch(built)


def test_a_new_relationship_clusters_again_and_reports_only_around_it(built) -> None:
    adr = built.root / "docs/adr/0002-nightly-reconciliation.md"
    adr.write_text(adr.read_text() + "\n`reconcile` reads `SETTLEMENT_RETRIES` to skip payments still retried.\n")
    update = built.knowledge.build(embed=False)
    assert "communities" in update["steps"]
    made = update["steps"]["reports"]
    assert made["offline"] >= 1 and made["kept"] >= 1  # the communities away from the new edge are not redone
    assert 0 < update["steps"]["join"]["entities_asked"] < update["steps"]["merge"]["entities"]
    assert derived(built) == from_scratch(built)


def test_a_build_stopped_before_the_reports_leaves_them_to_the_next_build(built,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    adr = built.root / "docs/adr/0001-retry-settlements.md"
    adr.write_text(adr.read_text().replace("three attempts", "three attempts (`reconcile` catches the rest)"))
    real = reports.build_reports

    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # (Ctrl-C, or the process killed: the merge's transaction is committed)

    monkeypatch.setattr(reports, "build_reports", killed)
    with pytest.raises(KeyboardInterrupt):
        built.knowledge.build(embed=False)
    monkeypatch.setattr(reports, "build_reports", real)
    resumed = built.knowledge.build(embed=False)
    assert resumed["steps"]["merge"]["described"] == 0  # merged before the stop: not merged again
    assert resumed["steps"]["reports"]["offline"] >= 1  # ... but reported on now
    assert derived(built) == from_scratch(built)


def test_a_new_commit_with_a_short_message_is_read_without_building_the_encoder(built) -> None:
    service = built.root / "settlement/service.py"
    service.write_text(service.read_text().replace("return payment.ok", "return bool(payment.ok)"))
    git(built.root, "commit", "-q", "-am", "Settle returns a bool so reconcile can count failures")
    built.index()
    tokens._encoding.cache_clear()
    update = built.knowledge.build(embed=False)
    assert update["steps"]["ingest"]["new"] == 1
    assert tokens._encoding.cache_info().currsize == 0  # nothing needed a count: the encoder was never built
    stored = built.shared.rows("SELECT c.tokens, c.text FROM knowledge_chunks c JOIN knowledge_documents d"
                           " ON d.id = c.document_id WHERE d.kind = 'commit' ORDER BY d.id DESC LIMIT 1")
    assert stored[0][0] == tokens.NOT_COUNTED and tokens.recorded(*stored[0]) == tokens.count(stored[0][1])
    assert derived(built) == from_scratch(built)


def test_a_commit_to_indexed_code_lists_again_only_the_commits_whose_touched_symbols_changed(built) -> None:
    service = built.root / "settlement/service.py"
    service.write_text(service.read_text() + "\n\ndef audit(batch):\n    return len(batch)\n")
    git(built.root, "commit", "-q", "-am", "Audit counts the batch before reconcile runs")
    built.index()  # (the history maps settlement/service.py onto its symbols again)
    update = built.knowledge.build(embed=False)
    changed_it = len(git(built.root, "log", "--format=%H", "--", "settlement/service.py").split())
    listed = update["steps"]["ingest"]["by_origin"]["history"]
    assert 1 <= listed < changed_it  # the new commit, and not every commit that changed the file
    assert update["steps"]["ingest"]["new"] == 1
    touched = ("SELECT d.key, s.fqn, s.how FROM knowledge_commit_symbols s"
               " JOIN knowledge_documents d ON d.id = s.document_id")
    incremental = sorted(built.shared.rows(touched))
    built.shared.execute("DELETE FROM knowledge_meta WHERE key = 'history_mapping'")  # every commit listed again
    assert built.knowledge.build(embed=False)["steps"]["ingest"]["changed"] == 0
    assert sorted(built.shared.rows(touched)) == incremental


def test_a_renamed_function_relists_the_older_commits_that_touched_it_and_they_name_it_anew(built) -> None:
    service = built.root / "settlement/service.py"
    service.write_text(service.read_text().replace("def reconcile(batch)", "def reconcile_batch(batch)"))
    git(built.root, "commit", "-q", "-am", "Reconcile is reconcile_batch, as the runbook calls it")
    built.index()
    built.knowledge.build(embed=False)
    older = built.shared.rows("SELECT d.key FROM knowledge_commit_symbols s JOIN knowledge_documents d"
                          " ON d.id = s.document_id WHERE s.fqn = 'settlement.service.reconcile_batch'"
                          " AND d.title = 'Add the settlement service'")
    assert older  # the commit that wrote reconcile touched what is now reconcile_batch
    touched = "SELECT d.key, s.fqn, s.how FROM knowledge_commit_symbols s JOIN knowledge_documents d" \
              " ON d.id = s.document_id"
    incremental = sorted(built.shared.rows(touched))
    built.shared.execute("DELETE FROM knowledge_meta WHERE key = 'history_mapping'")  # every commit listed again
    assert built.knowledge.build(embed=False)["steps"]["ingest"]["changed"] == 0
    assert sorted(built.shared.rows(touched)) == incremental
    assert derived(built) == from_scratch(built)


def test_a_new_commit_comes_first_in_the_description_of_the_symbol_it_changed_as_in_a_build_of_everything(
        built) -> None:
    service = built.root / "settlement/service.py"
    for n, message in enumerate(["Retry logs each attempt", "Retry waits between attempts",
                                 "Retry gives up on a closed account"]):
        service.write_text(service.read_text().replace('three times."""', f'three times."""  # {n}'))
        # (a date each: three commits made in one second would tie on their date)
        git(built.root, "commit", "-q", "-am", message, "--date", f"2024-02-{n + 1:02d}T10:00:00")
        built.index()
        built.knowledge.build(embed=False)
    description = built.shared.rows("SELECT description FROM knowledge_entities"
                                " WHERE key = 'settlement.service.SettlementService.retry'")[0][0]
    assert description.split(" … ")[0].endswith("Retry gives up on a closed account")  # the newest first
    assert derived(built) == from_scratch(built)
