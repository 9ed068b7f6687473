"""Python's own extractor and points-to resolver: what the graph fixtures do not show.

The extractor replaces the query pass for Python, so its definitions and imports must be the query
pass's; the resolver reads other modules (and caches what it learnt of them), so an incremental
update must still equal a clean re-index when what it read changes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tenure import Tenure
from tenure.structural.extract import extract as query_extract
from tenure.structural.extractors.python import extract as python_extract
from tenure.structural.languages import language_table
from tenure.structural.resolve.python.values import CONST, NONE, constant
from tests.conftest import FIXTURES
from tests.incremental_support import clean_index, snapshot

PYTHON = language_table()["python"]
SAMPLES = sorted([*FIXTURES.glob("graph/python_*/**/*.py"), *FIXTURES.glob("languages/python/*.py")])


@pytest.mark.parametrize("path", SAMPLES, ids=[p.relative_to(FIXTURES).as_posix() for p in SAMPLES])
def test_definitions_and_imports_are_the_query_pass_s(path: Path) -> None:
    tree = PYTHON.parser().parse(path.read_bytes())
    mine = python_extract(PYTHON, tree, path.name)
    theirs = query_extract(PYTHON, tree, path.name)

    def definitions(facts):  # the query pass has no lambdas, and records no decorators
        return [(d.qualname, d.kind, d.start_line, d.end_line, d.signature, d.fingerprint, d.bases)
                for d in facts.definitions if d.kind != "lambda"]

    assert sorted(definitions(mine)) == sorted(definitions(theirs))
    assert sorted(mine.imports, key=repr) == sorted(theirs.imports, key=repr)
    assert mine.error_nodes == theirs.error_nodes


def test_lambdas_are_numbered_per_scope_and_dynamic_sites_recorded() -> None:
    source = b"f = lambda: 1\n\ndef g(name):\n    h = lambda x: x\n    return getattr(h, name), lambda: 2\n"
    facts = python_extract(PYTHON, PYTHON.parser().parse(source), "m.py")
    assert [d.qualname for d in facts.definitions if d.kind == "lambda"] == ["<lambda1>", "g.<lambda1>", "g.<lambda2>"]
    assert [(r.kind, r.name, r.scope, r.line) for r in facts.references] == [("dynamic", "getattr", "g", 5)]


def test_broken_code_still_resolves(make_repo) -> None:
    root = make_repo({
        "lib.py": "def ok():\n    return 1\n",
        "main.py": "from lib import ok\n\ndef f(:\n    ok()\n\nok(\nclass C(\n",
    })
    with Tenure.open(root, discover=False) as t:
        report = t.index()
        assert not [p for p, _ in report.skipped if p.endswith(".py")]
        assert ("main", "lib.ok") in {(e["src"], e["dst"]) for e in t.export_edges()}


ODD = """from . import *
a = b = lambda q=lambda: 1: q()
[d, *e], f = [1, 2, 3], 4
(g) = 5
print >>sys.stderr, "py2"
async def co(it):
    async with ctx() as (m, n):
        async for i in it:
            await i()
    return [j async for j in it]
def gen():
    y = yield from gen()
    def inner():
        nonlocal y
        y += 1
    return inner
match command.split():
    case [action, *others]:
        action()
    case Point(x=0, y=yy) as pt if yy:
        pt()
class K(Base, metaclass=Meta):
    @property
    def p(self): return self
    @p.setter
    def p(self, value): self._p = value
    def __call__(self): return self.p
