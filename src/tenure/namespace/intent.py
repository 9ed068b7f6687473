"""`related_by_intent` (SPEC 2.5, 2.6): a phrase or a whole task text resolved to the symbols it is about,
each with its ladder tier, a score and the evidence it rests on.

The ladder: ``exact`` and ``strong`` come only from names (:mod:`tenure.namespace.phrases`): a code name
written in the text (:mod:`tenure.namespace.mentions`), the whole phrase folded onto one class ("the
settlement service"), or two or three words of a task folded onto one class's name ("the app context").
Everything else, however well it scores, is ``weak``: a ranked set cut at a share of the best score, with
its total. A short phrase that nothing covers (its rarest words are in no symbol: "the counterparty SLA")
is ``unresolved``, and so are the code names and unknown acronyms of a task that name nothing: kept and
returned, never forced onto a symbol.

Evidence, each weighed for what it is worth:
- the namespace's own: names, signatures, docstrings and comments, code, paths (:mod:`symbol_terms`,
  precomputed at index time); the call graph (the close collaborators of what the text names, and of the
  best matches, when they match too);
- the stores', through :class:`EvidenceProvider` (built by ``Tenure.resolve`` from each store's own
  API: the namespace lies below them): the embedding model over code elements, knowledge entities
  named in the text, memories attached to elements, symbols changed by commits whose messages speak
  like the text. A provider that could not look (no model, no knowledge build, no history) says so, and
  the answer lists it in ``degraded``.
"""

from __future__ import annotations

import contextlib
import math
import re
import threading
import tomllib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Protocol

import msgspec
import numpy as np

from tenure.files import write_atomic
from tenure.namespace.line_terms import LineTerms
from tenure.namespace.mentions import Mention, code_mentions, code_names
from tenure.namespace.phrases import EXACT, STRONG, UNRESOLVED, WEAK, PhraseIndex, PhraseMatch, normalised
from tenure.namespace.symbol_terms import FIELDS, SymbolTerms, kept_state, symbol_terms
from tenure.namespace.symbols import collaborations, edges_of, index_state, naming_state
from tenure.namespace.terms import STOPWORDS, stem, words
from tenure.refusal import Refusal
from tenure.state import state_dir
from tenure.storage import Database

KINDS = ("name", "signature", "doc", "code", "path", "knowledge", "memory", "embedding", "graph", "history")
TIER_RANK = {EXACT: 0, STRONG: 1, WEAK: 2, UNRESOLVED: 3}
NAME_SCORE = {EXACT: 4.0, STRONG: 3.0, WEAK: 1.0}  # a weak name (a set) shares this among its symbols
WORDS_SCORE = 1.0  # the best match by words scores this; the others in proportion
GRAPH_SCORE = 0.3  # a collaborator of a symbol named exactly or strongly (and the most the graph lends one symbol)
CUT = 0.5  # a weak match scoring under this share of the best weak score is left out (and not in `total`)
TESTS_FACTOR = 0.5  # a test matched by words: prose about the code means the code
SHORT_WORDS = 8  # a text of at most this many words, on one line, is a phrase (else a task text)
COVERAGE = 0.25  # a phrase's match by words must hold this share of its words' rarity (idf)
SEEDS = 5  # the symbols named exactly or strongly whose collaborators the graph is asked for
HUB = 60  # a symbol with more edges than this lends nothing to its neighbours
GRAPH_CANDIDATES = 60  # the best matches among which collaborations are looked for
COLLABORATIONS = ("calls", "instantiates", "inherits", "references", "overrides")
NGRAM = (2, 3)
MAX_TEXT = 20_000  # characters of a text read: a task is a page or two, not a log file
ABBREVIATED = 0.7  # the weight of a word's other form (`env` for "environment") against the word's
MOSTLY_UNKNOWN = 0.5  # a phrase with this share of words no symbol has is a constraint, not a symbol's words
PHRASES_CACHE = "intent-phrases.msgpack"
_FIELD_KIND = {"name": "name", "signature": "signature", "doc": "doc", "code": "code", "place": "path"}
_FIELD_WORDS = {"name": "its name has", "signature": "its signature has", "doc": "its docstring or comments speak of",
                "code": "its code uses", "place": "its file or class is named with"}
