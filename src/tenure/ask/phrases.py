"""The question's text resolved to symbols (SPEC §2.5, `related_by_intent`), and the symbols an answer
is gathered for: what the text names exactly or strongly first; a weak concept's first few, each
worth less; phrases that resolve to nothing are kept as constraints."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from tenure.ask.items import LADDER_CONFIDENCE

if TYPE_CHECKING:
    from tenure.storage import Database

FOCUS = 3  # symbols an answer is gathered for
WEAK_RELEVANCE = 0.5  # a weak match's items weigh this much of an exact one's


class Resolves(Protocol):
    db: Database

    def resolve(self, text: str, limit: int = 10) -> object: ...


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
    """`related_by_intent(text)` as a dict (`Resolution.as_dict()`)."""
    return _stand_in(stores.db, text, limit)


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
                         "; ".join(e["detail"] for e in m["why"])))
    return out


# --- a stand-in for tenure.namespace.intent.related_by_intent until it lands (branch `resolve`) ----------
_CODE = re.compile(r"`([^`]+)`|\b([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+|[a-z]+_[a-z_]+|[A-Z][a-z]+[A-Z]\w*|[A-Z_]{3,})\b")
_CHANGE = re.compile(r"\b(?:chang\w*|modify\w*|refactor\w*|updat\w*|rework\w*|replac\w*|fix\w*)\s+(?:how\s+)?"
                     r"([^.?!,;]+)", re.IGNORECASE)


def _stand_in(db: Database, text: str, limit: int) -> dict:
    from tenure.namespace.phrases import PhraseIndex, words_of

    index = PhraseIndex.of(db)
    phrases = [a or b for a, b in _CODE.findall(text)] + [m.strip() for m in _CHANGE.findall(text)]
    matches: dict[str, dict] = {}
    unresolved = []
    for phrase in dict.fromkeys(phrases):
        found = index.resolve(phrase)
        if found.tier == "unresolved" and len(words_of(phrase)) >= 2:
            shared = Counter()
            for word in words_of(phrase):
                for fqn in index.by_word.get(word, ()):
                    shared[fqn] += 0
            wanted = words_of(phrase)
            scored = Counter({f: len(wanted & words_of(".".join(f.split(".")[-2:]))) for f, e in index.fqns.items()
                              if not e.in_tests})
            best = max(scored.values(), default=0)
            top = [f for f, n in scored.items() if n == best] if best >= 2 else []
            if len(top) == 1:
                found = type(found)(phrase, "strong", (top[0],), f"its words {', '.join(sorted(wanted))}", 1)
        if found.tier == "unresolved":
            unresolved.append(phrase)
            continue
        for fqn in found.symbols:
            entry = index.fqns[fqn]
            matches.setdefault(fqn, {"symbol": fqn, "kind": entry.kind, "path": entry.path, "line": 0,
                                     "tier": found.tier, "score": 1.0 / (1 + len(found.symbols)),
                                     "why": [{"kind": "name", "detail": f"'{phrase}': {found.how}", "weight": 1.0}]})
    ranked = sorted(matches.values(), key=lambda m: (["exact", "strong", "weak"].index(m["tier"]), -m["score"]))
    tier = ranked[0]["tier"] if ranked else "unresolved"
    return {"text": text, "tier": tier, "matches": ranked[:limit], "total": len(ranked),
            "unresolved": unresolved, "degraded": ["stand-in resolution (names and words only)"]}
