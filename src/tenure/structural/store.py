"""The structural store: files, symbols, edges and their sources, in the project database.

It owns these tables: every other store reads them through `tenure.namespace.symbols`, which asks
the reading methods below. Its SQL is portable but for what is SQLite's own on purpose: the tables
clustered by file (`WITHOUT ROWID`, m005 and m009: a PostgreSQL schema would declare the same primary
key), and the bulk writes of an index, which ride on the backend's `first_fill` (SQLite: a rollback
journal instead of the WAL) and `deferred_indexes` (SQLite: indexes dropped and built again).
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterable, Iterator

import msgspec

from tenure.storage import Database, Migrations
from tenure.structural.facts import FileFacts, decode_facts, encode_facts, facts_digest
from tenure.structural.memo import Memo
from tenure.structural.naming import qualify
from tenure.structural.resolve import EdgeOut, Resolved, SymbolInfo

migrations = Migrations("structural")
# `resolution_gaps.status`: given up on, resolved partly, read cheaply (vendored code: calls by name only)
GAVE_UP, PARTIAL, READ_CHEAPLY = "gave up", "partial", "read cheaply"
_msgpack = msgspec.msgpack


def gap_names(names: Iterable[str]) -> str:
    """`resolution_gaps.names`: each name on a line of its own, the first and last too, so that a name is
    found by `instr(names, gap_names([name]))` (gaps.gaps_naming), never inside a longer one."""
    return "\n" + "\n".join(names) + "\n"


@migrations
def m001_initial(db: Database) -> None:
    db.execute(
        """CREATE TABLE files (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            language TEXT,
            module TEXT,
            size INTEGER NOT NULL DEFAULT 0,
            mtime_ns INTEGER NOT NULL DEFAULT 0,
            content_hash TEXT,
            parse_status TEXT NOT NULL,   -- ok | partial (syntax errors recovered) | skipped | error
            status_detail TEXT NOT NULL DEFAULT '',
            indexed_at TEXT NOT NULL
        )"""
    )
    db.execute(
        """CREATE TABLE symbols (
            id INTEGER PRIMARY KEY,
            fqn TEXT NOT NULL,
            name TEXT NOT NULL,
            kind TEXT NOT NULL,
            language TEXT NOT NULL,
            file_id INTEGER REFERENCES files(id) ON DELETE CASCADE,
            path TEXT,
            start_line INTEGER,
            end_line INTEGER,
            signature TEXT NOT NULL DEFAULT '',
            fingerprint TEXT NOT NULL DEFAULT '',
            parent_fqn TEXT NOT NULL DEFAULT '',
            module TEXT NOT NULL DEFAULT '',
            bases TEXT NOT NULL DEFAULT '',    -- super types as written, newline separated
            generated INTEGER NOT NULL DEFAULT 0
        )"""
    )
    db.execute("CREATE INDEX symbols_fqn ON symbols(fqn)")
    db.execute("CREATE INDEX symbols_name ON symbols(name)")
    db.execute("CREATE INDEX symbols_file ON symbols(file_id)")
    db.execute(
        """CREATE TABLE edges (
            id INTEGER PRIMARY KEY,
            src_fqn TEXT NOT NULL,
            dst_fqn TEXT,                  -- NULL: target unknown (dynamic, too many candidates)
            dst_name TEXT NOT NULL DEFAULT '',  -- the name called; of a dynamic site, what it may reach
            relation TEXT NOT NULL,
            tier TEXT NOT NULL,            -- tree-sitter's tier; graph.py merges other sources'
            file_id INTEGER REFERENCES files(id) ON DELETE CASCADE,  -- the file that produced it
            path TEXT,
            line INTEGER,
            detail TEXT NOT NULL DEFAULT ''
        )"""
    )
    db.execute("CREATE INDEX edges_dst ON edges(dst_fqn, relation)")
    db.execute("CREATE INDEX edges_src ON edges(src_fqn)")
    db.execute("CREATE INDEX edges_file ON edges(file_id)")
    db.execute("CREATE INDEX edges_dst_name ON edges(dst_name) WHERE dst_fqn IS NULL")
    db.execute(
        """CREATE TABLE edge_sources (
            edge_id INTEGER NOT NULL REFERENCES edges(id) ON DELETE CASCADE,
            source TEXT NOT NULL,          -- tree-sitter, lsp, bytecode, di, trace
            tier TEXT NOT NULL,
            detail TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (edge_id, source)
        )"""
    )
    db.execute(
        """CREATE TABLE file_facts (
            file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
            facts BLOB NOT NULL
        )"""
    )
    db.execute(
        """CREATE TABLE resolution_deps (
            file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            key TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX resolution_deps_key ON resolution_deps(key)")
    db.execute("CREATE INDEX resolution_deps_file ON resolution_deps(file_id)")
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")


@migrations
def m002_missing_module_probes(db: Database) -> None:
    # The modules a file's resolution looked for and did not find, as one msgpack list per file:
    # consulted only when a new module appears.
    db.execute(
        """CREATE TABLE resolution_missing (
            file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
            modules BLOB NOT NULL
        )"""
    )


@migrations
def m003_source_edges(db: Database) -> None:
    # Edges and symbols from sources other than tree-sitter (lsp, bytecode, di, trace). Each source
    # owns its rows per origin (a file it verified, a jar, a beans file, a trace file) and replaces
    # them on its own schedule; they are merged with tree-sitter's edges when read (graph.py), so a
    # re-resolved file never wipes another source's verdicts.
    db.execute(
        """CREATE TABLE source_edges (
            id INTEGER PRIMARY KEY,
            source TEXT NOT NULL,          -- lsp, bytecode, di, trace
            origin TEXT NOT NULL,          -- what this source read to produce it (path, jar, trace file)
            src_fqn TEXT NOT NULL,
            dst_fqn TEXT,                  -- NULL: target unknown (dynamic)
            dst_name TEXT NOT NULL DEFAULT '',
            relation TEXT NOT NULL,
            tier TEXT NOT NULL,
            verdict TEXT NOT NULL DEFAULT 'confirms',  -- confirms | refutes (a stronger source ruled it out)
            path TEXT NOT NULL DEFAULT '',
            line INTEGER NOT NULL DEFAULT 0,           -- 0: not tied to one line
            context TEXT NOT NULL DEFAULT '',          -- profile, service, server: the evidence's scope
            count INTEGER NOT NULL DEFAULT 1,
            first_seen TEXT NOT NULL DEFAULT '',
            last_seen TEXT NOT NULL DEFAULT '',
            detail TEXT NOT NULL DEFAULT ''
        )"""
    )
    db.execute(
        "CREATE UNIQUE INDEX source_edges_key ON source_edges"
        "(source, origin, src_fqn, COALESCE(dst_fqn, ''), relation, line, context, verdict)"
    )
    db.execute("CREATE INDEX source_edges_dst ON source_edges(dst_fqn, relation)")
    db.execute("CREATE INDEX source_edges_src ON source_edges(src_fqn)")
    # Symbols a source contributes that have no source file (generated classes, services, topics).
    db.execute("ALTER TABLE symbols ADD COLUMN origin TEXT NOT NULL DEFAULT ''")
    db.execute("CREATE INDEX symbols_origin ON symbols(origin) WHERE origin != ''")
    # tree-sitter's own rows are implied by `edges`; every other source lives in source_edges.
    db.execute("DROP TABLE edge_sources")


@migrations
def m004_resolution_answers(db: Database) -> None:
    # What a file's resolution asked of other files and a digest of each answer (resolve/answers.py):
    # a dependant whose answers still hold keeps its edges instead of being resolved again.
    db.execute(
        """CREATE TABLE resolution_answers (
            file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
            answers BLOB NOT NULL
        )"""
    )


@migrations
def m005_cheaper_resolution_writes(db: Database) -> None:
    # No query looks edges up by source (what-breaks walks dst_fqn, the rest go by file or dst):
    # the index cost a sort of every edge per full index and 19 MB on Django.
    db.execute("DROP INDEX IF EXISTS edges_src")
    # Reads clustered by file: a file's rows are one range (deletes, "already recorded?" is the key
    # itself, so re-recording does nothing on conflict); the key index then holds (key, file_id) and
    # answers "who read these keys" without visiting the table.
    db.execute(
        """CREATE TABLE resolution_deps_by_file (
            file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            PRIMARY KEY (file_id, key)
        ) WITHOUT ROWID"""
    )
    db.execute("INSERT INTO resolution_deps_by_file (file_id, key) SELECT file_id, key FROM resolution_deps"
               " WHERE true ON CONFLICT DO NOTHING")  # (WHERE true: as in _insert_reads)
    db.execute("DROP TABLE resolution_deps")
    db.execute("ALTER TABLE resolution_deps_by_file RENAME TO resolution_deps")
    db.execute("CREATE INDEX resolution_deps_key ON resolution_deps(key)")


@migrations
def m006_symbols_by_parent(db: Database) -> None:
    # A cold process that resolves a few files looks symbols up one by one (fqn, name, parent)
    # rather than loading all of them: the members of a class or module need their own index.
    db.execute("CREATE INDEX symbols_parent ON symbols(parent_fqn)")


@migrations
def m007_file_analyses(db: Database) -> None:
    # A resolver's own analysis of a module, kept between processes (resolve/python/analysed.py):
    # opaque to the store, and checked by the resolver against what it read before it is used.
    db.execute(
        """CREATE TABLE file_analyses (
            file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
            analysis BLOB NOT NULL
        )"""
    )


@migrations
def m008_facts_digests(db: Database) -> None:
    # A digest of each file's stored facts: a resolver checks what an analysis kept by another
    # process read without loading and decoding those facts (NULL in older rows: computed then).
    db.execute("ALTER TABLE file_facts ADD COLUMN digest BLOB")
    # A digest of reads a check of the file's answers recorded (`keep_verified`): a later process
    # whose check read the same writes nothing. NULL once the file is resolved again.
    db.execute("ALTER TABLE resolution_answers ADD COLUMN recorded BLOB")


def _key_id(key: str) -> int:
    """The id the store keeps a dependency key by: a 64-bit hash of it, not a row in a table of
    names, so writing a file's reads looks nothing up. Two keys of one id would only make a file
    look like a reader of both (checked once more after an edit): never a reader missed."""
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "little", signed=True)


