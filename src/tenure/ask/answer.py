"""`ask(question)`: SPEC §2.6's question no single store answers, assembled from all of them.

Split the question (question.py), resolve what it names (phrases.py), gather each store's answer for
those symbols (gather.py), pack them to a token budget (pack.py), render them (render.py) and, with a
model, add a synthesis whose every sentence cites the items it rests on (synthesis.py)."""

from __future__ import annotations

from dataclasses import asdict

from tenure.ask import gather, phrases
from tenure.ask.items import EPISODIC, KNOWLEDGE, MEMORIES, PROCEDURAL, STRUCTURAL, Section, said_once
from tenure.ask.pack import DEFAULT_BUDGET, MIN_BUDGET, drop_last, pack
from tenure.ask.question import split
from tenure.ask.render import head, item_line, render
from tenure.ask.synthesis import MAX_TOKENS
from tenure.config import ConfigError
from tenure.knowledge import tokens
from tenure.knowledge.providers import ProviderError
from tenure.refusal import Refusal

UNASKED = 0.8  # what a question that named its stores did not ask for (rules, pitfalls) weighs this much
MAX_QUESTION = 8_000  # characters: a task text of forty lines, not a file
# An answer is waited for: its model call is retried once at most (a build retries four times, 1+2+4+8 s)
ASK_RETRIES = 1


class AskError(Refusal):
    """A question that cannot be asked as given; the message says how to ask it."""


def ask(stores: gather.Stores, question: str, budget: int = DEFAULT_BUDGET, offline: bool = False) -> dict:
    if not question.strip():
        raise AskError('ask a question, e.g. tenure ask "I am changing the settlement retry policy. What breaks, '
                       'why is it 3, and has anyone tried this before?"')
    if len(question) > MAX_QUESTION:
        raise AskError(f"a question holds at most {MAX_QUESTION:,} characters; this one has {len(question):,}: ask "
                       "about one change at a time")
    if budget < MIN_BUDGET:
        raise AskError(f"a budget of {budget} tokens holds no answer: give at least {MIN_BUDGET}")
    asked = split(question)
    # what the change verb names, as a phrase; the whole statement when that names nothing
    resolution = phrases.resolve(stores, asked.changed) if asked.changed else None
    if resolution is None or not resolution["matches"]:
        resolution = phrases.resolve(stores, asked.subject)
    focus = phrases.focus(resolution)
    notes = list(resolution["degraded"])
    model = None if offline else _model(stores, notes)
    sections = _gather(stores, asked, focus, list(resolution["unresolved"]), notes)
    notes[:] = said_once(notes)
    for section in sections:
        if asked.named and section.store not in asked.named:
            for item in section.items:
                item.relevance *= UNASKED
    answer = {"question": asked.text, "asked": asked.as_dict(), "resolution": resolution,
              "focus": [asdict(f) for f in focus], "constraints": list(resolution["unresolved"]), "degraded": notes}
    reserve = MAX_TOKENS if model else 0
    fixed = tokens.count("\n".join(head(answer))) + 40  # (section titles, the closing line)
    pack(sections, budget - reserve, fixed, item_line)
    answer["synthesis"] = _synthesis(model, asked.text, sections, notes) if model else None
    while True:  # the estimate held, or the least trusted items go until the rendered answer fits
        answer["budget"] = {"tokens": budget, "leftOut": sum(s.left_out for s in sections)}
        answer["budget"]["used"] = 0
        text = render(answer, sections)
        answer["budget"]["used"] = used = tokens.count(text)
        if used <= budget or answer["synthesis"] or not drop_last(sections):
            break
    answer["sections"] = [s.as_dict() for s in sections]
    answer["text"] = render(answer, sections)
    return answer


def _gather(stores: gather.Stores, asked, focus: list[phrases.Focus], unresolved: list[str],
            notes: list[str]) -> list[Section]:
    out = []
    for store in asked.asks:
        if store == STRUCTURAL:
            out.append(gather.structural(stores, focus, notes))
        elif store == KNOWLEDGE:
            out.append(gather.knowledge(stores, focus, asked, unresolved, notes))
        elif store == EPISODIC:
            out.append(gather.episodic(stores, focus, notes))
        elif store == PROCEDURAL:
            out.append(gather.procedural(stores, focus))
        elif store == MEMORIES:
            out.append(gather.memories(stores, focus))
    return out


def _model(stores: gather.Stores, notes: list[str]):
    """The configured model, wrapped in the knowledge store's cache (the same question over the same
    items asks once); None with a note when there is none."""
    from tenure.knowledge.cache import CachedModel

    try:
        provider = stores.knowledge.provider()
    except ConfigError as exc:
        notes.append(f"the model's settings are wrong ({exc}): no synthesis")
        return None
    if provider is None:
        notes.append("no model configured: no synthesis (`[knowledge.model]`)")
        return None
    if hasattr(provider, "max_retries"):  # (a fresh provider per call: the build's keeps its own)
        provider.max_retries = min(provider.max_retries, ASK_RETRIES)
    return CachedModel(provider, stores.knowledge.db)  # (the knowledge store's cache of model calls)


def _synthesis(model, question: str, sections: list[Section], notes: list[str]) -> dict | None:
    from tenure.ask.synthesis import synthesise

    items = [i for s in sections for i in s.items]
    if not items:
        return None
    try:
        return synthesise(model, question, items)
    except ProviderError as exc:
        notes.append(f"the model could not be asked ({exc}): no synthesis")
        return None
