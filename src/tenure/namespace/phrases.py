"""The join's ladder (SPEC 2.5): a phrase from prose mapped to the symbols it names, and how surely.

- ``exact``: the phrase is a symbol's full name, a file's path, or a dotted name / path suffix that
  names exactly one symbol;
- ``strong``: a normalised phrase points at one symbol unambiguously ("the settlement service" and
  ``SettlementService``; ``flask.Flask`` and ``flask.app.Flask``: its package and its name; ``url_for``
  naming several symbols of which one is defined at module level outside tests);
- ``weak``: a concept spanning several symbols with unclear borders: the set is returned (cut at
  ``WEAK_LIMIT``, with the total) for the agent to check;
- ``unresolved``: nothing in the code: kept and returned as it is, never forced onto a symbol.

Symbols are read through :mod:`tenure.namespace.symbols` (``every_symbol``) once per index state;
resolving a phrase is then a few dictionary lookups.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import msgspec

from tenure.namespace.roles import is_test
from tenure.namespace.symbols import Symbol, every_symbol, index_key
from tenure.storage import Database, derived
from tenure.structural.naming import has_suffix

EXACT, STRONG, WEAK, UNRESOLVED = "exact", "strong", "weak", "unresolved"
TIERS = (EXACT, STRONG, WEAK, UNRESOLVED)  # strongest first
WEAK_LIMIT = 20
TOO_VAGUE = 200  # a concept matching more symbols than this names none of them
SKIPPED_KINDS = {"lambda"}
# what a symbol can be defined in without being a closure or a local
CONTAINERS = frozenset({"module", "class", "interface", "struct", "enum", "trait", "type", "record", "object",
                        "protocol", "union", "impl"})

_FILE = re.compile(r"^[\w-]+\.[A-Za-z]{1,5}$")
_EXTENSIONS = {"py", "pyi", "js", "jsx", "ts", "tsx", "java", "kt", "go", "rs", "rb", "c", "h", "cc", "cpp", "hpp",
               "cs", "php", "scala", "swift", "sh", "sql", "toml", "yaml", "yml", "json", "cfg", "ini"}
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_NOT_FOLDED = re.compile(r"[^a-z0-9]")
_ARTICLES = ("the ", "a ", "an ", "our ", "this ")
_GENERIC = ("class", "function", "method", "module", "package", "object", "decorator", "attribute")
_STOP = {"the", "and", "for", "with", "from", "into", "that", "this", "are", "was", "not", "all", "its"}
# nouns that say what of a symbol a phrase means, not which symbol ("the settlement retry policy")
_ASPECT = {"policy", "logic", "handling", "behaviour", "behavior", "mechanism", "strategy", "implementation"}
# a class's role word, which prose leaves out ("the settlement retry" of SettlementService.retry)
_ROLE = {"service", "manager", "handler", "helper", "impl", "base", "mixin"}


@dataclass(frozen=True)
class PhraseMatch:
    phrase: str
    tier: str
    symbols: tuple[str, ...] = ()
    how: str = ""
    total: int = 0  # symbols matched; more than `symbols` lists when the set was cut

    def as_dict(self) -> dict:
        return {"phrase": self.phrase, "tier": self.tier, "symbols": list(self.symbols), "how": self.how,
                "total": self.total}


def clean(phrase: str) -> str:
    """The phrase without the marks prose puts around code: quotes, backticks, a leading ``~`` (Sphinx),
    ``@`` (a decorator), trailing ``()`` and punctuation."""
    text = phrase.strip().strip("`'\"").strip()
    text = text.lstrip("~@").rstrip(".,;:!?")
    while text.endswith("()"):
        text = text[:-2]
    return text.strip()


def normalised(phrase: str) -> str:
    """Case and separators folded away: "the Settlement service" and SettlementService agree."""
    text = phrase.lower().strip()
    for article in _ARTICLES:
        if text.startswith(article):
            text = text[len(article):]
    words = text.split()
    if len(words) > 1 and words[-1] in _GENERIC:
        words = words[:-1]
    return _NOT_FOLDED.sub("", "".join(words))


def words_of(name: str) -> set[str]:
    """The words of an identifier or a phrase (camelCase and snake_case split), folded, crudely singular."""
    out = set()
    for word in _WORDS.findall(name):
        word = word.lower()
        if len(word) < 3 or word in _STOP:
            continue
        out.add(word[:-1] if word.endswith("s") and len(word) > 3 else word)
    return out


class _Entry(msgspec.Struct, array_like=True, gc=False):  # (a Struct: a project's 50,000 load in milliseconds)
    fqn: str
    kind: str
    path: str
    top_level: bool  # defined directly in its module
    in_tests: bool
    bases: tuple[str, ...] = ()
    module: str = ""
    nested: bool = False  # defined inside a function (a closure, a local class): prose never means it by a word
    name: str = ""
    folded: str = ""  # its name, `normalised`


# The last index built's words and folded form of each name (`PhraseIndex.from_symbols`): a process
# that builds the index again after an update (a server, a watcher) takes them instead of working
# them out again for every name (Django: a third of the build).
_last_names: tuple[dict[str, set[str]], dict[str, str]] = ({}, {})


@dataclass
class PhraseIndex:
    """What resolving needs of the symbols, built once from the structural store."""

    fqns: dict[str, _Entry] = field(default_factory=dict)
    by_name: dict[str, list[_Entry]] = field(default_factory=lambda: defaultdict(list))
    by_normalised: dict[str, list[_Entry]] = field(default_factory=lambda: defaultdict(list))
    by_word: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    modules_by_path: dict[str, str] = field(default_factory=dict)
    # a name's words, worked out once: a phrase's rungs read the words of every symbol sharing one of its
    # words (a knowledge build asks thousands of phrases)
    name_words: dict[str, set[str]] = field(default_factory=dict, repr=False, compare=False)
    # what the rungs look up for every phrase, made at the first that needs it (see `_members`)
    _outside_tests: dict[str, list[str]] = field(default_factory=dict, repr=False, compare=False)
    _methods: dict[str, list[tuple[str, frozenset[str]]]] = field(default_factory=dict, repr=False, compare=False)
    _by_file_name: dict[str, list[tuple[str, str]]] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def of(cls, db: Database) -> PhraseIndex:
        """The index of the symbols as they are, built once per index state in a process (the knowledge
        build's steps and resolve's preparation each ask for it after an index)."""
        index = derived(db, "phrase_index", lambda: PhraseIndex.from_symbols(every_symbol(db)), version=index_key(db))
        if cls is PhraseIndex:
            return index
        return cls(index.fqns, index.by_name, index.by_normalised, index.by_word, index.modules_by_path,
                   index.name_words)

    @classmethod
    def from_symbols(cls, symbols: Iterable[Symbol]) -> PhraseIndex:
        global _last_names
        index = cls()
        symbols = list(symbols)
        outside = {s.fqn for s in unnested(symbols)}  # (what is defined inside a function is part of it)
        folded: dict[str, str] = {}  # name -> normalised: a code base repeats its names
        in_tests: dict[str, bool] = {}
        words_before, folded_before = _last_names
        for s in symbols:
            if s.kind in SKIPPED_KINDS or s.fqn in index.fqns:
                continue
            nested = s.fqn not in outside
            if s.name not in folded:
                folded[s.name] = found if (found := folded_before.get(s.name)) is not None else normalised(s.name)
                if (found_words := words_before.get(s.name)) is not None:
                    index.name_words[s.name] = found_words
            if s.path not in in_tests:
                in_tests[s.path] = is_test(s.path)
            entry = _Entry(s.fqn, s.kind, s.path, s.parent in (None, "", s.module), in_tests[s.path], s.bases,
                           s.module or "", nested, s.name, folded[s.name])
            index.fqns[s.fqn] = entry
            index.by_name[s.name].append(entry)
            if not nested:  # a dotted name finds it; its bare name and words are what prose says of other things
                index.by_normalised[entry.folded].append(entry)
                for word in index.words(s.name):
                    index.by_word[word].add(s.fqn)
            if s.kind == "module" and s.path:
                index.modules_by_path[s.path] = s.fqn
        _last_names = (index.name_words, folded)
        return index

    def __bool__(self) -> bool:
        return bool(self.fqns)

    def words(self, name: str) -> set[str]:
        """`words_of(name)`, kept (the caller must not change the set)."""
        found = self.name_words.get(name)
        if found is None:
            found = self.name_words[name] = words_of(name)
        return found

    def dump(self) -> bytes:
        """The index as bytes `load` reads back (kept between processes: building it reads every symbol)."""
        entries = list(self.fqns.values())
        position = {e.fqn: i for i, e in enumerate(entries)}
        by_word = {w: sorted(map(position.__getitem__, fqns)) for w, fqns in self.by_word.items()}
        return _CODEC_OUT.encode((entries, by_word, self.modules_by_path))

    @classmethod
    def load(cls, data: bytes) -> PhraseIndex:
        entries, by_word, modules_by_path = _CODEC_IN.decode(data)
        index = cls(modules_by_path=modules_by_path)
        index.fqns = {e.fqn: e for e in entries}
        for entry in entries:
            index.by_name[entry.name].append(entry)
            index.by_normalised[entry.folded].append(entry)
        fqns = [e.fqn for e in entries]
        index.by_word.update((w, {fqns[i] for i in at}) for w, at in by_word.items())
        return index

    def resolve(self, phrase: str) -> PhraseMatch:
        text = clean(phrase)
        if not text or not self.fqns:
            return PhraseMatch(phrase, UNRESOLVED, how="no symbols indexed" if not self.fqns else "empty")
        return self.resolve_name(phrase) or self._concept(phrase, text)

    def resolve_name(self, phrase: str) -> PhraseMatch | None:
        """The rungs that read the phrase as a name: a path, a full or dotted name, a name with case and
        separators folded. None when it names nothing so (`resolve` then tries its words)."""
        text = clean(phrase)
        if not text or not self.fqns:
            return None
        if _is_path(text):
            found = self._path(phrase, text)
            if found is not None:
                return found
        return self._name(phrase, text) or self._folded(phrase, text)

    def is_nested(self, fqn: str) -> bool:
        """Defined inside a function: a closure or a local, which no word of prose means."""
        entry = self.fqns.get(fqn)
        return entry is not None and entry.nested

    # the rungs ---------------------------------------------------------------------------------
    def _path(self, phrase: str, path: str) -> PhraseMatch | None:
        path = path.lstrip("./")
        if path in self.modules_by_path:
            return PhraseMatch(phrase, EXACT, (self.modules_by_path[path],), f"the module of file {path}", 1)
        if path.endswith("/"):
            inside = sorted(m for p, m in self.modules_by_path.items() if p.startswith(path) or f"/{path}" in p)
            return _set(phrase, inside, f"the modules under {path}") if inside else None
        if self._by_file_name is None:  # (a path ends in `/path` only if its file has path's file name)
            self._by_file_name = defaultdict(list)
            for p, m in self.modules_by_path.items():
                self._by_file_name[p.rpartition("/")[2]].append((p, m))
        suffix = [m for p, m in self._by_file_name.get(path.rpartition("/")[2], ()) if p.endswith("/" + path)]
        if len(suffix) == 1:
            return PhraseMatch(phrase, EXACT, (suffix[0],), f"the module of the one file ending in {path}", 1)
        if suffix:
            return _set(phrase, sorted(suffix), f"{len(suffix)} files end in {path}")
        return None

    def _name(self, phrase: str, text: str) -> PhraseMatch | None:
        if text in self.fqns:
            return PhraseMatch(phrase, EXACT, (text,), "its full name", 1)
        name = re.split(r"[.:#$/]", text)[-1]
        candidates = self.by_name.get(name, [])
        if not candidates:
            return self._inherited(phrase, text) if text != name else None
        if text != name:  # a dotted name: a suffix of full names, or package + name (a re-export)
            suffix = [e for e in candidates if has_suffix(e.fqn, text)]
            if len(suffix) == 1:
                return PhraseMatch(phrase, EXACT, (suffix[0].fqn,), f"the one symbol named …{text}", 1)
            if suffix:
                return self._pick(phrase, suffix, f"{len(suffix)} symbols end in {text}")
            parts = text.split(".")
            # a re-export skips modules, never a class: flask.Flask.url_for is flask.app.Flask.url_for, but
            # flask.session is no method AppContext.session
            packaged = [e for e in candidates if e.fqn.split(".")[0] == parts[0]
                        and _reexported(text, e)]
            if len(packaged) == 1:
                return PhraseMatch(phrase, STRONG, (packaged[0].fqn,),
                                   f"{text} names its package and its name (re-exported from {packaged[0].fqn})", 1)
            if packaged:
                return self._pick(phrase, packaged, f"{len(packaged)} symbols of package {parts[0]} named {name}")
            return self._inherited(phrase, text)
        candidates = [e for e in candidates if not e.nested]
        if not candidates:
            return None
        if all(e.in_tests for e in candidates):  # prose means the project's code, not a test's local helper
            return PhraseMatch(phrase, UNRESOLVED, how=f"only symbols in tests are named {name}", total=len(candidates))
        if len(candidates) == 1 and (candidates[0].top_level or candidates[0].kind in ("class", "module")):
            return PhraseMatch(phrase, EXACT, (candidates[0].fqn,), f"the one symbol named {name}", 1)
        if len(candidates) == 1:  # a bare name that only a class member has may mean something else
            return _set(phrase, [candidates[0].fqn], f"only a member is named {name}")
        return self._pick(phrase, candidates, f"{len(candidates)} symbols are named {name}")

    def _inherited(self, phrase: str, text: str) -> PhraseMatch | None:
        """``Flask.route``: a member the class inherits (``route`` is defined on a base class)."""
        owner_text, _, member = text.rpartition(".")
        owner = self._name(owner_text, owner_text) if owner_text else None
        if owner is None or len(owner.symbols) != 1 or self.fqns[owner.symbols[0]].kind != "class":
            return None
        seen: set[str] = set()
        todo = [owner.symbols[0]]
        while todo:
            cls = todo.pop(0)
            if cls in seen:
                continue
            seen.add(cls)
            if f"{cls}.{member}" in self.fqns and cls != owner.symbols[0]:
                return PhraseMatch(phrase, STRONG, (f"{cls}.{member}",),
                                   f"{owner.symbols[0]} inherits {member} from {cls}", 1)
            for base in self.fqns[cls].bases:
                found = [e.fqn for e in self.by_name.get(base.rpartition(".")[2], []) if e.kind == "class"]
                if base in self.fqns:
                    found = [base]
                todo += found if len(found) == 1 else []
        return None

    def _pick(self, phrase: str, entries: list[_Entry], why: str) -> PhraseMatch:
        """Several symbols by one name: one defined at module level outside tests is what prose means
        by it (``url_for`` is the helper, not the method of the same name); otherwise all of them."""
        outside = [e for e in entries if not e.in_tests]
        top = [e for e in outside if e.top_level and e.kind != "module"]
        if len(top) == 1:
            return PhraseMatch(phrase, STRONG, (top[0].fqn,),
                               f"{why}; the one defined at module level outside tests", len(entries))
        classes = [e for e in outside if e.kind == "class"]
        if len(classes) == 1:
            return PhraseMatch(phrase, STRONG, (classes[0].fqn,), f"{why}; the one class outside tests", len(entries))
        if not outside:
            return PhraseMatch(phrase, UNRESOLVED, how=f"{why}, all in tests", total=len(entries))
        return _set(phrase, sorted(e.fqn for e in outside), why)

    def _folded(self, phrase: str, text: str) -> PhraseMatch | None:
        norm = normalised(text)
        # folding names a class, a module or a module-level function ("the request context" is no method)
        same = [e for e in self.by_normalised.get(norm, []) if not e.in_tests
                and (e.kind in ("class", "module") or e.top_level)] if norm else []
        if len(same) == 1:
            how = f"'{text}' is {same[0].fqn} with case and spaces folded"
            return PhraseMatch(phrase, STRONG, (same[0].fqn,), how, 1)
        if same:
            return self._pick(phrase, same, f"{len(same)} symbols are '{text}' with case and spaces folded")
        return None

    def _concept(self, phrase: str, text: str) -> PhraseMatch:
        words = words_of(text)
        if len(words) < 2 or len(text) > 80:  # one word inside many names ("Secure", "cookie") names none
            return PhraseMatch(phrase, UNRESOLVED, how="no symbol by that name")
        member = self._member(phrase, text, words)
        if member is not None:
            return member
        # the symbols sharing the most of the phrase's words, at least two ("the settlement retry path":
        # SettlementRetryPolicy and SettlementRetryQueue, whatever "path" means)
        shared: Counter = Counter()
        for word in words:
            if word not in self._outside_tests:
                self._outside_tests[word] = [f for f in self.by_word.get(word, ()) if not self.fqns[f].in_tests]
            shared.update(self._outside_tests[word])
        best = max(shared.values(), default=0)
        if best < 2:
            return PhraseMatch(phrase, UNRESOLVED, how="no symbol by that name or with those words")
        matched = {f for f, n in shared.items() if n == best}
        common = sorted(w for w in words if all(w in self.words(self.fqns[f].fqn.rsplit(".", 1)[-1]) for f in matched))
        if len(matched) > TOO_VAGUE:
            return PhraseMatch(phrase, UNRESOLVED, how=f"too common: {len(matched)} symbols have the words "
                               + ", ".join(sorted(words)), total=len(matched))
        return _set(phrase, sorted(matched), "symbols whose names have the words " + ", ".join(common))

    def _methods_with(self, word: str) -> list[tuple[str, frozenset[str]]]:
        """The methods of classes (outside tests, not nested) that `word` finds in `by_word`, each with the
        words of its name and its class's, the role word left out: `_member`'s candidates, read once per
        word for every phrase."""
        found = self._methods.get(word)
        if found is None:
            found = self._methods[word] = []
            for fqn in self.by_word.get(word, ()):
                entry, owner = self.fqns[fqn], self.fqns.get(fqn.rpartition(".")[0])
                if entry.in_tests or entry.nested or entry.kind not in ("method", "function") or owner is None \
                        or owner.kind != "class":
                    continue
                member, cls = self.words(fqn.rpartition(".")[2]), self.words(owner.fqn.rpartition(".")[2]) - _ROLE
                if member and cls:
                    found.append((fqn, frozenset(member | cls)))
        return found

    def _member(self, phrase: str, text: str, words: set[str]) -> PhraseMatch | None:
        """"the settlement retry policy": a method whose name is some of the phrase's words, of a class
        whose name is the rest (its role word, `Service`, left out), the aspect noun ("policy") aside.
        Strong when exactly one method and class share the phrase's words so; else not this rung."""
        wanted = words - _ASPECT
        if len(wanted) < 2:
            return None
        found = {fqn for word in wanted for fqn, named in self._methods_with(word) if named == wanted}
        if len(found) != 1:
            return None
        fqn = found.pop()
        owner, _, name = fqn.rpartition(".")
        aspect = f" ({', '.join(sorted(words & _ASPECT))}: what of it)" if words & _ASPECT else ""
        return PhraseMatch(phrase, STRONG, (fqn,), f"{name} of {owner.rpartition('.')[2]}, the words of both names"
                           + aspect, 1)


