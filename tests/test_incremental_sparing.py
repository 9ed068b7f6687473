"""Readers of a module's whole analysis are spared (not even checked) only while the analysis gives
them what it gave; an analysis kept damaged, or older than what they read, spares nobody."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest

from tenure import Tenure
from tests.incremental_support import (
    ONE_PROCESS_OR_A_PROCESS_PER_EDIT,
    clean_index,
    forget_analyses,
    index_again,
    snapshot,
    write,
)

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
