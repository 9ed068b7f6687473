"""The walk of the tree in an update without a watcher: which files discovery hands to the indexer
(git's view in a work tree, its own walk elsewhere), and which build outputs the JVM source finds,
git-ignored or not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tenure import Tenure
from tenure.structural import walk as walking
from tenure.structural.discover import discover
from tenure.structural.jvm.discover import find_inputs
from tenure.structural.walk import walk

BEANS = json.dumps({"contexts": {"app": {"beans": {}}}})


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@localhost", *args],
                   check=True, capture_output=True)


def test_without_git_every_file_is_found_but_those_in_ignored_directories(make_repo) -> None:
    root = make_repo({
        "app.py": "", "pkg/__init__.py": "", "pkg/sub/deep.py": "", "pkg/data.txt": "",
        "node_modules/dep/index.js": "", ".venv/lib/site.py": "", "pkg/__pycache__/deep.cpython-311.pyc": "",
        "pkg/.tenure/x.py": "",
    })
    (root / "empty").mkdir()
    listing = discover(root)
    assert (listing.paths, listing.skipped) == (["app.py", "pkg/__init__.py", "pkg/data.txt", "pkg/sub/deep.py"], [])
    assert listing.how == "a walk of the folder (not in a git work tree)"


def test_without_git_every_directory_link_is_reported_and_none_is_followed(make_repo, tmp_path: Path) -> None:
    root = make_repo({"pkg/a.py": "def f():\n    pass\n"})
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "b.py").write_text("def g():\n    pass\n")
    os.symlink(root / "pkg", root / "pkg_again")
    os.symlink(tmp_path / "elsewhere", root / "vendor")
    os.symlink(root / "pkg", root / "node_modules")  # an ignored name: passed over without a word
    listing = discover(root)
    assert listing.paths == ["pkg/a.py"]
    assert listing.skipped == [(link, "symlinked directory not followed") for link in ("pkg_again", "vendor")]


def test_a_link_to_a_file_inside_the_repository_is_indexed_and_one_to_a_file_outside_is_skipped(
    make_repo, tmp_path: Path
) -> None:
    root = make_repo({"pkg/a.py": "def f():\n    pass\n"})
    (tmp_path / "outside.py").write_text("def secret():\n    pass\n")
    os.symlink(root / "pkg" / "a.py", root / "alias.py")
    os.symlink(tmp_path / "outside.py", root / "leak.py")
    with Tenure.open(root, discover=False) as t:
        report = t.index()
        assert dict(report.skipped) == {"leak.py": "symlink to outside the repository"}
        assert t.find_symbol("alias.f").unique is not None
        assert t.find_symbol("leak.secret").unique is None


def test_in_a_git_work_tree_the_index_sees_what_git_sees(make_repo) -> None:
    root = make_repo({".gitignore": "generated/\n", "app.py": "def f():\n    pass\n", "gone.py": "",
                      "generated/big.py": "def g():\n    pass\n", "node_modules/dep/index.js": ""})
    git(root, "init", "-q")
    git(root, "add", "app.py", "gone.py", ".gitignore")
    git(root, "commit", "-q", "-m", "start")
    (root / "new.py").write_text("def h():\n    pass\n")  # untracked, not ignored: indexed
    (root / "gone.py").unlink()  # tracked, then deleted from the work tree: passed over
    assert discover(root).paths == [".gitignore", "app.py", "gone.py", "new.py"]
    assert discover(root).how == "git ls-files"
    with Tenure.open(root, discover=False) as t:
        report = t.index()
        assert not report.skipped
        assert {r["path"] for r in t.db.query("SELECT path FROM files")} == {"app.py", "new.py"}


def test_a_project_in_a_folder_its_git_repository_ignores_is_walked_and_says_so(make_repo) -> None:
    outer = make_repo({".gitignore": "vendor/\n", "vendor/flask/src/flask/__init__.py": "",
                       "vendor/flask/src/flask/app.py": "def route():\n    pass\n"})
    git(outer, "init", "-q")
    root = outer / "vendor" / "flask"
    listing = discover(root)  # git lists nothing of it: it would index 0 files and say "up to date"
    assert listing.paths == ["src/flask/__init__.py", "src/flask/app.py"]
    assert listing.how == "a walk of the folder (the git repository around it ignores it)"
    with Tenure.open(root, discover=False) as t:
        report = t.index()
        assert (report.files_seen, report.listing) == (2, listing.how)
        assert t.find_symbol("flask.app.route").unique is not None
        (root / "src/flask/new.py").write_text("def g():\n    pass\n")
        assert t.freshness()["files_new"] == 1  # what is not indexed yet is seen the same way
    out = subprocess.run([sys.executable, "-m", "tenure.cli", "index", str(root)], capture_output=True, text=True,
                         check=True, env={**os.environ, "TENURE_ENRICH": "off"}).stdout
    assert "files listed by a walk of the folder (the git repository around it ignores it)" in out


def test_build_output_that_git_ignores_is_found_by_the_jvm_walk(make_repo) -> None:
    root = make_repo({
        ".gitignore": "target/\nbuild/\n*.jar\n",
        "app/target/classes/com/acme/A.class": b"\xca\xfe\xba\xbe",
        "app/target/app.jar": b"",  # packages the class directory beside it: not read twice
        "lib/build/classes/java/main/B.class": b"\xca\xfe\xba\xbe",
        "libs/dep.jar": b"", "gradle/wrapper/gradle-wrapper.jar": b"", "node_modules/x/ignored.jar": b"",
        "ops/actuator-beans-prod.json": BEANS, "web/beans.json": '{"name": "not actuator output"}',
    })
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    assert discover(root).paths == [".gitignore", "ops/actuator-beans-prod.json", "web/beans.json"]
    inputs = find_inputs(root)
    assert [(o.name, o.kind) for o in inputs.origins] == [
        ("app/target/classes", "classes"), ("lib/build/classes", "classes"), ("libs/dep.jar", "jar")]
    assert [b.name for b in inputs.beans] == ["ops/actuator-beans-prod.json"]


def test_a_linked_class_directory_is_no_input_of_the_jvm_walk(make_repo) -> None:
    root = make_repo({"out/A.class": b"\xca\xfe\xba\xbe", "app/target/test-classes/B.class": b"\xca\xfe\xba\xbe"})
    os.symlink(root / "out", root / "app" / "target" / "classes")
    assert [o.name for o in find_inputs(root).origins] == ["app/target/test-classes"]


def test_the_walk_visits_directories_in_os_walk_order(make_repo) -> None:
    # the JVM source reads, and fingerprints, beans files in the order the walk finds them
    root = make_repo({f"{a}/{b}/actuator-beans.json": BEANS for a in "qaz" for b in ("m", "b", "x")})
    (root / "node_modules").mkdir()
    expected = []
    for here, dirs, _ in os.walk(root):
        dirs[:] = [d for d in dirs if d != "node_modules"]
        expected.append(Path(here).relative_to(root).as_posix())
    visited = [rel or "." for rel, _, _, _ in walk(str(root), {"node_modules"})]
    assert visited == expected
    assert [b.name for b in find_inputs(root).beans] == [f"{v}/actuator-beans.json" for v in visited if "/" in v]


def test_a_tree_walked_to_discover_files_is_replayed_to_the_jvm_walk_which_prunes_it_alike(make_repo) -> None:
    root = make_repo({  # no git: discovery walks the tree
        "app/target/classes/com/acme/A.class": b"\xca\xfe\xba\xbe", "app/target/classes/x/actuator-beans.json": BEANS,
        "app/target/app.jar": b"", "lib/build/classes/java/main/B.class": b"\xca\xfe\xba\xbe",
        "libs/dep.jar": b"", "ops/actuator-beans-prod.json": BEANS, "src/Main.java": "class Main {}",
    })
    alone = find_inputs(root)
    with walking.shared():
        discover(root)
        (root / "late.jar").write_bytes(b"")  # after the walk: the replay lists the tree as it was walked
        replayed = find_inputs(root)
    assert replayed == alone  # class directories pruned as before: no beans file found inside one
    assert [b.name for b in replayed.beans] == ["ops/actuator-beans-prod.json"]
    assert "late.jar" in [o.name for o in find_inputs(root).origins]  # outside: walked afresh
