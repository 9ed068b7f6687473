"""The episodic store's schema (its own migrations): episodes, the symbols they touched, outcomes from
deterministic sources, the agents' conclusions kept apart, work-session steps and epochs.

Rows name symbols by fqn (the namespace every store joins on). Secret text (a session's task,
an agent's conclusion) stays encrypted with the memories' key; commit subjects and test ids are
what git and the build system hold in the clear anyway.
"""

from __future__ import annotations

from tenure.storage import Database, Migrations

migrations = Migrations("episodic")


@migrations
def m001_initial(db: Database) -> None:
    db.execute(
        """CREATE TABLE episodes (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,              -- session | commit | pr
            ref TEXT NOT NULL,               -- the work session's id, the commit's sha, the pull request's number
            actor TEXT NOT NULL,             -- the agent or the person
            task TEXT,                       -- commits and pull requests: subject / title (sessions: encrypted, in
                                             -- memory_sessions)
            started_at TEXT NOT NULL,
            ended_at TEXT NOT NULL,
            declared TEXT,                   -- sessions: the outcome the agent declared (a claim, not a verdict)
            commit_sha TEXT,                 -- commits: itself; pull requests: the merge; sessions: HEAD at the end
            base_sha TEXT,                   -- sessions: HEAD at the start
            pr INTEGER,                      -- the pull request a commit came in with, where the history says so
            part_of INTEGER REFERENCES episodes(id),  -- the pull request or work session this commit was made in
            thin INTEGER NOT NULL DEFAULT 0, -- commits: a message that says nothing of why
            UNIQUE (kind, ref)
        )"""
    )
    db.execute("CREATE INDEX episodes_commit ON episodes(commit_sha)")
    db.execute("CREATE INDEX episodes_time ON episodes(ended_at)")
    db.execute(
        """CREATE TABLE symbol_snapshots (
            id INTEGER PRIMARY KEY,
            fqn TEXT NOT NULL,
            fingerprint TEXT NOT NULL,       -- the symbol's code when an episode was recorded about it
            neighbours BLOB NOT NULL,        -- msgpack: its edges then (relation>target, relation<source), sorted
            UNIQUE (fqn, fingerprint)
        )"""
    )
    db.execute(
        """CREATE TABLE episode_symbols (
            episode_id INTEGER NOT NULL REFERENCES episodes(id),
            fqn TEXT NOT NULL,
            path TEXT NOT NULL,              -- its file (as the index held it then)
            how TEXT NOT NULL,               -- how the change was mapped (history.model.HOW)
            lines INTEGER NOT NULL,          -- changed lines attributed to it
            snapshot_id INTEGER REFERENCES symbol_snapshots(id),  -- NULL: the symbol was not in the index
            PRIMARY KEY (episode_id, fqn)
        )"""
    )
    db.execute("CREATE INDEX episode_symbols_fqn ON episode_symbols(fqn)")
    db.execute(
        """CREATE TABLE episode_files (
            episode_id INTEGER NOT NULL REFERENCES episodes(id),
            path TEXT NOT NULL,              -- every file it changed, indexed or not (generated code, schemas)
            PRIMARY KEY (episode_id, path)
        )"""
    )
    db.execute(
        """CREATE TABLE outcomes (
            id INTEGER PRIMARY KEY,
            episode_id INTEGER REFERENCES episodes(id),  -- NULL until its session ends or its commit is read
            session_id TEXT,                 -- what it is about: a work session, a commit, a pull request
            commit_sha TEXT,
            pr INTEGER,
            source TEXT NOT NULL,            -- junit | pytest-json | pytest-reportlog | exit-code | hook | revert |
                                             -- fixup | github
            verdict TEXT NOT NULL,           -- passed | failed | reverted | fixed-up | merged | rejected |
                                             -- changes-requested | approved
            confidence REAL NOT NULL,        -- never decays
            at TEXT NOT NULL,
            evidence TEXT NOT NULL,          -- JSON: the report, run, revert, reviewers' words …
            passed INTEGER NOT NULL DEFAULT 0,
            failed INTEGER NOT NULL DEFAULT 0,
            skipped INTEGER NOT NULL DEFAULT 0
        )"""
    )
    db.execute("CREATE INDEX outcomes_episode ON outcomes(episode_id)")
    db.execute("CREATE INDEX outcomes_session ON outcomes(session_id) WHERE session_id IS NOT NULL")
    db.execute("CREATE INDEX outcomes_commit ON outcomes(commit_sha) WHERE commit_sha IS NOT NULL")
    db.execute("CREATE INDEX outcomes_pr ON outcomes(pr) WHERE pr IS NOT NULL")
    db.execute(
        """CREATE TABLE outcome_tests (
            outcome_id INTEGER NOT NULL REFERENCES outcomes(id),
            test_id TEXT NOT NULL,           -- as the runner names it (pytest node id, JUnit class.name)
            status TEXT NOT NULL,            -- failed | error (passing tests are counted, not listed)
            message TEXT NOT NULL DEFAULT '',
            fqn TEXT,                        -- the test function in the index, when it can tell
            under_test TEXT NOT NULL DEFAULT '',  -- what that test calls, newline separated
            PRIMARY KEY (outcome_id, test_id)
        )"""
    )
    db.execute(
        """CREATE TABLE conclusions (
            id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL,
            episode_id INTEGER REFERENCES episodes(id),
            author TEXT NOT NULL,
            text BLOB NOT NULL,              -- encrypted
            at TEXT NOT NULL,
            confidence REAL NOT NULL         -- at `at`; decays with [episodic] conclusion_half_life_days
        )"""
    )
    db.execute("CREATE INDEX conclusions_episode ON conclusions(episode_id)")
    db.execute(
        """CREATE TABLE session_starts (
            session_id TEXT PRIMARY KEY,     -- memory_sessions.id: one concept of a session
            base_sha TEXT                    -- HEAD when it started (NULL: no git history)
        )"""
    )
    db.execute(
        """CREATE TABLE session_steps (
            id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL,
            at TEXT NOT NULL,
            command TEXT NOT NULL,           -- the command's shape (program and subcommand), never its arguments
            outcome_id INTEGER REFERENCES outcomes(id)   -- a test run's verdict
        )"""
    )
    db.execute("CREATE INDEX session_steps_session ON session_steps(session_id)")
    db.execute(
        """CREATE TABLE epochs (
            id INTEGER PRIMARY KEY,
            label TEXT NOT NULL,
            at TEXT NOT NULL,
            head_sha TEXT,
            author TEXT NOT NULL
        )"""
    )
    db.execute("CREATE TABLE episodic_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