K()()
"""


def test_odd_constructs_index_and_bind_what_they_bind(make_repo) -> None:
    root = make_repo({"odd.py": ODD})
    with Tenure.open(root, discover=False) as t:
        assert not t.index().skipped
        calls = {(e["line"], e["dst"]) for e in t.export_edges() if e["relation"] == "calls"}
    assert (28, "odd.K.__call__") in calls
    # names a match pattern captures, or a star import from above the top level, are no guesses: their
    # calls are kept with no target
    assert {dst for line, dst in calls if line in (7, 17, 19, 21)} == {None}
    assert not [dst for _, dst in calls if str(dst).startswith(".")]


def test_a_call_of_an_expression_that_is_no_name_is_resolved_with_the_rest_of_its_module(make_repo) -> None:
    # django's gdal: `buf = (c_ubyte * sz)()`, whose callee encodes as nothing, made the resolver give
    # the file up (and every module whose analysis read it)
    root = make_repo({"lib.py": "def size():\n    return 1\n\n\ndef make(n):\n    buf = (int * n)()\n"
                                "    return size(), buf\n"})
    with Tenure.open(root, discover=False) as t:
        assert t.index().unresolved == []
        calls = {(e["line"], e["dst"]) for e in t.export_edges() if e["relation"] == "calls"}
    assert (7, "lib.size") in calls


BASE = {
    "zoo/__init__.py": "from .animals import *\n",
    "zoo/animals.py": (
        "class Animal:\n"
        "    def __init__(self):\n        self.keeper = Keeper()\n"
        "    def describe(self):\n        return self.sound()\n\n\n"
        "class Keeper:\n    def feed(self):\n        return 1\n\n\n"
        "def make():\n    return Animal()\n\n\n"
        "def trace(fn):\n    def wrapper():\n        return fn()\n    return wrapper\n\n\n"
        "def kind_of():\n    return Keeper\n"
    ),
    "zoo/dogs.py": "from zoo import Animal\n\n\nclass Dog(Animal):\n    def sound(self):\n        return 'woof'\n",
    # an analysed module (its `kind` is a call's result) that reads another module
    "zoo/factory.py": "from zoo.animals import kind_of\n\nkind = kind_of()\n",
    "app.py": (
        "from zoo import make, trace\n\n\n"
        "@trace\ndef job():\n    return 1\n\n\n"
        "def run():\n    pet = make()\n    pet.describe()\n    pet.keeper.feed()\n    return job()\n\n\n"
        "def build():\n    from zoo.factory import kind\n    return kind().feed()\n"
    ),
}

EDITS = [
    # what an imported function returns changes
    ("zoo/animals.py", BASE["zoo/animals.py"].replace("return Animal()", "return Keeper()")),
    # a field's class changes in the module that assigns it
    ("zoo/animals.py", BASE["zoo/animals.py"].replace("self.keeper = Keeper()", "self.keeper = Animal()")),
    # a module this file does not import changes what an imported module computes
    ("zoo/animals.py", BASE["zoo/animals.py"].replace("return Keeper\n", "return Animal\n")),
    # the decorator stops wrapping
    ("zoo/animals.py", BASE["zoo/animals.py"].replace("return wrapper", "return fn")),
    # a new subclass defines the hook the base class calls
    ("zoo/cats.py", "from zoo.animals import Animal\n\n\nclass Cat(Animal):\n"
                    "    def sound(self):\n        return 'meow'\n"),
    # the package stops re-exporting
    ("zoo/__init__.py", "from .animals import make\n"),
    ("zoo/__init__.py", BASE["zoo/__init__.py"]),
    # the subclass goes away
    ("zoo/dogs.py", None),
]


def test_incremental_equals_clean_after_edits_to_what_others_read(make_repo, tmp_path: Path) -> None:
    root = make_repo(BASE)
    cleans = tmp_path / "cleans"
    cleans.mkdir()
    with Tenure.open(root, discover=False) as t:
        t.index()
        assert snapshot(t) == clean_index(root, cleans)
        for path, content in EDITS:
            if content is None:
                (root / path).unlink()
            else:
                (root / path).write_text(content)
            t.index()
            assert snapshot(t) == clean_index(root, cleans), f"after editing {path}"


BUDGET_SCRIPT = """
import json, sys
from pathlib import Path
from tenure import Tenure
from tenure.structural import resolve
from tenure.structural.resolve.python import analysis
analysis.EVALUATIONS_PER_STATEMENT = 0  # the fixpoint's budget: 1,000 evaluations, fewer than the file needs
before = resolve.order_dependence()
with Tenure.open(Path(sys.argv[1]), discover=False) as t:
    t.index()
    edges = sorted(json.dumps(e, sort_keys=True) for e in t.export_edges())
