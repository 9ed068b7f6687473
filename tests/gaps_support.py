"""What an answer says of the files not fully resolved that it rests on."""

from __future__ import annotations

from tenure import Tenure


def unresolved_behind(t: Tenure, symbol: str) -> list[tuple[str, str]]:
    """The files (path, status) what-breaks of `symbol` names as not fully resolved; the answer must be a
    lower bound."""
    summary = t.what_breaks(symbol)["summary"]
    assert summary["lower_bound"], summary["text"]
    return [(g["path"], g["status"]) for g in summary["unresolved_files"]]
