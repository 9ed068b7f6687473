"""An answer packed to a token budget: what must be said (the question's resolution, the stores'
summaries, what is degraded) always; then items, most trusted and most relevant first, while they
fit; each section counts what it left out and names the command that shows it."""

from __future__ import annotations

from collections.abc import Callable

from tenure.ask.items import SECTIONS, Item, Section
from tenure.knowledge import tokens

DEFAULT_BUDGET = 3000  # tokens (cl100k_base): a few thousand, a small part of an agent's context
MIN_BUDGET = 200
FIRST = 3  # items of each section taken before any other: every store asked is heard, not only the largest


def pack(sections: list[Section], budget: int, fixed_tokens: int,
         line: Callable[[Item], str]) -> tuple[int, int]:
    """Keep, in each section, the items that fit `budget` beside the `fixed_tokens` every answer
    spends: each section's best, then each one's second best, up to its FIRST, then the rest, best
    first (confidence × relevance); number them in the order they are shown. Returns (tokens used,
    items left out)."""
    used = fixed_tokens + sum(tokens.count(h) for s in sections for h in s.headlines)
    order = {store: i for i, store in enumerate(SECTIONS)}
    ranked = {id(s): sorted(s.items, key=lambda i: -i.rank) for s in sections}
    candidates = sorted(((item, section, min(n, FIRST)) for section in sections
                         for n, item in enumerate(ranked[id(section)])),
                        key=lambda c: (c[2], -c[0].rank, order[c[1].store]))
    kept: dict[int, list[Item]] = {id(s): [] for s in sections}
    left = 0
    for item, section, _ in candidates:
        cost = tokens.count(line(item)) + 1
        if used + cost <= budget:
            kept[id(section)].append(item)
            used += cost
        else:
            section.left_out += 1
            left += 1
    for section in sections:
        section.items = sorted(kept[id(section)], key=lambda i: -i.rank)
    renumber(sections)
    return used, left


def drop_last(sections: list[Section]) -> bool:
    """Leave out the least trusted, least relevant item kept (when the rendered answer is over its
    budget after all), of a section that keeps another while there is one; False when none is left."""
    kept = [(item, section) for section in sections for item in section.items if len(section.items) > 1] or \
        [(item, section) for section in sections for item in section.items]
    if not kept:
        return False
    item, section = min(kept, key=lambda pair: pair[0].rank)
    section.items.remove(item)
    section.left_out += 1
    renumber(sections)
    return True


def renumber(sections: list[Section]) -> None:
    """Number the items in the order they are shown: [1] is the first item of the first section."""
    number = 0
    for section in sections:
        for item in section.items:
            number += 1
            item.number = number
