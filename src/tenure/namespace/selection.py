"""Which elements a task is about, by meaning and not by words alone (SPEC §4).

Three signals; an element's score is their sum and every one that fired is reported:
- names and code: the task's terms in the element's identifier words (full weight) or in its source
  text, read from the file by the symbol's span (docstrings and comments included; less weight);
- embeddings, when a provider exists: the task against a description of the element in words (its
  name and the distinct words of its code, identifiers split: sentence models read prose, not code);
  elements with almost no code (an empty __init__) are not described;
- what the calling store knows (`signals`): for memories, the elements of the memories that
  recall of the task finds.
A task about "checkout" thus finds `OrderProcessor` when its code, docs or memories speak of checkout.
The most specific answer wins: a module is dropped when an element inside it scores nearly as well.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple, Protocol

import numpy as np

from tenure.namespace.elements import contains, display, element_of, places
from tenure.namespace.symbols import definitions
from tenure.namespace.terms import STOPWORDS, terms, words
from tenure.storage import Database

CANDIDATE_KINDS = ("module", "class", "interface", "struct", "enum", "trait", "type", "record", "object",
                   "protocol", "union", "impl")
NAME_WEIGHT = 1.0
CODE_WEIGHT = 0.6  # a word in the body says less about what the element is than a word in its name
# Measured with all-MiniLM-L6-v2 on descriptions of small classes: the right element scores
# 0.2-0.5, unrelated ones 0.0-0.2.
SEMANTIC_MIN = 0.2
MIN_DESCRIPTION_WORDS = 3
COLLAPSE = 2 / 3  # an inner element scoring at least this share of its container's score replaces it
MAX_LINES = 400  # of one element's source read for its terms
DESCRIPTION_WORDS = 160  # sentence models read 256 tokens at most
EMBED_BATCH = 256  # element vectors computed per call; the rest on later calls


@dataclass
class Match:
    element: str
    score: float = 0.0
    why: list[str] = field(default_factory=list)

    def add(self, score: float, why: str) -> None:
        self.score += score
        self.why.append(why)


Signal = tuple[str, float, str]  # (element, score, why)


class Candidate(NamedTuple):
    """An element selection may answer, with the code that stands for it."""

    element: str
    path: str
    start: int
    end: int
    fingerprint: str


class ElementVectors(Protocol):
    """Vectors of elements' descriptions, which the caller keeps between calls by the fingerprint
    of the code each was made from (memories: the `element_vectors` table)."""

    def embed(self, texts: list[str]) -> np.ndarray | None:
        """Unit vectors for `texts`; None when there is no working embedding provider."""

    def stored(self) -> dict[str, tuple[str, np.ndarray]]:
        """element -> (fingerprint, vector) of the vectors kept for the current model."""

    def store(self, vectors: list[tuple[str, str, np.ndarray]]) -> None:
        """Keep these (element, fingerprint, vector), replacing what an element had."""


def select(db: Database, root: Path, task: str, vectors: ElementVectors, signals: Iterable[Signal],
           limit: int) -> list[dict]:
    """The `limit` elements the task is most about, each with its score and why."""
    rows = [Candidate(element_of(s.fqn, s.kind), s.path, s.start or 1, s.end, s.fingerprint)
            for s in definitions(db, CANDIDATE_KINDS)]
    found: dict[str, Match] = {}
    for element, score, why in [*by_terms(root, task, rows), *by_vectors(root, task, rows, vectors), *signals]:
        found.setdefault(element, Match(element)).add(score, why)
    ranked = sorted(found.values(), key=lambda m: (-m.score, m.element))[: limit * 3]
    best = most_specific(db, ranked)[:limit]
    return [{"element": m.element, "score": round(m.score, 4), "why": m.why} for m in best]


def most_specific(db: Database, matches: list[Match]) -> list[Match]:
    """Drop an element when one inside it (a class in a module) scores nearly as well."""
    where = places(db, {m.element for m in matches})
    return [outer for outer in matches if not any(
        inner is not outer and inner.score >= COLLAPSE * outer.score
        and contains(where[outer.element], where[inner.element]) for inner in matches)]


def by_terms(root: Path, task: str, rows: list[Candidate]) -> list[Signal]:
    wanted = terms(task)
    if not wanted:
        return []
    found = []
    for r in rows:
        name_terms = set(terms(" ".join(words(display(r.element)))))
        code_terms = element_terms(str(root), r.path, r.start, r.end, r.fingerprint)
        in_name = [t for t in wanted if t in name_terms]
        in_code = [t for t in wanted if t in code_terms and t not in name_terms]
        score = (NAME_WEIGHT * len(in_name) + CODE_WEIGHT * len(in_code)) / len(wanted)
        if score > 0:
            parts = ([f"name has {', '.join(in_name)}"] if in_name else []) + \
                    ([f"code speaks of {', '.join(in_code)}"] if in_code else [])
            found.append((r.element, score, "; ".join(parts)))
    return found


@lru_cache(maxsize=65536)
def element_terms(root: str, path: str, start: int, end: int, fingerprint: str) -> frozenset[str]:
    """The terms of an element's source (cached by fingerprint: unchanged code is read once)."""
    return frozenset(terms(source(Path(root), path, start, end)))


def source(root: Path, path: str, start: int, end: int) -> str:
    try:
        lines = (root / path).read_text("utf-8", "replace").splitlines()
    except OSError:
        return ""
    return "\n".join(lines[start - 1 : min(end, start - 1 + MAX_LINES)])


def by_vectors(root: Path, task: str, rows: list[Candidate], vectors: ElementVectors) -> list[Signal]:
    query = vectors.embed([task]) if task.strip() else None
    if query is None:
        return []
    known = _element_vectors(rows, root, vectors)
    cosines = {fqn: float(vector @ query[0]) for fqn, vector in known.items()}
    return [(fqn, cos, f"meaning close to the task (cosine {cos:.2f})") for fqn, cos in cosines.items()
            if cos >= SEMANTIC_MIN]


def _element_vectors(rows: list[Candidate], root: Path, vectors: ElementVectors) -> dict[str, np.ndarray]:
    """Kept vectors of the candidates whose code is unchanged; a batch of the missing ones added."""
    stored = vectors.stored()
    current = {r.element: r for r in rows}
    stale = [r for e, r in current.items() if e not in stored or stored[e][0] != r.fingerprint]
    fresh = _embed_elements(root, stale[:EMBED_BATCH], vectors)
    vectors.store([(e, current[e].fingerprint, v) for e, v in fresh.items()])
    known = {e: vector for e, (fingerprint, vector) in stored.items()
             if e in current and fingerprint == current[e].fingerprint}
    return {**known, **fresh}


def _embed_elements(root: Path, rows: list[Candidate], vectors: ElementVectors) -> dict[str, np.ndarray]:
    if not rows:
        return {}
    described = [(r, d) for r in rows if len((d := description(root, r)).split()) > MIN_DESCRIPTION_WORDS]
    embedded = vectors.embed([d for _, d in described]) if described else None
    if embedded is None:
        return {}
    return {r.element: np.asarray(v, dtype=np.float32) for (r, _), v in zip(described, embedded, strict=True)}


def description(root: Path, row: Candidate) -> str:
    """`order processor: class order processor runs the checkout validates basket …`"""
    code = source(root, row.path, row.start, row.end)
    distinct = [w for w in dict.fromkeys(words(code)) if len(w) > 1 and w not in STOPWORDS]
    return f"{' '.join(words(display(row.element)))}: {' '.join(distinct[:DESCRIPTION_WORDS])}"