_GUESSES = {*_FIELD_KIND.values(), "embedding", "graph", "history"}  # evidence from the code's words and shape
_ACRONYM = re.compile(r"\b[A-Z]{2,6}s?\b")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")


@dataclass(frozen=True)
class Evidence:
    kind: str  # one of KINDS
    detail: str  # words a person reads: "named verbatim: `url_for`"
    weight: float  # what it added to the match's score

    def as_dict(self) -> dict:
        return {"kind": self.kind, "detail": self.detail, "weight": round(self.weight, 4)}


@dataclass(frozen=True)
class IntentMatch:
    symbol: str
    kind: str
    path: str
    line: int
    tier: str  # exact | strong | weak
    score: float
    why: tuple[Evidence, ...]

    def as_dict(self) -> dict:
        return {"symbol": self.symbol, "kind": self.kind, "path": self.path, "line": self.line, "tier": self.tier,
                "score": round(self.score, 4), "why": [e.as_dict() for e in self.why]}


@dataclass(frozen=True)
class Resolution:
    text: str
    tier: str  # the best match's tier; unresolved when nothing matched
    matches: tuple[IntentMatch, ...]
    total: int  # matches before the cut to `limit`
    unresolved: tuple[str, ...]  # phrases kept that name no symbol
    degraded: tuple[str, ...]  # evidence that could not be read, in words

    def as_dict(self) -> dict:
        return {"text": self.text, "tier": self.tier, "matches": [m.as_dict() for m in self.matches],
                "total": self.total, "unresolved": list(self.unresolved), "degraded": list(self.degraded)}


@dataclass(frozen=True)
class Found:
    """One piece of a store's evidence: a symbol (its full name, or `module:<name>`) and why."""

    symbol: str
    evidence: Evidence


@dataclass(frozen=True)
class Gathered:
    found: tuple[Found, ...] = ()
    degraded: tuple[str, ...] = ()  # what the store could not look at, in words


class EvidenceProvider(Protocol):
    """A store's evidence for a text (built in `tenure.api` over the store's own API)."""

    def gather(self, text: str) -> Gathered: ...


class IntentError(Refusal):
    """A text that cannot be resolved (empty): the message says what to give instead."""


@dataclass
class _Candidate:
    position: int  # in SymbolTerms, or -1 for a symbol it does not hold (a nested one named exactly)
    tier: str = WEAK
    score: float = 0.0
    why: list[Evidence] = field(default_factory=list)

    def add(self, evidence: Evidence, tier: str = WEAK) -> None:
        self.score += evidence.weight
        self.why.append(evidence)
        if TIER_RANK[tier] < TIER_RANK[self.tier]:
            self.tier = tier


_phrases: dict[str, tuple[str, str, PhraseIndex]] = {}  # root -> index state, naming state, the ladder
_phrases_lock = threading.Lock()


def phrase_index(db: Database, root: Path) -> PhraseIndex:
    """The ladder's index, made again only when the symbols are named differently (asked only when the
    index changed: the digest of the names reads every symbol)."""
    state = index_state(db)
    key = str(root.resolve())
    with _phrases_lock:
        kept = _phrases.get(key)
        if kept is not None and kept[0] == state:
            return kept[2]
        head = _kept_phrases_head(root)  # (the kept file is decoded only when it holds what is wanted)
        if head is not None and head[0] == state:
            stored = _stored_phrases(root)
            if stored is not None and stored[0] == state:
                _phrases[key] = stored
                return stored[2]
        naming = naming_state(db)
        if (kept is None or kept[1] != naming) and head is not None and head[1] == naming:
            kept = _stored_phrases(root)
        ladder = kept[2] if kept is not None and kept[1] == naming else PhraseIndex.of(db)
        _phrases[key] = (state, naming, ladder)
        _store_phrases(root, _phrases[key])
        return ladder


