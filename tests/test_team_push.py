"""`tenure team push` (issue 31 point 6): a project's shared stores, kept in its own SQLite file,
copied into the team database: everything, readable there, organisation-scope content to the
organisation; a second push copies nothing; a push killed half-way completes when run again, with
nothing doubled."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tenure import Tenure
from tenure.cli import app
from tenure.memories.api import Memories
from tenure.storage import Database
from tenure.team.push import PushRefused
from tests.memory_support import SHOP, ConceptProvider, memories_of

PROJECT = "github.com/acme/shop"
COUNTED = ("memories", "memory_elements", "memory_terms", "memory_embeddings", "memory_links", "memory_events",
           "memory_sessions", "memory_citations", "episodes", "outcomes", "conclusions")
FACTS = 40


@pytest.fixture
def local_project(make_repo, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The SHOP project worked on with its shared stores in its own SQLite file: memories of both
    scopes (one superseded, one linking another), ended sessions with CI outcomes and citations, rules."""
    monkeypatch.setenv("TENURE_ORG", "acme")
    root = make_repo(SHOP, name="shop")
    with Tenure.open(root, discover=False) as t:
        t.index()
        t.memories = m = memories_of(t, provider=ConceptProvider())
        m.remember("the gateway strips headers longer than 8KB", kind="pitfall", title="Header limit",
                   elements=["ApiGateway"])
        m.supersede("Header limit", "the gateway strips headers longer than 16KB")
        m.remember("invoices follow the [[Header limit]] too", elements=["InvoiceWriter"])
        m.remember("all our services retry idempotently", kind="convention", scope="org")
        for n in range(FACTS):
            m.remember(f"fact number{n} about checkout step{n}", elements=["OrderProcessor"])
        for n in range(2):
            session = t.start_session("agent/a", f"change checkout {n}", ["OrderProcessor"])["session"]
            t.episodes.record_tests("exit-code", exit_code=1, failed=[f"tests/test_o.py::t{n}"], session=session)
            t.end_session(session, f"session {n} done", used=[1], outcome="failure", conclusions=[f"lesson {n}"])
        t.rules_store.add("migrations are applied before deploying", "human/sarah")
        t.rules_store.add("all our services log in JSON", "human/sarah", scope="org")
    return root


def _team(monkeypatch: pytest.MonkeyPatch, url: str, project: str = PROJECT) -> None:
    monkeypatch.setenv("TENURE_DATABASE_URL", url)
    monkeypatch.setenv("TENURE_PROJECT", project)


def _counts(db: Database) -> dict[str, int]:
    return {table: db.rows(f"SELECT COUNT(*) FROM {table}")[0][0] for table in COUNTED}


def _contents(t: Tenure) -> list[str]:
    m = memories_of(t, provider=ConceptProvider())
    return sorted(m.describe([r["id"]])[r["id"]]["content"] for r in t.shared.query("SELECT id FROM memories"))


