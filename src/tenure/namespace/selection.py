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

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple, Protocol

import numpy as np

from tenure.namespace.elements import contains, display, element_of, places
from tenure.namespace.line_terms import LineTerms
from tenure.namespace.symbols import definitions
from tenure.namespace.terms import STOPWORDS, term_words, terms, words
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
EMBED_BATCH = 64  # element descriptions embedded, then stored, at a time by `prepare`
# Element vectors a query computes itself (an edit the watcher just indexed); the rest are left to
# `prepare`, which `tenure index` starts in the background: embedding a project's elements is a
# minute of CPU on flask (240 elements), an hour on Django, and an agent's first call must answer in
# a second or two.
INLINE_EMBED = 4
NOT_DESCRIBED = np.zeros(0, dtype=np.float32)


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
    """Vectors of elements' descriptions and the terms of their code, which the caller keeps
    between calls by the fingerprint of the code each was made from (memories: the
    `element_vectors` and `element_terms` tables)."""

    def embed(self, texts: list[str]) -> np.ndarray | None:
        """Unit vectors for `texts`; None when there is no working embedding provider."""

    def configured(self) -> bool:
        """Whether an embedding provider is configured (without loading or calling it)."""

    def stored(self) -> dict[str, tuple[str, np.ndarray]]:
        """element -> (fingerprint, vector) of the vectors kept for the current model."""

    def store(self, vectors: list[tuple[str, str, np.ndarray]]) -> None:
        """Keep these (element, fingerprint, vector), replacing what an element had."""

    def stored_terms(self) -> dict[str, tuple[str, str]]:
        """element -> (fingerprint, its code's terms joined by spaces, with a space either side)."""

    def store_terms(self, terms: list[tuple[str, str, str]]) -> None:
        """Keep these (element, fingerprint, terms as `stored_terms` gives them)."""


class Selected(NamedTuple):
    elements: list[dict]  # the elements the task is most about, each with its score and why
    candidates: int  # elements selection could answer
    unembedded: int  # of them, those whose meaning was not read (no vector yet: `prepare` makes them)


def candidates(db: Database) -> list[Candidate]:
    """One per element: of a name defined twice (a class under `if`/`else`), the first definition (by path,
    then line)."""
    found: dict[str, Candidate] = {}
    for s in definitions(db, CANDIDATE_KINDS):
        found.setdefault(element_of(s.fqn, s.kind), Candidate(element_of(s.fqn, s.kind), s.path, s.start or 1, s.end,
                                                              s.fingerprint))
    return list(found.values())


def select(db: Database, root: Path, task: str, vectors: ElementVectors, signals: Iterable[Signal],
           limit: int, inline: int = INLINE_EMBED) -> Selected:
    """The `limit` elements the task is most about, and how much of the project's meaning was read
    (`inline`: how many missing element vectors it may make itself)."""
    rows = candidates(db)
    meant, unembedded = by_vectors(root, task, rows, vectors, inline)
    found: dict[str, Match] = {}
    for element, score, why in [*by_terms(root, task, rows, vectors), *meant, *signals]:
        found.setdefault(element, Match(element)).add(score, why)
    ranked = sorted(found.values(), key=lambda m: (-m.score, m.element))[: limit * 3]
    best = most_specific(db, ranked)[:limit]
    return Selected([{"element": m.element, "score": round(m.score, 4), "why": m.why} for m in best], len(rows),
                    unembedded)


def prepare_terms(db: Database, root: Path, kept: ElementVectors, rows: list[Candidate] | None = None,
                  code: LineTerms | None = None) -> int:
    """Read and keep the terms of the elements whose code changed since; how many were read (`code`:
    the files' terms, shared with the other readers of an index run).
    `tenure index` does this, so that the first briefing reads no code: measured 8.9 s of CPU for
    Django's 13,202 elements on a first index (its structural index: ~55 s), 0.2 s when nothing changed."""
    rows = candidates(db) if rows is None else rows
    stored = kept.stored_terms()
    code = code or LineTerms(root)
    read = [(r.element, r.fingerprint, _code_terms(code, r)) for r in rows
            if stored.get(r.element, ("",))[0] != r.fingerprint]
    if read:
        kept.store_terms(read)
    return len(read)


def prepare(db: Database, root: Path, vectors: ElementVectors,
            progress: Callable[[int, int], None] | None = None) -> dict:
    """Embed every element whose vector is missing or older than its code, a batch at a time, each
    stored as it is made (a run stopped halfway keeps what it did): the work a query leaves undone."""
    rows = candidates(db)
    prepare_terms(db, root, vectors, rows)
    stale = _stale(rows, vectors.stored())
    done = 0
    for start in range(0, len(stale), EMBED_BATCH):
        batch = stale[start : start + EMBED_BATCH]
        fresh = _embed_elements(root, batch, vectors)
        if fresh is None:
            return {"embedded": done, "elements": len(rows), "left": len(stale) - done, "reason": "no embeddings"}
        vectors.store([(r.element, r.fingerprint, fresh[r.element]) for r in batch])
        done += len(batch)
        if progress:
            progress(done, len(stale))
    return {"embedded": done, "elements": len(rows), "left": 0}


