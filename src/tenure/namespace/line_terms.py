"""The terms of every line of the code's files (`terms.terms` of each line), each file read and split once
for all the readers of one index run: the words index of the symbols (`symbol_terms`) and the kept terms
of the elements (`selection`).

A file is split as bytes, in C loops: one `bytes.translate` keeps the ASCII letters and digits (the only
characters of the words `terms.WORD` reads), makes each line boundary a mark and every other byte a space,
and `split` gives its runs of letters and digits and its marks (so a run knows its line): a third of the
CPU of a regular expression's matches over the text. A run is split into `WORD`'s words (`9lives`: 9,
lives) and into terms once per index run, however often the code repeats it; a file's terms are two arrays
(line, term) — a few MB for Django, where lists of strings per line would be hundreds.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tenure.namespace.terms import WORD, token_terms

_BREAK = 0  # the id of every line boundary
_MARK = b"\x01"  # the byte a line boundary becomes
# the line boundaries of `str.splitlines`: "\r\n" is made "\n" first (one boundary), and those beyond
# ASCII are made "\n" as their UTF-8 bytes (no ASCII byte is part of another character's)
_ASCII_BREAKS = b"\n\r\v\f\x1c\x1d\x1e"
_WIDE_BREAKS = tuple(c.encode() for c in ("\x85", "\u2028", "\u2029"))
_TABLE = bytes(c if chr(c).isascii() and chr(c).isalnum() else _MARK[0] if c in _ASCII_BREAKS else ord(" ")
               for c in range(256))


@dataclass(frozen=True)
class FileTerms:
    """Each term of each line of one file, as occurrences ordered by line."""

    lines: int  # as `str.splitlines` counts them
    line: np.ndarray  # int32, ascending: the occurrence's line (0-based)
    term: np.ndarray  # int32: its term (`LineTerms.texts`)

    def span(self, first: int, last: int) -> set[int]:
        """The distinct terms of lines `first` to `last` - 1 (a set: their order is their texts', which
        the caller sorts by; NumPy's unique costs more on an element's few hundred)."""
        a, b = self.line.searchsorted((first, last)).tolist()  # (the method: `np.searchsorted` wraps it)
        return set(self.term[a:b].tolist())


_EMPTY = FileTerms(0, np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32))


class _Ids(dict[bytes, int]):
    """A run of letters and digits -> its id; -1 for a run not met yet (looked up in C, no default to pass)."""

    def __missing__(self, token: bytes) -> int:
        return -1


def numbered(term: str, ids: dict[str, int], texts: list[str]) -> int:
    """The term's id in a vocabulary (`ids`: term -> id, `texts`: id -> term), added when new."""
    found = ids.get(term)
    if found is None:
        found = ids[term] = len(texts)
        texts.append(term)
    return found


