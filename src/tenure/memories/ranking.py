"""Recall scoring, exactly as SPEC §3: every factor a pure function, every score explained.

score = relevance × kind weight × freshness × citations × ignored × drift, where
relevance = 0.55 × cosine + 0.45 × term overlap (term overlap alone when there are no vectors).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

SEMANTIC_WEIGHT = 0.55
TERMS_WEIGHT = 0.45
KIND_WEIGHTS = {"pitfall": 3.0, "convention": 2.0, "note": 1.5, "session_outcome": 1.0}
HALF_LIFE_DAYS = 45.0
CITATION_CAP = 1.8
# 1 + 0.2·log2(1 + citations): 1 citation 1.2×, 3 → 1.4×, 7 → 1.6×, 15 or more → the 1.8× cap.
CITATION_SCALE = 0.2
IGNORED_SESSIONS = 5
IGNORED_FACTOR = 0.75
DRIFT_FACTOR = 0.6


def relevance(cosine: float | None, overlap: float) -> float:
    """Without a vector the score is purely lexical (SPEC §3: nothing breaks, it degrades)."""
    if cosine is None:
        return overlap
    return SEMANTIC_WEIGHT * max(cosine, 0.0) + TERMS_WEIGHT * overlap


def age_days(last_true: datetime, now: datetime) -> float:
    return max((now - last_true).total_seconds(), 0.0) / 86400.0


def freshness(last_true: datetime, now: datetime) -> float:
    """Halves every 45 days since the memory was last known true (written or confirmed)."""
    return 0.5 ** (age_days(last_true, now) / HALF_LIFE_DAYS)


def citation_factor(citations: int) -> float:
    return min(CITATION_CAP, 1.0 + CITATION_SCALE * math.log2(1 + citations))


def is_ignored(sessions_served: int, citations: int) -> bool:
    return sessions_served >= IGNORED_SESSIONS and citations == 0


@dataclass(frozen=True)
class Signals:
    """What the database knows about one memory at recall time."""

    kind: str
    last_true: datetime
    drifted_at: datetime | None
    drifted: bool  # its element changed after it was last confirmed
    citations_declared: int
    citations_inferred: int
    sessions_served: int
    impressions: int


def score(cosine: float | None, overlap: float, s: Signals, now: datetime) -> float:
    """relevance × kind × freshness × citations × ignored × drift."""
    citations = s.citations_declared + s.citations_inferred
    return (relevance(cosine, overlap) * KIND_WEIGHTS[s.kind] * freshness(s.last_true, now)
            * citation_factor(citations) * (IGNORED_FACTOR if is_ignored(s.sessions_served, citations) else 1.0)
            * (DRIFT_FACTOR if s.drifted else 1.0))


def explain(cosine: float | None, overlap: float, s: Signals, now: datetime) -> dict:
    """The score and every factor that made it, as JSON."""
    citations = s.citations_declared + s.citations_inferred
    rel = relevance(cosine, overlap)
    kind_w = KIND_WEIGHTS[s.kind]
    fresh = freshness(s.last_true, now)
    cited = citation_factor(citations)
    ignored = is_ignored(s.sessions_served, citations)
    ignored_f = IGNORED_FACTOR if ignored else 1.0
    drift_f = DRIFT_FACTOR if s.drifted else 1.0
    return {
        "score": round(score(cosine, overlap, s, now), 6),
        "relevance": {
            "value": round(rel, 6),
            "semantic": None if cosine is None else round(cosine, 6),
            "terms": round(overlap, 6),
            "formula": "term overlap (no vector)" if cosine is None else
            f"{SEMANTIC_WEIGHT} × semantic + {TERMS_WEIGHT} × terms",
        },
        "kind": {"kind": s.kind, "factor": kind_w},
        "freshness": {"days": round(age_days(s.last_true, now), 2), "half_life_days": HALF_LIFE_DAYS,
                      "since": s.last_true.isoformat(), "factor": round(fresh, 6)},
        "citations": {"declared": s.citations_declared, "inferred": s.citations_inferred, "factor": round(cited, 6)},
        "ignored": {"sessions_served": s.sessions_served, "impressions": s.impressions, "ignored": ignored,
                    "factor": ignored_f},
        "drift": {"drifted_at": s.drifted_at.isoformat() if s.drifted_at else None, "drifted": s.drifted,
                  "factor": drift_f},
    }
