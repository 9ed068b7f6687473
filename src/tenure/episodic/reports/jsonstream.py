"""JSON read as a stream: the items of a huge array one at a time, never the whole file in memory.

The standard library decodes one value from a buffer that is refilled as needed; a value larger
than MAX_VALUE is refused. A malformed value ends the stream with JSONProblem (what was read before
it has been yielded already, so the caller keeps it). A value nested deeper than the decoder's
recursion allows is stepped over without recursing and read as `TooDeep`: the values after it are read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

CHUNK = 1 << 20
MAX_VALUE = 64 << 20  # one item (a pull request, a test) larger than this is not a report we can use
_DECODER = json.JSONDecoder()
_WHITESPACE = " \t\r\n"


class JSONProblem(ValueError):
    """The stream is not the JSON it should be; the message says where and why."""


_STRUCTURE = re.compile(r'["\[\]{}]')
_STRING_END = re.compile(r'["\\]')


@dataclass(frozen=True)
class TooDeep:
    """A value nested too deeply to decode (arrays in arrays thousands deep), stepped over."""

    at: int  # the character it starts at

    def __str__(self) -> str:
        return f"a value nested too deeply to read, at character {self.at}"


class JsonStream:
    def __init__(self, source: IO[str]) -> None:
        self.source = source
        self.buf = ""
        self.pos = 0
        self.offset = 0  # characters consumed before buf
        self.eof = False

    def _fill(self) -> bool:
        if self.eof:
            return False
        more = self.source.read(CHUNK)
        if not more:
            self.eof = True
            return False
        self.offset += self.pos
        self.buf = self.buf[self.pos:] + more
        self.pos = 0
        return True

    def peek(self) -> str:
        """The next character that is not whitespace ('' at the end)."""
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] in _WHITESPACE:
                self.pos += 1
            if self.pos < len(self.buf) or not self._fill():
                return self.buf[self.pos:self.pos + 1]

    def take(self, char: str) -> None:
        if self.peek() != char:
            raise self.problem(f"expected {char!r}, found {self.peek() or 'the end of the file'!r}")
        self.pos += 1

    def value(self) -> Any:
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.buf, self.pos)
            except RecursionError:
                at = self.offset + self.pos
                self._step_over()
                return TooDeep(at)
            except json.JSONDecodeError as exc:
                if len(self.buf) - self.pos > MAX_VALUE:
                    raise self.problem(f"a value larger than {MAX_VALUE >> 20} MB") from exc
                if self._fill():
                    continue
                raise self.problem(exc.msg, self.offset + exc.pos) from exc
            if end == len(self.buf) and not self.eof and isinstance(value, (int, float)) and self._fill():
                continue  # a number cut by the chunk boundary
            self.pos = end
            return value

    def _step_over(self) -> None:
        """Move past the array or object that starts here, counting brackets (outside strings) in a loop."""
        depth, pos = 0, self.pos
        while True:
            found = _STRUCTURE.search(self.buf, pos)
            if found is None:
                pos = len(self.buf) - self.pos
                if not self._fill():
                    raise self.problem("the file ends inside a value")
                pos += self.pos
                continue
            pos, char = found.end(), found.group()
            if char == '"':
                pos = self._string_end(pos)
            elif char in "[{":
                depth += 1
            else:
                depth -= 1
                if depth == 0:
                    self.pos = pos
                    return
            if pos - self.pos > MAX_VALUE:
                raise self.problem(f"a value larger than {MAX_VALUE >> 20} MB")

    def _string_end(self, pos: int) -> int:
        """The position after the string whose first character (after its quote) is at `pos`."""
        while True:
            found = _STRING_END.search(self.buf, pos)
            if found is None or found.end() == len(self.buf):  # (a backslash at the end escapes what follows)
                kept = (found.start() if found else len(self.buf)) - self.pos
                if not self._fill():
                    raise self.problem("the file ends inside a string")
                pos = kept + self.pos
                continue
            if found.group() == '"':
                return found.end()
            pos = found.end() + 1

    def array(self) -> Iterator[Any]:
        """The items of the array that starts here."""
        self.take("[")
        if self.peek() == "]":
            self.pos += 1
            return
        while True:
            yield self.value()
            if self.peek() == ",":
                self.pos += 1
                continue
            self.take("]")
            return

    def members(self) -> Iterator[str]:
        """The keys of the object that starts here; the caller reads each key's value (value/array/skip)."""
        self.take("{")
        if self.peek() == "}":
            self.pos += 1
            return
        while True:
            key = self.value()
            if not isinstance(key, str):
                raise self.problem("an object key that is not a string")
            self.take(":")
            yield key
            if self.peek() == ",":
                self.pos += 1
                continue
            self.take("}")
            return

    def values(self) -> Iterator[Any]:
        """Top-level values one after another (JSON lines, or several documents in one file)."""
        while self.peek():
            yield self.value()

    def problem(self, what: str, at: int | None = None) -> JSONProblem:
        return JSONProblem(f"malformed JSON at character {self.offset + self.pos if at is None else at}: {what}")