def prepare(db: Database, root: Path, code: LineTerms | None = None) -> None:
    """What `tenure index` calls, so that no query reads the symbols or the code: the ladder's index and
    the words of every symbol, made for the index's state and kept in the state directory (nothing is
    loaded when both are kept for it already; `code`: the files' terms the index run has read)."""
    state = index_state(db)
    if kept_state(root) != state:
        symbol_terms(db, root, code)
    head = _kept_phrases_head(root)
    if head is not None and head[0] == state:
        return
    if head is not None and head[1] == naming_state(db):
        _restamp_phrases(root, state)  # the names did not change (a body edited): the kept ladder holds
        with _phrases_lock:  # ... and this process's copy too (else its next query decodes the file again)
            kept = _phrases.get(str(root.resolve()))
            if kept is not None and kept[1] == head[1]:
                _phrases[str(root.resolve())] = (state, kept[1], kept[2])
    else:
        phrase_index(db, root)


def _kept_phrases_head(root: Path) -> tuple[str, str] | None:
    """The index state and naming state the kept ladder was made for, read without its body."""
    try:
        with open(state_dir(root) / PHRASES_CACHE, "rb") as kept:
            state, naming = kept.readline().decode().strip(), kept.readline().decode().strip()
        return state, naming
    except (OSError, UnicodeDecodeError):
        return None


def _restamp_phrases(root: Path, state: str) -> None:
    """The kept ladder marked as made for `state` too, its body neither decoded nor encoded again (on
    Django: 0.4 s of every update)."""
    path = state_dir(root) / PHRASES_CACHE
    with contextlib.suppress(OSError, ValueError):
        head, _, body = path.read_bytes().partition(b"\n\n")
        naming = head.decode().split("\n")[1]
        write_atomic(path, f"{state}\n{naming}\n\n".encode() + body)  # (whole: another indexer may read it)


def _stored_phrases(root: Path) -> tuple[str, str, PhraseIndex] | None:
    try:
        head, _, body = (state_dir(root) / PHRASES_CACHE).read_bytes().partition(b"\n\n")
        state, naming = head.decode().split("\n")
        return state, naming, PhraseIndex.load(body)
    except (OSError, ValueError, msgspec.DecodeError, msgspec.ValidationError):
        return None


def _store_phrases(root: Path, kept: tuple[str, str, PhraseIndex]) -> None:
    if state_dir(root).is_dir():
        with contextlib.suppress(OSError):  # (a read-only state directory: the next process builds it again)
            write_atomic(state_dir(root) / PHRASES_CACHE, f"{kept[0]}\n{kept[1]}\n\n".encode() + kept[2].dump())


def related_by_intent(db: Database, root: Path, text: str, *, limit: int = 10,
                      providers: Iterable[EvidenceProvider] = ()) -> Resolution:
    """The symbols `text` is about, strongest first (see the module's doc)."""
    text = text.strip()
    if not text:
        raise IntentError("the text to resolve is empty: give a phrase (\"the settlement retry policy\") or a task")
    if limit < 1:
        raise IntentError(f"limit must be at least 1 (got {limit})")
    cut = [f"only the first {MAX_TEXT:,} of {len(text):,} characters were read"] if len(text) > MAX_TEXT else []
    text = text[:MAX_TEXT]
    ladder = phrase_index(db, root)
    index = symbol_terms(db, root)
    if not ladder or not len(index):
        return Resolution(text, UNRESOLVED, (), 0, (text,), ("nothing is indexed yet: run `tenure index`",))
    found: dict[str, _Candidate] = {}

    def candidate(fqn: str) -> _Candidate:
        if fqn not in found:
            found[fqn] = _Candidate(index.position.get(fqn, -1))
        return found[fqn]

    phrase = _is_phrase(text)
    mentions = code_mentions(ladder, text)
    named = _by_names(ladder, text, phrase, mentions)
    for fqn, tier, evidence in named:
        candidate(fqn).add(evidence, tier)
    whole_name = phrase and any(t in (EXACT, STRONG) for _, t, _ in named) and _one_name(text)
    query, surface = _query(text)
    coverage: dict[int, float] = {}
    if not whole_name:
        for fqn, evidence, covered in _by_words(index, query, surface):
            candidate(fqn).add(evidence)
            coverage[index.position[fqn]] = covered
    degraded: list[str] = cut
    for provider in providers:
        gathered = provider.gather(text)
        degraded += gathered.degraded
        for item in gathered.found:
            fqn = item.symbol.removeprefix("module:")
            if fqn in index.position or fqn in ladder.fqns:
                candidate(fqn).add(item.evidence)
    _by_graph(db, index, found, candidate)
    if phrase and not whole_name:
        content = sum(1 for t in query if not t.isdigit())
        _drop_uncovered(found, coverage, content > 0 and _unknown(query, index) >= MOSTLY_UNKNOWN * content)
    matches, total = _ranked(index, ladder, found, limit)
    unresolved = _unresolved(text, index, phrase, matches, {m.name for m in mentions})
    tier = matches[0].tier if matches else UNRESOLVED
    return Resolution(text, tier, tuple(matches), total, unresolved, tuple(dict.fromkeys(degraded)))


