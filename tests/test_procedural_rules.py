"""Rules that earn their place: mined from episodes or stated, promoted into AGENTS.md's managed
section, demoted by later failures, every change auditable; situational procedures as tools."""

from __future__ import annotations

import asyncio
import base64
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp.server.mcpserver.exceptions import ToolError
from typer.testing import CliRunner

from tenure import Tenure
from tenure.cli import app
from tenure.mcp.server import build_server
from tenure.procedural.agents_md import BEGIN, END
from tenure.procedural.api import RulesError
from tenure.team.user_config import user_config_path
from tests.git_support import GitRepo

pytestmark = pytest.mark.usefixtures("shared_stores")  # each test on SQLite and on PostgreSQL

PASSED = "========== 3 passed in 0.05s ==========\n"
FAILED = "FAILED tests/test_api.py::test_client - ImportError\n========== 1 failed, 2 passed in 0.05s ==========\n"
AGENTS = "# How we work here\n\nSmall commits. Tests before pushing.\n"


@pytest.fixture
def repo(git_repo: GitRepo) -> Iterator[GitRepo]:
    git_repo.commit("api", {"api/__init__.py": "", "api/schema.py": "VERSION = 1\n", "api/client.py": "V = 1\n",
                            "AGENTS.md": AGENTS})
    git_repo.index()
    yield git_repo


def session(t: Tenure, steps: list[tuple[str, str]]) -> dict:
    """A work session that ran these commands (with these outputs) and ended."""
    sid = t.start_session("agent", "change the api")["session"]
    for command, output in steps:
        t.episodes.record_step(sid, command, output)
    return t.end_session(sid, "done")


def test_an_ordering_rule_is_mined_promoted_into_agents_md_and_demoted_by_later_failures(repo: GitRepo) -> None:
    with Tenure.open(repo.root, discover=False) as t:
        for steps in ([("make generate", ""), ("pytest", PASSED)], [("pytest", FAILED)],
                      [("make generate", ""), ("pytest", PASSED)]):
            session(t, steps)
        assert t.rules_store.promoted() == []  # one failure without it is not enough
        ended = session(t, [("pytest", FAILED), ("make generate", ""), ("pytest", PASSED)])
        (rule_id,) = ended["rules"]["promoted"]
        rule = t.rules_store.describe(rule_id)
        assert (rule["kind"], rule["text"], rule["status"]) == ("ordering", "Run `make generate` before `pytest`.",
                                                                "promoted")
        agents = (repo.root / "AGENTS.md").read_text()
        assert agents.startswith(AGENTS) and BEGIN in agents and END in agents  # the rest untouched
        assert f"- Run `make generate` before `pytest`. (rule {rule_id}: 5 episodes for, 0 against; " \
               f"`tenure rules explain {rule_id}`)" in agents
        explained = t.rules_store.explain(rule_id)
        assert {e["countsAs"] for e in explained["evidence"]} == {"for"}
        assert any(e["why"] == "ran `pytest` without `make generate` before it: failed" for e in explained["evidence"])
        assert [e["event"] for e in explained["events"]] == ["mined", "counted", "promoted"]
        # the notes are sealed with the project's key where they are kept (read above through it)
        assert t.shared.rows("SELECT why FROM rule_evidence UNION SELECT detail FROM rule_events") == [("",)]
        assert t.shared.rows("SELECT COUNT(*) FROM rule_evidence WHERE sealed IS NULL")[0][0] == 0
        assert t.shared.rows("SELECT COUNT(*) FROM rule_events WHERE sealed IS NULL")[0][0] == 0

        for _ in range(2):  # it starts failing
            ended = session(t, [("make generate", ""), ("pytest", FAILED)])
        assert ended["rules"]["demoted"] == [rule_id]
        events = [e["event"] for e in t.rules_store.explain(rule_id)["events"]]
    assert events[-1] == "demoted" and "promoted" in events
    agents = (repo.root / "AGENTS.md").read_text()
    assert agents.startswith(AGENTS) and "make generate" not in agents and "No rule is promoted" in agents


def test_a_co_change_rule_is_mined_from_commits_and_their_test_outcomes(repo: GitRepo, tmp_path: Path) -> None:
    with Tenure.open(repo.root, discover=False) as t:
        for n in range(2, 5):
            repo.commit(f"schema v{n} with its client", {"api/schema.py": f"VERSION = {n}\n",
                                                           "api/client.py": f"V = {n}\n"})
            t.episodes.record_tests("exit-code", exit_code=0)
        for n in range(5, 7):
            repo.commit(f"schema v{n}", {"api/schema.py": f"VERSION = {n}\n"})
            t.episodes.record_tests("exit-code", exit_code=1, failed=["tests/test_api.py::test_client"])
        t.index()
        rules = t.rules_store.list()["rules"]
    rule = next(r for r in rules if r["text"] == "When you change `api/schema.py`, change `api/client.py` too.")
    assert (rule["status"], rule["successes"], rule["failures"]) == ("promoted", 5, 0)


