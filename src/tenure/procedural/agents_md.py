"""The managed section of AGENTS.md: the promoted rules, between two markers. The rest of the file is
never touched; the file is replaced atomically (a process killed mid-write leaves the old one)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

BEGIN = "<!-- tenure:rules:begin (managed by `tenure rules`: what is between these markers is rewritten) -->"
END = "<!-- tenure:rules:end -->"
HEADING = "## House rules learned by tenure"


class AgentsFileError(RuntimeError):
    """The file cannot be updated safely; nothing was written."""


def section(lines: list[str]) -> str:
    body = lines or ["No rule is promoted at the moment."]
    return "\n".join([BEGIN, HEADING, "", *body, END]) + "\n"


def write(path: Path, lines: list[str]) -> bool:
    """Put `lines` into the managed section (appended when the file has none; the file created when
    there is something to say). Returns whether the file changed."""
    text = path.read_text("utf-8") if path.exists() else ""
    begins, ends = text.count(BEGIN), text.count(END)
    if (begins, ends) not in ((0, 0), (1, 1)) or (begins and text.index(BEGIN) > text.index(END)):
        raise AgentsFileError(f"{path} has {begins} begin and {ends} end markers of tenure's rules section: put "
                              f"back exactly one pair ({BEGIN} … {END}) or remove both; nothing was written")
    if not begins:
        if not lines:
            return False
        separator = "" if not text or text.endswith("\n\n") else "\n" if text.endswith("\n") else "\n\n"
        new = text + separator + section(lines)
    else:
        start, end = text.index(BEGIN), text.index(END) + len(END)
        rest = text[end:]
        new = text[:start] + section(lines).rstrip("\n") + rest
    if new == text:
        return False
    _replace(path, new)
    return True


def _replace(path: Path, text: str) -> None:
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
