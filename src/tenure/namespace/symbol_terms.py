"""The words of every symbol, by field, kept between calls: what `related_by_intent` scores a text against.

Fields, each weighed for what it says about the symbol:
- ``name``: the words of its name (`url_for`: url, for; `SessionInterface`: session, interface);
- ``signature``: its first lines up to the body (parameters, bases, annotations), its name left out;
- ``doc``: its docstring and comment lines;
- ``code``: the rest of its own lines (identifiers it uses, strings);
- ``place``: its file's path and the name of the class or module it belongs to.
A symbol's own lines are its span without the spans of the symbols defined in it (a class's methods are
theirs), but with those of closures and locals, which prose never names (`namespace.phrases`).

Built after an index (`intent.prepare`) and kept in the state directory: the words of each file by its content
hash (an edit re-reads only its files), and the inverted index the query reads (term -> symbols, a
weight per pair), loaded in milliseconds by the first call of a new process. A weight is binary term
frequency with BM25's length normalisation per field.
"""

from __future__ import annotations

import io
import os
import threading
from dataclasses import dataclass
from pathlib import Path

import msgspec
import numpy as np

from tenure.files import write_atomic
from tenure.namespace.line_terms import LineTerms, numbered
from tenure.namespace.phrases import unnested
from tenure.namespace.roles import is_test
from tenure.namespace.symbols import IndexedFile, Symbol, index_state, indexed_files, symbols_in
from tenure.state import state_dir
from tenure.storage import Database
from tenure.structural.languages import is_declaration
from tenure.structural.naming import short_name

FIELDS = ("name", "signature", "doc", "code", "place")
WEIGHTS = np.array([3.0, 1.0, 1.2, 0.6, 0.5], dtype=np.float32)  # of the fields, in that order
K1, B = 1.2, 0.75  # BM25: how fast a field's length dilutes a word in it
SKIPPED_KINDS = {"lambda"}
SIGNATURE_LINES = 6
MAX_OWN_LINES = 2000
_FILES_CACHE = "intent-files.msgpack"
_INDEX_CACHE = "intent-terms.npz"
_COMMENT = ("#", "//", "/*", "*", "--", ";;")
_QUOTES = ('"""', "'''")
_OPENING = frozenset("#/*-;rbuRBU\"'")  # the first characters of the lines `_COMMENT` and `_QUOTES` open


class _FileWords(msgspec.Struct, array_like=True):
    """What one file gives the index, kept by its content (and module: a package moved renames it all)."""

    content_hash: str
    module: str
    fqns: list[str]  # its symbols that are not nested in a function, outermost first
    kinds: list[str]
    lines: list[int]
    term_ids: bytes  # int32 per posting: its term, in the kept vocabulary
    owners: bytes  # int32 per posting: its symbol, in `fqns`
    bits: bytes  # uint8 per posting: its fields
    lengths: bytes  # float32 per symbol and field: how many terms


class _Kept(msgspec.Struct, array_like=True):
    vocabulary: list[str]  # term ids only grow: a file's kept ids stay valid
    files: dict[str, _FileWords]


