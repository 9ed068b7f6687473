"""Where rationale is written: documents in the repository, exported PR and issue threads, the git
history. Each source turns what it finds into :class:`SourceDocument`s; the pipeline stores, chunks
and extracts them the same way whatever their origin."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from tenure.knowledge.sections import Section
from tenure.knowledge.store import digest


@dataclass(frozen=True)
class SourceDocument:
    key: str  # doc:<path> | pr:<n> | issue:<n> | commit:<sha>
    kind: str  # adr postmortem rfc design changelog readme doc | pr issue | commit
    origin: str  # documents | threads | history
    ref: str  # how an answer cites it: ADR-0003, docs/design.rst, #412, commit 1a2b3c4d5e
    title: str
    sections: tuple[Section, ...]
    path: str | None = None
    thin_reason: str | None = None  # too little to extract from: kept and counted, never extracted
    authored_at: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    source_hash: str | None = None  # a document file: the digest of its text as read
    # a file read again unchanged (same source_hash) is not split again: `sections` stays empty and this
    # is the content hash stored for it (ingest keeps such a document as it is)
    known_hash: str | None = None

    @cached_property  # (asked whether the document changed, then stored with it: one digest of it)
    def content_hash(self) -> str:
        if self.known_hash is not None:
            return self.known_hash
        # the symbols a commit touched are extracted from as its text is
        touched = json.dumps(self.meta.get("symbols", []), sort_keys=True)
        return digest(self.kind, self.ref, self.title, self.thin_reason or "", touched,
                      *(f"{s.title}\n{s.line}\n{s.text}" for s in self.sections))


@dataclass
class Skipped:
    path: str
    reason: str

    def as_dict(self) -> dict:
        return {"path": self.path, "reason": self.reason}


THIN_WORDS = 12  # a document or thread with fewer words of prose holds no rationale worth a model call


def word_count(text: str) -> int:
    return len(text.split())


# What a kind of document tells about why code is the way it is, most telling first: answers and
# extractive descriptions rank by it.
KIND_ORDER = ("adr", "postmortem", "rfc", "design", "pr", "issue", "changelog", "commit", "doc", "readme")
KIND_NOUNS = {"adr": "decision", "postmortem": "incident review", "rfc": "RFC", "design": "design doc",
              "pr": "PR thread", "issue": "issue thread", "changelog": "changelog entry", "commit": "commit",
              "doc": "doc", "readme": "README"}


def kind_rank(kind: str) -> int:
    return KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER)
