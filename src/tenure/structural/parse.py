"""One file's facts: parsed by tree-sitter, extracted by its language's extractor (a worker's job,
see workers.py), the version of the code and data that made them, the symbol rows they give, and
their shape (the facts up to where code sits: an edit that keeps it only moved code)."""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable
from functools import cache
from pathlib import Path

import msgspec

from tenure.structural.extract import extract_symbols
from tenure.structural.facts import FileFacts, encode_facts
from tenure.structural.languages import LanguageSpec, language_table
from tenure.structural.naming import file_scope_name, qualify
from tenure.structural.resolve import SymbolInfo
from tenure.structural.vendored import read_cheaply_because, too_large_because


@cache
def extractor_version() -> str:
    """A hash of the extraction and resolution code and data: when it changes, facts are re-made."""
    digest = hashlib.blake2b(digest_size=8)
    here = Path(__file__).parent
    for f in sorted(here.rglob("*")):
        if f.suffix in (".py", ".scm", ".toml"):
            digest.update(f.name.encode() + f.read_bytes())
    return digest.hexdigest()


@cache
def extractor(name: str) -> Callable[[LanguageSpec, object, str], FileFacts]:
    """A language's extractor (languages.toml `extractor`): the query-driven one, or a dedicated one."""
    if name == "query":
        from tenure.structural.extract import extract

        return extract
    return importlib.import_module(f"tenure.structural.extractors.{name}").extract


def parse_one(language: str, path: str, content: bytes,
              full_analysis: tuple[str, ...] = ()) -> tuple[bytes | None, str]:
    """Parse and extract one file; returns (encoded facts, error). Runs in worker processes. Vendored
    or minified code gets the query pass only (its definitions, references and imports, no data-flow
    program), and why (`read_cheaply_because`; `full_analysis`: the project's globs that forbid it); a file
    too large, its symbols alone (`too_large_because`, whatever the globs say: its calls are not linked)."""
    spec = language_table()[language]
    cheap = read_cheaply_because(language, path, content, full_analysis)
    try:
        tree = spec.parser().parse(content)
        if too_large := too_large_because(tree.root_node.descendant_count):
            facts, cheap = extract_symbols(spec, tree, path, content), too_large
        else:
            facts = extractor("query" if cheap else spec.extractor)(spec, tree, path)
        facts.read_cheaply = cheap
    except Exception as exc:  # a grammar or extractor bug must cost one file, not the index
        return None, f"extractor failed: {type(exc).__name__}: {exc}"
    note = ""
    try:
        if not content.isascii():  # (ASCII is UTF-8: most files need no decoding to tell)
            content.decode("utf-8")
    except UnicodeDecodeError as exc:
        note = f"invalid UTF-8 at byte {exc.start}"
    return encode_facts(facts), note


def shape(facts: FileFacts, extractor: str) -> tuple[bytes, list[int]]:
    """The facts up to where code sits: every line number replaced by its rank among the file's
    lines, and the text-derived signature and fingerprint dropped; and those lines, in order.
    Resolvers compare lines only within a file and read no other file's text, so two files of equal
    shape resolve every other file identically, and themselves but for the lines of their edges
    (each line moved to the line of its rank): an edit that only moves code (comments, blank lines,
    re-indentation) needs nothing resolved again."""
    flow_lines = None
    if facts.flow is not None and extractor != "query":
        flow_lines = getattr(importlib.import_module(f"tenure.structural.extractors.{extractor}"), "flow_lines", None)
    lines = [n for d in facts.definitions for n in (d.start_line, d.end_line)]
    lines += [x.line for x in (*facts.references, *facts.imports, *facts.bindings)]
    remap = None
    if flow_lines is not None:
        more, remap = flow_lines(facts.flow)
        lines += more
    ordered = sorted(set(lines))
    rank = {line: i for i, line in enumerate(ordered)}.__getitem__
    data = msgspec.to_builtins(facts)
    data.pop("escapes")  # (no resolver reads them: the store keeps them as they are, lines and all)
    for d in data["definitions"]:
        d["start_line"], d["end_line"] = rank(d["start_line"]), rank(d["end_line"])
        d.pop("signature"), d.pop("fingerprint")
    for key in ("references", "imports", "bindings"):
        for x in data[key]:
            x["line"] = rank(x["line"])
    data["flow"] = remap(rank) if remap is not None else data["flow"]
    return msgspec.msgpack.encode(data), ordered


def symbols_of(
    facts: FileFacts, spec: LanguageSpec, content_hash: str = ""
) -> tuple[list[SymbolInfo], list[tuple[int, str, str]]]:
    """The symbol rows of one file, and the (end_line, signature, fingerprint) of each, in the same
    order: one name may be defined twice in a file (a property's getter and setter, a redefinition),
    each with its own span. A module's fingerprint is its file's content hash."""
    prefix = facts.package if spec.module_scheme == "package" else facts.module
    file_scope = file_scope_name(spec, facts.module, facts.path, facts.package)
    syms: list[SymbolInfo] = []
    extra: list[tuple[int, str, str]] = []
    if spec.module_scheme in ("python", "path"):
        syms.append(SymbolInfo(facts.module, facts.module.rsplit(".", 1)[-1], "module", spec.name, facts.path, 1,
                               module=facts.module))
        extra.append((max((d.end_line for d in facts.definitions), default=1), "", content_hash))
    owners = {d.qualname: d for d in facts.definitions}
    for d in facts.definitions:
        cut = max(d.qualname.rfind("."), d.qualname.rfind(spec.nested_type_separator))
        parent_qual = d.qualname[:cut] if cut > 0 else ""
        parent = qualify(prefix, parent_qual) if parent_qual in owners or parent_qual else file_scope
        fqn = qualify(prefix, d.qualname)
        # (bases on one line each, as the store keeps them: it joins them with newlines)
        bases = tuple(one_line for base in d.bases if (one_line := " ".join(base.split()))) if d.bases else ()
        syms.append(SymbolInfo(fqn, d.name, d.kind, spec.name, facts.path, d.start_line, parent, facts.module, bases))
        extra.append((d.end_line, d.signature, d.fingerprint))
    return syms, extra
