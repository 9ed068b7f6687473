"""Diffs mapped onto the index's symbols, each mapping labelled with how it was made."""

from __future__ import annotations

import pytest

from tenure.history import GitHistory
from tenure.storage import open_database
from tests.git_support import SERVICE, GitRepo


def indexed_history(repo: GitRepo) -> GitHistory:
    repo.index()
    h = GitHistory(open_database(repo.root / ".tenure" / "tenure.db"), repo.root)
    h.update()
    return h


def touched(h: GitHistory, sha: str) -> dict[str, str]:
    commit = h.commit(sha)
    assert commit is not None
    return {s.fqn: s.how for s in commit.symbols}


def test_the_latest_change_of_a_file_maps_by_span(git_repo: GitRepo) -> None:
    git_repo.commit("Add the settlement service", {"pay/__init__.py": "", "pay/service.py": SERVICE})
    sha = git_repo.commit("Book twice", {"pay/service.py": SERVICE.replace(
        "        return payment\n\n\ndef", "        return [payment, payment]\n\n\ndef")})
    h = indexed_history(git_repo)
    assert touched(h, sha) == {"pay.service.Settlement.book": "span"}


def test_older_changes_are_carried_through_the_later_diffs(git_repo: GitRepo) -> None:
    git_repo.commit("Add the settlement service", {"pay/__init__.py": "", "pay/service.py": SERVICE})
    edited = SERVICE.replace("return self.book(payment)", "return self.book(payment) or None")
    old = git_repo.commit("retry returns None on failure", {"pay/service.py": edited})
    moved = "import logging\n\nLOG = logging.getLogger(__name__)\n\n\n" + edited  # five lines above it now
    git_repo.commit("log settlements", {"pay/service.py": moved})
    h = indexed_history(git_repo)
    assert touched(h, old) == {"pay.service.Settlement.retry": "carried"}


def test_the_chain_follows_a_rename(git_repo: GitRepo) -> None:
    git_repo.commit("Add the settlement service", {"pay/__init__.py": "", "pay/service.py": SERVICE})
    old = git_repo.commit("audit keeps the payment", {"pay/service.py": SERVICE.replace(
        "def audit(payment):\n    return payment", "def audit(payment):\n    return dict(payment)")})
    git_repo.git("mv", "pay/service.py", "pay/settlement.py")
    git_repo.commit("rename the module")
    h = indexed_history(git_repo)
    assert touched(h, old) == {"pay.settlement.audit": "carried"}


