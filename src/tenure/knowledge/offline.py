"""Extraction without a model (offline mode): what a deterministic reader can take from prose.

Entities are what engineers mark up or number: code (Sphinx roles, backticked identifiers, dotted
names, calls, file paths), decision ids (``ADR-0003``), ticket and PR numbers (``#412``, ``pr-412``,
``:issue:`88```), config keys and services. A document that is itself a decision, an incident or a
thread is an entity too, named in every one of its chunks. Relationships are co-occurrence: two
entities named in one sentence (the sentence is the description), or in one short section. The
phrases are mapped to symbols later, through the join's ladder (tenure.namespace.phrases).

Code names written bare in prose (``SettlementService``, ``MAX_RETRIES``, ``Flask.make_response``) are
entities when they name an indexed symbol: `names` (knowledge.names, over tenure.namespace.mentions)
finds them; a plain English word that is also a name (``with``, ``route``) never is one, backticks or not.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from tenure.namespace.phrases import clean

VERSION = "6"  # bump when extraction changes: every chunk is read again
SENTENCE_CHARS = 320  # a quoted sentence is cut here
SECTION_PAIRS_UP_TO = 12  # entities in one chunk below which section co-occurrence links them
SECTION_WEIGHT = 0.25
COMMIT_SYMBOLS_LINKED = 10

_ROLE = re.compile(r":(?:py:)?(class|meth|func|attr|data|exc|mod|obj|const|ref)?:`(?:[^`<]*<)?~?([^`>]+)>?`")
_TICKET_ROLE = re.compile(r":(?:issue|pr|pull|ghissue|gh):`#?(\d{1,7})`")
_BACKTICKS = re.compile(r"``([^`\n]{2,120})``|(?<![`\w])`([^`\n]{2,120})`(?![`\w_])")
DECISION_ID = re.compile(r"\b(ADR|RFC)[-_ ]?(\d{1,5})\b", re.IGNORECASE)
TICKET = re.compile(r"(?<![\w&/#])#(\d{1,7})\b|\b(?:PR|pr|GH|gh|pull)[-_ ]?(\d{1,7})\b"
                     r"|github\.com/[\w.-]+/[\w.-]+/(?:pull|issues)/(\d{1,7})")
_CONFIG = re.compile(r"""\bconfig\[\s*["']([A-Za-z_][A-Za-z0-9_]*)["']\s*\]""")
_DOTTED = re.compile(r"(?<![\w./-])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(\(\))?(?![\w/-])")
_CALL = re.compile(r"(?<![\w.])([a-z_][a-z0-9_]{2,})\(\)")
_PATH = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)+[\w.-]+\.(?:py|pyi|js|jsx|ts|tsx|java|kt|go|rs|rb|c|h|cpp|cs|php|"
                   r"scala|swift|toml|yaml|yml|json|cfg|ini|sql))\b")
_SERVICE = re.compile(r"\b(?:the\s+)?([a-z][a-z0-9-]{2,30}(?:\s[a-z][a-z0-9-]{2,30})?)\s+service\b")
_IDENTIFIER = re.compile(r"^[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*$")
_UPPER_SNAKE = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
_SENTENCES = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*(\[\"'])|\n\s*\n|\n(?=\s*(?:[-*+]|\d+\.)\s)")
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:\s|$)")
_ADORNMENT = re.compile(r"([=\-~^*#`'\"+:.])\1{2,}")
_FENCED = re.compile(r"^ {0,3}(`{3,}|~{3,}).*?^ {0,3}\1[ \t]*$", re.MULTILINE | re.DOTALL)
_DIRECTIVE = re.compile(r"^\.\. (?:code-block|code|sourcecode|literalinclude|highlight)::")
# API reference directives name what they document, and say nothing of why
_AUTODOC = re.compile(r"^\s*(?:\.\. (?:auto\w+|py:\w+|currentmodule|module)::|:(?:members|noindex|inherited-members|"
                      r"member-order|show-inheritance|undoc-members|exclude-members|special-members)\b)")
# (a language's keywords are words of the language, never a symbol: ``with``, ``and``, ``for``)
_NOT_CODE = {"true", "false", "none", "null", "self", "cls", "yes", "no", "todo", "e.g", "i.e", "etc",
             *keyword.kwlist, *keyword.softkwlist}
_NOT_CODE_UPPER = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "HTTP", "HTTPS", "URL", "URI", "API",
                   "JSON", "HTML", "XML", "CSS", "WSGI", "ASGI", "CLI", "SQL", "UTF", "ASCII", "TODO", "FIXME", "NOTE"}
_NOT_SERVICES = {"the", "a", "web", "this", "that", "our", "your", "each", "any", "one", "new", "old", "same"}


# a sentence -> the spans (start, end, name as written) of the code names it writes bare
CodeNames = Callable[[str], list[tuple[int, int, str]]]


@dataclass(frozen=True)
class Mention:
    key: str
    name: str
    type: str
    description: str


@dataclass(frozen=True)
class Link:
    source: str
    target: str
    description: str
    weight: float


