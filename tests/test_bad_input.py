"""Bad input never stops an index: each bad file is skipped or kept partially, with a reason."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tenure import Tenure


def reasons(report) -> dict[str, str]:
    return dict(report.skipped)


def test_binary_file_with_a_source_extension_is_skipped(make_repo) -> None:
    root = make_repo({"ok.py": "def f():\n    pass\n", "blob.py": b"\x00\x01\x02binary\x00"})
    with Tenure.open(root, discover=False) as t:
        report = t.index()
        assert reasons(report)["blob.py"] == "binary content"
        assert t.find_symbol("ok.f").unique is not None


def test_utf16_text_is_skipped_with_a_reason_that_says_so(make_repo) -> None:
    root = make_repo({"ok.py": "def f():\n    pass\n", "wide.py": "def g():\n    pass\n".encode("utf-16")})
    with Tenure.open(root, discover=False) as t:
        report = t.index()
        assert reasons(report)["wide.py"] == "UTF-16 text (not read: save it as UTF-8 to index it)"


def test_invalid_utf8_is_parsed_and_flagged(make_repo) -> None:
    root = make_repo({"latin.py": "# caf\xe9\ndef f():\n    g()\n\n\ndef g():\n    pass\n".encode("latin-1")})
    with Tenure.open(root, discover=False) as t:
        report = t.index()
        assert any("invalid UTF-8" in why for _, why in report.partial)
        assert t.find_symbol("latin.g").unique is not None
        assert any(e["dst"] == "latin.g" for e in t.export_edges())



@pytest.mark.parametrize("found_by", ["a walk of the tree", "a watcher told the path"])
def test_a_file_name_that_is_not_utf8_is_skipped_with_its_bytes_shown(make_repo, found_by: str) -> None:
    root = make_repo({"ok.py": "def f():\n    pass\n"})
    with open(os.path.join(os.fsencode(root), b"caf\xe9.py"), "wb") as f:  # Latin-1 bytes: a name, not text
        f.write(b"def g():\n    return 1\n")
    told = {"ok.py", os.fsdecode(b"caf\xe9.py")} if found_by.startswith("a watcher") else None
    with Tenure.open(root, discover=False) as t:
        report = t.index(changed_paths=told)
        assert reasons(report)["caf\\xe9.py"] == "file name is not valid UTF-8"
        assert t.find_symbol("ok.f").unique is not None


def test_nesting_cpython_compiles_is_indexed(make_repo) -> None:
    concatenated = "s = " + " + ".join(f'"{i}"' for i in range(2000)) + "\n"  # generated code does this
    chained = "class A:\n    def m(self):\n        return self\n\n\nx = A()" + ".m()" * 250 + "\n"
    root = make_repo({"concatenated.py": concatenated, "chained.py": chained})
    with Tenure.open(root, discover=False) as t:
        report = t.index()
        assert (report.skipped, report.unresolved) == ([], [])
        assert {e["dst"] for e in t.export_edges() if e["path"] == "chained.py"} == {"chained.A", "chained.A.m"}


def test_nesting_too_deep_for_the_extractor_is_skipped_with_the_reason(make_repo) -> None:
    root = make_repo({"ok.py": "def f():\n    pass\n", "deep.py": "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n"})
    with Tenure.open(root, discover=False) as t:
        report = t.index()
        assert reasons(report)["deep.py"].startswith("extractor failed: RecursionError")
        assert t.find_symbol("ok.f").unique is not None


def test_a_file_the_extractor_could_not_read_makes_answers_about_the_names_it_holds_lower_bounds(
        make_repo) -> None:
    deep = "from ok import f\n\n\ndef d():\n    return f() + " + "(" * 5000 + "1" + ")" * 5000 + "\n"
    root = make_repo({"ok.py": "def f():\n    pass\n\n\ndef alone():\n    pass\n", "deep.py": deep})
    with Tenure.open(root, discover=False) as t:
        t.index()
        f = t.what_breaks("ok.f")["summary"]  # deep.py calls it: never "complete as far as the resolver sees"
        assert f["lower_bound"] and [g["path"] for g in f["unresolved_files"]] == ["deep.py"]
        assert "naming it not fully resolved" in f["text"] and "complete as far" not in f["text"]
        assert t.what_breaks("ok.alone")["summary"]["unresolved_files"] == []  # a name it does not hold
        (root / "deep.py").write_text("from ok import f\n\n\ndef d():\n    return f()\n")  # readable again
        t.index()
        assert t.what_breaks("ok.f")["summary"]["unresolved_files"] == []


def test_a_statement_nested_past_the_stack_costs_that_statement_and_the_file_is_resolved_partly(make_repo) -> None:
    deep = ("def g(x=0):\n    return 1\n\n\ndef h():\n    return g()\n\n\n"
            "x = " + "g(" * 4000 + ")" * 4000 + "\n")  # past RECURSION_LIMIT
    good = "def helper():\n    return 1\n\n\ndef user():\n    return helper()\n"
    root = make_repo({"good.py": good, "deep.py": deep})
    with Tenure.open(root, discover=False) as t:
        report = t.index()
        assert report.unresolved == []
        assert report.resolved_partly == [("deep.py", "1 statements nested too deep to follow")]
        assert t.find_symbol("deep.g").unique is not None
        assert [d["symbol"] for d in t.what_breaks("good.helper")["dependants"]] == ["good.user"]
        deep_g = t.what_breaks("deep.g")["summary"]  # h's call is kept; the deep statement's are not known
        assert deep_g["direct"] >= 1 and deep_g["lower_bound"]
        assert [g["path"] for g in deep_g["unresolved_files"]] == ["deep.py"]

def test_syntax_errors_keep_what_tree_sitter_recovers(make_repo) -> None:
    root = make_repo({"broken.py": "def good():\n    pass\n\ndef bad(:\n    pass\n\nclass Later:\n    def m(self):\n"
                                   "        good()\n"})
    with Tenure.open(root, discover=False) as t:
        report = t.index()
        assert dict(report.partial)["broken.py"] == "1 syntax error recovered"
        assert t.find_symbol("broken.good").unique is not None
        assert t.find_symbol("broken.Later.m").unique is not None


def test_huge_generated_file_is_skipped_with_its_size(make_repo) -> None:
    big = "x = 1\n" * (20 * 1024 * 1024 // 6 + 1)
    root = make_repo({"generated_pb2.py": big, "small.py": "def f():\n    pass\n"})
    with Tenure.open(root, discover=False) as t:
        report = t.index()
        why = reasons(report)["generated_pb2.py"]
        assert why.startswith("too large (21.0 MB")
        assert t.find_symbol("small.f").unique is not None


def test_symlink_loops_and_broken_links_are_reported_not_followed(make_repo) -> None:
    root = make_repo({"a.py": "def f():\n    pass\n"})
    os.symlink(root, root / "loop")  # a directory link back to the root
    os.symlink(root / "self.py", root / "self.py")  # a file link to itself
    os.symlink(root / "missing.py", root / "dangling.py")
    with Tenure.open(root, discover=False) as t:
        report = t.index()
        why = reasons(report)
        assert why["loop"] == "symlinked directory not followed"
        assert why["self.py"] == "symlink loop or broken link"
        assert why["dangling.py"] == "symlink loop or broken link"
        assert t.find_symbol("a.f").unique is not None


def test_unreadable_file_is_skipped(make_repo, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo({"secret.py": "def f():\n    pass\n", "open.py": "def g():\n    pass\n"})
    real_read = Path.read_bytes

    def read_bytes(self: Path) -> bytes:  # root may read anything, so the OS refusal is simulated
        if self.name == "secret.py":
            raise PermissionError(13, "Permission denied")
        return real_read(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    with Tenure.open(root, discover=False) as t:
        report = t.index()
        assert reasons(report)["secret.py"] == "unreadable: Permission denied"
        assert t.find_symbol("open.g").unique is not None


KILL_SCRIPT = """
import os, sys
from tenure import Tenure
from tenure.structural import store

