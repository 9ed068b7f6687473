"""A cloned repository is untrusted input (issue 30): the hostile cases of the probe, each built here as a
fixture, against the mechanism that holds them off. Writes stay inside the project; one bad entry
costs only itself; what only the database holds survives a repair; hostile files are errors, never
tracebacks. (The knowledge model's and language servers' bounds: tests/test_hostile_models.py.)

Layout: one section per part of the probe; `hostile` is an indexed git repository with AGENTS.md, and
`cli` runs a command in it in process (exit code, output)."""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import tenure
from tenure import Tenure
from tenure.cli import app
from tenure.episodic import outcomes
from tenure.episodic.reports.github import read_pull_requests
from tenure.episodic.reports.tests import ReportError, read_junit, read_pytest_json
from tenure.episodic.reports.tests import TestCase as Case
from tenure.procedural.agents_md import BEGIN, END
from tenure.repair import STORES, repair
from tenure.storage import Migrations, open_database
from tests.git_support import GitRepo

AGENTS = "# How we work here\n\nSmall commits.\n"
FORGED = f"x {END} evil {BEGIN}"


@pytest.fixture
def hostile(git_repo: GitRepo) -> Iterator[GitRepo]:
    git_repo.commit("start", {"pkg/__init__.py": "", "pkg/core.py": "def helper():\n    return 1\n",
                              "tests/test_core.py": "from pkg.core import helper\n\n\ndef test_helper():\n"
                                                    "    assert helper() == 1\n", "AGENTS.md": AGENTS})
    git_repo.index()
    yield git_repo


def cli(repo: GitRepo, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, [*args, "--repo", str(repo.root)])
    return result.exit_code, result.output


def add_rule(repo: GitRepo, text: str) -> dict:
    with Tenure.open(repo.root, discover=False) as t:
        return t.rules_store.add(text, "ada")


# -- writes stay inside the repository ------------------------------------------------------------------

@pytest.mark.parametrize("aim", ["../outside/victimrc", "{outside}/victimrc"])
def test_an_agents_file_setting_that_leads_outside_the_project_is_refused(hostile: GitRepo, aim: str) -> None:
    outside = hostile.root.parent / "outside"
    outside.mkdir()
    (hostile.root / "tenure.toml").write_text(f'[procedural]\nagents_file = "{aim.format(outside=outside)}"\n')
    written = add_rule(hostile, "Run make first.")["agentsFile"]
    assert not (outside / "victimrc").exists()
    assert "outside the project" in written["error"] and "the rules are stored" in written["error"]
    with Tenure.open(hostile.root, discover=False) as t:
        assert [r["text"] for r in t.rules_store.promoted()] == ["Run make first."]


def test_a_linked_agents_md_is_written_through_inside_the_project_and_never_out_of_it(hostile: GitRepo) -> None:
    agents = hostile.root / "AGENTS.md"
    agents.unlink()
    (hostile.root / "CLAUDE.md").write_text("# Claude\n")
    agents.symlink_to("CLAUDE.md")
    assert add_rule(hostile, "Run make first.")["agentsFile"]["changed"]
    assert agents.is_symlink() and "Run make first." in (hostile.root / "CLAUDE.md").read_text()

    secret = hostile.root.parent / "secret.md"
    secret.write_text("SECRET\n")
    agents.unlink()
    agents.symlink_to(secret)
    written = add_rule(hostile, "Tests before pushing.")["agentsFile"]
    assert "outside the project" in written["error"]
    assert agents.is_symlink() and secret.read_text() == "SECRET\n"


def test_rule_text_cannot_forge_the_managed_section_markers(hostile: GitRepo) -> None:
    forged = add_rule(hostile, FORGED)["rule"]["id"]
    plain = add_rule(hostile, "Run make first.")["rule"]["id"]
    text = (hostile.root / "AGENTS.md").read_text()
    assert (text.count(BEGIN), text.count(END)) == (1, 1)
    with Tenure.open(hostile.root, discover=False) as t:
        assert "error" not in t.rules_store.demote(plain, "ada")["agentsFile"]
        t.rules_store.demote(forged, "ada")
    assert "Run make first." not in (hostile.root / "AGENTS.md").read_text()


