"""Recall quality of tenure's memories: recall@k and MRR, semantic + lexical vs lexical only.

    python bench/recall_quality.py [--data bench/data/recall_set.json] [--k 5] [--verbose] [--json-out FILE]

The labelled set (bench/data/recall_set.json) holds engineering memories of a plausible codebase and
questions with the memories that answer them, many asked in other words than the memory uses. Every
memory is written with ``Tenure.memories.remember`` into a fresh project, and every question asked with
``recall`` twice: with the configured embedding provider (default all-MiniLM-L6-v2), and with
``TENURE_EMBEDDINGS=none`` (lexical only). Two orderings are scored for each:

- ``score``: recall's own order, the full SPEC §3 score (relevance × kind weight × freshness × …);
- ``relevance``: 0.55 × cosine + 0.45 × term overlap alone (term overlap alone without vectors),
  read from each result's ``explain`` and re-sorted: the retrieval quality without the kind weights.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import fmt_ratio, percentile, print_table, write_json  # noqa: E402

from tenure import Tenure  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "recall_set.json"
RANKINGS: dict[str, Callable[[dict], float]] = {
    "score": lambda result: result["score"],
    "relevance": lambda result: result["explain"]["relevance"]["value"],
}


@dataclass
class Scored:
    """One query's outcome under one mode and ranking."""

    query: dict
    ranked: list[str]  # data set ids of the memories recalled, best first
    first_hit: int | None  # 1-based rank of the first relevant memory
    found_at_k: float  # share of the relevant memories in the top k


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--verbose", action="store_true", help="list the queries each mode misses at k")
    parser.add_argument("--json-out", type=Path)
    return parser.parse_args()


@contextmanager
def environment(**values: str | None) -> Iterator[None]:
    """Set (or, with None, remove) environment variables for the block."""
    saved = {name: os.environ.get(name) for name in values}
    try:
        set_environment(values)
        yield
    finally:
        set_environment(saved)


def set_environment(values: dict[str, str | None]) -> None:
    for name, value in values.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def write_memories(tenure: Tenure, memories: list[dict]) -> tuple[dict[int, str], float]:
    """Remember every memory; returns {tenure id: data id} and the seconds it took."""
    ids: dict[int, str] = {}
    start = time.perf_counter()
    for memory in memories:
        answer = tenure.memories.remember(memory["content"], memory["kind"], [memory["element"]], memory.get("title"))
        if answer["deduplicated"]:
            raise SystemExit(f"{memory['id']} was taken for memory #{answer['id']} (deduplicated): fix the data set")
        ids[answer["id"]] = memory["id"]
    return ids, time.perf_counter() - start


def ask(tenure: Tenure, queries: list[dict], limit: int) -> tuple[str, list[list[dict]], list[float]]:
    """recall() for every query: (the mode note, the results, latencies)."""
    results, latencies, note = [], [], ""
    for query in queries:
        start = time.perf_counter()
        answer = tenure.memories.recall(query["query"], limit=limit)
        latencies.append(time.perf_counter() - start)
        note = answer["note"]
        results.append([r for r in answer["results"] if not r["via"]])
    return note, results, latencies


def score(query: dict, results: list[dict], key: Callable[[dict], float], ids: dict[int, str], k: int) -> Scored:
    """Rank by ``key`` (ties: the newer memory first, as recall does) and score against the labels."""
    ordered = sorted((r for r in results if key(r) > 0), key=lambda r: (-key(r), -r["id"]))
    ranked = [ids[r["id"]] for r in ordered]
    relevant = set(query["relevant"])
    first = next((rank for rank, memory in enumerate(ranked, 1) if memory in relevant), None)
    return Scored(query, ranked, first, len(relevant & set(ranked[:k])) / len(relevant))


def summary(scored: list[Scored]) -> dict[str, float]:
    return {
        "recall_at_k": statistics.fmean(s.found_at_k for s in scored),
        "mrr": statistics.fmean(1 / s.first_hit if s.first_hit else 0.0 for s in scored),
        "hit_at_1": statistics.fmean(1.0 if s.first_hit == 1 else 0.0 for s in scored),
        "queries": len(scored),
    }


