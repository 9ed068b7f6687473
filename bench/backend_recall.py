"""Recall and remember latency of one project's memories on SQLite and on PostgreSQL, in the same run.

    python bench/backend_recall.py [--memories 2000] [--queries 100] [--writes 20] [--other-projects 3]

Starts a throwaway PostgreSQL (tests/postgres_server.py). Two projects of the same synthetic memories
(bench/recall_latency.py's, bulk-loaded with remember's own steps), one in the checkout's SQLite file,
one in the PostgreSQL database beside `--other-projects` projects of as many memories each (row-level
security keeps them out of its queries). Lexical recall (no embedding model: its cost is the same on
both backends and would hide theirs). Recalls alternate between the backends, query by query, in one
warm process (like an MCP server); then `remember` of new memories, alternating. p50 / p95 and the load
average are printed.
"""

from __future__ import annotations

import argparse
import base64
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import percentile  # noqa: E402
from recall_latency import AUTHOR, load, questions, synthetic  # noqa: E402

from tenure import Tenure  # noqa: E402
from tenure.memories.api import Memories  # noqa: E402
from tests import postgres_server  # noqa: E402


def opened(root: Path, url: str | None, project: str) -> Tenure:
    root.mkdir(parents=True)
    (root / "app.py").write_text("def handler():\n    return 1\n")
    os.environ.pop("TENURE_DATABASE_URL", None)
    if url:
        os.environ.update(TENURE_DATABASE_URL=url, TENURE_PROJECT=project)
    t = Tenure.open(root, discover=False)
    os.environ.pop("TENURE_DATABASE_URL", None)
    return t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memories", type=int, default=2000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--writes", type=int, default=20)
    ap.add_argument("--other-projects", type=int, default=3)
    args = ap.parse_args()
    os.environ.update(TENURE_KEY=base64.b64encode(os.urandom(32)).decode(), TENURE_HISTORY="off",
                      TENURE_KNOWLEDGE="off", TENURE_EMBED_BACKGROUND="off", TENURE_EMBEDDINGS="none")
    server = postgres_server.start()
    scratch = Path(tempfile.mkdtemp(prefix="tenure-bench-"))
    try:
        url = server.new_database()
        data = synthetic(args.memories, 0)
        stores: dict[str, Tenure] = {}
        for n in range(args.other_projects):
            with opened(scratch / f"other{n}", url, f"other/{n}") as other:
                load(other, synthetic(args.memories, n + 1), None)
        for backend in ("sqlite", "postgresql"):
            t = opened(scratch / backend, url if backend == "postgresql" else None, "bench/project")
            t.index()
            seconds = load(t, data, None)
            print(f"{backend}: loaded {args.memories} memories in {seconds:.1f} s ({t.shared.where})")
            stores[backend] = t
        memories = {b: Memories(t.shared, t.root, provider=None, code=t.db) for b, t in stores.items()}
        asked = questions(args.queries, 0)
        recall: dict[str, list[float]] = {b: [] for b in memories}
        for b in memories:  # warm: the first recall of a process reads what later ones share
            memories[b].recall(asked[0], limit=10)
        for query in asked:
            for b, m in memories.items():
                start = time.perf_counter()
                m.recall(query, limit=10)
                recall[b].append(time.perf_counter() - start)
        remember: dict[str, list[float]] = {b: [] for b in memories}
        for i, item in enumerate(synthetic(args.writes, 99)):
            for b, m in memories.items():
                start = time.perf_counter()
                m.remember(f"{item.text} (live {i})", item.kind, [item.element], author=AUTHOR)
                remember[b].append(time.perf_counter() - start)
        print(f"load average {os.getloadavg()[0]:.2f}; {args.memories} memories in the project, "
              f"{args.other_projects} other projects of as many in the PostgreSQL database")
        print(f"{'':<12} {'recall p50':>11} {'recall p95':>11} {'remember p50':>13} {'remember p95':>13}")
        for b in memories:
            print(f"{b:<12} {percentile(recall[b], 50) * 1000:>9.1f}ms {percentile(recall[b], 95) * 1000:>9.1f}ms"
                  f" {percentile(remember[b], 50) * 1000:>11.1f}ms {percentile(remember[b], 95) * 1000:>11.1f}ms")
        for t in stores.values():
            t.close()
    finally:
        server.close()


if __name__ == "__main__":
    main()