@dataclass
class SymbolTerms:
    """The symbols a text can be matched to, and the inverted index of their words."""

    state: str
    fqns: list[str]
    kinds: list[str]
    paths: list[str]
    lines: np.ndarray  # int32, first line
    in_tests: np.ndarray  # bool
    vocabulary: dict[str, int]
    indptr: np.ndarray  # term -> its postings indptr[t]:indptr[t+1]
    symbol_of: np.ndarray  # int32, the posting's symbol
    weight: np.ndarray  # float32, the posting's weight (the fields' weights, normalised)
    fields: np.ndarray  # uint8, the posting's fields as bits (1 << FIELDS.index)
    df: np.ndarray  # int32, symbols per term

    def __post_init__(self) -> None:
        self.position = {f: i for i, f in enumerate(self.fqns)}
        if len(self.position) < len(self.fqns):  # a name defined twice: never a stub's or .d.ts's row over code's
            for i, f in enumerate(self.fqns):
                if is_declaration(self.paths[self.position[f]]) and not is_declaration(self.paths[i]):
                    self.position[f] = i
        self.terms = sorted(self.vocabulary, key=self.vocabulary.__getitem__)  # term id -> term

    def __len__(self) -> int:
        return len(self.fqns)

    def idf(self, term_ids: np.ndarray) -> np.ndarray:
        n = max(1, len(self.fqns))
        return np.log1p((n - self.df[term_ids] + 0.5) / (self.df[term_ids] + 0.5)).astype(np.float32)

    def score(self, query: dict[int, float]) -> np.ndarray:
        """Every symbol's score for these terms (term id -> the query's weight of it): idf × weight."""
        out = np.zeros(len(self.fqns), dtype=np.float32)
        if not query:
            return out
        ids = np.fromiter(query, dtype=np.int64, count=len(query))
        factors = self.idf(ids) * np.fromiter(query.values(), dtype=np.float32, count=len(query))
        spans = [(self.indptr[t], self.indptr[t + 1]) for t in ids]
        which = np.concatenate([self.symbol_of[a:b] for a, b in spans])
        weights = np.concatenate([self.weight[a:b] * f for (a, b), f in zip(spans, factors, strict=True)])
        return out + np.bincount(which, weights, minlength=len(self.fqns)).astype(np.float32)

    def fields_for(self, term_ids: list[int], symbols: set[int]) -> dict[int, list[tuple[int, int]]]:
        """symbol -> (term, fields bits) of these terms in these symbols: what a match is explained by."""
        found: dict[int, list[tuple[int, int]]] = {s: [] for s in symbols}
        wanted = np.zeros(len(self.fqns), dtype=bool)
        wanted[list(symbols)] = True
        for t in term_ids:
            a, b = self.indptr[t], self.indptr[t + 1]
            hit = wanted[self.symbol_of[a:b]]
            for s, bits in zip(self.symbol_of[a:b][hit].tolist(), self.fields[a:b][hit].tolist(), strict=True):
                found[s].append((t, bits))
        return found


_cache: dict[str, SymbolTerms] = {}
_cache_lock = threading.Lock()


def symbol_terms(db: Database, root: Path, code: LineTerms | None = None) -> SymbolTerms:
    """The index for the index's current state: from this process's memory, else the state directory,
    else made now (only the files changed since the last one are read; `code`: their terms, when an
    index run has read them already)."""
    state = index_state(db)
    key = str(root.resolve())
    with _cache_lock:
        kept = _cache.get(key)
        if kept is not None and kept.state == state:
            return kept
        loaded = _load(root, state) or _made(db, root, state, code)
        _cache[key] = loaded
        return loaded


def _made(db: Database, root: Path, state: str, code: LineTerms | None = None) -> SymbolTerms:
    """Read the words of the files changed since the last time, rebuild the inverted index from every
    file's kept postings, and keep both in the state directory (`code`: the files' terms, when the
    caller has read them already)."""
    files = indexed_files(db)
    kept = _read_files_cache(root)
    postings = _Postings(kept.vocabulary, code or LineTerms(root))
    changed = [p for p, f in files.items() if p not in kept.files or kept.files[p].content_hash != f.content_hash
               or kept.files[p].module != f.module]
    fresh = {p: w for p, w in kept.files.items() if p in files and p not in changed}
    for path, found in symbols_in(db, changed).items():
        symbols = [s for s in found if s.kind not in SKIPPED_KINDS and not s.generated]
        fresh[path] = postings.of_file(root, files[path], path, symbols)
    built = _build(state, fresh, postings.vocabulary)
    _save(root, _Kept(postings.vocabulary, fresh), built)
    return built


# reading the code -------------------------------------------------------------------------------
_SIGNATURE, _DOC, _CODE = range(3)  # a line's field (FIELDS[1:4])