# names -----------------------------------------------------------------------------------------------
def _is_phrase(text: str) -> bool:
    return "\n" not in text and len(text.split()) <= SHORT_WORDS


def _one_name(text: str) -> bool:
    return len(text.strip("`'\" .,;:!?").split()) == 1


def _by_names(ladder: PhraseIndex, text: str, phrase: bool, mentions: list[Mention]) -> list[tuple[str, str, Evidence]]:
    """(symbol, tier, evidence) for the code names the text writes, the whole phrase when it is one, and
    the runs of two or three words of a task that fold onto one name."""
    out: list[tuple[str, str, Evidence]] = []
    for m in mentions:
        out += _named(m.tier, m.symbols, f"named verbatim: `{m.name}`" if m.tier == EXACT
                      else f"`{m.name}`: {m.how}")
    if phrase and not _one_name(text):
        whole = ladder.resolve_name(text)
        if whole is None:
            whole = ladder.resolve(text)
        if whole.symbols:
            out += _named(whole.tier, whole.symbols, f"'{text}': {whole.how}")
    elif not phrase:
        for run, match in _folded_runs(ladder, text):
            out += _named(match.tier, match.symbols, f"'{run}': {match.how}")
    return out


def _named(tier: str, symbols: tuple[str, ...], detail: str) -> list[tuple[str, str, Evidence]]:
    share = NAME_SCORE[tier] / (1 if tier != WEAK else max(1.0, math.sqrt(len(symbols))))
    return [(fqn, tier, Evidence("name", detail, share)) for fqn in symbols]


def _folded_runs(ladder: PhraseIndex, text: str) -> list[tuple[str, PhraseMatch]]:
    """Runs of two or three content words of a sentence that are a class's or module-level function's
    name with case and spaces folded ("the request context" is RequestContext). A run with a word the
    ladder would drop ("the", "class") is not one: its meaning would change."""
    out = []
    for sentence in re.split(r"[.!?;:,()\n]+", text):
        tokens = _WORD.findall(sentence)
        for n in NGRAM:
            for i in range(len(tokens) - n + 1):
                run = tokens[i:i + n]
                if any(w.lower() in STOPWORDS or len(w) < 2 for w in run):
                    continue
                joined = " ".join(run)
                if normalised(joined) != "".join(w.lower() for w in run):
                    continue
                match = ladder.resolve_name(joined)
                if match is not None and match.tier in (EXACT, STRONG) and match.symbols:
                    out.append((joined, match))
    return out


# words -----------------------------------------------------------------------------------------------
def _query(text: str) -> tuple[Counter, dict[str, str]]:
    """The text's terms with how often it uses each, and the word a person wrote for each term."""
    counts: Counter = Counter()
    surface: dict[str, str] = {}
    for w in words(text):
        if len(w) > 1 and w not in STOPWORDS:
            term = stem(w)
            counts[term] += 1
            surface.setdefault(term, w)
    return counts, surface


@cache
def _abbreviations() -> dict[str, str]:
    """term -> the term of its other form (`env` <-> `environment`), from abbreviations.toml."""
    table = tomllib.loads(resources.files("tenure.namespace").joinpath("abbreviations.toml").read_text("utf-8"))
    out = {}
    for short, long in table["abbreviations"].items():
        out[stem(short)], out[stem(long)] = stem(long), stem(short)
    return out


