"""Links from the code's own prose: a comment or docstring that cites a decision (``see ADR-0003``,
``[[ADR-0003]]``), a ticket or PR (``#412``, ``GH-412``, a PR's URL), a document (its path) or a title
(``[[Settlement retries]]``: a document's or a memory's) is an `exact` link from the symbol it sits in.

The comments are read through the namespace (tenure.namespace.comments: tree-sitter, only files whose
text cites something), once per content of a file: an unchanged file is not read again. A citation on
an assignment (``MAX_RETRIES = 3  # see [[ADR-0003]]``) is also kept for the name assigned, with the
symbols of its file whose code names it: `why` of the method that reads the constant reaches the
decision through it.

What is read from the code is the checkout's: it is kept in the checkout's own database (`code`, the
code graph's), so two checkouts of one project on a team database, on two branches, each keep what
their own comments cite. Without a team database it is the store's one database, where the knowledge
migrations m001 and m007 made these tables.
"""

from __future__ import annotations

import re
from pathlib import Path

from tenure.knowledge.offline import DECISION_ID, TICKET, document_entities, entity_key
from tenure.knowledge.store import CODE_CITATION_TABLES, delete_keys, get_meta, set_meta
from tenure.namespace.comments import comments_matching, symbols_naming
from tenure.namespace.symbols import file_namings, indexed_files, naming_state
from tenure.storage import Database, Migrations

checkout_migrations = Migrations("knowledge_checkout")


@checkout_migrations
def m001_citation_tables(db: Database) -> None:
    db.execute("CREATE TABLE IF NOT EXISTS knowledge_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    for statement in CODE_CITATION_TABLES:
        db.execute(statement)


_TITLE = re.compile(r"\[\[([^\[\]\n]{2,120})\]\]")
_DOC_PATH = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.(?:md|rst|txt|adoc))\b")
CITES = re.compile("|".join(p.pattern for p in (DECISION_ID, TICKET, _TITLE, _DOC_PATH)), re.IGNORECASE)


def scan(db: Database, code: Database, root: Path) -> dict:
    """Bring the citations up to date with the indexed code: the files whose content, or whose own symbols'
    names (a citation names the symbol it sits in), changed since they were read; then the reads of the
    cited names, in those files (in every file when the cited names changed). What is read is kept in
    the checkout's database (`code`); the titles it may cite are the store's (`db`)."""
    files = indexed_files(code)
    read = dict(code.rows("SELECT path, content_hash FROM knowledge_code_files"))  # (content, its symbols' naming)
    state = naming_state(code)
    if get_meta(code, "citations_naming") != state:  # only the files whose own symbols are named differently
        named = file_namings(code)
        todo = sorted(p for p, f in files.items() if read.get(p) != f"{f.content_hash} {named.get(p, '')}")
    else:
        todo = sorted(p for p, f in files.items() if read.get(p, "").split(" ")[0] != f.content_hash)
        named = file_namings(code, todo)
    gone = sorted(set(read) - set(files))
    if not todo and not gone:
        return {"files_read": 0, "citations": _count(code)}
    titles = _titles(db)
    rows = [(c.path, c.line, c.fqn, c.assigns, key, cited, c.kind, c.text)
            for c in comments_matching(code, root, todo, CITES) for cited, key in _cited(c.text, titles)]
    names_before = _cited_names(code)
    with code.transaction():
        for table in ("knowledge_code_citations", "knowledge_code_files"):
            delete_keys(code, table, "path", todo + gone)
        code.executemany("INSERT INTO knowledge_code_citations (path, line, fqn, assigns, entity, cited, kind, text)"
                         " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING", rows)
        names = _cited_names(code)
        again = sorted(files) if names != names_before else todo
        delete_keys(code, "knowledge_code_reads", "path", again + gone)
        code.executemany("INSERT INTO knowledge_code_reads (path, reader, name, source) VALUES (?, ?, ?, ?)"
                         " ON CONFLICT DO NOTHING", _reads(code, root, again, names))
        code.executemany("INSERT INTO knowledge_code_files (path, content_hash) VALUES (?, ?)",
                         [(p, f"{files[p].content_hash} {named.get(p, '')}") for p in todo])
        set_meta(code, "citations_naming", state)
    return {"files_read": len(todo), "citations": _count(code)}


def _cited_names(db: Database) -> list[tuple[str, str, str]]:
    """(name, file, symbol the comment sits in) of every assignment whose comment cites something."""
    return db.rows("SELECT DISTINCT assigns, path, fqn FROM knowledge_code_citations WHERE assigns <> ''"
                   " ORDER BY assigns, path")


def _reads(code: Database, root: Path, paths: list[str], names: list[tuple[str, str, str]]) -> list[tuple]:
    """(file, reader, name, file of the name) of the symbols in `paths` whose code names a cited name: in
    its own file, or in a file with an import naming the name's module (``from . import typing as ft``)."""
    out = []
    for path in paths:
        try:
            text = (root / path).read_text("utf-8", "replace")
        except OSError:
            continue
        named = []
        for name, source, holder in names:
            module = holder.rpartition(".")[2] if source != path else ""
            if name in text and not (module and not re.search(rf"^\s*(?:from|import)\b.*\b{re.escape(module)}\b",
                                                              text, re.MULTILINE)):
                named.append((name, source, holder))
        if not named:
            continue
        readers = symbols_naming(code, root, path, {name for name, _, _ in named})  # (the file read once for all)
        out += [(path, s.fqn, name, source) for name, source, holder in named for s in readers[name]
                if s.fqn != holder]
    return out


def _cited(text: str, titles: dict[str, str]) -> list[tuple[str, str]]:
    """(as written, entity key) of what a comment line cites."""
    found: dict[str, str] = {}
    for m in _TITLE.finditer(text):
        title = m.group(1).strip()
        if not title:
            continue
        key = entity_key(title) if DECISION_ID.fullmatch(title) else titles.get(title.casefold(),
                                                                                  f"title:{title.casefold()}")
        found.setdefault(key, m.group())
    for m in DECISION_ID.finditer(text):
        found.setdefault(entity_key(m.group()), m.group())
    for m in TICKET.finditer(text):
        found.setdefault(f"#{int(m.group(1) or m.group(2) or m.group(3))}", m.group())
    for m in _DOC_PATH.finditer(text):
        key = titles.get(f"path:{m.group(1).lstrip('./')}")
        if key:
            found.setdefault(key, m.group())
    return [(cited, key) for key, cited in found.items()]


def _titles(db: Database) -> dict[str, str]:
    """Folded title, and `path:<path>`, -> the entity a document is (a decision, an incident, a thread)."""
    out: dict[str, str] = {}
    for kind, ref, title, key, path in db.rows("SELECT kind, ref, title, key, path FROM knowledge_documents"
                                               " WHERE kind NOT IN ('commit', 'changelog')"):
        own = document_entities(kind, ref, title, key, {})
        if own:
            out.setdefault(title.casefold(), own[0].key)
            if path:
                out.setdefault(f"path:{path}", own[0].key)
    return out


def _count(db: Database) -> int:
    return db.rows("SELECT COUNT(*) FROM knowledge_code_citations")[0][0]
