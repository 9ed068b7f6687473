"""Reading git: one streaming `git log` (or `git diff`) whose output is parsed as it arrives.

Per commit: its header, the raw entry of every file it changed (status, both blob ids) and, for
files of a language tenure indexes, the hunks of a zero-context patch: the changed line ranges on
both sides, the definition git's hunk header names (its built-in diff drivers find the enclosing
function), and the names that changed lines define. Merges are diffed against their first parent:
that is what the merge brought to the mainline (a pull request's change).
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import re
import subprocess
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import IO

import msgspec
from msgspec.structs import replace

from tenure.git import git_argv
from tenure.history import languages
from tenure.history.model import UNKNOWN_DATE
from tenure.history.survival import Survival, squeezed
from tenure.structural.languages import language_for

NULL_BLOB = "0" * 40
# a hunk's header line, found in a file's section of the patch (the newline before it included)
_HUNK = re.compile(rb"\n@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?([^\n]*)")
_OTHER_SIGN = bytes.maketrans(b"-+", b"+-")
_FORMAT = "%x00%x00%H%x00%P%x00%an%x00%ae%x00%aI%x00%cI%x00%B%x00"
_HEADER_FIELDS = 7  # NULs closing the fields after the two-NUL commit marker
_STATUS = {b"A": "A", b"M": "M", b"D": "D", b"R": "R", b"C": "A", b"T": "M"}  # a copy adds, a type change modifies
CHUNK = 1 << 20  # bytes of git's output read at a time
_FEW, _NAP_S = 64 << 10, 0.005  # a read of less than this waits this long before the next (`_pieces`)
# what git prints for a timestamp past its integers (it reads such a date as 0): the header is read to tell
_GIT_UNREADABLE = b"1970-01-01T00:00:00+00:00"
GIT_TIMEOUT_S = 15  # for the small questions (rev-parse, rev-list); a log streams as long as it takes
_language = lru_cache(maxsize=1 << 14)(language_for)  # (a history changes the same files again and again)


class GitError(RuntimeError):
    """git failed; the message is git's own."""


class Hunk(msgspec.Struct, array_like=True):
    """One hunk of a zero-context diff: lines old_start.. (old_count) became new_start.. (new_count)."""

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    blank: list[int] = []  # new-side lines that were added blank (they touch nothing)
    header: str = ""  # the name of the definition git's hunk header shows
    defined: list[str] = []  # names defined by the changed lines
    kept: list[int] = []  # new-side lines this change did not write: reformatted or moved (survival.py)
    moved: list[int] = []  # new line, old line, ...: kept lines moved within the file, with where from


@dataclass
class RawChange:
    path: str
    old_path: str | None
    status: str
    old_blob: str
    new_blob: str
    added: int = 0
    deleted: int = 0
    hunks: list[Hunk] | None = None  # None: not a file of a language tenure indexes (or binary)


@dataclass
class RawCommit:
    sha: str
    parents: tuple[str, ...]
    author_name: str
    author_email: str
    authored_at: str
    committed_at: str
    message: str
    changes: list[RawChange] = field(default_factory=list)


def git(root: Path, *args: str, check: bool = True) -> str:
    """A short git question in `root`; GitError with git's message when it fails (unless not `check`)."""
    done = _run(root, args)
    if check and done.returncode != 0:
        raise GitError(done.stderr.decode("utf-8", "replace").strip() or f"git {args[0]} failed")
    return done.stdout.decode("utf-8", "surrogateescape")