def most_specific(db: Database, matches: list[Match]) -> list[Match]:
    """Drop an element when one inside it (a class in a module) scores nearly as well."""
    where = places(db, {m.element for m in matches})
    return [outer for outer in matches if not any(
        inner is not outer and inner.score >= COLLAPSE * outer.score
        and contains(where[outer.element], where[inner.element]) for inner in matches)]


def by_terms(root: Path, task: str, rows: list[Candidate], kept: ElementVectors) -> list[Signal]:
    """Signals by the task's terms in an element's name and code (its code's terms as kept, else read
    now and kept: `prepare` reads them all after an index)."""
    shown = term_words(task)  # a person reads the task's words, not their stems
    wanted = list(shown)
    if not wanted:
        return []
    found = []
    code = LineTerms(root)
    stored = kept.stored_terms()
    read: list[tuple[str, str, str]] = []
    for r in rows:
        name_terms = set(terms(" ".join(words(display(r.element)))))
        fingerprint, code_terms = stored.get(r.element, ("", ""))
        if fingerprint != r.fingerprint:
            code_terms = _code_terms(code, r)
            read.append((r.element, r.fingerprint, code_terms))
        in_name = [t for t in wanted if t in name_terms]
        in_code = [t for t in wanted if f" {t} " in code_terms and t not in name_terms]
        score = (NAME_WEIGHT * len(in_name) + CODE_WEIGHT * len(in_code)) / len(wanted)
        if score > 0:
            parts = ([f"name has {', '.join(shown[t] for t in in_name)}"] if in_name else []) + \
                    ([f"code speaks of {', '.join(shown[t] for t in in_code)}"] if in_code else [])
            found.append((r.element, score, "; ".join(parts)))
    if read:
        kept.store_terms(read)
    return found


def _code_terms(code: LineTerms, row: Candidate) -> str:
    """The terms of the element's code (its first MAX_LINES lines), joined by spaces, a space either side."""
    return f" {' '.join(code.span(row.path, row.start - 1, min(row.end, row.start - 1 + MAX_LINES)))} "


def source(root: Path, path: str, start: int, end: int) -> str:
    try:
        lines = (root / path).read_text("utf-8", "replace").splitlines()
    except OSError:
        return ""
    return "\n".join(lines[start - 1 : min(end, start - 1 + MAX_LINES)])


def by_vectors(root: Path, task: str, rows: list[Candidate], vectors: ElementVectors,
               inline: int = INLINE_EMBED) -> tuple[list[Signal], int]:
    """Signals by meaning, and how many candidates have no vector yet (their meaning unread)."""
    query = vectors.embed([task]) if task.strip() else None
    if query is None:
        return [], 0
    known, unembedded = _element_vectors(rows, root, vectors, inline)
    cosines = {fqn: float(vector @ query[0]) for fqn, vector in known.items() if vector.size}
    return [(fqn, cos, f"meaning close to the task (cosine {cos:.2f})") for fqn, cos in cosines.items()
            if cos >= SEMANTIC_MIN], unembedded


def _stale(rows: list[Candidate], stored: dict[str, tuple[str, np.ndarray]]) -> list[Candidate]:
    return [r for r in rows if r.element not in stored or stored[r.element][0] != r.fingerprint]


def _element_vectors(rows: list[Candidate], root: Path, vectors: ElementVectors,
                     inline: int) -> tuple[dict[str, np.ndarray], int]:
    """Kept vectors of the candidates whose code is unchanged, with at most `inline` missing ones
    made now; and how many are still missing."""
    stored = vectors.stored()
    stale = _stale(rows, stored)
    now, later = stale[:inline], stale[inline:]
    fresh = _embed_elements(root, now, vectors)
    if fresh:
        vectors.store([(r.element, r.fingerprint, fresh[r.element]) for r in now])
    current = {r.element: r.fingerprint for r in rows}
    known = {e: vector for e, (fingerprint, vector) in stored.items() if current.get(e) == fingerprint}
    return {**known, **(fresh or {})}, len(later) + (len(now) if fresh is None else 0)


def _embed_elements(root: Path, rows: list[Candidate], vectors: ElementVectors) -> dict[str, np.ndarray] | None:
    """The vector of each element's description (None: no embeddings). An element with almost no
    code has no description: it is kept with an empty vector (`NOT_DESCRIBED`), close to no task,
    so that it is not described again until its code changes."""
    described = [(r, d) for r in rows if len((d := description(root, r)).split()) > MIN_DESCRIPTION_WORDS]
    embedded = vectors.embed([d for _, d in described]) if described else []
    if embedded is None:
        return None
    out = {r.element: np.asarray(v, dtype=np.float32) for (r, _), v in zip(described, embedded, strict=True)}
    return {r.element: out.get(r.element, NOT_DESCRIBED) for r in rows}


def description(root: Path, row: Candidate) -> str:
    """`order processor: class order processor runs the checkout validates basket …`"""
    code = source(root, row.path, row.start, row.end)
    distinct = [w for w in dict.fromkeys(words(code)) if len(w) > 1 and w not in STOPWORDS]
    return f"{' '.join(words(display(row.element)))}: {' '.join(distinct[:DESCRIPTION_WORDS])}"

