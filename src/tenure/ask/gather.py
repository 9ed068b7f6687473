"""One section per store, gathered for the symbols the question resolved to, each store read through
its own API (the verbs the CLI and the MCP tools call): `what_breaks`, `knowledge.why`,
`episodes.what_happened_before`, `rules_store`, `memories.recall`. Every item keeps the store's tier,
source and confidence; what a store could not answer is a note, never a silent gap."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Protocol

from tenure.ask.items import (
    EDGE_CONFIDENCE,
    EPISODIC,
    KNOWLEDGE,
    LADDER_CONFIDENCE,
    MEMORIES,
    PROCEDURAL,
    STRUCTURAL,
    Item,
    Section,
)
from tenure.ask.phrases import Focus
from tenure.ask.question import Question
from tenure.episodic.timeline import qualifiers
from tenure.memories.briefing import VERIFY, excerpt
from tenure.namespace.elements import display, displays
from tenure.namespace.phrases import TIERS
from tenure.namespace.roles import is_test
from tenure.namespace.symbols import symbols_named
from tenure.refusal import Refusal
from tenure.structural.impact import by_dependant
from tenure.words import counted

if TYPE_CHECKING:
    from tenure.episodic.api import Episodes
    from tenure.knowledge import Knowledge
    from tenure.memories.api import Memories
    from tenure.namespace.intent import Resolution
    from tenure.procedural.api import Rules
    from tenure.storage import Database
    from tenure.structural.store import StructuralStore

QUOTE_CHARS = 300  # of a passage quoted in a line (the whole of it is in `tenure why`)
PER_DOCUMENT = 2  # passages of one document an answer quotes
WHY_LIMIT = 12
HISTORY_KINDS = 5  # kinds of attempt read per symbol
RECALL_LIMIT = 8
VALUE_BOOST = 1.5  # a passage stating the value the question asks about ("why is it 3")
INSIDE = 0.6  # a memory on the symbol's class or module weighs this much of one on the symbol
VERDICT_RELEVANCE = {"failure": 1.0, "mixed": 0.8, "success": 0.6, "unknown": 0.4}
UNKNOWN_VERDICT_CONFIDENCE = 0.3  # an attempt no outcome judged: it happened (git says so), how it went is unknown
STATED_RULE = 1.0  # a rule a person stated
ORDERING_RELEVANCE = 0.6  # a rule about running things applies to the change less directly than one about its file
_VERB = {"http": "calls {it} over HTTP", "inherits": "inherits from {it}", "message": "sends {it} messages",
         "injects": "is injected with {it}"}  # the others: "<relation> it" (calls it, imports it, overrides it)
_REVERT_LINE = re.compile(r"^This reverts commit [0-9a-f]+\.?\s*", re.MULTILINE)


class Stores(Protocol):
    """What the answer reads: `tenure.Tenure` is one."""

    db: Database
    structural: StructuralStore
    memories: Memories
    knowledge: Knowledge
    episodes: Episodes
    rules_store: Rules

    def what_breaks(self, symbol: str, depth: int = 1) -> dict: ...

    def resolve(self, text: str, limit: int = 10) -> Resolution: ...


def structural(stores: Stores, focus: list[Focus], notes: list[str]) -> Section:
    section = Section(STRUCTURAL, more="`tenure what-breaks SYMBOL --depth 2`")
    enriched = False
    # Of several symbols, an item names the one it depends on ("inherits from it" would read as the first's).
    names = displays([f.symbol for f in focus]) if len(focus) > 1 else {}
    for f in focus:
        result = stores.what_breaks(f.symbol)
        summary = result["summary"]
        enriched = enriched or summary["coverage"]["enriched"]
        section.headlines.append(f"{f.symbol}: {summary['text']}")
        rows = by_dependant(result["dependants"])
        it = names.get(f.symbol, "it")
        for row in rows:
            if not is_test(row["path"]):
                section.add(_dependant(row, f, it))
        tests = [r for r in rows if is_test(r["path"])]
        if tests:
            section.add(_tests(tests, f, it))
    if focus and not enriched:
        notes.append("no language server ran: name-matched edges are unverified (`tenure enrich`)")
    if focus and not stores.structural.holds_source("trace"):
        notes.append("no traces ingested: callers in other services are unknown (`tenure traces ingest FILE`)")
    return section


def _tests(rows: list[dict], f: Focus, it: str) -> Item:
    """The tests that depend on it, as one item: a change breaks them differently (they are to be run,
    then updated), and forty test functions would crowd out every other store's answer."""
    files = sorted({r["path"] for r in rows})
    tiers = sorted({r["tier"] for r in rows}, key=list(EDGE_CONFIDENCE).index)
    weakest = tiers[-1]
    sources = ", ".join(sorted({s for r in rows for s in r["sources"]}))
    verb = "depends" if len(rows) == 1 else "depend"
    return Item(STRUCTURAL, "tests", f"{counted(len(rows), 'test')} in {counted(len(files), 'file')} {verb} on {it}: "
                + ", ".join(files[:4]) + (f" +{len(files) - 4}" if len(files) > 4 else ""), weakest,
                f"{counted(sum(len(r['sites']) for r in rows), 'site')} ({sources})",
                EDGE_CONFIDENCE.get(weakest, 0.2), f.relevance, f.symbol, {"tests": [r["symbol"] for r in rows]})