class CatFile:
    """git's objects asked for one at a time through one `git cat-file --batch`, started at the first
    question (a git process per object took 5-7 ms each: a history of thousands of commits dated at 1970,
    a reproducible build's, asks about each)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> CatFile:
        return self

    def __exit__(self, *_: object) -> None:
        if self.proc is not None:
            for stream in (self.proc.stdin, self.proc.stdout):
                if stream:
                    stream.close()
            self.proc.kill()
            self.proc.wait()

    def get(self, name: str) -> tuple[bytes, bytes] | None:
        """An object's type and content by any name git reads (`sha`, `sha:./path`); None: none such."""
        if "\n" in name:  # (a name with a newline cannot be asked for so)
            return None
        if self.proc is None:
            try:
                self.proc = subprocess.Popen(git_argv(self.root, "cat-file", "--batch"),
                                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            except OSError:
                return None
        stdin, stdout = self.proc.stdin, self.proc.stdout
        if stdin is None or stdout is None or self.proc.poll() is not None:
            return None
        stdin.write(name.encode("utf-8", "surrogateescape") + b"\n")
        stdin.flush()
        head = stdout.readline().split()  # `<id> <type> <size>`, the content and a newline; or `<name> missing`
        if len(head) == 3 and head[2].isdigit():
            return head[1], stdout.read(int(head[2]) + 1)[:-1]
        return None

    def file_at(self, sha: str, path: str) -> bytes | None:
        """A file as a commit left it (`path` relative to the root; None: the commit has no such file)."""
        found = self.get(f"{sha}:./{path}")
        return found[1] if found is not None and found[0] == b"blob" else None


def git_ok(root: Path, *args: str) -> bool:
    """Whether a git question is answered yes (exit status 0)."""
    return _run(root, args).returncode == 0


def _run(root: Path, args: tuple[str, ...]) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(git_argv(root, *args), capture_output=True, timeout=GIT_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError) as exc:
        raise GitError(f"git {args[0]}: {exc}") from exc


def log(root: Path, revisions: list[str], inside: bool = False) -> Iterator[RawCommit]:
    """The commits of `revisions` (git rev-list arguments), oldest first, ancestors before descendants.
    `inside`: `root` is a directory inside the work tree; only the commits that change it are read,
    with paths relative to it."""
    with CatFile(root) as headers:
        for commit in _stream(root, log_arguments(revisions, inside)):
            if not (commit.authored_at and commit.committed_at):
                _dates_from_header(headers.get(commit.sha), commit)
            yield commit


def log_arguments(revisions: list[str], inside: bool = False) -> list[str]:
    """The `git log` that `log` streams (bench/history_cpu.py runs it alone as the floor)."""
    return ["log", "--reverse", "--topo-order", f"--format={_FORMAT}", "--raw", "--no-abbrev", "-M",
            "--diff-merges=first-parent", "-p", "-U0", *_inside(inside), *revisions, "--", *(["."] if inside else [])]


def working_tree_changes(root: Path, inside: bool = False) -> list[RawChange]:
    """The tracked files that differ between HEAD and the working tree, with their hunks (the new
    side's blob id is git's hash of the file as it is on disk)."""
    return [c for commit in _stream(root, ["diff", "--raw", "--no-abbrev", "-M", "-p", "-U0", *_inside(inside),
                                           "HEAD", "--", *(["."] if inside else [])], header=False)
            for c in commit.changes]


def _inside(inside: bool) -> list[str]:
    return ["--relative"] if inside else []


def command(root: Path, args: list[str], attributes: str) -> list[str]:
    """git with `args` as tenure runs it: unquoted paths, the languages' diff drivers (`attributes`: a
    gitattributes file of languages.attributes()), no pager, colour, external diff or textconv (a driver's
    converted text is not the blob: its hunks' lines would not be the file's)."""
    return [*git_argv(root), "-c", "core.quotePath=false", "-c", f"core.attributesFile={attributes}",
            "-c", "diff.renameLimit=2000", "--no-pager", *args[:1], "--no-color", "--no-ext-diff", "--no-textconv",
            *args[1:]]


def _stream(root: Path, args: list[str], header: bool = True) -> Iterator[RawCommit]:
    with tempfile.NamedTemporaryFile("w", suffix=".gitattributes", delete=False) as attributes:
        attributes.write(languages.attributes())
    try:
        # (unbuffered: git's output is read straight into `_pieces`'s buffer)
        proc = subprocess.Popen(command(root, args, attributes.name), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                bufsize=0)
    except OSError as exc:
        Path(attributes.name).unlink(missing_ok=True)
        raise GitError(f"git {args[0]}: {exc}") from exc
    try:
        assert proc.stdout is not None
        yield from _parse(_pieces(proc.stdout, nap=_widen(proc.stdout)), header)
        stderr = proc.stderr.read() if proc.stderr else b""
        if proc.wait() != 0:
            raise GitError(stderr.decode("utf-8", "replace").strip() or f"git {args[0]} failed")
    finally:
        if proc.poll() is None:  # the reader stopped early: do not leave git writing into a full pipe
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream:
                stream.close()
        Path(attributes.name).unlink(missing_ok=True)


def _pieces(pipe: io.RawIOBase, nap: bool) -> Iterator[bytes]:
    """What git wrote, as it arrives, read into one reused buffer (a read of a fresh CHUNK-sized object
    maps and unmaps memory each time). Once a long log is under way, a read that found little waits a
    moment before the next (`nap`: only where the pipe holds CHUNK, so git never waits for it; a pipe
    of the default 16-64 KB would hold git back, the log then read at ~64 KB per nap): git fills the pipe
    meanwhile, and reading it in hundreds of large pieces instead of ten thousand small ones (each a
    wake-up of both processes) saves ~0.1 s of CPU over flask's 30 MB log."""
    buffer = memoryview(bytearray(CHUNK))
    read = 0
    while n := pipe.readinto(buffer):
        yield bytes(buffer[:n])
        read += n
        if nap and read > CHUNK and n < _FEW:
            time.sleep(_NAP_S)


def _widen(pipe: IO[bytes]) -> bool:
    """The pipe from git made as large as a read takes (Linux's default is 64 KB: git and the reader then
    take turns every 64 KB, 0.1 s of CPU over flask's 30 MB log); as it is where the system refuses
    (False: its limits, or not Linux)."""
    with contextlib.suppress(AttributeError, OSError):  # (F_SETPIPE_SZ: Linux only)
        return fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, CHUNK) >= CHUNK
    return False


