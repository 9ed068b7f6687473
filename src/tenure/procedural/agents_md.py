"""The managed section of AGENTS.md: the promoted rules, between two markers. The rest of the file is
never touched; the file is replaced atomically (a process killed mid-write leaves the old one, and no
temporary file). Rule text is escaped so that it can never open or close the section."""

from __future__ import annotations

from pathlib import Path

from tenure.files import refuse_read_only, write_atomic

BEGIN = "<!-- tenure:rules:begin (managed by `tenure rules`: what is between these markers is rewritten) -->"
END = "<!-- tenure:rules:end -->"
HEADING = "## House rules learned by tenure"


class AgentsFileError(RuntimeError):
    """The file cannot be updated safely; nothing was written."""


def section(lines: list[str]) -> str:
    body = [escape(line) for line in lines] or ["No rule is promoted at the moment."]
    return "\n".join([BEGIN, HEADING, "", *body, END]) + "\n"


def escape(line: str) -> str:
    """`line` as Markdown shows it, with no HTML comment in it: a rule that quotes a marker
    (`<!-- tenure:rules:end -->`) shows it as text and cannot end the section early."""
    return " ".join(line.splitlines()).replace("<!--", "&lt;!--").replace("-->", "--&gt;")


def write(path: Path, lines: list[str]) -> bool:
    """Put `lines` into the managed section (appended when the file has none; the file created when
    there is something to say). Returns whether the file changed."""
    try:
        text = path.read_text("utf-8") if path.exists() else ""
    except UnicodeDecodeError as exc:
        raise AgentsFileError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start}): save it as UTF-8; "
                              "nothing was written") from exc
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
    refuse_read_only(path)
    write_atomic(path, new)
    return True