real = store.ResolutionWriter.add
count = 0

def dying(self, *args, **kwargs):
    global count
    count += 1
    if count == 5:
        os._exit(9)  # killed half-way through writing the new graph
    return real(self, *args, **kwargs)

store.ResolutionWriter.add = dying
Tenure.open(sys.argv[1], discover=False).index()
"""


def test_a_process_killed_mid_index_leaves_the_previous_graph(make_repo) -> None:
    files = {f"m{i}.py": f"def f{i}():\n    return f{(i + 1) % 10}()\n" for i in range(10)}
    root = make_repo(files)
    with Tenure.open(root, discover=False) as t:
        t.index()
        before = sorted((e["src"], e["dst"]) for e in t.export_edges())
    for i in range(10):
        (root / f"m{i}.py").write_text(f"def f{i}():\n    return f{(i + 2) % 10}()\n")
    proc = subprocess.run([sys.executable, "-c", KILL_SCRIPT, str(root)], capture_output=True)
    assert proc.returncode == 9
    with Tenure.open(root, discover=False) as t:
        assert sorted((e["src"], e["dst"]) for e in t.export_edges()) == before
        assert t.db.query("PRAGMA integrity_check")[0]["integrity_check"] == "ok"
        t.index()  # and the next index completes the interrupted work
        assert ("m0.f0", "m2.f2") in {(e["src"], e["dst"]) for e in t.export_edges()}


FIRST_INDEX_KILL_SCRIPT = """
import os, sys
from tenure import Tenure
from tenure.structural import store

store.ResolutionWriter.BATCH_FILES = 2
real = store.ResolutionWriter.flush
count = 0

def dying(self):
    global count
    count += 1
    if count == 20:
        os._exit(9)  # killed half-way through writing the first graph
    return real(self)

store.ResolutionWriter.flush = dying
t = Tenure.open(sys.argv[1], discover=False)
t.db.execute("PRAGMA cache_size = 8")  # spill: the uncommitted pages reach the database file itself
t.index()
"""


def test_a_process_killed_mid_first_index_leaves_an_empty_consistent_database(make_repo) -> None:
    files = {f"m{i}.py": f"def f{i}():\n    return f{(i + 1) % 100}()\n" * 20 for i in range(100)}  # in workers
    root = make_repo(files)
    # (its worker processes leave with it: otherwise their copies of the output pipe would hang this run)
    proc = subprocess.run([sys.executable, "-c", FIRST_INDEX_KILL_SCRIPT, str(root)], capture_output=True)
    assert proc.returncode == 9, proc.stderr.decode()
    with Tenure.open(root, discover=False) as t:
        assert t.db.query("PRAGMA integrity_check")[0]["integrity_check"] == "ok"
        assert t.db.query("SELECT COUNT(*) AS n FROM files")[0]["n"] == 0 and not list(t.export_edges())
        assert t.db.query("PRAGMA journal_mode")[0]["journal_mode"] == "wal"
        t.index()
        assert ("m0.f0", "m1.f1") in {(e["src"], e["dst"]) for e in t.export_edges()}
