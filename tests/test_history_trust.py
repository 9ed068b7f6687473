"""History a maintainer believes (issue 29, points 7-10; issue 30, point 9): a partial revert counts where
it put lines back; sweeps, release bumps and importers' edits are not attempts on a symbol; expiry reads
what survives of the code ignoring whitespace, moves and sweeps; rules mined from a real history say why
when nothing qualifies; history reading stays linear on hostile commits."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime, timedelta

import msgspec
import pytest
from typer.testing import CliRunner

from tenure import Tenure
from tenure.cli import app
from tenure.history.gitlog import Hunk
from tenure.namespace.symbols import symbols_in
from tests.git_support import SERVICE, GitRepo


def project(g: GitRepo) -> Tenure:
    t = Tenure.open(g.root, discover=False)
    t.index()
    return t


def attempts(result: dict) -> dict[str, dict]:
    return {a["commit"]: a for group in result["groups"] for a in group["attempts"]}


def attempt_then_put_back(g: GitRepo, put_back: dict[str, str]) -> str:
    """An attempt on pay.service.audit that also pins a dependency, then a commit putting `put_back` back."""
    g.commit("add the service", {"pay/__init__.py": "", "pay/service.py": SERVICE, "pyproject.toml": "[a]\nx = 1\n"})
    attempt = g.commit("audit returns a copy, pin x",
                       {"pay/service.py": SERVICE.replace("    return payment\n", "    return dict(payment)\n"),
                        "pyproject.toml": "[a]\nx = 2\n"})
    g.commit("put back", put_back)
    return attempt


def test_a_partial_revert_of_other_files_is_no_verdict_on_the_symbol(git_repo: GitRepo) -> None:
    attempt = attempt_then_put_back(git_repo, {"pyproject.toml": "[a]\nx = 1\n"})  # the lock file only
    with project(git_repo) as t:
        reverted = t.db.query("SELECT reverts_how FROM history_commits WHERE reverts = ?", (attempt,))
        assert [r["reverts_how"] for r in reverted] == ["content-partial"]
        found = attempts(t.episodes.what_happened_before("pay.service.audit"))
        assert found[attempt]["verdict"]["class"] != "mixed"
        assert not [x for x in found[attempt]["evidence"] if x.get("revert")]


def test_a_partial_revert_that_put_the_symbols_lines_back_counts(git_repo: GitRepo) -> None:
    attempt = attempt_then_put_back(git_repo, {"pay/service.py": SERVICE})
    with project(git_repo) as t:
        found = attempts(t.episodes.what_happened_before("pay.service.audit"))
        assert found[attempt]["verdict"]["verdict"] == "partly-reverted"


def test_a_version_bump_in_a_module_that_imports_the_symbol_is_no_attempt_on_it(git_repo: GitRepo) -> None:
    g = git_repo
    init = 'from pay.service import audit\n\n__version__ = "1.0"\n'
    api = "from pay.service import audit\n\n\ndef check(p):\n    return audit(p)\n"
    g.commit("add the service", {"pay/__init__.py": init, "pay/service.py": SERVICE, "pay/api.py": api})
    bump = g.commit("release version 1.1", {"pay/__init__.py": init.replace("1.0", "1.1")})
    caller = g.commit("check twice", {"pay/api.py": "from pay.service import audit\n\n\ndef check(p):\n"
                                                    "    return audit(audit(p))\n"})
    with project(g) as t:
        found = attempts(t.episodes.what_happened_before("pay.service.audit"))
        assert bump not in found
        assert found[caller]["relation"] == "dependant"  # a caller is a close dependant; an importer is not


def service_and_a_focused_attempt(g: GitRepo) -> tuple[dict[str, str], str]:
    """The service beside twelve small modules (what a sweep rewrites too), then a focused attempt on audit."""
    modules = {f"pay/m{i}.py": f"def f{i}(x):\n    return x\n" for i in range(12)}
    g.commit("add the service", {"pay/__init__.py": "", "pay/service.py": SERVICE, **modules})
    focused = g.commit("audit copies the payment", {"pay/service.py": SERVICE.replace(
        "def audit(payment):\n    return payment", "def audit(payment):\n    return dict(payment)")}, days=1)
    return modules, focused


def test_a_sweep_ranks_after_focused_attempts_and_says_it_is_one(git_repo: GitRepo) -> None:
    g = git_repo
    modules, focused = service_and_a_focused_attempt(g)
    sweep = g.commit("annotate everywhere", {
        "pay/service.py": SERVICE.replace("def audit(payment):\n    return payment",
                                          "def audit(payment):\n    # checked\n    return dict(payment)"),
        **{p: text.replace("(x)", "(value)").replace("return x", "return value") for p, text in modules.items()}},
        days=300)  # (newer: recency alone would rank it first)
    with project(g) as t:
        groups = t.episodes.what_happened_before("pay.service.audit")["groups"]
        order = [a["commit"] for group in groups for a in group["attempts"]]
        assert order.index(focused) < order.index(sweep)
        assert groups[-1]["sweep"] and groups[-1]["attempts"][0]["sweep"]
        assert groups[-1]["attempts"][0]["files"] >= 13


def test_a_kind_of_attempt_made_mostly_of_sweeps_ranks_after_focused_ones(git_repo: GitRepo) -> None:
    g = git_repo
    modules, focused = service_and_a_focused_attempt(g)
    body = "def audit(payment):\n    return dict(payment)"
    for n, days in ((1, 200), (2, 250)):  # two sweeps, then one edit of the same kind (a PR's parts, say)
        g.commit("annotate the code", {"pay/service.py": SERVICE.replace(
            "def audit(payment):\n    return payment", body + "  # typed" * n),
            **{p: text.replace("return x", "return x" + "  # typed" * n) for p, text in modules.items()}}, days=days)
    g.commit("annotate the code", {"pay/service.py": SERVICE.replace(
        "def audit(payment):\n    return payment", body + "  # typed" * 3)}, days=260)
    with project(g) as t:
        groups = t.episodes.what_happened_before("pay.service.audit")["groups"]
    mostly = next(i for i, gr in enumerate(groups) if gr["size"] == 3)
    focused_at = next(i for i, gr in enumerate(groups) if any(a["commit"] == focused for a in gr["attempts"]))
    assert groups[mostly]["sweep"] and focused_at < mostly  # 2 of its 3 attempts are sweeps: after the focused one


HANDLER = '''import sys


def other(x):
  return x


def handle(environ):
  response = None
  try:
    response = dispatch(environ)
  except Exception as exc:
    response = error_page(exc)
  return response


def dispatch(environ):
  return environ


def error_page(exc):
  return str(exc)
'''


def test_a_reformat_and_a_move_do_not_expire_a_failed_attempt_on_code_still_there(git_repo: GitRepo) -> None:
    g = git_repo
    base = g.commit("add the handler", {"app/__init__.py": "", "app/handler.py": HANDLER})
    attempt = g.commit("handle BaseExceptions", {"app/handler.py": HANDLER.replace(
        "    response = error_page(exc)\n",
        "    response = error_page(exc)\n  except BaseException:\n    error = sys.exc_info()[1]\n    raise\n")})
    g.revert(attempt)
    # four-space indentation, one line wrapped with a trailing comma: a formatter's sweep
    black = HANDLER.replace("\n    ", "\n        ").replace("\n  ", "\n    ").replace(
        "        response = dispatch(environ)\n", "        response = dispatch(\n            environ,\n        )\n")
    g.commit("reformat with black", {"app/handler.py": black}, days=200)
    moved = black.replace("def other(x):\n    return x\n\n\n", "") + "\n\ndef other(x):\n    return x\n"
    g.commit("move other to the end", {"app/handler.py": moved}, days=1)
    with project(g) as t:
        handle = next(s for s in symbols_in(t.db, ["app/handler.py"])["app/handler.py"] if s.name == "handle")
        written = t.history.last_written("app/handler.py", handle.start, handle.end)
        by = {w[0] for w in written if w}
        assert by == {base}, f"blame sees through the reformat and the move: {by}"
        result = t.episodes.what_happened_before("app.handler.handle")
        found = attempts(result)
        assert attempt in found and found[attempt]["verdict"]["class"] == "failure"
        assert result["failures"] >= 1 and "(1 failed)" in result["text"]


def test_a_history_read_before_hunks_knew_reformats_is_read_again(git_repo: GitRepo) -> None:
    g = git_repo
    base = g.commit("add the handler", {"app/__init__.py": "", "app/handler.py": HANDLER})
    g.commit("reformat", {"app/handler.py": HANDLER.replace("\n  ", "\n    ")})
    with project(g) as t:
        # as an older tenure stored them: hunks without their kept lines, the blame made from those
        for change_id, raw in t.db.rows("SELECT id, hunks FROM history_changes WHERE hunks IS NOT NULL"):
            hunks = [Hunk(h.old_start, h.old_count, h.new_start, h.new_count, h.blank, h.header, h.defined)
                     for h in msgspec.msgpack.decode(raw, type=list[Hunk])]
            t.db.execute("UPDATE history_changes SET hunks = ? WHERE id = ?",
                         (msgspec.msgpack.encode(hunks), change_id))
        t.db.execute("DELETE FROM history_mapped")
        t.history.update()
        assert {w[0] for w in t.history.last_written("app/handler.py", 8, 13) if w} != {base}
        t.db.execute("INSERT INTO history_meta (key, value) VALUES ('hunks', 'stale')"
                     " ON CONFLICT (key) DO UPDATE SET value = 'stale'")  # what m005_history_survival records
        assert t.history.update()["read_again"] == 2
        assert {w[0] for w in t.history.last_written("app/handler.py", 8, 13) if w} == {base}


def test_a_module_changed_with_its_changelog_in_most_merged_changes_is_a_habit_candidate(git_repo: GitRepo) -> None:
    g = git_repo
    g.commit("add the service", {"pay/__init__.py": "", "pay/service.py": SERVICE, "CHANGES.rst": "Changes\n"})
    log = "Changes\n"
    for n in range(1, 10):
        log += f"- change {n}\n"
        g.commit(f"audit change {n} (#{n})", {"pay/service.py": SERVICE + f"\n\nLIMIT_{n} = {n}\n",
                                              "CHANGES.rst": log})
    skipped = g.commit("audit change without a note (#10)", {"pay/service.py": SERVICE + "\n\nLIMIT = 0\n"})
    with project(g) as t:
        rules = t.rules_store.list()
        habit = next(r for r in rules["rules"] if r["text"] == "When you change `pay/service.py`, change `CHANGES.rst`"
                                                              " too.")
        assert (habit["status"], habit["source"], habit["successes"], habit["failures"]) == \
            ("candidate", "mined (habit)", 9, 1)
        explained = t.rules_store.explain(habit["id"])
        against = [e for e in explained["evidence"] if e["countsAs"] == "against"]
        assert {e["countsAs"] for e in explained["evidence"]} == {"for", "against"}
        assert [e["ref"] for e in against] == [skipped] and against[0]["why"].endswith(": merged")
        assert rules["mined"]["changesStood"] == 10 and rules["mined"]["testRuns"] == 0
        assert any("ordering rules" in why for why in rules["mined"]["missing"])


def test_rules_list_says_which_evidence_was_missing_when_nothing_qualifies(git_repo: GitRepo) -> None:
    g = git_repo
    g.commit("add the service", {"pay/__init__.py": "", "pay/service.py": SERVICE})
    g.commit("audit copies (#2)", {"pay/service.py": SERVICE.replace("    return payment\n", "    return [payment]\n")})
    project(g).close()
    out = CliRunner().invoke(app, ["rules", "list", "--repo", str(g.root)], terminal_width=200).output
    assert "0 rules qualified" in out
    assert "no failed change on record" in out and "no work session ran tests" in out
    assert "[procedural] in tenure.toml" in out


def test_a_function_moved_within_a_file_keeps_its_blank_and_short_lines_history(git_repo: GitRepo) -> None:
    g = git_repo
    tail = "".join(f"\n\ndef step_{i}(value):\n    return value + {i}\n" for i in range(8))
    base = g.commit("add the handler", {"app/__init__.py": "", "app/handler.py": HANDLER + tail})
    head, _, rest = HANDLER.partition("def handle(environ):")
    handle = "def handle(environ):" + rest[:rest.index("def dispatch")]
    moved = head + rest[rest.index("def dispatch"):] + tail + "\n\n" + handle.rstrip() + "\n"
    g.commit("handle last", {"app/handler.py": moved})  # (git's diff: handle removed above, added below)
    with project(g) as t:
        span = next(s for s in symbols_in(t.db, ["app/handler.py"])["app/handler.py"] if s.name == "handle")
        assert {w[0] for w in t.history.last_written("app/handler.py", span.start, span.end) if w} == {base}


def test_a_commit_of_a_generated_module_and_a_huge_message_are_read_in_one_pass() -> None:
    """Sizes where a scan per line (a list of names, a message joined again per line) took minutes."""
    from tenure.history.gitlog import _parse

    names = 60_000
    message = b"".join(b"Settlement.retry audit seed %d\n" % i for i in range(100_000))
    blob = "1" * 40
    stream = [b"\0\0" + b"\0".join([b"a" * 40, b"", b"Ada", b"ada@example.com", b"2026-01-05T09:00:00+00:00",
                                     b"2026-01-05T09:00:00+00:00", b"generated\n\n" + message]) + b"\0\n",
              f":000000 100644 {'0' * 40} {blob} A\tgen.py\n".encode(), b"diff --git a/gen.py b/gen.py\n",
              b"@@ -0,0 +1,%d @@\n" % names, *(b"+def f_%d(): return %d\n" % (i, i) for i in range(names))]
    [commit] = list(_parse(iter(stream), True))
    assert commit.message.endswith("seed 99999") and commit.message.count("\n") == 100_001
    [hunk] = commit.changes[0].hunks
    assert len(hunk.defined) == names and hunk.defined[-1] == f"f_{names - 1}"


def test_the_lines_one_commit_compares_for_moves_are_bounded() -> None:
    from tenure.history import survival

    s = survival.Survival()
    removed, added = Hunk(1, survival.MAX_LINES, 0, 0), Hunk(survival.MAX_LINES, 0, 1, 10)
    s.hunk("gen.py", removed, [b"value=compute()"] * (survival.MAX_LINES + 10), [])
    s.hunk("gen.py", added, [], [b"value=compute()"] * 10)
    assert sum(len(h[2]) + len(h[3]) for h in s.hunks) == survival.MAX_LINES  # (the rest count as written)
    s.settle()
    assert added.kept == [] and s.hunks == []


def test_a_sweeps_lines_keep_the_change_before_it_in_the_blame(git_repo: GitRepo) -> None:
    g = git_repo
    modules = {f"pay/m{i}.py": f"def f{i}(x):\n    return x\n" for i in range(12)}
    base = g.commit("add the service", {"pay/__init__.py": "", "pay/service.py": SERVICE, **modules})
    annotated = {p: text.replace("(x)", "(x: int) -> int") for p, text in modules.items()}
    annotated["pay/service.py"] = SERVICE.replace("def audit(payment):", "def audit(payment: dict):")
    g.commit("annotate everywhere", annotated)
    with project(g) as t:
        audit = next(s for s in symbols_in(t.db, ["pay/service.py"])["pay/service.py"] if s.name == "audit")
        written = t.history.last_written("pay/service.py", audit.start, audit.end)
        assert [w and w[0] for w in written] == [base, base], (audit, written, base)


MEDIAN = "\n\ndef median(values):\n    ordered = sorted(values)\n    return ordered[len(ordered) // 2]\n"


@pytest.mark.parametrize("main_changes_the_file", [False, True])
def test_a_merge_that_brought_the_very_lines_is_no_rewrite_of_the_attempt(git_repo: GitRepo,
                                                                          main_changes_the_file: bool) -> None:
    g = git_repo
    g.commit("add the service", {"pay/__init__.py": "", "pay/service.py": SERVICE})
    g.git("checkout", "-q", "-b", "feature")
    attempt = g.commit("feature: median", {"pay/service.py": SERVICE + MEDIAN})
    g.git("checkout", "-q", "main")
    # (main changes the file elsewhere, or another file: the merge's blob differs from the branch's, or not)
    g.commit("main: audit copies", {"pay/service.py": SERVICE.replace("    return payment\n\n\ndef audit",
                                                                      "    return dict(payment)\n\n\ndef audit")}
             if main_changes_the_file else {"pay/other.py": "X = 1\n"})
    g.when += timedelta(days=1)
    g.git("merge", "-q", "--no-ff", "feature", "-m", "Merge branch 'feature'")
    with project(g) as t:
        result = t.episodes.what_happened_before("pay.service.median", include_expired=True)
        assert attempt in attempts(result), result.get("expiredAttempts")
    # a real rewrite later still expires it, and says it compared the code
    g.commit("median of floats", {"pay/service.py": (g.root / "pay/service.py").read_text().replace(
        "(values):\n    ordered = sorted(values)\n    return ordered[len(ordered) // 2]\n",
        "(numbers):\n    ranked = sorted(float(v) for v in numbers)\n    middle = len(ranked) // 2\n"
        "    return ranked[middle]\n")})
    with project(g) as t:
        result = t.episodes.what_happened_before("pay.service.median", include_expired=True)
        gone = {a["commit"]: a["expired"] for a in result["expiredAttempts"]}
        assert not [key for a in result["expiredAttempts"] for key in a if key.startswith("_")]  # (ranking's own)
        assert gone[attempt] == ["pay.service.median was rewritten since: 4 of its 4 lines were last written after"
                                 " this, and none of those of 8 or more characters is, whitespace aside, a line of"
                                 " the file as it left it (shorter lines are not compared)"]


def test_lines_edited_on_disk_since_the_index_are_not_compared_with_what_an_attempt_left(git_repo: GitRepo) -> None:
    """The blame numbers the lines of the file as the history mapped it: once the file on disk differs, its
    line n is another line, and comparing it would prove nothing (the blame alone then speaks)."""
    g = git_repo
    attempt = g.commit("add the service", {"pay/__init__.py": "", "pay/service.py": SERVICE + MEDIAN})
    lines = list(range(1, len((SERVICE + MEDIAN).splitlines()) + 1))
    with project(g) as t:
        assert t.episodes.history.unchanged_since([(attempt, "pay/service.py", lines)])[0]
        (g.root / "pay/service.py").write_text("import math\n\n" + SERVICE + MEDIAN)  # (not indexed since)
        assert t.episodes.history.unchanged_since([(attempt, "pay/service.py", lines)]) == [None]


def test_the_lines_an_attempt_left_are_read_through_one_git_process_across_renames(git_repo: GitRepo,
                                                                                     monkeypatch) -> None:
    """A file renamed since the attempt is read under its old name by the same `git cat-file` that found
    the new name missing (a second process had been started for the older names)."""
    g = git_repo
    attempt = g.commit("add the service", {"pay/__init__.py": "", "pay/old.py": SERVICE + MEDIAN})
    g.git("mv", "pay/old.py", "pay/service.py")
    g.commit("rename the service")
    lines = list(range(1, len((SERVICE + MEDIAN).splitlines()) + 1))
    started: list[list[str]] = []
    popen = subprocess.Popen

    def counted(argv, *args, **kwargs):
        started.append(list(argv))
        return popen(argv, *args, **kwargs)

    with project(g) as t:
        monkeypatch.setattr(subprocess, "Popen", counted)
        same = t.episodes.history.unchanged_since([(attempt, "pay/service.py", lines)])[0]
    assert same  # (found under the name the file had then)
    assert sum("cat-file" in argv for argv in started) == 1


def test_impossible_dates_are_found_again_when_commits_are_read_and_never_count_the_store(git_repo: GitRepo) -> None:
    """The store's commits are counted by the update that stores them: a question about dates reads that
    number (a COUNT(*) of history_commits per question had scanned the whole table)."""
    g = git_repo
    g.commit("add the service", {"pay/__init__.py": "", "pay/service.py": SERVICE})
    year_9999 = g.commit_dated("audit copies", {"pay/service.py": SERVICE.replace("payment\n", "dict(payment)\n")},
                               "253402300799 +0000", "253402300799 +0000")
    now = datetime(2030, 1, 1, tzinfo=UTC)
    with project(g) as t:
        history = t.episodes.history
        statements: list[str] = []
        history.db._conn.set_trace_callback(statements.append)
        assert history.impossible_dates([year_9999], now) == {year_9999: ("2030-01-01T00:00:00+00:00", "")}
        history.db._conn.set_trace_callback(None)
        built_on_it = g.commit("audit logs", {"pay/service.py": SERVICE.replace("payment\n", "log(payment)\n")})
        history.update()
        history.db._conn.set_trace_callback(statements.append)
        at = history.lookup([built_on_it])[built_on_it].committed_at
        assert history.impossible_dates([year_9999], now) == {year_9999: (at, built_on_it)}
        history.db._conn.set_trace_callback(None)
    assert statements and not [s for s in statements if "COUNT(" in s.upper()]


def test_an_impossible_commit_date_does_not_rank_an_attempt_ahead_and_says_so(git_repo: GitRepo) -> None:
    g = git_repo
    g.commit("add the service", {"pay/__init__.py": "", "pay/service.py": SERVICE})
    audit = SERVICE.replace("def audit(payment):\n    return payment\n", "def audit(payment):\n    return {}\n")
    year_9999 = g.commit_dated("audit copies", {"pay/service.py": audit.replace("{}", "dict(payment)")},
                               "253402300799 +0000", "253402300799 +0000")
    built_on_it = g.commit("audit logs", {"pay/service.py": audit.replace("{}", "log(payment)")})
    tip_2100 = g.commit_dated("audit in the far future", {"pay/service.py": audit.replace("{}", "[payment]")},
                              "4102444800 +0000", "4102444800 +0000")
    with project(g) as t:
        result = t.episodes.what_happened_before("pay.service.audit")
    order = [a["commit"] for group in result["groups"] for a in group["attempts"]]
    found = attempts(result)
    assert found[year_9999]["when"] == "9999-12-31T23:59:59+00:00"  # (git's record, as it is)
    assert found[year_9999]["rankedAt"] == found[built_on_it]["when"]
    assert found[year_9999]["dated"] == (f"dated 9999-12-31, after {built_on_it[:10]}, a commit built on it, dated "
                                         f"{found[built_on_it]['when'][:10]}: ranked as of that date")
    assert order[0] == tip_2100  # (the newest commit, as far as anyone can tell)
    assert found[tip_2100]["dated"] == "dated 2100-01-01, after now: ranked as of now"
    assert "dated" not in found[built_on_it]
    scores = {a["commit"]: g["score"] for g in result["groups"] for a in g["attempts"]}
    assert scores[year_9999] <= scores[built_on_it]


def test_old_attempts_of_equal_score_rank_the_latest_first(git_repo: GitRepo) -> None:
    g = git_repo
    g.when = datetime(2000, 1, 1, tzinfo=UTC)  # (twenty years and more before now: every score rounds to 0.0)
    g.commit("add the service", {"pay/__init__.py": "", "pay/service.py": SERVICE})
    older = g.commit("audit copies", {"pay/service.py": SERVICE.replace(
        "def audit(payment):\n    return payment", "def audit(payment):\n    return dict(payment)")}, days=365)
    newer = g.commit("audit logs", {"pay/service.py": SERVICE.replace(
        "def audit(payment):\n    return payment", "def audit(payment):\n    return log(payment)")}, days=365)
    with project(g) as t:
        result = t.episodes.what_happened_before("pay.service.audit")
    order = [a["commit"] for group in result["groups"] for a in group["attempts"]]
    assert order.index(newer) < order.index(older)
