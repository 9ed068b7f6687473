"""Organisation scope: a fact or rule written once for every project of the organisation, encrypted
with the organisation's own key, labelled as the organisation's wherever it is shown, and said to be
kept locally while the project has no team database."""

from __future__ import annotations

import base64
import os
import stat

import pytest
from typer.testing import CliRunner

from tenure import Tenure
from tenure.cli import app
from tenure.memories import KeyProblem, MemoriesError
from tenure.memories.api import Memories
from tenure.memories.crypto import org_key_file
from tenure.procedural.api import RulesError
from tests.memory_support import ConceptProvider

ORG_FACT = "all our services retry idempotently: quokkaretry 5521"


@pytest.fixture
def acme(shop: Tenure, monkeypatch: pytest.MonkeyPatch) -> Tenure:
    monkeypatch.setenv("TENURE_ORG", "acme")
    return shop


def test_an_org_memory_is_encrypted_with_the_org_key_and_labelled_in_recall_and_briefing(acme: Tenure) -> None:
    m = Memories(acme.db, acme.root, provider=ConceptProvider())
    written = m.remember(ORG_FACT, kind="convention", scope="org")
    path = org_key_file("acme")
    assert path.exists() and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert written["scope"] == "org" and "tenure team push" in written["note"]
    raw = b"".join(p.read_bytes() for p in (acme.root / ".tenure").glob("tenure.db*"))
    assert b"quokkaretry" not in raw
    [row] = acme.db.query("SELECT content, scope FROM memories WHERE id = ?", (written["id"],))
    assert row["scope"] == "org"
    with pytest.raises(KeyProblem):  # the project's key does not open it
        m.cipher().decrypt(row["content"], "content")
    [hit] = m.recall("do services retry idempotently")["results"]
    assert hit["id"] == written["id"] and hit["scope"] == "org"
    text = m.brief("make the payment client retry")["text"]
    assert "[ORG" in text and "quokkaretry" in text


def test_the_same_text_in_project_and_org_scope_stays_two_memories_and_org_writes_dedupe(acme: Tenure) -> None:
    m = Memories(acme.db, acme.root, provider=None)
    mine = m.remember(ORG_FACT)
    org = m.remember(ORG_FACT, scope="org")
    again = m.remember(ORG_FACT, scope="org")
    assert not org["deduplicated"] and org["id"] != mine["id"]
    assert again["deduplicated"] and again["id"] == org["id"]


def test_a_new_version_keeps_its_scope_and_cannot_change_it(acme: Tenure) -> None:
    m = Memories(acme.db, acme.root, provider=None)
    org = m.remember(ORG_FACT, title="Retries", scope="org")
    newer = m.supersede("Retries", "all our services retry idempotently, at most 3 times")
    assert m.get(newer["id"])["scope"] == "org" and m.get("Retries")["id"] == newer["id"]
    with pytest.raises(MemoriesError, match="org scope"):
        m.remember("a project fact", supersedes=newer["id"], scope="project")
    assert m.history(org["id"])["live"] == newer["id"]


def test_without_the_org_key_recall_leaves_org_memories_out_and_says_so(acme: Tenure) -> None:
    m = Memories(acme.db, acme.root, provider=None)
    m.remember(ORG_FACT, scope="org")
    kept = m.remember("the project's own fact about idempotently retrying")["id"]
    org_key_file("acme").unlink()
    fresh = Memories(acme.db, acme.root, provider=None)
    found = fresh.recall("retry idempotently")
    assert [h["id"] for h in found["results"]] == [kept]
    assert "1 organisation-scope memory left out" in found["note"] and "TENURE_ORG_KEY" in found["note"]