@dataclass
class _Read:
    """The signature, doc and code terms of a file's symbols that are not nested in a function: one row
    per distinct (symbol, field, term); a name defined twice is one symbol (a group)."""

    groups: dict[str, int]  # full name -> its group
    group: np.ndarray  # int64
    field: np.ndarray  # int64: _SIGNATURE, _DOC or _CODE
    term: np.ndarray  # int64, in `LineTerms.texts`
    counts: np.ndarray  # (groups, 3): distinct terms per field


def _read_file(root: Path, path: str, symbols: list[Symbol], code: LineTerms,
               names: dict[str, list[int]]) -> _Read | None:
    """What a file's own lines say of each of its symbols (None: the file cannot be read). A line is a
    symbol's signature (its first lines up to the body, without the words of its name), doc or code.
    `names`: a name's terms in the code's vocabulary, kept across files."""
    try:  # (decoded apart from the read: a text-mode read's newline translation costs more, and
        # `splitlines` breaks lines at "\r\n" and "\r" alike)
        with open(os.path.join(root, path), "rb") as source:
            data = source.read()
    except OSError:
        return None
    lines = data.decode("utf-8", "replace").splitlines()
    kept = unnested(symbols)
    owner = np.full(len(lines), -1, dtype=np.int64)
    for i, s in sorted(enumerate(kept), key=lambda p: (p[1].start, -p[1].end)):
        first = 0 if s.kind == "module" else max(0, s.start - 1)
        last = len(lines) if s.kind == "module" else min(len(lines), s.end)
        owner[first:last] = i
    owner = _first_lines(owner, MAX_OWN_LINES)
    field = np.where(_doc_lines(lines), _DOC, _CODE)
    for i, s in enumerate(kept):
        if s.kind != "module":
            _mark_signature(lines, s, owner, i, field)
    groups: dict[str, int] = {}
    group_of = np.array([groups.setdefault(s.fqn, len(groups)) for s in kept] + [-1], dtype=np.int64)
    found = code.file(path, data)
    name_ids = [(g, _name_ids(short_name(fqn), code, names)) for fqn, g in groups.items()]
    group = group_of[owner[found.line]]  # (owner -1, no symbol's line: the last, -1)
    n = max(1, len(code.texts))  # (after the names': a key's term is under it)
    key = _distinct(((group * 3 + field[found.line]) * n + found.term)[group >= 0])
    named = np.array([(g * 3 + _SIGNATURE) * n + t for g, ids in name_ids for t in ids], dtype=np.int64)
    if len(named) and len(key):  # (`key` is sorted: where each would stand says whether it is there)
        at = np.minimum(key.searchsorted(named), len(key) - 1)
        left = np.ones(len(key), dtype=bool)
        left[at[key[at] == named]] = False
        key = key[left]
    group_field, term = np.divmod(key, n)
    counts = np.bincount(group_field, minlength=3 * len(groups)).reshape(-1, 3)
    return _Read(groups, *np.divmod(group_field, 3), term, counts)


def _distinct(values: np.ndarray) -> np.ndarray:
    """`np.unique(values)`, for a file's few thousand keys in half its time (a sort and a mask, without
    its hashing)."""
    values.sort()  # (in place: callers pass an array of their own)
    if len(values) < 2:
        return values
    first = np.empty(len(values), dtype=bool)
    first[0] = True
    np.not_equal(values[1:], values[:-1], out=first[1:])
    return values[first]


def _name_ids(name: str, code: LineTerms, names: dict[str, list[int]]) -> list[int]:
    """The terms of a name, by their ids in the code's vocabulary (kept in `names`: a code base repeats
    its names, methods of many classes)."""
    found = names.get(name)
    if found is None:
        found = names[name] = code.terms_of(name)
    return found


