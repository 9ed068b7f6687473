"""The procedural store's schema (its own migrations): rules, the episodes that count for or against
each, and every change of a rule, so that a promotion can be audited."""

from __future__ import annotations

from tenure.storage import Database, Migrations

migrations = Migrations("procedural")


@migrations
def m001_initial(db: Database) -> None:
    db.execute(
        """CREATE TABLE rules (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,              -- ordering | co-change | stated
            key TEXT NOT NULL UNIQUE,        -- what makes two rules the same (ordering:X>Y, co-change:A+B)
            text TEXT NOT NULL,              -- the rule as the instructions say it
            first TEXT,                      -- ordering: run this … | co-change: when this changes …
            second TEXT,                     -- … before this | … this changes too
            status TEXT NOT NULL,            -- candidate | promoted | demoted
            successes INTEGER NOT NULL DEFAULT 0,
            failures INTEGER NOT NULL DEFAULT 0,
            successes_at_change INTEGER NOT NULL DEFAULT 0,  -- the counts when its status last changed
            failures_at_change INTEGER NOT NULL DEFAULT 0,
            by_hand INTEGER NOT NULL DEFAULT 0,  -- its status was last set by a person: evidence may demote it,
                                                  -- never promote it again on its own
            source TEXT NOT NULL,            -- mined | the person who stated it
            created_at TEXT NOT NULL,
            changed_at TEXT NOT NULL
        )"""
    )
    db.execute(
        """CREATE TABLE rule_evidence (
            rule_id INTEGER NOT NULL REFERENCES rules(id),
            episode_id INTEGER NOT NULL,     -- episodes.id
            counts_as TEXT NOT NULL,         -- for | against (m002; success | failure before)
            times INTEGER NOT NULL,
            why TEXT NOT NULL,
            PRIMARY KEY (rule_id, episode_id, counts_as)
        )"""
    )
    db.execute(
        """CREATE TABLE rule_events (
            id INTEGER PRIMARY KEY,
            rule_id INTEGER NOT NULL REFERENCES rules(id),
            at TEXT NOT NULL,
            event TEXT NOT NULL,             -- mined | stated | counted | promoted | demoted
            detail TEXT NOT NULL,
            author TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX rule_events_rule ON rule_events(rule_id)")


@migrations
def m002_history_mining(db: Database) -> None:
    # what the last mining read and which evidence it lacked (`rules list` says why nothing qualified)
    db.execute("CREATE TABLE procedural_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    # evidence counts for or against a rule: a change that skipped a rule and stood is against it, not a failure
    db.execute("UPDATE rule_evidence SET counts_as = CASE counts_as WHEN 'success' THEN 'for' ELSE 'against' END"
               " WHERE counts_as IN ('success', 'failure')")


@migrations
def m003_scope(db: Database) -> None:
    # 'org': a rule of the whole organisation ("all our services retry idempotently"), read by every
    # project of it on the team database; kept in a project's own until `tenure team push`
    db.execute("ALTER TABLE rules ADD COLUMN scope TEXT NOT NULL DEFAULT 'project'")


@migrations
def m004_sealed_words(db: Database) -> None:
    # the words of a rule a person states, encrypted with its scope's key as memories are (its `text` is
    # then ''); a mined rule's text is made from its commands or files, which the episodes hold readable
    db.execute("ALTER TABLE rules ADD COLUMN sealed BLOB")


@migrations
def m005_sealed_notes(db: Database) -> None:
    # an event's detail (a demotion's reason, as a person gave it) and an evidence note (the commands and
    # verdicts of an episode), sealed with the rule's scope key as its words are (`detail`/`why` then '');
    # rows written before are read as they stand and sealed before `tenure team push` copies them
    db.execute("ALTER TABLE rule_events ADD COLUMN sealed BLOB")
    db.execute("ALTER TABLE rule_evidence ADD COLUMN sealed BLOB")
