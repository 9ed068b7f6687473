"""The team backend: the shared stores of many projects in one PostgreSQL database (psycopg 3, a
connection pool that replaces connections a server restart broke).

Each `PostgresDatabase` speaks for one project: every connection it takes sets `tenure.project`
(and `tenure.org`), and row-level security (storage/dialect.py) shows it only those rows, whatever
a query's WHERE says. A superuser or a role with BYPASSRLS would see every project: such a role is
refused. Writers of one project queue behind each other as SQLite's do (a transaction takes the
project's advisory lock first), so a store's check-then-write stays one step; schema changes queue
across every project.
"""

from __future__ import annotations

import logging
import struct
import threading
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.adapt import Dumper, Loader
from psycopg.pq import Format
from psycopg.types import TypeInfo
from psycopg.types.string import StrDumper
from psycopg_pool import ConnectionPool, PoolTimeout

from tenure.storage import dialect
from tenure.storage.database import DatabaseDamaged, DatabaseLocked, DatabaseUnavailable, Row, StorageError

CONNECT_TIMEOUT_S = 10
# (the pool's retries, and a pipeline's errors after the first, end in our error: not printed on their own)
logging.getLogger("psycopg").addHandler(logging.NullHandler())
LOCK_TIMEOUT_S = 30  # like SQLite's busy timeout: a writer waits this long for another's lock
POOL_SIZE = 4
SCHEMA_LOCK = 0x7465_6E75  # the advisory lock schema changes take ("tenu")

# SQLSTATE classes and codes (https://www.postgresql.org/docs/current/errcodes-appendix.html) by
# what they mean to a user
_LOCKED = ("40001", "40P01", "55P03", "57014")  # serialization, deadlock, lock not available, timeout
_UNAVAILABLE = ("08", "53", "57P", "58", "25006", "42501", "28")  # connection, resources, shutdown, read-only...
_DAMAGED = ("XX001", "XX002")  # data or index corrupted


def storage_error(exc: Exception, url: str) -> StorageError:
    """psycopg's error as the storage layer's own type."""
    error = _classified(exc, url)
    error.remote = True
    return error


def _classified(exc: Exception, url: str) -> StorageError:
    if isinstance(exc, PoolTimeout):
        return DatabaseUnavailable(f"cannot reach the team database at {redacted(url)} ({exc}): is the server up?")
    code = getattr(exc, "sqlstate", None) or ""
    if code.startswith(_LOCKED):
        return DatabaseLocked(f"the team database is busy ({exc}): try again")
    if code == "42704" and 'type "vector"' in str(exc):
        return StorageError(f"the team database at {redacted(url)} has no pgvector, which holds the memories'"
                            " vectors: an administrator runs `CREATE EXTENSION vector` in it (docs/team.md)")
    if code.startswith(_DAMAGED):
        return DatabaseDamaged(f"the team database reports damaged data: {exc}")
    if code.startswith(_UNAVAILABLE) or (isinstance(exc, psycopg.OperationalError) and not code):
        said = str(exc).strip() or type(exc).__name__
        return DatabaseUnavailable(
            f"the team database at {redacted(url)} did not confirm the statement ({said}):"
            " it was not kept unless a later read shows it (a server restart rolls back what it had not"
            " confirmed); what was confirmed before is kept. Try again: the connection is made anew.")
    return StorageError(str(exc))


def redacted(url: str) -> str:
    """The URL without its password (messages and `team status` show it)."""
    try:
        info = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "(an unreadable database URL)"
    where = f"{info.get('host', 'localhost')}:{info.get('port', 5432)}/{info.get('dbname', '')}"
    return f"postgresql://{info.get('user', '')}@{where}"


class _BoolAsInteger(Dumper):
    """Python booleans as the integers SQLite stores for them (the stores' columns are integers)."""

    oid = psycopg.adapters.types["int8"].oid

    def dump(self, obj: bool) -> bytes:
        return b"1" if obj else b"0"