def _first_lines(owner: np.ndarray, limit: int) -> np.ndarray:
    """`owner` without the lines of each owner after its first `limit` (-1: no owner)."""
    if len(owner) <= limit:
        return owner
    owned = np.flatnonzero(owner >= 0)
    order = owned[np.argsort(owner[owned], kind="stable")]
    runs = np.flatnonzero(np.r_[True, owner[order][1:] != owner[order][:-1]])
    rank = np.arange(len(order)) - np.repeat(runs, np.diff(np.r_[runs, len(order)]))
    out = owner.copy()
    out[order[rank >= limit]] = -1
    return out


def _mark_signature(lines: list[str], symbol: Symbol, owner: np.ndarray, i: int, field: np.ndarray) -> None:
    """Its lines (`owner` `i`) among its first SIGNATURE_LINES, up to the one that ends its header (`:`,
    `{` or `;` at its end), are the symbol's signature."""
    for n in range(max(0, symbol.start - 1), min(len(lines), symbol.start - 1 + SIGNATURE_LINES)):
        if owner[n] == i:
            field[n] = _SIGNATURE
        stripped = lines[n].split("#", 1)[0].rstrip()
        if stripped.endswith((":", "{", ";")):
            return


def _doc_lines(lines: list[str]) -> list[bool]:
    """Whether each line is a comment or part of a docstring (a triple-quoted string standing alone) or
    a block comment."""
    out = [False] * len(lines)
    inside: str | None = None
    for n, line in enumerate(lines):
        if inside is not None:
            out[n] = True
            if inside in line:  # (what ends a block has no spaces: the line needs no stripping)
                inside = None
            continue
        stripped = line.lstrip()
        if stripped[:1] not in _OPENING:  # (most lines: one look at their first character)
            continue
        if stripped.startswith(_COMMENT):
            out[n] = True
            if stripped.startswith("/*") and "*/" not in stripped[2:]:
                inside = "*/"
            continue
        body = stripped.lstrip("rbuRBU")
        if body[:3] in _QUOTES:
            out[n] = True
            if body[:3] not in body[3:]:
                inside = body[:3]
    return out


