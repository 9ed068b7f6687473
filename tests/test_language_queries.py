"""Every language in the table really extracts: one fixture folder per language, data-driven.

`tests/fixtures/languages/<language>/` holds one sample source file and an `expected.toml`:

    source = "sample.go"             # optional when the folder holds a single source file
    package = "shop"                 # optional: the declared package / namespace
    definitions = ["Service", "Service.Retry", "helper"]        # qualnames that must be found
    calls = [["Service.Retry", "helper"], ["main", "Retry", "svc"]]  # [scope, name(, receiver)]
    imports = ["fmt", "net/http"]    # modules that must be imported
    supertypes = [["", "Base"]]      # optional [scope, name] inherits/implements references, for
                                     # super types declared outside any definition (Perl's @ISA)
    [bases]                          # inheritance: qualname -> super types that must be found
    Dog = ["Animal"]

Adding a language is adding a table entry, a query file and a fixture folder; no test code.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

import pytest

from tenure.structural.extract import extract
from tenure.structural.languages import language_for, language_table

FIXTURES = Path(__file__).parent / "fixtures" / "languages"
FIXTURE_DIRS = sorted(p for p in FIXTURES.iterdir() if p.is_dir())
TABLE = language_table()
QUERIES = resources.files("tenure.structural.queries")


def _source(folder: Path, expected: dict) -> Path:
    if "source" in expected:
        return folder / expected["source"]
    sources = [p for p in folder.iterdir() if p.is_file() and p.name != "expected.toml"]
    assert len(sources) == 1, f"{folder.name}: name the sample with `source =` in expected.toml"
    return sources[0]


@pytest.mark.parametrize("name", sorted(TABLE))
def test_query_compiles(name: str) -> None:
    spec = TABLE[name]
    assert spec.query.pattern_count > 0
    text = "".join(QUERIES.joinpath(name).read_text("utf-8") for name in spec.queries)
    # py-tree-sitter silently ignores #not-any-of?; write (#not-match? @x "^(a|b)$") instead.
    assert "#not-any-of?" not in text
    assert spec.module_scheme in ("python", "package", "go", "path")


@pytest.mark.parametrize("name", sorted(TABLE))
def test_every_language_has_a_fixture(name: str) -> None:
    assert (FIXTURES / name / "expected.toml").is_file(), f"no fixture folder for {name}"


@pytest.mark.parametrize("folder", FIXTURE_DIRS, ids=[p.name for p in FIXTURE_DIRS])
def test_language_fixture(folder: Path) -> None:
    assert folder.name in TABLE, f"fixture {folder.name} has no entry in languages.toml"
    spec = TABLE[folder.name]
    expected = tomllib.loads((folder / "expected.toml").read_text("utf-8"))
    for key in ("definitions", "calls", "imports"):  # empty only where the language has none
        assert key in expected, f"{folder.name}/expected.toml lists no {key}"
    assert expected["definitions"], f"{folder.name}/expected.toml lists no definitions"
    src = _source(folder, expected)
    found = language_for(src.name)
    assert found is not None and found.name == spec.name, f"{src.name} is not detected as {spec.name}"

    tree = spec.parser().parse(src.read_bytes())
    facts = extract(spec, tree, src.name)

    assert facts.error_nodes == 0, f"{src.name} does not parse cleanly"
    qualnames = {d.qualname for d in facts.definitions}
    missing = [q for q in expected.get("definitions", []) if q not in qualnames]
    assert not missing, f"definitions {missing} not in {sorted(qualnames)}"

    calls = {(r.scope, r.name) for r in facts.references if r.kind in ("call", "new")}
    with_receiver = {(r.scope, r.name, r.receiver) for r in facts.references if r.kind in ("call", "new")}
    for call in expected.get("calls", []):
        got = with_receiver if len(call) == 3 else calls
        assert tuple(call) in got, f"call {call} not in {sorted(with_receiver)}"

    modules = {i.module for i in facts.imports}
    keys = [(i.module, i.name, i.alias, i.line) for i in facts.imports]
    assert len(keys) == len(set(keys)), f"an import matched twice: {sorted(keys)}"
    missing = [m for m in expected.get("imports", []) if m not in modules]
    assert not missing, f"imports {missing} not in {sorted(modules)}"

    bases = {d.qualname: set(d.bases) for d in facts.definitions}
    for qualname, supers in expected.get("bases", {}).items():
        assert set(supers) <= bases.get(qualname, set()), (
            f"{qualname} bases {sorted(bases.get(qualname, ()))}, expected {supers}"
        )

    supers = {(r.scope, r.name) for r in facts.references if r.kind in ("inherits", "implements")}
    for scope, name in expected.get("supertypes", []):
        assert (scope, name) in supers, f"super type {[scope, name]} not in {sorted(supers)}"

    if "package" in expected:
        assert facts.package == expected["package"]


def test_no_extension_claimed_twice() -> None:
    owners: dict[str, list[str]] = {}
    for name, spec in TABLE.items():
        for key in (*(e.lower() for e in spec.extensions), *spec.filenames):
            owners.setdefault(key, []).append(name)
    assert not {k: v for k, v in owners.items() if len(v) > 1}


def test_fixtures_cover_the_breadth() -> None:
    assert len(FIXTURE_DIRS) >= 45
