"""A history that is one commit adding the whole project (a shallow clone, a release unpacked and
committed): every symbol of it is touched by that commit, snapshotted with its neighbours, and
stored as a many-commit history stores it."""

from __future__ import annotations

from tenure import Tenure
from tenure.episodic.episodes import neighbours_of
from tenure.namespace.symbols import every_symbol, fingerprints, neighbours
from tenure.structural import store as structural_store
from tests.git_support import GitRepo

MODULES = {f"pay/m{i}.py": f"from pay.core import book\n\n\ndef f{i}(x):\n    return book(x)\n" for i in range(12)}
CORE = "def book(x):\n    return x\n\n\nclass Ledger:\n    def add(self, x):\n        return book(x)\n"


def test_the_neighbours_of_many_names_are_those_each_name_has_alone(git_repo: GitRepo, monkeypatch) -> None:
    git_repo.commit("init", {"pay/__init__.py": "", "pay/core.py": CORE, **MODULES})
    with Tenure.open(git_repo.root, discover=False) as t:
        t.index()
        fqns = sorted({s.fqn for s in every_symbol(t.db)})
        monkeypatch.setattr(structural_store, "EDGES_PER_LOOKUP", 0)  # (index lookups per name)
        alone = {f: neighbours(t.db, [f])[f] for f in fqns}
        monkeypatch.setattr(structural_store, "EDGES_PER_LOOKUP", 10**9)  # (one pass over the edges)
        monkeypatch.setattr(structural_store, "PASS_FROM_NAMES", 2)
        together = neighbours(t.db, fqns)
    assert together == alone and together["pay.core.book"] >= {"calls<pay.m0.f0", "calls<pay.core.Ledger.add"}


def test_the_fingerprints_of_most_names_are_those_each_name_has_alone(git_repo: GitRepo, monkeypatch) -> None:
    git_repo.commit("init", {"pay/__init__.py": "", "pay/core.py": CORE, **MODULES})
    with Tenure.open(git_repo.root, discover=False) as t:
        t.index()
        fqns = sorted({s.fqn for s in every_symbol(t.db)})[1:]  # (most of them, not all)
        alone = {f: p for f in fqns for p in fingerprints(t.db, [f]).values()}
        monkeypatch.setattr(structural_store, "PASS_FROM_NAMES", 2)  # (one pass over the symbols)
        together = fingerprints(t.db, fqns)
    assert together == alone and len(together) == len(fqns)


def test_a_commit_of_every_file_touches_every_symbol_with_its_snapshot(git_repo: GitRepo) -> None:
    sha = git_repo.commit("init", {"pay/__init__.py": "", "pay/core.py": CORE, **MODULES})
    with Tenure.open(git_repo.root, discover=False) as t:
        t.index()
        [commit] = list(t.history.commits())
        touched = {s.fqn: (s.how, s.lines) for s in commit.symbols}
        episode = t.episodes.db.rows("SELECT id FROM episodes WHERE commit_sha = ?", (sha,))[0][0]
        snapshots = {fqn: neighbours_of(blob) for fqn, blob in t.episodes.db.rows(
            "SELECT s.fqn, n.neighbours FROM episode_symbols s JOIN symbol_snapshots n ON n.id = s.snapshot_id"
            " WHERE s.episode_id = ?", (episode,))}
        code_neighbours = neighbours(t.db, list(snapshots))
    assert touched["pay.core.Ledger.add"] == ("span", 2) and touched["pay.m3.f3"] == ("span", 2)
    assert set(snapshots) == set(touched) and snapshots == code_neighbours
    assert "calls>pay.core.book" in snapshots["pay.core.Ledger.add"]


def _commit_stream(patch: bytes, raw: bytes) -> list[bytes]:
    header = b"\0\0" + b"\0".join([b"b" * 40, b"", b"Ada", b"ada@example.com", b"2026-01-05T09:00:00+02:00",
                                    b"2026-01-05T09:00:00+02:00", b"edit"]) + b"\0\n"
    return [header, raw, b"\n", patch[:7], patch[7:]]  # (cut anywhere: the parser reads pieces of any size)