def run_mode(tenure: Tenure, data: dict, ids: dict[int, str], k: int) -> dict[str, Any]:
    note, results, latencies = ask(tenure, data["queries"], limit=len(data["memories"]))
    by_ranking = {name: [score(q, r, key, ids, k) for q, r in zip(data["queries"], results, strict=True)]
                  for name, key in RANKINGS.items()}
    return {"note": note, "latencies": latencies, "scored": by_ranking}


def pair(figures: dict[str, float]) -> list[str]:
    return [fmt_ratio(figures["recall_at_k"]), fmt_ratio(figures["mrr"])]


def report(modes: dict[str, dict], data: dict, k: int, verbose: bool) -> dict[str, Any]:
    types = sorted({q["type"] for q in data["queries"]})
    figures: dict[str, Any] = {}
    rows = []
    for mode, outcome in modes.items():
        print(f"{mode}: {outcome['note']}")
        for ranking, scored in outcome["scored"].items():
            overall = summary(scored)
            per_type = {t: summary([s for s in scored if s.query["type"] == t]) for t in types}
            figures[f"{mode}/{ranking}"] = {"all": overall, **per_type}
            rows.append([f"{mode} / {ranking}", *pair(overall), fmt_ratio(overall["hit_at_1"]),
                         *(" / ".join(pair(per_type[t])) for t in types)])
    counts = {t: sum(q["type"] == t for q in data["queries"]) for t in types}
    print_table(f"Recall quality: {len(data['queries'])} queries over {len(data['memories'])} memories",
                ["mode / ranking", f"recall@{k}", "MRR", "hit@1",
                 *(f"{t} ({counts[t]}) R@{k} / MRR" for t in types)], rows)
    lexical = modes.get("lexical only")
    if lexical:
        unreachable = sum(s.first_hit is None for s in lexical["scored"]["relevance"])
        print(f"\nqueries sharing no term with any relevant memory (lexical finds nothing): {unreachable}")
    latency_rows = [[mode, *(f"{percentile(o['latencies'], q) * 1000:.1f} ms" for q in (50, 95))]
                    for mode, o in modes.items()]
    print_table(f"recall() latency on this set (limit={len(data['memories'])})", ["mode", "p50", "p95"], latency_rows)
    if verbose:
        print_misses(modes, data, k)
    return figures


def print_misses(modes: dict[str, dict], data: dict, k: int) -> None:
    contents = {m["id"]: m["content"] for m in data["memories"]}
    for mode, outcome in modes.items():
        print(f"\nmisses at {k}, {mode} / relevance:")
        for s in outcome["scored"]["relevance"]:
            if s.found_at_k < 1:
                print(f"  [{s.query['type']}] {s.query['query']!r}: rank {s.first_hit or '-'}; "
                      f"wanted {', '.join(s.query['relevant'])}: {contents[s.query['relevant'][0]][:70]}…; "
                      f"got {', '.join(s.ranked[:3])}")


def main() -> None:
    args = parse_args()
    data = json.loads(args.data.read_text())
    key = base64.b64encode(os.urandom(32)).decode()  # a throwaway project: its key need not outlive the run
    with tempfile.TemporaryDirectory(prefix="tenure-recall-") as tmp, environment(TENURE_KEY=key):
        with Tenure.open(tmp, discover=False) as tenure:
            ids, seconds = write_memories(tenure, data["memories"])
            print(f"remembered {len(ids)} memories in {seconds:.1f} s ({tenure.memories.vectors.mode_note()})")
            modes = {}
            if tenure.memories.vectors.provider is not None:
                modes["semantic + lexical"] = run_mode(tenure, data, ids, args.k)
        with environment(TENURE_EMBEDDINGS="none"), Tenure.open(tmp, discover=False) as tenure:
            modes["lexical only"] = run_mode(tenure, data, ids, args.k)
    figures = report(modes, data, args.k, args.verbose)
    write_json(args.json_out, {"k": args.k, "figures": figures})


if __name__ == "__main__":
    main()