def _dependant(row: dict, f: Focus, it: str) -> Item:
    """One dependant with the sites it depends at; one seen only in traces says so (no code of it here)."""
    where = ", ".join(f"{s['path']}:{s['line']}" for s in row["sites"][:3] if s["path"])
    more = len(row["sites"]) - 3
    where += f" +{more}" if more > 0 else ""
    traced_only = row["sources"] == ["trace"]
    text = f"{row['symbol']} {_VERB.get(row['relation'], row['relation'] + ' {it}').format(it=it)}"
    if traced_only:
        text += (f", seen only in traces ({counted(row['count'], 'time')}, last {row['last_seen'][:10]}): no code "
                 "of it in this repository")
    return Item(STRUCTURAL, f"{row['relation']} (traces only)" if traced_only else row["relation"], text, row["tier"],
                f"{where or 'traces'} ({', '.join(row['sources'])})", EDGE_CONFIDENCE.get(row["tier"], 0.2),
                f.relevance, f.symbol, {"depth": row["depth"], "sites": len(row["sites"])})


def knowledge(stores: Stores, focus: list[Focus], question: Question, unresolved: list[str],
              notes: list[str]) -> Section:
    section = Section(KNOWLEDGE, more="`tenure why SYMBOL -n 50`")
    subjects = [(f.symbol, f.relevance) for f in focus] + [(phrase, LADDER_CONFIDENCE["unresolved"])
                                                            for phrase in unresolved]
    mode = None
    for subject, relevance in subjects:
        answer = stores.knowledge.why(subject, WHY_LIMIT)
        mode = answer["mode"] if answer.get("built") else mode
        if answer["evidence"] or subject in (f.symbol for f in focus):
            section.headlines.append(answer["summary"]["text"].split("; mode:")[0])
        quoted: dict[str, int] = {}
        for e in answer["evidence"]:
            ref = e["source"]["ref"]
            quoted[ref] = quoted.get(ref, 0) + 1
            if quoted[ref] > PER_DOCUMENT:
                continue
            stated = any(re.search(rf"\b{re.escape(w)}\b", e["quote"], re.IGNORECASE) for w in question.value_words())
            source = e["source"]
            where = f"{source['path']}:{source['line']}" if source.get("path") and source.get("line") else \
                (source.get("path") or ref)
            # reached through its class, module, a name it reads or a callee: the link's tier, one rung less sure
            # (as `why` ranks it)
            via = ", ".join(f"{v['path']} {v['symbol']}" for v in e.get("via") or ())
            rung = min(TIERS.index(e["tier"]) + 1, len(TIERS) - 1) if via and e["tier"] in TIERS else None
            section.add(Item(
                KNOWLEDGE, e["what"], f"{ref}: “{_cut(e['quote'], QUOTE_CHARS)}”",
                f"{e['tier']} via {via}" if via else e["tier"], where,
                LADDER_CONFIDENCE.get(TIERS[rung] if rung is not None else e["tier"], 0.25),
                min(1.0, relevance * (VALUE_BOOST if stated else 1.0)),
                e.get("symbol") or "", {"section": source.get("section"), "mode": e["mode"], "how": e["how"]}))
        for c in answer["commits"]["listed"]:
            if c.get("named"):  # a commit whose message names it (those whose diff touched it: history)
                section.add(Item(KNOWLEDGE, "commit", f"{c['sha']} {c['subject']}", c["tier"],
                                          f"commit {c['sha']} ({(c['date'] or '')[:10]})",
                                          LADDER_CONFIDENCE[c["tier"]] * 0.7, relevance * 0.7, subject))
    from tenure.knowledge.api import stale

    error = stores.knowledge.setting_error()
    if mode is None and error:
        notes.append(f"the knowledge store is not built, a setting stops its build: {error}")
    elif mode is None:
        notes.append("the knowledge store is not built: no decisions or incidents are known (`tenure knowledge "
                     "build`)")
    elif error:
        notes.append(stale(error))
    if mode == "offline":
        notes.append("knowledge built offline: passages quoted as written, linked by the names they use")
    return section


