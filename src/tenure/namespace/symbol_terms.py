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
import threading
from dataclasses import dataclass
from pathlib import Path

import msgspec
import numpy as np

from tenure.files import write_atomic
from tenure.namespace.phrases import unnested
from tenure.namespace.roles import is_test
from tenure.namespace.symbols import IndexedFile, Symbol, index_state, indexed_files, symbols_in
from tenure.namespace.terms import terms, words
from tenure.state import state_dir
from tenure.storage import Database
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


def symbol_terms(db: Database, root: Path) -> SymbolTerms:
    """The index for the index's current state: from this process's memory, else the state directory,
    else made now (only the files changed since the last one are read)."""
    state = index_state(db)
    key = str(root.resolve())
    with _cache_lock:
        kept = _cache.get(key)
        if kept is not None and kept.state == state:
            return kept
        loaded = _load(root, state) or _made(db, root, state)
        _cache[key] = loaded
        return loaded


def _made(db: Database, root: Path, state: str) -> SymbolTerms:
    """Read the words of the files changed since the last time, rebuild the inverted index from every
    file's kept postings, and keep both in the state directory."""
    files = indexed_files(db)
    kept = _read_files_cache(root)
    vocabulary = {t: i for i, t in enumerate(kept.vocabulary)}
    changed = [p for p, f in files.items() if p not in kept.files or kept.files[p].content_hash != f.content_hash
               or kept.files[p].module != f.module]
    fresh = {p: w for p, w in kept.files.items() if p in files and p not in changed}
    for path, found in symbols_in(db, changed).items():
        symbols = [s for s in found if s.kind not in SKIPPED_KINDS and not s.generated]
        fresh[path] = _file_words(root, files[path], path, symbols, vocabulary)
    terms_list = sorted(vocabulary, key=vocabulary.__getitem__)
    built = _build(state, fresh, terms_list)
    _save(root, _Kept(terms_list, fresh), built)
    return built


# reading the code -------------------------------------------------------------------------------
def _read_file(root: Path, path: str, symbols: list[Symbol]) -> dict[str, tuple[list[str], list[str], list[str]]]:
    """fqn -> (signature, doc, code) terms of each symbol of the file that is not nested in a function."""
    try:
        lines = (root / path).read_text("utf-8", "replace").splitlines()
    except OSError:
        return {}
    kept = unnested(symbols)
    owner = np.full(len(lines), -1, dtype=np.int32)
    for i, s in sorted(enumerate(kept), key=lambda p: (p[1].start, -p[1].end)):
        first = 0 if s.kind == "module" else max(0, s.start - 1)
        last = len(lines) if s.kind == "module" else min(len(lines), s.end)
        owner[first:last] = i
    doc_lines = _doc_lines(lines)
    out: dict[str, tuple[set[str], set[str], set[str]]] = {s.fqn: (set(), set(), set()) for s in kept}
    counted: dict[int, int] = {}
    for n, line in enumerate(lines):
        i = int(owner[n])
        if i < 0 or counted.get(i, 0) >= MAX_OWN_LINES:
            continue
        counted[i] = counted.get(i, 0) + 1
        s = kept[i]
        found = terms(line)
        if not found:
            continue
        signature, doc, code = out[s.fqn]
        if s.kind != "module" and s.start - 1 <= n < s.start - 1 + SIGNATURE_LINES and not _body_started(lines, s, n):
            signature.update(found)
        elif doc_lines[n]:
            doc.update(found)
        else:
            code.update(found)
    return {fqn: (sorted(sig - set(terms(short_name(fqn)))), sorted(doc), sorted(code))
            for fqn, (sig, doc, code) in out.items()}


def _body_started(lines: list[str], symbol: Symbol, n: int) -> bool:
    """Whether line `n` comes after the line that ends the symbol's header (`:` or `{` at its end)."""
    for k in range(symbol.start - 1, n):
        stripped = lines[k].split("#", 1)[0].rstrip()
        if stripped.endswith((":", "{")) or stripped.endswith(";"):
            return True
    return False


def _doc_lines(lines: list[str]) -> list[bool]:
    """Whether each line is a comment or part of a docstring (a triple-quoted string standing alone) or
    a block comment."""
    out = [False] * len(lines)
    inside: str | None = None
    for n, line in enumerate(lines):
        stripped = line.strip()
        if inside is not None:
            out[n] = True
            if inside in stripped:
                inside = None
            continue
        if stripped.startswith(_COMMENT):
            out[n] = True
            if stripped.startswith("/*") and "*/" not in stripped[2:]:
                inside = "*/"
            continue
        quote = next((q for q in _QUOTES if stripped.lstrip("rbuRBU").startswith(q)), None)
        if quote is not None:
            out[n] = True
            body = stripped.lstrip("rbuRBU")[3:]
            if quote not in body:
                inside = quote
    return out


# the inverted index -----------------------------------------------------------------------------
def _place_terms(s: Symbol) -> list[str]:
    path = s.path.rsplit(".", 1)[0]
    parent = short_name(s.parent) if s.parent and s.parent != s.module else ""
    return terms(f"{' '.join(words(path))} {' '.join(words(parent))}")


def _file_words(root: Path, file: IndexedFile, path: str, symbols: list[Symbol],
                vocabulary: dict[str, int]) -> _FileWords:
    """The postings of one file's symbols (a name defined twice, an overload: its lines are one symbol's)."""
    read = _read_file(root, path, symbols)
    kept: list[Symbol] = []
    seen: set[str] = set()
    term_ids: list[int] = []
    owners: list[int] = []
    bits: list[int] = []
    lengths: list[int] = []
    for s in symbols:
        if s.fqn not in read or s.fqn in seen:
            continue
        seen.add(s.fqn)
        signature, doc, code = read[s.fqn]
        for f, found in enumerate((terms(" ".join(words(s.name))), signature, doc, code, _place_terms(s))):
            lengths.append(len(found))
            for t in found:
                term_ids.append(vocabulary.setdefault(t, len(vocabulary)))
                owners.append(len(kept))
                bits.append(1 << f)
        kept.append(s)
    return _FileWords(file.content_hash, file.module, [s.fqn for s in kept], [s.kind for s in kept],
                      [s.start for s in kept], np.array(term_ids, dtype=np.int32).tobytes(),
                      np.array(owners, dtype=np.int32).tobytes(), np.array(bits, dtype=np.uint8).tobytes(),
                      np.array(lengths, dtype=np.float32).tobytes())


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
        key = term_ids * max(1, len(fqns)) + symbol_ids
        order = np.argsort(key, kind="stable")
        key, bits = key[order], bits[order]
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