def test_a_patch_is_cut_into_files_and_hunks_whatever_their_lines_hold() -> None:
    """Each hunk's sides are sliced out of the patch: git's "no newline" markers, a hunk whose lines
    look like headers, a file of no indexed language (only counted), a binary file, a hunk cut short."""
    from tenure.history.gitlog import _parse

    blob = "1" * 40
    raw = "".join(f":100644 100644 {blob} {blob} M\t{p}\n" for p in ("a.py", "notes.txt", "img.py", "b.py")).encode()
    patch = (b"diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n"
             b"@@ -2,2 +2,3 @@ def outer():\r\n-    x = 1\n--- not a header\n\\ No newline at end of file\n"
             b"+def inner():\n+@@ -9 +9 @@ still a line\n+\n\\ No newline at end of file\n"
             b"@@ -10,0 +11 @@ class Kept:\n+    y = 2\n"
             b"diff --git a/notes.txt b/notes.txt\n--- a/notes.txt\n+++ b/notes.txt\n"
             b"@@ -1 +1,2 @@\n-old\n+new\n+more\n@@ -5,2 +6,0 @@\n-a\n-b\n"
             b"diff --git a/img.py b/img.py\nBinary files a/img.py and b/img.py differ\n"
             b"diff --git a/b.py b/b.py\n--- a/b.py\n+++ b/b.py\n@@ -1,3 +1 @@\n-def gone():\n+def short():\n")
    [commit] = list(_parse(iter(_commit_stream(patch, raw)), True))
    a, notes, img, b = commit.changes
    assert commit.authored_at == "2026-01-05T07:00:00+00:00"
    first, second = a.hunks
    assert (first.old_start, first.old_count, first.new_start, first.new_count) == (2, 2, 2, 3)
    assert first.header == "outer" and first.defined == ["inner"] and first.blank == [4]
    assert (second.header, second.defined, second.blank) == ("Kept", [], [])
    assert (a.added, a.deleted) == (4, 2)
    assert notes.hunks is None and (notes.added, notes.deleted) == (2, 3)
    assert img.hunks is None and (img.added, img.deleted) == (0, 0)
    [cut] = b.hunks  # (three lines removed, says the header; one is there, then the added side)
    assert cut.defined == ["gone", "short"] and (b.added, b.deleted) == (1, 3)


def test_snapshot_ids_name_their_rows_when_another_writer_made_one_meanwhile(git_repo: GitRepo, monkeypatch) -> None:
    """The ids of the snapshots made are those of their rows, also when another writer made a row of one
    of the names between the look-up and the insert (its row, then, answers for it)."""
    from tenure.episodic import episodes

    git_repo.commit("init", {"pay/__init__.py": "", "pay/core.py": CORE, **MODULES})
    with Tenure.open(git_repo.root, discover=False) as t:
        t.index()
        db = t.episodes.db
        fqns = ["pay.core.book", "pay.m3.f3", "pay.m7.f7", "pay.core.Ledger.add"]
        prints = fingerprints(t.db, fqns)
        db.execute("DELETE FROM episode_symbols")
        db.execute("DELETE FROM symbol_snapshots WHERE fqn IN ('pay.m3.f3', 'pay.m7.f7', 'pay.core.Ledger.add')")
        found = neighbours

        def meanwhile(code, missing):  # (another writer snapshots one of the missing names first)
            db.execute("INSERT INTO symbol_snapshots (fqn, fingerprint, neighbours) VALUES (?, ?, ?)",
                       ("pay.m7.f7", prints["pay.m7.f7"], b"\x90"))
            return found(code, missing)

        monkeypatch.setattr(episodes, "neighbours", meanwhile)
        raced = episodes.snapshots(db, t.db, fqns)
        monkeypatch.setattr(episodes, "neighbours", found)
        db.execute("DELETE FROM symbol_snapshots WHERE fqn = 'pay.m3.f3'")
        counted = episodes.snapshots(db, t.db, fqns)
        stored = {i: (fqn, p) for i, fqn, p in db.rows("SELECT id, fqn, fingerprint FROM symbol_snapshots")}
        blobs = dict(db.rows("SELECT id, neighbours FROM symbol_snapshots"))
    for ids in (raced, counted):
        assert {f: stored[i] for f, i in ids.items()} == {f: (f, prints[f]) for f in fqns}
    assert neighbours_of(blobs[counted["pay.m3.f3"]]) == {"calls>pay.core.book"}
    assert not neighbours_of(blobs[raced["pay.m7.f7"]])  # (the other writer's row)


def test_a_name_touched_twice_in_one_episode_is_one_row_with_its_lines_added_up(git_repo: GitRepo) -> None:
    from tenure.episodic import episodes

    git_repo.commit("init", {"pay/__init__.py": "", "pay/core.py": CORE})
    with Tenure.open(git_repo.root, discover=False) as t:
        db = t.episodes.db
        touched = [episodes.Touch("pay.core.book", "pay/core.py", "span", 2),
                   episodes.Touch("pay.core.Ledger", "pay/core.py", "span", 1),
                   episodes.Touch("pay.core.book", "pay/old.py", "moved", 3)]
        episode = episodes.record(db, episodes.SESSION, "s1", "agent", "2026-01-01", "2026-01-02", touched, {})
        rows = db.rows("SELECT fqn, path, how, lines FROM episode_symbols WHERE episode_id = ? ORDER BY rowid",
                       (episode,))
    assert rows == [("pay.core.book", "pay/core.py", "span", 5), ("pay.core.Ledger", "pay/core.py", "span", 1)]
