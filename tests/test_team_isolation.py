"""Many projects in one PostgreSQL database, kept apart by the database itself: row-level security
keyed on the project each connection sets, organisation rows readable by the organisation's projects,
keys per project; a repository cannot choose the server or the project; a server restart loses
nothing confirmed and the pool reconnects by itself."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path

import pytest

from tenure import Tenure
from tenure.config import ConfigError
from tenure.knowledge.store import CODE_CITATION_TABLES
from tenure.memories.checkout_store import ELEMENT_TERMS, ELEMENT_VECTORS
from tenure.memories.store import migrations as memory_migrations
from tenure.storage import DatabaseUnavailable, Migrations, StorageError
from tenure.storage.postgres import PostgresDatabase
from tenure.team.database import team_database
from tenure.team.identity import identify, normalised_remote
from tests.postgres_server import ADMIN

MARKER = "zebra-quartz-7731"  # a word no encrypted byte string will spell
# what a checkout derives from its code: kept in its own database, never in a team's
MOVED = ("knowledge_code_files", "knowledge_code_citations", "knowledge_code_reads", "element_terms", "element_vectors")


def _open(url: str, project: str, org: str | None = None) -> PostgresDatabase:
    db = PostgresDatabase(url, project, org)
    memory_migrations.apply(db)
    return db


def _git_repo(root: Path, remote: str | None) -> Path:
    root.mkdir(parents=True)
    (root / "app.py").write_text("def handler(request):\n    return request\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    if remote:
        subprocess.run(["git", "-C", str(root), "remote", "add", "origin", remote], check=True)
    return root


def test_a_query_without_a_project_filter_sees_nothing_of_another_project(postgres_url: str) -> None:
    a, b = _open(postgres_url, "github.com/acme/shop"), _open(postgres_url, "github.com/acme/billing")
    a.execute("INSERT INTO memory_meta (key, value) VALUES ('project_id', 'shop-id')")
    a.execute("INSERT INTO memories (kind, content, content_key, author, created_at, confirmed_at)"
              " VALUES ('note', ?, 'k1', 'agent', 'now', 'now')", (b"\x01ciphertext",))
    # written as any store writes them: no WHERE on a project anywhere
    assert b.query("SELECT * FROM memories") == []
    assert b.rows("SELECT COUNT(*) FROM memory_meta") == [(0,)]
    b.execute("UPDATE memories SET kind = 'pitfall'")
    b.execute("DELETE FROM memory_meta")
    assert [r["kind"] for r in a.query("SELECT kind FROM memories")] == ["note"]
    assert a.rows("SELECT value FROM memory_meta WHERE key = 'project_id'") == [("shop-id",)]
    # a key is a key per project: the other project has a `project_id` of its own
    b.execute("INSERT INTO memory_meta (key, value) VALUES ('project_id', 'billing-id')")
    assert b.rows("SELECT value FROM memory_meta") == [("billing-id",)]
    with pytest.raises(StorageError, match="row-level security"):  # nor can it write into another's rows
        b.execute("INSERT INTO memory_meta (project, key, value) VALUES ('github.com/acme/shop', 'x', 'y')")


def test_org_scoped_rows_reach_every_project_of_the_org_and_no_other(postgres_url: str) -> None:
    steps = Migrations("demo")

    @steps
    def m001_notes(db) -> None:
        db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)")

    @steps
    def m002_scope(db) -> None:  # as a store adds `--scope org`: a normal migration column
        db.execute("ALTER TABLE notes ADD COLUMN scope TEXT NOT NULL DEFAULT 'project'")

    shop = PostgresDatabase(postgres_url, "shop", "org:acme")
    billing = PostgresDatabase(postgres_url, "billing", "org:acme")
    stranger = PostgresDatabase(postgres_url, "elsewhere", "org:other")
    for db in (shop, billing, stranger):
        steps.apply(db)
    shop.execute("INSERT INTO notes (text, scope) VALUES ('all our services retry idempotently', 'org')")
    shop.execute("INSERT INTO notes (text) VALUES ('the shop caches baskets')")
    assert shop.rows("SELECT project, text FROM notes ORDER BY id") == [
        ("org:acme", "all our services retry idempotently"), ("shop", "the shop caches baskets")]
    assert billing.rows("SELECT text FROM notes") == [("all our services retry idempotently",)]
    assert stranger.rows("SELECT text FROM notes") == []
    no_org = PostgresDatabase(postgres_url, "loner")
    steps.apply(no_org)
    with pytest.raises(StorageError, match="organisation"):
        no_org.execute("INSERT INTO notes (text, scope) VALUES ('x', 'org')")


def test_two_checkouts_of_one_remote_share_memories_and_another_project_sees_none(
        postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TENURE_DATABASE_URL", postgres_url)
    laptop = _git_repo(tmp_path / "laptop", "git@github.com:Acme/Shop.git")
    ci = _git_repo(tmp_path / "ci", "https://token@github.com/acme/shop")
    other = _git_repo(tmp_path / "other", "https://github.com/acme/billing.git")
    with Tenure.open(laptop, discover=False) as t:
        t.index()
        t.memories.remember(f"handler must stay idempotent {MARKER}", elements=["app.handler"])
        assert t.shared.where.startswith("PostgreSQL")
        assert t.team_status()["project"] == "github.com/acme/shop"
    with Tenure.open(ci, discover=False) as t:  # another machine: same project, same key (the key file)
        t.index()
        assert [r["content"] for r in t.memories.recall("idempotent")["results"]] == [
            f"handler must stay idempotent {MARKER}"]
    with Tenure.open(other, discover=False) as t:
        t.index()
        assert t.memories.recall("idempotent")["results"] == []
        assert t.shared.rows("SELECT COUNT(*) FROM memories") == [(0,)]


def test_a_checkout_that_used_a_team_database_opens_on_its_own_file_again(
        postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its file holds what the checkout derives (citations, element terms) with the tables' last shape;
    the shared stores' migrations then run on that same file and must take them as they are."""
    repo = _git_repo(tmp_path / "repo", "git@github.com:acme/shop.git")
    monkeypatch.setenv("TENURE_DATABASE_URL", postgres_url)
    with Tenure.open(repo, discover=False) as t:
        t.index()
    monkeypatch.delenv("TENURE_DATABASE_URL")
    with Tenure.open(repo, discover=False) as t:
        t.index()
        assert t.shared.where == t.db.where
        t.memories.remember(f"handler must stay idempotent {MARKER}", elements=["app.handler"])
        assert t.memories.recall("idempotent")["results"]