def test_a_change_the_chain_does_not_reach_is_matched_by_name(
        git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TENURE_HISTORY", "off")  # the history is read after the file changed
    git_repo.commit("Add the settlement service", {"pay/__init__.py": "", "pay/service.py": SERVICE})
    sha = git_repo.commit("book returns a list", {"pay/service.py": SERVICE.replace(
        "        return payment\n\n\ndef", "        return [payment]\n\n\ndef")})
    git_repo.index()
    (git_repo.root / "pay" / "service.py").write_text(SERVICE + "# edited after the index\n")
    h = GitHistory(open_database(git_repo.root / ".tenure" / "tenure.db"), git_repo.root)
    h.update()
    assert touched(h, sha) == {"pay.service.Settlement.book": "hunk"}  # named by git's hunk header


def test_a_name_several_symbols_share_lists_each_as_ambiguous(
        git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TENURE_HISTORY", "off")
    two = SERVICE + "\n\nclass Refund:\n    def book(self, payment):\n        return payment\n"
    git_repo.commit("Add refunds", {"pay/__init__.py": "", "pay/service.py": two})
    sha = git_repo.commit("refunds book twice", {"pay/service.py": two.replace(
        "class Refund:\n    def book(self, payment):\n        return payment",
        "class Refund:\n    def book(self, payment):\n        return [payment, payment]")})
    git_repo.index()
    (git_repo.root / "pay" / "service.py").write_text(two + "# stale index\n")
    h = GitHistory(open_database(git_repo.root / ".tenure" / "tenure.db"), git_repo.root)
    h.update()
    assert touched(h, sha) == {"pay.service.Settlement.book": "hunk-ambiguous",
                               "pay.service.Refund.book": "hunk-ambiguous"}


def test_a_decorator_belongs_to_the_function_it_decorates(git_repo: GitRepo) -> None:
    code = "import functools\n\n\n@functools.cache\ndef rate(day):\n    return 1.0\n"
    git_repo.commit("Add the rate", {"pay/__init__.py": "", "pay/rates.py": code})
    sha = git_repo.commit("cache rates for an hour", {"pay/rates.py": code.replace("@functools.cache",
                                                                                    "@functools.lru_cache(64)")})
    assert touched(indexed_history(git_repo), sha) == {"pay.rates.rate": "span"}


def test_a_deleted_method_touches_its_class(git_repo: GitRepo) -> None:
    git_repo.commit("Add the settlement service", {"pay/__init__.py": "", "pay/service.py": SERVICE})
    sha = git_repo.commit("retry is gone", {"pay/service.py": SERVICE.replace(
        "    def retry(self, payment):\n        return self.book(payment)\n\n", "")})
    assert touched(indexed_history(git_repo), sha) == {"pay.service.Settlement": "span"}


def test_touching_a_class_finds_the_commits_on_its_methods(git_repo: GitRepo) -> None:
    first = git_repo.commit("Add the settlement service", {"pay/__init__.py": "", "pay/service.py": SERVICE})
    on_method = git_repo.commit("retry once more", {"pay/service.py": SERVICE.replace(
        "return self.book(payment)", "return self.book(payment) or self.book(payment)")})
    on_function = git_repo.commit("audit a copy", {"pay/service.py": SERVICE.replace(
        "return self.book(payment)", "return self.book(payment) or self.book(payment)").replace(
        "def audit(payment):\n    return payment", "def audit(payment):\n    return dict(payment)")})
    h = indexed_history(git_repo)
    found = [c.sha for c in h.touching(["pay.service.Settlement"])]
    assert on_method in found and on_function not in found
    assert [c.sha for c in h.touching(["pay.service.audit"])] == [on_function, first]


def test_history_read_before_the_index_is_mapped_once_the_index_exists(
        git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TENURE_HISTORY", "off")
    git_repo.commit("Add the settlement service", {"pay/__init__.py": "", "pay/service.py": SERVICE})
    sha = git_repo.commit("Book twice", {"pay/service.py": SERVICE.replace(
        "        return payment\n\n\ndef", "        return [payment, payment]\n\n\ndef")})
    db = open_database(git_repo.root / ".tenure" / "tenure.db")
    h = GitHistory(db, git_repo.root)
    assert h.update()["files_mapped"] == 0 and h.commit(sha).symbols == ()
    git_repo.index()
    assert h.update()["files_mapped"] == 2
    assert touched(h, sha) == {"pay.service.Settlement.book": "span"}


def test_a_first_mapping_builds_the_touched_symbols_indexes_it_deferred(
        git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TENURE_HISTORY", "off")
    git_repo.commit("Add the settlement service", {"pay/__init__.py": "", "pay/service.py": SERVICE})
    git_repo.index()
    db = open_database(git_repo.root / ".tenure" / "tenure.db")
    h = GitHistory(db, git_repo.root)
    assert h.update()["files_mapped"] == 2  # (nothing mapped before: the indexes by name and commit wait)
    indexes = {r["name"] for r in db.query("SELECT name FROM sqlite_master WHERE type = 'index'"
                                           " AND tbl_name = 'history_symbols' AND sql IS NOT NULL")}
    assert indexes == {"history_symbols_fqn", "history_symbols_commit", "history_symbols_path"}
    plan = " ".join(str(r[-1]) for r in db.rows("EXPLAIN QUERY PLAN SELECT commit_id FROM history_symbols"
                                                 " WHERE fqn = 'pay.service.Settlement.book'"))
    assert "history_symbols_fqn" in plan
    assert [c.subject for c in h.touching(["pay.service.Settlement.book"])] == ["Add the settlement service"]


def test_uncommitted_edits_map_onto_symbols_and_older_commits_still_carry(git_repo: GitRepo) -> None:
    git_repo.commit("Add the settlement service", {"pay/__init__.py": "", "pay/service.py": SERVICE})
    old = git_repo.commit("retry returns None", {"pay/service.py": SERVICE.replace(
        "return self.book(payment)", "return self.book(payment) or None")})
    (git_repo.root / "pay" / "service.py").write_text("import os\n\n\n" + SERVICE.replace(
        "return self.book(payment)", "return self.book(payment) or None").replace(
        "def audit(payment):\n    return payment", "def audit(payment):\n    return os.fspath(payment)"))
    h = indexed_history(git_repo)
    files, symbols = h.working_tree()
    assert [(f.path, f.status) for f in files] == [("pay/service.py", "M")]
    assert {s.fqn: s.how for s in symbols} == {"pay.service": "span", "pay.service.audit": "span"}
    assert touched(h, old) == {"pay.service.Settlement.retry": "carried"}  # through the uncommitted diff


def test_a_line_map_carries_every_kind_of_hunk_and_stops_at_one_past_the_files_end() -> None:
    from tenure.history.gitlog import Hunk
    from tenure.history.mapping import step

    # old lines 1..9: 2 rewritten as new 2-4 (new 2 is old 9, moved), 4-5 deleted, a line added after 7
    hunks = [Hunk(2, 1, 2, 3, moved=[2, 9]), Hunk(4, 2, 5, 0), Hunk(7, 0, 8, 1)]
    assert step(hunks, 10).tolist() == [0, 1, 2, 5, 0, 0, 6, 7, 9, 2]
    assert step([Hunk(4, 3, 4, 3)], 4) is None  # (its rewritten lines do not fit a file of 4 lines)
    # (a moved line said to go past the file's end: hunks of another file's content, the chain stops too)
    assert step([Hunk(2, 1, 2, 1, moved=[7, 1])], 3) is None


def test_no_definition_word_holds_whitespace() -> None:
    # (the reader looks for them in a hunk's lines with their whitespace squeezed out: gitlog._hunks)
    from tenure.history import languages
    from tenure.structural.languages import language_table

    for name in [*language_table(), "default"]:
        assert not any(set(word) & set(b" \t\r\x0b\x0c\n") for word in languages.definition_literals(name)), name


def test_a_change_that_left_the_indexed_content_maps_as_through_any_line_map() -> None:
    # (the identity's lines are read run by run, `mapping.written(identity=True)`: the same touched symbols,
    # in the same order, and the same blame as the line-by-line reading of an equal map)
    import numpy as np

    from tenure.history.gitlog import Hunk
    from tenure.history.mapping import FileSymbols, _blame, attribute, written
    from tenure.structural.store import Symbol

    def symbol(fqn: str, kind: str, start: int, end: int) -> Symbol:
        return Symbol(fqn, fqn.rsplit(".", 1)[-1], kind, "python", "m.py", start, end, "m", "", "", False)

    content = b"".join(b"line %d\n" % n for n in range(1, 13))
    symbols = FileSymbols("m.py", "python", [symbol("m", "module", 1, 12), symbol("m.f", "function", 2, 5),
                                             symbol("m.g", "function", 8, 11)], content)
    # a hunk with a blank line among others, a deletion between two, a hunk of only blank lines, one past the end
    hunks = [Hunk(1, 0, 2, 3, blank=[3]), Hunk(4, 2, 5, 0), Hunk(5, 0, 6, 1, blank=[6]), Hunk(8, 1, 9, 3),
             Hunk(11, 0, 12, 3)]
    identity = np.arange(symbols.lines + 1, dtype=np.int64)
    for blame_before in ([0] * 13, [0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 7, 7, 0]):
        fast, slow = list(blame_before), list(blame_before)
        _blame(fast, hunks, identity, 9, done=written(hunks, identity, identity=True))
        _blame(slow, hunks, identity.copy(), 9)
        assert fast == slow
    ran = attribute(hunks, identity, symbols, written(hunks, identity, identity=True))
    assert list(ran.items()) == list(attribute(hunks, identity.copy(), symbols).items()) == [(1, 2), (0, 3), (2, 3)]
