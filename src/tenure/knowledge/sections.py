"""Documents split into sections by their headings: Markdown (ATX and setext), reStructuredText
(underlined and overlined titles, levels in the order their adornments first appear), plain text.

A heading inside a fenced code block (Markdown) or an indented literal block (rST: the title must
start the line) is text, not a heading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Section:
    path: tuple[str, ...]  # the headings above it, outermost first; () before the first heading
    line: int  # 1-based line where its text starts (its heading's line)
    text: str

    @property
    def title(self) -> str:
        return " > ".join(self.path)


_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_RST_ADORNMENT = re.compile(r"^([=\-`:'\"~^_*+#<>.])\1{2,}[ \t]*$")
_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)


def split(text: str, syntax: str) -> list[Section]:
    """`syntax`: markdown | rst | text. Sections with no text but their heading are left out."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if syntax == "markdown":
        if match := _FRONT_MATTER.match(text):  # metadata, not text: blanked, lines still count
            text = "\n" * match.group(0).count("\n") + text[match.end():]
        headings = _markdown_headings(text)
    elif syntax == "rst":
        headings = _rst_headings(text)
    else:
        headings = []
    return _cut(text.split("\n"), headings)


def syntax_of(path: str) -> str:
    lower = path.lower()
    if lower.endswith((".md", ".markdown", ".mdx")):
        return "markdown"
    if lower.endswith((".rst", ".rest")):
        return "rst"
    return "text"


# (line index where the heading starts, number of lines it takes, level, title)
_Heading = tuple[int, int, int, str]


def _markdown_headings(text: str) -> list[_Heading]:
    lines = text.split("\n")
    found: list[_Heading] = []
    fence: str | None = None
    after_block = True  # the line before starts no paragraph: a setext title cannot continue one
    for i, line in enumerate(lines):
        if fenced := _FENCE.match(line):
            mark = fenced.group(1)
            if fence is None:
                fence = mark[0] * len(mark)
            elif mark.startswith(fence):
                fence = None
                after_block = True
            continue
        if fence is not None:
            continue
        starts_paragraph = after_block
        after_block = not line.strip()
        if atx := _ATX.match(line):
            after_block = True
            found.append((i, 1, len(atx.group(1)), atx.group(2).strip()))
        elif (i + 1 < len(lines) and line.strip() and not line.startswith(("    ", "\t", "-", "*", ">", "|"))
              and _SETEXT.match(lines[i + 1]) and starts_paragraph):
            found.append((i, 2, 1 if lines[i + 1].strip().startswith("=") else 2, line.strip()))
    return _without_overlaps(found)


def _rst_headings(text: str) -> list[_Heading]:
    lines = text.split("\n")
    styles: list[tuple[str, bool]] = []  # adornment styles in order of first appearance: their level
    found: list[_Heading] = []
    i = 0
    while i < len(lines) - 1:
        line, below = lines[i], lines[i + 1]
        over = _RST_ADORNMENT.match(line)
        if over and i + 2 < len(lines) and lines[i + 1].strip() and _RST_ADORNMENT.match(lines[i + 2]) \
                and lines[i + 2].strip()[0] == line.strip()[0]:
            title = lines[i + 1].strip()
            style = (line.strip()[0], True)
            taken = 3
        elif (line.strip() and not line[0].isspace() and not _RST_ADORNMENT.match(line)
              and (under := _RST_ADORNMENT.match(below)) and len(below.rstrip()) >= len(line.rstrip())
              and (i == 0 or not lines[i - 1].strip())):
            title = line.strip()
            style = (under.group(1), False)
            taken = 2
        else:
            i += 1
            continue
        if style not in styles:
            styles.append(style)
        found.append((i, taken, styles.index(style) + 1, title))
        i += taken
    return found


def _without_overlaps(found: list[_Heading]) -> list[_Heading]:
    out: list[_Heading] = []
    for heading in found:
        if out and heading[0] < out[-1][0] + out[-1][1]:
            continue
        out.append(heading)
    return out


def _cut(lines: list[str], headings: list[_Heading]) -> list[Section]:
    """Each heading starts a section that runs to the next heading; its own lines stay at the top of
    its text (they say what it is about)."""
    sections: list[Section] = []
    stack: list[tuple[int, str]] = []
    bounds = [(0, ())] if not headings or headings[0][0] > 0 else []
    for index, _, level, title in headings:
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        bounds.append((index, tuple(t for _, t in stack)))
    for number, (first, path) in enumerate(bounds):
        end = bounds[number + 1][0] if number + 1 < len(bounds) else len(lines)
        body = "\n".join(lines[first:end]).strip("\n")
        section = Section(path, first + 1, body)
        if body.strip() and _has_text_beyond_heading(section):
            sections.append(section)
    return sections


def _has_text_beyond_heading(section: Section) -> bool:
    rest = [line for line in section.text.split("\n")[1:] if line.strip() and not _RST_ADORNMENT.match(line)
            and not _SETEXT.match(line)]
    return bool(rest) or not section.path
