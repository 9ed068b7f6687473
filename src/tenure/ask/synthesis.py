"""A short synthesis by a model, in which every sentence cites the items of the answer it rests on
([1], [2]…). What the model says is checked, not trusted: a sentence that cites nothing, or cites a
number that is not an item of this answer, is dropped and listed with the reason."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tenure.ask.items import Item

if TYPE_CHECKING:
    from tenure.knowledge.cache import CachedModel

MAX_TOKENS = 400
SYSTEM = (
    "You answer a software engineer's question about a planned code change, using ONLY the numbered items "
    "given. Write at most five short sentences. End every sentence with the numbers of the items it rests "
    "on, like [2] or [1][4]. Never state anything no item supports; say what the items do not tell. Plain "
    "text, no lists."
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\[(“\"'])")
_CITE = re.compile(r"\[(\d+)\]")


def prompt(question: str, items: list[Item]) -> list[dict]:
    listed = "\n".join(f"[{i.number}] ({i.store}, {i.kind}, {i.tier}, confidence {i.confidence:.2f}) {i.text}"
                       for i in items)
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"Question: {question}\n\nItems:\n{listed}"}]


def synthesise(model: CachedModel, question: str, items: list[Item]) -> dict:
    text = model.ask("ask synthesis", prompt(question, items), MAX_TOKENS)
    return checked(text, {i.number for i in items}) | {"model": model.name}


def checked(text: str, numbers: set[int]) -> dict:
    """The sentences of `text` that cite only items in `numbers` (and at least one), and the dropped."""
    kept, dropped = [], []
    for sentence in _SENTENCE.split(" ".join(text.split())):
        if not sentence.strip():
            continue
        cites = [int(n) for n in _CITE.findall(sentence)]
        foreign = sorted({n for n in cites if n not in numbers})
        if not cites:
            dropped.append({"text": sentence, "reason": "cites no item"})
        elif foreign:
            dropped.append({"text": sentence, "reason": f"cites {', '.join(f'[{n}]' for n in foreign)}, not an item "
                                                        "of this answer"})
        else:
            kept.append({"text": sentence, "cites": sorted(set(cites))})
    return {"sentences": kept, "dropped": dropped, "text": " ".join(s["text"] for s in kept)}
