"""The session briefing: the text an agent reads before it touches the code.

One line per memory, in the words of SPEC §3:
  - **ApiGateway** [PITFALL] [VERIFY — the element drifted since this was written] (agent/sarah, 96 days ago): …
An organisation-scope memory carries [ORG — …] after its kind.
"""

from __future__ import annotations

from collections.abc import Sequence

from tenure.namespace.elements import display, displays
from tenure.words import counted

KIND_ORDER = ("pitfall", "convention", "note", "session_outcome")
HEADINGS = {"pitfall": "Pitfalls", "convention": "Conventions", "note": "Notes", "session_outcome": "Past sessions"}
VERIFY = "[VERIFY — the element drifted since this was written]"
ORG = "[ORG — the organisation's, for every project of it]"
SHOWN_ELEMENTS = 3
EXCERPT_CHARS = 500  # of a memory's text in a briefing line (a fact is a few sentences; the rest is in its history)
TITLE_CHARS = 200  # of its title (longer ones predate the limit on what a memory may hold)


def age_text(days: int) -> str:
    if days <= 0:
        return "today"
    return f"{counted(days, 'day')} ago"


def label(memory: dict) -> str:
    if memory["kind"] == "session_outcome":
        return f"[SESSION OUTCOME: {(memory['outcome'] or 'unknown').upper()}]"
    return f"[{memory['kind'].upper()}]"


def excerpt(memory: dict, limit: int | None = EXCERPT_CHARS) -> str:
    """A memory's content on one line, cut at a word within `limit` characters (None: whole)."""
    text = " ".join(memory["content"].split())
    if limit is None or len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0] if " " in text[:limit] else text[:limit]
    return f"{cut} … [{len(text) - len(cut):,} more characters: `tenure history {memory['id']}`]"


def line(memory: dict, limit: int | None = EXCERPT_CHARS) -> str:
    names = list(displays(memory["elements"]).values())
    shown = ", ".join(names[:SHOWN_ELEMENTS]) + (f" +{len(names) - SHOWN_ELEMENTS}" if len(names) > SHOWN_ELEMENTS
                                                  else "")
    tags = " ".join([label(memory)] + ([ORG] if memory.get("scope") == "org" else []) +
                    ([VERIFY] if memory["verify"] else []))
    text = excerpt(memory, limit)
    if memory["title"] and memory["kind"] != "session_outcome":
        title = memory["title"] if limit is None or len(memory["title"]) <= TITLE_CHARS else \
            memory["title"][:TITLE_CHARS] + "…"
        text = f"{title} — {text}"
    via = f" (via #{memory['via']['from']})" if memory.get("via") else ""
    return f"- **{shown}** {tags} ({memory['author']}, {age_text(memory['ageDays'])}){via}: {text}"


def merge(*lists: list[dict], limit: int) -> list[dict]:
    """The best `limit` memories of several recalls (each once), pitfalls first, then by score."""
    best: dict[int, dict] = {}
    for results in lists:
        for m in results:
            if m["id"] not in best or m["score"] > best[m["id"]]["score"]:
                best[m["id"]] = m
    top = sorted(best.values(), key=lambda m: -m["score"])[:limit]
    return sorted(top, key=lambda m: (KIND_ORDER.index(m["kind"]), -m["score"]))


def lease_text(leases: list[str], conflicts: list[dict]) -> str:
    """What the session holds, and who else is working on the same elements."""
    if not leases:
        return ""
    names = displays([*leases, *(c["element"] for c in conflicts)])
    out = [f"Leased: {', '.join(names[e] for e in leases)}."]
    out += [f"{names[c['element']]} is also leased by session {c['session']} ({c['agent']}): coordinate before "
            "changing it." for c in conflicts]
    return "\n".join(out) + "\n"


def render(task: str | None, scope: list[dict], memories: list[dict], mode_note: str, review_count: int,
           rules: Sequence[str] = (), sections: Sequence[tuple[str, list[str]]] = ()) -> str:
    out = [f"# Briefing: {task}" if task else "# Briefing: the project", ""]
    if rules:  # always loaded: the rules promoted from episodes or stated (`tenure rules`)
        out += ["## House rules", *rules, ""]
    if scope:
        out.append("Elements this task is about:")
        out += [f"- {display(s['element'])} ({s['element']}): {'; '.join(s['why'])}" for s in scope]
        out.append("")
    elif task:
        out += ["No element matched this task by name, code or memory.", ""]
    for heading, lines in sections:  # what the other stores know of these elements
        if lines:
            out += [f"## {heading}", *lines, ""]
    if not memories:
        out.append("Nothing is written about this yet. When you learn something the next agent needs, "
                   "`tenure remember` it.")
    for kind in KIND_ORDER:
        group = [m for m in memories if m["kind"] == kind]
        if group:
            out += [f"## {HEADINGS[kind]}", *map(line, group), ""]
    drifted = sum(1 for m in memories if m["verify"])
    if drifted:
        one = drifted == 1
        out.append(f"{drifted} of these {'was' if one else 'were'} written before {'its' if one else 'their'} "
                   f"element's code changed: verify before relying on {'it' if one else 'them'}, then "
                   "`tenure confirm ID`.")
    if review_count:
        out.append(f"{counted(review_count, 'memory')} {'waits' if review_count == 1 else 'wait'} for review "
                   "(`tenure review`).")
    out.append(f"Recall: {mode_note}.")
    return "\n".join(out).rstrip() + "\n"