@pytest.mark.parametrize("spoil", ["not-utf8", "read-only"])
def test_an_agents_md_tenure_cannot_update_is_kept_as_it_is_with_a_clear_error(hostile: GitRepo, spoil: str) -> None:
    agents = hostile.root / "AGENTS.md"
    if spoil == "not-utf8":
        agents.write_bytes(b"\xff\xfe caf\xe9\n")
    else:
        agents.chmod(0o444)
    before = agents.read_bytes()
    code, output = cli(hostile, "rules", "add", "Run make first.")
    assert code == 0 and "Traceback" not in output
    assert ("not UTF-8" if spoil == "not-utf8" else "read-only") in output and "not updated" in output
    assert agents.read_bytes() == before


def test_leftover_temporary_files_are_removed_and_a_held_one_is_kept(tmp_path: Path) -> None:
    from tenure.files import write_atomic

    target = tmp_path / "AGENTS.md"
    (tmp_path / ".AGENTS.md.k2j4h5g6.tmp").write_bytes(b"x" * 1000)  # an earlier version's, killed
    (tmp_path / ".AGENTS.md.tenure-1.tmp").write_bytes(b"y")
    write_atomic(target, "new\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["AGENTS.md"]


def test_a_committed_state_folder_named_for_no_possible_process_is_no_crash(tmp_path: Path) -> None:
    """A clone's .tenure/ may hold any `lsp-tmp-<pid>-…`: a number no pid_t holds (os.kill raised
    OverflowError, every enrich and index a traceback) or "²" (a digit to isdigit, no int) is skipped."""
    from tenure.state import process_alive, process_folder

    for name in ("lsp-tmp-99999999999999999999-x", "lsp-tmp-2147483648-x", "lsp-tmp-\u00b2-x", "lsp-tmp-0-x"):
        (tmp_path / name).mkdir()
    process_folder(str(tmp_path), "lsp-tmp-").cleanup()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lsp-tmp-99999999999999999999-x", "lsp-tmp-\u00b2-x"]
    assert not any(process_alive(pid) for pid in (0, -1, 2**31, 10**20)) and process_alive(os.getpid())


def test_a_link_planted_under_the_temporary_name_is_never_written_through(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from tenure.files import write_atomic

    monkeypatch.delattr(os, "O_TMPFILE", raising=False)  # the named temporary file (macOS, some file systems)
    victim = tmp_path / "victim"
    victim.write_text("SECRET\n")
    project = tmp_path / "project"
    project.mkdir()
    (project / f".AGENTS.md.tenure-{os.getpid()}.tmp").symlink_to(victim)
    write_atomic(project / "AGENTS.md", "new\n")
    assert victim.read_text() == "SECRET\n"
    assert not (project / "AGENTS.md").is_symlink() and (project / "AGENTS.md").read_text() == "new\n"
    assert sorted(p.name for p in project.iterdir()) == ["AGENTS.md"]


def test_a_writer_killed_once_the_content_is_written_leaves_no_temporary_file(tmp_path: Path) -> None:
    # killed with the whole section written and its mode about to be set: the content has no name yet
    code = ("import os, signal\nfrom pathlib import Path\nfrom tenure.procedural import agents_md\n"
            "os.chmod = os.fchmod = lambda *_: os.kill(os.getpid(), signal.SIGKILL)\n"
            f"agents_md.write(Path({str(tmp_path / 'AGENTS.md')!r}), ['- x' * 100] * 10_000)\n")
    killed = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert killed.returncode == -signal.SIGKILL
    assert list(tmp_path.iterdir()) == []


def test_paths_tenure_writes_must_lead_inside_the_project(tmp_path: Path) -> None:
    from tenure.files import RefusedWrite, project_path

    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "up").symlink_to(tmp_path)
    assert project_path(root, "docs/AGENTS.md", "x") == (root / "docs" / "AGENTS.md").resolve()
    for aim in ("../x", str(tmp_path / "x"), "up/x", "docs/../../x"):
        with pytest.raises(RefusedWrite, match="outside the project"):
            project_path(root, aim, "[procedural] agents_file")
    with pytest.raises(RefusedWrite, match="inside git's own directory"):
        project_path(root, ".git/hooks/pre-commit", "[procedural] agents_file")


def test_setup_and_the_state_directory_refuse_links_out_of_the_project(hostile: GitRepo, tmp_path: Path) -> None:
    from tenure.files import RefusedWrite

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (hostile.root / ".claude").symlink_to(outside)
    code, output = cli(hostile, "setup", "claude")
    assert code == 2 and "outside the project" in output and list(outside.iterdir()) == []

    fresh = GitRepo(tmp_path / "fresh")
    fresh.commit("start", {"a.py": "x = 1\n"})
    (fresh.root / ".tenure").symlink_to(outside)
    with pytest.raises(RefusedWrite, match="the state directory"):
        Tenure.open(fresh.root, discover=False)
    assert list(outside.iterdir()) == []



@pytest.mark.parametrize("name", ["intent-phrases.msgpack", "embed.log", "tenure.db", "hooks"])
def test_a_link_a_repository_put_inside_the_state_directory_is_never_written_through(
        git_repo: GitRepo, tmp_path: Path, name: str) -> None:
    from tenure.files import RefusedWrite

    victim = tmp_path / "victim"
    victim.write_text("SECRET\n")
    (git_repo.root / ".tenure").mkdir()
    (git_repo.root / ".tenure" / name).symlink_to(victim)  # a `.tenure/` committed with a link in it
    git_repo.commit("start", {"a.py": "def f():\n    return 1\n"})
    with pytest.raises(RefusedWrite, match=f"{name} is a link"):
        Tenure.open(git_repo.root, discover=False)
    assert victim.read_text() == "SECRET\n"


# -- one bad entry costs only itself -----------------------------------------------------------------------

def test_a_pull_request_number_past_any_database_integer_is_skipped_and_its_neighbour_stored(
        hostile: GitRepo, tmp_path: Path) -> None:
    export = tmp_path / "prs.json"
    valid = {"number": 7, "title": "valid", "state": "MERGED", "files": [{"path": "pkg/core.py"}]}
    export.write_text(json.dumps([{"number": 10**30, "title": "huge", "state": "MERGED"}, valid]))
    with Tenure.open(hostile.root, discover=False) as t:
        result = t.episodes.ingest_pull_requests(export)
        assert result["pullRequests"] == 1 and "larger than any GitHub gives" in result["problems"][0]
        assert t.db.rows("SELECT ref FROM episodes WHERE kind = 'pr'") == [("7",)]


def test_importing_threads_keeps_the_good_threads_of_a_file_with_a_bad_one(hostile: GitRepo, tmp_path: Path) -> None:
    export = tmp_path / "threads.json"
    export.write_text(json.dumps([{"number": 1, "title": "Cap retries", "body": "the SLA says three"}, "junk",
                                  {"number": 10**30, "title": "huge"}, {"number": 3, "title": "Another"}]))
    with Tenure.open(hostile.root, discover=False) as t:
        report = t.knowledge.import_threads([export])
    assert report["imported"] == [".tenure/threads/issue-1.json", ".tenure/threads/issue-3.json"]
    assert [f["reason"].split(": ", 1)[0] for f in report["failed"]] == [f"{export}[1]", f"{export}[2]"]


# -- a repository's settings choose no program to run ----------------------------------------------------

def test_a_language_server_command_a_repository_names_runs_only_when_the_users_config_allows_it(
        make_indexed_repo, tmp_path: Path) -> None:
    from tenure.structural.lsp.enrich import Enricher
    from tenure.structural.lsp.servers import servers_for
    from tenure.team.user_config import user_config_path

    mark = tmp_path / "ran"
    command = [sys.executable, "-c", f"open({str(mark)!r}, 'w')"]
    root = make_indexed_repo({"app.py": "def f():\n    return 1\n",
                              "tenure.toml": f"[lsp.python]\ncommand = {json.dumps(command)}\n"})
    with Tenure.open(root, discover=False) as t:  # `tenure index` starts enrichment on its own
        said = t.index().sources["lsp"]["not run for python"]
    assert "a repository cannot choose what runs on this machine" in said and "[lsp] allowed_commands" in said
    assert servers_for(root, {"python"})["python"].command[0] == "basedpyright-langserver"

    user_config_path().parent.mkdir(parents=True, exist_ok=True)
    user_config_path().write_text(f"[lsp]\nallowed_commands = [{json.dumps(command)}]\n")
    assert list(servers_for(root, {"python"})["python"].command) == command
    with Tenure.open(root, discover=False) as t:
        report = Enricher(t.root, t.db, timeout=5, max_restarts=0).run()
    assert mark.exists() and not report.refused


# -- hostile files are errors, never tracebacks ------------------------------------------------------------

def test_thread_folders_and_links_that_lead_out_of_the_repository_are_named_and_never_read(tmp_path: Path) -> None:
    from tenure.knowledge.sources import threads

    export = json.dumps({"number": 7, "title": "A thread from elsewhere", "body": "Not this repository's."})
    outside = tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    (outside / "deep" / "7.json").write_text(export)
    root = tmp_path / "repo"
    (root / "prs").mkdir(parents=True)
    (root / "prs" / "8.json").write_text(export.replace("7", "8"))
    (root / "prs" / "linked.json").symlink_to(outside / "deep" / "7.json")
    (root / "prs" / "folder").symlink_to(outside)  # (a linked folder is not gone into)
    read = list(threads.read(root, ("../outside", str(outside), "prs")))
    assert [d.key for d in read if not isinstance(d, threads.Skipped)] == ["issue:8"]
    skipped = {s.path: s.reason for s in read if isinstance(s, threads.Skipped)}
    assert skipped.keys() == {"../outside", str(outside), "prs/linked.json"}
    assert all("outside the repository" in reason for reason in skipped.values())


def test_threads_folders_and_document_globs_outside_the_repository_are_named_by_index_and_knowledge_check(
        hostile: GitRepo, tmp_path: Path) -> None:
    # (`[knowledge] threads = ["../exports"]` was skipped in silence: `tenure index` and `tenure knowledge
    # check` said nothing of it, the check then advised exporting threads)
    (tmp_path / "exports").mkdir()
    (tmp_path / "exports" / "7.json").write_text(json.dumps({"number": 7, "title": "Elsewhere", "body": "x"}))
    hostile.commit("threads", {"tenure.toml": '[knowledge]\nthreads = ["../exports"]\n'
                                              'documents = ["../exports/*.md", "/etc/*.conf", "*.md"]\n'})
    said = "outside the repository"
    code, output = cli(hostile, "knowledge", "check")
    assert code == 0 and f"skipped ../exports: {said}" in output, output
    assert f"skipped ../exports/*.md: {said}" in output and f"skipped /etc/*.conf: {said}" in output
    assert "skipped *.md" not in output
    result = CliRunner().invoke(app, ["index", str(hostile.root)])
    line = " ".join(result.output.split())
    assert result.exit_code == 0 and f"not read ../exports/*.md: {said}" in line and f"; ../exports: {said}" in line, \
        result.output


def test_an_index_report_prints_a_path_that_looks_like_markup_as_it_is(hostile: GitRepo) -> None:
    (hostile.root / "x[").mkdir()
    (hostile.root / "x[/evil].jar").write_text("not a jar")  # reported by the JVM source with its path
    (hostile.root / "A.java").write_text("class A { void m() {} }\n")
    result = CliRunner().invoke(app, ["index", str(hostile.root)])
    assert result.exit_code == 0 and "x[/evil].jar: not a readable jar" in result.output, result.output


def test_terminal_controls_in_commits_and_memories_are_printed_as_escapes_never_sent_to_the_terminal(
        hostile: GitRepo) -> None:
    clipboard = "\x1b]52;c;ZXZpbA==\x07"  # OSC 52: the terminal writes its clipboard
    hostile.commit(f"helper: one more {clipboard}\x1b[2J", {"pkg/core.py": "def helper():\n    return 2\n"})
    hostile.index()
    assert cli(hostile, "remember", f"helper is slow {clipboard}", "--kind", "pitfall", "-e", "pkg.core.helper")[0] == 0
    for command in (["brief"], ["history", "pkg.core.helper"], ["why", "pkg.core.helper"],
                    ["ask", "I am changing pkg.core.helper: has anyone tried before?"]):
        code, output = cli(hostile, *command)
        assert code == 0 and "\\x1b]52;c;ZXZpbA==" in output and "\x1b" not in output and "\x07" not in output, \
            (command, output)


def test_jvm_inputs_that_lead_out_of_the_repository_are_named_and_read_only_when_the_user_names_them(
        tmp_path: Path) -> None:
    from tenure.structural.jvm.discover import find_inputs

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "lib.jar").write_bytes(b"PK")
    (outside / "actuator-beans.json").write_text(json.dumps({"contexts": {}}))
    root = tmp_path / "repo"
    (root / "libs").mkdir(parents=True)
    (root / "libs" / "mine.jar").write_bytes(b"PK")
    (root / "libs" / "linked.jar").symlink_to(outside / "lib.jar")
    (root / "actuator-beans.json").symlink_to(outside / "actuator-beans.json")
    (root / "tenure.toml").write_text(
        f'[jvm]\nclasspath = ["../outside/lib.jar", "libs/mine.jar", "{outside}"]\n'
        f'beans = ["/etc/passwd", {{ path = "../outside/actuator-beans.json", profile = "prod" }}]\n')
    inputs = find_inputs(root)
    assert [o.name for o in inputs.origins] == ["libs/mine.jar"] and inputs.beans == []
    said = "\n".join(inputs.outside)
    assert "libs/linked.jar: a link to outside the repository" in said
    assert "actuator-beans.json: a link to outside the repository" in said
    assert said.count("[jvm] classpath leads outside the repository") == 2
    assert said.count("[jvm] beans leads outside the repository") == 2 and "`tenure di ingest /etc/passwd`" in said
    assert str(outside / "lib.jar") in [str(o.path) for o in find_inputs(root, [str(outside / "lib.jar")]).origins]