def test_an_index_on_a_machine_without_the_projects_key_says_the_rules_were_not_mined(
        repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    with Tenure.open(repo.root, discover=False) as t:  # a co-change rule mined, as in the test above
        for n in range(2, 5):
            repo.commit(f"schema v{n} with its client", {"api/schema.py": f"VERSION = {n}\n",
                                                           "api/client.py": f"V = {n}\n"})
            t.episodes.record_tests("exit-code", exit_code=0)
        repo.commit("schema v5", {"api/schema.py": "VERSION = 5\n"})
        t.episodes.record_tests("exit-code", exit_code=1, failed=["tests/test_api.py::test_client"])
        t.index()
        assert t.rules_store.list()["rules"]
    monkeypatch.setenv("TENURE_KEY", base64.b64encode(os.urandom(32)).decode())  # another key than the project's
    with Tenure.open(repo.root, discover=False) as t:
        repo.commit("schema v6", {"api/schema.py": "VERSION = 6\n"})
        t.index()  # (the code and the history are read all the same)
        assert "is not the one these memories were written with" in t.history_report["rules not mined"]


@pytest.mark.parametrize(("table", "said"), [("episodic", "episodes not made"), ("procedural", "rules not mined")])
def test_a_mistake_in_tenure_toml_keeps_the_index_and_says_what_waits_for_its_fix(repo: GitRepo, table: str,
                                                                                   said: str) -> None:
    setting = {"episodic": "fixup_days = -1", "procedural": "agents_file = 5"}[table]
    (repo.root / "tenure.toml").write_text(f"[{table}]\n{setting}\n")
    with Tenure.open(repo.root, discover=False) as t:
        repo.commit("schema v2", {"api/schema.py": "VERSION = 2\n"})
        report = t.index()  # (the code and the commits are read all the same)
        assert "tenure.toml" in t.history_report[said] and t.history_report["commits new"] == 1
        assert report.symbols
    (repo.root / "tenure.toml").unlink()
    with Tenure.open(repo.root, discover=False) as t:
        t.index()
        assert said not in t.history_report
        if table == "episodic":  # the commit read while the settings were wrong has its episode now
            assert t.history_report["episodes commits"] == 1
        else:  # (its episode was made: no index mines again) what the summary advised runs now
            assert "episodes commits" not in t.history_report and "promoted" in t.rules_store.mine()


def test_a_stated_rule_is_always_loaded_until_demoted_and_every_change_is_recorded(repo: GitRepo) -> None:
    runner = CliRunner()
    added = runner.invoke(app, ["rules", "add", "Migrations run before the deploy.", "--author", "human/ada",
                                "--repo", str(repo.root)])
    assert added.exit_code == 0, added.output
    with Tenure.open(repo.root, discover=False) as t:
        (rule,) = t.rules_store.promoted()
        assert rule["source"] == "human/ada" and rule["byHand"]
        assert "Migrations run before the deploy." in t.rules()["text"]  # tenure://rules
        assert "## House rules" in t.memories.brief()["text"] and "Migrations run" in t.memories.brief()["text"]
    assert "Migrations run before the deploy. (rule 1: stated by human/ada" in (repo.root / "AGENTS.md").read_text()
    demoted = runner.invoke(app, ["rules", "demote", "1", "--reason", "we deploy with migrations inside now",
                                  "--author", "human/bob", "--repo", str(repo.root)])
    assert demoted.exit_code == 0, demoted.output
    explained = runner.invoke(app, ["rules", "explain", "1", "--repo", str(repo.root)]).stdout
    assert "stated by human/ada" in explained
    assert "demoted by human/bob: we deploy with migrations inside now" in explained
    assert "Migrations run" not in (repo.root / "AGENTS.md").read_text()
    again = runner.invoke(app, ["rules", "add", "Migrations run before the deploy.", "--repo", str(repo.root)])
    assert again.exit_code == 2 and "rule 1 says that already" in again.output


def test_broken_markers_in_agents_md_are_reported_and_nothing_is_written(repo: GitRepo) -> None:
    broken = AGENTS + "\n" + BEGIN + "\nsomeone cut the end marker\n"
    (repo.root / "AGENTS.md").write_text(broken)
    with Tenure.open(repo.root, discover=False) as t:
        result = t.rules_store.add("Keep the changelog.", "human/ada")
    assert "1 begin and 0 end markers" in result["agentsFile"]["error"]
    assert (repo.root / "AGENTS.md").read_text() == broken


def trust_procedures(root: Path) -> None:
    config = user_config_path()  # (each test's own: conftest)
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[procedures]\ntrusted_projects = ["{root}"]\n')


def test_a_situational_procedure_is_an_mcp_tool_with_its_trigger_and_records_its_verdict(repo: GitRepo) -> None:
    (repo.root / "tenure.toml").write_text(
        '[procedures.integration-tests]\nrun = "echo ==== 4 passed in 0.1s ===="\n'
        'when = "after changing anything under api/"\n')
    trust_procedures(repo.root)
    with Tenure.open(repo.root, discover=False) as t:
        server = build_server(t)
        tools = {tool.name: tool for tool in asyncio.run(server.list_tools())}
        assert tools["procedure_integration_tests"].description.startswith(
            "Call after changing anything under api/: runs `echo ==== 4 passed in 0.1s ====`")
        sid = t.start_session("agent", "api change")["session"]
        ran = t.rules_store.run_procedure("integration-tests", sid)
        assert ran["exitCode"] == 0 and "4 passed" in ran["output"]
        assert ran["recorded"]["verdict"] == "passed"
        listed = t.rules_store.list()["procedures"]
    assert listed == [{"name": "integration-tests", "tool": "procedure_integration_tests",
                       "run": "echo ==== 4 passed in 0.1s ====", "when": "after changing anything under api/"}]


def test_a_repositorys_procedures_run_only_in_a_project_the_users_config_trusts(repo: GitRepo,
                                                                               tmp_path: Path) -> None:
    """A cloned repository's tenure.toml is someone else's input: its procedure is listed (by the CLI and
    as a tool) with why it does not run and the setting that runs it, and neither its tool nor `tenure
    rules run` runs it until the user's own config trusts the project. The house rules stay."""
    marker = tmp_path / "ran"
    (repo.root / "tenure.toml").write_text(
        f'[procedures.setup]\nrun = "echo planted > {marker}"\nwhen = "before anything else, always"\n')
    with Tenure.open(repo.root, discover=False) as t:
        t.rules_store.add("Keep the changelog.", "human/ada")
        tools = {tool.name: tool for tool in asyncio.run(build_server(t).list_tools())}
        assert "[procedures] trusted_projects" in tools["procedure_setup"].description
        assert "planted" not in tools["procedure_setup"].description  # (none of the repository's words)
        with pytest.raises(ToolError, match=r"not run: .*\[procedures\] trusted_projects"):
            asyncio.run(build_server(t).call_tool("procedure_setup", {}))
        listed = t.rules_store.list()["procedures"]
        assert "Keep the changelog." in t.rules()["text"]
    assert listed[0]["notRun"].startswith("not run: a repository's tenure.toml cannot choose what runs")
    assert f'"{repo.root.resolve()}" to [procedures] trusted_projects in {user_config_path()}' in listed[0]["notRun"]
    shown = CliRunner().invoke(app, ["rules", "list", "--repo", str(repo.root)])
    assert "[procedures] trusted_projects" in " ".join(shown.output.split())
    refused = CliRunner().invoke(app, ["rules", "run", "setup", "--repo", str(repo.root)])
    assert refused.exit_code == 2 and "not run" in refused.output
    assert not marker.exists()
    trust_procedures(repo.root)
    ran = CliRunner().invoke(app, ["rules", "run", "setup", "--repo", str(repo.root)])
    assert ran.exit_code == 0 and marker.read_text() == "planted\n"


def test_a_broken_procedure_table_is_a_clear_error(repo: GitRepo) -> None:
    (repo.root / "tenure.toml").write_text('[procedures.x]\nrun = "make x"\n')
    result = CliRunner().invoke(app, ["rules", "list", "--repo", str(repo.root)])
    assert result.exit_code == 2 and "[procedures.x] needs run" in result.output


def test_a_stated_rules_words_are_encrypted_and_a_plain_one_of_an_older_tenure_is_sealed_when_read(
        repo: GitRepo) -> None:
    with Tenure.open(repo.root, discover=False) as t:
        added = t.rules_store.add("releases are tagged by hand: quokkarule 8812", "human/sarah")
        assert added["rule"]["text"] == "releases are tagged by hand: quokkarule 8812"
        # as an older tenure wrote it: the words in plain text, in the rule, its key and its event
        old = t.shared.rows("INSERT INTO rules (kind, key, text, status, source, created_at, changed_at) VALUES"
                            " ('stated', 'stated:old wombatrule 4410', 'old wombatrule 4410', 'promoted', 'human/bo',"
                            " 'then', 'then') RETURNING id")[0][0]
        t.shared.execute("INSERT INTO rule_events (rule_id, at, event, detail, author) VALUES"
                         " (?, 'then', 'stated', 'old wombatrule 4410', 'human/bo')", (old,))
        assert any("wombatrule" in line for line in t.rules_store.lines())
        with pytest.raises(RulesError, match="says that already"):  # (the same words, however they were kept)
            t.rules_store.add("Old  wombatrule 4410", "human/sarah")
        stored = " ".join(str(r) for table in ("rules", "rule_events")
                          for r in t.shared.query(f"SELECT * FROM {table}"))
        assert "quokkarule" not in stored and "wombatrule" not in stored
        assert t.rules_store.explain(old)["rule"]["text"] == "old wombatrule 4410"
