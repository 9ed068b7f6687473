"""Reading git: one streaming `git log` (or `git diff`) whose output is parsed as it arrives.

Per commit: its header, the raw entry of every file it changed (status, both blob ids) and, for
files of a language tenure indexes, the hunks of a zero-context patch: the changed line ranges on
both sides, the definition git's hunk header names (its built-in diff drivers find the enclosing
function), and the names that changed lines define. Merges are diffed against their first parent:
that is what the merge brought to the mainline (a pull request's change).
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import msgspec

from tenure.history import languages
from tenure.history.survival import Survival
from tenure.structural.languages import language_for

NULL_BLOB = "0" * 40
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$")
_FORMAT = "%x00%x00%H%x00%P%x00%an%x00%ae%x00%aI%x00%cI%x00%B%x00"
_HEADER_FIELDS = 7  # NULs closing the fields after the two-NUL commit marker
_STATUS = {"A": "A", "M": "M", "D": "D", "R": "R", "C": "A", "T": "M"}  # a copy adds, a type change modifies
GIT_TIMEOUT_S = 15  # for the small questions (rev-parse, rev-list); a log streams as long as it takes


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


def git_ok(root: Path, *args: str) -> bool:
    """Whether a git question is answered yes (exit status 0)."""
    return _run(root, args).returncode == 0


def _run(root: Path, args: tuple[str, ...]) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, timeout=GIT_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError) as exc:
        raise GitError(f"git {args[0]}: {exc}") from exc


def log(root: Path, revisions: list[str], inside: bool = False) -> Iterator[RawCommit]:
    """The commits of `revisions` (git rev-list arguments), oldest first, ancestors before descendants.
    `inside`: `root` is a directory inside the work tree; only the commits that change it are read,
    with paths relative to it."""
    yield from _stream(root, log_arguments(revisions, inside))


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
    gitattributes file of languages.attributes()), no pager, colour or external diff."""
    return ["git", "-C", str(root), "-c", "core.quotePath=false", "-c", f"core.attributesFile={attributes}",
            "-c", "diff.renameLimit=2000", "--no-pager", *args[:1], "--no-color", "--no-ext-diff", *args[1:]]


def _stream(root: Path, args: list[str], header: bool = True) -> Iterator[RawCommit]:
    with tempfile.NamedTemporaryFile("w", suffix=".gitattributes", delete=False) as attributes:
        attributes.write(languages.attributes())
    try:
        proc = subprocess.Popen(command(root, args, attributes.name), stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=1 << 20)
    except OSError as exc:
        Path(attributes.name).unlink(missing_ok=True)
        raise GitError(f"git {args[0]}: {exc}") from exc
    try:
        assert proc.stdout is not None
        yield from _parse(proc.stdout, header)
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


