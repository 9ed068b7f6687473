"""what-breaks of a symbol declared in a stub: calls link to the code it declares, so the declaration's
own answer never claims to be complete."""

from __future__ import annotations

from tenure import Tenure

FILES = {
    "pkg/__init__.py": "from pkg._make import fields\n",
    "pkg/__init__.pyi": "def fields(cls: type) -> list: ...\n",
    "pkg/_make.py": "def fields(cls):\n    return []\n",
    "pkg/use.py": "from pkg import fields\n\n\ndef names(cls):\n    return fields(cls)\n",
}


def test_a_stub_declaration_names_the_definition_its_callers_are_counted_at(make_indexed_repo) -> None:
    with Tenure.open(make_indexed_repo(FILES)) as t:
        declared = [m for m in t.what_breaks("fields")["matches"] if m["path"].endswith(".pyi")]
        assert declared, "the stub's declaration is indexed"
        summary = t.what_breaks(declared[0]["fqn"])["summary"]
    assert "complete" not in summary["text"]
    assert summary["lower_bound"] is True
    assert any("pkg._make.fields" in r and "declaration" in r for r in summary["reasons"]), summary["reasons"]


def test_a_declaration_without_a_known_definition_is_a_lower_bound(make_indexed_repo) -> None:
    files = {"pkg/__init__.py": "", "pkg/__init__.pyi": "def fields(cls: type) -> list: ...\n"}
    with Tenure.open(make_indexed_repo(files)) as t:
        summary = t.what_breaks("pkg.fields")["summary"]
    assert "complete" not in summary["text"]
    assert any("lower bound" in r for r in summary["reasons"]), summary["reasons"]


def test_a_typescript_declaration_names_the_definition_in_its_package(make_indexed_repo) -> None:
    files = {"lib/index.d.ts": "export declare function fields(x: number): number;\n",
             "lib/fields.ts": "export function fields(x: number): number { return x; }\n",
             "lib/use.ts": 'import { fields } from "./fields";\nexport function use() { return fields(1); }\n'}
    with Tenure.open(make_indexed_repo(files)) as t:
        declared = [m for m in t.what_breaks("fields")["matches"] if m["path"].endswith(".d.ts")]
        summary = t.what_breaks(declared[0]["fqn"])["summary"]
    assert "complete" not in summary["text"] and summary["lower_bound"] is True
    assert any("lib/fields.fields" in r for r in summary["reasons"]), summary["reasons"]
