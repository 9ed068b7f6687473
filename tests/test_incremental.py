"""Incremental indexing: after any series of edits the graph equals a clean re-index, and only the
changed files (and the files that read what they define) are touched."""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec
import pytest

from tenure import Tenure
from tenure.structural import indexer, workers
from tenure.structural.extractors.python import extract as extract_python
from tenure.structural.facts import FileFacts
from tenure.structural.languages import language_table
from tenure.structural.report import IndexReport
from tenure.structural.resolve import ProjectIndex, ProjectView, SymbolInfo, python
from tenure.structural.resolve import answers as resolve_answers
from tenure.structural.resolve.python.analysed import Analysed, kept_analysis
from tenure.structural.resolve.python.modules import Asking
from tenure.structural.resolve.python.values import FUNC
from tenure.structural.store import StructuralStore


def snapshot(t: Tenure) -> tuple[set, set]:
    symbols = {
        (r["fqn"], r["kind"], r["path"], r["start_line"], r["end_line"], r["fingerprint"], r["parent_fqn"])
        for r in t.db.query("SELECT * FROM symbols")
    }
    edges = {(e["src"], e["dst"], e["relation"], e["tier"], e["path"], e["line"]) for e in t.export_edges()}
    return symbols, edges


def clean_index(root: Path, tmp: Path) -> tuple[set, set]:
    copy = tmp / f"clean-{len(list(tmp.iterdir()))}"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".tenure"))
    with Tenure.open(copy, discover=False) as t:
        t.index()
        return snapshot(t)


def in_this_process_only(read: Callable) -> Callable:
    """`read`, failing when called from a forked process (a resolve worker)."""
    parent = os.getpid()

    def guarded(store: StructuralStore, *args: str) -> object:
        assert os.getpid() == parent, "a resolve worker read the store"
        return read(store, *args)

    return guarded


def spy(monkeypatch: pytest.MonkeyPatch, owner: object, name: str, note: Callable[..., object]) -> None:
    """`owner.name` as it was, each call first shown to `note` (with the same arguments)."""
    real = getattr(owner, name)
    monkeypatch.setattr(owner, name, lambda *args, **kwargs: note(*args, **kwargs) or real(*args, **kwargs))


@pytest.fixture
def analysed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The modules analysed while the test runs (not taken from a cache or the store), in order."""
    found: list[str] = []
    spy(monkeypatch, Analysed, "analyse", lambda self, facts: found.append(facts.module))
    return found


def forget_analyses() -> None:
    """As a new process starts: no analysis of another module made here."""
    python.forget_analyses()


ONE_PROCESS_OR_A_PROCESS_PER_EDIT = pytest.mark.parametrize(
    "fresh", [False, True], ids=["one process", "a process per edit"])


def index_again(t: Tenure, fresh: bool) -> IndexReport:
    """An update of `t`'s tree: by `t` itself, or (`fresh`) by a process of its own, which has only
    what earlier ones kept in the store."""
    if not fresh:
        return t.index()
    forget_analyses()
    with Tenure.open(t.root, discover=False) as other:
        return other.index()


def write(root: Path, path: str, content: str | None) -> None:
    """Apply one edit to the tree: new content, or None to delete the file."""
    target = root / path
    if content is None:
        target.unlink()
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)


def replay(t: Tenure, root: Path, edits: list[tuple[str, str | None]], cleans: Path,
           must_change_edges: bool = False, watched: bool = False, deferred: bool = False,
           fresh: bool = False) -> None:
    """Apply the edits one by one, re-indexing after each (told the path, as a watcher is, when
    `watched`; leaving the bookkeeping of checked dependants to the next run when `deferred`; in a
    process of its own, which has only what earlier ones kept in the store, when `fresh`): the
    graph must equal a clean re-index."""
    t.index()
    assert snapshot(t) == clean_index(root, cleans)
    for path, content in edits:
        before = snapshot(t)[1]
        write(root, path, content)
        if fresh:
            forget_analyses()
            with Tenure.open(root, discover=False) as other:
                other.index(changed_paths={path} if watched else None)
        else:
            t.index(changed_paths={path} if watched else None, defer_bookkeeping=deferred)
        after = snapshot(t)
        if must_change_edges:
            assert after[1] != before, f"editing {path} changed no edge: the case proves nothing"
        assert after == clean_index(root, cleans), f"after editing {path}"


BASE = {
    "app/__init__.py": "",
    "app/models.py": "class Order:\n    def total(self):\n        return tax(1)\n\n\ndef tax(x):\n    return x\n",
    "app/service.py": (
        "from app.models import Order, tax\n\n\n"
        "def checkout():\n    o = Order()\n    o.total()\n    return tax(2)\n"
    ),
    "app/util.py": "def helper():\n    return 1\n",
    "src/main/java/com/acme/Repo.java": "package com.acme;\npublic class Repo { void save() {} }\n",
    "src/main/java/com/acme/Svc.java": (
        "package com.acme;\npublic class Svc { void run() { new Repo().save(); helper(); } void helper() {} }\n"
    ),
}

SHAPES_2 = ("class Base:\n    def area(self):\n        return 1\n\n\nclass Sub(Base):\n    pass\n\n\n"
            "def make():\n    return Sub\n")
RENAMED = "class Order:\n    def grand_total(self):\n        return 0\n\n\ndef tax(x):\n    return x\n"
EDITS = [
    # code only moves: a comment and blank lines above everything (no dependant is re-resolved)
    ("app/models.py", "# totals\n\n" + BASE["app/models.py"]),
    # change a function body (fingerprint moves, edges from it change)
    ("app/models.py", "class Order:\n    def total(self):\n        return 0\n\n\ndef tax(x):\n    return helper()\n"
                      "\n\ndef helper():\n    return 2\n"),
    # a new file defining a name others call
    ("app/extra.py", "from app.service import checkout\n\n\ndef again():\n    return checkout()\n"),
    # rename a function that others call
    ("app/models.py", RENAMED),
    # delete a file
    ("app/util.py", None),
    # a new __init__.py moves module names of unchanged files
    ("src/__init__.py", ""),
    ("src/pkg/__init__.py", ""),
    ("src/pkg/mod.py", "from app.models import tax\n\n\ndef f():\n    return tax(3)\n"),
    # Java: a method appears that an unchanged file calls by name
    ("src/main/java/com/acme/Repo.java",
     "package com.acme;\npublic class Repo { void save() {} void helper() {} }\n"),
    # ... and goes again (a process that looked the name up holds a list without it now)
    ("src/main/java/com/acme/Repo.java", BASE["src/main/java/com/acme/Repo.java"]),
    # a file importing a module that does not exist yet, then that module appearing
    ("app/early.py", "from app.late import later\n\n\ndef first():\n    return later()\n"),
    ("app/late.py", "def later():\n    return 1\n"),
    # a syntax error, then its repair
    ("app/service.py", "from app.models import Order, tax\n\ndef checkout(:\n    return tax(2)\n"),
    ("app/service.py", "from app.models import tax\n\n\ndef checkout():\n    return tax(2)\n"),
    # a call on a receiver of unknown type matches methods by name: one appears, then goes again
    ("app/blind.py", "def go(x):\n    return x.process()\n"),
    ("app/jobs.py", "class Job:\n    def process(self):\n        return 1\n"),
    ("app/jobs.py", "class Job:\n    def run(self):\n        return 1\n"),
    # names a reader looks up in vain in a module, then added at its end (an edit that only adds:
    # its readers ask again only what had missed), then an old name rebound there, then a star
    # import appended that brings the last one
    ("app/hopes.py", "from app.models import later_tax, later\n\n\ndef h():\n    later()\n    return later_tax(1)\n"),
    ("app/models.py", RENAMED + "\n\ndef later_tax(x):\n    return x\n"),
    ("app/models.py", RENAMED + "\n\ndef later_tax(x):\n    return x\n\n\ntax = later_tax\n"),
    ("app/models.py", RENAMED + "\n\ndef later_tax(x):\n    return x\n\n\ntax = later_tax\nfrom app.late import *\n"),
    # a reader of a module attribute nothing assigns, then the module assigning it to itself at its end
    ("app/patch.py", "import app.models\n\n\ndef p():\n    return app.models.patched()\n"),
    ("app/models.py", RENAMED + "\n\nimport app.models\napp.models.patched = tax\n"),
    # edits anywhere in a module change only the items they touch (`python.resolver.item_edits`): a reader
    # of what a factory returns, then a method added to an old class, a function put first with the
    # factory's result through a variable, and a function rebinding a module name the factory returns
    ("app/shapes.py", SHAPES_2),
    ("app/draw.py", "from app.shapes import make\n\n\ndef d():\n    return make()().area()\n"),
    ("app/shapes.py", SHAPES_2.replace("    pass\n", "    def area(self):\n        return 2\n")),
    ("app/shapes.py",
     "def first():\n    return 0\n\n\n" + SHAPES_2.replace("    return Sub\n", "    cls = Base\n    return cls\n")),
    ("app/shapes.py", SHAPES_2.replace("    return Sub\n", "    return Current\n\n\nCurrent = Sub\n\n\n"
                                       "def switch():\n    global Current\n    Current = Base\n")),
]


@pytest.mark.parametrize(("watched", "deferred", "fresh"),
                         [(False, False, False), (True, False, False), (True, True, False), (False, False, True)],
                         ids=["full walk", "watched paths", "watched, bookkeeping deferred", "a process per edit"])
def test_incremental_graph_equals_clean_reindex_after_each_edit(
    make_repo, tmp_path: Path, watched: bool, deferred: bool, fresh: bool
) -> None:
    root = make_repo(BASE)
    cleans = tmp_path / "cleans"
    cleans.mkdir()
    with Tenure.open(root, discover=False) as t:
        replay(t, root, EDITS, cleans, watched=watched, deferred=deferred, fresh=fresh)


def test_a_cold_update_reads_only_the_symbols_it_looks_up_and_equals_a_warm_index_of_all(
    make_repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`tenure index` after an edit is a fresh process: it reads the symbols its resolution looks
    up rather than all of them (45k on Django), and makes the graph a warmed indexer (a watcher's,
    which holds every symbol) makes of the same edits."""
    whole_reads: list[StructuralStore] = []
    spy(monkeypatch, StructuralStore, "all_symbols", lambda store, **_: whole_reads.append(store))
    cold_root, warm_root = make_repo(BASE, name="cold"), make_repo(BASE, name="warm")
    with Tenure.open(warm_root, discover=False) as warm:
        warm.index()
        while not warm.warm(0.05):
            pass
        with Tenure.open(cold_root, discover=False) as cold:
            cold.index()
        for path, content in EDITS:
            write(cold_root, path, content)
            write(warm_root, path, content)
            warm.index()
            with Tenure.open(cold_root, discover=False) as cold:
                cold.index()
                assert snapshot(cold) == snapshot(warm), f"after editing {path}"
        # the warmed indexer read them all once, when it warmed; no cold run did
        assert whole_reads == [warm.structural]


