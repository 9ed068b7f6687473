"""An update parses only the changed files and resolves again only them and the files that read what
their edits changed: an edit that only moves code resolves nothing, an edit touches only the items it
changed, and a dependant whose questions answer alike keeps its edges."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from tenure import Tenure
from tenure.structural.extractors.python import extract as extract_python
from tenure.structural.facts import FileFacts
from tenure.structural.languages import language_table
from tenure.structural.resolve import python
from tenure.structural.resolve.python.modules import Asking
from tenure.structural.resolve.python.values import FUNC
from tests.incremental_support import (
    BASE,
    SHAPES,
    clean_index,
    default_rewritten,
    edit_shapes,
    forget_analyses,
    snapshot,
    spy,
)


def test_reindex_parses_only_the_changed_file(make_repo) -> None:
    files = {f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(20)}
    files["pkg/user.py"] = "from pkg.m3 import f3\n\n\ndef use():\n    return f3()\n"
    root = make_repo(files)
    with Tenure.open(root, discover=False) as t:
        first = t.index()
        assert first.files_parsed == 21
        (root / "pkg/m3.py").write_text("def f3():\n    return 33\n")
        second = t.index()
        assert second.files_parsed == 1
        # m3 itself and the one file that reads a name m3 defines; not the other 19
        assert second.files_resolved == 2
        assert t.index().files_parsed == 0


def test_an_edit_that_only_moves_code_resolves_nothing_its_edges_move_with_it(make_repo, tmp_path: Path) -> None:
    root = make_repo(BASE)
    with Tenure.open(root, discover=False) as t:
        t.index()
        moved = BASE["app/models.py"].replace("        return tax", "        # why\n\n        return tax")
        (root / "app/models.py").write_text("# a comment\n\n\n" + moved)
        report = t.index()
        assert (report.files_parsed, report.files_resolved, report.files_verified) == (1, 0, 0)
        assert snapshot(t) == clean_index(root, tmp_path)  # every edge of models.py on its new line


def test_a_new_definition_re_resolves_only_the_readers_that_asked_for_its_name(make_repo, tmp_path: Path) -> None:
    files = {f"pkg/user{i}.py": f"from pkg import base\n\n\ndef use{i}():\n    return base.f()\n" for i in range(10)}
    files |= {
        "pkg/__init__.py": "",
        "pkg/base.py": "def f():\n    return 1\n",
        "pkg/hopeful.py": "from pkg import base\n\n\ndef call():\n    return base.g()\n",  # no g yet
    }
    root = make_repo(files)
    with Tenure.open(root, discover=False) as t:
        t.index()
        assert not t.what_breaks("pkg.hopeful.call")["dependants"]
        (root / "pkg/base.py").write_text("def f():\n    return 1\n\n\ndef g():\n    return 2\n")
        report = t.index()
        # base.py itself and hopeful.py (it asked for `g`); the ten users, which asked only for `f` (an
        # item that was there), are not even checked
        assert (report.files_resolved, report.files_verified) == (2, 0)
        callers = t.what_breaks("pkg.base.g")["dependants"]
        assert [(d["symbol"], d["tier"]) for d in callers] == [("pkg.hopeful.call", "inferred")]
        assert snapshot(t) == clean_index(root, tmp_path)


SHAPES_EDITS = {
    "function appended": SHAPES["app/shapes.py"] + "\n\ndef unrelated():\n    return 0\n",
    "function put first": "def unrelated():\n    return 0\n\n\n" + SHAPES["app/shapes.py"],
    "method added": SHAPES["app/shapes.py"].replace(
        "        return 2\n", "        return 2\n\n    def side(self):\n        return 3\n"),
    "default rewritten": default_rewritten(),
}


@pytest.mark.parametrize("edit", SHAPES_EDITS)
def test_an_edit_asks_readers_again_only_the_lookups_of_the_items_it_changed(
    make_repo, tmp_path: Path, analysed: list[str], monkeypatch: pytest.MonkeyPatch, edit: str
) -> None:
    root = make_repo(SHAPES)
    with Tenure.open(root, discover=False) as t:
        t.index()
    asked: list[tuple] = []
    spy(monkeypatch, Asking, "again", lambda asking, query: asked.append(query))
    forget_analyses()  # a new process
    with Tenure.open(root, discover=False) as t:
        report = edit_shapes(t, SHAPES_EDITS[edit], analysed)
        asked, analysed = list(asked), list(analysed)
        assert snapshot(t) == clean_index(root, tmp_path)
    default_returns = ("returns", (FUNC, "app.shapes", "default"))  # read through shapes.py's analysis
    if edit == "default rewritten":  # factory.py looked `default` up; use.py read factory.py's analysis
        assert (report.files_resolved, report.files_verified) == (1, 2)
        # the function `default` changed, not what the name `default` is bound to
        assert set(asked) == {("flags", (FUNC, "app.shapes", "default")), default_returns,
                              ("returns", (FUNC, "app.factory", "make"))}
    else:  # added items: factory.py read shapes.py's whole analysis (`return Circle`), which gives
        # what it gave before: factory.py is spared, nothing is asked again
        assert (report.files_resolved, report.files_verified, report.files_spared) == (1, 0, 1)
        assert asked == []
    assert analysed == ["app.shapes"]  # factory.py's kept analysis holds either way


def python_facts(source: str) -> FileFacts:
    spec = language_table()["python"]
    facts = extract_python(spec, spec.parser().parse(source.encode()), "app/m.py")
    facts.module = "app.m"
    return facts


MODULE_M = "import os\n\n\nclass A:\n    def f(self):\n        self.x = 1\n        return os\n\n\nB = A\n"


@pytest.mark.parametrize(("edited", "changed"), [
    (MODULE_M + "\n\ndef g():\n    return A\n", {"app.m#:g", "app.m#g"}),
    (MODULE_M + "C = 3\nclass D(A):\n    def h(self):\n        self.y = C\n",
     {"app.m#:C", "app.m#:D", "app.m#D", "app.m#D:h", "app.m#D.h", "app.m#D@y", "app.m#@y"}),
    (MODULE_M + "\n# a comment, and nothing else\n", set()),
    (MODULE_M + "B.z = 1\n", {"app.m#@z"}),  # a field of whatever B is: a module's, perhaps
    (MODULE_M + "B = 2\n", {"app.m#:B"}),  # an old name bound again
    ("def g():\n    return 1\n\n\n" + MODULE_M, {"app.m#:g", "app.m#g"}),  # put first: numbers move, items do not
    (MODULE_M.replace("return os", "return A"), {"app.m#A.f"}),  # what an old function returns
    (MODULE_M.replace("return os", "y = print(os)\n        return os"), set()),  # a body edit, the same returned
    (MODULE_M.replace("self.x = 1", "self.x = 2"), set()),  # a field's value: only the module's analysis reads it
    (MODULE_M.replace("\n\n\nB", "\n    def g(self):\n        return 2\n\n\nB"), {"app.m#A:g", "app.m#A.g"}),
    (MODULE_M.replace("class A:", "class A(object):"), {"app.m#A"}),  # a base
    (MODULE_M.replace("import os", "import sys as os"), {"app.m#:os", "app.m#A.f"}),  # through a variable
    (MODULE_M + "from os.path import *\n", None),  # a star import: lookups that missed may find more
], ids=["function appended", "class and constant appended", "comment", "attribute assigned", "name rebound",
        "function put first", "returns", "local variable", "field value", "method added", "base", "import",
        "star import"])
def test_an_edit_tells_which_items_of_its_module_it_changed(edited: str, changed: set[str] | None) -> None:
    found = python.resolver.item_edits(python_facts(MODULE_M), python_facts(edited))
    assert found == ({f"item:{key}" for key in changed} if changed is not None else None)


def test_stored_answers_of_another_format_are_not_trusted_their_file_is_resolved_again(
    make_repo, tmp_path: Path
) -> None:
    root = make_repo(SHAPES)
    with Tenure.open(root, discover=False) as t:
        t.index()
        use = t.db.query("SELECT id FROM files WHERE path = 'app/use.py'")[0]["id"]
        # the format before answers were packed: a list of [question, digest, filter]
        old = msgspec.msgpack.encode([[["exists", "app.factory"], b"\0" * 8, b"\xff" * 16]])
        t.db.execute("UPDATE resolution_answers SET answers = ? WHERE file_id = ?", (old, use))
        (root / "app/shapes.py").write_text(default_rewritten())
        report = t.index()
        assert (report.files_resolved, report.files_verified) == (2, 1)  # shapes.py, and use.py again
        assert snapshot(t) == clean_index(root, tmp_path)


def test_a_change_seen_through_a_re_export_re_resolves_the_files_that_asked(make_repo, tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/impl.py": "def make():\n    return 1\n",
        "pkg/api.py": "from pkg.impl import make\n",  # a re-export: user.py asks api, the answer lives in impl
        "pkg/user.py": "from pkg.api import make\n\n\ndef use():\n    return make()\n",
    }
    root = make_repo(files)
    with Tenure.open(root, discover=False) as t:
        t.index()
        assert t.db.query("SELECT COUNT(*) AS n FROM resolution_answers")[0]["n"] == 4  # every file can be verified
        (root / "pkg/impl.py").write_text("def helper():\n    return 0\n\n\nclass make:\n    pass\n")
        t.index()
        assert [(d["symbol"], d["relation"]) for d in t.what_breaks("pkg.impl.make")["dependants"]
                if d["symbol"] == "pkg.user.use"] == [("pkg.user.use", "instantiates")]
        assert snapshot(t) == clean_index(root, tmp_path)