class _Text(str):
    """A value of `many`: dumped as text, so that a list of them is a text[] (PostgreSQL cannot pick
    `unnest`'s type from an array of unknowns)."""


class _NumericAsNumber(Loader):
    """sum() and avg() return numeric: an int when whole, else a float (SQLite's answer), not Decimal."""

    format = Format.TEXT

    def load(self, data: Any) -> int | float:
        text = bytes(data).decode()
        return int(text) if text.lstrip("-").isdigit() else float(text)


class _VectorDumper(Dumper):
    """A float32 NumPy array as pgvector's binary `vector` (dimensions, an unused word, big-endian floats);
    its oid is the database's, set per connection (`_vector_adapters`)."""

    format = Format.BINARY

    def dump(self, obj: Any) -> bytes:
        vector = obj.astype(">f4")
        return struct.pack(">HH", len(vector), 0) + vector.tobytes()


class _VectorLoader(Loader):
    """pgvector's text `[0.1,0.2]` as a float32 array (the shortest decimals that read back as the same floats)."""

    format = Format.TEXT

    def load(self, data: Any) -> Any:
        import numpy as np  # (here: a process that reads no vector never loads NumPy)

        return np.fromstring(bytes(data)[1:-1], dtype=np.float32, sep=",")


class _VectorBinaryLoader(Loader):
    format = Format.BINARY

    def load(self, data: Any) -> Any:
        import numpy as np

        return np.frombuffer(bytes(data), dtype=">f4", offset=4).astype(np.float32)


def _vector_adapters(conn: psycopg.Connection) -> None:
    """NumPy arrays in and out of pgvector's `vector` type, when the database has it (without it the
    migration that makes the first vector column says what to do). By the array type's name: NumPy is
    not loaded for it."""
    info = TypeInfo.fetch(conn, "vector")
    if info is None:
        return
    conn.adapters.register_dumper("numpy.ndarray", type("VectorDumper", (_VectorDumper,), {"oid": info.oid}))
    conn.adapters.register_loader(info.oid, _VectorLoader)
    conn.adapters.register_loader(info.oid, _VectorBinaryLoader)