def episodic(stores: Stores, focus: list[Focus], notes: list[str]) -> Section:
    """Each attempt once: one that touched a symbol and a close dependant of another (a caller of both)
    is the item that ranks higher."""
    section = Section(EPISODIC, more="`tenure history SYMBOL --all`")
    said: set[str] = set()
    by_source: dict[str, Item] = {}
    for f in focus:
        try:
            result = stores.episodes.what_happened_before(f.symbol, limit=HISTORY_KINDS)
        except Refusal as exc:
            section.headlines.append(f"{f.symbol}: {exc}")
            continue
        section.headlines.append(result["text"])
        for note in result["notes"]:
            if note not in said:
                said.add(note)
                notes.append(note)
        for group in result["groups"]:
            item = _attempt(group, f)
            kept = by_source.get(item.source)
            if kept is None:
                section.add(item)
            elif item.rank > kept.rank:
                section.items[section.items.index(kept)] = item
            else:
                continue
            by_source[item.source] = item
    return section


def _attempt(group: dict, f: Focus) -> Item:
    """A kind of attempt (a commit with its revert, one pull request's commits) as its most telling
    attempt: the one whose verdict is the group's."""
    attempt = next(a for a in group["attempts"] if a["verdict"]["class"] == group["verdict"])
    verdict = attempt["verdict"]
    what = attempt["task"] or attempt["ref"]
    ref = (attempt["commit"] or "")[:10] or f"{attempt['kind']} {attempt['ref']}"
    when = (attempt["when"] or "")[:10] + (f"; {attempt['dated']}" if attempt.get("dated") else "")
    lesson = _lesson(attempt)
    text = f"{verdict['verdict']}: “{_cut(what, 120)}” ({ref}, {when}){qualifiers(attempt)}"
    if group["size"] > 1:
        text += f" and {counted(group['size'] - 1, 'related attempt')}"
    if lesson:
        text += f" — lesson: {_cut(lesson, QUOTE_CHARS)}"
    confidence = verdict["confidence"] if verdict["confidence"] is not None else UNKNOWN_VERDICT_CONFIDENCE
    relevance = VERDICT_RELEVANCE.get(verdict["class"], 0.4) * f.relevance * (1.0 if attempt["relation"] == "touched"
                                                                               else 0.5)
    kind = "failed attempt" if verdict["class"] == "failure" else "attempt"
    return Item(EPISODIC, kind, text, verdict["class"], f"{attempt['kind']} {ref}" + (
        f", {verdict['source']}" if verdict["source"] else ""), confidence, relevance, f.symbol,
                {"relation": attempt["relation"], **({"lesson": lesson} if lesson else {})})


