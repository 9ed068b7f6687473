"""`tenure resolve` latency on Django: warm p50/p95 through the API, and a first call in a fresh process.

    python bench/resolve_latency.py [--src DIR] [--rounds 5] [--json-out FILE]

Django 5.1.4's sdist (fetched with pip, indexed once: `tenure index` precomputes what resolve reads) is
asked phrases and task texts of every kind (names, paraphrases, concepts, constraints, a 40-line issue),
`--rounds` times each in one process (warm), then once in a fresh process (`tenure resolve --json`,
imports and the loading of the kept indexes included). In the same run, for comparison: the namespace's
ladder alone (`PhraseIndex.resolve`, the join before resolve) and `Tenure.find_symbol`. The target
(issue 28): p95 under 100 ms warm.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import fetch_sdist, percentile, print_table, tenure_command, write_json  # noqa: E402

from tenure import Tenure  # noqa: E402
from tenure.namespace.intent import phrase_index  # noqa: E402

ISSUE = "\n".join([
    "QuerySet.bulk_create ignores update_conflicts on PostgreSQL when unique_fields is empty",
    "",
    "When bulk_create is called with update_conflicts=True and no unique_fields, the insert statement",
    "is compiled without an ON CONFLICT clause and the database raises an integrity error instead of",
    "updating the existing rows. The SQLInsertCompiler builds the statement; the backend's operations",
    "class decides whether ON CONFLICT is supported. We should validate the arguments early, in",
    "_check_bulk_create_options, and raise a ValueError that names the missing unique fields.",
    *[f"Step {i}: run the migrations, create two rows with the same natural key, bulk insert again." for i in
      range(30)],
    "Expected: the second insert updates the rows. Actual: IntegrityError from the database driver.",
    "This blocks the nightly import of the counterparty ledger; the SLA is two hours.",
])
TEXTS = ["QuerySet.filter", "make_password", "django.db.models.query.QuerySet.bulk_create", "the query set",
         "the model admin", "model field validation", "how are database transactions committed",
         "cache middleware vary headers", "csrf token rotation on login", "migrations autodetector renames fields",
         "template filters that escape HTML", "the counterparty SLA", "GDPR data retention", ISSUE]


def timed(call, texts: list[str], rounds: int) -> list[float]:
    seconds = []
    for _ in range(rounds):
        for text in texts:
            begin = time.perf_counter()
            call(text)
            seconds.append(time.perf_counter() - begin)
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, help="an unpacked Django 5.1.4 (default: the sdist, fetched)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    src = args.src or fetch_sdist("django", "5.1.4")
    with Tenure.open(src, discover=False) as t:
        begin = time.perf_counter()
        t.index()
        print(f"index brought up to date in {time.perf_counter() - begin:.1f} s")
        t.resolve("warm up")  # (the kept indexes loaded, the providers made)
        ladder = phrase_index(t.db, t.root)
        figures = {"resolve": timed(lambda x: t.resolve(x, 10), TEXTS, args.rounds),
                   "ladder alone (PhraseIndex.resolve)": timed(ladder.resolve, TEXTS, args.rounds),
                   "find_symbol": timed(t.find_symbol, TEXTS, args.rounds)}
    begin = time.perf_counter()
    fresh = subprocess.run([*tenure_command(), "resolve", "--json", "--repo", str(src), "the model admin"],
                           capture_output=True, text=True, timeout=300)
    first = time.perf_counter() - begin
    rows = [[name, f"{percentile(s, 50) * 1000:.1f}", f"{percentile(s, 95) * 1000:.1f}", f"{max(s) * 1000:.1f}"]
            for name, s in figures.items()]
    print_table(f"Django 5.1.4, {len(TEXTS)} texts x {args.rounds} rounds, warm (ms)", ["call", "p50", "p95", "max"],
                rows)
    print(f"first call in a fresh process (`tenure resolve --json`, start and imports included): {first:.2f} s "
          f"(exit {fresh.returncode})")
    p95 = percentile(figures["resolve"], 95) or 0.0
    print(f"resolve p95 warm {p95 * 1000:.0f} ms (target < 100 ms): {'MET' if p95 < 0.1 else 'NOT MET'}")
    write_json(args.json_out, {"warm": figures, "first_call_s": first})
    return 0


if __name__ == "__main__":
    sys.exit(main())
