"""The layering ARCHITECTURE.md draws holds in the code: import-linter's contracts (pyproject.toml),
structural tables named only by the structural store, and no module past ~800 lines
without a word in docs/modules.md on why it is one piece."""

from __future__ import annotations

import re
from pathlib import Path

from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "tenure"
STRUCTURAL_TABLES = ("files", "symbols", "edges", "source_edges", "file_facts", "file_analyses",
                     "resolution_deps", "resolution_answers", "resolution_missing", "resolution_gaps", "escapes")
LONG_MODULE = 800  # lines


def test_imports_keep_the_layers_of_architecture_md(capsys) -> None:
    status = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)
    assert status == 0, capsys.readouterr().out


def test_only_the_structural_store_names_a_structural_table() -> None:
    tables = "|".join(STRUCTURAL_TABLES)
    statement = re.compile(rf"\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+({tables})\b")
    naming = [f"{path.relative_to(PACKAGE)}: {match.group(0)}"
              for path in PACKAGE.rglob("*.py") if "structural" not in path.relative_to(PACKAGE).parts
              for match in statement.finditer(path.read_text(encoding="utf-8"))]
    assert naming == []


def test_a_long_module_is_explained_in_docs_modules_md() -> None:
    architecture = (ROOT / "docs" / "modules.md").read_text(encoding="utf-8")
    unexplained = [str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py")
                   if len(path.read_text(encoding="utf-8").splitlines()) > LONG_MODULE
                   and str(path.relative_to(PACKAGE)) not in architecture]
    assert unexplained == []