@dataclass
class Extraction:
    mentions: dict[str, Mention] = field(default_factory=dict)
    links: dict[tuple[str, str], Link] = field(default_factory=dict)


def entity_key(name: str, type_: str = "") -> str:
    """The key entities merge on: decision ids and tickets by number (ADR-3 is ADR-0003), code by its name
    without code marks (case kept: ``Flask.make_response`` is not ``flask.make_response``), prose phrases
    case folded."""
    text = clean(name)
    if match := DECISION_ID.fullmatch(text):
        return f"{match.group(1).lower()}-{int(match.group(2))}"
    if type_ == "ticket" or re.fullmatch(r"#\d+", text):
        return f"#{int(text.lstrip('#'))}"
    if _IDENTIFIER.match(text) or _PATH.fullmatch(text):
        return text
    return " ".join(text.split()).casefold()


def document_entities(kind: str, ref: str, title: str, key: str, meta: dict) -> list[Mention]:
    """The entities a document is or is about without naming them: a decision, an RFC, an incident, a
    PR or issue thread; the symbols a commit's diff touched (from the history, not from its text)."""
    if kind in ("adr", "rfc") and DECISION_ID.fullmatch(ref):
        return [Mention(entity_key(ref), ref, "decision" if kind == "adr" else "rfc", f"{ref}: {title}")]
    if kind == "postmortem":
        return [Mention(f"incident:{key.removeprefix('doc:')}", title, "incident", f"incident review: {title}")]
    if kind in ("pr", "issue"):
        noun = "PR" if kind == "pr" else "issue"
        return [Mention(entity_key(ref, "ticket"), ref, "ticket", f"{noun} {ref}: {title}")]
    if kind == "commit":
        touched = meta.get("symbols") or []
        if len(touched) <= COMMIT_SYMBOLS_LINKED:  # a sweeping commit says nothing about each symbol
            return [Mention(entity_key(s["fqn"]), s["fqn"], "symbol", f"changed by {ref}: {title}")
                    for s in touched]
    return []


def extract(text: str, section: str, own: list[Mention] | None = None, names: CodeNames | None = None) -> Extraction:
    """Entities and co-occurrence links of one chunk; `own`: the entities of its document
    (`document_entities`), linked to what each sentence names; `names`: the code names a sentence writes
    bare (none without an index)."""
    own = own or []
    out = Extraction()
    sentence_entities: list[tuple[str, list[str]]] = []
    for sentence in sentences(text):
        found = _entities(sentence, names)
        keys = []
        for mention in found:
            if mention.key not in out.mentions:
                out.mentions[mention.key] = mention
            if mention.key not in keys:
                keys.append(mention.key)
        if keys:
            sentence_entities.append((sentence, keys))
    for sentence, keys in sentence_entities:
        for i, a in enumerate(keys):
            for b in keys[i + 1:]:
                _link(out, a, b, sentence, 1.0)
    owned = {m.key for m in own}
    for entity in own:
        out.mentions.setdefault(entity.key, entity)
        for sentence, keys in sentence_entities:
            for key in keys:
                if key not in owned:
                    _link(out, entity.key, key, sentence, 1.0)
    for i, a in enumerate(own):  # changed together in one commit
        for b in own[i + 1:]:
            _link(out, a.key, b.key, a.description, SECTION_WEIGHT)
    named = [k for k in out.mentions if k not in owned]
    if len(named) <= SECTION_PAIRS_UP_TO:
        for i, a in enumerate(named):
            for b in named[i + 1:]:
                if _pair(a, b) not in out.links:
                    _link(out, a, b, f"both named in section “{section}”", SECTION_WEIGHT)
    return out


def _link(out: Extraction, a: str, b: str, description: str, weight: float) -> None:
    pair = _pair(a, b)
    if pair[0] == pair[1]:
        return
    existing = out.links.get(pair)
    if existing is None:
        out.links[pair] = Link(pair[0], pair[1], description, weight)
    elif weight >= 1.0:  # another sentence names both: a stronger link, first sentence kept
        out.links[pair] = Link(pair[0], pair[1], existing.description, existing.weight + weight)


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def sentences(text: str) -> list[str]:
    """The chunk's sentences and list items (code blocks left out), whitespace collapsed, each cut at
    SENTENCE_CHARS."""
    out = []
    for part in _SENTENCES.split(prose(text)):
        sentence = " ".join(part.split())
        if sentence:
            out.append(sentence if len(sentence) <= SENTENCE_CHARS else sentence[:SENTENCE_CHARS - 1] + "…")
    return out


