"""Reading git history: commits with their files, incrementally; reverts; thin messages; no git."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from msgspec.structs import astuple

from tenure.history import GitHistory, api, gitlog
from tenure.history.model import UNKNOWN_DATE
from tenure.storage import open_database
from tests.git_support import GitRepo

SERVICE = '''class Settlement:
    def retry(self, payment):
        return self.book(payment)

    def book(self, payment):
        return payment
'''


def history(repo: GitRepo) -> GitHistory:
    return GitHistory(open_database(repo.root.parent / "history.db"), repo.root)  # (outside: never committed)


def test_every_commit_is_read_with_its_files_and_authors(git_repo: GitRepo) -> None:
    first = git_repo.commit("Add the settlement service", {"pay/service.py": SERVICE, "README.md": "# pay\n"})
    second = git_repo.commit("Book twice to survive a lost acknowledgement\n\nThe bank drops one in a thousand.",
                             {"pay/service.py": SERVICE.replace("return payment", "return [payment, payment]")})
    h = history(git_repo)
    report = h.update()
    assert (report["commits_new"], report["commits_total"]) == (2, 2)
    newest, oldest = list(h.commits())
    assert (newest.sha, oldest.sha) == (second, first)
    assert newest.parents == (first,) and newest.author_name == "Ada" and newest.author_email == "ada@example.com"
    assert newest.authored_at == "2026-01-07T09:00:00+00:00"
    assert newest.subject == "Book twice to survive a lost acknowledgement"
    assert newest.body == "The bank drops one in a thousand."
    assert [(f.path, f.status, f.added, f.deleted) for f in newest.files] == [("pay/service.py", "M", 1, 1)]
    assert sorted((f.path, f.status) for f in oldest.files) == [("README.md", "A"), ("pay/service.py", "A")]
    assert h.commit(second[:8]) == newest and h.commit("ffff") is None


def test_a_second_update_reads_only_the_new_commits(git_repo: GitRepo) -> None:
    for n in range(3):
        git_repo.commit(f"step {n} of the migration to ledger v2", {"pay/service.py": SERVICE + f"# {n}\n"})
    h = history(git_repo)
    assert h.update()["commits_new"] == 3
    assert h.update()["commits_new"] == 0
    git_repo.commit("step 3 of the migration to ledger v2", {"pay/service.py": SERVICE + "# 3\n"})
    report = h.update()
    assert (report["commits_new"], report["commits_total"]) == (1, 4)


def test_reading_one_new_commit_asks_git_four_questions_and_one_when_nothing_is_new(git_repo: GitRepo,
                                                                                       monkeypatch) -> None:
    from tenure.history import gitlog

    git_repo.commit("Add the settlement service", {"pay/service.py": SERVICE})
    h = history(git_repo)
    h.update()
    git_repo.commit("Book twice to survive a lost acknowledgement", {"pay/service.py": SERVICE + "# twice\n"})
    asked: list[str] = []
    real_run, real_stream = gitlog._run, gitlog._stream
    monkeypatch.setattr(gitlog, "_run", lambda root, args: asked.append(args[0]) or real_run(root, args))
    monkeypatch.setattr(gitlog, "_stream", lambda root, args, header=True: asked.append(args[0])
                        or real_stream(root, args, header))
    assert h.update()["commits_new"] == 1
    # what is there (work tree, prefix, shallow, HEAD), how many are new, their log, whether HEAD moved forward
    assert asked == ["rev-parse", "rev-list", "log", "merge-base"]
    asked.clear()
    assert h.update()["commits_new"] == 0 and asked == ["rev-parse"]


def test_a_branch_reset_away_leaves_the_commits_listed_and_comes_back_when_merged(git_repo: GitRepo) -> None:
    base = git_repo.commit("Add the settlement service", {"pay/service.py": SERVICE})
    git_repo.git("checkout", "-q", "-b", "experiment")
    tried = git_repo.commit("Try booking through the queue", {"pay/service.py": SERVICE + "# queue\n"})
    h = history(git_repo)
    h.update()
    assert [c.sha for c in h.commits()] == [tried, base]
    git_repo.git("checkout", "-q", "main")
    git_repo.git("branch", "-q", "-D", "experiment")  # given up: HEAD no longer reaches it
    report = h.update()
    assert [c.sha for c in h.commits()] == [base] and report["commits_total"] == 1
    assert h.commit(tried) is not None  # kept: asked for by name, it is still there
    git_repo.git("checkout", "-q", "-b", "again", tried)  # the same commit reached once more
    h.update()
    assert [c.sha for c in h.commits()] == [tried, base]


def test_commits_read_by_a_run_that_stopped_early_are_not_read_twice(git_repo: GitRepo) -> None:
    git_repo.commit("one", {"a.py": "x = 1\n"})
    git_repo.commit("two", {"a.py": "x = 2\n"})
    h = history(git_repo)
    h.update()
    h.db.execute("DELETE FROM history_tips")  # as if killed after storing the commits, before the tips
    report = h.update()
    assert (report["commits_new"], report["commits_total"]) == (0, 2)


def test_git_revert_names_the_commit_it_reverts(git_repo: GitRepo) -> None:
    git_repo.commit("Add the settlement service", {"pay/service.py": SERVICE})
    attempt = git_repo.commit("Retry settlement without booking", {"pay/service.py": SERVICE.replace(
        "return self.book(payment)", "return payment")})
    revert = git_repo.revert(attempt)
    h = history(git_repo)
    assert h.update()["reverts"] == 1
    found = h.commit(revert)
    assert (found.reverts, found.reverts_how) == (attempt, "message")
    assert found.subject == 'Revert "Retry settlement without booking"'


def test_a_revert_written_by_hand_is_found_by_the_subject_it_quotes(git_repo: GitRepo) -> None:
    git_repo.commit("base", {"a.py": "x = 1\n"})
    attempt = git_repo.commit("Cache the rates (#41)", {"a.py": "x = 2\n"})
    git_repo.commit("unrelated", {"b.py": "y = 1\n"})
    revert = git_repo.commit('Revert "Cache the rates"', {"a.py": "x = 3\n"})
    h = history(git_repo)
    h.update()
    assert (h.commit(revert).reverts, h.commit(revert).reverts_how) == (attempt, "message")


def test_a_commit_that_puts_the_content_back_reverts_by_content(git_repo: GitRepo) -> None:
    git_repo.commit("base", {"a.py": "x = 1\n", "b.py": "y = 1\n"})
    attempt = git_repo.commit("Use the fast path", {"a.py": "x = 2\n", "b.py": "y = 2\n"})
    undo = git_repo.commit("the fast path loses rounding, back to the old one", {"a.py": "x = 1\n", "b.py": "y = 1\n"})
    partial = git_repo.commit("Try the fast path in b only", {"b.py": "y = 2\n"}, days=2)
    h = history(git_repo)
    h.update()
    assert (h.commit(undo).reverts, h.commit(undo).reverts_how) == (attempt, "content")
    # b.py only, as `undo` found it: a partial revert of `undo`
    assert (h.commit(partial).reverts, h.commit(partial).reverts_how) == (undo, "content-partial")
    back = git_repo.commit("b as it was", {"b.py": "y = 1\n"})
    h.update()
    assert (h.commit(back).reverts, h.commit(back).reverts_how) == (partial, "content")


@pytest.mark.parametrize("batch", [1, 2, 500])
def test_an_undo_by_content_is_found_whichever_batch_stored_the_commit_it_undoes(
        git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch, batch: int) -> None:
    # (where each file's content came from is kept across a read's batches: the commits before are in others)
    monkeypatch.setattr(api, "BATCH", batch)
    git_repo.commit("base", {"a.py": "x = 1\n", "b.py": "y = 1\n"})
    attempt = git_repo.commit("Use the fast path", {"a.py": "x = 2\n", "b.py": "y = 2\n"})
    git_repo.commit("Document it", {"README.md": "fast\n"})
    undo = git_repo.commit("the fast path loses rounding, back to the old one", {"a.py": "x = 1\n", "b.py": "y = 1\n"})
    again = git_repo.commit("Try the fast path in b only", {"b.py": "y = 2\n"}, days=2)
    back = git_repo.commit("b as it was", {"b.py": "y = 1\n"})
    # c.py's changes are first looked up when it is added: the one from z = 2, stored later, counts too
    git_repo.commit("Add c", {"c.py": "z = 1\n"})
    git_repo.commit("Use z = 2", {"c.py": "z = 2\n"})
    third = git_repo.commit("A third way", {"c.py": "z = 3\n"})
    gave_up = git_repo.commit("the third way is slower", {"c.py": "z = 2\n"})
    h = history(git_repo)
    h.update()
    assert [(h.commit(c).reverts, h.commit(c).reverts_how) for c in (undo, again, back, gave_up)] == [
        (attempt, "content"), (undo, "content-partial"), (again, "content"), (third, "content")]


def test_putting_content_back_after_months_is_a_clean_up_not_a_revert(git_repo: GitRepo) -> None:
    git_repo.commit("base", {"a.py": "x = 1\n"})
    git_repo.commit("Add a manifest", {"MANIFEST.in": "include *.txt\n"})
    cleanup = git_repo.commit("drop the manifest", remove=("MANIFEST.in",), days=200)
    h = history(git_repo)
    h.update()
    assert h.commit(cleanup).reverts is None


def test_thin_messages_are_kept_counted_and_say_why(git_repo: GitRepo) -> None:
    git_repo.commit("Add the settlement service", {"a.py": "x = 1\n"})
    fix = git_repo.commit("fix bug", {"a.py": "x = 2\n"})
    wip = git_repo.commit("wip", {"a.py": "x = 3\n"})
    readme = git_repo.commit("Update README.md", {"README.md": "hi\n"})
    reasoned = git_repo.commit("fix bug\n\nThe rate was read before the lock: two payments got the same one.",
                               {"a.py": "x = 4\n"})
    h = history(git_repo)
    assert h.update()["thin"] == 3
    assert h.commit(fix).thin_reason == "says only that something was fixed"
    assert h.commit(wip).thin_reason == "a placeholder message"
    assert h.commit(readme).thin_reason == "names only the file it changed"
    assert not h.commit(reasoned).thin and h.commit(reasoned).thin_reason is None


def test_a_merge_is_diffed_against_its_first_parent(git_repo: GitRepo) -> None:
    git_repo.commit("base", {"a.py": "x = 1\n", "b.py": "y = 1\n"})
    git_repo.git("checkout", "-q", "-b", "feature")
    git_repo.commit("feature work", {"b.py": "y = 2\n"})
    git_repo.git("checkout", "-q", "main")
    git_repo.commit("mainline work", {"a.py": "x = 2\n"})
    git_repo.git("merge", "-q", "--no-ff", "-m", "Merge branch 'feature'", "feature")
    h = history(git_repo)
    h.update()
    merge = next(h.commits(limit=1))
    assert merge.is_merge and len(merge.parents) == 2
    assert merge.thin_reason == "merge commit without a body"
    assert [f.path for f in merge.files] == ["b.py"]  # what the merge brought to main


def test_a_merges_diff_of_a_file_its_branch_changed_alone_is_its_branchs_hunks_parsed_once(
        git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    moving = "    return settle_every_pending_payment(batch)\n"
    git_repo.commit("base", {"b.py": "def a():\n" + moving, "c.py": "def c():\n    pass\n"})
    git_repo.git("checkout", "-q", "-b", "feature")
    git_repo.commit("drop the call", {"b.py": "def a():\n    pass\n"})
    git_repo.commit("call it here", {"c.py": "def c():\n" + moving})
    git_repo.git("checkout", "-q", "main")
    git_repo.git("merge", "-q", "--no-ff", "-m", "Merge branch 'feature'", "feature")
    parsed = []
    hunks = gitlog._hunks
    monkeypatch.setattr(gitlog, "_hunks", lambda change, *rest: parsed.append(change.path) or hunks(change, *rest))
    *_, dropped, called, merge = gitlog.log(git_repo.root, ["HEAD"])
    assert parsed == ["b.py", "c.py", "b.py", "c.py"]  # (the base, then each branch commit: the merge's are theirs)
    def lines(change: gitlog.RawChange) -> list[tuple]:  # (a hunk but the lines survival found kept or moved)
        return [astuple(h)[:-2] for h in change.hunks or ()]

    assert [lines(c) for c in merge.changes] == [lines(dropped.changes[0]), lines(called.changes[0])] != [[], []]
    # (each commit's own kept lines: within the merge the line moved from b.py to c.py; the branch wrote it)
    assert called.changes[0].hunks[0].kept == [] and merge.changes[1].hunks[0].kept == [2]


def test_unusual_paths_are_read_as_they_are(git_repo: GitRepo) -> None:
    sha = git_repo.commit("odd names", {'dir with "quotes"/tab\there.py': "x = 1\n", "é.py": "y = 1\n"})
    h = history(git_repo)
    h.update()
    assert sorted(f.path for f in h.commit(sha).files) == ['dir with "quotes"/tab\there.py', "é.py"]


def test_a_file_name_that_is_not_utf8_is_read_with_its_bytes_escaped_and_stops_nothing(git_repo: GitRepo) -> None:
    git_repo.commit("first", {"pay/service.py": SERVICE})
    (git_repo.root / "pay").joinpath(os.fsdecode(b"caf\xe9.txt")).write_text("latin-1 name\n")
    sha = git_repo.commit("a name in latin-1", {"pay/service.py": SERVICE + "\n"})
    h = history(git_repo)
    report = h.update()
    assert report["commits_new"] == 2
    assert sorted(f.path for f in h.commit(sha).files) == ["pay/caf\\xe9.txt", "pay/service.py"]


def test_commit_dates_git_cannot_print_are_read_from_the_header_and_stop_nothing(git_repo: GitRepo) -> None:
    git_repo.commit("first", {"pay/service.py": SERVICE})
    before_1970 = git_repo.commit_dated("before 1970", {"pay/a.py": "A = 1\n"}, "-1 -1100", "-86400 +0000")
    garbage = git_repo.commit_dated("fix garbage dates", {"pay/a.py": "A = 2\n"}, "abc +0000",
                                    "99999999999999999999999 +0000")
    past_9999 = git_repo.commit_dated("past year 9999", {"pay/a.py": "A = 3\n"}, "253402300800 +0000",
                                      "1700000000 +9999")
    last = git_repo.commit("last", {"pay/a.py": "A = 4\n"})
    h = history(git_repo)
    report = h.update()
    assert report["commits_new"] == 5
    dates = {c.sha: (c.authored_at, c.committed_at) for c in h.commits()}
    assert dates[before_1970] == ("1969-12-31T23:59:59+00:00", "1969-12-31T00:00:00+00:00")
    # (git prints a timestamp past its integers as 1970: the header says it is none a calendar reads)
    assert dates[garbage] == (UNKNOWN_DATE, UNKNOWN_DATE)
    assert dates[past_9999] == (UNKNOWN_DATE, "2023-11-14T22:13:20+00:00")
    assert dates[last] == ("2026-01-07T09:00:00+00:00",) * 2
    git_repo.index()  # (the episodes of an unknown date: a fix-up's window reaches before year 1)


def test_without_git_the_history_is_unavailable_and_says_why(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    h = GitHistory(open_database(":memory:"), plain)
    assert not h.available
    report = h.update()
    assert report["commits_new"] == 0 and "not inside a git work tree" in report["reason"]
    assert list(h.commits()) == [] and h.touching(["a.b"]) == []


def test_a_repository_without_commits_is_unavailable(git_repo: GitRepo) -> None:
    h = history(git_repo)
    assert not h.available and h.reason == "the repository has no commits yet"


def test_a_project_inside_a_larger_repository_reads_the_commits_that_change_it(git_repo: GitRepo) -> None:
    git_repo.commit("the web app", {"web/app.js": "x\n"})
    ours = git_repo.commit("the payments service", {"payments/service.py": SERVICE})
    git_repo.commit("web again", {"web/app.js": "y\n"})
    h = GitHistory(open_database(git_repo.root.parent / "inside.db"), git_repo.root / "payments")
    assert h.update()["commits_total"] == 1
    (only,) = h.commits()
    assert only.sha == ours and [f.path for f in only.files] == ["service.py"]


def test_commits_are_read_again_in_order_from_a_cursor(git_repo: GitRepo) -> None:
    shas = [git_repo.commit(f"change {n}", {"a.py": f"x = {n}\n"}) for n in range(3)]
    h = history(git_repo)
    h.update()
    first, cursor = h.read_after(0, limit=2)
    rest, end = h.read_after(cursor)
    assert [c.sha for c in first + rest] == shas and h.read_after(end) == ([], end)
    assert set(h.lookup([shas[1], "0" * 40])) == {shas[1]}


def test_git_is_waited_for_only_where_its_pipe_holds_a_whole_read(monkeypatch: pytest.MonkeyPatch) -> None:
    from tenure.history import gitlog

    class Trickle:  # (git writing little at a time: each read finds 1 KB)
        def __init__(self) -> None:
            self.left = 3 * gitlog.CHUNK

        def readinto(self, buffer: memoryview) -> int:
            n = min(1024, self.left)
            buffer[:n] = b"x" * n
            self.left -= n
            return n

    naps: list[float] = []
    monkeypatch.setattr(gitlog.time, "sleep", naps.append)
    assert sum(map(len, gitlog._pieces(Trickle(), nap=True))) == 3 * gitlog.CHUNK and naps  # (git keeps writing)
    naps.clear()
    assert sum(map(len, gitlog._pieces(Trickle(), nap=False))) == 3 * gitlog.CHUNK and naps == []

    def refused(*args: object) -> int:
        raise OSError("pipe-max-size")

    monkeypatch.setattr(gitlog.fcntl, "fcntl", refused)  # (a pipe of 64 KB, or 16 KB: a wait would hold git back)
    read, write = os.pipe()
    with open(read, "rb") as pipe, open(write, "wb"):
        assert gitlog._widen(pipe) is False


def test_hunks_are_read_from_the_files_as_committed_not_through_a_users_textconv(git_repo: GitRepo,
                                                                                 tmp_path: Path,
                                                                                 monkeypatch) -> None:
    """A diff driver's textconv (git-crypt's decrypting one, say) in the user's git config, named for a
    file by the repository's .gitattributes, would hand tenure converted text: hunks whose lines are not
    those of the blob, and the converted content (decrypted secrets) in the history."""
    from tenure.history import gitlog

    git_repo.commit("add", {"a.py": "def f():\n    return 1\n", ".gitattributes": "*.py diff=shifted\n"})
    git_repo.commit("edit", {"a.py": "def f():\n    return 2\n"})
    plain = [c.hunks for c in list(gitlog.log(git_repo.root, ["HEAD"]))[-1].changes]
    shift = tmp_path / "shift.sh"
    shift.write_text('#!/bin/sh\nprintf "one\\ntwo\\n"\ncat "$1"\n')
    shift.chmod(0o755)
    config = tmp_path / "gitconfig"
    config.write_text(f'[diff "shifted"]\n\ttextconv = {shift}\n')
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    assert [c.hunks for c in list(gitlog.log(git_repo.root, ["HEAD"]))[-1].changes] == plain
