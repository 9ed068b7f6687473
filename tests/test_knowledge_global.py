"""Global search offline (issue 29.12): the partial answers of the community reports are grouped into
the recurring themes they share, each with the sentences and commits behind it, and a community listed
once even when its parent community is the same."""

from __future__ import annotations

import json

import pytest

from tenure.knowledge.ask import _distinct
from tenure.knowledge.themes import group
from tests.knowledge_support import built_store

pytestmark = pytest.mark.usefixtures("shared_stores")  # each test on SQLite and on PostgreSQL


def point(sentence: str, refs: list[str], score: float = 50.0) -> dict:
    return {"description": sentence, "refs": refs, "report": "c1", "score": score}


def test_sentences_from_several_sources_that_name_one_symbol_are_one_theme_with_its_commits() -> None:
    points = [
        point("The `url_for` helper drops the anchor when _external is set.", ["CHANGES.rst"], 100),
        point("Fix url_for() with a scheme but no external flag", ["commit 1a2b3c4d5e"]),
        point("`flask.url_for` builds URLs with the request's host.", ["docs/quickstart.rst"]),
        point("Only trap ``BadRequestKeyError`` in debug mode.", ["CHANGES.rst"]),
    ]
    joined = {"url_for": ("flask.helpers.url_for", "strong"), "flask.url_for": ("flask.helpers.url_for", "strong")}
    themes, rest = group(points, "what breaks when building a URL?", lambda keys: {k: joined[k] for k in keys
                                                                                  if k in joined})
    first = themes[0].as_dict()
    assert (first["theme"], first["tier"], first["sentences"]) == ("flask.helpers.url_for", "strong", 3)
    assert first["commits"] == ["1a2b3c4d5e"] and first["documents"] == ["CHANGES.rst", "docs/quickstart.rst"]
    assert [p["description"] for p in rest] == ["Only trap ``BadRequestKeyError`` in debug mode."]
    assert not [t for t in themes if t.name in ("url", "build")]  # the question's own words are no theme


def test_a_community_whose_report_repeats_one_already_chosen_is_left_out() -> None:
    findings = json.dumps([{"summary": "url_for builds URLs", "refs": ["docs/a.rst"]}])
    reports = [{"community": "child", "title": "url_for, g", "findings": findings},
               {"community": "parent", "title": "url_for, g", "findings": findings},
               {"community": "other", "title": "session", "findings": json.dumps([{"summary": "s", "refs": []}])}]
    assert [r["community"] for r in _distinct(reports)] == ["child", "other"]


@pytest.fixture
def built(tmp_path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TENURE_KNOWLEDGE", "off")
    with built_store(tmp_path) as store:
        yield store


def test_global_search_offline_answers_with_themes_and_lists_each_community_once(built) -> None:
    t, _ = built
    answer = t.knowledge.ask("what are the recurring problems with settlement retries?", global_=True)
    assert answer["answer"].startswith("Extractive (offline mode: ") and "recurring theme" in answer["answer"]
    assert "themes" in answer
    titles = [s["title"] for s in answer["sources"]]
    assert len(titles) == len(set(titles))
