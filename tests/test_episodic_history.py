"""The repository's own history as episodes: attempts on symbols, reverted ones failed with the revert's
message as their lesson, fix-ups, merged and rejected pull requests; ranked failures first; expiry."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tenure import Tenure
from tenure.cli import app
from tests.git_support import GitRepo

pytestmark = pytest.mark.usefixtures("shared_stores")  # each test on SQLite and on PostgreSQL

SERVICE = '''class Settlement:
    def retry(self, payment):
        return self.book(payment)

    def book(self, payment):
        return payment
'''
API = '''from pay.service import Settlement


def settle(payment):
    return Settlement().retry(payment)
'''
LESSON = "Booking is what makes a retry idempotent: without it the bank was paid twice."


def with_retry(body: str) -> str:
    return SERVICE.replace("        return self.book(payment)\n", body)


@pytest.fixture
def shop(git_repo: GitRepo) -> Iterator[tuple[GitRepo, dict[str, str]]]:
    """A project whose history holds a reverted attempt on Settlement.retry, a fix-up, an attempt on a
    caller, and a merged pull request on Settlement.book."""
    g, shas = git_repo, {}
    shas["base"] = g.commit("Add the settlement service", {"pay/__init__.py": "", "pay/service.py": SERVICE,
                                                            "pay/api.py": API})
    shas["attempt"] = g.commit("Retry settlements without booking",
                               {"pay/service.py": with_retry("        return payment\n")})
    g.git("revert", "--no-commit", shas["attempt"])
    g.when = g.when.replace(hour=15)
    g.git("commit", "-q", "-m", f'Revert "Retry settlements without booking"\n\nThis reverts commit {shas["attempt"]}.'
          f"\n\n{LESSON}", when=g.when)
    shas["revert"] = g.head()
    shas["limit"] = g.commit("Retry settlements at most three times", {"pay/service.py": with_retry(
        "        for _ in range(3):\n            return self.book(payment)\n")}, days=2)
    shas["fix"] = g.commit("fix the retry limit", {"pay/service.py": with_retry(
        "        for _ in range(4):\n            return self.book(payment)\n")}, days=0.5)
    shas["caller"] = g.commit("settle returns the booking", {"pay/api.py": API.replace(
        "return Settlement().retry(payment)", "return [Settlement().retry(payment)]")}, days=1)
    g.git("checkout", "-q", "-b", "batch")
    current = (g.root / "pay" / "service.py").read_text()
    book = "    def book(self, payment):\n        return "
    shas["branch"] = g.commit("book in batches", {"pay/service.py": current.replace(book + "payment",
                                                                                     book + "[payment]")})
    g.git("checkout", "-q", "main")
    g.when = g.when.replace(hour=18)
    g.git("merge", "-q", "--no-ff", "-m", "Merge pull request #12 from ada/batch\n\nBook in batches", "batch",
          when=g.when)
    shas["merge"] = g.head()
    yield g, shas


def project(g: GitRepo) -> Tenure:
    t = Tenure.open(g.root, discover=False)
    t.index()
    return t


def attempts(result: dict) -> list[dict]:
    return [a for group in result["groups"] for a in group["attempts"]]


def test_commits_are_episodes_on_the_symbols_they_touched(shop) -> None:
    g, shas = shop
    with project(g) as t:
        found = {a["ref"]: a for a in attempts(t.episodes.what_happened_before("Settlement.retry"))}
    assert set(found) >= {shas["attempt"], shas["revert"], shas["limit"], shas["fix"], shas["base"]}
    limit = found[shas["limit"]]
    assert (limit["kind"], limit["actor"], limit["task"], limit["relation"]) == (
        "commit", "Ada", "Retry settlements at most three times", "touched")
    assert limit["symbols"] == ["pay.service.Settlement.retry"] and limit["how"] == ["carried"]


def test_a_reverted_commit_is_a_failed_attempt_and_the_revert_its_lesson(shop) -> None:
    g, shas = shop
    with project(g) as t:
        result = t.episodes.what_happened_before("Settlement.retry")
    first = result["groups"][0]
    assert first["verdict"] == "failure"  # failures first
    assert {a["ref"] for a in first["attempts"]} == {shas["attempt"], shas["revert"]}  # one story
    failed = next(a for a in first["attempts"] if a["ref"] == shas["attempt"])
    assert failed["verdict"] == {"class": "failure", "verdict": "reverted", "confidence": 0.9, "source": "revert"}
    (evidence,) = failed["evidence"]
    assert evidence["revert"] == shas["revert"] and LESSON in evidence["body"] and evidence["how"] == "message"


def test_a_fix_within_days_on_the_same_symbols_marks_the_attempt_fixed_up(shop) -> None:
    g, shas = shop
    with project(g) as t:
        found = {a["ref"]: a for a in attempts(t.episodes.what_happened_before("Settlement.retry"))}
    limit = found[shas["limit"]]
    assert limit["verdict"]["verdict"] == "fixed-up" and limit["verdict"]["confidence"] == 0.6
    assert limit["evidence"][0]["fix"] == shas["fix"]


def test_attempts_on_a_close_dependant_are_included_and_labelled(shop) -> None:
    g, shas = shop
    with project(g) as t:
        found = {a["ref"]: a for a in attempts(t.episodes.what_happened_before("Settlement.retry"))}
    assert found[shas["caller"]]["relation"] == "dependant"
    assert found[shas["caller"]]["symbols"] == ["pay.api.settle"]


def test_a_merged_pull_request_is_an_episode_with_its_commits(shop) -> None:
    g, shas = shop
    with project(g) as t:
        result = t.episodes.what_happened_before("Settlement.book")
    group = next(gr for gr in result["groups"] if any(a["kind"] == "pr" for a in gr["attempts"]))
    pr = next(a for a in group["attempts"] if a["kind"] == "pr")
    assert (pr["ref"], pr["task"], pr["verdict"]["verdict"]) == ("12", "Book in batches", "merged")
    assert shas["branch"] in {a["ref"] for a in group["attempts"]}  # the commit it brought in, grouped with it


def test_a_pull_request_export_adds_rejections_and_the_reviewers_words(shop, tmp_path: Path) -> None:
    g, shas = shop
    export = [{"number": 12, "title": "Book in batches", "state": "MERGED", "author": {"login": "ada"},
               "createdAt": "2026-01-10T10:00:00Z", "mergedAt": "2026-01-12T10:00:00Z",
               "mergeCommit": {"oid": shas["merge"]}, "commits": [{"oid": shas["branch"]}],
               "reviews": [{"author": {"login": "bob"}, "state": "CHANGES_REQUESTED",
                            "body": "a batch must be booked in one transaction",
                            "submittedAt": "2026-01-11T10:00:00Z"}]},
              {"number": 13, "title": "Book without the lock", "state": "CLOSED", "author": {"login": "eve"},
               "createdAt": "2026-01-13T10:00:00Z", "closedAt": "2026-01-14T10:00:00Z",
               "files": [{"path": "pay/service.py"}]}]
    path = tmp_path / "prs.json"
    path.write_text(json.dumps(export))
    with project(g) as t:
        ingested = t.episodes.ingest_pull_requests(path)
        assert (ingested["merged"], ingested["rejected"], ingested["changesRequested"]) == (1, 1, 1)
        again = t.episodes.ingest_pull_requests(path)  # read again: replaces, never doubles
        assert again["pullRequests"] == 2
        book = {a["ref"]: a for a in attempts(t.episodes.what_happened_before("Settlement.book"))}
        service = {a["ref"]: a for a in attempts(t.episodes.what_happened_before("pay.service"))}
    twelve = book["12"]
    assert twelve["verdict"]["verdict"] == "changes-requested"  # the most severe of merged, changes requested
    asked = next(x for x in twelve["evidence"] if x["verdict"] == "changes-requested")
    assert asked["reviewers"] == [{"author": "human/bob", "words": "a batch must be booked in one transaction",
                                   "at": "2026-01-11T10:00:00+00:00"}]
    assert sum(1 for x in twelve["evidence"] if x["verdict"] == "merged" and x["source"] == "github") == 1
    rejected = service["13"]  # its commits are not here: mapped by the files it changed, as `file`
    assert rejected["verdict"]["verdict"] == "rejected" and rejected["how"] == ["file"]


def test_an_episode_expires_when_its_symbol_is_removed_and_stays_in_history(shop) -> None:
    g, shas = shop
    with project(g) as t:
        before = t.episodes.what_happened_before("Settlement.book")
        assert before["expired"] == 0
    current = (g.root / "pay" / "service.py").read_text()
    g.commit("book goes into the ledger", {"pay/service.py": current.replace(
        "    def book(self, payment):\n        return [payment]\n", "").replace("self.book(payment)", "payment")})
    with project(g) as t:
        result = t.episodes.what_happened_before("pay.service.Settlement.book")
    assert result["attempts"] == 0 and result["expired"] >= 2
    assert any("is not in the index now" in n for n in result["notes"])
    expired = {a["ref"]: a for a in result["expiredAttempts"]}
    assert expired["12"]["expired"] == ["pay.service.Settlement.book was removed or renamed since"]


def test_an_epoch_takes_every_earlier_episode_out_of_retrieval(shop) -> None:
    g, _ = shop
    with project(g) as t:
        marked = t.episodes.mark_epoch("moved to event sourcing", "human/ada")
        assert marked["episodesBefore"] >= 8
        result = t.episodes.what_happened_before("Settlement.retry", include_expired=True)
    assert result["attempts"] == 0 and result["groups"] == []
    assert all(a["expired"][0].startswith('before the epoch "moved to event sourcing"')
               for a in result["expiredAttempts"])


def test_a_symbol_rewritten_since_leaves_retrieval_with_the_reason(shop) -> None:
    g, shas = shop
    current = (g.root / "pay" / "service.py").read_text()
    start, end = current.index("    def retry"), current.index("    def book")
    rewritten = g.commit("retry a given number of times", {"pay/service.py": current[:start] + (
        "    def retry(self, payment, attempts=3):\n        last = None\n        for _ in range(attempts):\n"
        "            last = self.book(payment)\n        return last\n\n") + current[end:]})
    with project(g) as t:
        result = t.episodes.what_happened_before("Settlement.retry", include_expired=True)
    reasons = {a["ref"]: a["expired"] for a in result["expiredAttempts"]}
    assert reasons[shas["attempt"]] == ["pay.service.Settlement.retry was rewritten since: 5 of its 5 lines were last "
                                        "written after this, and none of those of 8 or more characters is, whitespace"
                                        " aside, a line of the file as it left it (shorter lines are not compared)"]
    assert rewritten in {a["ref"] for a in attempts(result)}  # the rewrite itself is the live lesson


def test_tenure_history_prints_the_timeline_and_keeps_memory_versions_by_id(shop) -> None:
    g, shas = shop
    with project(g) as t:
        memory = t.memories.remember("retries must book", kind="pitfall", elements=["Settlement.retry"])["id"]
    runner = CliRunner()
    out = runner.invoke(app, ["history", "Settlement.retry", "--repo", str(g.root)])
    assert out.exit_code == 0, out.output
    assert "FAILURE" in out.stdout and "reverted" in out.stdout and LESSON.split(":")[0] in out.stdout
    data = json.loads(runner.invoke(app, ["history", "Settlement.retry", "--json", "--repo", str(g.root)]).stdout)
    assert data["symbol"] == "pay.service.Settlement.retry" and data["groups"][0]["verdict"] == "failure"
    versions = json.loads(runner.invoke(app, ["history", str(memory), "--json", "--repo", str(g.root)]).stdout)
    assert [v["id"] for v in versions["versions"]] == [memory]
    missing = runner.invoke(app, ["history", "NoSuchThing", "--repo", str(g.root)])
    assert missing.exit_code == 2 and "no symbol matches" in missing.output


def test_an_episode_expires_when_its_symbol_is_rewired_though_its_code_stands(shop) -> None:
    g, shas = shop
    project(g).close()  # the episodes are recorded with retry's edges as they are now
    callers = "".join(f"\n\ndef settle_{n}(payment):\n    return Settlement().retry(payment)\n" for n in range(6))
    g.commit("six new ways to settle", {"pay/api.py": (g.root / "pay" / "api.py").read_text() + callers})
    with project(g) as t:
        result = t.episodes.what_happened_before("Settlement.retry", include_expired=True)
    reasons = {a["ref"]: a["expired"] for a in result["expiredAttempts"]}
    assert reasons[shas["limit"]][0].startswith("pay.service.Settlement.retry was rewired since: ")
    assert "of its edges differ from when this was recorded" in reasons[shas["limit"]][0]


def test_a_pull_request_and_its_commit_on_a_caller_rank_below_an_attempt_on_the_symbol(git_repo: GitRepo) -> None:
    """A pull request and the one commit it brought in are one attempt, not two: on a caller (half the
    weight of the symbol itself) it does not outrank a direct attempt a month older."""
    g = git_repo
    g.commit("Add the settlement service", {"pay/__init__.py": "", "pay/service.py": SERVICE, "pay/api.py": API})
    direct = g.commit("Retry settlements at most three times", {"pay/service.py": with_retry(
        "        for _ in range(3):\n            return self.book(payment)\n")})
    g.git("checkout", "-q", "-b", "tidy")
    caller = g.commit("settle returns the booking", {"pay/api.py": API.replace(
        "return Settlement().retry(payment)", "return [Settlement().retry(payment)]")}, days=30)
    g.git("checkout", "-q", "main")
    g.git("merge", "-q", "--no-ff", "-m", "Merge pull request #7 from ada/tidy\n\nSettle returns a list", "tidy",
          when=g.when)
    with project(g) as t:
        groups = t.episodes.what_happened_before("Settlement.retry")["groups"]
    refs = [{a["ref"] for a in group["attempts"]} for group in groups]
    pull = refs.index({"7", caller})
    assert refs.index({direct}) < pull
    assert groups[pull]["explain"]["frequency"] == 1.0 and groups[pull]["explain"]["relation"] == 0.5
