"""Code names written bare in prose: `SettlementService`, `MAX_RETRIES`, `url_for`, `Flask.make_response`,
`flask.app.Flask`, `src/flask/app.py`, with or without backticks, each mapped onto the symbols it names
through the join's ladder (:mod:`tenure.namespace.phrases`).

The guard: prose is mostly English, and English words are also names (`with`, `and`, `run`, `get`,
`app`, `decorator`, `route` in a sentence about routes). A token counts only when it is shaped like code:
- in backticks (the whole span is the name), or followed by ``()``;
- snake_case or a dunder (an ``_`` inside), CamelCase or camelCase, ALL_CAPS;
- dotted (``Flask.make_response``), or a path (``src/flask/app.py``, ``app.py``);
- a Capitalised word in the middle of a sentence (``the Flask class``), never at its start or in a title.
A plain lower-case word never does, backticks or not, and a plain word never names a symbol defined
inside a function (the closure `decorator` of `Scaffold.route`). URLs are skipped whole.

    code_mentions(index_or_db, text) -> list[Mention]
    code_names(text) -> list[(start, end, name)]     every token shaped like code, named or not

`index_or_db` is a :class:`~tenure.namespace.phrases.PhraseIndex` (build it once for many texts) or the
project's database (an index is built for this call). Mentions come in the order of the text, one per
occurrence; only those naming at least one symbol (`exact`, `strong` or `weak`: the ladder's tier,
unchanged) are returned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tenure.namespace.phrases import PhraseIndex, PhraseMatch
from tenure.storage import Database

_URL = re.compile(r"\b(?:https?|ftp|file)://\S+|\bwww\.\S+")
_BACKTICKED = re.compile(r"`+([^`\n]+?)`+")
# a dotted name or a path, with an optional call: flask.app.Flask, src/flask/app.py, url_for()
_TOKEN = re.compile(r"[A-Za-z_][\w-]*(?:[./][A-Za-z_][\w-]*)*(?:\(\))?")
# a token with something besides lower-case letters in it (a capital, `_`, a digit, `.`, `/`, a call):
# the only ones of the prose that may be code (a plain word is code only in backticks). None starts
# right after a letter or `_` (that one's token would have held it): the look-behind spares the look-ahead
# at every letter of every word.
_CANDIDATE = re.compile(r"(?<![A-Za-z_])(?=[\w./()-]*?[A-Z0-9_./(])" + _TOKEN.pattern)
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2,}[a-z]")
_TITLE = re.compile(r"^[A-Z][a-z0-9]+$")
_CAPS = re.compile(r"^[A-Z][A-Z0-9]+$")
_SENTENCE_END = re.compile(r"(?:^|[.!?:]|\n\s*(?:[-*+>#]+|\d+[.)])?)\s*$")
_LOOKBEHIND = 12  # characters before a token read to tell whether it starts a sentence


@dataclass(frozen=True)
class Mention:
    """One code name in the text: `text[start:end]` is `name` as written (backticks excluded)."""

    name: str
    start: int
    end: int
    tier: str  # the ladder's: exact | strong | weak
    symbols: tuple[str, ...]
    how: str  # the ladder's words for how the name reached its symbols
    total: int  # symbols the name matched (more than `symbols` lists when the ladder cut the set)

    def as_dict(self) -> dict:
        return {"name": self.name, "start": self.start, "end": self.end, "tier": self.tier,
                "symbols": list(self.symbols), "how": self.how, "total": self.total}


def code_mentions(index_or_db: PhraseIndex | Database, text: str) -> list[Mention]:
    """The code names written in `text` that name indexed symbols, in order (see the module's doc)."""
    index = index_or_db if isinstance(index_or_db, PhraseIndex) else PhraseIndex.of(index_or_db)
    if not index:
        return []
    found: list[Mention] = []
    answers: dict[str, PhraseMatch | None] = {}
    for start, end, name in code_names(text):
        if name not in answers:
            answers[name] = _named(index, name)
        match = answers[name]
        if match is not None:
            found.append(Mention(name, start, end, match.tier, match.symbols, match.how, match.total))
    return found


def code_names(text: str) -> list[tuple[int, int, str]]:
    """(start, end, name) of every token of `text` shaped like code, in order, whether it names a symbol
    or not (a name that names nothing is a constraint the caller may keep)."""
    masked = _URL.sub(lambda m: " " * len(m.group()), text) if "://" in text or "www." in text else text
    found: list[tuple[int, int, str]] = []
    taken = bytearray(len(masked) + 1)  # the characters of the names found so far
    for start, end, name, quoted in _tokens(masked):
        if taken[start] or not (quoted or _code_shaped(name, masked, start)):
            continue
        taken[start:end] = b"\x01" * (end - start)
        found.append((start, end, name))
    return sorted(found)


def _tokens(text: str) -> list[tuple[int, int, str, bool]]:
    """(start, end, name, in backticks) of every candidate: a backticked span that is one name first,
    then every token of the prose (a backticked span of several tokens is read as prose)."""
    out = []
    for m in _BACKTICKED.finditer(text) if "`" in text else ():
        inner = m.group(1).strip()
        whole = _TOKEN.fullmatch(inner.lstrip("~@"))
        if whole:
            start = m.start(1) + m.group(1).index(inner)
            out.append((start, start + len(inner), inner, True))
    for m in _CANDIDATE.finditer(text):
        name = m.group().rstrip(".-")
        if name.islower() and name.isalpha():
            continue  # a plain word (most of prose) is never code unless backticked, which is read above
        out.append((m.start(), m.start() + len(name), name, False))
    return out


def _one_word(name: str) -> bool:
    """A word in one case shape (`json`, `JSON`, `Session`): no `_`, dot or case change inside."""
    return name.isalnum() and (name.islower() or name.isupper() or _TITLE.match(name) is not None)


def _plain(name: str) -> bool:
    """A word and nothing else: no `_`, no dot, no case inside, no call."""
    return name.isalnum() and (name.islower() or _TITLE.match(name) is not None)


def _code_shaped(name: str, text: str, start: int) -> bool:
    if name.endswith("()") or "_" in name.strip("_") or "." in name or "/" in name:
        return True
    if _CAMEL.search(name) or _CAPS.match(name):
        return True
    if _TITLE.match(name):  # a capital inside a sentence marks a name; at its start, or in a heading, none
        heading = text[text.rfind("\n", 0, start) + 1:start].lstrip().startswith("#")
        return not heading and not _SENTENCE_END.search(text[max(0, start - _LOOKBEHIND):start])
    return False


def _named(index: PhraseIndex, name: str) -> PhraseMatch | None:
    """The ladder's answer for a name (not its words: `settlement_retry` is no mention of every symbol
    with those words), without the symbols a plain word cannot mean."""
    bare = name.removesuffix("()")
    if _one_word(bare) and not index.by_name.get(bare):
        return None  # a word (`JSON`, `Session`) names a symbol by its very name, never with case folded
    match = index.resolve_name(name)
    if match is None or not match.symbols:
        return None
    if not _plain(name.removesuffix("()")):
        return match
    kept = tuple(f for f in match.symbols if not index.is_nested(f))
    if not kept:
        return None
    if len(kept) == len(match.symbols):
        return match
    return PhraseMatch(match.phrase, match.tier, kept, f"{match.how}; closures and locals left out",
                       match.total - (len(match.symbols) - len(kept)))
