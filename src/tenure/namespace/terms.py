"""Terms: the words a text is about, normalised so that "Throttled", "throttling" and
`throttleRequests` share one. Used for term overlap in recall and for element selection."""

from __future__ import annotations

import re
from functools import lru_cache

WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*|[0-9]+")
# camelCase / PascalCase / ACRONYMWord boundaries inside one identifier
_PLURAL_ACRONYM = re.compile(r"[A-Z]{2,}s")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")

# Words that say nothing about what a text is about (English function words, common keywords).
_STOPWORDS = """a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further had has have having
he her here hers him his how i if in into is it its itself just me more most my no nor not now of off on once only
or other our ours out over own same she should so some such than that the their theirs them then there these they
this those through to too under until up very was we were what when where which while who whom why will with would
you your yours self none true false return def class public private static void new let var const func fn"""
STOPWORDS = frozenset(_STOPWORDS.split())


def words(text: str) -> list[str]:
    """Lower-case words in order, identifiers split at case changes and underscores."""
    out: list[str] = []
    for token in WORD.findall(text):
        out.extend(_parts(token))
    return out


def _parts(token: str) -> list[str]:
    """An identifier's words, lower case; a plural acronym (`URLs`, `APIs`) is one word."""
    if _PLURAL_ACRONYM.fullmatch(token):
        return [token.lower()]
    return [part.lower() for part in _CAMEL.findall(token)]


def stem(word: str) -> str:
    """A deliberately small suffix stripper: enough to join inflections, never a dictionary."""
    w = word
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    for suffix in ("ing", "ed"):
        if len(w) > len(suffix) + 2 and w.endswith(suffix):
            w = w[: -len(suffix)]
            if len(w) > 2 and w[-1] == w[-2] and w[-1] not in "lsz":
                w = w[:-1]  # stopped -> stop
            break
    else:
        if len(w) > 4 and w.endswith("es") and w[-3] in "sxz":
            w = w[:-2]  # classes -> class
        elif len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
    if len(w) > 4 and w.endswith("e"):
        w = w[:-1]  # throttle -> throttl, like throttling
    return w


def terms(text: str) -> list[str]:
    """Distinct stemmed content words of `text`, in first-seen order."""
    seen: dict[str, None] = {}
    for token in WORD.findall(text):
        seen.update(token_terms(token))
    return list(seen)


@lru_cache(maxsize=1 << 16)
def token_terms(token: str) -> dict[str, None]:
    """The stemmed content words of one identifier (code repeats its identifiers: each is split once)."""
    return {stem(w): None for w in _parts(token) if len(w) > 1 and w not in STOPWORDS}


def term_words(text: str) -> dict[str, str]:
    """Each term of `text` (as `terms` gives them) and the word it was written as first: what a person
    is shown ("change", not the stem "chang")."""
    seen: dict[str, str] = {}
    for w in words(text):
        if len(w) > 1 and w not in STOPWORDS:
            seen.setdefault(stem(w), w)
    return seen


def normalised(text: str) -> str:
    """The text as a sequence of lower-case words: what "the same content" means without vectors."""
    return " ".join(words(text))