class LineTerms:
    """The files of one project read into terms, each once (kept until this object goes)."""

    def __init__(self, root: Path) -> None:
        self._root = os.fspath(root)  # (a file's path joined to it: a Path per file costs more than the read)
        self.texts: list[str] = []  # term id -> the term
        self.ids: dict[str, int] = {}  # the term -> its id
        self._tokens = _Ids({_MARK: _BREAK})  # a run of letters and digits -> its id
        # a run's id -> its terms, `_flat[_first[t] : _first[t] + _count[t]]` (a boundary has none)
        self._first = np.zeros(1024, dtype=np.int64)
        self._count = np.zeros(1024, dtype=np.int64)
        self._flat = np.zeros(4096, dtype=np.int32)
        self._tokens_made, self._flat_made = 1, 0
        self._files: dict[str, FileTerms] = {}

    def file(self, path: str, data: bytes | None = None) -> FileTerms:
        """The terms of the file at `path` (relative to the root; `data`: its bytes, already read by the
        caller); an unreadable file has none."""
        found = self._files.get(path)
        if found is None:
            if data is None:
                try:
                    with open(os.path.join(self._root, path), "rb") as source:
                        data = source.read()
                except OSError:
                    data = b""
            found = self._files[path] = self._split(data)
        return found

    def terms_of(self, text: str) -> list[int]:
        """`terms.terms(text)` by id (a name, a path): its runs split as a file's are, a run met before
        not split again (a code base's names are runs of its code)."""
        tokens = text.encode(errors="replace").translate(_TABLE).replace(_MARK, b" ").split()
        ids = [self._tokens[token] for token in tokens]
        if -1 in ids:
            found = np.array(ids, dtype=np.int64)
            self._add_tokens(tokens, found, [i for i, t in enumerate(ids) if t < 0])
            ids = found.tolist()
        first, count, flat = self._first, self._count, self._flat
        if len(ids) == 1:
            return flat[first[ids[0]] : first[ids[0]] + count[ids[0]]].tolist()
        return list(dict.fromkeys(t for i in ids for t in flat[first[i] : first[i] + count[i]].tolist()))

    def span(self, path: str, first: int, last: int) -> list[str]:
        """The distinct terms of lines `first` to `last` - 1 (0-based) of a file, sorted."""
        return sorted(map(self.texts.__getitem__, self.file(path).span(first, last)))

    def _split(self, data: bytes) -> FileTerms:
        if not data:
            return _EMPTY
        if b"\r\n" in data:
            data = data.replace(b"\r\n", b"\n")
        if not data.isascii():  # (most code is: three searches of it spared)
            for wide in _WIDE_BREAKS:
                if wide in data:
                    data = data.replace(wide, b"\n")
        kept = data.translate(_TABLE)
        tokens = kept.replace(_MARK, b" " + _MARK + b" ").split()
        # Each run's id, -1 for a run not met yet: those are few after the first files, and looked at
        # alone (a set of every run of every file cost as much as the lookups).
        ids = np.fromiter(map(self._tokens.__getitem__, tokens), dtype=np.int64, count=len(tokens))
        new = np.flatnonzero(ids < 0)
        if len(new):
            self._add_tokens(tokens, ids, new.tolist())
        boundary = ids == _BREAK
        breaks = int(np.count_nonzero(boundary))
        line = np.cumsum(boundary)[~boundary]  # (a token's line: the boundaries before it)
        ids = ids[~boundary]
        count = self._count[ids]
        total = int(count.sum())
        # each token's terms in turn: the occurrence's place in `_flat`
        offset = np.repeat(self._first[ids] - (np.cumsum(count) - count), count) + np.arange(total)
        lines = breaks + (0 if kept.endswith(_MARK) else 1)
        return FileTerms(lines, np.repeat(line, count).astype(np.int32), self._flat[offset])

    def _add_tokens(self, tokens: list[bytes], ids: np.ndarray, new: list[int]) -> None:
        """Number the runs not met before (`ids` -1 at `new`) and split them into terms, each once; their
        terms are written to the arrays together."""
        n, at = self._tokens_made, self._flat_made
        first: list[int] = []
        flat: list[int] = []
        for i in new:
            token = tokens[i]
            found = self._tokens[token]
            if found < 0:  # (not met before this file, nor earlier in it)
                words = WORD.findall(token.decode("ascii"))  # (one word, but for a run starting with digits: `2URLs`)
                terms = token_terms(words[0]) if len(words) == 1 else \
                    dict.fromkeys(t for w in words for t in token_terms(w))
                found = self._tokens[token] = n + len(first)
                first.append(at + len(flat))
                flat += [numbered(t, self.ids, self.texts) for t in terms]
            ids[i] = found
        end = n + len(first)
        if end > len(self._first):
            self._first = np.resize(self._first, 2 * end)
            self._count = np.resize(self._count, 2 * end)
        if at + len(flat) > len(self._flat):
            self._flat = np.resize(self._flat, 2 * (at + len(flat)))
        self._first[n:end] = first
        self._count[n:end] = np.diff(first, append=at + len(flat))
        self._flat[at : at + len(flat)] = flat
        self._tokens_made, self._flat_made = end, at + len(flat)
