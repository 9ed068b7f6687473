"""The question's text resolved to symbols (SPEC §2.5, `related_by_intent`), and the symbols an answer
is gathered for: what the text names exactly or strongly first; a weak concept's first few, each
worth less; phrases that resolve to nothing are kept as constraints."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from tenure.ask.items import LADDER_CONFIDENCE

if TYPE_CHECKING:
    from tenure.namespace.intent import Resolution

FOCUS = 3  # symbols an answer is gathered for
WEAK_RELEVANCE = 0.5  # a weak match's items weigh this much of an exact one's
WHY_SHOWN = 2  # pieces of a match's evidence an answer shows (its strongest; `tenure resolve` shows all)
WHY_CHARS = 100  # of each


class Resolves(Protocol):
    def resolve(self, text: str, limit: int = 10) -> Resolution: ...


@dataclass(frozen=True)
class Focus:
    symbol: str
    kind: str
    path: str
    line: int
    tier: str  # the join's ladder tier of the match
    relevance: float  # how much its items weigh against the others'
    why: str  # the evidence of the match, in words


def resolve(stores: Resolves, text: str, limit: int = 10) -> dict:
    """`related_by_intent(text)` (`Tenure.resolve`, which brings every store's evidence) as a dict."""
    return stores.resolve(text, limit).as_dict()


def focus(resolution: dict, limit: int = FOCUS) -> list[Focus]:
    """The symbols to gather for: exact and strong matches (best first), else the first of a weak set."""
    matches = resolution["matches"]
    sure = [m for m in matches if m["tier"] in ("exact", "strong")]
    chosen = sure[:limit] or matches[:limit]
    top = max((m["score"] for m in chosen), default=1.0) or 1.0
    out = []
    for m in chosen:
        weight = LADDER_CONFIDENCE.get(m["tier"], 0.25) / LADDER_CONFIDENCE["exact"]
        relevance = min(1.0, weight * (m["score"] / top)) * (1.0 if m in sure else WEAK_RELEVANCE)
        out.append(Focus(m["symbol"], m["kind"], m["path"], m["line"], m["tier"], round(relevance, 3),
                         why_text(m)))
    return out


def why_text(match: dict) -> str:
    """A match's strongest evidence in words, and how much more there is."""
    shown = [e["detail"] if len(e["detail"]) <= WHY_CHARS else e["detail"][:WHY_CHARS].rsplit(" ", 1)[0] + " …"
             for e in match["why"][:WHY_SHOWN]]
    more = len(match["why"]) - len(shown)
    return "; ".join(shown) + (f" (+{more} more)" if more > 0 else "")