def test_a_wrong_org_key_is_refused_before_anything_is_read_or_written(acme: Tenure,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    m = Memories(acme.db, acme.root, provider=None)
    m.remember(ORG_FACT, scope="org")
    monkeypatch.setenv("TENURE_ORG_KEY", base64.b64encode(os.urandom(32)).decode())
    before = acme.db.rows("SELECT COUNT(*) FROM memories")
    with pytest.raises(KeyProblem, match="get the organisation's key from a teammate"):
        Memories(acme.db, acme.root, provider=None).remember("another org fact", scope="org")
    assert acme.db.rows("SELECT COUNT(*) FROM memories") == before


def test_org_scope_without_an_organisation_is_refused_with_how_to_name_one(shop: Tenure) -> None:
    with pytest.raises(MemoriesError, match=r"TENURE_ORG=acme, or `org = \"acme\"` under \[team\]"):
        Memories(shop.db, shop.root, provider=None).remember(ORG_FACT, scope="org")
    assert shop.db.rows("SELECT COUNT(*) FROM memories") == [(0,)]


def test_an_org_rule_is_labelled_and_read_in_every_briefing(acme: Tenure) -> None:
    added = acme.rules_store.add("all our services retry idempotently", "human/sarah", scope="org")
    assert added["rule"]["scope"] == "org" and "tenure team push" in added["note"]
    assert any("organisation rule" in line and "idempotently" in line for line in acme.rules_store.lines())
    assert "organisation rule" in acme.memories.brief("anything")["text"]
    with pytest.raises(RulesError, match="stated in words"):
        acme.rules_store.add(None, "human/sarah", before="make", then="pytest", scope="org")


def test_an_org_rule_is_sealed_with_the_org_key_and_without_it_is_left_out_and_counted(acme: Tenure) -> None:
    acme.rules_store.add("all our services retry idempotently: quokkarule 5521", "human/sarah", scope="org")
    acme.rules_store.add("the shop's own rule: carts expire daily", "human/sarah")
    acme.close()
    raw = b"".join(p.read_bytes() for p in (acme.root / ".tenure").glob("tenure.db*"))
    assert b"quokkarule" not in raw and b"carts expire" not in raw
    org_key_file("acme").unlink()
    with Tenure.open(acme.root, discover=False) as member:  # a member of the project without the org key
        listed = member.rules_store.list()
        assert [r["text"] for r in listed["rules"]] == ["the shop's own rule: carts expire daily"]
        assert listed["unread"] == 1 and "1 organisation rule left out" in listed["note"]
        assert "TENURE_ORG_KEY" in listed["note"]
        lines = member.rules_store.lines()
        assert any("carts expire" in line for line in lines) and "1 organisation rule left out" in lines[-1]
        with pytest.raises(RulesError, match="no organisation key here"):  # nor is a second key made
            member.rules_store.add("all our services log in JSON", "human/sarah", scope="org")
        assert not org_key_file("acme").exists()


@pytest.mark.usefixtures("shared_stores")
def test_the_first_org_memory_after_org_rules_needs_their_key_and_makes_no_second_one(
        acme: Tenure, monkeypatch: pytest.MonkeyPatch) -> None:
    acme.close()
    with Tenure.open(acme.root, discover=False) as owner:  # (opened again: its team connection knows the org now)
        owner.rules_store.add("all our services retry idempotently", "human/sarah", scope="org")
    org_key_file("acme").unlink()
    with Tenure.open(acme.root, discover=False) as member:  # a member of the project without the org key
        with pytest.raises(KeyProblem, match="organisation content is encrypted with its key, and this process "
                                             "has none"):
            member.memories.remember(ORG_FACT, scope="org")
        assert not org_key_file("acme").exists()
        monkeypatch.setenv("TENURE_ORG_KEY", base64.b64encode(os.urandom(32)).decode())
        with pytest.raises(KeyProblem, match="not the one acme's content was written with"), \
                Tenure.open(acme.root, discover=False) as wrong_key:
            wrong_key.memories.remember(ORG_FACT, scope="org")
        assert member.shared.rows("SELECT COUNT(*) FROM memories") == [(0,)]


def test_the_cli_remembers_in_org_scope_and_says_it_is_kept_locally(acme: Tenure) -> None:
    out = CliRunner().invoke(app, ["remember", ORG_FACT, "--scope", "org", "--repo", str(acme.root)])
    assert out.exit_code == 0, out.output
    assert "organisation scope" in out.stdout and "tenure team push" in " ".join(out.stdout.split())


def test_on_the_team_database_an_org_memory_reaches_every_project_of_the_org_and_no_other(
        shop: Tenure, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from tenure.storage.postgres import PostgresDatabase

    monkeypatch.setenv("TENURE_ORG", "acme")
    views = {name: PostgresDatabase(postgres_url, f"github.com/{org}/{name}", f"org:{org}")
             for name, org in (("shop", "acme"), ("billing", "acme"), ("rival", "globex"))}
    try:
        of = {name: Memories(db, shop.root, provider=ConceptProvider(), code=shop.db) for name, db in views.items()}
        written = of["shop"].remember(ORG_FACT, kind="convention", scope="org")
        of["shop"].remember("the shop's own fact: quokkaretry carts are kept for a day")
        assert written["scope"] == "org" and "note" not in written  # (on the team database: no local note)
        [hit] = of["billing"].recall("do services retry idempotently quokkaretry")["results"]
        assert hit["id"] == written["id"] and hit["scope"] == "org" and hit["content"] == ORG_FACT
        assert "[ORG" in of["billing"].brief("make the invoice client retry")["text"]
        monkeypatch.setenv("TENURE_ORG", "globex")
        rival = Memories(views["rival"], shop.root, provider=ConceptProvider(), code=shop.db)
        assert rival.recall("quokkaretry")["results"] == []
        assert views["rival"].query("SELECT id FROM memories") == []  # (no WHERE: the database hides them)
    finally:
        for db in views.values():
            db.close()