def test_push_copies_everything_readably_and_a_second_push_copies_nothing(
        local_project: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with Tenure.open(local_project, discover=False) as local:
        before, contents = _counts(local.db), _contents(local)
    _team(monkeypatch, postgres_url)
    with Tenure.open(local_project, discover=False) as t:
        assert t.shared is not t.db and _counts(t.shared)["memories"] == 0
        pushed = t.team_push()
        assert _counts(t.shared) == before and pushed["rows"] > 0
        assert _contents(t) == contents
        m = memories_of(t, provider=ConceptProvider())
        [hit] = [h for h in m.recall("gateway header limit")["results"] if h["title"] == "Header limit"]
        assert "16KB" in hit["content"] and m.history(hit["id"])["versions"][0]["content"].endswith("8KB")
        linked = [h for h in m.recall("invoices header")["results"] if h["content"].startswith("invoices")]
        assert linked and linked[0]["links"][0]["memory"] == hit["id"]  # the link follows the new ids
        assert any("log in JSON" in line and "organisation rule" in line for line in t.rules_store.lines())
        again = t.team_push()
        assert again["rows"] == 0 and _counts(t.shared) == before
    # the organisation's memory and rule reach another project of the organisation
    monkeypatch.setenv("TENURE_PROJECT", "github.com/acme/billing")
    with Tenure.open(local_project, discover=False) as other:
        found = memories_of(other, provider=ConceptProvider()).recall("services retry idempotently")["results"]
        assert [h["content"] for h in found] == ["all our services retry idempotently"]
        assert [r["text"] for r in other.rules_store.promoted()] == ["all our services log in JSON"]


def test_a_rule_an_older_tenure_kept_in_plain_text_is_sealed_before_it_is_pushed(
        local_project: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with Tenure.open(local_project, discover=False) as local:  # (as an older tenure wrote it)
        local.db.execute("INSERT INTO rules (kind, key, text, status, source, created_at, changed_at) VALUES"
                         " ('stated', 'stated:old walrusrule 77', 'old walrusrule 77', 'promoted', 'human/bo',"
                         " 'then', 'then')")
        [(rule_id,)] = local.db.rows("SELECT id FROM rules WHERE text = 'old walrusrule 77'")
        local.db.execute("INSERT INTO rule_events (rule_id, at, event, detail, author) VALUES"
                         " (?, 'then', 'demoted', 'walrusreason: we stopped', 'human/bo')", (rule_id,))
        assert "walrusreason: we stopped" in [e["detail"] for e in local.rules_store.explain(rule_id)["events"]]
    _team(monkeypatch, postgres_url)
    with Tenure.open(local_project, discover=False) as t:
        t.team_push()
        for table in ("rules", "rule_events"):
            assert "walrus" not in " ".join(str(r) for r in t.shared.query(f"SELECT * FROM {table}"))
        assert any("old walrusrule 77" in line for line in t.rules_store.lines())
        [pushed] = [r["id"] for r in t.rules_store.list()["rules"] if r["text"] == "old walrusrule 77"]
        assert "walrusreason: we stopped" in [e["detail"] for e in t.rules_store.explain(pushed)["events"]]


KILLED = textwrap.dedent("""
    import os, sys
    from tenure import Tenure
    from tenure.team import push
    push.BATCH = 7
    written = push._write
    batches = []
    def write(*args, **kwargs):
        batches.append(1)
        if len(batches) == 4:
            os._exit(9)  # killed in the middle of the fourth batch of memories, before its commit
        return written(*args, **kwargs)
    push._write = write
    Tenure.open(sys.argv[1], discover=False).team_push()
""")


def test_a_push_killed_half_way_completes_when_run_again_with_nothing_doubled(
        local_project: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with Tenure.open(local_project, discover=False) as local:
        before, contents = _counts(local.db), _contents(local)
    _team(monkeypatch, postgres_url)
    killed = subprocess.run([sys.executable, "-c", KILLED, str(local_project)], capture_output=True, text=True,
                            timeout=300)
    assert killed.returncode == 9, killed.stderr
    with Tenure.open(local_project, discover=False) as t:
        assert 0 < _counts(t.shared)["memories"] < before["memories"]  # whole batches kept, the rest not
        t.team_push()
        assert _counts(t.shared) == before and _contents(t) == contents


def test_a_push_under_another_key_is_refused_before_anything_is_copied(
        local_project: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch, make_repo) -> None:
    _team(monkeypatch, postgres_url)
    other = make_repo(SHOP, name="other-checkout")  # another checkout of the project, with its own key
    with Tenure.open(other, discover=False) as t:
        Memories(t.shared, t.root, provider=None, code=t.db).remember("written with the other checkout's key")
    with Tenure.open(local_project, discover=False) as t, pytest.raises(PushRefused, match="key id"):
        t.team_push()
    with Tenure.open(local_project, discover=False) as t:
        assert t.shared.rows("SELECT COUNT(*) FROM memories")[0][0] == 1


def test_push_without_a_team_database_says_how_to_configure_one(local_project: Path) -> None:
    out = CliRunner().invoke(app, ["team", "push", "--repo", str(local_project)])
    assert out.exit_code != 0 and "TENURE_DATABASE_URL" in out.output


def test_the_cli_pushes_and_says_what(local_project: Path, postgres_url: str,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    _team(monkeypatch, postgres_url)
    first = CliRunner().invoke(app, ["team", "push", "--repo", str(local_project)])
    assert first.exit_code == 0, first.output
    assert "pushed" in first.stdout and "memories" in first.stdout
    second = CliRunner().invoke(app, ["team", "push", "--repo", str(local_project)])
    assert "nothing new to push" in second.stdout
