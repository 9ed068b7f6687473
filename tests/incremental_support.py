"""What the incremental tests share: a graph's snapshot and a clean index to compare it with, edits
applied and replayed, spies, and the small projects most of them edit (BASE and its EDITS, SHAPES)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tenure import Tenure
from tenure.structural.report import IndexReport
from tenure.structural.resolve import python
from tenure.structural.resolve.python.analysed import Analysed


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


SHAPES = {
    "app/__init__.py": "",
    "app/shapes.py": "class Circle:\n    def area(self):\n        return 1\n\n\n"
                     "class Square:\n    def area(self):\n        return 2\n\n\ndef default():\n    return Circle\n",
    # make() returns a call: use.py needs factory analysed, and that analysis reads shapes.py
    "app/factory.py": "from app.shapes import default\n\n\ndef make():\n    cls = default()\n    return cls()\n",
    "app/use.py": "from app.factory import make\n\n\ndef run():\n    return make().area()\n",
}


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
