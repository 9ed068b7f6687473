"""Whether a model's claim rests on the text it says it came from: a source's words are only ever shown
as found in that source, and a model's words only ever as the model's.

A model names an entity of a text unit: the unit must name it (its text, or the document's reference,
title or section tenure labelled it with), else the mention is the model's invention and is dropped.
A model's description must share a third of its content words with the unit beyond the names it is
about, else it says something the unit does not ("helper is SAFE TO DELETE" of a text that never says so) and is
dropped. `passage` finds the verbatim sentence a mention rests on, which answers quote in its place.
"""

from __future__ import annotations

import re

from tenure.knowledge.offline import entity_key, sentences
from tenure.namespace.phrases import clean, words_of

_REFERENCE = re.compile(r"\b(?:ADR|RFC)[-_ ]?\d{1,5}\b|#\d{1,7}\b", re.IGNORECASE)
SUPPORT_SHARE = 3  # a claim shares at least 1/SUPPORT_SHARE of its content words with its text
# words that say only that two things are linked: a claim of nothing more needs no support
_LINKING = {"relate", "related", "relation", "relationship", "link", "linked", "connect", "connected", "associated",
            "mention", "mentioned", "describe", "described", "refer", "refers"}


def flat(text: str) -> str:
    """Case folded, whitespace collapsed: how a phrase is looked for in a text."""
    return " ".join(text.split()).casefold()


def names_it(text: str, name: str) -> bool:
    """Whether `text` names `name`: written as it is (code marks aside, case and spacing ignored), or a
    decision or ticket by another spelling (ADR-1 for ADR-0001)."""
    phrase = flat(clean(name))
    if not phrase:
        return False
    if phrase in flat(text):
        return True
    key = entity_key(name)
    return key.startswith(("adr-", "rfc-", "#")) and any(entity_key(m.group(0)) == key
                                                        for m in _REFERENCE.finditer(text))


def supports(text: str, claim: str, about: list[str]) -> bool:
    """Whether `text` bears `claim` out: it has a third or more of the claim's content words beyond the
    words of the names it is `about` (a paraphrase keeps that many; an injected instruction shares a
    word or two by chance). A claim that is only the names is supported by naming them."""
    own = set().union(*(words_of(name) for name in about)) if about else set()
    said = words_of(claim) - own - _LINKING
    return len(said & words_of(text)) * SUPPORT_SHARE >= len(said)


def bears_out(text: str, names: list[str], claim: str) -> bool:
    """Whether `text` names every one of `names` and supports `claim` about them."""
    return all(names_it(text, name) for name in names) and supports(text, claim, names)


def passage(text: str, name: str) -> str | None:
    """The first sentence of `text` that names `name`, verbatim (whitespace collapsed); None when no
    sentence does."""
    return next((s for s in sentences(text) if names_it(s, name)), None)


def verbatim(quote: str, text: str) -> bool:
    """Whether `quote` stands in `text` as written (whitespace collapsed; a cut quote's ellipsis aside)."""
    return " ".join(quote.removesuffix("…").split()) in " ".join(text.split())
