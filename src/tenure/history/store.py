"""The history store's schema (its own migrations): commits, their file changes, the symbols touched."""

from __future__ import annotations

from tenure.storage import Database, Migrations

migrations = Migrations("history")


@migrations
def m001_initial(db: Database) -> None:
    db.execute(
        """CREATE TABLE history_commits (
            id INTEGER PRIMARY KEY,
            sha TEXT NOT NULL UNIQUE,
            parents TEXT NOT NULL,           -- space separated, first parent first
            author_name TEXT NOT NULL,
            author_email TEXT NOT NULL,
            authored_at TEXT NOT NULL,       -- ISO 8601 UTC
            committed_at TEXT NOT NULL,
            subject TEXT NOT NULL,
            subject_key TEXT NOT NULL,       -- the subject without GitHub's "(#123)": what `Revert "…"` quotes
            body TEXT NOT NULL,
            is_merge INTEGER NOT NULL,
            thin_reason TEXT,                -- NULL: the message may carry rationale
            reverts TEXT,                    -- the sha this commit reverts
            reverts_how TEXT                 -- message | content | content-partial (model.py)
        )"""
    )
    db.execute("CREATE INDEX history_commits_time ON history_commits(committed_at)")
    db.execute("CREATE INDEX history_commits_subject ON history_commits(subject_key)")
    db.execute("CREATE INDEX history_commits_reverts ON history_commits(reverts) WHERE reverts IS NOT NULL")
    db.execute(
        """CREATE TABLE history_changes (
            id INTEGER PRIMARY KEY,
            commit_id INTEGER NOT NULL REFERENCES history_commits(id),
            path TEXT NOT NULL,
            old_path TEXT,                   -- renames: the path before
            status TEXT NOT NULL,            -- A | M | D | R
            added INTEGER NOT NULL,
            deleted INTEGER NOT NULL,
            old_blob TEXT NOT NULL,          -- git blob ids (40 zeros: none)
            new_blob TEXT NOT NULL,
            hunks BLOB                       -- msgpack list of gitlog.Hunk; files of indexed languages only
        )"""
    )
    db.execute("CREATE INDEX history_changes_commit ON history_changes(commit_id)")
    db.execute("CREATE INDEX history_changes_into ON history_changes(path, new_blob)")
    db.execute("CREATE INDEX history_changes_from ON history_changes(path, old_blob)")
    db.execute(
        """CREATE TABLE history_symbols (
            change_id INTEGER NOT NULL REFERENCES history_changes(id),
            commit_id INTEGER NOT NULL REFERENCES history_commits(id),
            fqn TEXT NOT NULL,
            path TEXT NOT NULL,              -- the file as the index holds it now
            how TEXT NOT NULL,               -- span | carried | hunk | hunk-ambiguous | file (model.py)
            lines INTEGER NOT NULL,
            PRIMARY KEY (change_id, fqn)
        )"""
    )
    db.execute("CREATE INDEX history_symbols_fqn ON history_symbols(fqn)")
    db.execute("CREATE INDEX history_symbols_commit ON history_symbols(commit_id)")
    db.execute("CREATE INDEX history_symbols_path ON history_symbols(path)")
    db.execute(
        """CREATE TABLE history_mapped (
            path TEXT PRIMARY KEY,           -- an indexed file whose history was mapped onto its symbols
            content_hash TEXT NOT NULL       -- ... against this content of it (files.content_hash)
        )"""
    )
    db.execute(
        """CREATE TABLE history_blame (
            path TEXT PRIMARY KEY,           -- an indexed file, as the index holds it
            commits BLOB NOT NULL            -- msgpack: per line, the history_commits.id that last wrote it
                                             -- (0: the history does not say; -1: an uncommitted edit)
        )"""
    )
    db.execute("CREATE TABLE history_tips (sha TEXT PRIMARY KEY)")  # every commit reachable from one was read
    db.execute("CREATE TABLE history_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")


@migrations
def m002_off_head(db: Database) -> None:
    # 1: read from an earlier HEAD and no longer reachable from this one (a branch reset away, a
    # rebase's old commits): kept (an attempt given up is history too) but out of commits()/touching()
    db.execute("ALTER TABLE history_commits ADD COLUMN off_head INTEGER NOT NULL DEFAULT 0")


@migrations
def m003_remapped(db: Database) -> None:
    # every file whose history was mapped onto its symbols again, or dropped (no longer indexed), with the
    # mapping_version that did it: a consumer that copied what commits touched refreshes those commits only
    db.execute("CREATE TABLE history_remapped (path TEXT PRIMARY KEY, version INTEGER NOT NULL)")


@migrations
def m004_remapped_commits(db: Database) -> None:
    # the commits whose touched symbols a new mapping really changed, with the mapping_version that did it
    # (a remap after an edit of one function leaves most of a file's commits as they were: a consumer that
    # copied what commits touched refreshes only these). Seeded from m003's files: every commit that
    # changed one of them, as m003's consumer would have listed
    db.execute("CREATE TABLE history_remapped_commits (commit_id INTEGER PRIMARY KEY, version INTEGER NOT NULL)")
    db.execute("""INSERT INTO history_remapped_commits (commit_id, version)
                  SELECT c.commit_id, MAX(r.version) FROM history_changes c JOIN history_remapped r ON r.path = c.path
                  GROUP BY c.commit_id""")
    db.execute("DROP TABLE history_remapped")


@migrations
def m005_history_survival(db: Database) -> None:
    # hunks now record the lines a change only reformatted or moved (gitlog.Hunk.kept/moved, survival.py):
    # a history read before has none, so its hunks are read from git again by the next update (and
    # every file mapped again: the blame sees through reformats, moves and sweeps)
    db.execute("INSERT INTO history_meta (key, value) SELECT 'hunks', 'stale' WHERE EXISTS"
               " (SELECT 1 FROM history_commits) ON CONFLICT (key) DO UPDATE SET value = excluded.value")


@migrations
def m006_changes_by_path_once(db: Database) -> None:
    # every question by path (a file's changes, an undo's earlier change) is answered by
    # history_changes_from (path, old_blob): its twin on (path, new_blob) only cost each stored change
    # another B-tree insert (a third of the rows' index upkeep on a first read)
    db.execute("DROP INDEX IF EXISTS history_changes_into")


@migrations
def m007_commits_counted(db: Database) -> None:
    # how many commits the store holds, kept by each batch that stores commits (in its transaction): what
    # GitHistory.impossible_dates keys its pass over the history on, not a COUNT(*) of the table per query
    db.execute("INSERT INTO history_meta (key, value) SELECT 'commits', COUNT(*) FROM history_commits")
