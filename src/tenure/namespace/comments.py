"""The comments and docstrings of the indexed code, each with the symbol it sits in: what the other
stores read of the code's own prose (a comment citing a decision is a link from that symbol).

The index keeps no comments; they are read from the files, parsed by tree-sitter (a ``#`` inside a
string is no comment), and only where the text has what the caller looks for (a file without it is not
parsed). A comment sits in the innermost symbol whose span holds it, not nested in a function (a
closure's comment is its function's); a comment on the lines right above a definition is that
definition's; one on an assignment's line, or right above it, names what it assigns (``MAX_RETRIES``).

    comments_matching(db, root, paths, pattern)   the comments and docstrings of these files matching
    symbols_naming(db, root, path, names)         the symbols of a file whose code names each name
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tenure.namespace.phrases import CONTAINERS, unnested
from tenure.namespace.symbols import Symbol, indexed_files, symbols_in
from tenure.storage import Database
from tenure.structural.languages import language_table

STRING_NODES = ("string", "string_literal", "template_string", "raw_string_literal")
STATEMENT_PARENTS = ("module", "block", "expression_statement", "program")  # a string standing alone: a docstring
_ASSIGNS = re.compile(r"^[^=(#/]*?\b([A-Za-z_]\w*)\s*(?::[^=]*)?=(?!=)")
_IDENTIFIER = r"(?<!\w){}(?!\w)"  # (`ft.ErrorHandlerCallable`, `self.MAX_RETRIES` too)


@dataclass(frozen=True)
class Comment:
    path: str
    line: int  # 1-based: the line the match is on
    text: str  # that line of the comment or docstring, stripped
    kind: str  # comment | docstring
    fqn: str  # the symbol it sits in (the module at module level)
    assigns: str = ""  # the name a module's or class's commented line assigns (`MAX_RETRIES = 3  # see ADR-0003`)


def comments_matching(db: Database, root: Path, paths: list[str], pattern: re.Pattern[str]) -> list[Comment]:
    """The comment and docstring lines of these indexed files where `pattern` matches, in file order."""
    files = indexed_files(db)
    symbols = symbols_in(db, paths)
    found: list[Comment] = []
    for path in paths:
        spec = language_table().get(files[path].language) if path in files else None
        try:
            text = (root / path).read_text("utf-8", "replace")
        except OSError:
            continue
        if spec is None or not pattern.search(text):
            continue
        found += _comments(path, text, spec.parser(), pattern, unnested(symbols.get(path, [])))
    return found


def symbols_naming(db: Database, root: Path, path: str, names: Iterable[str]) -> dict[str, list[Symbol]]:
    """For each of `names`, the symbols of the file at `path` (not nested in a function, not its module)
    whose code names it as a whole identifier: the code that reads it, as far as the text of the file
    tells. The file and its symbols are read once for all the names."""
    try:
        lines = (root / path).read_text("utf-8", "replace").splitlines()
    except OSError:
        return {name: [] for name in names}
    code = [line.split("#", 1)[0] for line in lines]
    inside = [s for s in unnested(symbols_in(db, [path]).get(path, [])) if s.kind != "module"]
    found: dict[str, list[Symbol]] = {}
    for name in names:
        named = re.compile(_IDENTIFIER.format(re.escape(name)))
        readers: dict[str, Symbol] = {}
        for n, line in enumerate(code, 1):  # the innermost symbol holding the line reads it (a method, not its class)
            if named.search(line) and (holding := [s for s in inside if s.start <= n <= s.end]):
                reader = max(holding, key=lambda s: s.start)
                readers.setdefault(reader.fqn, reader)
        found[name] = list(readers.values())
    return found


def _comments(path: str, text: str, parser, pattern: re.Pattern[str], symbols: list[Symbol]) -> list[Comment]:
    data = text.encode("utf-8")
    tree = parser.parse(data)
    lines = text.splitlines()
    out: list[Comment] = []
    seen: set[int] = set()
    ascii_only = len(data) == len(text)
    at, offset, line = 0, 0, 1  # (counted on from the last match: counting from the start is quadratic)
    for m in pattern.finditer(text):
        offset += (m.start() - at) if ascii_only else len(text[at:m.start()].encode("utf-8"))
        line += text.count("\n", at, m.start())
        at = m.start()
        kind, node = _kind(tree.root_node.descendant_for_byte_range(offset, offset + 1))
        if not kind or line in seen:
            continue
        seen.add(line)
        own_line = lines[line - 1]
        # the code before the comment on its first line (`MAX_RETRIES = 3  # see …`); a comment of its own
        # lines describes what follows it
        code = own_line[:node.start_point[1]] if kind == "comment" and node.start_point[0] == line - 1 else ""
        below = _next_code_line(lines, node.end_point[0] + 1) if kind == "comment" and not code.strip() else 0
        owner = _owner(symbols, line, below)
        # (an assignment inside a function is a local: no other code reads it by name)
        at_top = any(s.fqn == owner and s.kind in CONTAINERS for s in symbols)
        assigns = (_assigned(code) or (_assigned(lines[below - 1]) if below else "")) if at_top else ""
        out.append(Comment(path, line, own_line.strip(), kind, owner, assigns))
    return out


def _kind(node) -> tuple[str, object]:
    """(comment | docstring | '', its node) for the node a match falls in (or one of its ancestors)."""
    while node is not None:
        if node.type.endswith("comment"):
            return "comment", node
        if node.type in STRING_NODES:
            parent = node.parent
            return ("docstring" if parent is not None and parent.type in STATEMENT_PARENTS else ""), node
        node = node.parent
    return "", None


def _next_code_line(lines: list[str], line: int) -> int:
    """The first line after `line` that is neither blank, a comment nor a decorator (0: none)."""
    for n in range(line, len(lines)):
        stripped = lines[n].strip()
        if stripped and not stripped.startswith(("#", "//", "/*", "*", "@")):
            return n + 1
    return 0


def _assigned(code: str) -> str:
    m = _ASSIGNS.match(code)
    return m.group(1) if m else ""


def _owner(symbols: list[Symbol], line: int, below: int) -> str:
    """The definition that starts right below a comment, else the innermost one holding its line."""
    for s in symbols:
        if below and s.start == below and s.kind != "module":
            return s.fqn
    holding = [s for s in symbols if s.kind == "module" or s.start <= line <= s.end]
    return max(holding, key=lambda s: (s.kind != "module", s.start)).fqn if holding else ""
