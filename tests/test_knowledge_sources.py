"""Reading sources: sections by headings (Markdown, reStructuredText), chunks within sections with
overlap, document kinds and decision ids, gh thread exports, thin material."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tenure.knowledge import tokens
from tenure.knowledge.chunking import chunk_sections
from tenure.knowledge.sections import split
from tenure.knowledge.sources.documents import decision_ref, document, kind_of
from tenure.knowledge.sources.threads import ThreadError, load_file
from tenure.knowledge.sources.threads import document as thread_document

pytestmark = pytest.mark.usefixtures("shared_stores")  # each test on SQLite and on PostgreSQL


def test_markdown_sections_follow_headings_but_not_headings_in_code() -> None:
    text = ("---\ntitle: x\n---\n# ADR 3\n\n## Context\nWe retry.\n\n```\n# not a heading\n```\n"
            "Decision\n--------\nUse it.\n")
    sections = split(text, "markdown")
    assert [s.path for s in sections] == [("ADR 3", "Context"), ("ADR 3", "Decision")]
    assert sections[0].line == 6 and "# not a heading" in sections[0].text


def test_rst_levels_come_from_the_order_adornments_appear_in() -> None:
    text = "=====\nTitle\n=====\n\nIntro text here.\n\nPart\n----\n\nBody.\n\nOther\n-----\n\nMore.\n"
    assert [s.path for s in split(text, "rst")] == [("Title",), ("Title", "Part"), ("Title", "Other")]


def test_a_long_section_is_cut_between_paragraphs_with_overlap_and_never_across_sections() -> None:
    paragraph = " ".join(f"Sentence {i} explains the settlement retry policy." for i in range(12))
    text = "# A\n\n" + "\n\n".join(paragraph for _ in range(6)) + "\n\n# B\n\nShort."
    chunks = chunk_sections(split(text, "markdown"), size=300, overlap=60)
    assert {c.section for c in chunks} == {"A", "B"}
    long = [c for c in chunks if c.section == "A"]
    assert len(long) > 2 and all(c.size <= 300 for c in long)
    assert long[1].text.split(". ")[0] in long[0].text  # the next chunk starts with the last sentences
    assert chunks == chunk_sections(split(text, "markdown"), size=300, overlap=60)  # deterministic
    assert sum(1 for c in chunks if c.section == "B") == 1 and tokens.count("Short.") < 5


@pytest.mark.parametrize(("path", "kind", "ref"), [
    ("docs/adr/0003-use-postgres.md", "adr", "ADR-0003"),
    ("doc/decisions/12-queue.md", "adr", "ADR-12"),
    ("docs/postmortems/2024-03-outage.md", "postmortem", None),
    ("rfcs/0042-retries.md", "rfc", "RFC-0042"),
    ("CHANGES.rst", "changelog", None),
    ("README.md", "readme", None),
    ("docs/quickstart.rst", "doc", None),
])
def test_document_kinds_and_decision_ids_come_from_the_path(path: str, kind: str, ref: str | None) -> None:
    assert kind_of(path) == kind
    assert decision_ref(kind, path) == ref


def test_a_document_with_almost_no_words_is_thin() -> None:
    assert document("docs/x.md", "# Title\n\nTBD\n").thin_reason == "3 words"


def test_a_gh_export_becomes_a_thread_with_its_discussion_as_sections(tmp_path: Path) -> None:
    export = {"number": 9, "title": "Cap retries", "body": "Retries are capped at three by the SLA we signed.",
              "reviews": [{"author": {"login": "ana"}, "body": "Why three?", "state": "CHANGES_REQUESTED",
                           "submittedAt": "2024-01-02T00:00:00Z"}],
              "comments": [{"author": {"login": "tom"}, "body": "The SLA says three.",
                            "createdAt": "2024-01-01T00:00:00Z"}]}
    doc = thread_document(export, "prs/9.json")
    assert (doc.key, doc.kind, doc.ref) == ("pr:9", "pr", "#9")
    assert [s.path[-1] for s in doc.sections] == ["PR #9: Cap retries", "comment by tom",
                                                   "review by ana (changes requested)"]
    path = tmp_path / "bad.json"
    path.write_text("[1, 2]")
    threads, skipped = load_file(path)
    assert threads == [] and all("a thread is a JSON object" in reason for reason in skipped)
    path.write_text(json.dumps({"title": "no number"}))
    assert "no 'number'" in load_file(path)[1][0]
    path.write_text("{")
    with pytest.raises(ThreadError, match="malformed JSON"):
        load_file(path)