# the inverted index -----------------------------------------------------------------------------
class _Postings:
    """The postings of files' symbols, their terms numbered in the kept vocabulary (which only grows: a
    kept file's ids stay valid)."""

    def __init__(self, vocabulary: list[str], code: LineTerms) -> None:
        self.vocabulary = vocabulary
        self.code = code
        self._ids = {t: i for i, t in enumerate(vocabulary)}
        self._of_code = np.zeros(0, dtype=np.int64)  # the code's term id -> this vocabulary's (-1: not yet)
        self._named: dict[str, list[int]] = {}  # a name -> its terms
        self._named_in_code: dict[str, list[int]] = {}  # a name -> its terms in the code's vocabulary
        self._placed: dict[tuple[str, str], list[int]] = {}  # (path, parent) -> its terms

    def of_file(self, root: Path, file: IndexedFile, path: str, symbols: list[Symbol]) -> _FileWords:
        """The postings of one file's symbols (a name defined twice, an overload: its lines are one symbol's)."""
        read = _read_file(root, path, symbols, self.code, self._named_in_code)
        if read is None:
            read = _Read({}, *(np.zeros(0, dtype=np.int64),) * 3, np.zeros((0, 3), dtype=np.int64))
        kept: list[Symbol] = []
        seen: set[str] = set()
        owner_of = np.zeros(len(read.groups), dtype=np.int64)  # group -> its symbol in `kept`
        counts = read.counts.tolist()
        term_ids: list[int] = []
        owners: list[int] = []
        bits: list[int] = []
        lengths: list[list[int]] = []
        for s in symbols:
            g = read.groups.get(s.fqn)
            if g is None or s.fqn in seen:  # (of a name defined twice, the first definition stands)
                continue
            seen.add(s.fqn)
            owner_of[g] = len(kept)
            name, place = self._name_terms(s.name), self._place_terms(s)
            for f, found in ((0, name), (4, place)):
                term_ids += found
                owners += [len(kept)] * len(found)
                bits += [1 << f] * len(found)
            lengths.append([len(name), *counts[g], len(place)])
            kept.append(s)
        joined = (lambda listed, rows: np.concatenate((np.array(listed, dtype=np.int64), rows)))  # noqa: E731
        return _FileWords(file.content_hash, file.module, [s.fqn for s in kept], [s.kind for s in kept],
                          [s.start for s in kept],
                          joined(term_ids, self._kept_ids(read.term)).astype(np.int32).tobytes(),
                          joined(owners, owner_of[read.group]).astype(np.int32).tobytes(),
                          joined(bits, 1 << (read.field + 1)).astype(np.uint8).tobytes(),
                          np.array(lengths, dtype=np.float32).tobytes())

    def _id(self, term: str) -> int:
        return numbered(term, self._ids, self.vocabulary)

    def _kept_ids(self, code_ids: np.ndarray) -> np.ndarray:
        if len(self._of_code) < len(self.code.texts):
            self._of_code = np.r_[self._of_code, np.full(len(self.code.texts) - len(self._of_code), -1)]
        for t in _distinct(code_ids[self._of_code[code_ids] < 0]).tolist():
            self._of_code[t] = self._id(self.code.texts[t])
        return self._of_code[code_ids]

    def _name_terms(self, name: str) -> list[int]:
        found = self._named.get(name)
        if found is None:
            found = self._named[name] = self._ids_of(_name_ids(name, self.code, self._named_in_code))
        return found

    def _ids_of(self, code_ids: list[int]) -> list[int]:
        return [self._id(self.code.texts[t]) for t in code_ids]

    def _place_terms(self, s: Symbol) -> list[int]:
        parent = short_name(s.parent) if s.parent and s.parent != s.module else ""
        found = self._placed.get((s.path, parent))
        if found is None:
            found = self._placed[(s.path, parent)] = self._ids_of(
                self.code.terms_of(f"{s.path.rsplit('.', 1)[0]} {parent}"))
        return found


def _build(state: str, files: dict[str, _FileWords], vocabulary: list[str]) -> SymbolTerms:
    fqns: list[str] = []
    kinds: list[str] = []
    paths: list[str] = []
    lines: list[int] = []
    term_ids, symbol_ids, bits, lengths = [], [], [], []
    for path in sorted(files):
        w = files[path]
        term_ids.append(np.frombuffer(w.term_ids, dtype=np.int32))
        symbol_ids.append(np.frombuffer(w.owners, dtype=np.int32).astype(np.int64) + len(fqns))
        bits.append(np.frombuffer(w.bits, dtype=np.uint8))
        lengths.append(np.frombuffer(w.lengths, dtype=np.float32).reshape(-1, len(FIELDS)))
        fqns += w.fqns
        kinds += w.kinds
        paths += [path] * len(w.fqns)
        lines += w.lines
    joined = (lambda parts, dtype: np.concatenate(parts) if parts else np.zeros(0, dtype=dtype))  # noqa: E731
    return _inverted(state, fqns, kinds, paths, lines, {t: i for i, t in enumerate(vocabulary)},
                     joined(term_ids, np.int32).astype(np.int64), joined(symbol_ids, np.int64), joined(bits, np.uint8),
                     np.concatenate(lengths) if lengths else np.zeros((0, len(FIELDS)), dtype=np.float32))