class PostgresDatabase:
    each = dialect._EACH  # (translated into `= ANY(?)` / `<> ALL(?)` around its IN)
    many_projects = True
    ranks_on_server = True  # pgvector ranks a project's vectors exactly in the server (its rows only: RLS)

    def __init__(self, url: str, project: str, org: str | None = None, pool_size: int = POOL_SIZE) -> None:
        self.url, self.project, self.org = url, project, org
        self._local = threading.local()  # the connection of this thread's open transaction
        self._identity: dict[tuple[str, str], bool] = {}
        self._translated: dict[str, str] = {}  # a store's SQL -> PostgreSQL's (until the schema changes)
        try:
            # one connection first: a wrong URL, a refused login or a server that is down fails now, in
            # its own words (the pool would retry in the background until its timeout)
            try:
                psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_S).close()
            except psycopg.OperationalError as exc:
                failed = DatabaseUnavailable(f"cannot connect to the team database at {redacted(url)}: "
                                             f"{' '.join(str(exc).split())}")
                failed.remote = True
                raise failed from exc
            self._pool = ConnectionPool(url, min_size=1, max_size=pool_size, open=True, timeout=CONNECT_TIMEOUT_S,
                                        check=ConnectionPool.check_connection, configure=self._configure,
                                        kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT_S},
                                        name=f"tenure:{project}")
            self._pool.wait(CONNECT_TIMEOUT_S)
        except (psycopg.Error, PoolTimeout) as exc:
            raise storage_error(exc, url) from exc
        self._refuse_bypassing_role()

    def _configure(self, conn: psycopg.Connection) -> None:
        conn.adapters.register_dumper(bool, _BoolAsInteger)
        conn.adapters.register_loader("numeric", _NumericAsNumber)
        conn.adapters.register_dumper(_Text, StrDumper)
        _vector_adapters(conn)
        # (plan_cache_mode: a statement psycopg prepared after its fifth run was planned once for any
        # value; under row-level security over projects of very different sizes that generic plan read a
        # whole project for a range with no row in it: 38 ms of each recall at 100k memories, 1 ms planned
        # for the value)
        conn.execute("SELECT set_config('tenure.project', %s, false), set_config('tenure.org', %s, false),"
                     " set_config('lock_timeout', %s, false), set_config('plan_cache_mode', 'force_custom_plan',"
                     " false)", (self.project, self.org or "", f"{LOCK_TIMEOUT_S}s"))

    def _refuse_bypassing_role(self) -> None:
        role = self.query("SELECT current_user AS name, rolsuper OR rolbypassrls AS bypasses FROM pg_roles"
                          " WHERE rolname = current_user")
        if role and role[0]["bypasses"]:
            self.close()
            raise StorageError(f"the team database role {role[0]['name']!r} bypasses row-level security (a superuser"
                               " or BYPASSRLS): every project's rows would be visible to it. Connect as a role"
                               " without those rights (see docs/team.md)")

    # connections -------------------------------------------------------------------------------
    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection]:
        held = getattr(self._local, "conn", None)
        if held is not None:
            yield held
            return
        try:
            with self._pool.connection() as conn:
                yield conn
        except (psycopg.Error, PoolTimeout) as exc:
            raise storage_error(exc, self.url) from exc

    def _sql(self, sql: str) -> str:
        if (done := self._translated.get(sql)) is None:
            done = self._translated[sql] = dialect.translate(sql, self._is_identity)
        return done

    def _is_identity(self, table: str, column: str) -> bool:
        key = (table.lower(), column.lower())
        if key not in self._identity:
            rows = self._fetch("SELECT a.attidentity <> '' FROM pg_attribute a WHERE a.attrelid = to_regclass(%s)"
                               " AND a.attname = %s", (key[0], key[1]))
            self._identity[key] = bool(rows and rows[0][0])
        return self._identity[key]

    def _fetch(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        """Already PostgreSQL: run and read."""
        with self._connection() as conn:
            try:
                cur = conn.execute(sql, params)
                self._answered()
                return cur.fetchall() if cur.description else []
            except psycopg.Error as exc:
                raise storage_error(exc, self.url) from exc

    def _answered(self) -> None:
        """In a pipeline (`bulk`), the statements sent so far answered: what the last one returned is read
        next (a statement's description is known only once it answered)."""
        if (pipeline := getattr(self._local, "pipeline", None)) is not None:
            pipeline.sync()

    # the Database API --------------------------------------------------------------------------
    def vector(self, values: Any) -> Any:
        return values  # (a NumPy array: `_vector_adapters` dumps it as pgvector's)

    def many(self, values: Iterable[Any]) -> list:
        listed = list(values)
        if listed and isinstance(listed[0], bytes | bytearray):
            raise TypeError("Database.many carries text and integers, not bytes")
        return [_Text(v) for v in listed] if listed and isinstance(listed[0], str) else listed

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        if dialect.is_schema_change(sql):
            self._change_schema(sql)
            return
        with self._connection() as conn:
            try:
                conn.execute(self._sql(sql), params)
            except psycopg.Error as exc:
                raise storage_error(exc, self.url) from exc

    def _change_schema(self, sql: str) -> None:
        statements = dialect.translate_schema(sql, self._is_identity)
        with self.transaction():
            conn = self._local.conn
            try:
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
                for statement in statements:
                    conn.execute(statement)
            except psycopg.Error as exc:
                raise storage_error(exc, self.url) from exc
        self._identity.clear()
        self._translated.clear()

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with self._connection() as conn:
            try:
                with conn.cursor() as cur:
                    cur.executemany(self._sql(sql), list(rows))
            except psycopg.Error as exc:
                raise storage_error(exc, self.url) from exc

    def insert_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> list[Any]:
        listed = list(rows)
        if not listed:
            return []
        with self._connection() as conn:
            try:
                with conn.cursor() as cur:
                    cur.executemany(self._sql(sql), listed, returning=True)
                    ids = []
                    while True:
                        returned = cur.fetchone()
                        ids.append(returned[0] if returned else None)
                        if not cur.nextset():
                            return ids
            except psycopg.Error as exc:
                raise storage_error(exc, self.url) from exc

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        with self._connection() as conn:
            try:
                cur = conn.execute(self._sql(sql), params)
                self._answered()
                columns = [d.name for d in cur.description or ()]
                return [dict(zip(columns, r, strict=True)) for r in cur.fetchall()]
            except psycopg.Error as exc:
                raise storage_error(exc, self.url) from exc

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        return self._fetch(self._sql(sql), params)

    def iter_query(self, sql: str, params: Sequence[Any] = ()) -> Iterator[Row]:
        return iter(self.query(sql, params))

    @contextmanager
    def transaction(self) -> Iterator[None]:
        if getattr(self._local, "writing", False):  # nested: a savepoint
            try:
                with self._local.conn.transaction():
                    yield
            except psycopg.Error as exc:
                raise storage_error(exc, self.url) from exc
            return
        with self.reading():
            conn = self._local.conn
            self._local.writing = True
            try:
                with conn.transaction():
                    # one writer per project at a time, as SQLite's BEGIN IMMEDIATE
                    conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (self.project,))
                    yield
            except psycopg.Error as exc:
                raise storage_error(exc, self.url) from exc
            finally:
                self._local.writing = False

    @contextmanager
    def bulk(self) -> Iterator[None]:
        """A transaction whose statements are sent in a pipeline: psycopg sends each without waiting for
        its answer until one is read (an id `RETURNING` gives, a query), so a batch of inserts costs a few
        round trips instead of one each."""
        with self.transaction():
            if getattr(self._local, "pipeline", None) is not None:
                yield
                return
            try:
                with self._local.conn.pipeline() as pipeline:
                    self._local.pipeline = pipeline
                    try:
                        yield
                    finally:
                        self._local.pipeline = None
            except psycopg.Error as exc:
                raise storage_error(exc, self.url) from exc

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Statements inside run on one connection of the pool, taken once: a recall's dozen reads
        make a dozen round trips, not two dozen."""
        if getattr(self._local, "conn", None) is not None:
            yield
            return
        try:
            with self._pool.connection() as conn:
                self._local.conn = conn
                try:
                    yield
                finally:
                    self._local.conn = None
        except (psycopg.Error, PoolTimeout) as exc:
            raise storage_error(exc, self.url) from exc

    @contextmanager
    def first_fill(self) -> Iterator[None]:
        with self.transaction():
            yield

    @contextmanager
    def small_cache(self) -> Iterator[None]:
        yield

    @contextmanager
    def deferred_indexes(self, *tables: str, keep: Collection[str] = ()) -> Iterator[None]:
        """Nothing deferred: the indexes serve every project sharing the tables."""
        yield

    def table_exists(self, name: str) -> bool:
        return bool(self._fetch("SELECT to_regclass(%s) IS NOT NULL", (name,))[0][0])

    def table_names(self) -> list[str]:
        return [r[0] for r in self._fetch(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE c.relkind IN ('r', 'p') AND n.nspname = current_schema() ORDER BY c.oid")]

    def data_version(self) -> None:
        return None  # another client's commit cannot be seen without a round trip: nothing derived is kept

    @property
    def where(self) -> str:
        return f"PostgreSQL {redacted(self.url)}"

    def server(self) -> str:
        return self._fetch("SELECT 'PostgreSQL ' || current_setting('server_version')")[0][0]

    def close(self) -> None:
        self._pool.close()