_CODEC_OUT = msgspec.msgpack.Encoder()
_CODEC_IN = msgspec.msgpack.Decoder(tuple[list[_Entry], dict[str, list[int]], dict[str, str]])




def unnested(symbols: list[Symbol]) -> list[Symbol]:
    """The symbols that are not defined inside a function (a closure, a local class: part of its function).
    The walk up the parents is iterative and stops at a cycle (a Java constructor names its class)."""
    by_fqn = {s.fqn: s for s in symbols}
    nested: dict[str, bool] = {}
    for s in symbols:
        if s.fqn in nested:
            continue
        chain = [s.fqn]
        verdict = False
        at = s
        while (parent := by_fqn.get(at.parent or "")) is not None and parent.fqn not in chain:
            if parent.kind not in CONTAINERS:
                verdict = True
                break
            if (known := nested.get(parent.fqn)) is not None:
                verdict = known
                break
            chain.append(parent.fqn)
            at = parent
        for fqn in chain:
            nested[fqn] = verdict
    return [s for s in symbols if not nested[s.fqn]]


def _set(phrase: str, fqns: list[str], why: str) -> PhraseMatch:
    return PhraseMatch(phrase, WEAK, tuple(fqns[:WEAK_LIMIT]), why, len(fqns))


def _reexported(text: str, entry: _Entry) -> bool:
    """``pkg.Name.member`` for ``pkg.sub.Name.member``: the phrase is a package above the symbol's module,
    then the symbol's whole name inside that module."""
    if not entry.module or not entry.fqn.startswith(entry.module + "."):
        return False
    inside = entry.fqn[len(entry.module) + 1:]
    head = text[:-len(inside) - 1]
    return text.endswith("." + inside) and (entry.module == head or entry.module.startswith(head + "."))


def _is_path(text: str) -> bool:
    """A file or directory path (``src/flask/app.py``, ``docs/``, ``app.py``), not a dotted name."""
    if " " in text:
        return False
    return "/" in text or (_FILE.match(text) is not None and text.rsplit(".", 1)[1] in _EXTENSIONS)