def _parse(chunks: Iterable[bytes], header: bool) -> Iterator[RawCommit]:
    """The commits of git's output, read in pieces of any size (`header`: each starts with the fields
    of `_FORMAT`; else the output is one commit's changes: a `git diff`)."""
    survival, read = Survival(), ReadDiffs()
    for record in _records(chunks) if header else [b"".join(chunks)]:
        if header:
            fields = record.split(b"\0", _HEADER_FIELDS + 2)[2:]  # (not record[2:]: a commit can be megabytes)
            if not record.startswith(b"\0\0") or len(fields) <= _HEADER_FIELDS:
                continue  # (not a commit's fields: nothing tenure asked git for)
            commit = _header(fields)
            body = fields[_HEADER_FIELDS]
        else:
            commit, body = RawCommit("", (), "", "", "", "", ""), record
        _changes(commit, body, survival, read)
        survival.settle()
        if header or commit.changes:
            yield commit


def _records(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """git's output cut where each commit starts (a line starting with two NULs), as it arrives."""
    buffer = bytearray()
    for chunk in chunks:
        seen = max(len(buffer) - 2, 0)
        buffer += chunk
        start = 0
        with memoryview(buffer) as view:  # (a record copied once: a slice of the bytearray is a copy too)
            while (end := buffer.find(b"\n\0\0", max(seen, start))) >= 0:
                yield bytes(view[start:end + 1])
                start = seen = end + 1
        del buffer[:start]  # (cheap: a bytearray drops its head without moving the rest)
    if buffer:
        yield bytes(buffer)


Parsed = list[tuple[Hunk, list[bytes], list[bytes], int]]  # a file's hunks, with `Survival.hunk`'s arguments


class ReadDiffs:
    """The hunks of the files' diffs read lately, by path and blob pair: a merge's first-parent diff of a
    file is most often the very diff its branch's commit made (the file changed only there since they
    forked; 2,295 of flask's 3,321 merge diffs of Python files, 40% of those merges' patch), parsed once.
    Only commits of one parent are kept (a merge's own pair is rarely seen again), the oldest dropped past
    KEEP_BYTES of their sections (all of flask's repeats are found within 1 MB of them, 2,285 within 512 KB;
    the read's peak memory grows 1 MB, 65 -> 66 MB)."""

    KEEP_BYTES = 1 << 20

    def __init__(self) -> None:
        self.parsed: dict[tuple[str, str, str], tuple[int, int, Parsed, int, int]] = {}
        self.sizes: dict[tuple[str, str, str], int] = {}
        self.size = 0

    def get(self, change: RawChange) -> tuple[int, int, Parsed, int, int] | None:
        return self.parsed.get((change.path, change.old_blob, change.new_blob))

    def keep(self, change: RawChange, size: int, parsed: Parsed, lines: int, compared: int) -> None:
        """A file's diff of `size` bytes, parsed (`lines` and `compared` bytes of its hunks' squeezed lines)."""
        key = (change.path, change.old_blob, change.new_blob)  # (`get` found none: read once)
        self.parsed[key] = (change.deleted, change.added, parsed, lines, compared)
        self.sizes[key] = size
        self.size += size
        while self.size > self.KEEP_BYTES:  # (dicts keep their insertion order: the oldest first)
            oldest = next(iter(self.sizes))
            self.size -= self.sizes.pop(oldest)
            del self.parsed[oldest]


def _changes(commit: RawCommit, body: bytes, survival: Survival, read: ReadDiffs) -> None:
    """A commit's raw entries and patch: the changes, their line counts and, for files of an indexed
    language, their hunks. The patch is cut where each file's section and each hunk starts (no line of
    a hunk's body starts with `diff --git ` or `@@ `: each starts with its sign), so the lines of files
    of no indexed language are never looked at, and a hunk's sides are sliced out of its body whole.
    `read`: the diffs read before, the same blob pair's taken from there."""
    raw, *sections = (b"\n" + body).split(b"\ndiff --git ")
    commit.changes += [_raw_entry(line) for line in raw.split(b"\n") if line.startswith(b":")]
    for n, section in enumerate(sections):  # the n-th section belongs to the n-th raw entry
        change = commit.changes[n] if n < len(commit.changes) else None
        if change is None:
            continue
        spec = _language(change.path)
        if spec is None:  # a file of no indexed language: its lines are only counted
            # (each hunk's line starts with its sign: counted past the section's head, whose `--- a/…` and
            # `+++ b/…` come before the first hunk; no regular expression over half of the log's bytes)
            if (first := section.find(b"\n@@ ")) >= 0:
                change.deleted += section.count(b"\n-", first)
                change.added += section.count(b"\n+", first)
            continue
        if (known := read.get(change)) is not None:
            change.deleted, change.added, parsed, lines, compared = known
            # (fresh hunks: `Survival.settle` fills in each commit's own kept and moved lines)
            change.hunks = [replace(hunk, kept=[], moved=[]) for hunk, *_ in parsed]
            survival.file(change.path, [(hunk, *rest) for hunk, (_, *rest) in zip(change.hunks, parsed, strict=True)],
                          lines, compared)
            continue
        # (the section cut at its hunks' headers: its head, then per hunk the header's five groups and the
        # hunk's lines, each after a newline)
        parts = _HUNK.split(section)
        if b"\nBinary files " in parts[0]:
            for k in range(1, len(parts), 6):
                change.deleted += _count(parts[k + 1])
                change.added += _count(parts[k + 3])
            continue
        change.hunks = []
        parsed, lines, compared = _hunks(change, spec.name, parts)
        survival.file(change.path, parsed, lines, compared)
        if len(commit.parents) == 1:
            read.keep(change, len(section), parsed, lines, compared)


def _hunks(change: RawChange, language: str, parts: list) -> tuple[Parsed, int, int]:
    """The hunks of one file's section of the patch, `_HUNK.split` of it, into `change`; returns them with
    their lines squeezed (`Survival.file`'s), and how many lines and bytes those are."""
    patterns = languages.definitions(language)
    # (a hunk holding none of the definition words defines nothing: most hunks, not searched line by line)
    words = languages.definition_literals(language) if patterns else ()
    hunks = change.hunks
    assert hunks is not None
    parsed: Parsed = []
    each = iter(parts)
    next(each)  # (the section's head: its raw lines)
    deletions = additions = counted = compared = 0
    for old_start, old_count, new_start, new_count, context, lines in zip(each, each, each, each, each, each,
                                                                            strict=True):
        old_start, new_start = int(old_start), int(new_start)
        old_count = int(old_count) if old_count is not None else 1  # (`_count`, inlined: once per hunk)
        new_count = int(new_count) if new_count is not None else 1
        deletions += old_count
        additions += new_count
        if lines[-1:] == b"\n":  # (the last hunk of a commit)
            lines = lines[:-1]
        # (squeezed lines without their sign, as survival compares them: each line of the squeezed hunk
        # still starts with a newline and its sign; squeezing takes no sign and no newline away)
        both = squeezed(lines)
        if not new_count:
            old, new = both.split(b"\n-")[1:], []
        elif not old_count:
            old, new = [], both.split(b"\n+")[1:]
        else:
            head, *new = both.split(b"\n+")
            old = head.split(b"\n-")[1:]
        # (most hunks: their lines are exactly their removed then their added lines, none other: git's
        # "\\ No newline at end of file", or a hunk cut short, and `_sides` reads them line by line)
        if len(old) == old_count and len(new) == new_count and both.count(b"\n") == old_count + new_count:
            size = len(both) - 2 * (old_count + new_count)
            # (looked for in the squeezed lines, a third shorter: no word holds whitespace, so a word in
            # the lines is in them too; `_defined` then finds the words in the lines themselves)
            defined = _defined(patterns, language, lines) if patterns and (
                not words or any(map(both.__contains__, words))) else []
        else:
            removed, added = _sides(lines[1:], old_count, new_count)
            old = squeezed(removed)[1:].split(b"\n-") if removed else []
            new = squeezed(added)[1:].split(b"\n+") if added else []
            size = sum(map(len, old)) + sum(map(len, new))
            lines = (b"\n" + removed if removed else b"") + (b"\n" + added if added else b"")
            defined = _defined(patterns, language, lines) if patterns else []
        hunk = Hunk(old_start, old_count, new_start, new_count,
                    [n for n, t in enumerate(new, new_start) if not t] if b"" in new else [],
                    _header_name(context, language) if context else "", defined)
        hunks.append(hunk)
        parsed.append((hunk, old, new, size))
        counted += len(old) + len(new)
        compared += size
    change.deleted += deletions
    change.added += additions
    return parsed, counted, compared


def _count(group: bytes | None) -> int:
    """A hunk header's line count (left out: one line, a group `_HUNK.split` gives as None)."""
    return int(group) if group else 1


def _sides(body: bytes, old_count: int, new_count: int) -> tuple[bytes, bytes]:
    """A hunk's removed and added lines (`_side`), each side joined by newlines, with their signs."""
    removed, rest = _side(body, old_count, b"-")
    return removed, _side(rest, new_count, b"+")[0]


def _side(body: bytes, count: int, sign: bytes) -> tuple[bytes, bytes]:
    """A hunk's lines of one side from the start of `body` (its lines joined by newlines): at most
    `count` lines that start with `sign`, joined by newlines (fewer: the hunk was cut short), and the
    lines that follow them (past git's "\\ No newline at end of file")."""
    if count and body[:1] == sign:
        stop = body.find(b"\n" + sign[0:1].translate(_OTHER_SIGN))  # (fast path: the other side, or the end)
        block = body if stop < 0 else body[:stop]
        lines = block.count(b"\n") + 1
        if lines != count or block.count(b"\n" + sign) != lines - 1:
            block = b"\n".join(_leading(body.split(b"\n", count)[:count], sign))
        rest = body[len(block) + 1:]
    else:
        block, rest = b"", body
    if rest[:1] == b"\\":
        rest = rest.partition(b"\n")[2]
    return block, rest


def _leading(lines: list[bytes], sign: bytes) -> list[bytes]:
    """The first of `lines` up to one that does not start with `sign`."""
    for k, line in enumerate(lines):
        if line[:1] != sign:
            return lines[:k]
    return lines


def _defined(patterns: list[re.Pattern[bytes]], language: str, lines: bytes) -> list[str]:
    """The names a hunk's lines (each after a newline and its sign) define, in the order of the lines
    (then of the patterns), once each. Only the lines holding one of the language's definition words
    are searched (every line a definition matches holds one: most hunks have none)."""
    texts = _lines_with(language, lines)
    if not texts:
        return []
    if len(patterns) == 1:
        found = list(filter(None, map(patterns[0].search, texts)))
    else:
        found = [m for t in texts for p in patterns if (m := p.search(t))]
    return list(dict.fromkeys(m.group("name").decode("utf-8", "replace") for m in found))


def _lines_with(language: str, lines: bytes) -> list[bytes]:
    """The lines of a hunk (without their sign) that hold one of the language's definition words (none
    known: every line). (Each word is found with bytes.find, not the words' pattern: its scan of a
    commit adding all of Django took 2.5 times as long.)"""
    words = languages.definition_literals(language)
    if not words or not lines:
        return _texts(lines)
    starts: set[int] = set()  # the newline before each line holding a word (a line with two is taken once)
    dense = 0  # (more lines than this hold a word: a generated file of definitions; at least 8, so counted
    # only once 8 lines do: most hunks holding a word are never counted)
    for word in words:
        at = lines.find(word)
        while at >= 0:
            starts.add(lines.rfind(b"\n", 0, at))
            if len(starts) > 8 and len(starts) > (dense := dense or lines.count(b"\n") // 8 + 8):
                return list(filter(languages.definition_words(language).search, _texts(lines)))  # (all at once)
            end = lines.find(b"\n", at)
            at = lines.find(word, end) if end >= 0 else -1
    return [lines[start + 2:end if (end := lines.find(b"\n", start + 1)) >= 0 else len(lines)]
            for start in sorted(starts)]


def _texts(lines: bytes) -> list[bytes]:
    """A hunk's lines without their sign."""
    return [line[1:] for line in lines[1:].split(b"\n")] if lines else []


def _header(fields: list[bytes]) -> RawCommit:
    sha, parents, name, email, authored, committed, message = fields[:_HEADER_FIELDS]
    text = message.decode("utf-8", "replace")
    authored_at = _read_date(authored)
    # (most commits are committed as authored: one conversion, 15k instructions, for both)
    committed_at = authored_at if committed == authored else _read_date(committed)
    return RawCommit(sha.decode(), tuple(parents.decode().split()), name.decode("utf-8", "replace"),
                     email.decode("utf-8", "replace"), authored_at, committed_at, text.strip("\n"))


def _read_date(iso: bytes) -> str:
    """git's strict ISO date in UTC; "" where git could not print it (a date before 1970 prints as the
    placeholder itself, one past year 9999 or with an offset past a day does not parse, one past git's
    integers prints as 1970): `log` then reads the commit's header."""
    if iso == _GIT_UNREADABLE:
        return ""
    try:
        return utc(iso.decode())
    except (ValueError, OverflowError):
        return ""


def _dates_from_header(found: tuple[bytes, bytes] | None, commit: RawCommit) -> None:
    """The dates of a commit git could not print, from its header (`found`: the commit object; `author
    <name> <email> <seconds> <offset>`: the seconds alone say the instant); UNKNOWN_DATE where it holds none
    a calendar reads. (A commit object written by hand can hold any date: git's own commands refuse to make
    one before 1970.)"""
    header = found[1].partition(b"\n\n")[0] if found is not None and found[0] == b"commit" else b""
    dates = {key: _seconds_date(rest) for key, _, rest in (line.partition(b" ") for line in header.split(b"\n"))
             if key in (b"author", b"committer")}
    commit.authored_at = commit.authored_at or dates.get(b"author", UNKNOWN_DATE)
    commit.committed_at = commit.committed_at or dates.get(b"committer", UNKNOWN_DATE)


def _seconds_date(ident: bytes) -> str:
    """The date of a header's `<name> <email> <seconds> <offset>`, in UTC (UNKNOWN_DATE: none readable)."""
    seconds = ident.rpartition(b">")[2].split()[:1]
    try:
        return (datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=int(seconds[0]))).isoformat()
    except (IndexError, ValueError, OverflowError):
        return UNKNOWN_DATE


def utc(iso: str) -> str:
    """git's strict ISO 8601 date (with its offset) in UTC."""
    return datetime.fromisoformat(iso).astimezone(UTC).isoformat()


def days_before(iso: str, days: float) -> str:
    """A stored date `days` earlier, the earliest date there is at the most (UNKNOWN_DATE, a date
    before 1970 read from a header)."""
    try:
        return (datetime.fromisoformat(iso) - timedelta(days=days)).isoformat()
    except OverflowError:
        return UNKNOWN_DATE


def _raw_entry(line: bytes) -> RawChange:
    meta, _, paths = line.partition(b"\t")  # (a line of git's output split at its newlines)
    fields = meta.split()
    old_blob, new_blob, status = fields[2].decode(), fields[3].decode(), _STATUS.get(fields[4][:1], "M")
    old, two, path = paths.rpartition(b"\t")  # (a rename or copy names the path it came from first)
    return RawChange(unquote(path), unquote(old) if two and status == "R" else None, status, old_blob, new_blob)


def unquote(raw: bytes) -> str:
    """A path as git prints it: C-quoted ("a\\tb", octal bytes) when it holds unusual characters. Bytes
    that are not UTF-8 are kept as `\\xNN` (as the index names such a file, which it does not read): a
    database stores no lone surrogates, and one such name in a history had stopped every read of it."""
    if not raw.startswith(b'"'):
        return raw.decode("utf-8", "backslashreplace")
    out = bytearray()
    body, i = raw[1:-1], 0
    escapes = {ord("n"): 10, ord("t"): 9, ord("r"): 13, ord('"'): 34, ord("\\"): 92, ord("a"): 7, ord("b"): 8,
               ord("f"): 12, ord("v"): 11}
    while i < len(body):
        ch = body[i]
        if ch == 92 and i + 1 < len(body):
            nxt = body[i + 1]
            if 48 <= nxt <= 55:
                out.append(int(body[i + 1:i + 4], 8))
                i += 4
                continue
            out.append(escapes.get(nxt, nxt))
            i += 2
            continue
        out.append(ch)
        i += 1
    return out.decode("utf-8", "backslashreplace")


@lru_cache(maxsize=4096)  # (a history edits the same definitions again and again)
def _header_name(context: bytes, language: str) -> str:
    """The name the definition a hunk header shows defines (none where it holds none of the language's
    definition words)."""
    context = context.rstrip(b"\r")
    words = languages.definition_words(language)
    if words and not words.search(context):
        return ""
    for pattern in languages.definitions(language):
        if m := pattern.search(context):
            return m.group("name").decode("utf-8", "replace")
    return ""
