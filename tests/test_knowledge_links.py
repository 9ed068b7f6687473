"""Links with tiers (issue 28.2, 29.11): a decision record that names code bare in its prose, a comment
that cites the decision, and `why` of a method reporting what is linked to its class, its module and
the constants it reads (`via`, with tiers), without duplicate lines or English words taken for code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tenure import Tenure
from tests.knowledge_support import git

pytestmark = pytest.mark.usefixtures("shared_stores")  # each test on SQLite and on PostgreSQL

ADR = """# ADR-0003: Retry timed-out settlement submissions

## Context

The clearing house times out submissions under load; a lost submission leaves a trade unsettled.

## Decision

SettlementService retries a timed-out submission at most three times (MAX_RETRIES = 3), then marks the
trade for manual reconciliation. More retries submit twice when the clearing house is slow.
"""

ADR_4 = """# ADR-0004: Submissions are idempotent

## Decision

A submission carries the trade id, so the clearing house drops a second one: retrying is safe.
"""

SERVICE = '''"""Settlement of trades with the clearing house."""

MAX_RETRIES = 3  # see [[ADR-0003]]


class SettlementService:
    """Submits trades to the clearing house (decided in ADR-0003)."""

    def submit(self, trade):
        """Idempotent by trade id (ADR-0004)."""
        return trade.ok

    def retry(self, trade):
        for _ in range(MAX_RETRIES):
            if self.submit(trade):
                return True
        return False

    def route(self, trade):
        def decorator(view):
            return view
        return decorator


def reconcile(batch):
    # the ledger's own check, see #412; [[The ledger check is authoritative]]
    return [t for t in batch if t.ok]
'''

GUIDE = """# Settlement guide

