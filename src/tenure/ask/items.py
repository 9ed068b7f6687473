"""What an answer is made of: items, each from one store with its tier, source and confidence, in
sections (one per question), and the notes a degraded store leaves."""

from __future__ import annotations

from dataclasses import dataclass, field

# The questions of SPEC §2.6 and the stores that answer them, in the order an answer lists them.
STRUCTURAL, KNOWLEDGE, EPISODIC, PROCEDURAL, MEMORIES = "structural", "knowledge", "episodic", "procedural", "memories"
SECTIONS = {
    STRUCTURAL: "What breaks",
    KNOWLEDGE: "Why it is this way",
    EPISODIC: "What happened before",
    PROCEDURAL: "Rules that apply",
    MEMORIES: "Pitfalls and notes",
}
# How far an item can be trusted by its tier: an edge's (SPEC §2.1) or the join's ladder (§2.5).
EDGE_CONFIDENCE = {"resolved": 0.95, "observed": 0.9, "inferred": 0.6, "ambiguous": 0.4, "dynamic": 0.2}
LADDER_CONFIDENCE = {"exact": 0.9, "strong": 0.75, "weak": 0.4, "unresolved": 0.25}


@dataclass
class Item:
    store: str
    kind: str  # caller, decision, incident review, attempt, rule, pitfall, ...
    text: str  # the line a person reads
    tier: str  # its edge tier, ladder tier, verdict or rule status
    source: str  # where it comes from: file:line, a document and section, a commit, a rule or memory id
    confidence: float  # 0..1: how far to trust it, from its tier and evidence
    relevance: float = 1.0  # 0..1: how close to what was asked (the match it came through, the question)
    symbol: str = ""  # the symbol it is about
    detail: dict = field(default_factory=dict)  # what a reader may want beside the line (a quote, a lesson)
    number: int = 0  # its number in the packed answer, which a synthesis cites as [n]

    @property
    def rank(self) -> float:
        return self.confidence * self.relevance

    def as_dict(self) -> dict:
        return {"n": self.number, "store": self.store, "kind": self.kind, "text": self.text, "tier": self.tier,
                "source": self.source, "confidence": round(self.confidence, 3), "relevance": round(self.relevance, 3),
                "symbol": self.symbol or None, **({"detail": self.detail} if self.detail else {})}


@dataclass
class Section:
    store: str
    headlines: list[str] = field(default_factory=list)  # the store's own summaries (what-breaks' lower bound,
    # the history's count), one per symbol: always shown
    items: list[Item] = field(default_factory=list)
    more: str = ""  # the command that shows everything this section holds
    left_out: int = 0  # items packing left out

    @property
    def title(self) -> str:
        return SECTIONS[self.store]

    def add(self, item: Item) -> None:
        """Keep `item` unless the section holds the same line from the same source (a class's answer
        repeats what its method's gave)."""
        if not any(i.text == item.text and i.source == item.source for i in self.items):
            self.items.append(item)

    def as_dict(self) -> dict:
        return {"store": self.store, "title": self.title, "headlines": self.headlines,
                "items": [i.as_dict() for i in self.items], "leftOut": self.left_out, "more": self.more}


def said_once(notes: list[str]) -> list[str]:
    """The degraded stores' notes, each once: a note that another states in full and more is left out
    (the phrase ladder and the history answer both say "no git history: …", the second with its consequence)."""
    unique = list(dict.fromkeys(notes))
    return [n for n in unique if not any(other != n and other.startswith(n) for other in unique)]
