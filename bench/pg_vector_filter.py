"""Vector search under the project filter on PostgreSQL (issue 31, point 2): exact, and how fast.

    python bench/pg_vector_filter.py [--projects 20] [--per-project 5000] [--queries 50] [--dim 384]

Starts a throwaway PostgreSQL 18 with pgvector on loopback (tests/postgres_server.py), fills one
table with `projects x per-project` clustered unit vectors through tenure's PostgreSQL backend (so the
table is project-scoped under row-level security, as the shared stores' are), then times top-10
searches of one project, the project filter coming from row-level security alone (no WHERE):

- exact, pgvector: `ORDER BY embedding <=> q LIMIT 10` over the project's rows (a btree on project);
- HNSW over every project's vectors, the filter applied after the index scan (pgvector's warning:
  at 5% selectivity and the default ef_search=40 few rows survive), then with `hnsw.iterative_scan`;
- in process, what tenure's stores do today: read the project's float32 blobs, one matrix product.

Recall@10 is measured against the exact answer. The load average is printed beside the wall times.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tenure.storage import Migrations  # noqa: E402
from tenure.storage.postgres import PostgresDatabase  # noqa: E402
from tests import postgres_server  # noqa: E402

K = 10


def literal(v: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.6f}" for x in v) + "]"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--projects", type=int, default=20)
    ap.add_argument("--per-project", type=int, default=5000)
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--dim", type=int, default=384)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    server = postgres_server.start()
    try:
        url = server.new_database()
        steps = Migrations("bench")

        @steps
        def m001(db) -> None:
            db.execute(f"CREATE TABLE bench_vectors (id INTEGER PRIMARY KEY, raw BLOB NOT NULL,"
                       f" embedding vector({args.dim}) NOT NULL)")
            db.execute("CREATE INDEX bench_vectors_project ON bench_vectors (id)")  # -> (project, id)

        names = [f"github.com/acme/service{p}" for p in range(args.projects)]
        centres = rng.normal(size=(64, args.dim)).astype(np.float32)
        t0 = time.perf_counter()
        for name in names:
            db = PostgresDatabase(url, name)
            steps.apply(db)
            picks = rng.integers(0, len(centres), args.per_project)
            vecs = centres[picks] + 0.6 * rng.normal(size=(args.per_project, args.dim)).astype(np.float32)
            vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
            with db.transaction():
                db.executemany("INSERT INTO bench_vectors (raw, embedding) VALUES (?, ?::vector)",
                               [(v.tobytes(), literal(v)) for v in vecs])
            db.close()
        print(f"loaded {args.projects} x {args.per_project} vectors of {args.dim} dims in "
              f"{time.perf_counter() - t0:.1f} s")
        one = PostgresDatabase(url, names[len(names) // 2])
        one.execute("ANALYZE bench_vectors")
        queries = centres[rng.integers(0, len(centres), args.queries)] + \
            0.6 * rng.normal(size=(args.queries, args.dim)).astype(np.float32)
        queries /= np.linalg.norm(queries, axis=1, keepdims=True)
        search = "SELECT id FROM bench_vectors ORDER BY embedding <=> ?::vector LIMIT 10"

        def timed(run) -> tuple[list[float], list[list[int]]]:
            times, answers = [], []
            for q in queries:
                start = time.perf_counter()
                answers.append(run(q))
                times.append((time.perf_counter() - start) * 1000)
            return times, answers

        exact_times, exact = timed(lambda q: [r[0] for r in one.rows(search, (literal(q),))])
        plan = "\n    ".join(re.sub(r"'\[[^]]*\]'", "q", r[0])
                               for r in one.rows("EXPLAIN " + search, (literal(queries[0]),)))

        def in_process(q: np.ndarray) -> list[int]:
            rows = one.rows("SELECT id, raw FROM bench_vectors")
            ids = np.array([r[0] for r in rows])
            matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
            return ids[np.argsort(-(matrix @ q))[:K]].tolist()

        numpy_times, numpy_answers = timed(in_process)
        t0 = time.perf_counter()
        one.execute("CREATE INDEX bench_vectors_hnsw ON bench_vectors USING hnsw (embedding vector_cosine_ops)")
        built = time.perf_counter() - t0
        hnsw_times, hnsw = timed(lambda q: [r[0] for r in one.rows(search, (literal(q),))])
        hnsw_plan = "\n    ".join(re.sub(r"'\[[^]]*\]'", "q", r[0])
                                    for r in one.rows("EXPLAIN " + search, (literal(queries[0]),)))

        def iterative(q: np.ndarray) -> list[int]:
            with one.transaction():
                one.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
                return [r[0] for r in one.rows(search, (literal(q),))]

        iter_times, iter_answers = timed(iterative)

        def recall(found: list[list[int]]) -> float:
            return statistics.mean(len(set(f) & set(e)) / K for f, e in zip(found, exact, strict=True))

        def returned(found: list[list[int]]) -> float:
            return statistics.mean(len(f) for f in found)

        print(f"load average {os.getloadavg()[0]:.2f}; one project = {args.per_project} of "
              f"{args.projects * args.per_project} rows; HNSW built in {built:.1f} s")
        print(f"exact plan:\n    {plan}\nwith the HNSW index:\n    {hnsw_plan}")
        print(f"{'strategy':<44} {'p50 ms':>8} {'p95 ms':>8} {'recall@10':>10} {'rows back':>10}")
        for label, times, found in (("exact (pgvector, btree on project)", exact_times, exact),
                                    ("in process (float32 blobs, numpy)", numpy_times, numpy_answers),
                                    ("HNSW on all projects, filter after", hnsw_times, hnsw),
                                    ("HNSW + hnsw.iterative_scan=relaxed_order", iter_times, iter_answers)):
            p95 = sorted(times)[int(0.95 * (len(times) - 1))]
            print(f"{label:<44} {statistics.median(times):>8.1f} {p95:>8.1f} {recall(found):>10.2f} "
                  f"{returned(found):>10.1f}")
        one.close()
    finally:
        server.close()


if __name__ == "__main__":
    main()