def prose(text: str) -> str:
    """The text without its code blocks: fenced (Markdown) and literal blocks (reStructuredText: the
    indented lines after a paragraph ending in ``::`` or a code directive). Examples name the example's
    own functions, not what the text is about. Headings go too: the section names the chunk already, and a
    heading glued to the sentence under it is no quote."""
    text = _headings_out(_FENCED.sub("", text))
    lines = text.split("\n")
    kept: list[str] = []
    literal_indent: int | None = None
    opens = False
    for line in lines:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if literal_indent is not None:
            if not stripped or indent > literal_indent:
                continue
            literal_indent = None
        if opens and stripped and indent > 0 and kept and not kept[-1].strip():
            literal_indent = min(indent, _indent(kept)) - 1 if indent else None
            opens = False
            continue
        if _AUTODOC.match(line):
            continue
        if stripped:
            opens = stripped.endswith("::") or bool(_DIRECTIVE.match(stripped))
            if _DIRECTIVE.match(stripped):
                continue
            kept.append(line[:-1] if stripped.endswith("::") else line)
        else:
            kept.append(line)
    return "\n".join(kept)


def _headings_out(text: str) -> str:
    """Markdown headings (``## Decision``, a line underlined by ``---``) and reStructuredText titles (a line
    with an adornment under it, and its overline) left out."""
    lines = text.split("\n")
    adornments = {n for n, line in enumerate(lines) if _ADORNMENT.fullmatch(line.strip())}
    titles = {n - 1 for n in adornments if n and lines[n - 1].strip() and n - 1 not in adornments}
    return "\n".join(line for n, line in enumerate(lines)
                     if n not in adornments and n not in titles and not _HEADING.match(line))


def _indent(lines: list[str]) -> int:
    """The indent of the last line with text: a literal block is indented deeper than it."""
    for line in reversed(lines):
        if line.strip():
            return len(line) - len(line.lstrip()) + 1
    return 1


def _entities(sentence: str, names: CodeNames | None = None) -> list[Mention]:
    found: list[Mention] = []
    taken: list[tuple[int, int]] = []
    bare = names(sentence) if names else []
    naming = {name for _, _, name in bare}

    def add(start: int, end: int, name: str, type_: str) -> None:
        if any(start < e and s < end for s, e in taken):
            return
        taken.append((start, end))
        found.append(Mention(entity_key(name, type_), name, type_, sentence))

    # (each pattern runs only on a sentence holding the characters every match of it holds: most hold none)
    quoted = "`" in sentence
    for m in _TICKET_ROLE.finditer(sentence) if quoted else ():
        add(m.start(), m.end(), f"#{m.group(1)}", "ticket")
    for m in _ROLE.finditer(sentence) if quoted else ():
        role, target = m.group(1) or "obj", m.group(2).strip()
        if role == "ref" or not _IDENTIFIER.match(clean(target)):
            continue
        add(m.start(), m.end(), clean(target), "module" if role == "mod" else "symbol")
    for m in _BACKTICKS.finditer(sentence) if quoted else ():
        code = clean(m.group(1) or m.group(2))
        kind = _code_kind(code)
        if names and code.isalpha() and code.islower() and code not in naming:
            continue  # ``index``, ``static``: a plain word names code only where it names a symbol
        if kind:
            add(m.start(), m.end(), code, kind)
    for m in _CONFIG.finditer(sentence) if "config[" in sentence else ():
        add(m.start(), m.end(), m.group(1), "config")
    for m in DECISION_ID.finditer(sentence):
        kind = "decision" if m.group(1).lower() == "adr" else "rfc"
        add(m.start(), m.end(), f"{m.group(1).upper()}-{m.group(2)}", kind)
    for m in TICKET.finditer(sentence):
        add(m.start(), m.end(), f"#{m.group(1) or m.group(2) or m.group(3)}", "ticket")
    for m in _PATH.finditer(sentence) if "/" in sentence else ():
        add(m.start(), m.end(), m.group(1), "file")
    for m in _DOTTED.finditer(sentence) if "." in sentence else ():
        name = m.group(1)
        parts = name.split(".")
        # bare dotted prose is code when it is called, or has a class-like part, or is three names deep
        code_like = m.group(2) or len(parts) >= 3 or any(p[:1].isupper() and not p.isupper() for p in parts[1:])
        if code_like and name.casefold() not in _NOT_CODE and not parts[-1].isdigit():
            add(m.start(), m.end(), name, "symbol")
    for m in _CALL.finditer(sentence) if "()" in sentence else ():
        add(m.start(), m.end(), m.group(1), "symbol")
    for start, end, name in bare:
        add(start, end, name, "symbol")
    for m in _SERVICE.finditer(sentence) if "service" in sentence else ():
        words = m.group(1).split()
        if words[0] not in _NOT_SERVICES and words[-1] not in _NOT_SERVICES:
            add(m.start(), m.end(), f"{m.group(1)} service", "service")
    return found


def _code_kind(code: str) -> str | None:
    """What a backticked span is, or None when it is not a name (a shell command, an expression)."""
    if not code or code.casefold() in _NOT_CODE or len(code) < 2:
        return None
    if code in _NOT_CODE_UPPER:
        return None
    if _UPPER_SNAKE.match(code) or (code.isupper() and code.isalpha() and len(code) > 3):
        return "config"
    if _PATH.fullmatch(code) or (code.count("/") and " " not in code and "." in code.rpartition("/")[2]):
        return "file"
    if _IDENTIFIER.match(code) and not code.isdigit():
        return "symbol"
    return None
