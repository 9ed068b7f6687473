"""Offline global search's reduce step: the partial answers (community reports' central sentences)
grouped into the recurring themes they share, each with the sentences and commits behind it.

A theme is what several partial answers from different sources name: a code name, a ticket, a
decision (what the offline reader takes from a sentence), or else a word the sentences share. The
themes that gather the most sources come first; a sentence joins the first theme it names, so each is
quoted once. No model: the grouping is deterministic and says so.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from tenure.knowledge.offline import extract
from tenure.namespace.phrases import words_of
from tenure.namespace.terms import STOPWORDS

THEMES = 6
SENTENCES_PER_THEME = 3
MIN_SOURCES = 2  # a theme recurs: named by partial answers from at least two sources
MIN_WORD = 4  # a shared word names a theme from this length ("url" is no theme of a question about URLs)


@dataclass
class Theme:
    name: str
    kind: str  # the entity's type (symbol, ticket, decision, ...) or "word"
    tier: str  # of the link between its phrases and the symbol it names ("" when it names none)
    points: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        sources = sorted({ref for p in self.points for ref in _sources(p)})
        return {"theme": self.name, "kind": self.kind, "tier": self.tier or None, "sentences": len(self.points),
                "points": self.points[:SENTENCES_PER_THEME],
                "documents": [s for s in sources if not s.startswith("commit ")],
                "commits": [s.removeprefix("commit ") for s in sources if s.startswith("commit ")]}


def group(points: list[dict], question: str, symbols: Callable[[set[str]], dict[str, tuple[str, str]]]
          ) -> tuple[list[Theme], list[dict]]:
    """The recurring themes of `points` ({description, refs, report, score}: best first) and the points no
    theme took. `symbols`: entity keys -> (fqn, tier) for those the join linked to one symbol (``url_for``,
    ``flask.url_for`` and ``flask.helpers.url_for`` are one theme). Words of the question name no theme:
    every answer to it shares them."""
    asked = words_of(question)
    topics = [_topics(p["description"], asked) for p in points]
    joined = symbols({key for found in topics for key, _, kind in found if kind != "word"})
    candidates: dict[tuple[str, str], list[int]] = defaultdict(list)
    tiers: dict[str, str] = {}
    for i, found in enumerate(topics):
        for key, name, kind in found:
            if key in joined:
                name, tiers[joined[key][0]] = joined[key]
            elif kind == "symbol" and name.isalpha() and name.islower():
                kind = "word"  # ``index`` that names no one symbol is the English word
            if i not in candidates[(name, kind)]:
                candidates[(name, kind)].append(i)

    def sources(members: list[int]) -> int:
        return len({ref for i in members for ref in _sources(points[i])})

    def relevance(members: list[int]) -> float:
        return sum(points[i]["score"] for i in members)

    # names before words; the most sources first (it recurs), then the most relevant reports'
    ranked = sorted(candidates.items(), key=lambda c: (c[0][1] == "word", -sources(c[1]), -relevance(c[1]), c[0][0]))
    taken: set[int] = set()
    themes: list[Theme] = []
    for (name, kind), members in ranked:
        free = [i for i in members if i not in taken]
        if sources(free) < MIN_SOURCES:
            continue
        themes.append(Theme(name, kind, tiers.get(name, ""), [points[i] for i in free]))
        taken.update(free)
        if len(themes) == THEMES:
            break
    return themes, [p for i, p in enumerate(points) if i not in taken]


def _sources(point: dict) -> list[str]:
    return point["refs"] or [str(point.get("report", ""))]


def _topics(sentence: str, asked: set[str]) -> list[tuple[str, str, str]]:
    """What a sentence names, as (entity key, name, kind): its entities as the offline reader finds them,
    then its longer content words outside the question's."""
    found = [(m.key, m.name, m.type) for m in extract(sentence, "").mentions.values()]
    found += [(w, w, "word") for w in sorted(words_of(sentence) - asked)
              if len(w) >= MIN_WORD and w not in STOPWORDS and w.isalpha()]
    return found