def test_a_cold_update_resolved_in_worker_processes_equals_a_clean_reindex(
    make_repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Resolve workers are forked over the index and cannot see the open transaction: a cold
    process reads every symbol (and facts) in the parent before they start, and no worker reads the
    store."""
    for method in ("symbols_with", "load_facts", "load_analysis", "facts_digest"):
        monkeypatch.setattr(StructuralStore, method, in_this_process_only(getattr(StructuralStore, method)))
    root = make_repo(BASE)
    cleans = tmp_path / "cleans"
    cleans.mkdir()
    with Tenure.open(root, discover=False) as t:
        t.index()
    monkeypatch.setattr(workers, "PARALLEL_THRESHOLD", 1)  # even one file is resolved by workers
    for path, content in EDITS:
        write(root, path, content)
        with Tenure.open(root, discover=False) as cold:
            cold.index()
            assert snapshot(cold) == clean_index(root, cleans), f"after editing {path}"


def test_a_first_index_in_worker_processes_reads_back_none_of_the_symbols_it_stored(
    make_repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parent holds every symbol before the workers start; those it has just stored come from
    memory, the same as the store would give them."""
    read_back: list[SymbolInfo] = []
    real = StructuralStore.all_symbols
    monkeypatch.setattr(StructuralStore, "all_symbols",
                        lambda store, **kwargs: read_back.extend(real(store, **kwargs)) or iter(read_back))
    monkeypatch.setattr(workers, "PARALLEL_THRESHOLD", 1)
    with Tenure.open(make_repo(BASE), discover=False) as t:
        t.index()
        stored = list(real(t.structural))
    assert read_back == [] and stored


def test_an_index_completed_runs_after_it_was_made_holds_no_symbol_of_a_file_deleted_since(make_repo) -> None:
    """A process that indexes again keeps its index, and completes it when it warms: the symbols a
    run held in memory for it are dropped with their file."""
    with Tenure.open(make_repo({"a.py": "def kept():\n    return 1\n", "b.py": "def gone():\n    return 2\n"}),
                     discover=False) as t:
        t.index()
        (t.root / "b.py").unlink()
        t.index()
        while not t.warm(0.05):
            pass
        index = t._indexer._index
        assert index is not None and index.lazy is None
        assert [s.fqn for s in index.named("kept")] == ["a.kept"] and index.named("gone") == []


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


SHAPES = {
    "app/__init__.py": "",
    "app/shapes.py": "class Circle:\n    def area(self):\n        return 1\n\n\n"
                     "class Square:\n    def area(self):\n        return 2\n\n\ndef default():\n    return Circle\n",
    # make() returns a call: use.py needs factory analysed, and that analysis reads shapes.py
    "app/factory.py": "from app.shapes import default\n\n\ndef make():\n    cls = default()\n    return cls()\n",
    "app/use.py": "from app.factory import make\n\n\ndef run():\n    return make().area()\n",
}


def test_a_warm_analysis_is_reused_while_its_answers_hold_and_redone_when_they_change(
    make_repo, tmp_path: Path
) -> None:
    shapes = SHAPES["app/shapes.py"]
    root = make_repo(SHAPES)

    def area_callers() -> list[str]:
        return [e["dst"] for e in t.export_edges() if e["src"] == "app.use.run" and e["dst"].endswith(".area")]

    with Tenure.open(root, discover=False) as t:  # one warm process, as watch mode keeps it
        t.index()
        assert area_callers() == ["app.shapes.Circle.area"]
        (root / "app/shapes.py").write_text(shapes + "\n\ndef unrelated():\n    return 0\n")
        report = t.index()
        # shapes.py itself; factory.py reads shapes.py's analysis (`return Circle`), which gives what
        # it gave before: it is spared, as is use.py, which only looks up items that were there
        assert (report.files_resolved, report.files_verified, report.files_spared) == (1, 0, 1)
        assert area_callers() == ["app.shapes.Circle.area"]
        assert snapshot(t) == clean_index(root, tmp_path)
        (root / "app/shapes.py").write_text(shapes.replace("return Circle", "return Square"))
        t.index()
        assert area_callers() == ["app.shapes.Square.area"]
        assert snapshot(t) == clean_index(root, tmp_path)


def default_rewritten(hops: int = 1) -> str:
    """shapes.py with `default` returning Circle through `hops` variables: what a lookup of `default`
    reads has changed, so its readers are checked again (and their answers hold), not only those that
    read shapes.py's whole analysis (as after a function added: `test_an_edit_asks_readers_again_only_
    the_lookups_of_the_items_it_changed`)."""
    body = "    v0 = Circle\n" + "".join(f"    v{i} = v{i - 1}\n" for i in range(1, hops)) + f"    return v{hops - 1}\n"
    return SHAPES["app/shapes.py"].replace("    return Circle\n", body)


def edit_shapes(t: Tenure, text: str, analysed: list[str]) -> IndexReport:
    """app/shapes.py rewritten and indexed as a watcher would, counting analyses from here."""
    (t.root / "app/shapes.py").write_text(text)
    analysed.clear()
    return t.index(changed_paths={"app/shapes.py"})


def test_a_warmed_indexer_checks_an_edits_dependants_without_analysing_modules_again(
    make_repo, tmp_path: Path, analysed: list[str]
) -> None:
    root = make_repo(SHAPES)
    with Tenure.open(root, discover=False) as t:
        t.index()

    forget_analyses()  # a process that did not run the analyses: a watcher started on an index
    with Tenure.open(root, discover=False) as t:
        t.structural.drop_analyses()  # (as a full index in worker processes leaves it: none kept)
        t.index()
        report = edit_shapes(t, default_rewritten(), analysed)
        assert (report.files_resolved, report.files_verified) == (1, 2)
        assert "app.factory" in analysed  # verifying use.py asked about make(), whose module was never analysed here

    forget_analyses()
    with Tenure.open(root, discover=False) as t:
        t.structural.drop_analyses()
        t.index()
        while not t.warm(0.05):
            pass
        report = edit_shapes(t, default_rewritten(2), analysed)
        assert (report.files_resolved, report.files_verified) == (1, 2)
        assert analysed == ["app.shapes"]  # the edited module alone: the warm analyses' answers were checked
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


# factory.py reads shapes.py's whole analysis (what `default` returns: what `pick()` does; the field
# `item` of a Box; what the list ALL holds), never looking `pick` or `register` up: whether an edit of
# shapes.py checks it hangs on that analysis
SPARING_SHAPES = (
    "class Circle:\n    def area(self):\n        return 1\n\n\n"
    "class Square:\n    def area(self):\n        return 2\n\n\n"
    "def pick():\n    return Circle\n\n\ndef default():\n    return pick()\n\n\n"
    "class Box:\n    def __init__(self):\n        self.item = Circle()\n\n\n"
    "ALL = []\n\n\ndef register():\n    ALL.append(Circle)\n"
)
SPARING = {
    "app/__init__.py": "",
    "app/shapes.py": SPARING_SHAPES,
    "app/factory.py": ("from app.shapes import ALL, default, Box\n\n\ndef make():\n    cls = default()\n"
                       "    return cls().area()\n\n\ndef boxed():\n    return Box().item.area()\n\n\n"
                       "def first():\n    return ALL[0]().area()\n"),
    "app/other.py": "from app.shapes import Circle\n\nThing = Circle\n",
}
PICK_BODY = "def pick():\n    return Circle\n"
PICK_WITH_STATEMENT = "def pick():\n    unused = 1\n    return Circle\n"
PICK_THROUGH_OTHER = "def pick():\n    from app.other import Thing\n    return Thing\n"
SPARING_EDITS = {  # edits, and how many readers each spares
    "a statement in a body": ([("app/shapes.py", SPARING_SHAPES.replace(
        PICK_BODY, PICK_WITH_STATEMENT))], [1]),
    # (the analysis kept before the comment holds after it: kept again, so the edit after it finds it)
    "a comment, then a statement in a body": ([
        ("app/shapes.py", "# shapes\n\n" + SPARING_SHAPES),
        ("app/shapes.py", "# shapes\n\n" + SPARING_SHAPES.replace(
            PICK_BODY, PICK_WITH_STATEMENT)),
    ], [0, 1]),
    # other.py, which shapes.py's analysis reads, edited in between (shapes.py, its reader, is spared):
    # the analysis kept before holds still, as what it asked of other.py answers alike
    "a module it reads edited in between": ([
        ("app/shapes.py", SPARING_SHAPES.replace(PICK_BODY, PICK_THROUGH_OTHER)),
        ("app/other.py", SPARING["app/other.py"] + "\n\ndef unrelated():\n    return 0\n"),
        ("app/shapes.py", SPARING_SHAPES.replace(PICK_BODY, PICK_THROUGH_OTHER.replace(
            "    return Thing\n", "    unused = 1\n    return Thing\n"))),
    ], [1, 1, 1]),
    "a function put first, then removed": ([
        ("app/shapes.py", "def first():\n    return 0\n\n\n" + SPARING_SHAPES),
        ("app/shapes.py", SPARING_SHAPES),
    ], [1, 1]),
    # what `default` returns changes, though the lookup of `default` reads the same
    "what a called function returns": ([("app/shapes.py", SPARING_SHAPES.replace(
        PICK_BODY, "def pick():\n    return Square\n"))], [0]),
    "a field's value": ([("app/shapes.py", SPARING_SHAPES.replace("self.item = Circle()", "self.item = Square()"))],
                        [0]),
    "what a list holds": ([("app/shapes.py", SPARING_SHAPES.replace("ALL.append(Circle)", "ALL.append(Square)"))], [0]),
    # a list literal is an allocation, named by its scope (`pick#0`): one that reaches no reader is not
    # compared, and the ones after it keep their names
    "a list in a body": ([("app/shapes.py", SPARING_SHAPES.replace(
        PICK_BODY, "def pick():\n    unused = [1]\n    return Circle\n"))], [1]),
    # the analysis gives the same, through other.py, which it did not read before: factory.py is spared,
    # its reads and answers' filters grown by other.py's keys, so the edit of other.py after it checks it
    "the same values read elsewhere": ([
        ("app/shapes.py", SPARING_SHAPES.replace(
            PICK_BODY, PICK_THROUGH_OTHER)),
        ("app/other.py", "from app.shapes import Square\n\nThing = Square\n"),
    ], [1, 0]),
}


@ONE_PROCESS_OR_A_PROCESS_PER_EDIT
@pytest.mark.parametrize("edit", SPARING_EDITS)
def test_readers_of_a_modules_whole_analysis_are_spared_only_while_it_gives_what_it_gave(
    make_repo, tmp_path: Path, edit: str, fresh: bool
) -> None:
    root = make_repo(SPARING)
    edits, spared = SPARING_EDITS[edit]
    with Tenure.open(root, discover=False) as t:
        t.index()
        reports = []
        for path, text in edits:
            write(root, path, text)
            reports.append(index_again(t, fresh))
            assert snapshot(t) == clean_index(root, tmp_path), f"after editing {path}"
    assert [report.files_spared for report in reports] == spared
    if not any(spared):
        assert reports[0].files_verified + reports[0].files_resolved >= 2  # factory.py, and shapes.py


# (module before, after, a reader): what the reader gets changes only through the module's analysis,
# in a way a comparison of the analysis by name must see (cases a review found)
REACHED_THROUGH_ANALYSIS = {
    # a list reached only through its own method, which reads the list's items
    "a list's method returned": (
        "def helper():\n    pass\n\n\ndef helper2():\n    pass\n\n\n"
        "def get_pop():\n    lst = []\n    lst.append(helper)\n    return lst.pop\n",
        "lst.append(helper)", "lst.append(helper2)",
        "from app.m import get_pop\n\n\ndef run():\n    f = get_pop()()\n    f()\n"),
    "a dict's method returned": (
        "def helper():\n    pass\n\n\ndef helper2():\n    pass\n\n\n"
        "def getter():\n    d = {}\n    d['k'] = helper\n    return d.get\n",
        "d['k'] = helper", "d['k'] = helper2",
        "from app.m import getter\n\n\ndef run():\n    getter()('k')()\n"),
    # a field found is a lookup too: an edit that makes it no `self.` field any more touches it
    "a field set through an alias": (
        "def helper():\n    pass\n\n\nclass C:\n    def __init__(self):\n        self.y = helper\n",
        "        self.y = helper\n", "        s = self\n        s.y = helper\n",
        "from app.m import C\n\n\ndef run():\n    C().y()\n"),
    "a field set outside the class": (
        "def helper():\n    pass\n\n\nclass C:\n    def __init__(self):\n        self.y = helper\n",
        "        self.y = helper\n", "        pass\n\n\nc = C()\nc.y = helper\n",
        "from app.m import C\n\n\ndef run():\n    C().y()\n"),
}


@ONE_PROCESS_OR_A_PROCESS_PER_EDIT
@pytest.mark.parametrize("case", REACHED_THROUGH_ANALYSIS)
def test_what_a_reader_reaches_through_a_modules_analysis_is_compared_before_it_is_spared(
    make_repo, tmp_path: Path, case: str, fresh: bool
) -> None:
    module, old, new, reader = REACHED_THROUGH_ANALYSIS[case]
    root = make_repo({"app/__init__.py": "", "app/m.py": module, "app/reader.py": reader})
    with Tenure.open(root, discover=False) as t:
        t.index()
        write(root, "app/m.py", module.replace(old, new))
        report = index_again(t, fresh)
        assert report.files_spared == 0
        assert snapshot(t) == clean_index(root, tmp_path)


# A module of two files (m.py, read first, and m.pyi): one run takes m.py away and edits m.pyi, whose
# edit alone would touch nothing its readers read (cases a review found)
TWO_FILES = {
    "readers of its analysis": (
        "from app.lib import a, b\n\n\ndef make():\n    return a\n\n\nh = make()\n",
        "from app.lib import a, b\n\n\ndef make():\n    return b\n\n\nh = make()\n\n\ndef unused():\n    x = 1\n",
        ("    x = 1\n", "    x = 2\n"),
        "from app.m import h\n\n\ndef run():\n    h()\n"),
    "readers of its names": (
        "from app.lib import a as a\n",
        "from app.lib import b as a\n\n\ndef unused():\n    pass\n",
        ("    pass\n", "    pass\n\n\ndef more():\n    pass\n"),
        "from app.m import a\n\n\ndef run():\n    a()\n"),
}


@ONE_PROCESS_OR_A_PROCESS_PER_EDIT
@pytest.mark.parametrize("case", TWO_FILES)
def test_a_module_of_two_files_losing_the_one_read_checks_its_readers(
    make_repo, tmp_path: Path, case: str, fresh: bool
) -> None:
    first, second, (old, new), reader = TWO_FILES[case]
    root = make_repo({"app/__init__.py": "", "app/lib.py": "def a():\n    pass\n\n\ndef b():\n    pass\n",
                      "app/m.pyi": second, "app/reader.py": reader})
    with Tenure.open(root, discover=False) as t:
        t.index()  # (m.pyi alone: its analysis kept)
        write(root, "app/m.py", first)
        t.index()
        write(root, "app/m.py", None)
        write(root, "app/m.pyi", second.replace(old, new))
        index_again(t, fresh)
        assert snapshot(t) == clean_index(root, tmp_path)


def test_a_call_added_before_a_list_a_builtin_makes_spares_its_readers(make_repo, tmp_path: Path) -> None:
    module = "def helper():\n    pass\n\n\ndef pick():\n    return 1\n\n\nKINDS = list([helper])\n"
    root = make_repo({"app/__init__.py": "", "app/m.py": module,
                      "app/reader.py": "from app.m import KINDS\n\n\ndef run():\n    KINDS[0]()\n"})
    with Tenure.open(root, discover=False) as t:
        t.index()
        # a call site more in `pick`: the list `list(...)` made keeps its name (`#0` of the module's sites)
        write(root, "app/m.py", module.replace("    return 1\n", "    print(1)\n    return 1\n"))
        assert t.index().files_spared == 1
        assert snapshot(t) == clean_index(root, tmp_path)


def unaskable_questions(blob: bytes) -> bytes:
    """A kept analysis whose questions read as well-formed msgpack, but ask nothing a layer knows,
    each with a filter that every key matches (so any edit asks them again)."""
    fmt, digest, vars_, cells, answers, reads = msgspec.msgpack.decode(zlib.decompress(blob))
    answers = [[msgspec.Raw(msgspec.msgpack.encode(5)), d, b"\xff" * 16] for _, d, _ in answers]
    return zlib.compress(msgspec.msgpack.encode([fmt, digest, vars_, cells, answers, reads]))


@pytest.mark.parametrize("damage", [lambda blob: b"\x78not zlib", unaskable_questions],
                         ids=["not zlib", "questions that cannot be asked"])
def test_a_damaged_kept_analysis_spares_nobody_and_the_update_goes_on(
    make_repo, tmp_path: Path, damage: Callable[[bytes], bytes]
) -> None:
    shapes = SPARING_SHAPES.replace(PICK_BODY, PICK_THROUGH_OTHER)  # (its analysis asks other.py a question)
    root = make_repo({**SPARING, "app/shapes.py": shapes})
    with Tenure.open(root, discover=False) as t:
        t.index()
        for file_id, blob in t.db.rows("SELECT file_id, analysis FROM file_analyses"):
            t.db.execute("UPDATE file_analyses SET analysis = ? WHERE file_id = ?", (damage(blob), file_id))
    forget_analyses()
    with Tenure.open(root, discover=False) as t:
        write(root, "app/shapes.py", shapes.replace("    return Thing\n", "    unused = 1\n    return Thing\n"))
        report = t.index()
        assert (report.files_spared, report.files_verified) == (0, 1)  # factory.py checked instead
        assert snapshot(t) == clean_index(root, tmp_path)


def test_readers_spared_by_a_process_that_died_before_growing_their_reads_are_resolved_again(
    make_repo, tmp_path: Path
) -> None:
    root = make_repo(SPARING)
    with Tenure.open(root, discover=False) as t:
        t.index()
    watcher = Tenure.open(root, discover=False)
    write(root, "app/shapes.py", SPARING_SHAPES.replace(PICK_BODY, PICK_THROUGH_OTHER))
    assert watcher.index(changed_paths={"app/shapes.py"}, defer_bookkeeping=True).files_spared == 1
    watcher.db.close()  # dies: factory.py's reads never grew by other.py's keys
    forget_analyses()
    with Tenure.open(root, discover=False) as t:
        write(root, "app/other.py", "from app.shapes import Square\n\nThing = Square\n")
        t.index()
        assert snapshot(t) == clean_index(root, tmp_path)


def test_a_kept_analysis_older_than_what_its_readers_read_spares_none_of_them(make_repo, tmp_path: Path) -> None:
    through_other = SPARING_SHAPES.replace(PICK_BODY, PICK_THROUGH_OTHER)
    root = make_repo({**SPARING, "app/shapes.py": through_other})
    with Tenure.open(root, discover=False) as t:
        t.index()  # keeps shapes.py's analysis: `default` returns Circle, through other.py
    watcher = Tenure.open(root, discover=False)
    write(root, "app/other.py", "from app.shapes import Square\n\nThing = Square\n")
    watcher.index(defer_bookkeeping=True)  # factory.py now reads Square of shapes.py's analysis...
    watcher.db.close()  # ... and the process dies before keeping that analysis: the store has the old one
    forget_analyses()
    with Tenure.open(root, discover=False) as t:
        # back to Circle, as the kept analysis has it, but what factory.py read was Square
        write(root, "app/shapes.py", SPARING_SHAPES)
        assert t.index().files_spared == 0
        assert snapshot(t) == clean_index(root, tmp_path)


def test_a_new_process_takes_the_analyses_an_earlier_one_kept_once_what_they_read_is_checked(
    make_repo, tmp_path: Path, analysed: list[str]
) -> None:
    root = make_repo(SHAPES)
    with Tenure.open(root, discover=False) as t:
        t.index()  # (serial on so few files: analyses are made here, and kept)

    def index_in_a_new_process(shapes: str) -> IndexReport:
        forget_analyses()
        with Tenure.open(root, discover=False) as t:
            return edit_shapes(t, shapes, analysed)

    def area_callers() -> list[str]:
        with Tenure.open(root, discover=False) as t:
            return [e["dst"] for e in t.export_edges() if e["src"] == "app.use.run" and e["dst"].endswith(".area")]

    # factory.py's kept analysis read shapes.py: asked again, its answers hold
    report = index_in_a_new_process(default_rewritten())
    assert (report.files_resolved, report.files_verified) == (1, 2)
    assert "app.factory" not in analysed
    assert area_callers() == ["app.shapes.Circle.area"]
    # ... and now they do not: factory.py is analysed again, use.py resolved again
    report = index_in_a_new_process(SHAPES["app/shapes.py"].replace("return Circle", "return Square"))
    assert "app.factory" in analysed
    assert area_callers() == ["app.shapes.Square.area"]
    with Tenure.open(root, discover=False) as t:
        assert snapshot(t) == clean_index(root, tmp_path)


def test_a_check_that_reads_what_an_earlier_processs_check_recorded_records_nothing_again(
    make_repo, tmp_path: Path, monkeypatch
) -> None:
    root = make_repo(SHAPES)
    with Tenure.open(root, discover=False) as t:
        t.index()
    offered: list[int] = []
    spy(monkeypatch, StructuralStore, "keep_verified", lambda self, verified, digests=None: offered.append(
        sum(len(keys) + len(missing) for _, keys, missing in verified.values())))
    for n in range(3):  # each in a process of its own: an unrelated function added to shapes.py
        (root / "app/shapes.py").write_text(default_rewritten(n + 1))
        forget_analyses()
        with Tenure.open(root, discover=False) as t:
            assert t.index().files_verified == 2
    assert offered[0] > 0 and offered[1:] == [0, 0]
    with Tenure.open(root, discover=False) as t:
        assert snapshot(t) == clean_index(root, tmp_path)


def test_analyses_made_in_worker_processes_are_kept_for_the_next_process(
    make_repo, monkeypatch, analysed: list[str]
) -> None:
    root = make_repo(SHAPES)
    monkeypatch.setattr(workers, "PARALLEL_THRESHOLD", 1)  # a full index in worker processes
    with Tenure.open(root, discover=False) as t:
        t.index()
        assert t.structural.load_analysis("app/factory.py") is not None
    monkeypatch.setattr(workers, "PARALLEL_THRESHOLD", 10_000)
    analysed.clear()
    (root / "app/shapes.py").write_text(default_rewritten())
    forget_analyses()
    with Tenure.open(root, discover=False) as t:
        assert t.index().files_verified == 2
    assert "app.factory" not in analysed


class _WorkersInThisProcess:
    """The pool `resolve_all` forks, played here: each batch runs as a worker of its own would,
    with no analysis it made itself (a worker has only what the others shared)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        pass

    def __enter__(self) -> _WorkersInThisProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def map(self, work: Callable, batches: list) -> Iterator:
        for batch in batches:
            forget_analyses()
            yield work(batch)


def test_a_module_one_worker_analysed_is_read_not_analysed_again_by_the_others(
    make_repo, monkeypatch, analysed: list[str], tmp_path: Path
) -> None:
    """Twenty files read `app.factory`'s analysis: two batches of 16, as two workers, one analysis."""
    users = {f"app/use{n}.py": SHAPES["app/use.py"].replace("def run", f"def run{n}") for n in range(20)}
    root = make_repo({**SHAPES, **users})
    monkeypatch.setattr(workers, "PARALLEL_THRESHOLD", 1)
    monkeypatch.setattr(workers, "fork_context", object)  # (`resolve_all` asks only that there is one)
    monkeypatch.setattr(workers, "process_pool", _WorkersInThisProcess)
    forget_analyses()
    with Tenure.open(root, discover=False) as t:
        t.index()
        assert analysed.count("app.factory") == 1
        got = snapshot(t)
    monkeypatch.setattr(workers, "PARALLEL_THRESHOLD", 10_000)
    assert got == clean_index(root, tmp_path)


def test_a_question_another_file_asked_is_answered_as_computing_it_would(make_repo, monkeypatch) -> None:
    """`resolve` takes a question's answer, log entry and reads from the file that asked it first in
    the same index state (`resolve_answers.ANSWERED`): edges, stored answers and reads come out alike."""
    users = {f"app/use{n}.py": SHAPES["app/use.py"].replace("def run", f"def run{n}")
             + "\n\ndef guess(shape):\n    return shape.area()\n" for n in range(3)}  # (`named`: every area)

    def resolved(name: str) -> tuple:
        root = make_repo({**SHAPES, **users}, name)
        forget_analyses()
        with Tenure.open(root, discover=False) as t:
            t.index()
            answers = t.db.rows("SELECT f.path, a.answers FROM resolution_answers a JOIN files f ON f.id = a.file_id")
            reads = t.db.rows("SELECT f.path, d.key_id FROM resolution_deps d JOIN files f ON f.id = d.file_id")
            return snapshot(t), sorted(answers), sorted(reads)

    shared = resolved("shared")
    assert any(len(asked) > 1 for asked in resolve_answers.ANSWERED.values())
    shared_or_not = resolve_answers.for_state  # (every question computed: `ANSWERED` finds nothing)
    monkeypatch.setattr(resolve_answers, "for_state",
                        lambda tables, view: {} if tables is resolve_answers.ANSWERED else shared_or_not(tables, view))
    assert resolved("computed") == shared


def test_kept_analyses_of_another_format_or_other_facts_are_not_used(make_repo) -> None:
    root = make_repo(SHAPES)
    with Tenure.open(root, discover=False) as t:
        t.index()
        blob = t.structural.load_analysis("app/factory.py")
        assert blob is not None
        facts = t.structural.load_facts("app/factory.py")
        other = t.structural.load_facts("app/use.py")
        view = ProjectView(ProjectIndex(load_facts=t.structural.load_facts, load_analysis=t.structural.load_analysis))
        assert kept_analysis(facts, view) is not None
        t.structural.save_analyses({"app/use.py": blob})  # made of factory.py's facts, not use.py's
        assert kept_analysis(other, view) is None
        another_format = (99, *msgspec.msgpack.decode(zlib.decompress(blob))[1:])
        t.structural.save_analyses({"app/factory.py": zlib.compress(msgspec.msgpack.encode(another_format))})
        assert kept_analysis(facts, view) is None
        for garbage in (b"\x93\x09garbage", zlib.compress(b"\x93\x09garbage")):
            t.structural.save_analyses({"app/factory.py": garbage})
            assert kept_analysis(facts, view) is None


def test_a_module_that_fails_to_warm_is_reported_and_warming_goes_on(make_repo, tmp_path: Path, monkeypatch) -> None:
    root = make_repo(SHAPES)

    def failing(module: str, view: object) -> None:
        if module == "app.factory":
            raise RuntimeError("analysis failed")
        python.PythonResolver.warm(module, view)

    monkeypatch.setattr(python.resolver, "warm", failing)
    with Tenure.open(root, discover=False) as t:
        t.index()
        while not t.warm(0.05):
            pass
        assert t.warming_failed == [("app.factory", "RuntimeError: analysis failed")]
        (root / "app/shapes.py").write_text(SHAPES["app/shapes.py"] + "\n\ndef unrelated():\n    return 0\n")
        t.index(changed_paths={"app/shapes.py"})
        assert snapshot(t) == clean_index(root, tmp_path)


def test_dependants_checked_by_a_process_that_died_before_its_bookkeeping_are_resolved_again(
    make_repo, tmp_path: Path
) -> None:
    root = make_repo(SHAPES)
    shapes = SHAPES["app/shapes.py"]
    t = Tenure.open(root, discover=False)
    t.index()
    (root / "app/shapes.py").write_text(default_rewritten())
    report = t.index(changed_paths={"app/shapes.py"}, defer_bookkeeping=True)
    assert (report.files_resolved, report.files_verified) == (1, 2)
    t.db.close()  # dies: what checking factory.py and use.py read was never recorded
    with Tenure.open(root, discover=False) as t:
        (root / "app/shapes.py").write_text(default_rewritten(2))
        report = t.index()
        assert (report.files_resolved, report.files_verified) == (3, 0)  # shapes.py, and the two never recorded
        assert snapshot(t) == clean_index(root, tmp_path)
        (root / "app/shapes.py").write_text(shapes.replace("return Circle", "return Square"))
        t.index()
        assert snapshot(t) == clean_index(root, tmp_path)


def test_deferred_bookkeeping_is_dropped_when_another_process_indexed_first(make_repo, tmp_path: Path) -> None:
    root = make_repo(SHAPES)
    shapes = SHAPES["app/shapes.py"]
    with Tenure.open(root, discover=False) as watcher:
        watcher.index()
        (root / "app/shapes.py").write_text(default_rewritten())
        watcher.index(changed_paths={"app/shapes.py"}, defer_bookkeeping=True)
        with Tenure.open(root, discover=False) as other:  # e.g. `tenure index` from a shell
            (root / "app/factory.py").write_text(SHAPES["app/factory.py"] + "\n# edited\n")
            report = other.index()
            # factory.py (its comment alone would touch no reader), and use.py, whose check the watcher
            # has not recorded yet: resolved again here
            assert (report.files_resolved, report.files_verified) == (2, 0)
        watcher.flush()  # too late: its checks are stale, and dropped
        (root / "app/shapes.py").write_text(shapes.replace("return Circle", "return Square"))
        watcher.index(changed_paths={"app/shapes.py"}, defer_bookkeeping=True)
        watcher.flush()
        assert snapshot(watcher) == clean_index(root, tmp_path)


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


def test_watch_mode_update_with_changed_paths_equals_full_walk(make_repo, tmp_path: Path) -> None:
    root = make_repo(BASE)
    with Tenure.open(root, discover=False) as t:
        t.index()
        (root / "app/util.py").write_text("from app.models import tax\n\ndef helper():\n    return tax(1)\n")
        (root / "app/models.py").unlink()
        report = t.index(changed_paths={"app/util.py", "app/models.py"})
        assert report.files_parsed == 1 and report.files_removed == 1
        cleans = tmp_path / "cleans"
        cleans.mkdir()
        assert snapshot(t) == clean_index(root, cleans)


def test_index_reports_symbols_whose_code_drifted(make_repo) -> None:
    root = make_repo({"m.py": "def f():\n    return 1\n\n\ndef g():\n    return 2\n", "n.py": "def h():\n    pass\n"})
    with Tenure.open(root, discover=False) as t:
        assert t.index().drifted == []
        (root / "m.py").write_text("def f():\n    return 10\n\n\ndef g():\n    return 2\n\n\ndef new():\n    pass\n")
        (root / "n.py").unlink()
        # f's body changed and h went away; g is untouched and `new` is new, not drifted
        assert t.index().drifted == ["m", "m.f", "n", "n.h"]


def test_bulk_reindex_rebuilds_its_indexes_and_the_same_graph(make_repo, tmp_path: Path, monkeypatch) -> None:
    root = make_repo(BASE)
    cleans = tmp_path / "cleans"
    cleans.mkdir()
    expected = clean_index(root, cleans)
    monkeypatch.setattr(indexer, "BULK_THRESHOLD", 1)  # every re-resolution takes the bulk path
    with Tenure.open(root, discover=False) as t:
        before = {r["name"] for r in t.db.query("SELECT name FROM sqlite_master WHERE type = 'index'")}
        t.index()
        t.index()  # nothing changed: nothing to re-resolve
        assert snapshot(t) == expected
        after = {r["name"] for r in t.db.query("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert after == before and "edges_dst" in after


def test_a_warm_indexer_notices_another_process_indexed_in_between(make_repo, tmp_path: Path) -> None:
    root = make_repo(BASE)
    cleans = tmp_path / "cleans"
    cleans.mkdir()
    with Tenure.open(root, discover=False) as first, Tenure.open(root, discover=False) as second:
        first.index()  # `first` keeps its symbol index warm from here on
        (root / "app/util.py").write_text("from app.models import tax\n\n\ndef helper():\n    return tax(1)\n")
        second.index()  # another process brings the database forward
        (root / "app/models.py").write_text("def tax(x):\n    return x\n\n\ndef levy():\n    return 1\n")
        first.index()
        assert snapshot(first) == clean_index(root, cleans)


def test_an_index_another_process_indexed_past_is_not_warmed_until_a_run_rebuilds_it(make_repo) -> None:
    root = make_repo(SHAPES)
    with Tenure.open(root, discover=False) as first, Tenure.open(root, discover=False) as second:
        first.index()
        (root / "app/shapes.py").write_text(SHAPES["app/shapes.py"] + "\n\ndef levy():\n    return 0\n")
        second.index()  # `first` holds shapes.py's symbols as its own run stored them: no `levy`
        assert first.warm(10.0)  # nothing to warm in an index that is out of date
        assert first._indexer._index.lazy is not None  # not completed from the symbols it held
        (root / "app/use.py").write_text(SHAPES["app/use.py"] + "\n\ndef again():\n    return run()\n")
        first.index(changed_paths={"app/use.py"})  # a new index, of the store as it is now
        assert not first.warm(0.0)  # warmed again, from the start
        while not first.warm(1.0):
            pass
        index = first._indexer._index
        assert index.lazy is None and [s.fqn for s in index.named("levy")] == ["app.shapes.levy"]


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


def test_an_index_written_by_another_build_is_rebuilt_without_reading_its_facts(make_repo, tmp_path: Path) -> None:
    root = make_repo(BASE)
    with Tenure.open(root, discover=False) as t:
        t.index()
        t.db.execute("UPDATE meta SET value = 'another build' WHERE key = 'extractor_version'")
        t.db.execute("UPDATE file_facts SET facts = X'c1c1c1'")  # not this build's shape
        t.db.execute("UPDATE resolution_answers SET answers = X'c1c1c1'")
    with Tenure.open(root, discover=False) as t:
        report = t.index()
        assert report.files_parsed == report.files_seen
        assert snapshot(t) == clean_index(root, tmp_path)


def test_an_index_tells_what_changed_after_a_state_and_nothing_before_it() -> None:
    index = ProjectIndex(load_facts=lambda path: None)
    index.add_module("app.a", "app/a.py")
    index.add(SymbolInfo("app.a.f", "f", "function", "python", "app/a.py", 1, "app.a", "app.a"))
    index.add_module("app.b", "app/b.py")
    first = index.epoch
    index.remove_file("app/a.py")  # a's new state: g instead of f
    index.add_module("app.a", "app/a.py")
    index.add(SymbolInfo("app.a.g", "g", "function", "python", "app/a.py", 1, "app.a", "app.a"))
    second = index.epoch
    index.remove_file("app/b.py")  # b goes
    # (a's file went and came back: its module's existence is logged too, which only asks again more)
    assert set(index.changed_since(first)) == {("facts", "app.a"), ("items", "app.a"), ("exists", "app.a"),
                                              ("named", "f"), ("named", "g"),
                                              ("facts", "app.b"), ("items", "app.b"), ("exists", "app.b")}
    assert set(index.changed_since(second)) == {("facts", "app.b"), ("items", "app.b"), ("exists", "app.b")}
    assert index.changed_since(index.epoch) == []


MUTABLE = {  # (shapes.py imports itself, and use.py imports shapes.py and the other way round)
    "lib/__init__.py": "",
    "lib/shapes.py": (
        "import os\nimport lib.shapes as me\nimport lib.use as U\n\n\nclass Shape:\n    kind = 'shape'\n\n"
        "    def area(self):\n        return 0\n\n"
        "    def scaled(self, k):\n        self.k = k\n        return self\n\n\n"
        "class Square(Shape):\n    def area(self):\n        return helper(self)\n\n\n"
        "def helper(s):\n    return s\n\n\ndef make(kind):\n    cls = Square if kind else Shape\n    return cls\n\n\n"
        "DEFAULT = make(1)\nALIAS = Square\nOTHER = me.ALIAS\nLATE = U.Circle\n"
    ),
    "lib/use.py": (
        "from lib.shapes import ALIAS, DEFAULT, OTHER, Shape, make, helper\nimport lib.shapes as shapes\n\n\n"
        "def run():\n    s = make(0)()\n    s.scaled(2).area()\n    ALIAS().area()\n    DEFAULT().area()\n"
        "    OTHER().area()\n    shapes.LATE().go()\n    helper(s).area()\n    return shapes.Square().k\n\n\n"
        "class Circle(Shape):\n    def go(self):\n        return self.area(), self.kind\n"
    ),
}
_NAMES = ["Shape", "Square", "helper", "make", "area", "scaled", "self", "cls", "os", "ALIAS", "DEFAULT", "None",
          "me", "U", "OTHER", "LATE", "shapes", "Circle"]


def _mutate(text: str, rng: random.Random) -> str:
    """One random edit of a module: a line dropped, doubled or swapped with the next, a name swapped
    for another, a return, a method or a first function inserted, a module name rebound in a function."""
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    op = rng.randrange(7)
    if op == 0:
        del lines[i]
    elif op == 1:
        lines.insert(i, lines[i])
    elif op == 2 and i + 1 < len(lines):
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
    elif op == 3:
        lines[i] = re.sub(rf"\b{rng.choice(_NAMES)}\b", rng.choice(_NAMES), lines[i], count=1)
    elif op == 4:
        returns = [j for j, line in enumerate(lines) if line.lstrip().startswith("return ")]
        if returns:
            j = rng.choice(returns)
            lines.insert(j, lines[j][: len(lines[j]) - len(lines[j].lstrip())] + f"return {rng.choice(_NAMES)}")
    elif op == 5:
        methods = [j for j, line in enumerate(lines) if line.startswith("    def ")]
        if methods:
            method = f"    def {rng.choice(_NAMES)}(self):\n        return {rng.choice(_NAMES)}\n"
            lines.insert(rng.choice(methods), method)
    else:
        name = rng.choice(_NAMES[:4] + _NAMES[9:11])
        lines.insert(0, f"def first_{i}():\n    global {name}\n    {name} = {rng.choice(_NAMES)}\n\n")
    return "\n".join(lines)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_edits_leave_the_graph_a_clean_index_would_build(make_repo, tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    root = make_repo(MUTABLE)
    with Tenure.open(root, discover=False) as t:
        t.index()
        for step in range(12):
            path = rng.choice(["lib/shapes.py", "lib/shapes.py", "lib/use.py"])
            (root / path).write_text(_mutate((root / path).read_text(), rng))
            if step % 3 == 2:  # now and then in a process of its own
                forget_analyses()
                with Tenure.open(root, discover=False) as other:
                    other.index()
            else:
                t.index(changed_paths={path})
            assert snapshot(t) == clean_index(root, tmp_path), f"step {step}: {path}\n{(root / path).read_text()}"


# A walk through another module's bindings may come back into it (a module importing itself, or
# two importing each other): what one binding finds must not hang on what another one visited first,
# else an edit that only splits a shared variable in two would change answers and no item.
SELF_IMPORT = ("import a as A\ndef q(): pass\nclass C:\n    from a import w as m\nw = A.z\nz = A.q\n",
               "import a as A\nimport a as B\ndef q(): pass\nclass C:\n    from a import w as m\nw = A.z\nz = B.q\n")
CYCLE = ("import b as B\nclass C(B.K):\n    pass\nK2 = B.Real\n",
         "import b as B\nimport b as B2\nclass C(B.K):\n    pass\nK2 = B2.Real\n")


@pytest.mark.parametrize(("others", "versions"), [
    ({"e.py": "from a import C\ndef main():\n    C.m()\n"}, SELF_IMPORT),
    ({"b.py": "from a import K2 as K\nclass Real:\n    def run(self):\n        pass\n",
      "e.py": "from a import C\ndef main():\n    C().run()\n"}, CYCLE),
], ids=["a module importing itself", "two modules importing each other"])
@pytest.mark.parametrize("fresh", [False, True], ids=["warm", "fresh process"])
def test_a_walk_that_comes_back_into_a_module_finds_what_a_clean_index_finds(
    make_repo, tmp_path: Path, others: dict[str, str], versions: tuple[str, str], fresh: bool
) -> None:
    for i, (first, second) in enumerate((versions, versions[::-1])):
        root = make_repo({**others, "a.py": first}, name=f"repo-{i}")
        cleans = tmp_path / f"cleans-{i}"
        cleans.mkdir()
        with Tenure.open(root, discover=False) as t:
            replay(t, root, [("a.py", second)], cleans, must_change_edges=True, fresh=fresh)


def test_a_file_skipped_for_a_while_leaves_nothing_behind_and_comes_back_whole(make_repo, tmp_path: Path) -> None:
    user = "from b import helper\n\ndef main():\n    helper()\n"
    root = make_repo({"a.py": user, "b.py": "def helper():\n    pass\n"})
    with Tenure.open(root, discover=False) as t:
        replay(t, root, [
            ("a.py", "\0" + user),  # binary now: skipped, its symbols and edges gone
            ("b.py", "def other():\n    pass\n"),  # what it called goes meanwhile
            ("a.py", "# back\n" + user),  # back, shaped as before: resolved, not its old edges moved
        ], tmp_path)


def test_the_graph_does_not_hang_on_the_string_hash_seed(tmp_path: Path) -> None:
    # a name reached through two owners, one of them at the end of a chain of re-exports as long as a
    # walk goes: which owner is followed first must not be left to set order (string hashing)
    files = {"main.py": "from m1 import y\n\ndef main():\n    y()\n", "m1.py": "import k\ny = k.y\n",
             "k.py": "import p\nimport r\nx = p if cond else r\ny = x.f\n", "p.py": "import c1\nf = c1.f\n",
             "r.py": "import t\nf = t.f\n", "t.py": "import u1\nf = u1.g\n"}
    files |= {f"c{i}.py": f"import c{i + 1}\nf = c{i + 1}.f\n" for i in range(1, 9)} | {"c9.py": "import t\nf = t.f\n"}
    files |= {f"u{i}.py": f"import u{i + 1}\ng = u{i + 1}.g\n" for i in range(1, 5)} | {"u5.py": "def g():\n    pass\n"}
    script = ("import sys\nfrom pathlib import Path\nfrom tenure import Tenure\n"
              "t = Tenure.open(Path(sys.argv[1]), discover=False)\nt.index()\n"
              "print(sorted((e['src'], e['dst'], e['tier']) for e in t.export_edges()))\n")
    graphs = set()
    for seed in ("0", "1", "2"):
        root = tmp_path / seed
        for rel, text in files.items():
            write(root, rel, text)
        env = {**os.environ, "PYTHONHASHSEED": seed, "TENURE_ENRICH": "off"}
        graphs.add(subprocess.run([sys.executable, "-c", script, str(root)], env=env, check=True,
                                  capture_output=True, text=True).stdout)
    assert len(graphs) == 1


def test_which_of_two_declarations_of_one_name_a_reader_takes_does_not_hang_on_which_was_edited(
    make_repo, tmp_path: Path
) -> None:
    base = "package com.acme.core;\npublic class Base { protected Ledger store; }\n"
    sub = ("package com.acme.pay;\nimport com.acme.core.Base;\n"
           "public class Sub extends Base { void run() { store.post(); } }\n")
    root = make_repo({
        "com/acme/core/Ledger.java": "package com.acme.core;\npublic class Ledger { public void post() {} }\n",
        "com/acme/core/Journal.java": "package com.acme.core;\npublic class Journal { public void post() {} }\n",
        "com/acme/core/A_Base.java": base,
        "com/acme/core/B_Base.java": base.replace("Ledger", "Journal"),  # the same class, declared again
        "com/acme/pay/Sub.java": sub,
    })
    with Tenure.open(root, discover=False) as t:
        replay(t, root, [
            ("com/acme/core/A_Base.java", "// moved\n" + base),  # its symbols get new ids
            ("com/acme/pay/Sub.java", sub.replace("store.post();", "store.post(); int q = 1;")),
            ("com/acme/core/A_Base.java", "// moved\n" + base.replace("Ledger store;", "Ledger store; int z;")),
        ], tmp_path)