def _parse(lines: Iterator[bytes], header: bool) -> Iterator[RawCommit]:
    commit: RawCommit | None = None if header else RawCommit("", (), "", "", "", "", "")
    pending: list[bytes] | None = None  # a commit header still being read (its message spans lines) ...
    nuls = 0  # ... and the NULs in it so far (counted per line: a long message stays linear)
    patches = 0  # `diff --git` sections seen in this commit: the n-th belongs to the n-th raw entry
    change: RawChange | None = None
    hunk: Hunk | None = None
    defined: set[str] = set()  # the hunk's names so far (a generated file's one hunk names 100k)
    patterns: list[re.Pattern[bytes]] = []
    survival = Survival()
    old_left = new_left = 0
    for line in lines:
        if pending is not None:
            pending.append(line)
            nuls += line.count(b"\0")
            if nuls >= _HEADER_FIELDS:
                commit, pending, patches, change, hunk = _header(b"".join(pending)), None, 0, None, None
            continue
        first = line[:1]
        if (old_left or new_left) and first in b"+-\\":
            if first == b"\\":  # "\ No newline at end of file"
                continue
            if hunk is None:  # a file of no indexed language: its lines are only counted
                if first == b"-":
                    old_left -= 1
                else:
                    new_left -= 1
                continue
            text = line[1:]
            if first == b"-":
                survival.removed(hunk.old_start + hunk.old_count - old_left, text)
                old_left -= 1
            else:
                new_left -= 1
                number = hunk.new_start + hunk.new_count - new_left - 1
                if not text.strip():
                    hunk.blank.append(number)
                survival.added(number, text)
            for pattern in patterns:
                if (m := pattern.search(text)) and (name := m.group("name").decode("utf-8", "replace")) \
                        not in defined:
                    defined.add(name)
                    hunk.defined.append(name)
            continue
        old_left = new_left = 0  # (a hunk cut short: what follows is read as it says)
        if line.startswith(b"\0\0"):
            if commit is not None:
                survival.settle()
                yield commit
            pending, nuls, commit = [line[2:]], line.count(b"\0", 2), None
            if nuls >= _HEADER_FIELDS:
                commit, pending, patches, change, hunk = _header(b"".join(pending)), None, 0, None, None
            continue
        if commit is None:
            continue
        if line.startswith(b":"):
            commit.changes.append(_raw_entry(line))
        elif line.startswith(b"diff --git "):
            change = commit.changes[patches] if patches < len(commit.changes) else None
            patches += 1
            hunk = None
            spec = language_for(change.path) if change is not None else None
            patterns = languages.definitions(spec.name if spec else "")
            if change is not None and spec is not None:
                change.hunks = []
        elif line.startswith(b"@@ ") and change is not None:
            m = _HUNK.match(line.rstrip(b"\r\n"))
            if m is None:
                continue
            old_start, new_start = int(m.group(1)), int(m.group(3))
            old_count = int(m.group(2)) if m.group(2) is not None else 1
            new_count = int(m.group(4)) if m.group(4) is not None else 1
            change.deleted += old_count
            change.added += new_count
            old_left, new_left = old_count, new_count
            hunk = None
            if change.hunks is not None:
                hunk = Hunk(old_start, old_count, new_start, new_count, [], _header_name(m.group(5), patterns), [])
                defined = set()
                change.hunks.append(hunk)
                survival.hunk(change.path, hunk)
        elif line.startswith(b"Binary files ") and change is not None:
            change.hunks = None
    if commit is not None and (header or commit.changes):
        survival.settle()
        yield commit


def _header(raw: bytes) -> RawCommit:
    sha, parents, name, email, authored, committed, message = raw.split(b"\0", _HEADER_FIELDS)[:_HEADER_FIELDS]
    text = message.decode("utf-8", "replace")
    return RawCommit(sha.decode(), tuple(parents.decode().split()), name.decode("utf-8", "replace"),
                     email.decode("utf-8", "replace"), utc(authored.decode()), utc(committed.decode()),
                     text.strip("\n"))


def utc(iso: str) -> str:
    """git's strict ISO 8601 date (with its offset) in UTC."""
    return datetime.fromisoformat(iso).astimezone(UTC).isoformat()


def _raw_entry(line: bytes) -> RawChange:
    meta, _, paths = line.rstrip(b"\n").partition(b"\t")
    fields = meta.split()
    old_blob, new_blob, status = fields[2].decode(), fields[3].decode(), _STATUS.get(fields[4][:1].decode(), "M")
    names = [unquote(p) for p in paths.split(b"\t")]
    if len(names) == 2:
        return RawChange(names[1], names[0] if status == "R" else None, status, old_blob, new_blob)
    return RawChange(names[0], None, status, old_blob, new_blob)


def unquote(raw: bytes) -> str:
    """A path as git prints it: C-quoted ("a\\tb", octal bytes) when it holds unusual characters."""
    if not raw.startswith(b'"'):
        return raw.decode("utf-8", "surrogateescape")
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
    return out.decode("utf-8", "surrogateescape")


def _header_name(context: bytes, patterns: list[re.Pattern[bytes]]) -> str:
    for pattern in patterns:
        if m := pattern.search(context):
            return m.group("name").decode("utf-8", "replace")
    return ""
