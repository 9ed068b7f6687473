"""The terms of every line of the code's files (`terms.terms` of each line), each file read and split once
for all the readers of one index run: the words index of the symbols (`symbol_terms`) and the kept terms
of the elements (`selection`).

A file is one pass of a regular expression (its line breaks are tokens too, so a token knows its line);
an identifier is split into terms once per run, however often the code repeats it; a file's terms are
two arrays (line, term) — a few MB for Django, where lists of strings per line would be hundreds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tenure.namespace.terms import WORD, token_terms

# an identifier or a number (the words `terms` reads), or a line boundary as `str.splitlines` knows them
_TOKEN = re.compile(WORD.pattern + r"|\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
_BREAKS = ("\r\n", "\n", "\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
_BREAK = 0  # the token id of every line boundary


@dataclass(frozen=True)
class FileTerms:
    """Each term of each line of one file, as occurrences ordered by line."""

    lines: int  # as `str.splitlines` counts them
    line: np.ndarray  # int32, ascending: the occurrence's line (0-based)
    term: np.ndarray  # int32: its term (`LineTerms.texts`)

    def span(self, first: int, last: int) -> np.ndarray:
        """The distinct terms of lines `first` to `last` - 1, ascending by id."""
        a, b = np.searchsorted(self.line, (first, last))
        return np.unique(self.term[a:b])


_EMPTY = FileTerms(0, np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32))


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
        self.root = root
        self.texts: list[str] = []  # term id -> the term
        self.ids: dict[str, int] = {}  # the term -> its id
        self._tokens: dict[str, int] = dict.fromkeys(_BREAKS, _BREAK)  # token -> its id
        # token id -> its terms, `_flat[_first[t] : _first[t] + _count[t]]` (a boundary has none)
        self._first = np.zeros(1024, dtype=np.int64)
        self._count = np.zeros(1024, dtype=np.int64)
        self._flat = np.zeros(4096, dtype=np.int32)
        self._tokens_made, self._flat_made = 1, 0
        self._files: dict[str, FileTerms] = {}

    def file(self, path: str, text: str | None = None) -> FileTerms:
        """The terms of the file at `path` (relative to the root; `text`: its content, already read by
        the caller); an unreadable file has none."""
        found = self._files.get(path)
        if found is None:
            if text is None:
                try:
                    text = (self.root / path).read_text("utf-8", "replace")
                except OSError:
                    text = ""
            found = self._files[path] = self._split(text)
        return found

    def span(self, path: str, first: int, last: int) -> list[str]:
        """The distinct terms of lines `first` to `last` - 1 (0-based) of a file, sorted."""
        return sorted(self.texts[t] for t in self.file(path).span(first, last).tolist())

    def _split(self, text: str) -> FileTerms:
        if not text:
            return _EMPTY
        tokens = _TOKEN.findall(text)
        for token in set(tokens).difference(self._tokens):
            self._add_token(token)
        ids = np.fromiter(map(self._tokens.__getitem__, tokens), dtype=np.int64, count=len(tokens))
        boundary = ids == _BREAK
        breaks = int(np.count_nonzero(boundary))
        line = np.cumsum(boundary)[~boundary]  # (a token's line: the boundaries before it)
        ids = ids[~boundary]
        count = self._count[ids]
        total = int(count.sum())
        # each token's terms in turn: the occurrence's place in `_flat`
        offset = np.repeat(self._first[ids] - (np.cumsum(count) - count), count) + np.arange(total)
        lines = breaks + (0 if text.endswith(_BREAKS) else 1)
        return FileTerms(lines, np.repeat(line, count).astype(np.int32), self._flat[offset])

    def _add_token(self, token: str) -> None:
        found = [numbered(t, self.ids, self.texts) for t in token_terms(token)]
        n, at = self._tokens_made, self._flat_made
        if n == len(self._first):
            self._first = np.resize(self._first, 2 * n)
            self._count = np.resize(self._count, 2 * n)
        while at + len(found) > len(self._flat):
            self._flat = np.resize(self._flat, 2 * len(self._flat))
        self._first[n], self._count[n] = at, len(found)
        self._flat[at : at + len(found)] = found
        self._tokens[token] = n
        self._tokens_made, self._flat_made = n + 1, at + len(found)

