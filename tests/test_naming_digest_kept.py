"""The naming digest an index run keeps (`StructuralStore.keep_naming_digest`) is the one made from
every symbol: carried over when the run named nothing otherwise, made again when it did."""

from __future__ import annotations

from pathlib import Path

from tenure import Tenure
from tenure.structural.store import NAMING_META, SymbolInfo

BASE = {
    "app/__init__.py": "",
    "app/models.py": "class Order:\n    def total(self):\n        return 1\n\n\ndef tax(x):\n    return x\n",
    "app/util.py": "from app.models import tax\n\n\ndef helper():\n    return tax(1)\n",
}


def _kept_and_made(t: Tenure) -> tuple[str | None, str]:
    return t.structural.kept_naming_digest(), t.structural._naming_digest()


def test_the_kept_naming_digest_is_the_one_made_from_every_symbol_after_each_kind_of_edit(make_repo) -> None:
    root: Path = make_repo(BASE)
    models = root / "app/models.py"
    edits = [
        ("a comment", lambda: models.write_text(models.read_text() + "# a comment\n")),
        ("a body", lambda: models.write_text(models.read_text().replace("return 1", "return 2"))),
        ("a new function", lambda: models.write_text(models.read_text() + "\n\ndef more():\n    pass\n")),
        ("two functions swapped", lambda: models.write_text(
            "def tax(x):\n    return x\n\n\nclass Order:\n    def total(self):\n        return 2\n\n\n"
            "def more():\n    pass\n")),
        ("a rename", lambda: models.write_text(models.read_text().replace("def more", "def fewer"))),
        ("a new file", lambda: (root / "app/extra.py").write_text("def extra():\n    pass\n")),
        ("a file removed", lambda: (root / "app/extra.py").unlink()),
        ("a syntax error", lambda: (root / "app/util.py").write_text("def helper(:\n    return tax(1)\n")),
        ("a package renamed", lambda: (root / "app/__init__.py").unlink()),
    ]
    with Tenure.open(root, discover=False) as t:
        t.index()
        kept, made = _kept_and_made(t)
        assert kept == made
        for what, edit in edits:
            before = made
            edit()
            t.index()
            kept, made = _kept_and_made(t)
            assert kept == made, what
            assert (made == before) == (what in ("a comment", "a body", "a syntax error")), what  # (recovered)


def test_symbols_written_outside_an_index_run_drop_the_kept_digest(make_repo) -> None:
    root: Path = make_repo(BASE)
    with Tenure.open(root, discover=False) as t:
        t.index()
        t.structural.replace_source_symbols("trace:checkout", [SymbolInfo("app.models.Order.pay", "pay", "function",
                                                                         "python", "", 0, "app.models.Order")])
        assert t.structural.get_meta(NAMING_META) == ""
        assert t.structural.naming_digest() == t.structural._naming_digest()
