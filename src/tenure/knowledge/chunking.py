"""Sections cut into text units of at most `size` tokens, deterministically.

Headings come first: a chunk never spans two sections, so every chunk cites one section. A section
longer than `size` is cut between paragraphs, else between sentences, else (one sentence longer than
`size`: a table, a log) every `size` tokens; each chunk after the first starts with the last sentences
of the one before, up to `overlap` tokens, so a claim cut in two is read whole once. A section short
enough by its bytes is one chunk, not counted (tokens.short): most commits and sections are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tenure.knowledge import tokens
from tenure.knowledge.sections import Section

_PARAGRAPH = re.compile(r"\n[ \t]*\n")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*(\[\"'])")


@dataclass(frozen=True)
class Chunk:
    section: str  # the section's heading path, "A > B"
    line: int  # 1-based line of the chunk's first text in its file
    text: str
    tokens: int | None  # None: not counted (its UTF-8 length is within the size)

    @property
    def size(self) -> int:
        """Its tokens, counted now if they were not."""
        return tokens.count(self.text) if self.tokens is None else self.tokens


@dataclass(frozen=True)
class _Piece:
    text: str
    line: int
    tokens: int
    paragraph_start: bool


def chunk_sections(sections: list[Section], size: int, overlap: int) -> list[Chunk]:
    out: list[Chunk] = []
    for section in sections:
        out += _chunk_section(section, size, overlap)
    return out


def _chunk_section(section: Section, size: int, overlap: int) -> list[Chunk]:
    if tokens.short(section.text, size):
        return [Chunk(section.title, section.line, section.text, None)]
    whole = tokens.count(section.text)
    if whole <= size:
        return [Chunk(section.title, section.line, section.text, whole)]
    chunks: list[Chunk] = []
    current: list[_Piece] = []
    used = 0
    for piece in _pieces(section, size):
        if current and used + piece.tokens > size:
            chunks.append(_chunk(section, current))
            current = _tail(current, overlap)
            used = sum(p.tokens for p in current)
        current.append(piece)
        used += piece.tokens
    if current:
        chunks.append(_chunk(section, current))
    return chunks


def _chunk(section: Section, pieces: list[_Piece]) -> Chunk:
    parts: list[str] = []
    for piece in pieces:
        if parts:
            parts.append("\n\n" if piece.paragraph_start else " ")
        parts.append(piece.text)
    text = "".join(parts)
    return Chunk(section.title, pieces[0].line, text, tokens.count(text))


def _tail(pieces: list[_Piece], overlap: int) -> list[_Piece]:
    """The last pieces of a chunk, up to `overlap` tokens: where the next chunk starts."""
    kept: list[_Piece] = []
    used = 0
    for piece in reversed(pieces):
        if used + piece.tokens > overlap:
            break
        kept.insert(0, piece)
        used += piece.tokens
    return kept


def _pieces(section: Section, size: int) -> list[_Piece]:
    """Paragraphs, a paragraph longer than `size` as sentences, a sentence longer than `size` cut in
    windows of `size` tokens; each with the line it starts on."""
    out: list[_Piece] = []
    text = section.text
    offset = 0
    for paragraph in _PARAGRAPH.split(text):
        start = text.index(paragraph, offset) if paragraph else offset
        offset = start + len(paragraph)
        if not paragraph.strip():
            continue
        line = section.line + text.count("\n", 0, start)
        count = tokens.count(paragraph)
        if count <= size:
            out.append(_Piece(paragraph, line, count, True))
            continue
        first = True
        for sentence in _SENTENCE_END.split(paragraph):
            for window in _windows(sentence, size):
                out.append(_Piece(window, line, tokens.count(window), first))
                first = False
    return out


def _windows(text: str, size: int) -> list[str]:
    encoded = tokens.encode(text)
    if len(encoded) <= size:
        return [text]
    return [tokens.decode(encoded[i:i + size]) for i in range(0, len(encoded), size)]
