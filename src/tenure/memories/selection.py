"""Which elements a task is about, by meaning and not by words alone (SPEC §4).

Three signals, the strongest wins and every one that fired is reported:
- names and code: the task's terms in the element's identifier words (full weight) or in its source
  text, read from the file by the symbol's span (docstrings and comments included; less weight);
- embeddings: the task against the element's name and the head of its code, when a provider exists;
- memories: recall of the task; the elements of the memories that match it.
A task about "checkout" thus finds `OrderProcessor` when its code, docs or memories speak of checkout.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from tenure.memories.elements import display, kind_of
from tenure.memories.terms import terms, words
from tenure.memories.vectors import Vectors
from tenure.storage import Database

CANDIDATE_KINDS = ("module", "class", "interface", "struct", "enum", "trait", "type", "record", "object",
                   "protocol", "union", "impl")
NAME_WEIGHT = 1.0
CODE_WEIGHT = 0.6  # a word in the body says less about what the element is than a word in its name
SEMANTIC_MIN = 0.35  # sentence-embedding cosines below this are unrelated text
MEMORY_MIN = 0.2
MAX_LINES = 400  # of one element's source read for its terms
EMBED_HEAD_CHARS = 1500  # the name and head of the code (docstring, signatures) describe it best
EMBED_BATCH = 256  # element vectors computed per call; the rest on later calls


@dataclass
class Match:
    element: str
    score: float = 0.0
    why: list[str] = field(default_factory=list)

    def add(self, score: float, why: str) -> None:
        self.score = max(self.score, score)
        self.why.append(why)


def select(db: Database, root: Path, task: str, vectors: Vectors, memory_hits: list[dict], limit: int) -> list[dict]:
    rows = [{**r, "fqn": f"module:{r['fqn']}" if r["kind"] == "module" else r["fqn"]} for r in db.query(
        f"""SELECT fqn, kind, path, start_line, end_line, fingerprint FROM symbols
            WHERE generated = 0 AND kind IN ({", ".join("?" * len(CANDIDATE_KINDS))})""", CANDIDATE_KINDS)]
    found: dict[str, Match] = {}
    for element, score, why in [*by_terms(root, task, rows), *by_vectors(db, root, task, rows, vectors),
                                *by_memories(memory_hits)]:
        found.setdefault(element, Match(element)).add(score, why)
    spans = {r["fqn"]: (r["end_line"] or 0) - (r["start_line"] or 0) for r in rows}
    # equal scores: the narrower element (a class before the module holding it) is the better answer
    best = sorted(found.values(), key=lambda m: (-m.score, spans.get(m.element, 0), m.element))[:limit]
    return [{"element": m.element, "score": round(m.score, 4), "why": m.why} for m in best]


def by_terms(root: Path, task: str, rows: list[dict]) -> list[tuple[str, float, str]]:
    wanted = terms(task)
    if not wanted:
        return []
    found = []
    for r in rows:
        name_terms = set(terms(" ".join(words(display(r["fqn"])))))
        code_terms = element_terms(str(root), r["path"] or "", r["start_line"] or 1, r["end_line"] or 0,
                                   r["fingerprint"])
        in_name = [t for t in wanted if t in name_terms]
        in_code = [t for t in wanted if t in code_terms and t not in name_terms]
        score = (NAME_WEIGHT * len(in_name) + CODE_WEIGHT * len(in_code)) / len(wanted)
        if score > 0:
            parts = ([f"name has {', '.join(in_name)}"] if in_name else []) + \
                    ([f"code speaks of {', '.join(in_code)}"] if in_code else [])
            found.append((r["fqn"], score, "; ".join(parts)))
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


def by_vectors(db: Database, root: Path, task: str, rows: list[dict], vectors: Vectors) -> list[tuple[str, float, str]]:
    query = vectors.embed([task]) if task.strip() else None
    if query is None:
        return []
    model = vectors.provider.name
    known = _element_vectors(db, model, rows, root, vectors)
    found = []
    for fqn, vector in known.items():
        cos = float(vector @ query[0])
        if cos >= SEMANTIC_MIN:
            found.append((fqn, cos, f"meaning close to the task (cosine {cos:.2f})"))
    return found


def _element_vectors(db: Database, model: str, rows: list[dict], root: Path, vectors: Vectors) -> dict[str, np.ndarray]:
    """Cached vectors of the candidates whose code is unchanged; a batch of the missing ones added."""
    stored = {r["element"]: r for r in db.query("SELECT element, fingerprint, vector FROM element_vectors"
                                                " WHERE model = ?", (model,))}
    current = {r["fqn"]: r for r in rows}
    stale = [r for fqn, r in current.items() if fqn not in stored or stored[fqn]["fingerprint"] != r["fingerprint"]]
    fresh = _embed_elements(root, stale[:EMBED_BATCH], vectors)
    with db.transaction():
        db.executemany(
            "INSERT INTO element_vectors (element, fingerprint, model, vector) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (element) DO UPDATE SET fingerprint = excluded.fingerprint, model = excluded.model,"
            " vector = excluded.vector",
            [(fqn, current[fqn]["fingerprint"], model, v.tobytes()) for fqn, v in fresh.items()],
        )
    known = {fqn: np.frombuffer(r["vector"], dtype=np.float32) for fqn, r in stored.items()
             if fqn in current and r["fingerprint"] == current[fqn]["fingerprint"]}
    return {**known, **fresh}


def _embed_elements(root: Path, rows: list[dict], vectors: Vectors) -> dict[str, np.ndarray]:
    if not rows:
        return {}
    texts = [f"{r['kind']} {' '.join(words(display(r['fqn'])))} ({r['path']})\n"
             + source(root, r["path"] or "", r["start_line"] or 1, r["end_line"] or 0)[:EMBED_HEAD_CHARS] for r in rows]
    embedded = vectors.embed(texts)
    if embedded is None:
        return {}
    return {r["fqn"]: np.asarray(v, dtype=np.float32) for r, v in zip(rows, embedded, strict=True)}


def by_memories(hits: list[dict]) -> list[tuple[str, float, str]]:
    found = []
    for hit in hits:
        rel = hit["explain"]["relevance"]["value"]
        if rel < MEMORY_MIN:
            continue
        name = f"#{hit['id']}" + (f" “{hit['title']}”" if hit["title"] else "")
        found += [(e, rel, f"memory {name} speaks of it") for e in hit["elements"] if kind_of(e) != "project"]
    return found
