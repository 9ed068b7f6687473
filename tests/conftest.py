from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tenure import Tenure
from tenure.storage import Database, open_database
from tests import postgres_server as postgres_server_module

FIXTURES = Path(__file__).parent / "fixtures"
pytest_plugins = ["tests.memory_support", "tests.incremental_support", "tests.git_support"]


@pytest.fixture(autouse=True)
def _private_key_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Memory keys go to a per-test config directory, never the real ~/.config."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("TENURE_KEY", raising=False)
    monkeypatch.delenv("TENURE_ORG_KEY", raising=False)
    monkeypatch.delenv("TENURE_ORG", raising=False)


TEST_PROJECT = "test-project"  # the project every test's shared stores belong to on PostgreSQL


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[postgres_server_module.Server]:
    """A real PostgreSQL with pgvector on loopback, started once for the test run (tests/postgres_server.py).
    Its template database holds the shared stores' schema, migrated once for the tests' project: each
    test's fresh database is a copy of it."""
    from tenure.episodic.store import migrations as episodic
    from tenure.knowledge.store import migrations as knowledge
    from tenure.memories.store import migrations as memories
    from tenure.procedural.store import migrations as procedural
    from tenure.storage.postgres import PostgresDatabase

    server = postgres_server_module.start()
    template = PostgresDatabase(server.url(postgres_server_module.TEMPLATE), TEST_PROJECT)
    for store in (memories, episodic, procedural, knowledge):
        store.apply(template)
    template.close()
    yield server
    server.close()


@pytest.fixture
def postgres_url(postgres_server: postgres_server_module.Server) -> Iterator[str]:
    """A fresh, empty database of the test server, as the app role (row-level security holds for it)."""
    url = postgres_server.new_database()
    yield url
    postgres_server.drop_database(url)


# Each backend the shared stores run on, as a way to open an empty database for a test; tests of
# SQLite's own behaviour (its pragmas, its files) open it with open_database instead.
BACKENDS = ("sqlite", "postgres")


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(params=BACKENDS)
def shared_stores(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test once with the shared stores (memories, episodes, knowledge, rules) in the
    checkout's SQLite file, once in a real PostgreSQL: a test module of those stores says
    `pytestmark = pytest.mark.usefixtures("shared_stores")`."""
    if request.param == "postgres":
        monkeypatch.setenv("TENURE_DATABASE_URL", request.getfixturevalue("postgres_url"))
        monkeypatch.setenv("TENURE_PROJECT", TEST_PROJECT)
    return request.param


@pytest.fixture
def db(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    """An opened, empty database of each backend (on PostgreSQL: the view of a project that has nothing in it
    yet; the template's rows of TEST_PROJECT, its migrations included, are not this project's)."""
    if backend == "sqlite":
        database: Database = open_database(tmp_path / "tenure.db")
    else:
        from tenure.storage.postgres import PostgresDatabase

        database = PostgresDatabase(request.getfixturevalue("postgres_url"), project="storage-test")
    yield database
    database.close()


@pytest.fixture
def make_repo(tmp_path: Path):
    """Write a dict of {relative path: source} into a fresh directory and return its path."""

    def make(files: dict[str, str | bytes], name: str = "repo") -> Path:
        root = tmp_path / name
        for rel, content in files.items():
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                p.write_bytes(content)
            else:
                p.write_text(content)
        root.mkdir(exist_ok=True)
        return root

    return make


@pytest.fixture
def make_indexed_repo(make_repo):
    """Like make_repo, and the repository is indexed (the handle is closed again)."""

    def make(files: dict[str, str | bytes], name: str = "repo") -> Path:
        root = make_repo(files, name)
        with Tenure.open(root, discover=False) as t:
            t.index()
        return root

    return make


@pytest.fixture
def indexed(tmp_path: Path) -> Iterator:
    """Copy a fixture directory into tmp, index it, yield the open Tenure."""
    opened: list[Tenure] = []

    def make(src: Path) -> Tenure:
        dst = tmp_path / src.name
        shutil.copytree(src, dst)
        t = Tenure.open(dst, discover=False)
        t.index()
        opened.append(t)
        return t

    yield make
    for t in opened:
        t.close()


@pytest.fixture(autouse=True)
def _no_background_enrichment(monkeypatch: pytest.MonkeyPatch) -> None:
    """`tenure index` would start a detached language-server run; tests that test it turn it on."""
    monkeypatch.setenv("TENURE_ENRICH", "off")
    monkeypatch.setenv("TENURE_EMBED_BACKGROUND", "off")  # (nor a detached embedding of the code's elements)