def _weights(query: Counter, index: SymbolTerms) -> dict[int, float]:
    """term id -> the text's weight of it: 1 + log(uses); the other form of an abbreviation less."""
    out: dict[int, float] = {}
    other = _abbreviations()
    for term, n in query.items():
        weight = 1.0 + math.log(n)
        if term in index.vocabulary:
            out[index.vocabulary[term]] = max(weight, out.get(index.vocabulary[term], 0.0))
        alias = other.get(term)
        if alias in index.vocabulary and alias not in query:
            out[index.vocabulary[alias]] = max(ABBREVIATED * weight, out.get(index.vocabulary[alias], 0.0))
    return out


def _unknown(query: Counter, index: SymbolTerms) -> int:
    """The text's words no symbol has, in either form (a number, "#3168", is no word of the task)."""
    other = _abbreviations()
    return sum(1 for t in query if not t.isdigit() and t not in index.vocabulary
               and other.get(t) not in index.vocabulary)


def _by_words(index: SymbolTerms, query: Counter, surface: dict[str, str]) -> list[tuple[str, Evidence, float]]:
    """(symbol, evidence, share of the text's rarity it holds) for the best matches by words."""
    known = _weights(query, index)
    if not known:
        return []
    scores = index.score(known)
    scores[index.in_tests] *= TESTS_FACTOR
    best = float(scores.max())
    if best <= 0:
        return []
    kept = np.flatnonzero(scores >= CUT * best)
    kept = kept[np.argsort(-scores[kept], kind="stable")][:200]
    ids = list(known)
    rarity = dict(zip(ids, index.idf(np.array(ids)).tolist(), strict=True))
    # words no symbol has are as rare as a word can be
    total_rarity = sum(rarity.values()) + _unknown(query, index) * math.log1p(len(index) + 0.5)
    names = index.terms
    alias = {a: t for t, a in _abbreviations().items() if t in query}
    fields = index.fields_for(ids, set(kept.tolist()))
    out = []
    for s in kept.tolist():
        by_field: dict[int, list[str]] = {}
        covered = 0.0
        for t, bits in fields[s]:
            covered += rarity[t]
            for f in range(len(FIELDS)):
                if bits >> f & 1:
                    by_field.setdefault(f, []).append(surface.get(names[t]) or surface.get(alias.get(names[t], ""))
                                                      or names[t])
        detail = "; ".join(f"{_FIELD_WORDS[FIELDS[f]]} {', '.join(repr(w) for w in sorted(set(ws)))}"
                           for f, ws in sorted(by_field.items()))
        kind = _FIELD_KIND[FIELDS[min(by_field)]] if by_field else "code"
        out.append((index.fqns[s], Evidence(kind, detail, WORDS_SCORE * float(scores[s]) / best),
                    covered / total_rarity if total_rarity else 0.0))
    return out


def _drop_uncovered(found: dict[str, _Candidate], coverage: dict[int, float], mostly_unknown: bool) -> None:
    """A phrase's match by words alone must hold a fair share of its rare words ("the counterparty SLA" is
    not any symbol that mentions a party); a phrase whose words are mostly in no symbol is a constraint:
    only a name, or a store that knows the phrase (knowledge, memories), maps it onto symbols."""
    for fqn, c in list(found.items()):
        if c.tier != WEAK:
            continue
        guessed = all(e.kind in _GUESSES for e in c.why)
        only_words = all(e.kind in _FIELD_KIND.values() for e in c.why)
        if (guessed and mostly_unknown) or (only_words and coverage.get(c.position, 0.0) < COVERAGE):
            del found[fqn]


# the graph ---------------------------------------------------------------------------------------------
def _by_graph(db: Database, index: SymbolTerms, found: dict[str, _Candidate], candidate) -> None:
    """A symbol named exactly or strongly lends weight to what it calls and what calls it (unless it is a
    hub: then its callers say nothing); the best matches lend it to each other when they collaborate (a
    concept's symbols)."""
    named = [f for f, c in found.items() if c.tier in (EXACT, STRONG)]
    edges: set[tuple[str, str, str]] = set()
    for seed in named[:SEEDS]:
        around = edges_of(db, seed, HUB + 1)
        if len(around) <= HUB:
            edges.update(around)
    best = sorted(found, key=lambda f: -found[f].score)[:GRAPH_CANDIDATES]
    edges.update(collaborations(db, best))
    strong = set(named)
    for src, dst, relation in sorted(edges):
        if src == dst or relation not in COLLABORATIONS:
            continue
        for seed, other, direction in ((src, dst, ">"), (dst, src, "<")):
            if seed not in found or (other not in found and not (seed in strong and other in index.position)):
                continue
            if seed not in strong and seed not in best:
                continue
            # (a symbol many matches call, `__init__`, is no more about the text than one they call once)
            lent = sum(e.weight for e in candidate(other).why if e.kind == "graph")
            weight = min(GRAPH_SCORE * (1.0 if seed in strong else 0.5), GRAPH_SCORE - lent)
            if weight > 0:
                candidate(other).add(Evidence("graph", _collaboration(relation, direction, seed), weight))


