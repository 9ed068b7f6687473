"""After any series of edits an incremental update leaves the graph a clean index of the tree would
build: edits of every kind, watched or walked, in one process or a process per edit, random ones, and
edits whose outcome could hang on the order things were visited in."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tenure import Tenure
from tenure.structural import indexer
from tests.incremental_support import BASE, EDITS, clean_index, forget_analyses, replay, snapshot, write


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
        # every index dropped for the bulk path is back (the first index also made the knowledge store's)
        assert before <= after and "edges_dst" in after


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
