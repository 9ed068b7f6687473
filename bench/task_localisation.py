"""Task -> code localisation from real history: `Tenure.resolve` against a plain TF-IDF retriever.

    python bench/task_localisation.py [--repo /work/repos/flask] [--work DIR] [--truth DIR] [--sample 150]
                                      [--snapshots 8] [--seed 7] [--max-truth 20] [--json-out FILE]

Each informative commit of the repository (not a merge, not thin by `tenure.history.thin`, not a
release or a version bump, at least six content words, a change to a Python file outside tests) is a
task: its message (subject and body) is the task text, and the truth is the symbols its diff changed.

- The truth: tenure's history store maps each commit's hunks onto the symbols of an index (span, carried
  along the file's history, or hunk names; a change mapped only to a whole file, or to an ambiguous name,
  is left out), the innermost of nested ones, tests left out. The index is the next group's snapshot when
  it reaches the commit (its names are closest to the commit's), else a clone at HEAD (`--truth`).
- The tasks, a seeded sample, oldest first, are cut into `--snapshots` groups; each group is answered on
  a snapshot taken BEFORE all its commits (their parents' common ancestor, `git merge-base --octopus`),
  checked out in a second clone and indexed there with its history (incremental from the previous
  snapshot; embeddings and the knowledge build off: `resolve` runs with names, words, graph and history).
- Leakage: the snapshot's index and history hold nothing of the task's commit or later ones (the script
  checks that the history store reads exactly the commits the snapshot reaches), and the truth counts
  only symbols that exist in the snapshot by full name: a name the commit introduced (or one added between
  the snapshot and the commit) can be neither truth nor found. A task whose truth is then empty, or more
  than `--max-truth` symbols (a sweep is no task), is skipped and counted.
- Both retrievers rank the same symbols (the snapshot's symbols outside tests, closures folded into their
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
from tenure.namespace.roles import is_test as in_tests  # noqa: E402
from tenure.namespace.symbol_terms import symbol_terms  # noqa: E402
from tenure.namespace.symbols import Symbol, every_symbol  # noqa: E402
from tenure.namespace.terms import STOPWORDS, stem, terms, words  # noqa: E402

KS = (5, 10)
LIMIT = 10
MIN_WORDS = 6
_NOT_A_TASK = re.compile(r"^(release|bump|version|prepare|start version|changelog|update changelog|merge|"
                         r"fix(ed)? typos?|typos?|pre-commit|\[pre-commit|docs?:|update (docs|readme|copyright))",
                         re.IGNORECASE)


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


def truths(t: Tenure, shas: list[str]) -> dict[str, set[str]]:
    """sha -> the innermost symbols outside tests its diff changed, as the history store of `t` maps them
    onto its index (the commits its HEAD does not reach are missing)."""
    out = {}
    for sha, commit in t.history.lookup(shas).items():
        fqns = {s.fqn for s in commit.symbols if s.how not in ("file", "hunk-ambiguous") and not in_tests(s.path)}
        out[sha] = {f for f in fqns if not any(o != f and o.startswith(f) and o[len(f)] in ".#:$/" for o in fqns)}
    return out


@dataclass
class Answered:
    task: Task
    snapshot: str
    candidates: set[str]
    resolve: list[str]
    tfidf: list[str]
    tier: str


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
    parser.add_argument("--truth", type=Path, help="a clone at HEAD, indexed with its history (default: made)")
    parser.add_argument("--sample", type=int, default=150)
    parser.add_argument("--snapshots", type=int, default=8)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--max-truth", type=int, default=20)
    parser.add_argument("--json-out", type=Path)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()

    eligible = informative(args.repo)
    chosen = {t.sha for t in random.Random(args.seed).sample(eligible, min(args.sample, len(eligible)))}
    tasks = [t for t in eligible if t.sha in chosen]  # oldest first
    print(f"{len(eligible)} informative commits of {args.repo}; {len(tasks)} sampled (seed {args.seed})")
    with Tenure.open(args.truth or clone(args.repo, args.work / "head"), discover=False) as head:
        if not head.history.status()["commits"]:
            head.index()
        at_head = truths(head, [task.sha for task in tasks])
    work = clone(args.repo, args.work / "snapshots")

    ours, baseline = Scores(), Scores()
    skipped: Counter = Counter()
    tiers: Counter = Counter()
    seconds: list[float] = []
    rows = []
    truth_from: Counter = Counter()
    started = time.perf_counter()
    groups = [[tasks[i] for i in g] for g in np.array_split(np.arange(len(tasks)), args.snapshots) if len(g)]

    def score(answered: list[Answered], truth: dict[str, set[str]], where: str) -> None:
        for a in answered:
            found = truth.get(a.task.sha)
            truth_from[where if found is not None else "HEAD"] += 1
            wanted = (found if found is not None else at_head.get(a.task.sha, set())) & a.candidates
            if not wanted:
                skipped["no symbol it changed exists in its snapshot (outside tests)"] += 1
                continue
            if len(wanted) > args.max_truth:
                skipped[f"a sweep: more than {args.max_truth} symbols changed"] += 1
                continue
            tiers[a.tier] += 1
            ours.add(a.resolve, wanted)
            baseline.add(a.tfidf, wanted)
            rows.append({"sha": a.task.sha[:10], "snapshot": a.snapshot[:10], "truth": sorted(wanted),
                         "resolve": a.resolve, "tfidf": a.tfidf, "subject": a.task.message.splitlines()[0][:80]})
            if args.verbose:
                print(f"  {a.task.sha[:7]} {a.task.message.splitlines()[0][:60]!r} truth={sorted(wanted)}\n"
                      f"    resolve {a.resolve[:5]}\n    tfidf   {a.tfidf[:5]}")

    pending: list[Answered] = []
    with Tenure.open(work, discover=False) as t:
        for g, group in enumerate(groups, 1):
            snapshot = git(work, "merge-base", "--octopus", *[task.parent for task in group]).strip()
            git(work, "checkout", "-q", "--force", "--detach", snapshot)
            git(work, "clean", "-q", "-fdx", "-e", ".tenure")
            t.index()
            reached = int(git(work, "rev-list", "--count", "HEAD").strip())
            read = t.history.status()["commits"]  # (those HEAD reaches)
            if read != reached:
                raise SystemExit(f"leak check failed: the history store holds {read} commits, {snapshot[:10]} "
                                 f"reaches {reached}")
            # the previous group's commits, mapped onto this later snapshot (names closer to theirs than HEAD's)
            score(pending, truths(t, [a.task.sha for a in pending]), "the next snapshot")
            index = symbol_terms(t.db, t.root)
            candidates = {f for f, test in zip(index.fqns, index.in_tests.tolist(), strict=True) if not test}
            symbols = {s.fqn: s for s in every_symbol(t.db) if s.fqn in candidates}
            tfidf = TfIdf(t.root, list(symbols.values()))
            print(f"snapshot {g}/{len(groups)} {snapshot[:10]}: {reached} commits, {len(candidates)} symbols "
                  f"outside tests, {len(group)} tasks")
            pending = []
            for task in group:
                begin = time.perf_counter()
                answer = t.resolve(task.message, LIMIT)
                seconds.append(time.perf_counter() - begin)
                pending.append(Answered(task, snapshot, candidates,
                                        [m.symbol for m in answer.matches if m.symbol in candidates],
                                        tfidf.rank(task.message, LIMIT), answer.tier))
    score(pending, {}, "HEAD")
    elapsed = time.perf_counter() - started
    counted = len(ours.f1[KS[0]])
    print(f"{counted} tasks scored in {elapsed:.0f} s; skipped: {dict(skipped) or 'none'}; truth mapped onto: "
          f"{dict(truth_from)}")
    print("leakage guard: every task is answered on a snapshot before its commit (history store checked: it "
          "holds exactly the commits the snapshot reaches); truth counts only symbols the snapshot has")
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


def clone(repo: Path, into: Path) -> Path:
    if not into.exists():
        into.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", str(repo), str(into)], check=True)
    return into


if __name__ == "__main__":
    sys.exit(main())