@pytest.mark.parametrize("table", ['classpath = "libs"', "classpath = [1]", 'beans = [{ profile = "prod" }]'])
def test_a_malformed_jvm_table_is_an_error_that_names_the_setting(tmp_path: Path, table: str) -> None:
    from tenure.structural.jvm.discover import JvmInputError, find_inputs

    (tmp_path / "tenure.toml").write_text(f"[jvm]\n{table}\n")
    with pytest.raises(JvmInputError, match=r"tenure.toml: \[jvm\] (classpath|beans) must be a list of paths"):
        find_inputs(tmp_path)


@pytest.mark.parametrize("model", [
    "provider = 3",  # not a provider
    'provider = "openai"\nurl = "https://llm.example/v1"\nmodel = "m"',  # where the user's key may not go
])
def test_a_wrong_knowledge_model_table_is_an_error_naming_it_that_stops_no_index_and_no_ask(
        hostile: GitRepo, model: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TENURE_LLM_API_KEY", "sk-user")
    (hostile.root / "tenure.toml").write_text(f"[knowledge.model]\n{model}\n")
    indexed = CliRunner().invoke(app, ["index", str(hostile.root)])
    assert indexed.exit_code == 0 and indexed.exception is None, indexed.output
    assert "knowledge: unavailable" in indexed.output and "[knowledge.model]" in indexed.output
    code, output = cli(hostile, "ask", "I am changing helper: what breaks?")
    assert code == 0 and "the model's settings are wrong" in output and "tenure.toml" in output, output


@pytest.mark.parametrize(("model", "said"), [
    ('price_in = "free"\nprice_out = 1', "[knowledge.model] price_in must be 0 or a number above 0, not 'free'"),
    ("price_in = 0.1", "[knowledge.model] price_in needs price_out beside it"),  # (was silently no price)
    ("price_in = 0.1\nprice_out = true", "[knowledge.model] price_out must be 0 or a number above 0, not True"),
])
def test_a_wrong_model_price_is_an_error_naming_the_file_and_the_setting(
        hostile: GitRepo, model: str, said: str) -> None:
    (hostile.root / "tenure.toml").write_text(f"[knowledge.model]\n{model}\n")
    code, output = cli(hostile, "knowledge", "check")
    assert code == 2 and f"tenure.toml: {said}" in " ".join(output.split()), output


@pytest.mark.parametrize(("table", "said"), [
    ("[procedural]\npromote_after = inf", "[procedural] promote_after must be a whole number above 0, not inf"),
    ("[procedural]\npromote_after = 2.5", "[procedural] promote_after must be a whole number above 0, not 2.5"),
    ("[procedural]\nmin_agreement = 7", "[procedural] min_agreement must be a share above 0 and at most 1, not 7"),
    ("[episodic]\nexpiry_edges = nan", "[episodic] expiry_edges must be a share above 0 and at most 1, not nan"),
    ("[episodic]\nfixup_days = inf", "[episodic] fixup_days must be a number above 0, not inf"),
])
def test_a_setting_that_is_no_usable_number_is_an_error_naming_it_not_a_traceback(
        hostile: GitRepo, table: str, said: str) -> None:
    (hostile.root / "tenure.toml").write_text(f"{table}\n")
    indexed = CliRunner().invoke(app, ["index", str(hostile.root)])
    assert indexed.exit_code == 0 and indexed.exception is None, indexed.output
    code, output = cli(hostile, "rules" if "procedural" in table else "history", *(
        ["list"] if "procedural" in table else ["pkg.core.helper"]))
    assert code == 2 and said in " ".join(output.split()), output


@pytest.mark.parametrize("value", ["inf", "nan", "-3"])
def test_an_lsp_bound_that_bounds_nothing_is_an_error_naming_it(tmp_path: Path, value: str) -> None:
    from tenure.structural.lsp.bounds import Bounds

    with pytest.raises(ValueError, match=rf"\[lsp\] max_minutes must be a number above 0, not {value}"):
        Bounds.of({"max_minutes": float(value)}, "tenure.toml")


@pytest.mark.parametrize(("toml", "said"), [
    ('[lsp]\npython = "pyright"\n', "[lsp] has no setting 'python'"),  # a string where [lsp.python] belongs
    ("[lsp]\nmax_minuts = 5\n", "[lsp] has no setting 'max_minuts'"),
    ('[lsp]\nmax_minutes = "free"\n', "[lsp] max_minutes must be a number above 0, not 'free'"),
    ('[lsp.python]\ncomand = ["x"]\n', "[lsp.python] has no setting 'comand'"),
    ('[lsp.python]\nready_log = "x"\n', "[lsp.python] needs a command"),
    ('[lsp.python]\ncommand = ["x"]\nready_log = 3\n', "[lsp.python] ready_log must be a string"),
    ('[lsp.python]\ncommand = ["x"]\nready_log = "(("\n', "[lsp.python] ready_log is no regular expression"),
])
def test_a_wrong_lsp_setting_is_an_error_naming_the_file_and_the_setting(tmp_path: Path, toml: str, said: str) -> None:
    from tenure.config import ConfigError
    from tenure.structural.lsp.servers import plan

    (tmp_path / "tenure.toml").write_text(toml)
    with pytest.raises(ConfigError) as raised:  # what `tenure index` and `tenure enrich` report
        plan(tmp_path, {"python"})
    assert str(raised.value).startswith(f"{tmp_path / 'tenure.toml'}: ") and said in str(raised.value)


def test_json_nested_far_too_deep_is_stepped_over_and_the_rest_read(tmp_path: Path) -> None:
    deep = "[" * 200_000 + "]" * 200_000
    report = tmp_path / "deep.json"
    report.write_text('{"tests": [' + deep + ', {"nodeid": "t.py::test_a", "outcome": "failed"}], "exitcode": 1}')
    read = read_pytest_json(report)
    assert [c.id for c in read.failures] == ["t.py::test_a"] and read.exit_code == 1
    assert "nested too deeply" in read.problems[0]
    pulls = tmp_path / "prs.json"
    pulls.write_text('[{"number": 8, "title": "t", "state": "MERGED", "files": ' + "[" * 100_000 + '"]\\""' +
                     "]" * 100_000 + '}, {"number": 9, "title": "ok", "state": "OPEN"}]')
    export = read_pull_requests(pulls)
    assert [p.number for p in export.pulls] == [9] and "nested too deeply" in export.problems[0]


def test_a_file_that_is_not_junit_or_names_no_test_records_no_passed_run(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text("<html><body><p>hello</p><testcase/></body></html>\n")
    with pytest.raises(ReportError, match="root element is <html>"):
        read_junit(page)
    nameless = tmp_path / "junit.xml"
    nameless.write_text("<testsuite><testcase/></testsuite>")
    report = read_junit(nameless)
    assert report.passed == 0 and report.verdict == "incomplete" and "without a name" in report.problems[0]


def test_malformed_pytest_entries_are_skipped_and_named_not_counted_as_failures(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    tests = [5, "x", None, {"nodeid": "t.py::test_a", "outcome": "passed"}]
    path.write_text(json.dumps({"exitcode": 0, "tests": tests}))
    report = read_pytest_json(path)
    assert (report.passed, report.failed) == (1, 0)
    assert [p.split(": ", 1)[0] for p in report.problems] == [f"tests entry {n} skipped" for n in (1, 2, 3)]


def test_failing_tests_are_looked_up_once_per_test_and_not_at_all_when_no_symbol_has_their_name(
        hostile: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    looked_up: list[tuple] = []
    real = outcomes.test_symbol
    monkeypatch.setattr(outcomes, "test_symbol", lambda db, *a: looked_up.append(a[:2]) or real(db, *a))
    cases = [Case(f"tests/test_gen.py::test_generated_{i}", "failed") for i in range(500)]
    cases += [Case(f"tests/test_core.py::test_helper[{i}]", "failed") for i in range(500)]
    with Tenure.open(hostile.root, discover=False) as t, t.db.transaction():
        rows = outcomes.add_tests(t.shared, t.db, outcomes.add(t.shared, "junit", "failed", "2026-01-01", {}), cases)
    assert looked_up == [("tests/test_core.py", ("test_helper",))]
    found = rows[500]["fqn"]
    assert found.endswith("test_core.test_helper") and {r["fqn"] for r in rows[500:]} == {found}
    assert rows[0]["fqn"] is None and rows[500]["underTest"] == ["pkg.core.helper"]


def test_a_knowledge_build_while_another_runs_names_it_and_an_index_skips_its_own(hostile: GitRepo) -> None:
    from tenure.knowledge.api import BuildRunning
    from tenure.state import KNOWLEDGE_LOCK, process_lock, state_dir

    with process_lock(state_dir(hostile.root), KNOWLEDGE_LOCK) as held, Tenure.open(hostile.root, discover=False) as t:
        assert held
        with pytest.raises(BuildRunning, match=f"being built by process {os.getpid()}"):
            t.knowledge.build(offline=True)
        assert "being built" in t.knowledge.after_index()["skipped"]


# -- nothing accepted is lost ------------------------------------------------------------------------------

def every_schema() -> set[str]:
    """Every store's migrations, found by importing every module of tenure (a new store is found too)."""
    found = set()
    for info in pkgutil.walk_packages(tenure.__path__, "tenure."):
        if not info.name.endswith("__main__"):
            module = importlib.import_module(info.name)
            found |= {value.store for value in vars(module).values() if isinstance(value, Migrations)}
    return found


def fill_every_table(database: Path) -> dict[str, list[tuple]]:
    """One row in every table of every store, made in the order the tables were (a referenced row exists
    first), a reference naming the row it refers to."""
    db = open_database(database)
    try:
        for schema, _ in STORES:
            schema.apply(db)
        rows: dict[str, list[tuple]] = {}
        for (table,) in db.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' "
                                "ESCAPE '\\' ORDER BY rowid"):
            refers = {r["from"]: (r["table"], r["to"]) for r in db.query(f'PRAGMA foreign_key_list("{table}")')}
            values = []
            for column in db.query(f'PRAGMA table_info("{table}")'):
                if column["name"] in refers:
                    parent, key = refers[column["name"]]
                    found = db.rows(f'SELECT {key or "rowid"} FROM "{parent}"')
                    values.append(found[0][0] if found else None)  # (a row of its own table: none yet)
                else:
                    values.append(_value(column["type"], column["name"]))
            db.execute(f'INSERT INTO "{table}" VALUES ({", ".join("?" * len(values))})', values)
            rows[table] = _plain(db.rows(f'SELECT * FROM "{table}"'))
        return rows
    finally:
        db.close()


def _plain(rows: list[tuple]) -> list[tuple]:
    """Rows comparable with `==`: a VECTOR column's array as its bytes."""
    return [tuple(v.tobytes() if hasattr(v, "tobytes") else v for v in row) for row in rows]


def _value(kind: str, name: str) -> object:
    if "INT" in kind.upper():
        return 1
    if kind.upper() in ("REAL", "FLOAT"):
        return 0.5
    if kind.upper() == "BLOB":
        return b"\x01"
    if kind.upper() == "VECTOR":  # (read back as an array of float32)
        return b"\x00\x00\x00\x3f"
    return {"kind": "pr", "status": "promoted"}.get(name, f"{name}-1")


def test_a_repair_keeps_every_row_the_repository_cannot_rebuild(tmp_path: Path) -> None:
    assert every_schema() == {schema.store for schema, _ in STORES}  # a store repair does not know fails here
    root = tmp_path / "repo"
    database = root / ".tenure" / "tenure.db"
    database.parent.mkdir(parents=True)
    filled = fill_every_table(database)
    result = repair(root, lambda: {})  # (the index that follows would rebuild the derived tables)
    kept = {k["table"]: k for k in result["kept"]}
    assert set(kept) | set(result["rebuilt"]) == set(filled)  # every table decided
    for table in ("memories", "memory_sessions", "episodes", "outcomes", "outcome_tests", "conclusions", "epochs",
                  "rules", "rule_events", "history_commits", "knowledge_calls"):
        assert table in kept
    db = open_database(database)
    try:
        for table, rows in filled.items():
            if table in kept:
                # (one row each, and what a migration seeds: history_meta's commit count)
                assert (kept[table]["before"], kept[table]["rows"]) == (len(rows), len(rows)), table
                assert _plain(db.rows(f'SELECT * FROM "{table}"')) == rows, table
    finally:
        db.close()


def test_a_table_no_one_decided_about_stops_a_repair_before_it_changes_anything(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tenure.storage import StorageError

    undecided = Migrations("undecided")
    undecided(lambda db: db.execute("CREATE TABLE surprise (id INTEGER PRIMARY KEY)"))
    monkeypatch.setattr("tenure.repair.STORES", [*STORES, (undecided, {})])
    root = tmp_path / "repo"
    database = root / ".tenure" / "tenure.db"
    database.parent.mkdir(parents=True)
    fill_every_table(database)
    before = database.read_bytes()
    with pytest.raises(StorageError, match="the table surprise"):
        repair(root, lambda: {})
    assert database.read_bytes() == before


def test_commits_lost_with_a_damaged_page_are_read_from_git_again(git_repo: GitRepo) -> None:
    from tests.test_repair import damage, leaf_pages

    for n in range(40):  # (long messages: the commits fill several pages)
        git_repo.commit(f"change {n}\n\n" + f"why change {n} was made. " * 40, {"a.py": f"x = {n}\n"})
    git_repo.index()
    with Tenure.open(git_repo.root, discover=False) as t:
        t.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    database = git_repo.root / ".tenure" / "tenure.db"
    first, *others = leaf_pages(database, "history_commits")
    assert others, "the commits fit on one page: write longer messages"
    damage(database, first)

    def index() -> dict:
        with Tenure.open(git_repo.root, discover=False) as t:
            return t.index().as_dict()

    result = repair(git_repo.root, index)
    assert result["history_read_again"]
    assert next(k for k in result["kept"] if k["table"] == "history_commits")["unreadable"]
    with Tenure.open(git_repo.root, discover=False) as t:
        assert t.db.rows("SELECT COUNT(*) FROM history_commits")[0][0] == 40


def test_a_project_folders_own_git_config_runs_no_fsmonitor_program_when_indexed(tmp_path: Path) -> None:
    """A project folder copied or unpacked whole (not cloned) brings its .git/config: core.fsmonitor names
    a program git runs whenever it looks at the work tree, as tenure's ls-files, diff and rev-parse do."""
    import subprocess

    from tenure import Tenure

    marker = tmp_path / "ran"
    hook = tmp_path / "hook.sh"
    hook.write_text(f"#!/bin/sh\necho ran >> '{marker}'\n")
    hook.chmod(0o755)
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_text("def f():\n    return 1\n")
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "a"],
                 ["config", "core.fsmonitor", str(hook)]):
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)
    (root / "a.py").write_text("def f():\n    return 2\n")  # (a working-tree change: tenure diffs it)
    with Tenure.open(root, discover=False) as t:
        t.index()
    assert not marker.exists()