def _inverted(state: str, fqns: list[str], kinds: list[str], paths: list[str], lines: list[int],
              vocabulary: dict[str, int], term_ids: np.ndarray, symbol_ids: np.ndarray, bits: np.ndarray,
              lengths: np.ndarray) -> SymbolTerms:
    n_terms = len(vocabulary)
    if len(term_ids):
        # (a posting's fields ride in its key's low bits: one array sorted, and no gather after)
        key = np.sort((term_ids * max(1, len(fqns)) + symbol_ids) << len(FIELDS) | bits)
        key, bits = key >> len(FIELDS), (key & ((1 << len(FIELDS)) - 1)).astype(np.uint8)
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        merged = np.bitwise_or.reduceat(bits, starts)
        term_of, symbol_of = key[starts] // max(1, len(fqns)), key[starts] % max(1, len(fqns))
    else:
        merged = np.zeros(0, dtype=np.uint8)
        term_of = symbol_of = np.zeros(0, dtype=np.int64)
    average = np.maximum(lengths.mean(axis=0), 1.0) if len(lengths) else np.ones(len(FIELDS), dtype=np.float32)
    norm = (K1 + 1) / (1 + K1 * (1 - B + B * lengths / average))  # symbol × field
    weight = np.zeros(len(merged), dtype=np.float32)
    for f in range(len(FIELDS)):
        has = (merged >> f) & 1
        weight += has * WEIGHTS[f] * (norm[symbol_of, f] if len(symbol_of) else 0)
    df = np.bincount(term_of, minlength=n_terms)  # (postings are sorted by term: df gives the offsets)
    tests = {p: is_test(p) for p in dict.fromkeys(paths)}
    return SymbolTerms(state, fqns, kinds, paths, np.array(lines, dtype=np.int32),
                       np.array([tests[p] for p in paths], dtype=bool), vocabulary,
                       np.r_[0, np.cumsum(df)].astype(np.int64), symbol_of.astype(np.int32), weight,
                       merged.astype(np.uint8), df.astype(np.int32))


# kept in the state directory ------------------------------------------------------------------------
def _read_files_cache(root: Path) -> _Kept:
    try:
        return msgspec.msgpack.decode((state_dir(root) / _FILES_CACHE).read_bytes(), type=_Kept)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return _Kept([], {})


def _save(root: Path, files: _Kept, built: SymbolTerms) -> None:
    state = state_dir(root)
    if not state.is_dir():
        return
    # (each file replaced whole: another process indexing the same checkout reads either the old or
    # the new one, never a half-written one)
    try:
        write_atomic(state / _FILES_CACHE, msgspec.msgpack.encode(files))
        out = io.BytesIO()
        np.savez(out, state=_packed([built.state]), fqns=_packed(built.fqns), kinds=_packed(built.kinds),
                 paths=_packed(built.paths), lines=built.lines, in_tests=built.in_tests,
                 vocabulary=_packed(sorted(built.vocabulary, key=built.vocabulary.__getitem__)),
                 indptr=built.indptr, symbol_of=built.symbol_of, weight=built.weight, fields=built.fields,
                 df=built.df)
        write_atomic(state / _INDEX_CACHE, out.getvalue())
    except OSError:
        pass  # (a read-only state directory: the next process builds it again)


def kept_state(root: Path) -> str | None:
    """The index state the kept inverted index was made for (None: none kept), without loading it."""
    try:
        with np.load(state_dir(root) / _INDEX_CACHE) as data:
            return _unpacked(data["state"])[0]
    except (OSError, KeyError, ValueError, IndexError):
        return None


def _load(root: Path, state: str) -> SymbolTerms | None:
    try:
        with np.load(state_dir(root) / _INDEX_CACHE) as data:
            if _unpacked(data["state"]) != [state]:
                return None
            vocabulary = _unpacked(data["vocabulary"])
            return SymbolTerms(state, _unpacked(data["fqns"]), _unpacked(data["kinds"]), _unpacked(data["paths"]),
                               data["lines"], data["in_tests"],
                               {t: i for i, t in enumerate(vocabulary)}, data["indptr"], data["symbol_of"],
                               data["weight"], data["fields"], data["df"])
    except (OSError, KeyError, ValueError):
        return None


def _packed(texts: list[str]) -> np.ndarray:
    return np.frombuffer("\n".join(texts).encode(), dtype=np.uint8)


def _unpacked(array: np.ndarray) -> list[str]:
    text = array.tobytes().decode()
    return text.split("\n") if text else []
