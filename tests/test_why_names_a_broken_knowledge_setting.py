"""`why` before any build, when a [knowledge] setting stops the build `tenure index` runs: the answer
names the file and the setting, not "run `tenure knowledge build`" (which would fail the same way)."""

from __future__ import annotations

import pytest

from tenure import Tenure

FILES = {"pkg/__init__.py": "", "pkg/core.py": "def main():\n    return 1\n"}


@pytest.mark.parametrize(("toml", "setting"), [
    ('[knowledge]\nchunk_size = "big"\n', "chunk_size"),
    ("[knowledge.model]\nprovider = 3\n", "[knowledge.model]"),
])
def test_why_names_the_broken_setting_that_stops_the_build(make_repo, monkeypatch: pytest.MonkeyPatch,
                                                          toml: str, setting: str) -> None:
    monkeypatch.delenv("TENURE_KNOWLEDGE", raising=False)
    root = make_repo({**FILES, "tenure.toml": toml})
    with Tenure.open(root, discover=False) as t:
        t.index()
        text = t.knowledge.why("pkg.core.main")["summary"]["text"]
    assert "tenure.toml" in text and setting in text, text
    assert "run `tenure knowledge build`" not in text