def _collaboration(relation: str, direction: str, seed: str) -> str:
    """How a symbol is joined to `seed`, in words (`direction` as `neighbours` gives it, seen from `seed`)."""
    if relation == "calls":
        return f"called by `{_short(seed)}`" if direction == ">" else f"calls `{_short(seed)}`"
    if relation == "instantiates":
        return f"made by `{_short(seed)}`" if direction == ">" else f"makes `{_short(seed)}`"
    if relation == "inherits":
        return f"a base of `{_short(seed)}`" if direction == ">" else f"inherits from `{_short(seed)}`"
    return f"{relation.rstrip('s')} edge with `{_short(seed)}`"


def _short(fqn: str) -> str:
    parts = fqn.split(".")
    return ".".join(parts[-2:]) if len(parts) > 1 and parts[-2][:1].isupper() else parts[-1]


# the answer ---------------------------------------------------------------------------------------------
def _ranked(index: SymbolTerms, ladder: PhraseIndex, found: dict[str, _Candidate],
            limit: int) -> tuple[list[IntentMatch], int]:
    named = [f for f, c in found.items() if c.tier in (EXACT, STRONG)]
    weak = [f for f, c in found.items() if c.tier == WEAK]
    best_weak = max((found[f].score for f in weak), default=0.0)
    kept_weak = [f for f in weak if found[f].score >= CUT * best_weak]
    order = sorted(named, key=lambda f: (TIER_RANK[found[f].tier], -found[f].score, f)) + \
        sorted(kept_weak, key=lambda f: (-found[f].score, f))
    out = []
    for fqn in order[:limit]:
        c = found[fqn]
        kind, path, line = _where(index, ladder, fqn, c.position)
        why = tuple(sorted(c.why, key=lambda e: -e.weight))
        out.append(IntentMatch(fqn, kind, path, line, c.tier, round(c.score, 4), why))
    return out, len(order)


def _where(index: SymbolTerms, ladder: PhraseIndex, fqn: str, position: int) -> tuple[str, str, int]:
    if position >= 0:
        return index.kinds[position], index.paths[position], int(index.lines[position])
    entry = ladder.fqns.get(fqn)
    return (entry.kind, entry.path, 0) if entry is not None else ("", "", 0)


def _unresolved(text: str, index: SymbolTerms, phrase: bool, matches: list[IntentMatch],
                named: set[str]) -> tuple[str, ...]:
    """The phrase itself when nothing matched it; in a task, its code names that name nothing and the
    acronyms no symbol's words hold, each with the unknown words before it ("counterparty SLA")."""
    if phrase and not matches:
        return (text,)
    kept: list[str] = []
    for _, _, name in code_names(text):
        said = [w for w in words(name) if w not in STOPWORDS]  # (`True`, `ON` name nothing to keep)
        if name not in named and not _ACRONYM.fullmatch(name) and said and not all(
                stem(w) in index.vocabulary for w in said):
            kept.append(name)
    for m in _ACRONYM.finditer(text):
        acronym = m.group().lower().rstrip("s")
        if acronym in STOPWORDS or stem(acronym) in index.vocabulary or m.group() in named:
            continue
        before = _WORD.findall(text[max(0, m.start() - 40):m.start()])
        run = [m.group()]
        for w in reversed(before):
            if w.lower() in STOPWORDS or stem(w.lower()) in index.vocabulary:
                break
            run.insert(0, w)
        kept.append(" ".join(run))
    return tuple(dict.fromkeys(kept))
