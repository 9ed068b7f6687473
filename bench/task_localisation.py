"""Task -> code localisation from real history: `Tenure.resolve` against a plain TF-IDF retriever.

    python bench/task_localisation.py [--repo /work/repos/flask] [--work DIR] [--sample 150] [--seed 7]
                                      [--max-truth 20] [--json-out FILE]

Each informative commit of the repository (not a merge, not thin by `tenure.history.thin`, not a
release or a version bump, at least six content words, a change to a Python file outside tests) is a
task: its message (subject and body) is the task text, and the truth is the symbols its diff changed.
A seeded sample of them is replayed oldest first, each on the tree of its PARENT:

- a clone is checked out at the commit's parent and indexed by `Tenure.index` (incremental from the
  previous step; the git history read is the parent's, so the commits that answer the task, the commit
  itself and anything after it, are not in it); embeddings and the knowledge build are off (each step
  would need minutes), so `resolve` runs with its names, words, graph and history evidence;
- the truth is the commit's `git diff -U0 PARENT COMMIT`, its hunks' lines in the parent's files mapped
  onto the parent's index (a symbol whose span holds a changed line, or both sides of an insertion;
  the innermost of nested ones; a closure counts as the function around it), tests left out. So a name
  the commit introduces cannot be the truth nor be found: the index has not seen it (no leakage), and a
  task counts only when its truth is non-empty and at most `--max-truth` symbols (a sweep is no task);
- both retrievers rank the same symbols (the index's symbols outside tests, closures folded into their
  function): `resolve` with its own ranking and cut (`limit` 10), TF-IDF over each symbol's source text
  (its full name's words and its span's lines; identifiers split and stemmed like tenure's terms, so the
  baseline reads the same words), cosine with sublinear tf and smoothed idf, the top 10.

Figures: precision, recall and F1 at 5 and at 10 (a list shorter than k is judged on what it returned:
`resolve` cuts its weak set), macro-averaged over tasks, and hits@5 / hits@10 (a true symbol among the
first k). The target (issue 28): F1 at least 1.2 × TF-IDF's.
"""

from __future__ import annotations

import argparse
import math
import random
import re
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import CACHE_DIR, print_table, write_json  # noqa: E402

from tenure import Tenure  # noqa: E402
from tenure.history.thin import thin_reason  # noqa: E402
from tenure.namespace.phrases import in_tests  # noqa: E402
from tenure.namespace.symbol_terms import symbol_terms  # noqa: E402
from tenure.namespace.symbols import Symbol, every_symbol  # noqa: E402
from tenure.namespace.terms import STOPWORDS, stem, terms, words  # noqa: E402

KS = (5, 10)
LIMIT = 10
MIN_WORDS = 6
_NOT_A_TASK = re.compile(r"^(release|bump|version|prepare|start version|changelog|update changelog|merge|"
                         r"fix(ed)? typos?|typos?|pre-commit|\[pre-commit|docs?:|update (docs|readme|copyright))",
                         re.IGNORECASE)
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


@dataclass
class Task:
    sha: str
    parent: str
    message: str


@dataclass
class Scores:
    precision: dict[int, list[float]] = field(default_factory=lambda: {k: [] for k in KS})
    recall: dict[int, list[float]] = field(default_factory=lambda: {k: [] for k in KS})
    f1: dict[int, list[float]] = field(default_factory=lambda: {k: [] for k in KS})
    hits: dict[int, list[float]] = field(default_factory=lambda: {k: [] for k in KS})

    def add(self, ranked: list[str], truth: set[str]) -> None:
        for k in KS:
            top = ranked[:k]
            hit = len(set(top) & truth)
            p = hit / len(top) if top else 0.0
            r = hit / len(truth)
            self.precision[k].append(p)
            self.recall[k].append(r)
            self.f1[k].append(2 * p * r / (p + r) if p + r else 0.0)
            self.hits[k].append(1.0 if hit else 0.0)

    def mean(self, table: dict[int, list[float]], k: int) -> float:
        return float(np.mean(table[k])) if table[k] else 0.0


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          errors="replace").stdout


def informative(repo: Path) -> list[Task]:
    """The commits that read as a task, oldest first."""
    out = git(repo, "log", "--no-merges", "--reverse", "--format=%x1e%H%x00%P%x00%B%x00", "--name-only")
    tasks = []
    for record in out.split("\x1e")[1:]:
        sha, parents, message, files = record.split("\x00", 3)
        message = message.strip()
        py = [f for f in files.split() if f.endswith(".py") and not in_tests(f)]
        if len(parents.split()) != 1 or not py or thin_reason(message, False) is not None:
            continue
        if _NOT_A_TASK.match(message) or len(terms(message)) < MIN_WORDS:
            continue
        tasks.append(Task(sha, parents.strip(), message))
    return tasks


def changed_lines(repo: Path, parent: str, sha: str) -> dict[str, list[tuple[int, int, bool]]]:
    """path in the parent -> (first, last, whether lines were only inserted after `first`) of each hunk's
    old side."""
    found: dict[str, list[tuple[int, int, bool]]] = {}
    path = None
    for line in git(repo, "diff", "-U0", "--no-renames", parent, sha, "--", "*.py").splitlines():
        if line.startswith("--- "):
            path = line[6:] if line.startswith("--- a/") else None
        elif line.startswith("@@") and path is not None:
            m = _HUNK.match(line)
            if m:
                start, count = int(m.group(1)), int(m.group(2) or 1)
                found.setdefault(path, []).append((start, start, True) if count == 0 else
                                                  (start, start + count - 1, False))
    return found


def truth_of(symbols_by_path: dict[str, list[Symbol]], candidates: set[str],
             changes: dict[str, list[tuple[int, int, bool]]]) -> set[str]:
    """The innermost candidate symbols the diff changed (a closure's change is its function's)."""
    touched: set[str] = set()
    for path, hunks in changes.items():
        if in_tests(path):
            continue
        inside = [s for s in symbols_by_path.get(path, []) if s.fqn in candidates]
        for first, last, insertion in hunks:
            if insertion:  # between lines `first` and `first + 1`: the symbols holding both
                meeting = [s for s in inside if s.start <= first and first + 1 <= s.end]
            else:
                meeting = [s for s in inside if s.start <= last and first <= s.end]
            innermost = [s for s in meeting if not any(o is not s and s.start <= o.start and o.end <= s.end
                                                       and (o.start, o.end) != (s.start, s.end) for o in meeting)]
            touched.update(s.fqn for s in innermost)
    return touched


class TfIdf:
    """A plain TF-IDF retriever: a document per symbol (its name's words and its source lines)."""

    def __init__(self, root: Path, symbols: list[Symbol]) -> None:
        files: dict[str, list[str]] = {}
        vocabulary: dict[str, int] = {}
        rows: list[Counter] = []
        self.fqns = []
        for s in symbols:
            if s.path not in files:
                try:
                    files[s.path] = (root / s.path).read_text("utf-8", "replace").splitlines()
                except OSError:
                    files[s.path] = []
            text = " ".join(s.fqn.split(".")) + "\n" + "\n".join(files[s.path][max(0, s.start - 1):s.end])
            counts = Counter(_tokens(text))
            for t in counts:
                vocabulary.setdefault(t, len(vocabulary))
            rows.append(counts)
            self.fqns.append(s.fqn)
        self.vocabulary = vocabulary
        df = np.zeros(len(vocabulary))
        for counts in rows:
            for t in counts:
                df[vocabulary[t]] += 1
        n = len(rows)
        self.idf = np.log((1 + n) / (1 + df)) + 1
        self.matrix = np.zeros((n, len(vocabulary)), dtype=np.float32)
        for i, counts in enumerate(rows):
            for t, c in counts.items():
                self.matrix[i, vocabulary[t]] = (1 + math.log(c)) * self.idf[vocabulary[t]]
        norms = np.linalg.norm(self.matrix, axis=1, keepdims=True)
        self.matrix /= np.where(norms == 0, 1, norms)

    def rank(self, text: str, k: int) -> list[str]:
        q = np.zeros(len(self.vocabulary), dtype=np.float32)
        for t, c in Counter(_tokens(text)).items():
            if t in self.vocabulary:
                q[self.vocabulary[t]] = (1 + math.log(c)) * self.idf[self.vocabulary[t]]
        if not q.any():
            return []
        scores = self.matrix @ (q / np.linalg.norm(q))
        top = np.argsort(-scores, kind="stable")[:k]
        return [self.fqns[i] for i in top if scores[i] > 0]


def _tokens(text: str) -> list[str]:
    return [stem(w) for w in words(text) if len(w) > 1 and w not in STOPWORDS]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=Path("/work/repos/flask"))
    parser.add_argument("--work", type=Path, default=CACHE_DIR / "localisation")
    parser.add_argument("--sample", type=int, default=150)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--max-truth", type=int, default=20)
    parser.add_argument("--json-out", type=Path)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()

    eligible = informative(args.repo)
    chosen = {t.sha for t in random.Random(args.seed).sample(eligible, min(args.sample, len(eligible)))}
    tasks = [t for t in eligible if t.sha in chosen]  # oldest first: each index is an update of the last
    work = args.work / args.repo.name
    if not work.exists():
        work.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", str(args.repo), str(work)], check=True)
    print(f"{len(eligible)} informative commits of {args.repo}; {len(tasks)} sampled (seed {args.seed})")

    ours, baseline = Scores(), Scores()
    skipped: Counter = Counter()
    tiers: Counter = Counter()
    seconds: list[float] = []
    rows = []
    started = time.perf_counter()
    with Tenure.open(work, discover=False) as t:
        for n, task in enumerate(tasks, 1):
            git(work, "checkout", "-q", "--force", "--detach", task.parent)
            git(work, "clean", "-q", "-fdx", "-e", ".tenure")
            t.index()
            index = symbol_terms(t.db, t.root)
            candidates = {f for f, test in zip(index.fqns, index.in_tests.tolist(), strict=True) if not test}
            symbols = [s for s in every_symbol(t.db) if s.fqn in candidates]
            by_path: dict[str, list[Symbol]] = {}
            for s in symbols:
                by_path.setdefault(s.path, []).append(s)
            truth = truth_of(by_path, candidates, changed_lines(work, task.parent, task.sha))
            if not truth:
                skipped["its diff changed no symbol of the parent outside tests"] += 1
                continue
            if len(truth) > args.max_truth:
                skipped[f"a sweep: more than {args.max_truth} symbols changed"] += 1
                continue
            begin = time.perf_counter()
            answer = t.resolve(task.message, LIMIT)
            seconds.append(time.perf_counter() - begin)
            ranked = [m.symbol for m in answer.matches if m.symbol in candidates]
            tiers[answer.tier] += 1
            unique = {s.fqn: s for s in symbols}
            plain = TfIdf(t.root, list(unique.values())).rank(task.message, LIMIT)
            ours.add(ranked, truth)
            baseline.add(plain, truth)
            rows.append({"sha": task.sha[:10], "truth": sorted(truth), "resolve": ranked, "tfidf": plain,
                         "subject": task.message.splitlines()[0][:80]})
            if args.verbose:
                print(f"[{n}/{len(tasks)}] {task.sha[:7]} {task.message.splitlines()[0][:60]!r} truth={sorted(truth)}"
                      f"\n    resolve {ranked[:5]}\n    tfidf   {plain[:5]}")
    elapsed = time.perf_counter() - started
    counted = len(ours.f1[KS[0]])
    print(f"{counted} tasks scored in {elapsed:.0f} s; skipped: {dict(skipped) or 'none'}")
    print("leakage guard: each task is resolved on the index of its parent commit (history read up to the "
          "parent), the truth is mapped onto the parent's symbols: a name the commit introduces is neither "
          "truth nor findable")
    table = []
    for name, scores in (("resolve", ours), ("TF-IDF (baseline, same run)", baseline)):
        table.append([name] + [f"{scores.mean(scores.precision, k):.3f} / {scores.mean(scores.recall, k):.3f} / "
                               f"{scores.mean(scores.f1, k):.3f}" for k in KS]
                     + [f"{scores.mean(scores.hits, k):.3f}" for k in KS])
    print_table("task -> code localisation", ["retriever", "P / R / F1 @5", "P / R / F1 @10", "hits@5", "hits@10"],
                table)
    for k in KS:
        ratio = ours.mean(ours.f1, k) / max(baseline.mean(baseline.f1, k), 1e-9)
        print(f"F1@{k}: resolve / TF-IDF = {ratio:.2f}x (target >= 1.20x): {'MET' if ratio >= 1.2 else 'NOT MET'}")
    print(f"resolve's overall tier per task: {dict(tiers)}; resolve p50 {np.percentile(seconds, 50) * 1000:.0f} ms, "
          f"p95 {np.percentile(seconds, 95) * 1000:.0f} ms per task (warm, incl. the stores' evidence)")
    write_json(args.json_out, {"tasks": rows, "skipped": dict(skipped),
                               "resolve": {k: ours.mean(ours.f1, k) for k in KS},
                               "tfidf": {k: baseline.mean(baseline.f1, k) for k in KS}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
