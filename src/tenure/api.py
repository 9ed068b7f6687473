"""The Python API. The CLI, the MCP server and the web page are thin layers over :class:`Tenure`."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import suppress
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from tenure.collector import cyclic_gc_paused
from tenure.config import ConfigError
from tenure.history.store import migrations as history_migrations
from tenure.memories.errors import KeyProblem
from tenure.memories.store import migrations as memory_migrations
from tenure.state import (
    EMBED_LOCK,
    EMBED_LOG,
    database_path,
    find_root,
    make_state_dir,
    process_lock,
    state_dir,
)
from tenure.storage import Database, StorageError, open_database
from tenure.structural.lsp.state import LspState
from tenure.structural.lsp.state import migrations as lsp_migrations
from tenure.team.database import open_team_database
from tenure.words import counted

# The indexer, the graph's queries and the memories' helpers are imported by the methods that use
# them: a command pays at start for what it runs (`tenure why` and `knowledge build` index nothing).
if TYPE_CHECKING:
    from tenure.episodic.api import Episodes
    from tenure.history import GitHistory
    from tenure.knowledge import Knowledge
    from tenure.memories.api import Memories
    from tenure.memories.crypto import Cipher
    from tenure.namespace.intent import Resolution
    from tenure.namespace.line_terms import LineTerms
    from tenure.namespace.lookup import Lookup
    from tenure.procedural.api import Rules
    from tenure.structural.after_index import SourceContext
    from tenure.structural.indexer import Indexer
    from tenure.structural.report import IndexReport, Progress
    from tenure.structural.store import StructuralStore

RULES_LIMIT = 200
STATUS_SITES = 50  # the dynamic call sites `status` lists (it counts them all)
HISTORY_SWITCH = "TENURE_HISTORY"  # `off`: an index reads no git history (a benchmark of the index alone)
# `off`: an index starts no background embedding of the code's elements (the test suite sets it)
EMBED_SWITCH = "TENURE_EMBED_BACKGROUND"
KNOWLEDGE_SWITCH = "TENURE_KNOWLEDGE"  # `off`: ... and builds no knowledge store (`[knowledge] on_index` for good)
FRESHNESS_TTL_S = 2.0  # a burst of queries shares one stat pass over the indexed files (unless watched)
# `watch_freshness` wakes this often with no change (to see `stop`); its first wake makes the check that stands,
# which a server wants made while it starts, not during its first answers
FRESHNESS_WATCH_POLL_MS = 200
# A watcher warms its indexer while no change is pending: in slices of this much work, polling for
# changes this often between them (a change waits at most one slice more).
WARM_SLICE_S = 0.1
WARM_POLL_MS = 50


class Tenure:
    def __init__(self, root: Path, db: Database, shared: Database | None = None, code_graph: bool = True) -> None:
        """`db`: the checkout's own database (the code graph, the git history: derived from this
        checkout); `shared`: where the memories, episodes, knowledge and rules live, a team's database
        (None: the same file). `code_graph`: False leaves the graph's store (and its migrations) to its
        first use, for a caller that reads no code (a hook recording a shell command)."""
        self.root = root
        self.db = db
        self.shared = shared or db
        self._source_context: SourceContext | None = None
        self._indexer_made: Indexer | None = None
        if code_graph:
            self.structural  # noqa: B018 (made now: the graph's readers query its tables through `db`)
        memory_migrations.apply(self.shared)  # every index stamps drift on the memories' tables
        lsp_migrations.apply(db)  # ... and drops language servers' verdicts on changed files (structural/lsp)
        history_migrations.apply(db)  # ... and reads the git history (tenure.history)
        self._memories: Memories | None = None
        self._knowledge: Knowledge | None = None
        self._memories_loading = threading.Lock()  # (a server's threads may ask for them at once)
        self._history: GitHistory | None = None
        self._episodes: Episodes | None = None
        self._rules: Rules | None = None
        self.history_report: dict | None = None  # what the last index read of the git history (read_history)
        self.embedding_report: dict | None = None  # whether the last index started embedding (schedule_embedding)
        self.knowledge_report: dict | None = None  # what the last index built of the knowledge store
        # the last freshness check: (made at, its generation, the index's indexed_at, stale paths, new paths)
        self._freshness: tuple[float, int, str, list[str], list[str], int] | None = None
        self._file_changes = 0  # the check's generation: `watch_freshness` counts the changes it sees
        self._freshness_watched = False  # ... and while it runs, a check stands until a file changes
        self._providers: list | None = None  # the stores' evidence for `resolve`, made on first use

    @classmethod
    def open(cls, path: str | Path = ".", discover: bool = True, create: bool = True,
             code_graph: bool = True) -> Tenure:
        """The project at `path` (its root found when `discover`). Without `create`, a project with
        no state yet is opened on an empty database in memory: it answers "not indexed yet", and a
        query leaves no .tenure/ behind (one in a home directory would claim every directory under it).
        `code_graph`: see `__init__`."""
        root = find_root(Path(path)) if discover else Path(path).resolve()
        database = database_path(root)
        if not create and not database.exists():
            return cls(root, open_database(":memory:"), code_graph=code_graph)
        make_state_dir(root)
        local = open_database(database)
        try:
            return cls(root, local, open_team_database(root), code_graph=code_graph)
        except BaseException:
            local.close()
            raise

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self.db.close()
            if self.shared is not self.db:
                self.shared.close()

    def __enter__(self) -> Tenure:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @cached_property
    def structural(self) -> StructuralStore:
        """The code graph's store (made by `__init__`, or on first use: see its `code_graph`; the store's
        module brings msgspec and the resolver's records, a third of a hook's start)."""
        from tenure.structural.store import StructuralStore

        return StructuralStore(self.db)

    @property
    def source_context(self) -> SourceContext:
        """What the after-index sources share (structural/sources.py)."""
        if self._source_context is None:
            from tenure.structural.after_index import SourceContext

            self._source_context = SourceContext(self.root, state_dir(self.root), self.db, self.structural)
        return self._source_context

    @property
    def _indexer(self) -> Indexer:
        """One per project, made by the first index: its symbol index stays warm."""
        if self._indexer_made is None:
            from tenure.structural.indexer import Indexer

            self._indexer_made = Indexer(self.root, self.structural)
        return self._indexer_made

    @property
    def memories(self) -> Memories:
        """The project's memories, loaded on first use: the memory stack (numpy, cryptography) is a
        fifth of a second that `tenure index` and `what-breaks` do without."""
        if self._memories is None:
            from tenure.memories.api import Memories

            with self._memories_loading:
                if self._memories is None:
                    self.memories = Memories(self.shared, self.root, code=self.db)
        return self._memories

    @memories.setter
    def memories(self, memories: Memories) -> None:
        self._memories = memories
        memories.rules = self._rule_lines
        memories.org_content_elsewhere = lambda: self.rules_store.sealed_org_rule()

    @property
    def history(self) -> GitHistory:
        """The repository's git history (tenure.history), read by `index`."""
        if self._history is None:
            from tenure.history import GitHistory

            self._history = GitHistory(self.db, self.root)
        return self._history

    @property
    def episodes(self) -> Episodes:
        """Episodic memory: attempts and their outcomes (tenure.episodic)."""
        if self._episodes is None:
            from tenure.episodic.api import Episodes

            self._episodes = Episodes(
                self.shared, self.root, lambda: self.history,
                lambda text: self.memories.cipher().encrypt(text, "conclusion"),
                lambda blob: self.memories.cipher().decrypt(blob, "conclusion"), self._direct_dependants,
                lambda session: self.memories.session(session)["task"], code=self.db)
        return self._episodes

    @property
    def rules_store(self) -> Rules:
        """Procedural memory: mined and stated rules, promoted into the instructions (tenure.procedural)."""
        if self._rules is None:
            from tenure.procedural.api import Rules

            self._rules = Rules(self.shared, self.root, self.episodes, self._rule_keys, code=self.db)
        return self._rules

    def _rule_keys(self, scope: str, first_write: bool) -> Cipher | None:
        """The memories' ciphers, which seal the words of the rules people state (procedural/sealed.py)."""
        if scope == "org" and first_write:
            return self.memories.org_cipher(create=True)
        return self.memories.readable_cipher(scope)

    def _direct_dependants(self, fqn: str) -> list[str]:
        """The symbols that use `fqn` (call, instantiate, inherit it): the close dependants whose past
        attempts the timeline shows. A module that only imports it is not one (an edit of its other
        lines, a version bump beside the import, is no attempt on the symbol)."""
        from tenure.structural.graph import dependants_of

        return sorted({e.src for e in dependants_of(self.db, [fqn]) if not e.refuted and e.relation != "imports"})

    def _rule_lines(self) -> list[str]:
        return self.rules_store.lines()

    @property
    def knowledge(self) -> Knowledge:
        """The knowledge store (SPEC 2.2), loaded on first use like the memories."""
        if self._knowledge is None:
            from tenure.knowledge import Knowledge

            self._knowledge = Knowledge(self.shared, self.root, lambda title: self.memories.memory_titled(title),
                                        code=self.db)
        return self._knowledge

    # structural --------------------------------------------------------------------------------
    def index(self, progress: Progress | None = None, changed_paths: set[str] | None = None,
              defer_bookkeeping: bool = False, seedless: bool = False) -> IndexReport:
        """Bring the index up to date (see `Indexer.run`); a watcher defers the bookkeeping of checked
        dependants to its idle time (`flush`). `seedless`: raise `HashSeedNeeded` rather than store
        what followed this process's random string-hash seed (`tenure.entry`)."""
        # the after-index sources bring the JVM class-file reader and DI model: only an index runs them
        from tenure.memories import drift
        from tenure.namespace.intent import prepare as prepare_resolve
        from tenure.namespace.line_terms import LineTerms
        from tenure.namespace.symbols import reads_shared
        from tenure.structural import walk
        from tenure.structural.sources import run_after_index

        with walk.shared():  # discovery outside git and the JVM source's inputs: one walk of the tree
            report = self._indexer.run(progress, changed_paths, defer_bookkeeping, seedless)
            run_after_index(self.source_context, report)
        # (the history's mapping and the words index each read every file's symbols: read once for both)
        with reads_shared():
            if changed_paths is None and os.environ.get(HISTORY_SWITCH) != "off":
                # (not a watcher's update: git's history changes with a commit, not with a saved file)
                self.history_report = self.read_history(progress)
                # ... and of the knowledge store (offline; it reads the commits just read), so `why` answers
                if os.environ.get(KNOWLEDGE_SWITCH) != "off":
                    self.knowledge_report = self.knowledge.after_index(progress)
            if changed_paths is None:  # (a watcher's few changed elements are embedded by the next query)
                # (bulk work making no cycles, over the heap the index left: Django's collections cost 0.4 s;
                # what it keeps is frozen, else the first collection after it walks it all)
                with cyclic_gc_paused(freeze_survivors=True):
                    code = LineTerms(self.root)  # (each file read into terms once, for both)
                    # (the words index first: it reads each file it changed, and hands the bytes to `code`)
                    prepare_resolve(self.db, self.root, code)  # (what `resolve` reads: a query reads no code)
                    self.embedding_report = self.schedule_embedding(code)
        if self._memories is not None:
            self._memories.on_drift(report.drifted)  # on their clock
        else:  # the same, without loading the memory stack
            drift.on_index(self.shared, self.db, report.drifted, datetime.now(UTC))
        LspState(self.db).index_done(os.getpid())  # the enrichment it scheduled may outlive it now
        self._freshness = None
        return report

    def read_history(self, progress: Progress | None = None) -> dict:
        """Read the commits not read yet, map them onto symbols, turn them into episodes and mine the
        rules they support; a summary of what was done (or why nothing could be)."""
        report = self.history.update(progress=(lambda done, total: progress("history", done, total)) if progress
                                     else None)
        if "reason" in report:
            return {"unavailable": report["reason"]}
        summary = {"commits new": report["commits_new"], "commits": report["commits_total"],
                   "reverts": report["reverts"], "thin": report["thin"], "files mapped": report["files_mapped"]}
        if "read_again" in report:
            summary["commits read again"] = report["read_again"]  # (a store older than hunks' kept lines)
        try:
            # (bulk work making no cycles: a first history's episodes snapshot every symbol a commit touched, 43,738
            # of Django's one commit, whose edges' rows would set off the collector's full passes)
            with cyclic_gc_paused():
                added = self.episodes.sync()
        except ConfigError as exc:  # (the commits are kept: the next index makes their episodes)
            summary["episodes not made"] = f"{exc} (fix it: the next `tenure index` makes them)"
            return summary
        summary.update({f"episodes {k}": v for k, v in added.items() if v})
        if any(added.values()):
            try:
                mined = self.rules_store.mine()
            except ConfigError as exc:
                summary["rules not mined"] = f"{exc} (fix it, then `tenure rules mine`)"
                return summary
            except KeyProblem as exc:  # (a rule's notes are sealed with the project's key: this machine has none)
                summary["rules not mined"] = str(exc)
                return summary
            summary.update({k: v for k, v in (("rules promoted", len(mined["promoted"])),
                                              ("rules demoted", len(mined["demoted"]))) if v})
        return summary

    def schedule_embedding(self, code: LineTerms | None = None) -> dict:
        """Keep the terms of the code's elements that changed (selection reads them; `code`: the files'
        terms, when the index run has read them), and start a
        detached `tenure backfill` when code elements have no vector for their code yet:
        a briefing reads their meaning once it has run, and never waits for it (it says how many it
        could not read). {} when there is nothing to embed."""
        from tenure.memories.checkout_store import checkout_migrations
        from tenure.memories.vectors import ElementVectors, element_fingerprints
        from tenure.namespace.selection import candidates, prepare_terms

        rows = candidates(self.db)
        checkout_migrations.apply(self.db)  # (the elements' terms and vectors are the checkout's)
        prepare_terms(self.db, self.root, ElementVectors(self.db, None), rows, code)  # (only vectors wait)
        if os.environ.get("TENURE_EMBEDDINGS", "").strip().lower() == "none":
            return {}
        kept = element_fingerprints(self.db)
        stale = sum(1 for c in rows if kept.get(c.element) != c.fingerprint)
        if not stale:
            return {}
        from tenure.relaunch import spawn_detached

        if os.environ.get(EMBED_SWITCH, "on").lower() in ("off", "0", "false", "no"):
            return {"status": f"{stale} elements to embed, not scheduled ({EMBED_SWITCH}=off): `tenure backfill` "
                              "embeds them"}
        state = state_dir(self.root)
        with process_lock(state, EMBED_LOCK) as free:
            if not free:
                return {"status": f"{stale} elements to embed, a backfill already running"}
        pid = spawn_detached(["backfill", "--repo", str(self.root), "--background"], self.root, state / EMBED_LOG)
        return {"status": f"{stale} elements to embed, scheduled (pid {pid}, log "
                          f"{os.path.relpath(state / EMBED_LOG, self.root)})"}

    # work sessions (one concept: memories/sessions.py; its end becomes an episode) -------------------
    def start_session(self, agent: str, task: str | None = None, elements: Iterable[str] = ()) -> dict:
        started = self.memories.start_session(agent, task, elements, self.brief)
        self.episodes.session_started(started["session"])
        return started

    def end_session(self, session: str, summary: str, used: Iterable[int | str] = (), outcome: str = "success",
                    edited: Iterable[str] = (), conclusions: Iterable[str] = (), keep_empty: bool = True) -> dict:
        """End a work session: its outcome memory (memories) and its episode — what really changed (the
        commits since it started, the working tree's edits, mapped onto the index brought up to date
        first), the outcomes recorded into it, and the agent's conclusions apart from them — then mine
        the rules again."""
        self.memories.session(session)  # (an unknown session is refused before anything is done)
        self.index()
        ended = self.memories.end_session(session, summary, used, outcome, edited, keep_empty)
        episode = self.episodes.session_ended(self.memories.session(session), list(conclusions))
        ended["episode"] = episode
        ended["rules"] = self.rules_store.mine()
        return ended

    def team_status(self) -> dict:
        """Which database the shared stores use and whether it answers; the project's name there and
        how it was derived (`tenure team status`)."""
        from tenure.team.database import describe

        return describe(self.root, self.shared)

    def team_push(self, progress: Callable[[str, int, int], None] | None = None) -> dict:
        """Copy the shared stores this checkout's own database holds (memories, episodes, stated rules,
        the knowledge cache) into the team database (`tenure team push`): idempotent and resumable."""
        from tenure.episodic.store import migrations as episodic_migrations
        from tenure.knowledge.store import migrations as knowledge_migrations
        from tenure.procedural.store import migrations as procedural_migrations
        from tenure.team.identity import identify
        from tenure.team.push import PushRefused, push

        if self.shared is self.db:
            raise PushRefused("no team database is configured: the shared stores are already in this checkout's "
                              "own file. Set TENURE_DATABASE_URL (or [team] database in your tenure config), then "
                              "push; `tenure team status` says which database answers")
        for store in (memory_migrations, episodic_migrations, procedural_migrations, knowledge_migrations):
            store.apply(self.shared)
        if self.db.table_exists("rules"):
            self._seal_local_rules()
        return push(self.db, self.shared, identify(self.root).org, progress)

    def _seal_local_rules(self) -> None:
        """The rules an older tenure kept in plain text in this checkout's file, sealed with its own keys
        before a push carries them (the team database's key is not this one's until the push says so)."""
        from tenure.memories.api import Memories
        from tenure.procedural.sealed import seal_stored
        from tenure.procedural.store import migrations as procedural_migrations

        procedural_migrations.apply(self.db)
        local = Memories(self.db, self.root, provider=None)
        seal_stored(self.db, lambda scope, first_write: local.readable_cipher(scope))

    def session_open(self, session: str) -> bool:
        """Whether a work session is open, read without the memory stack (a hook asks this on every
        tool use the agent makes)."""
        from tenure.memories import sessions
        from tenure.memories.errors import MemoriesError

        try:
            return sessions.get(self.shared, session).ended_at is None
        except MemoriesError:
            return False

    def flush(self) -> None:
        """Record the bookkeeping updates deferred (`index(defer_bookkeeping=True)`)."""
        if self._indexer_made is not None:  # (none made: nothing was indexed, nothing deferred)
            self._indexer_made.flush()

    def warm(self, seconds: float) -> bool:
        """Prepare, for at most `seconds`, what the next updates will need (`Indexer.warm`): True
        once nothing is left. A watcher does this while idle."""
        return self._indexer.warm(seconds)

    @property
    def warming_failed(self) -> list[tuple[str, str]]:
        """(module, error) for modules warming could not analyse (an update that needs one tries again)."""
        return list(self._indexer.warm_failed)

    def enrich(self, languages: set[str] | None = None, progress: Progress | None = None,
               timeout: float | None = None, max_restarts: int | None = None,
               stop: Callable[[], str | None] | None = None) -> dict:
        """Verify call edges with language servers (structural/lsp), in the caller's thread, within the
        `[lsp]` bounds; the report says what each server did, or why it was given up or stopped
        (`stop`: a reason to end the run, asked as it goes)."""
        # lsprotocol takes over half a second to import: loaded only when enriching, not for every command
        from tenure.structural.lsp.enrich import DEFAULT_TIMEOUT_S, Enricher
        from tenure.structural.lsp.session import MAX_RESTARTS

        return Enricher(self.root, self.db, DEFAULT_TIMEOUT_S if timeout is None else timeout,
                        MAX_RESTARTS if max_restarts is None else max_restarts,
                        stop=stop).run(languages, progress).as_dict()

    def find_symbol(self, query: str) -> Lookup:
        from tenure.namespace.lookup import find_symbols

        return find_symbols(self.db, query)

    def resolve(self, text: str, limit: int = 10) -> Resolution:
        """`related_by_intent` (SPEC 2.5): the symbols a phrase or a task text is about, tiered, each with
        why it matched; the stores' evidence (embeddings, knowledge, memories, history) comes in through
        the providers made here, each from its store's own API."""
        from tenure.namespace.intent import related_by_intent

        return related_by_intent(self.db, self.root, text, limit=limit, providers=self._intent_providers())

    def _intent_providers(self) -> list:
        """Made once per handle: each keeps what it read (vectors, messages, entity names) between calls."""
        if self._providers is None:
            from tenure.history.intent import HistoryEvidence
            from tenure.knowledge.intent import KnowledgeEvidence
            from tenure.memories.intent import MemoryEvidence
            from tenure.memories.vectors import ElementVectors
            from tenure.namespace.meaning import ElementEmbeddings

            vectors = ElementVectors(self.db, self.memories.vectors)
            knowledge = KnowledgeEvidence(self.knowledge.db, self.knowledge.setting_error)
            self._providers = [ElementEmbeddings(self.db, self.root, vectors), knowledge,
                               MemoryEvidence(self.memories), HistoryEvidence(self.history)]
        return self._providers

    def what_breaks(self, symbol: str, depth: int = 1) -> dict:
        from tenure.structural.impact import what_breaks

        result = what_breaks(self.db, self.find_symbol(symbol), depth).as_dict()
        result["freshness"] = self.freshness()
        return result

    def brief(self, task: str | None = None, session: str | None = None, limit: int = 12) -> dict:
        """The briefing an agent reads before it starts (tenure.ask.briefing): the elements the task is
        about by intent, their pitfalls and VERIFY warnings, the decisions behind them, past failures and
        the rules for their files."""
        from tenure.ask.briefing import brief

        return brief(self, task, session, limit)

    def ask(self, question: str, budget: int | None = None, offline: bool = False) -> dict:
        """SPEC §2.6's question: what breaks, why, what happened before and the rules that apply to the
        change a question names, as one answer packed to `budget` tokens (tenure.ask); with a model
        configured (and not `offline`), a synthesis whose every sentence cites its items."""
        from tenure.ask.answer import ask
        from tenure.ask.pack import DEFAULT_BUDGET

        return ask(self, question, DEFAULT_BUDGET if budget is None else budget, offline)

    def ingest_traces(self, paths: list[Path], progress: Callable[[Path, int, int], None] | None = None) -> dict:
        """Observed edges from OpenTelemetry trace files (OTLP JSON lines or protobuf); a file read
        again replaces what it gave before. `progress(path, bytes read, file size)`."""
        from tenure.structural.traces.ingest import TraceIngestor, ingest_files  # protobuf: only when used

        return ingest_files(TraceIngestor(self.structural, self.root), paths, progress).as_dict()

    def export_edges(self) -> Iterator[dict]:
        from tenure.structural import export

        return export.edges(self.db)

    def export_pycg(self) -> dict[str, list[str]]:
        from tenure.structural import export

        return export.pycg(self.db)

    def prepare_answers(self) -> None:
        """Answer one what-breaks, so that the first one an agent asks costs what the next ones do: the
        query modules imported, the freshness check made, the graph's pages and its dynamic call sites
        read once. A server does this in a thread as it starts, while its client connects."""
        symbol = self.structural.a_callable()
        if symbol is None:
            self.freshness()
        else:
            self.what_breaks(symbol)

    def freshness(self) -> dict:
        """When the index was built, how many indexed files changed on disk since, and how many
        source files are new (not indexed yet: what they call is missing from every answer). The
        files are checked at most every FRESHNESS_TTL_S, or, while `watch_freshness` runs, again
        only once one has changed (or the index was rebuilt)."""
        indexed_at = self.structural.get_meta("indexed_at")
        now = time.monotonic()
        cached = self._freshness
        if (cached is None or cached[1] != self._file_changes or cached[2] != indexed_at
                or (not self._freshness_watched and now - cached[0] >= FRESHNESS_TTL_S)):
            generation = self._file_changes  # (a change seen while checking makes the next answer check again)
            cached = (now, generation, indexed_at, *self._check_files(indexed_at))
            self._freshness = cached
        _, _, _, stale, new, files_indexed = cached
        age = None
        if indexed_at:
            age = int((datetime.now(UTC) - datetime.fromisoformat(indexed_at)).total_seconds())
        return {
            "indexed_at": indexed_at or None,
            "age_seconds": age,
            "files_indexed": files_indexed,
            "files_stale": len(stale),
            "stale_paths": stale[:10],
            "files_new": len(new),
            "new_paths": new[:10],
            "text": _freshness_text(indexed_at, age, len(stale), len(new)),
        }

    def _check_files(self, indexed_at: str) -> tuple[list[str], list[str], int]:
        """(indexed files changed or gone since, source files not indexed, files indexed)."""
        stale: list[str] = []
        every = self.structural.file_stamps()
        rows = [stamp for stamp in every if stamp[3] != "skipped"]
        root = os.fspath(self.root)  # (a str join: a Path per file was a third of the pass)
        for path, size, mtime_ns, _ in rows:
            try:
                st = os.stat(os.path.join(root, path))
            except OSError:
                stale.append(path)
                continue
            if st.st_size != size or st.st_mtime_ns != mtime_ns:
                stale.append(path)
        from tenure.structural.discover import new_source_files

        new = new_source_files(self.root, {stamp[0] for stamp in every}) if indexed_at else []
        return stale, new, len(rows)

    def watch_freshness(self, stop: threading.Event) -> None:
        """Let a freshness check stand until a file under the root changes (watchfiles tells), rather
        than repeat it every FRESHNESS_TTL_S: a server's answers then carry no stat of every indexed
        file and no `git ls-files` each. Runs until `stop` is set, or the tree cannot be watched (then
        the checks are timed again)."""
        from watchfiles import watch

        try:
            for changes in watch(self.root, watch_filter=self._watched_path, stop_event=stop,
                                 rust_timeout=FRESHNESS_WATCH_POLL_MS, yield_on_timeout=True):
                if self._freshness_watched:
                    self._file_changes += bool(changes)
                    continue
                # The first wake (watching since before it): the check that will stand is made here,
                # not by the next answer (a server's first answer then makes none).
                self._file_changes += 1
                with suppress(Exception):  # (an answer meets the same failure, and says it)
                    self.freshness()
                self._freshness_watched = True
        except (OSError, RuntimeError):  # e.g. out of inotify watches: what a check per TTL does
            pass
        finally:
            self._freshness_watched = False

    def _watched_path(self, _change: object, path: str) -> bool:
        """Whether a change at `path` is the project's (not tenure's state, VCS or cache folders)."""
        from tenure.structural.discover import ALWAYS_IGNORED

        return not any(p in ALWAYS_IGNORED for p in Path(path).relative_to(self.root).parts)

    def status(self) -> dict:
        """How fresh the index is; the language servers' enrichment (running since, files done of all,
        the last result); the files whose calls are not all linked (the resolver gave up on them, or
        resolved them partly: answers counting calls of a name they use are lower bounds); and what no
        answer counts: the dynamic call sites that may reach anything (eval, getattr of a name nothing
        tells on an object nothing types), listed here once."""
        from tenure.structural.gaps import resolution_gaps
        from tenure.structural.graph import dynamic_sites
        from tenure.structural.lsp.background import LOG_FILE
        from tenure.structural.lsp.state import last_run, run_text

        anywhere = [site for site in dynamic_sites(self.db) if not site.reach]
        run = last_run(self.db)
        gaps = resolution_gaps(self.db)
        return {**self.freshness(), "unresolved_files": [gap.as_dict() for gap in gaps], "dynamic_anywhere": {
            "count": len(anywhere), "sites": [site.as_dict() for site in anywhere[:STATUS_SITES]]},
            "enrichment": {"run": run, "text": run_text(run), "log": str(state_dir(self.root) / LOG_FILE)}}

    def memory_detail(self, ref: int | str) -> dict:
        """A memory as a person inspects it: every version (supersedes chain) with its events, usage
        and drift stamps, and the links from and to any version."""
        from tenure.memories import links

        detail = self.memories.history(ref)
        ids = [v["id"] for v in detail["versions"]]
        outgoing = [{"direction": "to", "kind": x["kind"], "memory": x["target_id"], "element": x["element"]}
                    for x in links.outgoing(self.shared, ids)]
        incoming = [{"direction": "from", "kind": "memory", "memory": x["source_id"], "element": None}
                    for x in links.incoming(self.shared, ids)]
        described = self.memories.describe(sorted({x["memory"] for x in outgoing + incoming if x["memory"]}))
        detail["links"] = [{**x, "title": described[x["memory"]]["title"] if x["memory"] in described else None}
                           for x in outgoing + incoming]
        return detail

    # procedural ------------------------------------------------------------------------------
    def rules(self) -> dict:
        """The always-loaded house rules (SPEC §2.4): the promoted rules (the managed section of
        AGENTS.md), then the project's live conventions (memories)."""
        from tenure.memories.briefing import excerpt

        promoted = self.rules_store.promoted()
        conventions = [m for m in self.memories.recall("", limit=RULES_LIMIT)["results"]
                       if m["kind"] == "convention" and not m["via"]]
        lines = [f"- {m['title'] + ': ' if m['title'] else ''}{excerpt(m)}" for m in conventions]
        text = ["# House rules", *self.rules_store.lines()] if promoted else []
        if lines:
            text += (["", "## Conventions"] if promoted else ["# House rules"]) + lines
        return {"rules": promoted, "conventions": conventions, "text": "\n".join(text).strip() or "No rules yet."}

    def watch(self, on_update: Callable[[IndexReport], None], stop: threading.Event | None = None,
              on_warmed: Callable[[dict], None] | None = None) -> None:
        """Re-index the paths that change under the root (batched by watchfiles) until `stop` is set.
        Only the changed paths are looked at: no rescan of the tree per change. While idle, the
        indexer is warmed (`Indexer.warm`) in slices short enough not to delay a change much:
        changes that arrive meanwhile are kept by watchfiles and taken at the next poll. An update's
        bookkeeping of the dependants it checked is done at the next idle poll too (`Indexer.run`).
        `on_warmed({"cpu_seconds", "failed": [(module, error)]})` is called once that is done, and
        again each time a rebuilt index (another process indexed in between) is warmed."""
        from watchfiles import watch

        database = database_path(self.root)
        opened = os.stat(database).st_ino
        warming_cpu: float | None = 0.0  # None once warmed (again after a run rebuilt the index)
        try:
            for changes in watch(self.root, watch_filter=self._watched_path, stop_event=stop, rust_timeout=WARM_POLL_MS,
                                 yield_on_timeout=True):
                try:
                    still = os.stat(database).st_ino == opened
                except OSError:
                    still = False
                if not still:  # (an open connection would go on writing to the deleted file, for nobody)
                    raise StorageError(f"{database} was deleted or replaced while watching: run `tenure index "
                                       "--watch` again")
                if changes:
                    paths = {Path(p).relative_to(self.root).as_posix() for _, p in changes}
                    on_update(self.index(changed_paths=paths, defer_bookkeeping=True))
                    continue
                self.flush()  # idle: the last update's bookkeeping first
                rounds = self._indexer.warm_rounds
                started = time.process_time()
                done = self.warm(WARM_SLICE_S)
                if self._indexer.warm_rounds != rounds:
                    warming_cpu = 0.0  # a run rebuilt the index: warming it began again (in one slice or more)
                if warming_cpu is not None:
                    warming_cpu += time.process_time() - started
                    if done:
                        if on_warmed:
                            on_warmed({"cpu_seconds": warming_cpu, "failed": self.warming_failed})
                        warming_cpu = None
        finally:
            self.flush()


def _freshness_text(indexed_at: str, age: int | None, stale: int, new: int = 0) -> str:
    if not indexed_at:
        return "not indexed yet: run `tenure index`"
    when = f"indexed {age}s ago" if age is not None and age < 120 else f"indexed at {indexed_at}"
    since = [f"{counted(stale, 'file')} changed since"] if stale else []
    since += [f"{counted(new, 'new file')} not indexed"] if new else []
    return f"{when}; {', '.join(since)}" if since else f"{when}; up to date"
