"""Many agents at once on one database (issue 31 point 4), on SQLite (agents of one checkout) and on
a team's PostgreSQL (two checkouts of one project): processes remembering, recalling, confirming,
starting and ending sessions, recording CI outcomes, superseding one fact, and re-indexing and
stamping drift, all at the same time, lose no write, write no second `session_outcome` for a
session, and keep every invariant (dedupe at 0.94, one linear supersedes chain, citations). A
server restarted in the middle of writes gives a clear error, loses nothing it accepted, and the
client carries on by itself."""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from tenure import Tenure
from tenure.memories.api import Memories
from tenure.memories.errors import MemoriesError
from tenure.storage import StorageError
from tests.memory_support import SHOP, ConceptProvider

FACTS = 12  # distinct facts per writer
VARIANTS = ["retrying the checkout is idempotent", "retrying the purchase is idempotent",
            "retrying the buy is idempotent"]  # one fact to the model (cosine 1.0), three texts
REPEATS = 4  # variant writes per writer
SUPERSEDES = 3  # versions of the "Policy" fact per writer
SESSIONS = 2  # work sessions per session worker
EDITS = 2  # re-indexes per indexer
WRITERS, SESSION_WORKERS, INDEXERS = 2, 2, 2
PROJECT = "github.com/acme/shop"


def _open(root: str) -> tuple[Tenure, Memories]:
    t = Tenure.open(root, discover=False)
    t.memories = Memories(t.shared, t.root, provider=ConceptProvider(), code=t.db)
    return t, t.memories


def writer(root: str, worker: int) -> None:
    """Distinct facts, each followed by a recall; near-identical writes of one fact; new versions of
    one titled fact, each taken from whatever is the latest version by then."""
    t, m = _open(root)
    with t:
        for n in range(FACTS):
            m.remember(f"fact {worker}-{n}: worker{worker} wrote entry{n}", elements=["OrderProcessor"])
            m.recall(f"worker{worker} entry{n}")
            if n < REPEATS:
                m.remember(VARIANTS[(worker + n) % len(VARIANTS)], elements=["OrderProcessor"])
            if n < SUPERSEDES:
                _supersede(m, f"policy version by worker{worker} number{n}")


def _supersede(m: Memories, content: str) -> None:
    """A new version of "Policy": another process may supersede it between the read and the write;
    then it is written again on the new latest version, as an agent would."""
    while True:
        latest = m.get("Policy")["id"]
        try:
            m.supersede(latest, content)
            return
        except MemoriesError as exc:
            if "superseded" not in str(exc):
                raise


def session_worker(root: str, worker: int) -> None:
    """Races another worker to end one shared session, then runs sessions of its own: each confirms
    the shared fact, records a CI outcome, cites the fact and ends."""
    t, m = _open(root)
    with t:
        race = (Path(root).parent / "race-session").read_text()
        with contextlib.suppress(MemoriesError):  # the other worker ended it first: refused, nothing written
            t.end_session(race, "ended by whichever worker came first", outcome="success")
        shared = m.get("Shared")["id"]
        for n in range(SESSIONS):
            started = t.start_session(f"agent/{worker}", f"change checkout {worker}-{n}", ["OrderProcessor"])
            m.confirm(shared, author=f"agent/{worker}")
            t.episodes.record_tests("exit-code", exit_code=1, failed=[f"tests/test_orders.py::test_{worker}_{n}"],
                                    session=started["session"])
            t.end_session(started["session"], f"worker {worker} session {n} done", used=[shared], outcome="partial")


def indexer(root: str, worker: int) -> None:
    """A checkout whose code changes and is indexed again: the drift is stamped on the shared memories."""
    t, _ = _open(root)
    with t:
        for n in range(EDITS):
            path = Path(root) / "shop/orders.py"
            edited = f"self.charge(basket)  # edit {worker}-{n}\n        return None"
            # replaced whole, as an editor saves: two indexers share one checkout on SQLite, and a file
            # read while the other truncates it would be empty (the class gone for every writer)
            draft = path.with_name(f".orders.{worker}.tmp")
            draft.write_text(path.read_text().replace("self.charge(basket)", edited, 1))
            os.replace(draft, path)
            t.index()


def _run(jobs: list[tuple[object, str, int]]) -> None:
    ctx = mp.get_context("spawn")  # fresh interpreters, each with its own connections
    procs = [ctx.Process(target=target, args=(root, w)) for target, root, w in jobs]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=900)
    assert [p.exitcode for p in procs] == [0] * len(procs)


def _git_repo(root: Path) -> None:
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "shop"]):
        subprocess.run(["git", "-C", str(root), "-c", "user.name=Ada", "-c", "user.email=ada@example.com", *args],
                       check=True, capture_output=True)


@pytest.fixture
def checkouts(backend: str, make_repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
              request: pytest.FixtureRequest) -> list[str]:
    """Two checkouts of the SHOP project sharing one database: on SQLite one checkout (its file is the
    database), on PostgreSQL two directories whose shared stores are one project's of the team database."""
    first = make_repo(SHOP, name="shop")
    _git_repo(first)
    monkeypatch.setenv("TENURE_EMBED_BACKGROUND", "off")
    monkeypatch.setenv("TENURE_KNOWLEDGE", "off")
    if backend == "sqlite":
        roots = [first, first]
    else:
        monkeypatch.setenv("TENURE_DATABASE_URL", request.getfixturevalue("postgres_url"))
        monkeypatch.setenv("TENURE_PROJECT", PROJECT)
        second = tmp_path / "shop-2"
        shutil.copytree(first, second)
        roots = [first, second]
    for root in dict.fromkeys(roots):
        with Tenure.open(root, discover=False) as t:
            t.index()
    return [str(r) for r in roots]


