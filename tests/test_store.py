"""The project database: WAL, foreign keys, versioned migrations applied exactly once."""

import sqlite3
import threading
from pathlib import Path

import msgspec
import pytest

from tenure.storage import Database, DatabaseDamaged, DatabaseLocked, Migrations, StorageError, open_database
from tenure.storage.database import insert_rows
from tenure.structural.resolve import EdgeOut, Resolved
from tenure.structural.store import ResolutionWriter, StructuralStore, key_ids


@pytest.fixture
def local_db(tmp_path: Path) -> Database:
    """The checkout's own database (the structural graph lives only there)."""
    return open_database(tmp_path / "t.db")


def test_database_uses_wal_and_foreign_keys(tmp_path: Path) -> None:
    db = open_database(tmp_path / "t.db")
    assert db.query("PRAGMA journal_mode")[0]["journal_mode"] == "wal"
    assert db.query("PRAGMA foreign_keys")[0]["foreign_keys"] == 1


def test_migrations_apply_once_and_record_their_names(db: Database) -> None:
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


def test_a_bulk_write_drops_the_indexes_it_defers_and_builds_them_again_after(tmp_path: Path) -> None:
    db = open_database(tmp_path / "t.db")
    db.execute("CREATE TABLE t (a INTEGER, b INTEGER)")
    db.execute("CREATE INDEX t_a ON t(a)")
    db.execute("CREATE INDEX t_b ON t(b)")

    def indexes() -> list[str]:
        return [r["name"] for r in db.query("SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name")]

    with db.transaction(), db.deferred_indexes("t", keep=("t_a",)):
        assert indexes() == ["t_a"]
        db.executemany("INSERT INTO t (a, b) VALUES (?, ?)", [(n, -n) for n in range(100)])
    assert indexes() == ["t_a", "t_b"]
    assert db.query("SELECT a FROM t INDEXED BY t_b WHERE b = -7") == [{"a": 7}]


def test_a_failing_migration_leaves_nothing_behind(db: Database) -> None:
    steps = Migrations("bad")

    @steps
    def m001_half(db_) -> None:
        db_.execute("CREATE TABLE half (x INTEGER)")
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        steps.apply(db)
    assert not db.table_exists("half")
    assert db.query("SELECT name FROM _migrations") == []


def test_structural_store_creates_its_tables(local_db: Database) -> None:
    db = local_db
    store = StructuralStore(db)
    for table in ("files", "symbols", "edges", "source_edges", "file_facts", "resolution_deps"):
        assert store.db.table_exists(table)


@pytest.mark.parametrize("first_fill", [False, True])
def test_deleting_a_file_cascades_to_its_symbols_and_edges(local_db: Database, first_fill: bool) -> None:
    """... also once a first fill (which checks no foreign keys while it writes) is over."""
    db = local_db
    store = StructuralStore(db)
    with db.first_fill() if first_fill else db.transaction():
        [(file_id,)] = db.rows("INSERT INTO files (path, parse_status, indexed_at) VALUES ('a.py', 'ok', 'now')"
                               " RETURNING id")
        db.execute("INSERT INTO symbols (fqn, name, kind, language, file_id) VALUES ('a.f', 'f', 'function',"
                   " 'python', ?)", (file_id,))
        db.execute("INSERT INTO edges (src_fqn, dst_fqn, relation, tier, file_id) VALUES ('a', 'a.f', 'calls', "
                   "'inferred', ?)", (file_id,))
    assert db.query("PRAGMA foreign_keys")[0]["foreign_keys"] == 1
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


def _database_before_m005(path: Path):
    """A project database as the store left it before m005 (reads in a rowid table, edges_src)."""
    from tenure.structural import store as structural

    db = open_database(path)
    old = Migrations("structural")
    for step in (structural.m001_initial, structural.m002_missing_module_probes, structural.m003_source_edges,
                 structural.m004_resolution_answers):
        old(step)
    old.apply(db)
    return db