Use `settlement.service.SettlementService.retry` to resubmit a trade; see #412.
`SettlementService.retry` gives up after MAX_RETRIES attempts (#412).

The LedgerClient will take the submissions over.

If you're used to ``@decorator`` style, wrap the view with a decorator and it works with any route.
Combine the checks with ``and``, open the client in a ``with`` block, register the view with ``route``.
"""


@pytest.fixture
def settlement(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TENURE_KNOWLEDGE", "off")  # the index alone: the build is the one under test
    repo = tmp_path / "ledger"
    files = {"docs/adr/0003-settlement-retries.md": ADR, "docs/adr/0004-idempotent-submissions.md": ADR_4,
             "docs/guide.md": GUIDE,
             "settlement/__init__.py": "", "settlement/service.py": SERVICE}
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    for n, (path, text) in enumerate(files.items()):
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"Add {path} with what it says about settlement retries",
            "--date", f"2024-01-{n + 1:02d}T10:00:00")
    service = repo / "settlement/service.py"
    for n, message in enumerate(["Submit settlements once before retrying them on a timeout",
                                 "Reconcile the batch after the settlement retries gave up"]):
        service.write_text(service.read_text() + f"\n\ndef step_{n}():\n    return {n}\n")
        git(repo, "commit", "-q", "-am", message, "--date", f"2024-02-{n + 1:02d}T10:00:00")
    with Tenure.open(repo) as t:
        t.index()
        t.knowledge.build(embed=False)
        yield t


def test_the_limit_governs_the_commits_listed_and_the_summary_says_how_to_see_the_rest(settlement) -> None:
    answer = settlement.knowledge.why("settlement.service", limit=1)
    commits = answer["commits"]
    assert len(commits["listed"]) == 1 and commits["total"] == 3, commits
    assert "1 listed; 2 more" in answer["summary"]["text"] and "a limit of 3" in answer["summary"]["text"]
    assert len(settlement.knowledge.why("settlement.service", limit=50)["commits"]["listed"]) == 3


def test_a_ticket_two_phrases_of_a_symbol_link_to_is_related_once(settlement) -> None:
    related = [r["entity"] for r in settlement.knowledge.why("SettlementService.retry")["related"]]
    assert related.count("#412") == 1


def test_an_inner_function_named_decorator_takes_no_sentence_about_decorators(settlement) -> None:
    evidence = settlement.knowledge.why("SettlementService.route", limit=50)["evidence"]
    assert not [e for e in evidence if "decorator" in e["quote"]]


def test_why_of_a_method_cites_the_decision_via_the_constant_it_reads_and_via_its_class(settlement) -> None:
    answer = settlement.knowledge.why("SettlementService.retry")
    [decision] = [e for e in answer["evidence"] if e["source"]["ref"] == "ADR-0003"]
    assert decision["tier"] == "exact" and "MAX_RETRIES = 3" in decision["quote"]
    paths = {(v["path"], v["symbol"], v["edge"]) for v in decision["via"]}
    assert ("reads", "settlement.service.MAX_RETRIES", "inferred") in paths  # a read is text: unverified
    assert ("class", "settlement.service.SettlementService", None) in paths
    assert {"path": "settlement/service.py", "line": 3, "text": "MAX_RETRIES = 3  # see [[ADR-0003]]"} \
        in decision["cited"]


def test_the_cli_why_shows_each_link_tier_with_the_path_it_takes(settlement) -> None:
    from typer.testing import CliRunner

    from tenure.cli import app

    out = CliRunner().invoke(app, ["why", "SettlementService.retry", "--repo", str(settlement.root)]).output
    assert "[exact via reads MAX_RETRIES (inferred read); exact via class SettlementService, offline]" in out
    assert "cited at settlement/service.py:3: MAX_RETRIES = 3  # see [[ADR-0003]]" in out


def test_a_code_name_written_bare_in_prose_is_an_entity_linked_exactly_to_its_symbol(settlement) -> None:
    joined = dict(settlement.shared.rows("SELECT entity, tier FROM knowledge_entity_symbols"
                                     " WHERE fqn = 'settlement.service.SettlementService'"))
    assert joined.get("SettlementService") == "exact"  # the ADR writes it bare, no backticks
    words = {r[0] for r in settlement.shared.rows("SELECT key FROM knowledge_entities")}
    assert not {"with", "and", "decorator"} & words  # ``route`` names a method: it is one


def test_a_comment_citing_a_ticket_is_an_exact_link_from_the_symbol_it_sits_in(settlement) -> None:
    answer = settlement.knowledge.why("reconcile")
    [citation] = [e for e in answer["evidence"] if e.get("cited") and e["phrase"] == "#412"]
    assert (citation["tier"], citation["symbol"], citation["via"]) == ("exact", "settlement.service.reconcile", None)
    assert citation["cited"][0]["text"] == "# the ledger's own check, see #412; [[The ledger check is authoritative]]"


def test_a_docstring_citing_a_decision_links_the_class_and_reaches_its_methods_one_rung_below(settlement) -> None:
    own = settlement.knowledge.why("SettlementService")["evidence"]
    assert [e["via"] for e in own if e["source"]["ref"] == "ADR-0003"] == [None]  # its own: not via anything
    rows = settlement.db.rows("SELECT fqn, kind FROM knowledge_code_citations WHERE entity = 'adr-3'")
    assert ("settlement.service.SettlementService", "docstring") in rows


def test_english_words_in_a_question_seed_no_code_entity_but_the_code_names_in_it_do(settlement) -> None:
    answer = settlement.knowledge.ask("I am changing how reconcile() and the route work with retries: what breaks?")
    seeds = [e["key"] for e in answer["entities"]]
    assert not {"and", "with", "route"} & set(seeds)
    assert "settlement.service.reconcile" in seeds  # through the symbol `reconcile()` names
    linked = {e["key"]: e["symbols"] for e in answer["entities"]}  # each with the tier of its link to the code
    assert linked["settlement.service.reconcile"] == [{"fqn": "settlement.service.reconcile", "tier": "exact"}]
    assert "(symbol; exact: settlement.service.reconcile)" in answer["answer"]


def test_a_decision_of_what_a_method_calls_reaches_it_via_the_call_with_the_edge_tier(settlement) -> None:
    evidence = settlement.knowledge.why("SettlementService.retry", limit=50)["evidence"]
    [decision] = [e for e in evidence if e["source"]["ref"] == "ADR-0004"]
    [via] = decision["via"]
    assert (via["path"], via["link"]) == ("calls", "exact")
    assert via["symbol"] == "settlement.service.SettlementService.submit"
    assert via["edge"] in ("resolved", "inferred")
    own = [e for e in evidence if e["via"] is None]
    assert own and all(evidence.index(e) < evidence.index(decision) for e in own)  # one rung below its own


def test_a_chunk_naming_a_class_that_did_not_exist_is_read_again_when_it_does(settlement) -> None:
    def joined() -> list:
        return settlement.shared.rows("SELECT fqn, tier FROM knowledge_entity_symbols WHERE entity = 'LedgerClient'")

    assert joined() == []  # the guide names it before the code has it: no entity, no link
    (settlement.root / "settlement/ledger.py").write_text("class LedgerClient:\n    pass\n")
    git(settlement.root, "add", "-A")
    git(settlement.root, "commit", "-q", "-m", "Add the ledger client that takes the submissions over")
    settlement.index()
    report = settlement.knowledge.build(embed=False)
    assert joined() == [("settlement.ledger.LedgerClient", "exact")]
    assert report["steps"]["merge"]["touched"] != "all"  # read again where it is named, not everywhere


def test_a_citation_written_in_a_comment_later_is_read_with_the_next_build_and_one_removed_goes(settlement) -> None:
    service = settlement.root / "settlement/service.py"
    text = service.read_text()
    above = "    # the clearing house's limit, see [[ADR-0003]]\n"
    service.write_text(text.replace("# see [[ADR-0003]]", "").replace("    def submit(", above + "    def submit("))
    git(settlement.root, "commit", "-q", "-am", "Move the citation of the retry decision onto submit")
    settlement.index()
    settlement.knowledge.build(embed=False)
    cited = settlement.db.rows("SELECT fqn, assigns FROM knowledge_code_citations WHERE entity = 'adr-3'")
    assert ("settlement.service.SettlementService.submit", "") in cited  # the comment right above a definition
    assert not [row for row in cited if row[1] == "MAX_RETRIES"]


def test_a_comment_citing_a_memory_title_links_to_that_memory(settlement) -> None:
    before = [e for e in settlement.knowledge.why("reconcile")["evidence"] if e["phrase"].startswith("title:")]
    assert [e.get("memory") for e in before] == [None]  # no memory by that title yet: the citation as it is
    memory = settlement.memories.remember("Reconcile trusts the ledger over the clearing house's report.",
                                          title="The ledger check is authoritative")["id"]
    [cited] = [e for e in settlement.knowledge.why("reconcile")["evidence"] if e["phrase"].startswith("title:")]
    assert (cited["memory"], cited["tier"]) == (memory, "exact")


def test_a_symbol_named_in_one_file_reads_again_only_that_files_comments(settlement, monkeypatch) -> None:
    before = settlement.db.rows("SELECT path, line, fqn, entity FROM knowledge_code_citations ORDER BY 1, 2, 4")
    (settlement.root / "settlement/ledger.py").write_text("class LedgerClient:  # see #413\n    pass\n")
    git(settlement.root, "add", "-A")
    git(settlement.root, "commit", "-q", "-m", "Add the ledger client")
    monkeypatch.setenv("TENURE_KNOWLEDGE", "off")  # (the build below is the one whose steps are read)
    settlement.index()
    report = settlement.knowledge.build(embed=False)
    assert report["steps"]["citations"]["files_read"] == 1  # the new file, not every file of the project
    after = settlement.db.rows("SELECT path, line, fqn, entity FROM knowledge_code_citations ORDER BY 1, 2, 4")
    assert after == sorted([*before, ("settlement/ledger.py", 1, "settlement.ledger.LedgerClient", "#413")])


def test_two_checkouts_of_one_project_keep_what_their_own_code_cites_and_their_elements_terms(
        settlement, tmp_path: Path) -> None:
    """On a team database both checkouts are one project: what is derived from each one's code (the
    citations of its comments, its elements' terms) is its own, so a branch's index does not change
    another checkout's answers."""
    terms = "SELECT element, fingerprint FROM element_terms"
    before = dict(settlement.db.rows(terms))
    branch = tmp_path / "ledger-branch"
    git(settlement.root, "clone", "-q", str(settlement.root), str(branch))
    service = branch / "settlement/service.py"  # on the branch, the ticket is cited by the first step instead
    comment = "    # the ledger's own check, see #412; [[The ledger check is authoritative]]\n"
    text = service.read_text().replace(comment, "")
    service.write_text(text.replace("def step_0():\n", "def step_0():\n    # see #412\n"))
    git(branch, "commit", "-q", "-am", "Cite the ticket where the first step is")

    def cited_412(t: Tenure, symbol: str) -> list[str]:
        return [e["symbol"] for e in t.knowledge.why(symbol)["evidence"] if e.get("cited") and e["phrase"] == "#412"]

    with Tenure.open(branch) as other:
        other.index()
        other.knowledge.build(embed=False)
        assert cited_412(other, "reconcile") == [] and cited_412(other, "step_0") == ["settlement.service.step_0"]
        assert dict(other.db.rows(terms))["module:settlement.service"] != before["module:settlement.service"]
    assert cited_412(settlement, "reconcile") == ["settlement.service.reconcile"]
    assert cited_412(settlement, "step_0") == []
    assert dict(settlement.db.rows(terms)) == before