print(json.dumps([resolve.order_dependence() - before, edges]))
"""


def _budget_spender() -> str:
    """Six classes whose `m` calls thirty methods of its argument, and a call of `m` on all six at
    the end, behind padding: the budget runs out while those bodies wait in the worklist."""
    lines: list[str] = []
    for i in range(6):
        lines += [f"class C{i}:", "    def m(self, a):", *[f"        a.k{j}()" for j in range(30)],
                  *[f"    def k{j}(self):\n        return None" for j in range(30)]]
    lines += ["def make(n):", *[f"    if n == {i}:\n        return C{i}()" for i in range(6)], "    return None",
              "def run(n):", *[f"    p{j} = {j}" for j in range(300)], "    x = make(n)", "    x.m(x)"]
    return "\n".join(lines) + "\n"


def test_a_fixpoint_out_of_budget_finds_the_same_edges_under_every_hash_seed(tmp_path: Path) -> None:
    # Which statements a spent budget leaves undone must follow the source, not the order a set's
    # values are met in (string hashing; None hashed by its address in Python 3.11)
    runs = []
    for seed in ("1", "2"):
        root = tmp_path / seed
        root.mkdir()
        (root / "spender.py").write_text(_budget_spender())
        env = {**os.environ, "PYTHONHASHSEED": seed, "TENURE_ENRICH": "off"}
        out = subprocess.run([sys.executable, "-c", BUDGET_SCRIPT, str(root)], env=env, check=True,
                             capture_output=True, text=True).stdout
        runs.append(json.loads(out))
    (spent, edges), other = runs
    assert spent > 0 and edges  # the budget did run out
    assert other == [spent, edges]


UNPACKED_SCRIPT = """
import json, sys
from pathlib import Path
from tenure import Tenure
with Tenure.open(Path(sys.argv[1]), discover=False) as t:
    t.index()
    print(json.dumps(sorted(e["dst"] for e in t.export_edges() if e["path"] == "inputs.py" and e["line"] == 5)))
"""


def _mock_inputs() -> str:
    """Django's `mock_inputs` (tests/auth_tests/test_management.py): twelve dicts of three values
    (36, past the cap of a value set) reach `inputs`; four hold a function, which `val()` calls."""
    lines = ["def mock_inputs(inputs):", "    def run(prompt):", "        for key, val in inputs.items():",
             "            if callable(val):", "                return val()", "            return val",
             "    return run"]
    lines += [f"def answer{i}():\n    return {i}" for i in range(4)]
    lines += [f"mock_inputs({{'a': [{i}], 'b': [{i}, 1], 'c': {f'answer{i}' if i < 4 else f'[{i}, 2]'}}})"
              for i in range(12)]
    return "\n".join(lines) + "\n"


def test_a_for_loop_unpacking_more_values_than_a_set_holds_finds_the_same_edges_under_every_hash_seed(
        tmp_path: Path) -> None:
    # `for key, val in inputs.items()` gave `val` the values of one dict after another, in the order
    # the pairs were met (string hashing), until the set was full: 2, 3 or 4 of the four functions
    runs = []
    for seed in ("1", "3", "4"):
        root = tmp_path / seed
        root.mkdir()
        (root / "inputs.py").write_text(_mock_inputs())
        env = {**os.environ, "PYTHONHASHSEED": seed, "TENURE_ENRICH": "off"}
        runs.append(json.loads(subprocess.run([sys.executable, "-c", UNPACKED_SCRIPT, str(root)], env=env, check=True,
                                              capture_output=True, text=True).stdout))
    assert runs == [[f"inputs.answer{i}" for i in range(4)]] * 3


def test_none_is_a_constant_that_hashes_by_value() -> None:
    assert constant(None) == NONE and None not in NONE
    assert hash(constant(None)) == hash((CONST, "", ()))