def test_a_team_database_made_before_the_move_drops_its_copies_of_what_checkouts_derive(
        postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tables each checkout keeps for itself (its code's citations, its elements' terms and vectors)
    were once made in the shared database too: a migration drops them there, never in a checkout's file
    (without a team database the same migrations run on it)."""
    repo = _git_repo(tmp_path / "repo", "git@github.com:acme/shop.git")
    monkeypatch.setenv("TENURE_DATABASE_URL", postgres_url)
    with Tenure.open(repo, discover=False) as t:
        t.index()
        # as a team database made before the move holds them: with rows, their migrations not yet run
        for statement in (*CODE_CITATION_TABLES, ELEMENT_TERMS, ELEMENT_VECTORS):
            t.shared.execute(statement)
        t.shared.execute("INSERT INTO element_terms (element, fingerprint, terms) VALUES ('app.handler', 'f', 'x')")
        t.shared.execute("DELETE FROM _migrations WHERE name IN"
                         " ('memories:m011_element_tables_leave_the_team_database',"
                         " 'knowledge:m008_code_citations_leave_the_team_database')")
    with Tenure.open(repo, discover=False) as t:
        t.index()
        assert t.memories.recall("handler") and t.knowledge.why("app.handler") is not None
        assert [table for table in MOVED if t.shared.table_exists(table)] == []
        assert [table for table in MOVED if t.db.table_exists(table)] == list(MOVED)
        assert t.db.rows("SELECT COUNT(*) FROM element_terms")[0][0] > 0
    monkeypatch.delenv("TENURE_DATABASE_URL")
    with Tenure.open(repo, discover=False) as t:  # its own file is the shared stores' database: all kept
        t.index()
        assert t.shared.where == t.db.where
        assert [table for table in MOVED if t.shared.table_exists(table)] == list(MOVED)
        assert t.db.rows("SELECT COUNT(*) FROM element_terms")[0][0] > 0


def test_a_vector_search_without_a_project_filter_ranks_only_its_own_projects_vectors(postgres_url: str) -> None:
    import numpy as np

    shop, billing = _open(postgres_url, "github.com/acme/shop"), _open(postgres_url, "github.com/acme/billing")
    for db, count in ((shop, 3), (billing, 2)):
        for n in range(count):
            [(memory_id,)] = db.rows("INSERT INTO memories (kind, content, content_key, author, created_at,"
                                     " confirmed_at) VALUES ('note', ?, ?, 'agent', 'now', 'now') RETURNING id",
                                     (b"\x01ciphertext", f"k{n}"))
            db.execute("INSERT INTO memory_embeddings (memory_id, model, embedding, written) VALUES (?, 'm', ?, ?)",
                       (memory_id, np.full(4, n + 1, dtype=np.float32), n + 1))
    mine = {r[0] for r in billing.rows("SELECT id FROM memories")}
    # pgvector's nearest neighbours, written with no project anywhere: the other project's closer vectors
    # are not among them, and the count is this project's
    nearest = billing.rows("SELECT memory_id, embedding <#> ? AS d FROM memory_embeddings ORDER BY d LIMIT 10",
                           (np.ones(4, dtype=np.float32),))
    assert {m for m, _ in nearest} == mine and len(nearest) == 2
    assert billing.rows("SELECT COUNT(*) FROM memory_embeddings") == [(2,)]
    assert billing.rows("SELECT MAX(embedding[1]) FROM (SELECT embedding::real[] AS embedding"
                        " FROM memory_embeddings) AS v") == [(2.0,)]


def test_no_plaintext_of_a_memory_or_a_rule_reaches_any_table(postgres_server, postgres_url: str, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TENURE_DATABASE_URL", postgres_url)
    monkeypatch.setenv("TENURE_ORG", "acme")
    repo = _git_repo(tmp_path / "repo", "git@github.com:acme/shop.git")
    with Tenure.open(repo, discover=False) as t:
        t.index()
        t.memories.remember(f"{MARKER} lives here", title=f"About {MARKER}", elements=["app.handler"])
        session = t.memories.start_session("agent", task=f"task about {MARKER}")["session"]
        t.memories.end_session(session, f"done with {MARKER}")
        t.rules_store.add(f"the project's rule about {MARKER}", "human/sarah")
        t.rules_store.add(f"the organisation's rule about {MARKER}", "human/sarah", scope="org")
        t.rules_store.add(f"say {MARKER} before pushing", "human/sarah", before="make generate", then="pytest")
        assert sum(MARKER in line for line in t.rules_store.lines()) == 3  # (readable to the project)
        stated = t.rules_store.add(f"rule to demote about {MARKER}", "human/sarah")["rule"]["id"]
        t.rules_store.demote(stated, "human/sarah", reason=f"{MARKER} changed its mind")
        assert f"{MARKER} changed its mind" in [e["detail"] for e in t.rules_store.explain(stated)["events"]]
        tables = t.shared.table_names()
    import psycopg

    admin = postgres_url.replace("tenure_app@", f"{ADMIN}@")  # the superuser reads every row, every project
    with psycopg.connect(admin) as conn:
        for table in tables:
            dumped = conn.execute(f"SELECT string_agg(t::text, ' ') FROM {table} t").fetchone()[0] or ""
            assert MARKER not in dumped, table
            assert MARKER.encode().hex() not in dumped, table


def test_a_role_that_bypasses_row_level_security_is_refused(postgres_url: str) -> None:
    with pytest.raises(StorageError, match="bypasses row-level security"):
        PostgresDatabase(postgres_url.replace("tenure_app@", f"{ADMIN}@"), "shop")


def test_after_a_server_restart_the_pool_reconnects_and_a_statement_in_flight_is_a_clear_error(
        postgres_server, postgres_url: str) -> None:
    db = _open(postgres_url, "shop")
    db.execute("INSERT INTO memory_meta (key, value) VALUES ('before', '1')")
    started, restarted = threading.Event(), threading.Event()

    def restart() -> None:
        started.wait(30)
        postgres_server.restart()
        restarted.set()

    threading.Thread(target=restart).start()
    with pytest.raises(DatabaseUnavailable, match="not confirm"), db.transaction():
        db.execute("INSERT INTO memory_meta (key, value) VALUES ('in flight', '1')")
        started.set()
        restarted.wait(60)
        db.execute("INSERT INTO memory_meta (key, value) VALUES ('after the restart', '1')")
    # the next statement needs no retry of its own: the pool replaced the broken connections
    assert sorted(r[0] for r in db.rows("SELECT key FROM memory_meta")) == ["before"]
    db.execute("INSERT INTO memory_meta (key, value) VALUES ('again', '1')")
    assert sorted(r[0] for r in db.rows("SELECT key FROM memory_meta")) == ["again", "before"]


@pytest.mark.parametrize(("url", "name"), [
    ("git@github.com:Acme/Shop.git", "github.com/acme/shop"),
    ("https://user:token@github.com/acme/shop/", "github.com/acme/shop"),
    ("ssh://git@gitlab.example.com:2222/Team/Repo.git", "gitlab.example.com/Team/Repo"),
    ("/srv/git/shop.git", None),
])
def test_a_remote_is_named_without_scheme_user_port_or_git(url: str, name: str | None) -> None:
    assert normalised_remote(url) == name


def test_a_checkout_whose_remote_is_a_local_path_is_named_by_its_directory_and_says_why(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TENURE_PROJECT", raising=False)
    cloned = identify(_git_repo(tmp_path / "flask", "/srv/git/flask"))  # (a clone of a clone on one disk)
    assert cloned.project == "local/flask" and "'origin' is a local path" in cloned.derived
    alone = identify(_git_repo(tmp_path / "alone", None))
    assert alone.project == "local/alone" and alone.derived.startswith("no git remote")


def test_a_repository_cannot_choose_the_server_nor_the_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TENURE_DATABASE_URL", raising=False)
    monkeypatch.delenv("TENURE_PROJECT", raising=False)
    repo = _git_repo(tmp_path / "hostile", "https://github.com/evil/repo")
    (repo / "tenure.toml").write_text('[team]\ndatabase = "postgresql://collector.evil.example/loot"\n'
                                      'project = "github.com/acme/payments"\n')
    chosen = team_database(repo)
    assert chosen.url is None and "collector.evil.example" in chosen.derived and "allowed_hosts" in chosen.derived
    who = identify(repo)
    assert who.project == "github.com/evil/repo" and "not used" in who.derived
    config = tmp_path / "config" / "tenure" / "config.toml"  # the user's own (XDG_CONFIG_HOME: tmp/config)
    config.parent.mkdir(parents=True)
    config.write_text('[team]\nallowed_hosts = ["collector.evil.example"]\nprojects = ["github.com/acme/payments"]\n')
    assert team_database(repo).url == "postgresql://collector.evil.example/loot"
    assert identify(repo).project == "github.com/acme/payments"
    (repo / "tenure.toml").write_text('[team]\ndatabase = "postgresql://me:pw@collector.evil.example/loot"\n')
    refused = team_database(repo)  # (even from an allowed host: credentials are never the repository's)
    assert refused.url is None and "credentials" in refused.derived and "not used" in refused.derived


def _hostile_and_user_config(tmp_path: Path, team: str) -> tuple[Path, Path]:
    """A repository whose tenure.toml's [team] holds `team`, and the path of the user's config (XDG_CONFIG_HOME:
    tmp/config), its folder made."""
    repo = _git_repo(tmp_path / "hostile", "https://github.com/evil/repo")
    (repo / "tenure.toml").write_text(f"[team]\n{team}\n")
    config = tmp_path / "config" / "tenure" / "config.toml"
    config.parent.mkdir(parents=True)
    return repo, config


def test_allowed_hosts_must_be_a_list_of_hosts_not_a_string_its_host_is_found_in(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TENURE_DATABASE_URL", raising=False)
    repo, config = _hostile_and_user_config(tmp_path, 'database = "postgresql://evil.example/loot"')
    config.write_text('[team]\nallowed_hosts = "db.not-evil.example"\n')  # ("evil.example" in it, as a string)
    with pytest.raises(ConfigError, match=r"config\.toml: \[team\] allowed_hosts must be a list of host names"):
        team_database(repo)
    config.write_text('[team]\nallowed_hosts = ["Evil.Example"]\n')  # (host names: any case)
    assert team_database(repo).url == "postgresql://evil.example/loot"


@pytest.mark.parametrize("named", ["postgresql://db.allowed.example:99999/x", "postgresql://db.allowed.example:x/x",
                                   "postgresql://db.allowed.example:0/x",
                                   "postgresql://db.allowed.example:5432,evil.example/x",
                                   "postgresql://db.allowed.example,evil.example:5432/x"])
def test_a_repositorys_database_with_a_bad_port_or_many_hosts_is_not_used_and_no_crash(
        named: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """urlsplit's port raised ValueError (past 65535, or "5432,evil": libpq's list of hosts) in every command."""
    monkeypatch.delenv("TENURE_DATABASE_URL", raising=False)
    repo = _git_repo(tmp_path / "hostile", "https://github.com/evil/repo")
    (repo / "tenure.toml").write_text(f'[team]\ndatabase = "{named}"\n')
    config = tmp_path / "config" / "tenure" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[team]\nallowed_hosts = ["db.allowed.example", "evil.example"]\n')
    chosen = team_database(repo)
    assert chosen.url is None
    assert chosen.derived.startswith("tenure.toml: [team] database must name one host") and "not used" in chosen.derived



@pytest.mark.parametrize(("setting", "said"), [
    ("database = 3", r"\[team\] database must be a postgresql:// URL, not 3"),
    ('database = "  "', r"\[team\] database must be a postgresql:// URL, not '  '"),
    ('database = "postgresql://me@db.example:0/x"', r"\[team\] database must name a port from 1 to 65535, not 0"),
])
def test_a_database_in_the_user_config_that_is_no_url_or_names_port_0_is_an_error_naming_it(
        setting: str, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `database = 3` was passed over (the shared stores silently stayed in the checkout's file), port 0 kept
    monkeypatch.delenv("TENURE_DATABASE_URL", raising=False)
    repo, config = _hostile_and_user_config(tmp_path, "")
    config.write_text(f"[team]\n{setting}\n")
    with pytest.raises(ConfigError, match=rf"config\.toml: {said}"):
        team_database(repo)
    config.write_text('[team]\ndatabase = "postgresql://me@db.example:5433/x"\n')  # (the user's own: as written)
    assert team_database(repo).url == "postgresql://me@db.example:5433/x"

def test_accepted_projects_must_be_a_list_of_names_not_a_string_a_name_is_found_in(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TENURE_PROJECT", raising=False)
    monkeypatch.delenv("TENURE_ORG", raising=False)
    repo, config = _hostile_and_user_config(tmp_path, 'project = "acme"')
    config.write_text('[team]\nprojects = "github.com/acme/payments"\n')  # ("acme" in it, as a string)
    with pytest.raises(ConfigError, match=r"config\.toml: \[team\] projects must be a list of project names"):
        identify(repo)
    config.write_text('[team]\norg = 3\n')
    with pytest.raises(ConfigError, match=r"config\.toml: \[team\] org must be the organisation's name, not 3"):
        identify(repo)
    config.write_text('[team]\nprojects = ["acme"]\norg = "acme"\n')
    assert (identify(repo).project, identify(repo).org) == ("acme", "org:acme")


def test_team_status_says_which_backend_answers_and_how_the_project_was_named(
        postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from tenure.cli import app

    repo = _git_repo(tmp_path / "repo", "git@github.com:Acme/Shop.git")
    local = json.loads(CliRunner().invoke(app, ["team", "status", "--repo", str(repo), "--json"]).stdout)
    assert (local["backend"], local["answers"], local["project"]) == ("sqlite", True, "github.com/acme/shop")
    assert "git remote 'origin'" in local["derived"] and local["server"].startswith("SQLite")
    monkeypatch.setenv("TENURE_DATABASE_URL", postgres_url)
    monkeypatch.setenv("TENURE_ORG", "acme")
    team = json.loads(CliRunner().invoke(app, ["team", "status", "--repo", str(repo), "--json"]).stdout)
    assert (team["backend"], team["answers"], team["org"]) == ("postgresql", True, "org:acme")
    assert team["server"].startswith("PostgreSQL 18") and "TENURE_DATABASE_URL" in team["chosen"]
    assert "tenure_app@127.0.0.1" in team["database"]
