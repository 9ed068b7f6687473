"""The answer as a person (or an agent) reads it: what was asked and what it resolved to, what is
degraded, then one section per question — the store's own summary, its items numbered, each with
its tier, source and confidence, and what was left out with the command that shows it."""

from __future__ import annotations

from tenure.ask.items import SECTIONS, Item, Section
from tenure.words import counted


def item_line(item: Item) -> str:
    return (f"[{item.number}] {item.text} ({item.kind}; {item.tier}; {item.source}; confidence "
            f"{item.confidence:.2f})")


def head(answer: dict) -> list[str]:
    asked = answer["asked"]
    named = [SECTIONS[s].lower() for s in asked["named"]]
    out = [f"# {answer['question']}", ""]
    out.append(f"Asked: {', '.join(named) if named else 'nothing in particular: every store answers'}"
               "; rules and pitfalls always.")
    resolution = answer["resolution"]
    if answer["focus"]:
        out.append(f"“{_short(resolution['text'])}” resolves ({resolution['tier']}) to:" if resolution["tier"] != "weak"
                   else f"“{_short(resolution['text'])}” names no symbol surely; weak candidates, to check before "
                        "relying on what is said of them:")
        out += [f"- {f['symbol']} ({f['kind']}, {f['path']}:{f['line']}; {f['tier']}: {f['why']})"
                for f in answer["focus"]]
        others = resolution["total"] - len(answer["focus"])
        if others > 0:
            out.append(f"  ({counted(others, 'other match')}: `tenure resolve` lists them)")
    else:
        out.append(f"“{_short(resolution['text'])}” names no symbol of this project: nothing structural, historical "
                   "or attached to code can be said.")
    if answer["constraints"]:
        out.append("Constraints with no symbol (kept as written, searched in the documents): "
                   + "; ".join(f"“{c}”" for c in answer["constraints"]))
    if answer["degraded"]:
        out.append("Degraded:")
        out += [f"- {note}" for note in answer["degraded"]]
    return out


def section_lines(section: Section, symbol: str | None) -> list[str]:
    out = ["", f"## {section.title}", *section.headlines]
    out += [item_line(i) for i in section.items]
    if not section.items and not section.headlines:
        out.append("nothing known")
    if section.left_out:
        more = section.more.replace("SYMBOL", symbol) if symbol else section.more
        out.append(f"({counted(section.left_out, 'more item')} left out for the budget: {more})")
    return out


def render(answer: dict, sections: list[Section]) -> str:
    symbol = answer["focus"][0]["symbol"] if len(answer["focus"]) == 1 else None
    out = head(answer)
    synthesis = answer.get("synthesis")
    if synthesis and synthesis["sentences"]:
        out += ["", f"## In short ({synthesis['model']}; every sentence cites its items)", synthesis["text"]]
        if synthesis["dropped"]:
            out.append(f"({counted(len(synthesis['dropped']), 'sentence')} of the model dropped: "
                       + "; ".join(d["reason"] for d in synthesis["dropped"]) + ")")
    for section in sections:
        out += section_lines(section, symbol)
    budget = answer["budget"]
    out += ["", f"~{budget['used']:,} of {budget['tokens']:,} tokens"
            + (f"; {counted(budget['leftOut'], 'item')} left out: `--budget {budget['tokens'] * 2}` shows more"
               if budget["leftOut"] else "; nothing left out")]
    return "\n".join(out) + "\n"


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"
