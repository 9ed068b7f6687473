"""A change question split into the questions of SPEC §2.6 and the text that names what changes.

"I am changing the settlement retry policy. What breaks, why is it 3, and has anyone tried this
before?" asks what breaks (structural), why (knowledge) and what happened before (episodic) about
"I am changing the settlement retry policy"; the value it asks about ("3") is kept so that the
passages that state it rank first. A question that names none of the four asks them all: a change is
planned, and every store has something to say about it. Rules and pitfalls are always answered.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tenure.ask.items import EPISODIC, KNOWLEDGE, MEMORIES, PROCEDURAL, STRUCTURAL

ASKS = {  # what in a question asks each store
    STRUCTURAL: r"\bwhat (?:breaks|would break|depends|calls|uses)\b|\bimpact\b|\bbreak(?:s|ing)?\b|\bcallers?\b"
                r"|\bdependan|\baffect(?:s|ed)?\b|\bwho (?:calls|uses)\b",
    KNOWLEDGE: r"\bwhy\b|\breasons?\b|\bdecisions?\b|\brationale\b|\bdecided\b",
    EPISODIC: r"\btried\b|\bbefore\b|\blast time\b|\bhistory\b|\bhappened\b|\battempts?\b|\bprevious(?:ly)?\b"
              r"|\bin the past\b",
    PROCEDURAL: r"\brules?\b|\bconventions?\b|\bhow (?:do|should) we\b|\bprocess\b|\bchecklist\b",
}
ALWAYS = (PROCEDURAL, MEMORIES)  # always loaded (SPEC §2.4), and cheap
# what a change question names after its verb: "I am changing [the settlement retry policy]."
_CHANGED = re.compile(r"\b(?:chang|modify|modifi|refactor|rework|replac|rewrit|updat|fix|remov|renam|touch|edit|"
                      r"mak)\w*\s+((?:[^.?!,;]|\.(?=\w))+)", re.IGNORECASE)  # (a dot inside a name: Flask.run)
_SENTENCE = re.compile(r"(?<=[.?!])\s+|\n\s*\n")
_VALUE = re.compile(r"\bwhy (?:is|are|was|does) (?:it|this|that|they)(?: (?:set to|at|only|still))? "
                    r"([\w.%-]+)", re.IGNORECASE)
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                "twelve")


@dataclass(frozen=True)
class Question:
    text: str
    subject: str  # the text that names what changes: the statements, or the whole text if it is all questions
    changed: str  # what its change verb names ("the settlement retry policy"), or ""
    asks: tuple[str, ...]  # the stores asked, in SECTIONS order
    named: tuple[str, ...]  # the stores the question itself asked for (empty: it named none)
    value: str = ""  # the value a why-question asks about ("3" of "why is it 3")

    def value_words(self) -> tuple[str, ...]:
        """How prose may write the value: `3` and `three`."""
        if not self.value:
            return ()
        if self.value.isdigit() and int(self.value) < len(NUMBER_WORDS):
            return self.value, NUMBER_WORDS[int(self.value)]
        return (self.value,)

    def as_dict(self) -> dict:
        return {"subject": self.subject, "changed": self.changed, "asks": list(self.asks), "named": list(self.named),
                **({"value": self.value} if self.value else {})}


def split(text: str) -> Question:
    text = " ".join(text.split())
    sentences = [s.strip() for s in _SENTENCE.split(text) if s.strip()]
    statements = [s for s in sentences if not s.endswith("?")]
    named = tuple(store for store, pattern in ASKS.items() if re.search(pattern, text, re.IGNORECASE))
    asked = set(named or ASKS) | set(ALWAYS)
    value = _VALUE.search(text)
    subject = " ".join(statements) or text
    changed = _CHANGED.search(subject)
    return Question(text, subject, changed.group(1).strip() if changed else "",
                    tuple(s for s in dict.fromkeys((*ASKS, *ALWAYS)) if s in asked), named,
                    value.group(1).rstrip(".?,") if value else "")
