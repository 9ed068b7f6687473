"""One file's facts: parsed by tree-sitter, extracted by its language's extractor (a worker's job,
see workers.py), and the version of the code and data that made them."""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable
from functools import cache
from pathlib import Path

from tenure.structural.facts import FileFacts, encode_facts
from tenure.structural.languages import LanguageSpec, language_table


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


def parse_one(language: str, path: str, content: bytes) -> tuple[bytes | None, str]:
    """Parse and extract one file; returns (encoded facts, error). Runs in worker processes."""
    spec = language_table()[language]
    try:
        tree = spec.parser().parse(content)
        facts = extractor(spec.extractor)(spec, tree, path)
    except Exception as exc:  # a grammar or extractor bug must cost one file, not the index
        return None, f"extractor failed: {type(exc).__name__}: {exc}"
    note = ""
    try:
        content.decode("utf-8")
    except UnicodeDecodeError as exc:
        note = f"invalid UTF-8 at byte {exc.start}"
    return encode_facts(facts), note
