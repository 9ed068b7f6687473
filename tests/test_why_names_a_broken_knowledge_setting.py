"""`why` and `ask` when a [knowledge] setting stops the build `tenure index` runs: the answer names the
file and the setting, not "run `tenure knowledge build`" (which would fail the same way), before any build
and once a store built earlier is out of date."""

from __future__ import annotations

import pytest

from tenure import Tenure

FILES = {"pkg/__init__.py": "", "pkg/core.py": "def main():\n    return 1\n"}
# (a setting of the store's own, and of the model it builds with)
BROKEN = [('[knowledge]\nchunk_size = "big"\n', "chunk_size"),
          ("[knowledge.model]\nprovider = 3\n", "[knowledge.model]")]


@pytest.mark.parametrize(("toml", "setting"), BROKEN)
def test_why_names_the_broken_setting_that_stops_the_build(make_repo, monkeypatch: pytest.MonkeyPatch,
                                                          toml: str, setting: str) -> None:
    monkeypatch.delenv("TENURE_KNOWLEDGE", raising=False)
    root = make_repo({**FILES, "tenure.toml": toml})
    with Tenure.open(root, discover=False) as t:
        t.index()
        text = t.knowledge.why("pkg.core.main")["summary"]["text"]
    assert "tenure.toml" in text and setting in text, text
    assert "run `tenure knowledge build`" not in text


@pytest.mark.parametrize(("toml", "setting"), BROKEN)
def test_why_and_ask_name_a_setting_broken_after_the_store_was_built(make_repo, monkeypatch: pytest.MonkeyPatch,
                                                                   toml: str, setting: str) -> None:
    # once a store existed, `why` said nothing of the setting that stops every later build, nor did `ask`
    monkeypatch.delenv("TENURE_KNOWLEDGE", raising=False)
    root = make_repo({**FILES, "NOTES.md": "# Notes\n\n`pkg.core.main` returns 1 for speed.\n"})
    with Tenure.open(root, discover=False) as t:
        t.index()
        assert t.knowledge.why("pkg.core.main")["built"] is not None
    (root / "tenure.toml").write_text(toml)
    with Tenure.open(root, discover=False) as t:
        answer = t.knowledge.why("pkg.core.main")
        degraded = t.ask("why does pkg.core.main return 1?", offline=True)["degraded"]
    assert "tenure.toml" in answer["config_error"] and setting in answer["config_error"]
    assert answer["config_error"] in answer["summary"]["text"] and "out of date" in answer["summary"]["text"]
    assert any("tenure.toml" in note and setting in note for note in degraded), degraded
