"""`tenure team push`: a project's shared stores copied from its own SQLite file into the team database.

What cannot be derived again is copied: memories with everything that hangs on them (sessions,
leases, links, events, usage, vectors), episodes and outcomes, the rules people stated with their
events (mined ones are mined again from the episodes), and the knowledge store's cache of model
answers (its entities and reports are built again from it by `tenure knowledge build`). What each
checkout derives from its own code (drift events, element vectors and terms) is not.

Generated ids differ between the two databases: each copied row's new id is recorded in the target
(`team_pushed`), in the same transaction as the row, batch by batch. So a push killed half-way
leaves whole batches behind, and the next one goes on from there; a second push copies nothing
again. A row the team database already holds by its natural key (an episode of the same commit, a
rule saying the same thing, a cached answer) is mapped onto it, not copied.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from tenure.refusal import Refusal
from tenure.storage import Database, Migrations, get_value

BATCH = 200  # rows per transaction: what a killed push may have to copy again
Progress = Callable[[str, int, int], None]  # (table, rows done, rows in it)

migrations = Migrations("team")


@migrations
def m001_pushed(db: Database) -> None:
    # (in the team database) the id each pushed row got there, per source database
    db.execute("""CREATE TABLE team_pushed (
        source TEXT NOT NULL,            -- the pushing database (team_meta's `source` there)
        tbl TEXT NOT NULL,
        local_id TEXT NOT NULL,
        remote_id TEXT NOT NULL,
        PRIMARY KEY (source, tbl, local_id)
    )""")
    # (in a project's own database) which database it is, to the team database's record of pushes
    db.execute("CREATE TABLE team_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")


class PushRefused(Refusal):
    """The push cannot start; the message says why and what to do. Nothing was copied."""


@dataclass(frozen=True)
class Table:
    name: str
    id: str | None = None  # its generated id (mapped to the id the row gets in the team database)
    natural: tuple[str, ...] = ()  # a key the team database may already hold the row by: mapped onto it
    refs: dict[str, str] = field(default_factory=dict)  # column -> the table whose ids it holds
    later: tuple[str, ...] = ()  # refs to rows of the same table copied later: filled in afterwards
    order: str | None = None  # a column counting writes (memory_vectors.written): renumbered past the target's
    only: str | None = None  # the rows copied (SQL condition; None: all)


M = "memories"
TABLES = (
    Table(M, id="id", refs={"supersedes": M, "superseded_by": M}, later=("supersedes", "superseded_by")),
    Table("memory_elements", refs={"memory_id": M}),
    Table("memory_terms", refs={"memory_id": M}),
    Table("memory_vectors", refs={"memory_id": M}, order="written"),  # (encrypted: until a process turns them)
    Table("memory_embeddings", refs={"memory_id": M}, order="written"),
    Table("memory_links", id="id", refs={"source_id": M, "target_id": M}),
    Table("memory_events", id="id", refs={"memory_id": M}),
    Table("memory_sessions", natural=("id",), refs={"outcome_memory_id": M}),
    Table("memory_leases"),
    Table("memory_impressions", refs={"memory_id": M}),
    Table("memory_citations", refs={"memory_id": M}),
    Table("episodes", id="id", natural=("kind", "ref"), refs={"part_of": "episodes"}, later=("part_of",)),
    Table("symbol_snapshots", id="id", natural=("fqn", "fingerprint")),
    Table("episode_symbols", refs={"episode_id": "episodes", "snapshot_id": "symbol_snapshots"}),
    Table("episode_files", refs={"episode_id": "episodes"}),
    Table("outcomes", id="id", refs={"episode_id": "episodes"}),
    Table("outcome_tests", refs={"outcome_id": "outcomes"}),
    Table("conclusions", id="id", refs={"episode_id": "episodes"}),
    Table("session_starts", natural=("session_id",)),
    Table("session_steps", id="id", refs={"outcome_id": "outcomes"}),
    Table("epochs", id="id"),
    # mined rules are mined again from the episodes; stated ones (and their events) are people's words
    Table("rules", id="id", natural=("key",), only="kind = 'stated'"),
    Table("rule_events", id="id", refs={"rule_id": "rules"}),
    Table("knowledge_calls", natural=("key",)),
)


def push(local: Database, team: Database, org: str | None, progress: Progress | None = None) -> dict:
    """Copy what `local` holds of TABLES into `team` (both migrated; `org`: the organisation the team
    database files organisation-scope rows under); returns what was copied per table."""
    migrations.apply(local)
    migrations.apply(team)
    _same_key(local, team)
    if org is None and local.rows("SELECT COUNT(*) FROM memories WHERE scope = 'org'")[0][0] + \
            (local.rows("SELECT COUNT(*) FROM rules WHERE scope = 'org'")[0][0] if local.table_exists("rules") else 0):
        raise PushRefused("this project keeps organisation-scope memories or rules, and no organisation is configured "
                          "to carry them to: set TENURE_ORG (or `org` under [team] in your tenure config); nothing "
                          "was copied")
    source = _source(local)
    copied: dict[str, int] = {}
    for table in TABLES:
        if local.table_exists(table.name) and team.table_exists(table.name):
            copied[table.name] = _copy(local, team, table, source, progress)
    return {"source": source, "copied": {t: n for t, n in copied.items() if n},
            "tables": len(copied), "rows": sum(copied.values())}


def _same_key(local: Database, team: Database) -> None:
    """The team database's rows of this project must be readable with the key the local ones were
    written with: the project's key id is carried over, or must already be the same."""
    mine = {k: get_value(local, "memory_meta", k) for k in ("project_id", "key_id")}
    if mine["key_id"] is None:
        return  # nothing was encrypted locally
    theirs = get_value(team, "memory_meta", "key_id")
    if theirs is None:
        with team.transaction():
            for key, value in mine.items():
                team.execute("INSERT INTO memory_meta (key, value) VALUES (?, ?) ON CONFLICT (key)"
                             " DO UPDATE SET value = excluded.value", (key, value))
    elif theirs != mine["key_id"]:
        raise PushRefused(
            f"the team database holds this project's memories under key id {theirs}, and these local ones were "
            f"written with key id {mine['key_id']}: they would not open there. Push from the checkout whose key "
            "the team uses (set TENURE_KEY to that key), or ask whoever holds it; nothing was copied")


def _source(local: Database) -> str:
    local.execute("INSERT INTO team_meta (key, value) VALUES ('source', ?) ON CONFLICT (key) DO NOTHING",
                  (uuid.uuid4().hex,))
    return get_value(local, "team_meta", "source") or ""


def _copy(local: Database, team: Database, table: Table, source: str, progress: Progress | None) -> int:
    where = f" WHERE {table.only}" if table.only else ""
    total = local.rows(f"SELECT COUNT(*) FROM {table.name}{where}")[0][0]
    order = f" ORDER BY {table.id}" if table.id else ""
    # the id each row of this table and of those it refers to got in the team database (kept up to
    # date as rows are written: a failed batch ends the push)
    ids = {name: _mapped(team, source, name) for name in {*table.refs.values(), table.name}}
    done = copied = 0
    for batch in _batches(local.iter_query(f"SELECT * FROM {table.name}{where}{order}")):
        with team.transaction():
            copied += _write(team, table, source, batch, ids)
        done += len(batch)
        if progress:
            progress(table.name, done, total)
    if table.later:
        _fill_later(local, team, table, ids[table.name])
    return copied


def _write(team: Database, table: Table, source: str, batch: list[dict], ids: dict[str, dict[str, str]]) -> int:
    """The batch's rows not pushed before, written with their references mapped; returns how many."""
    written = 0
    base = team.rows(f"SELECT COALESCE(MAX({table.order}), 0) FROM {table.name}")[0][0] if table.order else 0
    mine = ids[table.name]
    for row in batch:
        if table.id and str(row[table.id]) in mine:
            continue  # pushed before
        values = dict(row)
        if any(values[c] is not None and str(values[c]) not in ids[t]
               for c, t in table.refs.items() if c not in table.later):
            continue  # what it hangs on was not pushed (it was not copied: derived, or skipped)
        for column, target in table.refs.items():
            if values[column] is not None:
                values[column] = _as_id(ids[target].get(str(values[column]))) if column not in table.later else None
        if table.order:
            base += 1
            values[table.order] = base
        existing = _existing(team, table, values)
        if existing is not None:
            new_id = existing
        else:
            new_id, inserted = _insert(team, table, [c for c in values if c != table.id], values)
            written += inserted
        if table.id and new_id is not None:
            team.execute("INSERT INTO team_pushed (source, tbl, local_id, remote_id) VALUES (?, ?, ?, ?)",
                         (source, table.name, str(row[table.id]), str(new_id)))
            mine[str(row[table.id])] = str(new_id)
    return written


def _existing(team: Database, table: Table, values: dict) -> object | None:
    """The id (or key) of the row the team database already holds by the natural key; None: none."""
    if not table.natural:
        return None
    found = team.rows(f"SELECT {table.id or table.natural[0]} FROM {table.name} WHERE "
                      + " AND ".join(f"{c} = ?" for c in table.natural), [values[c] for c in table.natural])
    return found[0][0] if found else None


def _insert(team: Database, table: Table, columns: list[str], values: dict) -> tuple[object | None, bool]:
    """(the new row's id, whether a row was written: one with a key may be there already, pushed before)."""
    sql = f"INSERT INTO {table.name} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
    params = [values[c] for c in columns]
    if table.id:
        return team.rows(sql + f" RETURNING {table.id}", params)[0][0], True
    return None, bool(team.rows(sql + " ON CONFLICT DO NOTHING RETURNING 1", params))


def _fill_later(local: Database, team: Database, table: Table, ids: dict[str, str]) -> None:
    """References to rows of the same table, once every row of it is in the team database."""
    assert table.id is not None
    refs = ", ".join(table.later)
    for batch in _batches(local.iter_query(f"SELECT {table.id}, {refs} FROM {table.name}")):
        with team.transaction():
            for row in batch:
                if str(row[table.id]) not in ids:
                    continue
                values = [_as_id(ids.get(str(row[c]))) if row[c] is not None else None for c in table.later]
                team.execute(f"UPDATE {table.name} SET {', '.join(f'{c} = ?' for c in table.later)}"
                             f" WHERE {table.id} = ?", [*values, _as_id(ids[str(row[table.id])])])


def _mapped(team: Database, source: str, table: str) -> dict[str, str]:
    return {local_id: remote_id for local_id, remote_id in team.rows(
        "SELECT local_id, remote_id FROM team_pushed WHERE source = ? AND tbl = ?", (source, table))}


def _as_id(value: str | None) -> int | str | None:
    return int(value) if value is not None and value.lstrip("-").isdigit() else value


def _batches(rows: Iterator[dict]) -> Iterator[list[dict]]:
    batch: list[dict] = []
    for row in rows:
        batch.append(row)
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch
