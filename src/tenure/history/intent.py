"""History's evidence for `related_by_intent`: the symbols changed by the past commits whose messages
speak like the text ("make url_for's external URLs use the server name" finds the commits that changed
external URL building, and the symbols their diffs touched).

The commits' messages are scored by their words (binary, idf-weighted, a long message diluted as
BM25 does); the best `COMMITS` vote for the innermost symbols each touched, a commit touching many
symbols voting less for each. Thin commits (a typo fix, a version bump) and merges say nothing and are
left out. The words of every message are read once per process and history state.
"""

from __future__ import annotations

import math
import threading
from collections import defaultdict

import numpy as np

from tenure.history.api import GitHistory
from tenure.namespace.intent import Evidence, Found, Gathered
from tenure.namespace.terms import terms
from tenure.storage import Database
from tenure.structural.naming import SEPARATORS
from tenure.words import counted

COMMITS = 12  # the most similar commits that vote
MIN_SHARE = 0.35  # a commit holding less of the text's words' rarity does not vote
MAX_SYMBOLS = 40  # a commit touching more (a sweeping refactor) says nothing about one of them
WEIGHT = 0.8  # the evidence weight of a symbol voted for by one commit as like the text as can be
K1, B = 1.2, 0.75
SHOWN = 3  # commits quoted in a symbol's evidence


class _Messages:
    """The words of every informative commit message, as an inverted index, and what each touched."""

    def __init__(self, db: Database) -> None:
        rows = db.rows("SELECT id, sha, subject, body FROM history_commits"
                       " WHERE off_head = 0 AND is_merge = 0 AND thin_reason IS NULL ORDER BY id")
        self.ids = [r[0] for r in rows]
        self.sha = [r[1] for r in rows]
        self.subject = [r[2] for r in rows]
        position = {cid: i for i, cid in enumerate(self.ids)}
        vocabulary: dict[str, int] = {}
        postings: dict[int, list[int]] = defaultdict(list)
        lengths = np.zeros(len(rows), dtype=np.float32)
        for i, (_, _, subject, body) in enumerate(rows):
            found = terms(f"{subject}\n{body}")
            lengths[i] = len(found)
            for t in found:
                postings[vocabulary.setdefault(t, len(vocabulary))].append(i)
        self.vocabulary = vocabulary
        self.postings = {t: np.array(p, dtype=np.int32) for t, p in postings.items()}
        average = float(lengths.mean()) if len(rows) else 1.0
        self.norm = (K1 + 1) / (1 + K1 * (1 - B + B * lengths / max(average, 1.0)))
        touched: dict[int, set[str]] = defaultdict(set)
        for commit_id, fqn in db.rows("SELECT commit_id, fqn FROM history_symbols"):
            if commit_id in position:
                touched[position[commit_id]].add(fqn)
        self.touched = {i: _innermost(fqns) for i, fqns in touched.items()}

    def similar(self, text: str) -> list[tuple[int, float]]:
        """(commit position, similarity) of the commits whose messages are most like the text: the share
        of the text's words' rarity (idf) a message holds, a long message diluted; at least `MIN_SHARE`."""
        asked = [t for t in terms(text) if t in self.vocabulary]
        if not asked or not self.ids:
            return []
        scores = np.zeros(len(self.ids), dtype=np.float32)
        n = len(self.ids)
        rarity = 0.0
        for t in asked:
            hits = self.postings[self.vocabulary[t]]
            idf = math.log1p((n - len(hits) + 0.5) / (len(hits) + 0.5))
            rarity += idf
            scores[hits] += idf * self.norm[hits]
        scores /= rarity
        top = np.argsort(-scores, kind="stable")[:COMMITS]
        return [(i, float(scores[i])) for i in top.tolist() if scores[i] >= MIN_SHARE]


def _innermost(fqns: set[str]) -> list[str]:
    """The touched symbols with no touched symbol inside them (a method, not its class and module).
    In sorted order what is inside a name follows it among the names it prefixes: a commit that touched
    a thousand symbols is not a million comparisons."""
    ordered = sorted(fqns)
    out = []
    for i, f in enumerate(ordered):
        j = i + 1
        while j < len(ordered) and ordered[j].startswith(f) and ordered[j][len(f)] not in SEPARATORS:
            j += 1
        if not (j < len(ordered) and ordered[j].startswith(f)):
            out.append(f)
    return out


class HistoryEvidence:
    """An `EvidenceProvider` over the project's git history (`GitHistory`)."""

    def __init__(self, history: GitHistory) -> None:
        self.history = history
        self._kept: tuple[tuple, _Messages] | None = None
        self._lock = threading.Lock()

    def _messages(self) -> _Messages:
        db = self.history.db
        state = (db.rows("SELECT count(*), max(id) FROM history_commits")[0], self.history.mapping_version())
        with self._lock:
            if self._kept is None or self._kept[0] != state:
                self._kept = (state, _Messages(db))
            return self._kept[1]

    def gather(self, text: str) -> Gathered:
        if not self.history.available:
            return Gathered(degraded=(f"no git history: {self.history.reason or 'not a git repository'}",))
        messages = self._messages()
        if not messages.ids:
            return Gathered(degraded=("no informative commit read from the git history yet",))
        votes: dict[str, float] = defaultdict(float)
        cited: dict[str, list[int]] = defaultdict(list)
        for i, score in messages.similar(text):
            touched = messages.touched.get(i, [])
            if not touched or len(touched) > MAX_SYMBOLS:
                continue
            for fqn in touched:
                votes[fqn] += score / math.sqrt(len(touched))
                cited[fqn].append(i)
        if not votes:
            return Gathered()
        found = []
        for fqn, vote in votes.items():
            quoted = "; ".join(f"{messages.sha[i][:7]} “{messages.subject[i][:70]}”"
                               for i in cited[fqn][:SHOWN])
            detail = f"changed by {counted(len(cited[fqn]), 'past commit')} whose message speaks like this: {quoted}"
            found.append(Found(fqn, Evidence("history", detail, WEIGHT * min(1.0, vote))))
        return Gathered(tuple(found))
