"""Documents in the repository: decision records, postmortems, RFCs, design docs, changelogs, READMEs
and the rest of its Markdown, reStructuredText and text, each split into sections by its headings.

Found among the files git lists (or a walk outside git), or by the globs of `[knowledge] documents`;
vendored and build directories, licences and templates are left out, and so is any `exclude` glob.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from tenure.knowledge.config import KnowledgeConfig
from tenure.knowledge.sections import split, syntax_of
from tenure.knowledge.sources import THIN_WORDS, Skipped, SourceDocument, word_count
from tenure.knowledge.store import digest

MAX_BYTES = 2 * 1024 * 1024  # a longer "document" is generated (an API dump, a log)
EXTENSIONS = (".md", ".markdown", ".mdx", ".rst", ".rest", ".txt")
# .txt is prose only in these places (elsewhere: requirements, CMakeLists, fixtures)
TEXT_DIRS = {"docs", "doc", "adr", "adrs", "decisions", "rfcs", "rfc", "design", "postmortems", "incidents"}
SKIPPED_DIRS = {"node_modules", "vendor", "third_party", "site-packages", "dist", "build", "_build", ".github",
                "tests", "test", "fixtures", "testdata"}
SKIPPED_NAMES = re.compile(r"^(licen[cs]e|copying|notice|authors|contributors|code_of_conduct|requirements"
                           r"|pull_request_template|issue_template)([._-].*)?$", re.IGNORECASE)

# (kind, what its path looks like), first match wins: the kinds decide how answers rank them
KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("adr", re.compile(r"(^|/)(adrs?|decisions|architecture[-_]decisions?)/|(^|/)adr[-_ ]?\d+", re.IGNORECASE)),
    ("postmortem", re.compile(r"post[-_ ]?mortems?|incidents?([-_ ]reviews?)?/|(^|/)incident[-_]", re.IGNORECASE)),
    ("rfc", re.compile(r"(^|/)rfcs?/|(^|/)rfc[-_ ]?\d+", re.IGNORECASE)),
    ("design", re.compile(r"(^|/)design(s|[-_ ]docs?)?/|(^|/)design([-_ ]doc)?\.", re.IGNORECASE)),
    ("changelog", re.compile(r"(^|/)(change(s|log)|history|news|release[-_ ]?notes)(\.[a-z]+)?$", re.IGNORECASE)),
    ("readme", re.compile(r"(^|/)readme(\.[a-z]+)?$", re.IGNORECASE)),
)
_NUMBER = re.compile(r"(?:^|[-_ ])?(\d{1,5})(?=[-_ .]|$)")


def kind_of(path: str) -> str:
    for kind, pattern in KINDS:
        if pattern.search(path):
            return kind
    return "doc"


def decision_ref(kind: str, path: str) -> str | None:
    """ADR-0003 for docs/adr/0003-use-postgres.md: the decision id, numbered as the file is."""
    if kind not in ("adr", "rfc"):
        return None
    name = path.rpartition("/")[2]
    match = _NUMBER.search(name)
    return f"{kind.upper()}-{match.group(1)}" if match else None


def candidates(root: Path, config: KnowledgeConfig, listed: list[str]) -> list[str]:
    """The repository files (`listed`, relative) that are documents under these settings."""
    if config.documents:
        chosen = [p for p in listed if any(fnmatch.fnmatch(p, g) for g in config.documents)]
    else:
        chosen = [p for p in listed if _is_document(p)]
    return [p for p in chosen if not any(fnmatch.fnmatch(p, g) for g in config.exclude)]


def _is_document(path: str) -> bool:
    lower = path.lower()
    if not lower.endswith(EXTENSIONS):
        return False
    parts = path.split("/")
    if not SKIPPED_DIRS.isdisjoint(p.lower() for p in parts[:-1]) or SKIPPED_NAMES.match(parts[-1]):
        return False
    if lower.endswith(".txt"):
        return not TEXT_DIRS.isdisjoint(p.lower() for p in parts[:-1])
    return True


def read(root: Path, paths: list[str], unchanged: dict[str, tuple[str, str]] | None = None,
         ) -> Iterator[SourceDocument | Skipped]:
    """`unchanged`: path -> (source_hash, content_hash) of the files as last stored; a file whose text
    is the same is given without its sections (splitting the docs is most of an incremental build)."""
    for path in paths:
        full = root / path
        try:
            if full.is_symlink() or not full.is_file():
                continue
            if full.stat().st_size > MAX_BYTES:
                yield Skipped(path, f"over {MAX_BYTES // (1024 * 1024)} MB (generated?)")
                continue
            raw = full.read_bytes()
        except OSError as exc:
            yield Skipped(path, f"cannot read: {exc.strerror or exc}")
            continue
        if b"\x00" in raw[:8192]:
            yield Skipped(path, "binary content")
            continue
        text = raw.decode("utf-8", errors="replace")  # invalid bytes become U+FFFD: the rest is still read
        source = digest(path, text)
        stored = (unchanged or {}).get(path)
        if stored is not None and stored[0] == source:
            yield SourceDocument(key=f"doc:{path}", kind=kind_of(path), origin="documents", ref=path, title=path,
                                 sections=(), path=path, source_hash=source, known_hash=stored[1])
        else:
            yield replace(document(path, text), source_hash=source)


def document(path: str, text: str) -> SourceDocument:
    kind = kind_of(path)
    sections = tuple(split(text, syntax_of(path)))
    title = next((s.path[0] for s in sections if s.path), path.rpartition("/")[2])
    words = sum(word_count(s.text) for s in sections)
    return SourceDocument(
        key=f"doc:{path}", kind=kind, origin="documents", ref=decision_ref(kind, path) or path, title=title,
        sections=sections, path=path,
        thin_reason=f"{words} words" if words < THIN_WORDS else None,
    )
