"""Phrase -> symbols on a labelled set: accuracy per category and per tier, and the wrong exact/strong rate.

    python bench/resolve_phrases.py [--data bench/data/resolve_phrases_flask.json] [--src DIR] [--verbose]
                                    [--json-out FILE]

The labelled set (bench/data/resolve_phrases_flask.json) holds phrases over the flask 3.1.0 sdist: code
names written verbatim, paraphrases of one thing, concepts spanning several symbols, and constraints no
symbol holds, each with the symbols a person would accept (its file says how each category is judged).
The sdist is fetched (`pip download`) and indexed once in the cache directory (embeddings, knowledge and
history off: an sdist has no git history; `tenure backfill` is run first when `--embed` is given).

Three answers per phrase, in the same run:
- `resolve` (`Tenure.resolve`, limit 10);
- the namespace's ladder alone (`PhraseIndex.resolve`, what the knowledge join used before resolve);
- a plain TF-IDF retriever over the same symbols (bench/task_localisation.py's), with no tiers: its
  first answer stands in for exact, an empty answer for unresolved.

The rule under test (SPEC 2.5, issue 28): a wrong exact or strong at most 1 in 100 (every exact or
strong match naming a symbol outside the phrase's accepted set, constraints included).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import fetch_sdist, print_table, write_json  # noqa: E402
from task_localisation import TfIdf  # noqa: E402

from tenure import Tenure  # noqa: E402
from tenure.namespace.intent import phrase_index  # noqa: E402
from tenure.namespace.roles import is_test as in_tests  # noqa: E402
from tenure.namespace.symbol_terms import symbol_terms  # noqa: E402
from tenure.namespace.symbols import every_symbol  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "resolve_phrases_flask.json"
TOP = {"paraphrase": 5, "concept": 10}
CONCEPT_HITS = 2
NAMED = ("exact", "strong")


def right(category: str, accepted: set[str], tier: str, ranked: list[tuple[str, str]]) -> bool:
    """Whether an answer (its overall tier; its matches as (symbol, tier), best first) is right."""
    if category == "constraint":
        return tier == "unresolved"
    if category == "name":
        return bool(ranked) and ranked[0][0] in accepted and ranked[0][1] in NAMED
    found = {s for s, _ in ranked[:TOP[category]]} & accepted
    return len(found) >= (1 if category == "paraphrase" else min(CONCEPT_HITS, len(accepted)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--src", type=Path, help="an unpacked flask 3.1.0 (default: the sdist, fetched)")
    parser.add_argument("--embed", action="store_true", help="embed the code's elements first (minutes)")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    labels = json.loads(args.data.read_text())["phrases"]
    src = args.src or fetch_sdist("flask", "3.1.0")

    with Tenure.open(src, discover=False) as t:
        t.index()
        if args.embed:
            t.memories.prepare_elements()
        index = symbol_terms(t.db, t.root)
        known = set(index.fqns)
        missing = sorted({s for p in labels for s in p["symbols"]} - known)
        if missing:
            print(f"labels naming no indexed symbol: {missing}")
        candidates = {s.fqn: s for s in every_symbol(t.db) if s.fqn in known and not in_tests(s.path)}
        tfidf = TfIdf(t.root, list(candidates.values()))
        ladder = phrase_index(t.db, t.root)
        answers: dict[str, dict[str, tuple[str, list[tuple[str, str]]]]] = defaultdict(dict)
        seconds = []
        for p in labels:
            begin = time.perf_counter()
            found = t.resolve(p["text"], 10)
            seconds.append(time.perf_counter() - begin)
            answers["resolve"][p["text"]] = (found.tier, [(m.symbol, m.tier) for m in found.matches])
            match = ladder.resolve(p["text"])
            answers["ladder alone"][p["text"]] = (match.tier, [(s, match.tier) for s in match.symbols])
            plain = tfidf.rank(p["text"], 10)
            answers["TF-IDF"][p["text"]] = ("exact" if plain else "unresolved",
                                            [(s, "exact" if i == 0 else "weak") for i, s in enumerate(plain)])
            if args.verbose:
                tier, ranked = answers["resolve"][p["text"]]
                mark = "ok " if right(p["category"], set(p["symbols"]), tier, ranked) else "BAD"
                print(f"{mark} {p['category']:<10} {p['text']!r}: {tier} {ranked[:4]}")

    categories = ["name", "paraphrase", "concept", "constraint"]
    rows, summary = [], {}
    for who, by_text in answers.items():
        correct: Counter = Counter()
        total: Counter = Counter()
        named = wrong = 0
        tiers: dict[str, list[bool]] = defaultdict(list)
        for p in labels:
            accepted = set(p["symbols"])
            tier, ranked = by_text[p["text"]]
            ok = right(p["category"], accepted, tier, ranked)
            correct[p["category"]] += ok
            total[p["category"]] += 1
            tiers[tier].append(ok)
            for symbol, match_tier in ranked:
                if match_tier in NAMED and who != "TF-IDF":
                    named += 1
                    wrong += symbol not in accepted
        summary[who] = {"accuracy": {c: correct[c] / total[c] for c in categories},
                        "overall": sum(correct.values()) / len(labels),
                        "by_answer_tier": {t: (sum(v), len(v)) for t, v in tiers.items()},
                        "named_matches": named, "wrong_named": wrong}
        rate = f"{wrong}/{named} = {wrong / named:.1%}" if named else "n/a (no tiers)"
        rows.append([who] + [f"{correct[c]}/{total[c]}" for c in categories]
                    + [f"{sum(correct.values())}/{len(labels)}", rate])
    print_table(f"{len(labels)} labelled phrases over flask 3.1.0",
                ["answer", *categories, "all", "wrong exact/strong"], rows)
    for who in ("resolve", "ladder alone"):
        per_tier = ", ".join(f"{t} {ok}/{n} right" for t, (ok, n) in sorted(summary[who]["by_answer_tier"].items()))
        print(f"{who}, by the tier it answered: {per_tier}")
    seconds.sort()
    print(f"resolve p50 {seconds[len(seconds) // 2] * 1000:.0f} ms, max {seconds[-1] * 1000:.0f} ms per phrase (warm)")
    rate = summary["resolve"]["wrong_named"] / max(1, summary["resolve"]["named_matches"])
    print(f"wrong exact/strong: {rate:.1%} (target <= 1%): {'MET' if rate <= 0.01 else 'NOT MET'}")
    write_json(args.json_out, {"summary": summary, "answers": {w: dict(a) for w, a in answers.items()}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