_KEY_IDS = Memo(_key_id)


def key_ids(keys: Iterable[str]) -> list[int]:
    """The ids of these dependency keys, ascending, each once: a file's reads as `ResolutionWriter` writes
    them, made where the file is resolved (a worker's keys are hashed already, and ints travel cheaper)."""
    return sorted(set(map(_KEY_IDS.__getitem__, keys)))


@migrations
def m009_read_keys_as_ids(db: Database) -> None:
    # A file's reads by the ids of their keys (`_key_id`): Django's 660,000 rows take a third of the
    # space of the key strings, and are written faster.
    rows = db.rows("SELECT file_id, key FROM resolution_deps")
    db.execute("DROP TABLE resolution_deps")
    db.execute(
        """CREATE TABLE resolution_deps (
            file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            key_id INTEGER NOT NULL,
            PRIMARY KEY (file_id, key_id)
        ) WITHOUT ROWID"""
    )
    db.executemany("INSERT INTO resolution_deps (file_id, key_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
                   ((file_id, _KEY_IDS[key]) for file_id, key in rows))
    db.execute("CREATE INDEX resolution_deps_key ON resolution_deps(key_id)")


@migrations
def m010_supertype_index(db: Database) -> None:
    # `graph.supertypes` walks a class's own inherits/implements edges by source: without an index it
    # scanned every edge (70 ms on Django's 274,000, several times per what-breaks). Partial: the type
    # edges only, a few thousand rows (the walk names the two relations as literals, so it is used).
    db.execute("CREATE INDEX edges_supertypes ON edges(src_fqn) WHERE relation IN ('inherits', 'implements')")


@migrations
def m011_honesty_resolution_gaps(db: Database) -> None:
    # Files whose calls are not all linked: the resolver gave up (no edges) or resolved them partly (a
    # budget ran out: the edges it got are kept), why, and the names their code references (one a line,
    # between newlines). Answers counting calls of one of those names are lower bounds (structural/gaps.py);
    # an index that resolves a file whole deletes its row.
    db.execute("CREATE TABLE resolution_gaps (file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,"
               " status TEXT NOT NULL, reason TEXT NOT NULL, names TEXT NOT NULL)")