def test_an_existing_database_migrates_its_reads_to_the_file_clustered_table(tmp_path: Path) -> None:
    db = _database_before_m005(tmp_path / "t.db")
    [(a,), (b,)] = db.rows("INSERT INTO files (path, parse_status, indexed_at) VALUES ('a.py', 'ok', 'now'),"
                           " ('b.py', 'ok', 'now') RETURNING id")
    db.executemany("INSERT INTO resolution_deps (file_id, key) VALUES (?, ?)",
                   [(a, "mod:b"), (a, "sym:b.f"), (b, "name:g")])
    store = StructuralStore(db)
    assert store.keys_read({"mod:b", "name:g", "sym:nowhere"}) == {a: {"mod:b"}, b: {"name:g"}}
    indexes = {r["name"] for r in db.query("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert "edges_src" not in indexes and "resolution_deps_key" in indexes
    store.delete_file("a.py")  # the file's reads still go with it
    assert store.keys_read({"mod:b", "sym:b.f"}) == {}


def _add_file(store: StructuralStore, path: str) -> int:
    return store.upsert_file({"path": path, "language": "python", "module": path[:-3], "size": 1, "mtime_ns": 1,
                              "content_hash": "h", "parse_status": "ok", "status_detail": "", "indexed_at": "now"})


def _resolved(file_id: int, path: str, edges: list[EdgeOut], deps: set[str], missing: set[str],
              answers: bytes | None) -> Resolved:
    return Resolved(file_id, path, edges, key_ids(deps), msgspec.msgpack.encode(missing), answers)


def _resolution(file_id: int, target: str) -> Resolved:
    edge = EdgeOut(src=f"m{file_id}.f", dst=target, relation="calls", tier="inferred", line=2)
    return _resolved(file_id, f"m{file_id}.py", [edge, edge], {f"sym:{target}"}, {"gone.module"}, b"answers")


def test_the_resolution_writer_writes_every_file_of_every_batch_once(local_db: Database, monkeypatch) -> None:
    db = local_db
    store = StructuralStore(db)
    ids = [_add_file(store, f"m{i}.py") for i in range(5)]
    monkeypatch.setattr(ResolutionWriter, "BATCH_FILES", 2)
    write = store.resolution_writer(update=False)
    for file_id in ids:
        write.add(_resolution(file_id, "lib.g"))
    write.flush()
    edges = store.db.query("SELECT file_id, src_fqn, dst_fqn FROM edges ORDER BY file_id")
    assert edges == [{"file_id": i, "src_fqn": f"m{i}.f", "dst_fqn": "lib.g"} for i in ids]  # duplicates dropped
    assert store.keys_read({"sym:lib.g"}) == {i: {"sym:lib.g"} for i in ids}
    assert store.answers(ids) == dict.fromkeys(ids, b"answers")
    assert store.files_missing({"gone.module"}) == set(ids)
    store.delete_resolutions(ids[:2])  # then written again, as a bulk re-resolution does
    assert store.keys_read({"sym:lib.g"}) == {i: {"sym:lib.g"} for i in ids[2:]}
    assert store.answers(ids[:2]) == {} and store.files_missing({"gone.module"}) == set(ids[2:])


def test_an_update_rewrites_only_the_rows_that_changed(local_db: Database) -> None:
    db = local_db
    store = StructuralStore(db)
    file_id = _add_file(store, "a.py")
    calls = {name: EdgeOut(src="a.f", dst=f"lib.{name}", relation="calls", tier="inferred", line=2) for name in "xyz"}
    write = store.resolution_writer(update=False)
    write.add(_resolved(file_id, "a.py", [calls["x"], calls["y"]], {"sym:lib.x", "sym:lib.y"}, {"gone"}, b"first"))
    write.flush()
    ids_before = dict(store.db.rows("SELECT dst_fqn, id FROM edges"))
    write = store.resolution_writer(update=True)
    write.add(_resolved(file_id, "a.py", [calls["x"], calls["z"]], {"sym:lib.x", "sym:lib.z"}, set(), None))
    write.flush()
    ids_after = dict(store.db.rows("SELECT dst_fqn, id FROM edges"))
    assert set(ids_after) == {"lib.x", "lib.z"} and ids_after["lib.x"] == ids_before["lib.x"]
    assert store.keys_read({"sym:lib.x", "sym:lib.y", "sym:lib.z"}) == {file_id: {"sym:lib.x", "sym:lib.z"}}
    assert store.answers([file_id]) == {} and store.files_missing({"gone"}) == set()


def test_a_verified_file_records_each_read_once_and_adds_the_modules_it_missed(local_db: Database) -> None:
    db = local_db
    store = StructuralStore(db)
    file_id = _add_file(store, "a.py")
    write = store.resolution_writer(update=False)
    write.add(_resolved(file_id, "a.py", [], {"mod:b"}, {"gone"}, b"old"))
    write.flush()
    store.keep_verified({file_id: (b"new", {"mod:b", "sym:b.f"}, {"gone", "also.gone"})})
    assert store.keys_read({"mod:b", "sym:b.f", "mod:c"}) == {file_id: {"mod:b", "sym:b.f"}}
    assert store.db.rows("SELECT COUNT(*) FROM resolution_deps") == [(2,)]
    assert store.answers([file_id]) == {file_id: b"new"}
    assert store.files_missing({"also.gone"}) == {file_id}


def test_keys_are_listed_by_how_many_files_read_them(local_db: Database) -> None:
    db = local_db
    store = StructuralStore(db)
    a, b = _add_file(store, "a.py"), _add_file(store, "b.py")
    write = store.resolution_writer(update=False)
    write.add(_resolved(a, "a.py", [], {"mod:x", "mod:y"}, set(), None))
    write.add(_resolved(b, "b.py", [], {"mod:x", "name:f"}, set(), None))
    write.flush()
    assert store.keys_by_readers(["mod:y", "mod:x", "mod:unread"]) == ["mod:x", "mod:y"]
    assert store.keys_read({"mod:y", "name:f"}) == {a: {"mod:y"}, b: {"name:f"}}


def test_opening_a_migrated_database_does_not_wait_for_another_writer(tmp_path: Path) -> None:
    db = open_database(tmp_path / "t.db")
    StructuralStore(db)  # migrated
    writer = sqlite3.connect(tmp_path / "t.db", isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # another process indexing holds the write lock
    writer.execute("INSERT INTO _migrations VALUES ('other:m001', datetime('now'))")
    opened = threading.Thread(target=lambda: StructuralStore(open_database(tmp_path / "t.db")), daemon=True)
    opened.start()
    opened.join(timeout=10)  # (the lock's busy timeout is 30 s)
    writer.execute("ROLLBACK")
    assert not opened.is_alive()


def test_a_database_a_newer_build_migrated_is_refused_not_written_past(tmp_path: Path) -> None:
    StructuralStore(open_database(tmp_path / "t.db"))
    newer = sqlite3.connect(tmp_path / "t.db")
    newer.execute("INSERT INTO _migrations VALUES ('structural:m999_from_the_future', datetime('now'))")
    newer.commit()
    with pytest.raises(StorageError, match="written by a newer tenure .*m999_from_the_future"):
        StructuralStore(open_database(tmp_path / "t.db"))


def test_many_values_pass_as_one_parameter_to_in_not_in_and_insert(db: Database) -> None:
    db.execute("CREATE TABLE t (n INTEGER, s TEXT)")
    numbers = list(range(5000))  # more than any backend's limit of parameters per statement
    db.executemany("INSERT INTO t (n, s) SELECT ?, value FROM " + db.each + " AS listed",
                   [(n % 2, db.many([f"s{n}"])) for n in numbers])
    assert db.rows(f"SELECT COUNT(*) FROM t WHERE s IN {db.each}", (db.many(f"s{n}" for n in numbers[:4000]),)) \
        == [(4000,)]
    assert db.rows(f"SELECT COUNT(*) FROM t WHERE n = ? AND s NOT IN {db.each}", (1, db.many(["s1", "s3"]))) \
        == [(2498,)]
    assert db.rows(f"SELECT COUNT(*) FROM t WHERE n IN {db.each}", (db.many([]),)) == [(0,)]


def test_an_insert_reads_back_the_ids_it_made(db: Database) -> None:
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT NOT NULL)")
    assert db.rows("INSERT INTO t (s) VALUES ('a'), ('b') RETURNING id") == [(1,), (2,)]
    assert db.execute("INSERT INTO t (s) VALUES ('c')") is None


def test_rows_inserted_many_to_a_statement_keep_their_order_and_values(db: Database) -> None:
    db.execute("CREATE TABLE many_rows (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, note TEXT)")
    rows = [(n, "" if n % 3 else f"note {n}") for n in range(70)]  # two statements of 32 rows, then 6
    with db.transaction():
        insert_rows(db, "INSERT INTO many_rows (n, note) VALUES ", "(?, NULLIF(?, ''))", rows, per=32)
        insert_rows(db, "INSERT INTO many_rows (n, note) VALUES ", "(?, NULLIF(?, ''))", [], per=32)
    assert db.rows("SELECT id, n, note FROM many_rows ORDER BY id") == [
        (n + 1, n, f"note {n}" if n % 3 == 0 else None) for n in range(70)]


def test_many_inserts_read_back_their_ids_in_order_and_none_where_a_conflict_wrote_nothing(db: Database) -> None:
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT NOT NULL UNIQUE)")
    sql = "INSERT INTO t (s) VALUES (?) ON CONFLICT (s) DO NOTHING RETURNING id"
    assert db.insert_many(sql, [("a",), ("b",)]) == [1, 2]
    with db.bulk():
        c, skipped, d = db.insert_many(sql, [("c",), ("a",), ("d",)])
        assert db.insert_many(sql, []) == []
    assert skipped is None and 2 < c < d  # (a server's sequence may have moved past the row not written)
    assert db.rows("SELECT id, s FROM t ORDER BY id") == [(1, "a"), (2, "b"), (c, "c"), (d, "d")]


def test_a_bulk_write_reads_what_it_wrote_and_a_failed_statement_keeps_none_of_it(db: Database) -> None:
    db.execute("CREATE TABLE t (s TEXT NOT NULL UNIQUE)")
    with db.bulk():
        db.execute("INSERT INTO t (s) VALUES ('a')")
        db.executemany("INSERT INTO t (s) VALUES (?)", [("b",), ("c",)])
        assert db.rows("SELECT COUNT(*) FROM t") == [(3,)]  # (a read waits for what was sent before it)
    with pytest.raises(StorageError, match="(?i)UNIQUE"), db.bulk():
        db.execute("INSERT INTO t (s) VALUES ('d')")
        db.execute("INSERT INTO t (s) VALUES ('a')")  # (on a server: said at the latest where the block ends)
        db.execute("INSERT INTO t (s) VALUES ('e')")
    assert db.rows("SELECT s FROM t ORDER BY s") == [("a",), ("b",), ("c",)]
    db.execute("INSERT INTO t (s) VALUES ('f')")  # (the connection is usable again)
    assert db.rows("SELECT COUNT(*) FROM t") == [(4,)]


def test_a_statement_the_database_refuses_is_a_storage_error(db: Database) -> None:
    db.execute("CREATE TABLE t (s TEXT NOT NULL UNIQUE)")
    db.execute("INSERT INTO t (s) VALUES ('a')")
    with pytest.raises(StorageError, match="(?i)UNIQUE"):
        db.execute("INSERT INTO t (s) VALUES ('a')")
    db.execute("INSERT INTO t (s) VALUES ('a') ON CONFLICT DO NOTHING")
    assert db.rows("SELECT COUNT(*) FROM t") == [(1,)]


def test_a_database_another_process_holds_past_the_wait_raises_database_locked(tmp_path: Path) -> None:
    db = open_database(tmp_path / "t.db")
    db.execute("CREATE TABLE t (x INTEGER)")
    db.execute("PRAGMA busy_timeout = 50")
    writer = sqlite3.connect(tmp_path / "t.db", isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(DatabaseLocked, match="locked"), db.transaction():
            db.execute("INSERT INTO t (x) VALUES (1)")
    finally:
        writer.execute("ROLLBACK")
    with db.transaction():  # and nothing is left half-open
        db.execute("INSERT INTO t (x) VALUES (1)")
    assert db.rows("SELECT x FROM t") == [(1,)]


def test_a_file_that_is_not_a_database_raises_database_damaged(tmp_path: Path) -> None:
    (tmp_path / "t.db").write_bytes(b"not a database" * 100)
    with pytest.raises(DatabaseDamaged, match="not a database"):
        open_database(tmp_path / "t.db")


def test_what_a_reader_derives_is_kept_until_any_connection_writes(tmp_path: Path) -> None:
    from tenure.storage import derived

    db, other = open_database(tmp_path / "t.db"), open_database(tmp_path / "t.db")
    db.execute("CREATE TABLE t (x INTEGER)")
    made = []

    def total() -> int:
        made.append(1)
        return sum(r["x"] for r in db.query("SELECT x FROM t"))

    assert (derived(db, "total", total), derived(db, "total", total), len(made)) == (0, 0, 1)
    db.execute("INSERT INTO t VALUES (2)")  # this connection's write
    assert (derived(db, "total", total), len(made)) == (2, 2)
    other.execute("INSERT INTO t VALUES (3)")  # another connection's commit
    assert (derived(db, "total", total), derived(db, "total", total), len(made)) == (5, 5, 3)
    with db.transaction():
        db.execute("UPDATE t SET x = x + 1 WHERE x = 2")  # seen inside the transaction too
        assert derived(db, "total", total) == 6
    with pytest.raises(RuntimeError), db.transaction():  # ... and not kept past a rollback
        db.execute("INSERT INTO t VALUES (100)")
        assert derived(db, "total", total) == 106
        raise RuntimeError
    assert derived(db, "total", total) == 6


def test_what_a_reader_derives_from_part_of_the_data_is_kept_while_that_part_stays(tmp_path: Path) -> None:
    import threading

    from tenure.storage import derived

    db = open_database(tmp_path / "t.db")
    db.execute("CREATE TABLE t (x INTEGER)")
    made = []

    def slow() -> int:
        made.append(1)
        threading.Event().wait(0.05)  # (long enough for the other thread to ask meanwhile)
        return len(made)

    askers = [threading.Thread(target=derived, args=(db, "part", slow), kwargs={"version": 1}) for _ in range(2)]
    for a in askers:
        a.start()
    for a in askers:
        a.join()
    assert len(made) == 1  # two threads asking at once: made once
    db.execute("INSERT INTO t VALUES (1)")  # a write to other data: the caller's version stands
    assert (derived(db, "part", slow, version=1), len(made)) == (1, 1)
    assert (derived(db, "part", slow, version=2), len(made)) == (2, 2)


def test_a_damaged_vector_is_a_damaged_database_not_a_numpy_error(tmp_path: Path) -> None:
    db = open_database(tmp_path / "v.db")
    db.execute("CREATE TABLE v (x VECTOR)")
    db.execute("INSERT INTO v VALUES (?)", (b"\x00\x00\x00\x3f\x01",))
    with pytest.raises(DatabaseDamaged, match="a stored vector is damaged"):
        db.rows("SELECT x FROM v")
    db.close()