def _lesson(attempt: dict) -> str:
    """What the attempt taught, in its own evidence's words: the revert's message, a reviewer's, or the
    agent's conclusion (the last at its own, decaying, confidence: it says so)."""
    for x in attempt["evidence"]:
        body = _REVERT_LINE.sub("", x.get("body") or "").strip()
        if x.get("revert") and body:
            return " ".join(body.split())
        for said in x.get("comments") or x.get("reviews") or []:
            text = said.get("body") if isinstance(said, dict) else str(said)
            if text and text.strip():
                return " ".join(text.split())
    for c in attempt["conclusions"]:
        return f"{c['text']} (the agent's conclusion, confidence {c['confidence']})"
    return ""


def procedural(stores: Stores, focus: list[Focus]) -> Section:
    section = Section(PROCEDURAL, more="`tenure rules list`")
    paths = {f.path for f in focus if f.path}
    for rule in stores.rules_store.list()["rules"]:
        if rule["status"] == "demoted":
            continue
        promoted = rule["status"] == "promoted"
        if rule["kind"] == "co-change":
            if not paths & {rule["first"], rule["second"]}:
                continue  # a rule about other files
            relevance = 1.0
        else:
            relevance = ORDERING_RELEVANCE if rule["kind"] == "ordering" else 0.8
            if not promoted:
                continue  # a candidate rule about running things is not yet how things are done
        confidence = STATED_RULE if rule["byHand"] else (rule["agreement"] or 0.0)
        section.add(Item(
            PROCEDURAL, f"{rule['kind']} rule", rule["text"], rule["status"],
            f"rule {rule['id']} ({'stated by ' + rule['source'] if rule['byHand'] else _counts(rule)})",
            confidence if promoted else confidence * 0.5, relevance))
    return section


def _counts(rule: dict) -> str:
    return f"{rule['successes']} episodes for, {rule['failures']} against"


def memories(stores: Stores, focus: list[Focus]) -> Section:
    section = Section(MEMORIES, more="`tenure recall QUERY` or `tenure brief --task TEXT`")
    seen: set[int] = set()
    for f in focus:
        for elements, weight in (([f.symbol], 1.0), (enclosing(stores.db, [f.symbol]), INSIDE)):
            if not elements:
                continue
            for m in stores.memories.recall("", elements=elements, limit=RECALL_LIMIT)["results"]:
                if m["id"] in seen or m["via"]:
                    continue
                seen.add(m["id"])
                section.add(_memory(m, f, weight))
    return section


def enclosing(db: Database, fqns: list[str]) -> list[str]:
    """The classes these symbols are members of: a memory written on a class concerns its methods too
    (a module's memories are not pulled in for each of its functions)."""
    return list(dict.fromkeys(s.parent for s in symbols_named(db, fqns) if s.parent and s.parent != s.module))


def _memory(m: dict, f: Focus, weight: float) -> Item:
    explain = m["explain"]
    confidence = explain["freshness"]["factor"] * explain["drift"]["factor"]
    kind_weight = explain["kind"]["factor"] / 3.0  # a pitfall weighs most (SPEC §3)
    title = f"{m['title']} — " if m["title"] and m["kind"] != "session_outcome" else ""
    text = f"{VERIFY + ' ' if m['verify'] else ''}{title}{excerpt(m, QUOTE_CHARS)}"
    return Item(MEMORIES, m["kind"], text, "verify" if m["verify"] else "live",
                f"memory #{m['id']} ({m['author']}, on {', '.join(display(e) for e in m['elements'][:2])})",
                confidence, f.relevance * weight * kind_weight, f.symbol, {"ageDays": m["ageDays"]})


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"