@migrations
def m012_honesty_escapes(db: Database) -> None:
    # Names taken as values, not called (FileFacts.escapes), written with the file's facts: what-breaks
    # names those of its symbol as reasons its count is a lower bound (structural/escapes.py). `scope`:
    # the definition it is taken in; `how`: keyword, argument, item, stored, returned; `receiver`: the
    # object it is a member of, as written ("" for a plain name); `detail`: the text that takes it.
    db.execute("CREATE TABLE escapes (file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,"
               " name TEXT NOT NULL, scope TEXT NOT NULL, line INTEGER NOT NULL, how TEXT NOT NULL,"
               " receiver TEXT NOT NULL, detail TEXT NOT NULL)")
    db.execute("CREATE INDEX escapes_name ON escapes(name)")
    db.execute("CREATE INDEX escapes_file ON escapes(file_id)")


@migrations
def m013_query_indexes(db: Database) -> None:
    # `graph.dynamic_sites` reads the dynamic sites (a few hundred) of every what-breaks: found through
    # `edges_dst` it read all the edges linked to no target (19,000 on Django, the ambiguous ones too),
    # 8 ms a query. Partial: only the unlinked edges; `tier` a column, so a bound tier uses it.
    db.execute("CREATE INDEX edges_unlinked_tier ON edges(tier) WHERE dst_fqn IS NULL")
    # `graph.undecided_dispatch_sites` finds the dispatch candidates of a method by their detail: through
    # `edges_file` it read every edge of the files calling it (4 ms a query on Django). Partial: the
    # candidates only (a query names the same LIKE term, literally, to use it).
    db.execute("CREATE INDEX edges_dispatch ON edges(detail) WHERE detail LIKE 'dispatch of %'")
    # `graph.generated_symbols`: the few symbols compiled code defines (none in most projects), read where
    # a correlated lookup per edge read went (a fifth of what-breaks' reading of 2,500 callers).
    db.execute("CREATE INDEX symbols_generated ON symbols(fqn) WHERE generated != 0")


class SourceEdge(msgspec.Struct, frozen=True):
    """One edge as another source (lsp, bytecode, di, trace) sees it. `verdict="refutes"` says the
    source checked a tree-sitter edge and ruled it out: the edge is kept, with provenance, but no
    longer counted as a dependant."""

    src: str
    dst: str | None
    relation: str
    tier: str
    verdict: str = "confirms"
    path: str = ""
    line: int = 0
    name: str = ""
    context: str = ""
    count: int = 1
    first_seen: str = ""
    last_seen: str = ""
    detail: str = ""


class Symbol(msgspec.Struct, frozen=True):
    """A symbol as it is read to map a location or a name to it: by the sources that do (language
    servers, bytecode, traces) and by the other stores (through `tenure.namespace.symbols`)."""

    fqn: str
    name: str  # the short name (`retry` of `settlement.Service.retry`)
    kind: str  # module, class, method, function, … as the language's extractor names them
    language: str
    path: str  # '' for a symbol no file defines (a service or topic from traces)
    start: int  # its first line, 1-based; 0 when it has none
    end: int  # its last line (inclusive); its first when it has none
    module: str
    parent: str  # the fqn of the definition or module it is declared in
    fingerprint: str  # a digest of its code: changes when the code does (drift)
    generated: bool  # made by a compiler or framework (bytecode), not written in a source file
    bases: tuple[str, ...] = ()  # its super types as written (classes)


# edges one pass reads in the CPU of one name's lookups in `edge_ends` (measured on Django: 43,738 names and
# 277,609 edges, 1.18 s by lookups, 0.34 s by a pass)
EDGES_PER_LOOKUP = 20
PASS_FROM_NAMES = 1000  # fewer names are looked up without counting the edges first (each call's count is a scan)
_SYMBOL_COLUMNS = ("fqn, name, kind, language, path, start_line, end_line, module, parent_fqn, fingerprint, generated,"
                   " bases")


class StructuralStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        migrations.apply(db)

    # what other stores read (through tenure.namespace.symbols) ---------------------------------
    def symbols_named(self, fqns: Iterable[str]) -> list[Symbol]:
        """The symbols of these full names, in the order they were stored (a name defined twice:
        its first definition first)."""
        return self._symbol_records(f"fqn IN {self.db.each} ORDER BY id", (self.db.many(fqns),))

    def symbols_called(self, name: str, path: str | None = None) -> list[Symbol]:
        """The symbols of this short name in the project, or in the file at `path`, in the order stored."""
        if path is None:
            return self._symbol_records("name = ? ORDER BY id", (name,))
        return self._symbol_records("name = ? AND file_id = (SELECT id FROM files WHERE path = ?) ORDER BY id",
                                    (name, path))

    def names_defined(self, names: Iterable[str]) -> set[str]:
        """Which of these short names some symbol has."""
        return {r[0] for r in self.db.rows(f"SELECT DISTINCT name FROM symbols WHERE name IN {self.db.each}",
                                           (self.db.many(names),))}

    def short_names(self) -> list[str]:
        """Every short name some symbol has, once."""
        return [r[0] for r in self.db.rows("SELECT DISTINCT name FROM symbols")]

    def symbols_in(self, paths: Iterable[str]) -> list[Symbol]:
        """The symbols the files at `paths` define, by file, then by their first line (an enclosing
        one first)."""
        return self._symbol_records(f"file_id IN (SELECT id FROM files WHERE path IN {self.db.each})"
                                    " ORDER BY path, start_line, end_line DESC, id", (self.db.many(paths),))

    def every_symbol(self) -> list[Symbol]:
        """Every symbol, in `symbol_order` (by path, then line)."""
        return self._symbol_records(f"1 = 1 ORDER BY {_SYMBOL_ORDER}", ())

    def naming_digest(self) -> str:
        """A digest of how the symbols are named (full name, name, kind, path, module, parent, bases, in
        `symbol_order`), not of their lines or code: it stays when an edit changed only bodies. The one
        the last index run kept (`keep_naming_digest`) while the symbols are as it left them, else
        made from every symbol (Django: 0.15 s)."""
        return self.kept_naming_digest() or self._naming_digest()

    def kept_naming_digest(self) -> str | None:
        """The naming digest kept by the last index run, if no symbol was written since (their count
        and largest row id are as it left them)."""
        kept = self.get_meta(NAMING_META).split()
        if len(kept) == 3 and (int(kept[0]), int(kept[1])) == self.symbols_shape():
            return kept[2]
        return None

    def keep_naming_digest(self, digest: str | None) -> None:
        """Keep the naming digest of the symbols as they are now: `digest` (an index run that renamed
        nothing carries the one before it), or made now."""
        count, last = self.symbols_shape()
        self.set_meta(NAMING_META, f"{count} {last} {digest or self._naming_digest()}")

    def _naming_digest(self) -> str:
        rows = self.db.rows(f"SELECT fqn, name, kind, path, module, parent_fqn, bases FROM symbols"
                            f" ORDER BY {_SYMBOL_ORDER}")
        return hashlib.sha256(repr(rows).encode()).hexdigest()

    def file_namings(self, paths: Collection[str] | None = None) -> dict[str, str]:
        """path -> a digest of how its symbols are named (as `naming_digest`, per file), for the files of
        `paths` (None: every file)."""
        where = "path IS NOT NULL" if paths is None else f"path IN {self.db.each}"
        by_path: dict[str, list[tuple]] = {}
        for row in self.db.rows(f"SELECT path, fqn, name, kind, module, parent_fqn, bases FROM symbols WHERE {where}"
                                f" ORDER BY {_SYMBOL_ORDER}", () if paths is None else (self.db.many(sorted(paths)),)):
            by_path.setdefault(row[0], []).append(row[1:])
        return {path: hashlib.sha256(repr(rows).encode()).hexdigest() for path, rows in by_path.items()}

    def symbols_shape(self) -> tuple[int, int]:
        """(how many symbols, their largest row id): with the index state, a key under which the naming
        digest holds (a write of symbols outside an index run changes one of them)."""
        count, last = self.db.rows("SELECT COUNT(*), COALESCE(MAX(id), 0) FROM symbols")[0]
        return count, last

    def definitions(self, kinds: Iterable[str]) -> list[Symbol]:
        """Every symbol of these kinds that is written in the code (not generated), in the order of
        `symbols_in`."""
        return self._symbol_records(f"generated = 0 AND kind IN {self.db.each}"
                                    " ORDER BY path, start_line, end_line DESC, id", (self.db.many(kinds),))

    def _symbol_records(self, where: str, params: tuple) -> list[Symbol]:
        return [Symbol(fqn, name, kind, language, path or "", start or 0, end or start or 0, module, parent,
                       fingerprint, bool(generated), tuple(b for b in bases.split("\n") if b) if bases else ())
                for fqn, name, kind, language, path, start, end, module, parent, fingerprint, generated, bases
                in self.db.rows(f"SELECT {_SYMBOL_COLUMNS} FROM symbols WHERE {where}", params)]

    def a_callable(self) -> str | None:
        """The full name of one function or method (the first stored), or None when there is none."""
        rows = self.db.rows("SELECT fqn FROM symbols WHERE kind IN ('function', 'method') ORDER BY id LIMIT 1")
        return rows[0][0] if rows else None

    def module_of(self, path: str) -> str | None:
        """The module the file at `path` is part of (None: not indexed, or in no module)."""
        rows = self.db.rows("SELECT module FROM files WHERE path = ?", (path,))
        return (rows[0][0] or None) if rows else None

    def module_files(self, modules: Iterable[str]) -> dict[str, list[str]]:
        """module -> the paths of its indexed files, for those of `modules` that exist."""
        found: dict[str, list[str]] = {}
        for module, path in self.db.rows(f"SELECT module, path FROM files WHERE module IN {self.db.each} ORDER BY path",
                                         (self.db.many(modules),)):
            found.setdefault(module, []).append(path)
        return found

    def modules_like(self, text: str, limit: int) -> list[str]:
        """Module names that contain `text`, in name order."""
        return [m for (m,) in self.db.rows("SELECT DISTINCT module FROM files WHERE module LIKE ? ORDER BY module"
                                           " LIMIT ?", (f"%{text}%", limit))]

    def parsed_files(self) -> list[tuple[str, str | None, str | None, str | None]]:
        """(path, language, module, content hash) of every file the index parsed (with or without
        syntax errors), by path."""
        return self.db.rows("SELECT path, language, module, content_hash FROM files"
                            " WHERE parse_status IN ('ok', 'partial') ORDER BY path")

    # files -------------------------------------------------------------------------------------
    def files(self) -> dict[str, dict]:
        return {r["path"]: r for r in self.db.query("SELECT * FROM files")}

    def file_stamps(self) -> list[tuple[str, int, int, str]]:
        """(path, size, mtime_ns, parse_status) of every indexed file: what tells that it changed on disk."""
        return self.db.rows("SELECT path, size, mtime_ns, parse_status FROM files")

    def files_of_module(self, module: str) -> int:
        """How many indexed files (parsed) make up this module."""
        return self.db.rows("SELECT COUNT(*) FROM files WHERE module = ? AND parse_status IN ('ok', 'partial')",
                            (module,))[0][0]

    def has_files_in(self, languages: list[str]) -> bool:
        """Whether any file of these languages is indexed (parsed or not)."""
        return bool(self.db.rows(f"SELECT 1 FROM files WHERE language IN {self.db.each} LIMIT 1",
                                 (self.db.many(languages),)))

    def upsert_file(self, row: dict) -> int:
        cols = ["language", "module", "size", "mtime_ns", "content_hash", "parse_status", "status_detail", "indexed_at"]
        return self.db.rows(
            f"INSERT INTO files (path, {', '.join(cols)}) VALUES (?, {', '.join('?' * len(cols))})"
            f" ON CONFLICT (path) DO UPDATE SET {', '.join(f'{c} = excluded.{c}' for c in cols)} RETURNING id",
            [row["path"]] + [row[c] for c in cols],
        )[0][0]

    def delete_file(self, path: str) -> None:
        self.db.execute("DELETE FROM files WHERE path = ?", (path,))

    # symbols and facts -------------------------------------------------------------------------
    def replace_symbols(self, file_id: int, symbols: list[SymbolInfo], extra: list[tuple[int, str, str]]) -> None:
        """`extra`: the (end_line, signature, fingerprint) of each symbol, in order (the columns
        SymbolInfo lacks; by position, not by name: two definitions may share one)."""
        self.db.execute("DELETE FROM symbols WHERE file_id = ?", (file_id,))
        self.db.executemany(
            """INSERT INTO symbols (fqn, name, kind, language, file_id, path, start_line, end_line,
               signature, fingerprint, parent_fqn, module, bases)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            [
                (s.fqn, s.name, s.kind, s.language, file_id, s.path, s.line, *more, s.parent, s.module,
                 "\n".join(s.bases))
                for s, more in zip(symbols, extra, strict=True)
            ],
        )

    def all_symbols(self, except_paths: Collection[str] = ()) -> Iterator[SymbolInfo]:
        """Every symbol, but those of the source files `except_paths`, in `symbol_order`."""
        if not except_paths:
            return self._symbols_where(f"1 = 1 ORDER BY {_SYMBOL_ORDER}", ())
        return self._symbols_where(f"(file_id IS NULL OR path NOT IN {self.db.each}) ORDER BY {_SYMBOL_ORDER}",
                                   (self.db.many(sorted(except_paths)),))

    def symbols_with(self, column: str, value: str) -> list[SymbolInfo]:
        """The symbols whose `column` (fqn, name or parent_fqn, each indexed) is `value`, in
        `symbol_order`."""
        assert column in ("fqn", "name", "parent_fqn"), column
        return list(self._symbols_where(f"{column} = ? ORDER BY {_SYMBOL_ORDER}", (value,)))

    def defined_symbols(self) -> list[Symbol]:
        """Every symbol of an indexed file (not those a source added)."""
        return self._symbol_records("file_id IS NOT NULL ORDER BY id", ())

    def symbols_of_file(self, file_id: int) -> list[SymbolInfo]:
        return list(self._symbols_where("file_id = ?", (file_id,)))

    def _symbols_where(self, where: str, params: tuple) -> Iterator[SymbolInfo]:
        for fqn, name, kind, language, path, line, parent, module, bases in self.db.rows(
            f"SELECT fqn, name, kind, language, path, start_line, parent_fqn, module, bases FROM symbols WHERE {where}",
            params,
        ):
            yield SymbolInfo(fqn=fqn, name=name, kind=kind, language=language, path=path or "", line=line or 0,
                             parent=parent, module=module, bases=tuple(b for b in bases.split("\n") if b))

    def fingerprints(self, paths: list[str] | None = None, fqns: list[str] | None = None) -> dict[str, str]:
        """fqn -> content fingerprint, for the symbols of some files or some names."""
        if paths is not None:  # through the files' ids: symbols are indexed by file, not by path
            return dict(self.db.rows(
                "SELECT s.fqn, s.fingerprint FROM files f JOIN symbols s ON s.file_id = f.id"
                f" WHERE f.path IN {self.db.each}", (self.db.many(paths),)))
        return dict(self.db.rows(
            f"SELECT fqn, fingerprint FROM symbols WHERE fqn IN {self.db.each}", (self.db.many(fqns or []),)))

    def first_fingerprints(self, fqns: list[str]) -> dict[str, str]:
        """fqn -> the fingerprint of its first stored definition, for the names that exist, in the order
        they were stored."""
        found: dict[str, str] = {}
        if len(fqns) >= PASS_FROM_NAMES and len(fqns) * 2 > (self.db.rows("SELECT MAX(id) FROM symbols")[0][0] or 0):
            # (most of the symbols, a one-commit history's every one: a pass over them reads 47,000 rows of
            # Django in half the CPU of looking up 43,738 names)
            wanted = set(fqns)
            for fqn, fingerprint in self.db.rows("SELECT fqn, fingerprint FROM symbols ORDER BY id"):
                if fqn in wanted:
                    found.setdefault(fqn, fingerprint)
            return found
        for fqn, fingerprint in self.db.rows(f"SELECT fqn, fingerprint FROM symbols WHERE fqn IN {self.db.each}"
                                             " ORDER BY id", (self.db.many(fqns),)):
            found.setdefault(fqn, fingerprint)
        return found

    def passes_over_edges(self, names: int) -> bool:
        """Whether the edges around this many names are read in one pass over every edge (`known_edges`):
        names by the thousand, a one-commit history's every symbol, for which that is cheaper than two
        index lookups per name and the union's sort."""
        return names >= PASS_FROM_NAMES and names * EDGES_PER_LOOKUP > self.db.rows("SELECT COUNT(*) FROM edges")[0][0]

    def known_edges(self) -> list[tuple[str, str, str]]:
        """(src, dst, relation) of every tree-sitter edge whose target is known, as stored (repeats kept)."""
        return self.db.rows("SELECT src_fqn, dst_fqn, relation FROM edges WHERE dst_fqn IS NOT NULL")

    def edge_ends(self, fqns: list[str]) -> list[tuple[str, str, str]]:
        """(src, dst, relation) of the tree-sitter edges from or to one of `fqns` (targets known), looked up
        by name: for names by the thousand (`passes_over_edges`) a pass over `known_edges` costs less."""
        marks = self.db.many(fqns)
        return self.db.rows(
            f"SELECT src_fqn, dst_fqn, relation FROM edges WHERE src_fqn IN {self.db.each}"
            " AND dst_fqn IS NOT NULL UNION SELECT src_fqn, dst_fqn, relation FROM edges"
            f" WHERE dst_fqn IN {self.db.each}", (marks, marks))

    def edges_among(self, fqns: list[str]) -> list[tuple[str, str, str]]:
        """(src, dst, relation) of the tree-sitter edges with both ends in `fqns`."""
        marks = self.db.many(fqns)
        return self.db.rows(f"SELECT src_fqn, dst_fqn, relation FROM edges WHERE src_fqn IN {self.db.each}"
                            f" AND dst_fqn IN {self.db.each}", (marks, marks))

    def edges_of(self, fqn: str, limit: int) -> list[tuple[str, str, str]]:
        """(src, dst, relation) of at most `limit` tree-sitter edges to `fqn`, and as many from it (targets
        known; found through its file's edges: no index goes by source)."""
        into = self.db.rows("SELECT src_fqn, dst_fqn, relation FROM edges WHERE dst_fqn = ? LIMIT ?", (fqn, limit))
        out = self.db.rows("SELECT e.src_fqn, e.dst_fqn, e.relation FROM edges e WHERE e.file_id IN"
                           " (SELECT file_id FROM symbols WHERE fqn = ?) AND e.src_fqn = ? AND e.dst_fqn IS NOT NULL"
                           " LIMIT ?", (fqn, fqn, limit))
        return list(dict.fromkeys(into + out))

    def save_facts(self, file_id: int, facts: FileFacts) -> None:
        blob = encode_facts(facts)
        self.db.execute(
            "INSERT INTO file_facts (file_id, facts, digest) VALUES (?, ?, ?)"
            " ON CONFLICT (file_id) DO UPDATE SET facts = excluded.facts, digest = excluded.digest",
            (file_id, blob, facts_digest(blob)))
        self.db.execute("DELETE FROM escapes WHERE file_id = ?", (file_id,))
        self.db.executemany(
            "INSERT INTO escapes (file_id, name, scope, line, how, receiver, detail) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(file_id, e.name, qualify(facts.module, e.scope) if e.scope else facts.module, e.line, e.kind, e.receiver,
              e.detail) for e in facts.escapes])

    def facts_digest(self, path: str) -> bytes | None:
        """The digest of a file's stored facts (`facts.facts_digest`), None when it has none."""
        row = self._of_file("file_facts", "digest, CASE WHEN digest IS NULL THEN facts END", path)
        if row is None:
            return None
        digest, blob = row
        return digest if digest is not None else facts_digest(blob)

    def load_facts(self, path: str) -> FileFacts | None:
        row = self._of_file("file_facts", "facts", path)
        if row is None:
            return None
        try:
            return decode_facts(row[0])
        except msgspec.MsgspecError:  # written by another build: as if never stored (it is parsed again)
            return None

    def load_analysis(self, path: str) -> bytes | None:
        row = self._of_file("file_analyses", "analysis", path)
        return row[0] if row is not None else None

    def _of_file(self, table: str, columns: str, path: str) -> tuple | None:
        """`columns` of the row of a per-file table (keyed by file_id) for the file at `path`."""
        rows = self.db.rows(f"SELECT {columns} FROM {table} JOIN files ON files.id = {table}.file_id"
                            " WHERE files.path = ?", (path,))
        return rows[0] if rows else None

    def save_analyses(self, analyses: dict[str, bytes]) -> None:
        """Replace these files' kept analyses (files no longer indexed are skipped)."""
        self.db.executemany(
            "INSERT INTO file_analyses (file_id, analysis) SELECT id, ? FROM files WHERE path = ?"
            " ON CONFLICT (file_id) DO UPDATE SET analysis = excluded.analysis",
            [(blob, path) for path, blob in analyses.items()])

    def drop_analyses(self) -> None:
        self.db.execute("DELETE FROM file_analyses")

    def forget_parse(self, file_id: int) -> None:
        """Drop all that a file's last parse made (it is skipped, or could not be parsed, now): its
        symbols, facts, kept analysis, edges and reads. A clean index would have none of them."""
        for table in ("symbols", "file_facts", "file_analyses", "escapes"):
            self.db.execute(f"DELETE FROM {table} WHERE file_id = ?", (file_id,))
        self.delete_resolutions([file_id])

    def note_unread(self, file_id: int, reason: str, names: Iterable[str]) -> None:
        """A file of a language no resolver read (its extractor failed on it: nesting thousands deep):
        the names its text holds, as those of a file given up on, so that an answer counting calls of
        one of them says it is a lower bound and names the file (gaps.py)."""
        self.db.execute("INSERT INTO resolution_gaps (file_id, status, reason, names) VALUES (?, ?, ?, ?)"
                        " ON CONFLICT (file_id) DO UPDATE SET status = excluded.status, reason = excluded.reason,"
                        " names = excluded.names", (file_id, GAVE_UP, reason, gap_names(sorted(names))))

    # edges -------------------------------------------------------------------------------------
    def delete_resolutions(self, file_ids: list[int]) -> None:
        """Drop what these files' resolution produced and read, before writing it again."""
        ids = self.db.many(file_ids)
        for table in ("edges", "resolution_deps", "resolution_answers", "resolution_missing", "resolution_gaps"):
            self.db.execute(f"DELETE FROM {table} WHERE file_id IN {self.db.each}", (ids,))

    def move_edge_lines(self, file_id: int, moved: dict[int, int]) -> bool:
        """Move the file's edges to new lines (old line -> new line) after an edit that only moved
        code; False, and nothing moved, when an edge sits on a line the mapping does not name."""
        rows = self.db.rows("SELECT id, line FROM edges WHERE file_id = ?", (file_id,))
        if any(line not in moved for _, line in rows):
            return False
        self.db.executemany("UPDATE edges SET line = ? WHERE id = ?",
                            [(moved[line], edge_id) for edge_id, line in rows if moved[line] != line])
        return True

    def resolution_writer(self, update: bool) -> ResolutionWriter:
        """Writes resolved files in batches (`flush` at the end): replacing what they hold (`update`),
        or after `delete_resolutions` of them."""
        return ResolutionWriter(self.db, update)

    def answers(self, file_ids: Iterable[int]) -> dict[int, bytes]:
        return dict(self.db.rows(
            f"SELECT file_id, answers FROM resolution_answers WHERE file_id IN {self.db.each}",
            (self.db.many(sorted(file_ids)),),
        ))

    def keys_by_readers(self, keys: Iterable[str]) -> list[str]:
        """Those of these dependency keys that some file read, the most read first."""
        by_id = {_KEY_IDS[key]: key for key in keys}
        counts = self.db.rows(
            f"SELECT key_id, COUNT(*) FROM resolution_deps WHERE key_id IN {self.db.each} GROUP BY key_id",
            (self.db.many(sorted(by_id)),))
        return [key for _, key in sorted((-count, by_id[key_id]) for key_id, count in counts)]

    def recorded_reads_digests(self, file_ids: Iterable[int]) -> dict[int, bytes]:
        """The digest `keep_verified` last stored of what checking each file read (none: not known)."""
        return dict(self.db.rows(
            "SELECT file_id, recorded FROM resolution_answers"
            f" WHERE file_id IN {self.db.each} AND recorded IS NOT NULL", (self.db.many(sorted(file_ids)),)))

    def keep_verified(self, verified: dict[int, tuple[bytes | None, set[str], set[str]]],
                      digests: dict[int, bytes] | None = None) -> None:
        """Files whose resolution was verified to stand: store their answers where they moved and
        add what the verification read on their behalf to their reads (more keys can only make a
        later update look at a file more often, never miss one); `digests`: of the reads each file
        now holds all of (`recorded_reads_digests`)."""
        self.db.executemany(
            "UPDATE resolution_answers SET answers = ? WHERE file_id = ?",
            [(blob, file_id) for file_id, (blob, _, _) in verified.items() if blob is not None],
        )
        self.db.executemany("UPDATE resolution_answers SET recorded = ? WHERE file_id = ?",
                            [(digest, file_id) for file_id, digest in (digests or {}).items()])
        # (file_id, key) is the primary key: a read already recorded is skipped.
        _insert_reads(self.db, {f: key_ids(keys) for f, (_, keys, _) in verified.items()}, only_new=True)
        grown = {f: missing for f, (_, _, missing) in verified.items() if missing}
        if not grown:
            return
        stored = dict(self.db.rows(
            f"SELECT file_id, modules FROM resolution_missing WHERE file_id IN {self.db.each}",
            (self.db.many(sorted(grown)),),
        ))
        changed = []
        for file_id, names in grown.items():
            before = set(_msgpack.decode(stored.get(file_id, _EMPTY_LIST)))
            if not names <= before:
                changed.append((file_id, _msgpack.encode(sorted(before | names))))
        self.db.executemany(
            "INSERT INTO resolution_missing (file_id, modules) VALUES (?, ?)"
            " ON CONFLICT (file_id) DO UPDATE SET modules = excluded.modules", changed,
        )

    def keys_read(self, keys: set[str]) -> dict[int, set[str]]:
        """file id -> which of `keys` its resolution read: the files a change to them may affect."""
        by_id: dict[int, list[str]] = {}
        for key in keys:
            by_id.setdefault(_KEY_IDS[key], []).append(key)
        found: dict[int, set[str]] = {}
        for file_id, key_id in self.db.rows(
            f"SELECT file_id, key_id FROM resolution_deps WHERE key_id IN {self.db.each}",
            (self.db.many(sorted(by_id)),),
        ):
            found.setdefault(file_id, set()).update(by_id[key_id])
        return found

    def files_missing(self, modules: set[str]) -> set[int]:
        """Files whose resolution looked for one of these modules and did not find it."""
        if not modules:
            return set()
        return {
            file_id for file_id, blob in self.db.rows("SELECT file_id, modules FROM resolution_missing")
            if not modules.isdisjoint(_msgpack.decode(blob))
        }

    # other sources -----------------------------------------------------------------------------
    def replace_source_edges(self, source: str, origin: str, edges: Iterable[SourceEdge]) -> int:
        """Swap in everything `source` now says about `origin`; returns how many edges it holds."""
        with self.db.transaction():
            self.db.execute("DELETE FROM source_edges WHERE source = ? AND origin = ?", (source, origin))
            return self.add_source_edges(source, origin, edges)

    def add_source_edges(self, source: str, origin: str, edges: Iterable[SourceEdge]) -> int:
        """Accumulate: an edge already held for this origin adds its count and widens first/last seen."""
        rows = [
            (source, origin, e.src, e.dst, e.name, e.relation, e.tier, e.verdict, e.path, e.line, e.context,
             e.count, e.first_seen, e.last_seen, e.detail)
            for e in edges
        ]
        with self.db.transaction():
            self.db.executemany(
                """INSERT INTO source_edges (source, origin, src_fqn, dst_fqn, dst_name, relation, tier, verdict, path,
                       line, context, count, first_seen, last_seen, detail)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT (source, origin, src_fqn, COALESCE(dst_fqn, ''), relation, line, context, verdict)
                   DO UPDATE SET count = count + excluded.count, tier = excluded.tier, detail = excluded.detail,
                       first_seen = CASE WHEN first_seen = '' OR excluded.first_seen < first_seen
                                         THEN excluded.first_seen ELSE first_seen END,
                       last_seen = CASE WHEN excluded.last_seen > last_seen THEN excluded.last_seen
                                        ELSE last_seen END""",
                rows,
            )
        return len(rows)

    def delete_source_edges(self, source: str, origins: Iterable[str] | None = None) -> None:
        if origins is None:
            self.db.execute("DELETE FROM source_edges WHERE source = ?", (source,))
            return
        self.db.executemany(
            "DELETE FROM source_edges WHERE source = ? AND origin = ?", [(source, o) for o in origins]
        )

    def replace_source_symbols(self, origin: str, symbols: Iterable[SymbolInfo], generated: bool = False) -> None:
        """Symbols with no source file of their own (`origin` names what they came from, e.g.
        `bytecode:app.jar`, `trace:checkout`), replaced as one set."""
        with self.db.transaction():
            self._replace_source_symbols(origin, symbols, generated)

    def _replace_source_symbols(self, origin: str, symbols: Iterable[SymbolInfo], generated: bool) -> None:
        self.set_meta(NAMING_META, "")  # (the kept naming digest holds for an index run's symbols only)
        self.db.execute("DELETE FROM symbols WHERE origin = ? AND file_id IS NULL", (origin,))
        self.db.executemany(
            """INSERT INTO symbols (fqn, name, kind, language, file_id, path, start_line, end_line, parent_fqn,
               module, bases, generated, origin) VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?)""",
            [
                (s.fqn, s.name, s.kind, s.language, s.path, s.line, s.line, s.parent, s.module, "\n".join(s.bases),
                 int(generated), origin)
                for s in symbols
            ],
        )

    # meta --------------------------------------------------------------------------------------
    def holds_source(self, source: str) -> bool:
        """Whether a source beside tree-sitter (lsp, jvm, di, trace) holds any edge: what an answer could
        read, and so what it must say is missing (one step of the unique index)."""
        return bool(self.db.rows("SELECT 1 FROM source_edges WHERE source = ? LIMIT 1", (source,)))

    def get_meta(self, key: str, default: str = "") -> str:
        rows = self.db.query("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0]["value"] if rows else default

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )


NAMING_META = "naming_digest"  # (symbols count, largest row id, the digest): `keep_naming_digest`
_EDGE_COLUMNS = "src_fqn, dst_fqn, dst_name, relation, tier, file_id, path, line, detail"


class ResolutionWriter:
    """Writes what many files' resolution produced: edges, the keys each read, the answers it got,
    the modules it looked for in vain. Files are gathered in batches, each written with one statement
    per table (a full index of Django writes 264k edges and 660k reads); rows are made as SQLite
    binds them, so no batch of row tuples lives long enough to cost the garbage collector.

    `update`: the files hold rows from their last resolution, replaced by difference: most of a
    re-resolved file's edges and reads come out the same, and every row deleted or inserted costs
    one entry in each index. Otherwise they hold none (a bulk write after `delete_resolutions`)."""

    BATCH_FILES = 256

    def __init__(self, db: Database, update: bool) -> None:
        self.db = db
        self.update = update
        self._batch: list[Resolved] = []

    def add(self, resolved: Resolved) -> None:
        self._batch.append(resolved)
        if len(self._batch) >= self.BATCH_FILES:
            self.flush()

    def flush(self) -> None:
        batch, self._batch = self._batch, []
        if not batch:
            return
        db = self.db
        edges: Iterable[tuple] = ((e.src, e.dst, e.name, e.relation, e.tier, r.file_id, r.path, e.line, e.detail)
                                  for r in batch for e in _dedupe(r.edges))
        deps = {r.file_id: r.deps for r in batch}
        if self.update:
            edges, deps = self._delete_stale(batch, list(edges), deps)
        db.executemany(f"INSERT INTO edges ({_EDGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", edges)
        _insert_reads(db, deps)
        db.executemany(
            "INSERT INTO resolution_answers (file_id, answers) VALUES (?, ?)"
            " ON CONFLICT (file_id) DO UPDATE SET answers = excluded.answers, recorded = NULL",
            ((r.file_id, r.answers) for r in batch if r.answers is not None),
        )
        db.executemany(
            "DELETE FROM resolution_answers WHERE file_id = ?", ((r.file_id,) for r in batch if r.answers is None)
        )
        db.executemany(
            "INSERT INTO resolution_missing (file_id, modules) VALUES (?, ?)"
            " ON CONFLICT (file_id) DO UPDATE SET modules = excluded.modules",
            ((r.file_id, r.missing) for r in batch),
        )
        gaps = [(r.file_id, GAVE_UP if r.failed else READ_CHEAPLY if r.cheap else PARTIAL,
                 r.failed or r.cheap or r.partial, gap_names(r.named))
                for r in batch if r.failed or r.cheap or r.partial]
        if self.update:
            db.executemany("DELETE FROM resolution_gaps WHERE file_id = ?", ((r.file_id,) for r in batch))
        db.executemany("INSERT INTO resolution_gaps (file_id, status, reason, names) VALUES (?, ?, ?, ?)", gaps)

    def _delete_stale(
        self, batch: list[Resolved], edges: list[tuple], deps: dict[int, list[int]]
    ) -> tuple[list[tuple], dict[int, list[int]]]:
        """Delete the batch's stored edges and reads that are not among the new ones (or repeat
        one); returns the new ones not stored yet."""
        ids = (self.db.many([r.file_id for r in batch]),)
        wanted, stored, gone = set(edges), set(), []
        for edge_id, *row in self.db.rows(
            f"SELECT id, {_EDGE_COLUMNS} FROM edges WHERE file_id IN {self.db.each}", ids
        ):
            row_key = tuple(row)
            if row_key in wanted and row_key not in stored:
                stored.add(row_key)
            else:
                gone.append((edge_id,))
        self.db.executemany("DELETE FROM edges WHERE id = ?", gone)
        old: dict[int, set[int]] = {}
        for file_id, key_id in self.db.rows(
            f"SELECT file_id, key_id FROM resolution_deps WHERE file_id IN {self.db.each}", ids
        ):
            old.setdefault(file_id, set()).add(key_id)
        self.db.executemany("DELETE FROM resolution_deps WHERE file_id = ? AND key_id = ?",
                            ((file_id, key_id) for file_id, key_ids in old.items()
                             for key_id in key_ids.difference(deps.get(file_id, ()))))
        return [e for e in edges if e not in stored], {f: [k for k in keys if k not in old.get(f, ())]
                                                       for f, keys in deps.items()}