def test_many_agents_at_once_lose_no_write_and_keep_every_invariant(checkouts: list[str]) -> None:
    t, m = _open(checkouts[0])
    with t:
        m.remember("policy: the first version", title="Policy")
        shared = m.remember("the checkout charges before it books stock", title="Shared",
                            elements=["OrderProcessor.checkout"])["id"]
        race = t.start_session("agent/race", "a session two workers end at once", ["OrderProcessor"])["session"]
        (Path(checkouts[0]).parent / "race-session").write_text(race)  # (the session the workers race to end)

    _run([(writer, checkouts[w % 2], w) for w in range(WRITERS)] +
         [(session_worker, checkouts[w % 2], w) for w in range(SESSION_WORKERS)] +
         [(indexer, checkouts[w % 2], w) for w in range(INDEXERS)])

    t, m = _open(checkouts[0])
    with t:
        db = t.shared
        contents = [m.describe([r["id"]])[r["id"]]["content"] for r in db.query("SELECT id FROM memories")]
        # no write lost, none doubled
        for w in range(WRITERS):
            for n in range(FACTS):
                assert contents.count(f"fact {w}-{n}: worker{w} wrote entry{n}") == 1
        # dedupe at 0.94 under concurrent near-identical writes: one memory, confirmed by every other write
        variants = [r for r in db.query("SELECT id, confirmations FROM memories WHERE superseded_by IS NULL")
                    if m.describe([r["id"]])[r["id"]]["content"] in VARIANTS]
        assert len(variants) == 1 and variants[0]["confirmations"] == WRITERS * REPEATS - 1
        # one linear supersedes chain, every version on it, one live
        chain = m.history("Policy")
        versions = [v["id"] for v in chain["versions"]]
        assert len(versions) == 1 + WRITERS * SUPERSEDES == len(set(versions))
        for older, newer in zip(versions, versions[1:], strict=False):
            assert m.get(older)["supersededBy"] == newer and m.get(newer)["supersedes"] == older
        assert [v for v in versions if m.get(v)["supersededBy"] is None] == [chain["live"]]
        # one session_outcome per ended session, never two; the race ended once
        ended = db.query("SELECT id, outcome_memory_id FROM memory_sessions WHERE ended_at IS NOT NULL")
        assert len(ended) == 1 + SESSION_WORKERS * SESSIONS
        outcomes = db.query("SELECT session_id, COUNT(*) AS n FROM memories WHERE kind = 'session_outcome'"
                            " GROUP BY session_id")
        assert sorted(r["session_id"] for r in outcomes) == sorted(r["id"] for r in ended)
        assert {r["n"] for r in outcomes} == {1}
        assert all(r["outcome_memory_id"] is not None for r in ended)
        # every CI outcome recorded, each on its session's episode
        ci = db.query("SELECT session_id, episode_id FROM outcomes WHERE source = 'exit-code'")
        assert len(ci) == SESSION_WORKERS * SESSIONS and all(r["episode_id"] is not None for r in ci)
        # citations: every session cited the shared fact once, which was confirmed by each
        cited = db.query("SELECT session_id FROM memory_citations WHERE memory_id = ? AND how = 'declared'",
                         (shared,))
        assert len(cited) == len({r["session_id"] for r in cited}) == SESSION_WORKERS * SESSIONS
        # drift stamped by the re-indexing checkouts, after the confirmations or before them
        assert m.get(shared)["confirmations"] == SESSION_WORKERS * SESSIONS
        assert db.query("SELECT COUNT(*) AS n FROM memory_drift_events")[0]["n"] >= 1


def test_a_server_restarted_mid_write_loses_nothing_accepted_and_the_client_reconnects(
        shop: Tenure, postgres_url: str, postgres_server) -> None:
    from tenure.storage.postgres import PostgresDatabase

    team = PostgresDatabase(postgres_url, PROJECT)
    try:
        m = Memories(team, shop.root, provider=ConceptProvider(), code=shop.db)
        accepted: list[str] = []
        refused: list[tuple[str, StorageError]] = []
        restarted = threading.Event()

        def write() -> None:
            after_restart = 0
            for n in range(4000):
                text = f"write number{n} during a restart"
                try:
                    m.remember(text)
                    accepted.append(text)
                    after_restart += restarted.is_set()
                except StorageError as exc:
                    refused.append((text, exc))
                if after_restart >= 20:
                    return

        thread = threading.Thread(target=write)
        thread.start()
        # A write is refused only when the server stops while it holds a connection: between two
        # statements the pool checks and reconnects by itself. Restart until one was caught (a few tries).
        for _ in range(8):
            wanted = len(accepted) + 20
            while len(accepted) < wanted and thread.is_alive():
                thread.join(0.05)
            postgres_server.restart()
            if refused:
                break
        restarted.set()
        thread.join(600)
        assert not thread.is_alive()
        m.remember("written after the restart, on the same client")  # reconnected by itself
        assert refused, "the restart interrupted no write: nothing was tested"
        assert all("team database" in str(e) and "Try again" in str(e) for _, e in refused), refused
        stored = [m.describe([r["id"]])[r["id"]]["content"] for r in team.query("SELECT id FROM memories")]
        # nothing accepted is lost, nothing is doubled; a refused write may have been kept (the server
        # committed it as the connection broke), as its error says
        assert set(accepted) <= set(stored) and len(stored) == len(set(stored))
        assert set(stored) <= {*accepted, *(text for text, _ in refused),
                               "written after the restart, on the same client"}
    finally:
        team.close()
