"""The project database: WAL, foreign keys, versioned migrations applied exactly once."""

from pathlib import Path

import pytest

from tenure.storage import Migrations, open_database
from tenure.structural.store import StructuralStore


def test_database_uses_wal_and_foreign_keys(tmp_path: Path) -> None:
    db = open_database(tmp_path / "t.db")
    assert db.query("PRAGMA journal_mode")[0]["journal_mode"] == "wal"
    assert db.query("PRAGMA foreign_keys")[0]["foreign_keys"] == 1


def test_migrations_apply_once_and_record_their_names(tmp_path: Path) -> None:
    db = open_database(tmp_path / "t.db")
    steps = Migrations("demo")
    calls = []

    @steps
    def m001_create(db_) -> None:
        calls.append(1)
        db_.execute("CREATE TABLE demo (x INTEGER)")

    assert steps.apply(db) == ["demo:m001_create"]
    assert steps.apply(db) == []
    assert calls == [1]
    assert db.query("SELECT name FROM _migrations") == [{"name": "demo:m001_create"}]


def test_a_failing_migration_leaves_nothing_behind(tmp_path: Path) -> None:
    db = open_database(tmp_path / "t.db")
    steps = Migrations("bad")

    @steps
    def m001_half(db_) -> None:
        db_.execute("CREATE TABLE half (x INTEGER)")
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        steps.apply(db)
    assert not db.table_exists("half")
    assert db.query("SELECT name FROM _migrations") == []


def test_structural_store_creates_its_tables(tmp_path: Path) -> None:
    store = StructuralStore(open_database(tmp_path / "t.db"))
    for table in ("files", "symbols", "edges", "source_edges", "file_facts", "resolution_deps"):
        assert store.db.table_exists(table)


def test_deleting_a_file_cascades_to_its_symbols_and_edges(tmp_path: Path) -> None:
    store = StructuralStore(open_database(tmp_path / "t.db"))
    db = store.db
    file_id = db.execute(
        "INSERT INTO files (path, parse_status, indexed_at) VALUES ('a.py', 'ok', 'now')"
    )
    db.execute("INSERT INTO symbols (fqn, name, kind, language, file_id) VALUES ('a.f', 'f', 'function', 'python', ?)",
               (file_id,))
    db.execute("INSERT INTO edges (src_fqn, dst_fqn, relation, tier, file_id) VALUES ('a', 'a.f', 'calls', "
               "'inferred', ?)", (file_id,))
    store.delete_file("a.py")
    for table in ("symbols", "edges"):
        assert db.query(f"SELECT COUNT(*) AS n FROM {table}")[0]["n"] == 0


MIGRATE_SCRIPT = """
import sys
from tenure.storage import open_database
from tenure.structural.store import StructuralStore
StructuralStore(open_database(sys.argv[1]))
"""


def test_processes_opening_a_fresh_database_at_once_all_succeed(tmp_path: Path) -> None:
    import subprocess
    import sys

    db_path = tmp_path / "race.db"
    procs = [subprocess.Popen([sys.executable, "-c", MIGRATE_SCRIPT, str(db_path)], stderr=subprocess.PIPE)
             for _ in range(4)]
    for p in procs:
        _, stderr = p.communicate(timeout=60)
        assert p.returncode == 0, stderr.decode()
    names = [r["name"] for r in open_database(db_path).query("SELECT name FROM _migrations")]
    assert names == sorted(set(names)) and "structural:m001_initial" in names