def _insert_reads(db: Database, reads: dict[int, list[int]], only_new: bool = False) -> None:
    """Rows of `resolution_deps`, a statement per file (its key ids, ascending, as one parameter, `db.many`:
    a third of the cost of binding each row). `only_new`: rows perhaps there already are skipped."""
    # (WHERE true: SQLite would read the ON of an upsert after a bare SELECT as a join's)
    conflict = " WHERE true ON CONFLICT DO NOTHING" if only_new else ""
    db.executemany(f"INSERT INTO resolution_deps (file_id, key_id) SELECT ?, value FROM {db.each} AS listed{conflict}",
                   ((file_id, db.many(key_ids)) for file_id, key_ids in reads.items() if key_ids))


_EMPTY_LIST = _msgpack.encode([])
_SYMBOL_ORDER = "COALESCE(path, ''), COALESCE(start_line, 0), fqn"  # `resolve.symbol_order`


def _dedupe(edges: Iterable[EdgeOut]) -> list[EdgeOut]:
    """One edge per (src, dst, relation, line): two patterns may see the same call."""
    seen: dict[tuple, EdgeOut] = {}
    for e in edges:
        seen.setdefault((e.src, e.dst, e.relation, e.line, e.name if e.dst is None else ""), e)
    return list(seen.values())
