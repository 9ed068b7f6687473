"""Counts and lists in messages read as English: `1 call site`, `2 call sites`, `a, b, c and 2 more`."""

from __future__ import annotations

# A phrase's noun is the word before its first preposition ("citation in the code"), else its last word.
_PREPOSITIONS = frozenset({"in", "of", "on", "from", "for", "to", "by", "with", "at", "through"})


def plural(noun: str, count: int) -> str:
    """`noun` as `count` of it is said: `call sites`, `citations in the code`."""
    if count == 1:
        return noun
    words = noun.split(" ")
    at = next((i - 1 for i, w in enumerate(words) if i and w in _PREPOSITIONS), len(words) - 1)
    words[at] = _plural_word(words[at])
    return " ".join(words)


def _plural_word(word: str) -> str:
    if word.endswith("y") and word[-2:-1] not in tuple("aeiou"):
        return word[:-1] + "ies"
    if word.endswith(("s", "sh", "ch", "x", "z")):
        return word + "es"
    return word + "s"


def counted(count: int, noun: str) -> str:
    """`1 file`, `2 files`."""
    return f"{count} {plural(noun, count)}"


def first_few(items: list[str], shown: int = 3, between: str = ", ") -> str:
    """Items named in a sentence: the first few, and how many more (the JSON lists them all)."""
    more = len(items) - shown
    return between.join(items[:shown]) + (f" and {more} more" if more > 0 else "")
