"""The session briefing by intent: the elements a task is about chosen by `related_by_intent` (a
symbol the task names exactly first; why each matched, in words), the memories on them (pitfalls,
VERIFY warnings: the memories' own briefing), and what the other stores know of them — the decisions
and incidents behind them, the past attempts that failed, the rules for their files."""

from __future__ import annotations

from tenure.ask import gather, phrases
from tenure.ask.items import Item, said_once
from tenure.ask.question import split

SCOPE = 5  # elements a briefing is about
JOINED = 3  # of them, those the other stores are asked about (the first call must answer in seconds)
PER_SECTION = 4  # lines each joined section shows
DECISIONS = ("decision", "incident review", "constraint", "rfc", "requirement")
_LADDER = ("exact", "strong", "weak")


def brief(stores: gather.Stores, task: str | None, session: str | None = None, limit: int = 12) -> dict:
    if not task or not task.strip():  # (no task yet: the general briefing)
        return stores.memories.brief(None, session, limit)
    resolution = phrases.resolve(stores, task, limit=SCOPE)
    matches = sorted(resolution["matches"], key=lambda m: (_LADDER.index(m["tier"]) if m["tier"] in _LADDER else 3,
                                                           -m["score"]))[:SCOPE]
    scope = [{"element": m["symbol"], "score": round(m["score"], 4), "tier": m["tier"],
              "why": [f"{m['tier']}: {phrases.why_text(m)}"]} for m in matches]
    focus = phrases.focus({**resolution, "matches": matches}, limit=JOINED)
    notes: list[str] = []
    why = gather.knowledge(stores, focus, split(task), [], notes)
    before = gather.episodic(stores, focus, notes)
    rules = gather.procedural(stores, focus)
    sections = [
        ("Decisions and incidents behind them", _lines([i for i in why.items if i.kind in DECISIONS])),
        ("Past attempts that failed", _lines([i for i in before.items if i.kind == "failed attempt"])),
        # (the promoted ones are among the house rules already)
        ("Candidate rules for their files", _lines([i for i in rules.items if i.tier == "candidate"])),
        ("Not read for this briefing", [f"- {note}" for note in said_once([*resolution["degraded"], *notes])]),
    ]
    # a pitfall written on a method's class concerns the method too
    result = stores.memories.brief(task, session, limit, scope=scope, sections=sections,
                                   around=gather.enclosing(stores.db, [m["symbol"] for m in matches]))
    result["resolution"] = {k: resolution[k] for k in ("tier", "total", "unresolved", "degraded")}
    return result


def _lines(items: list[Item]) -> list[str]:
    best = sorted(items, key=lambda i: -i.rank)[:PER_SECTION]
    return [f"- {i.text} ({i.tier}; {i.source}" + (f"; on {i.symbol})" if i.symbol else ")") for i in best]
