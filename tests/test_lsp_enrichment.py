"""Background enrichment with a real type checker (basedpyright, installed with tenure): confirmed
edges become `resolved`, ambiguous ones are narrowed, contradicted ones are kept as refuted, missed
ones are added; only changed files are verified again; broken servers leave tree-sitter's tiers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner

import tenure
from tenure import Tenure
from tenure.cli import app
from tenure.relaunch import cli_argv
from tenure.structural.lsp.bounds import Bounds
from tenure.structural.lsp.enrich import Enricher
from tenure.structural.lsp.servers import bounds_for
from tenure.structural.lsp.state import LspState, enrich_lock, lock_held
from tenure.team.user_config import user_config_path

BROKEN_SERVER = Path(__file__).with_name("broken_lsp_server.py")
SRC = str(Path(tenure.__file__).parents[1])  # the tenure under test, for the processes a test starts
FILES = {
    "app/__init__.py": "",
    "app/shapes.py": (
        "class Circle:\n"
        "    def area(self):\n"
        "        return 3\n"
        "\n\n"
        "class Square:\n"
        "    def area(self):\n"
        "        return 4\n"
        "\n\n"
        "class Registry:\n"
        "    def keys(self):\n"
        "        return []\n"
    ),
    "app/report.py": (
        "from app.shapes import Circle\n"
        "\n\n"
        "def first(shapes: list[Circle]):\n"
        "    for s in shapes:\n"
        "        s.area()\n"  # ambiguous for tree-sitter (untyped loop variable); Circle.area for the checker
        "\n\n"
        "def names(d: dict):\n"
        "    return d.keys()\n"  # tree-sitter guesses Registry.keys by name (ambiguous); the checker says dict.keys
        "\n\n"
        "def build():\n"
        "    return Circle()\n"
    ),
}
# Nine classes share a method name: tree-sitter keeps the site once with no target (too many candidates).
MANY = "".join(f"class C{i}:\n    def run(self):\n        return {i}\n\n\n" for i in range(1, 10)) + (
    "def go(items: list[C1]):\n    return items[0].run()\n"
)
CIRCLE, SQUARE, KEYS = "app.shapes.Circle.area", "app.shapes.Square.area", "app.shapes.Registry.keys"


def user_server(*command: str) -> None:
    """The Python server's command in the user's tenure config (a repository's tenure.toml cannot choose it)."""
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"[lsp.python]\ncommand = {json.dumps(list(command))}\n")


def dependants(result: dict) -> dict[str, dict]:
    return {d["symbol"]: d for d in result["dependants"]}


def enrich(root: Path, **options: object) -> dict:
    with Tenure.open(root, discover=False) as t:
        return t.enrich(**options)  # type: ignore[arg-type]


def _stat(pid: int | str) -> list[str]:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()
    except (OSError, IndexError):
        return []


def alive(pid: int) -> bool:
    """A process, or any process of the group it led (node under the Python launcher), still runs;
    a zombie waiting to be reaped has ended."""
    if (fields := _stat(pid)) and fields[0] != "Z":
        return True
    return any((f := _stat(p)) and f[2] == str(pid) and f[0] != "Z" for p in os.listdir("/proc") if p.isdigit())


def test_a_type_checker_narrows_an_ambiguous_call_to_its_real_target(make_indexed_repo) -> None:
    root = make_indexed_repo(FILES)
    with Tenure.open(root, discover=False) as t:
        assert dependants(t.what_breaks(CIRCLE))["app.report.first"]["tier"] == "ambiguous"
    report = enrich(root)
    assert report["languages"]["python"]["server"].startswith("basedpyright ")
    with Tenure.open(root, discover=False) as t:
        first = dependants(t.what_breaks(CIRCLE))["app.report.first"]
        assert (first["tier"], first["sources"]) == ("resolved", ["lsp", "tree-sitter"])
        square = t.what_breaks(SQUARE)
        assert square["dependants"] == []
        assert [(r["symbol"], r["refuted_by"]) for r in square["refuted"]] == [("app.report.first", ["lsp"])]


def test_a_guessed_edge_the_checker_contradicts_is_kept_as_refuted_with_provenance(make_indexed_repo) -> None:
    root = make_indexed_repo(FILES)
    with Tenure.open(root, discover=False) as t:
        assert dependants(t.what_breaks(KEYS))["app.report.names"]["tier"] == "ambiguous"
    enrich(root)
    with Tenure.open(root, discover=False) as t:
        keys = t.what_breaks(KEYS)
        assert keys["dependants"] == []
        assert [(r["symbol"], r["tier"], r["refuted_by"]) for r in keys["refuted"]] == [
            ("app.report.names", "ambiguous", ["lsp"])]
        edge = next(e for e in t.export_edges() if e["src"] == "app.report.names" and e["dst"] == KEYS)
        assert edge["sources"] == ["lsp", "tree-sitter"]  # not deleted: demoted, with where the verdict came from


DISPATCH = {
    "app/__init__.py": "",
    "app/base.py": "class Base:\n    def register(self):\n        self.add()\n\n    def add(self):\n        return 1\n",
    "app/child.py": "from app.base import Base\n\n\nclass Child(Base):\n    def add(self):\n        return 2\n",
}


def test_a_server_naming_the_method_an_override_overrides_rules_the_override_out_no_more(make_indexed_repo) -> None:
    # `self.add()` in Base: the server answers Base.add (the declaration it types `self` by), and on
    # a Child the call runs Child.add. That answer is no refutation of Child.add: it keeps its tier
    # and counts as unverified.
    root = make_indexed_repo(DISPATCH)
    with Tenure.open(root, discover=False) as t:
        assert dependants(t.what_breaks("app.child.Child.add"))["app.base.Base.register"]["tier"] == "ambiguous"
    report = enrich(root)["languages"]["python"]
    with Tenure.open(root, discover=False) as t:
        base = dependants(t.what_breaks("app.base.Base.add"))["app.base.Base.register"]
        assert (base["tier"], base["sources"]) == ("resolved", ["lsp", "tree-sitter"])
        child = t.what_breaks("app.child.Child.add")
        assert child["refuted"] == []
        register = dependants(child)["app.base.Base.register"]
        assert (register["tier"], register["sources"]) == ("ambiguous", ["tree-sitter"])
        assert child["summary"]["coverage"]["verified"] == 0
    assert (report["refuted"], report["dispatched"]) == (0, 1)


def test_a_call_tree_sitter_could_not_resolve_is_added_as_resolved_with_the_server_named(make_indexed_repo) -> None:
    root = make_indexed_repo({"many.py": MANY})
    with Tenure.open(root, discover=False) as t:
        assert t.what_breaks("many.C1.run")["dependants"] == []
    report = enrich(root)
    assert report["languages"]["python"]["added"] >= 1
    with Tenure.open(root, discover=False) as t:
        go = dependants(t.what_breaks("many.C1.run"))["many.go"]
        assert (go["tier"], go["sources"], go["line"]) == ("resolved", ["lsp"], 47)
        edge = next(e for e in t.export_edges() if e["src"] == "many.go" and e["dst"] == "many.C1.run")
        assert edge["detail"] == report["languages"]["python"]["server"]  # "basedpyright 1.40.2"
        assert t.what_breaks("many.C2.run")["dependants"] == []


def test_what_breaks_answers_at_once_and_states_the_lsp_coverage(make_indexed_repo) -> None:
    root = make_indexed_repo(FILES)
    with Tenure.open(root, discover=False) as t:
        before = t.what_breaks("app.shapes.Circle")["summary"]
    assert before["coverage"]["enriched"] is False
    assert "not enriched (no language server ran)" in before["text"]
    enrich(root)
    with Tenure.open(root, discover=False) as t:
        after = t.what_breaks("app.shapes.Circle")["summary"]
    assert after["coverage"] | {"text": "", "run": None} == {"source": "lsp", "enriched": True, "in_scope": 1,
                                                             "verified": 1, "unlinked": 0, "percent": 100, "text": "",
                                                             "run": None}
    assert not after["coverage"]["run"]["running"]
    assert "lsp verified 100% of the call sites that may reach it (1 of 1)" in after["text"]


def test_a_call_site_the_server_could_not_type_keeps_the_coverage_below_complete(make_indexed_repo) -> None:
    # `@app.before` on a parameter nothing types: the server is silent there, so the answer is not
    # "100% verified" while the site may reach the method
    root = make_indexed_repo({
        "app/__init__.py": "",
        "app/hooks.py": "class Hooks:\n    def before(self, f):\n        return f\n",
        "app/use.py": (
            "from app.hooks import Hooks\n\n\ndef typed():\n    Hooks().before(print)\n\n\n"
            "def untyped(app):\n    @app.before\n    def handler():\n        pass\n"
        ),
    })
    enrich(root)
    with Tenure.open(root, discover=False) as t:
        result = t.what_breaks("app.hooks.Hooks.before")
    assert {d["symbol"]: d["sources"] for d in result["dependants"]} == {
        "app.use.typed": ["lsp", "tree-sitter"], "app.use.untyped": ["tree-sitter"]}
    assert "lsp verified 50% of the call sites that may reach it (1 of 2)" in result["summary"]["text"]


def test_only_files_whose_code_or_call_sites_changed_are_verified_again(make_indexed_repo) -> None:
    root = make_indexed_repo({**FILES, "app/other.py": "from app.shapes import Square\n\n\ndef f():\n    Square()\n"})
    assert enrich(root)["languages"]["python"]["verified"] == 4
    assert enrich(root)["languages"]["python"]["pending"] == 0
    (root / "app/other.py").write_text("from app.shapes import Square\n\n\ndef f():\n    return Square()\n")
    with Tenure.open(root, discover=False) as t:
        t.index()
    again = enrich(root)["languages"]["python"]
    # other.py, and shapes.py: the references to its symbols found in other.py are asked again
    assert (again["pending"], again["verified"]) == (2, 2)

    (root / "app/report.py").unlink()
    with Tenure.open(root, discover=False) as t:
        t.index()  # the verdicts of a deleted file go with it, at once
        assert not t.db.query("SELECT 1 FROM source_edges WHERE origin LIKE '%app/report.py'")
        assert KEYS not in {r["symbol"] for r in t.what_breaks(KEYS)["refuted"]}


def test_a_missing_server_is_reported_once_and_tree_sitter_tiers_stay(make_indexed_repo) -> None:
    user_server("no-such-langserver", "--stdio")
    root = make_indexed_repo(FILES)
    report = enrich(root)
    assert report["languages"] == {}
    assert report["no_server"]["python"].startswith("no-such-langserver not found")
    assert "python: no language server" in report["text"]
    with Tenure.open(root, discover=False) as t:
        assert dependants(t.what_breaks(CIRCLE))["app.report.first"]["tier"] == "ambiguous"


def test_a_crashing_server_is_restarted_with_backoff_then_given_up_with_its_reason(make_indexed_repo) -> None:
    user_server(sys.executable, str(BROKEN_SERVER), "crash")
    root = make_indexed_repo(FILES)
    with Tenure.open(root, discover=False) as t:
        enricher = Enricher(t.root, t.db, timeout=20, max_restarts=2)
        report = enricher.run()
        python = report.languages["python"]
        assert python.restarts == 2 and len(python.server_pids) == 3
        assert "failed 3 times" in python.failed and "exited with code 3: segfault simulated" in python.failed
        assert python.confirmed == python.refuted == python.added == 0
        assert report.text().count("failed 3 times") == 1  # reported once, not per file
        assert not any(alive(pid) for pid in python.server_pids)
        assert dependants(t.what_breaks(CIRCLE))["app.report.first"]["tier"] == "ambiguous"
        assert t.db.query("SELECT COUNT(*) AS n FROM source_edges")[0]["n"] == 0


def test_a_hanging_server_times_out_and_every_process_it_started_is_ended(make_indexed_repo, tmp_path) -> None:
    pidfile = tmp_path / "child.pid"
    user_server(sys.executable, str(BROKEN_SERVER), "hang", str(pidfile))
    root = make_indexed_repo(FILES)
    with Tenure.open(root, discover=False) as t:
        report = Enricher(t.root, t.db, timeout=1, max_restarts=0).run()
    python = report.languages["python"]
    assert "got no answer within 1s" in python.failed
    child = int(pidfile.read_text())
    assert not alive(child) and not any(alive(pid) for pid in python.server_pids)


def test_a_servers_temporary_files_are_kept_in_the_state_directory_and_removed_when_it_ends(
        make_indexed_repo, tmp_path) -> None:
    """tenure writes only inside the project and its state directory: a server's TMPDIR is a folder made
    there (tsserver left a 32-hex folder in /tmp at every start, pyright its pyright-* when killed), removed
    once the server has ended, here killed after a timeout. One a killed tenure left behind (its process
    gone) is removed at the next start; a running tenure's is not."""
    made = tmp_path / "made"
    user_server(sys.executable, str(BROKEN_SERVER), "tmp", str(made))
    root = make_indexed_repo(FILES)
    state = root / ".tenure"
    killed, running = state / f"lsp-tmp-{2**22 + 12345}-x1", state / f"lsp-tmp-{os.getpid()}-x2"
    for folder in (killed, running):
        folder.mkdir()
    with Tenure.open(root, discover=False) as t:
        report = Enricher(t.root, t.db, timeout=1, max_restarts=0).run()
    assert "got no answer within 1s" in report.languages["python"].failed
    folder = Path(made.read_text())
    assert folder.parent.parent == state and folder.parent.name.startswith(f"lsp-tmp-{os.getpid()}-")
    assert not folder.parent.exists()
    assert not killed.exists() and running.exists()


def test_a_server_that_dies_mid_session_is_restarted_and_the_run_completes(make_indexed_repo, tmp_path) -> None:
    user_server(sys.executable, str(BROKEN_SERVER), "crash-once", str(tmp_path / "mark"))
    root = make_indexed_repo(FILES)
    with Tenure.open(root, discover=False) as t:
        report = Enricher(t.root, t.db).run()
        python = report.languages["python"]
        assert (python.failed, python.restarts, python.verified) == ("", 1, 3)
        assert python.server.startswith("basedpyright")
        assert not any(alive(pid) for pid in python.server_pids)
        assert dependants(t.what_breaks(CIRCLE))["app.report.first"]["tier"] == "resolved"


def test_index_schedules_enrichment_in_the_background_once(make_repo, monkeypatch) -> None:
    monkeypatch.setenv("TENURE_ENRICH", "on")
    root = make_repo(FILES)
    with Tenure.open(root, discover=False) as t:
        with enrich_lock(t.root / ".tenure") as acquired:
            assert acquired  # a run holds the lock: the one scheduled now waits for it, and it stops for that one
            assert t.index().sources["lsp"]["status"].endswith("; the running one stops for it)")
        started = t.index().sources["lsp"]["status"]  # (supersedes the one scheduled above: that one stops)
        assert started.startswith("scheduled for python")
        deadline = time.monotonic() + 120
        while not t.db.query("SELECT 1 FROM lsp_files") and time.monotonic() < deadline:
            time.sleep(0.5)
        # the detached `tenure enrich` works on its own (the index returned at once): wait until it
        # has released the lock, so no server outlives the test
        while lock_held(t.root / ".tenure") and time.monotonic() < deadline:
            time.sleep(0.5)
        log = (t.root / ".tenure/enrich.log").read_text()
        assert t.db.query("SELECT 1 FROM lsp_files"), log
        # the log is written as it goes: when it started, how far it got, how it ended
        assert "enrichment started (pid" in log and "lsp python: 3 of 3 files verified" in log, log
        assert log.index("enrichment started") < log.index("3 of 3 files") < log.rindex("enriched in"), log


def test_tenure_enrich_prints_what_each_server_did(make_indexed_repo) -> None:
    root = make_indexed_repo(FILES)
    result = CliRunner().invoke(app, ["enrich", "--repo", str(root), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["languages"]["python"]["verified"] == 3
    text = CliRunner().invoke(app, ["enrich", "--repo", str(root)])
    assert "python: up to date" in text.stdout


def test_a_broken_tenure_toml_is_a_clear_error(make_indexed_repo) -> None:
    root = make_indexed_repo({**FILES, "tenure.toml": "[lsp.python\ncommand = 3\n"})
    result = CliRunner().invoke(app, ["enrich", "--repo", str(root)])
    assert result.exit_code == 2 and "tenure.toml" in result.stderr



def test_a_wrong_command_setting_is_an_error_that_names_its_table(make_indexed_repo) -> None:
    root = make_indexed_repo({**FILES, "tenure.toml": '[lsp.python]\ncommand = "sh"\n'})
    result = CliRunner().invoke(app, ["enrich", "--repo", str(root)])
    assert result.exit_code == 2 and "tenure.toml: [lsp.python] command must be a list of strings" in result.stderr


def test_a_background_failure_is_reported_by_the_next_index_once(make_indexed_repo) -> None:
    user_server(sys.executable, str(BROKEN_SERVER), "crash")
    root = make_indexed_repo(FILES)
    with Tenure.open(root, discover=False) as t:
        Enricher(t.root, t.db, timeout=20, max_restarts=0).run()
        first = t.index().sources["lsp"]
        assert "exited with code 3" in first["last run gave up python"]
        assert "last run gave up python" not in t.index().sources["lsp"]


def test_a_running_enrichment_is_shown_by_status_and_the_answers_it_changes(make_indexed_repo) -> None:
    root = make_indexed_repo(FILES)
    seen: list[tuple[dict, dict]] = []

    def progress(phase: str, done: int, total: int) -> None:
        if done == 2:  # two files verified, one to go: what another process sees meanwhile
            with Tenure.open(root, discover=False) as other:
                seen.append((other.status()["enrichment"], other.what_breaks(CIRCLE)["summary"]))

    with Tenure.open(root, discover=False) as t:
        t.enrich(progress=progress)
    [(enrichment, summary)] = seen
    run = enrichment["run"]
    assert (run["running"], run["files_done"], run["files_total"]) == (True, 2, 3)
    assert enrichment["text"].startswith(f"lsp enrichment running since {run['started_at']} (pid {os.getpid()}): "
                                         "2 of 3 files verified")
    assert summary["coverage"]["run"]["changed"] == 1  # report.py's site, verified since the run started
    assert f"enrichment running since {run['started_at']} (2 of 3 files): 1 edge of this answer changed" \
        in summary["text"]
    with Tenure.open(root, discover=False) as t:
        done = t.status()["enrichment"]
    assert not done["run"]["running"] and done["run"]["files_done"] == 3
    assert done["text"].startswith("lsp enrichment: last run ") and "python (basedpyright" in done["text"]
    out = CliRunner().invoke(app, ["status", "--repo", str(root)]).output
    assert "lsp enrichment: last run" in out and "enrich.log" in out


def test_an_enrichment_whose_process_died_is_shown_stopped(make_indexed_repo) -> None:
    root = make_indexed_repo(FILES)
    with Tenure.open(root, discover=False) as t:
        state = LspState(t.db)
        gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True, check=True).stdout.strip()
        run = state.start_run(3)
        t.db.execute("UPDATE lsp_runs SET pid = ?, files_done = 1 WHERE id = ?", (int(gone), run))
        text = t.status()["enrichment"]["text"]
    assert text.startswith("lsp enrichment stopped at 1 of 3 files") and "the next `tenure index`" in text


# --- bounds -----------------------------------------------------------------------------------------

def fake_server(mode: str, bounds: str = "") -> str:
    """The project's tenure.toml with `bounds`; the fake server's command goes in the user's config."""
    user_server(sys.executable, str(BROKEN_SERVER), mode)
    return f'[lsp]\n{bounds}\n'


def test_a_server_growing_past_the_memory_bound_is_ended_with_its_children(make_indexed_repo) -> None:
    root = make_indexed_repo({**FILES, "tenure.toml": fake_server("grow", "max_memory_mb = 100")})
    with Tenure.open(root, discover=False) as t:
        report = Enricher(t.root, t.db, timeout=30, max_restarts=0).run()
    python = report.languages["python"]
    assert "past the bound of 100 MB ([lsp] max_memory_mb)" in python.failed
    assert not any(alive(pid) for pid in python.server_pids)


def test_a_run_stops_at_its_time_bound_and_status_says_so(make_indexed_repo) -> None:
    root = make_indexed_repo({**FILES, "tenure.toml": fake_server("slow", "max_minutes = 0.01")})
    with Tenure.open(root, discover=False) as t:
        report = Enricher(t.root, t.db, timeout=5).run()
        assert "the time bound of 0.01 min ([lsp] max_minutes) was reached" in report.stopped
        assert report.languages["python"].verified < 3
        assert "stopped: the time bound" in t.status()["enrichment"]["text"]


def test_a_run_stops_at_its_time_bound_inside_one_names_references(make_indexed_repo) -> None:
    # the bound (3 s) passes while the server lists the references of `target`, the file's last question:
    # a run that looked at the clock only between names would go through them all and finish
    calls = "".join("target()\n" for _ in range(200))
    root = make_indexed_repo({"app.py": "def target():\n    return 1\n\n\n" + calls,
                              "tenure.toml": fake_server("late-refs", "max_minutes = 0.05")})
    with Tenure.open(root, discover=False) as t:
        report = Enricher(t.root, t.db, timeout=30).run()
    assert "the time bound of 0.05 min ([lsp] max_minutes) was reached" in report.stopped


def test_a_repositorys_tenure_toml_can_tighten_a_bound_but_not_lift_it_and_the_users_config_can(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "tenure.toml").write_text("[lsp]\nmax_minutes = 100000\nmax_memory_mb = 1000000\nmax_file_kb = 64\n")
    assert bounds_for(root) == Bounds(max_minutes=20.0, max_memory_mb=3072, max_file_kb=64)
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[lsp]\nmax_minutes = 60\n")
    assert bounds_for(root).max_minutes == 60


def test_a_file_past_the_size_bound_is_not_asked_about_and_the_run_says_so(make_indexed_repo) -> None:
    generated = "".join(f"def f{i}():\n    return {i}\n\n\n" for i in range(300))  # ~6 KB
    root = make_indexed_repo({**FILES, "app/generated.py": generated, "tenure.toml": "[lsp]\nmax_file_kb = 2\n"})
    with Tenure.open(root, discover=False) as t:
        report = Enricher(t.root, t.db).run()
        assert report.languages["python"].too_large == 1 and report.languages["python"].verified == 3
        assert "1 file over 2 KB not asked about ([lsp] max_file_kb)" in report.text()
        assert "app/generated.py" not in {r["path"] for r in t.db.query("SELECT path FROM lsp_files")}
        assert "1 file over 2 KB not asked about" in t.status()["enrichment"]["text"]


def test_a_background_run_stops_when_its_index_died_unfinished_or_a_newer_index_supersedes_it(
        make_indexed_repo) -> None:
    root = make_indexed_repo({**FILES, "tenure.toml": fake_server("slow")})
    gone = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True, check=True).stdout)
    with Tenure.open(root, discover=False) as t:
        state = LspState(t.db)
        orphan = state.schedule(gone)  # an index killed before it finished
    done = subprocess.run([sys.executable, *cli_argv(["enrich", "--repo", str(root), "--background",
                                                      "--schedule", str(orphan)])],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": SRC})
    assert done.returncode == 0, done.stderr
    assert f"the index that scheduled it (pid {gone}) ended before it finished" in done.stdout
    with Tenure.open(root, discover=False) as t:
        state = LspState(t.db)
        first = state.schedule(os.getpid())
        state.index_done(os.getpid())
        assert state.why_stop(first) is None  # its index finished: the run may outlive it
        state.schedule(os.getpid())
        assert state.why_stop(first) == "a newer index scheduled another run"
        assert f"stopped: the index that scheduled it (pid {gone}) ended" in t.status()["enrichment"]["text"]


def test_a_definition_the_server_gives_of_another_name_rules_out_no_candidate(make_indexed_repo) -> None:
    # basedpyright answers `definition` on a member it cannot type (`server` a pytest fixture) with the
    # call around it: on httpx 0.27.2 it ruled out 12 of URL.copy_with's 45 call sites (`str(server.url
    # .copy_with(...))` -> builtins' str; `client.request("GET", server.url.copy_with(...))` ->
    # Client.request, then added as a call of it on the copy_with line; `httpx.Request("GET", server.url
    # .copy_with(...))` -> Request.__init__)
    root = make_indexed_repo({
        "app/__init__.py": "",
        "app/urls.py": "class URL:\n    def copy_with(self, **kw):\n        return self\n",
        "app/client.py": "class Client:\n    def request(self, method, url):\n        return url\n",
        "app/models.py": "class Request:\n    def __init__(self, method, url):\n        self.url = url\n",
        "tests/test_x.py": (
            "from app.client import Client\nfrom app.models import Request\n\n\n"
            "def test_a(server):\n    Client().request(\n"
            "        \"GET\", server.url.copy_with(path=\"/x\")\n    )\n\n\n"
            "def test_b(server):\n    return str(server.url.copy_with(path=\"/json\"))\n\n\n"
            "def test_c(server):\n    return Request(\"GET\", server.url.copy_with(path=\"/s\"))\n"),
    })
    assert enrich(root)["languages"]["python"]["server"].startswith("basedpyright ")  # (the checker really ran)
    with Tenure.open(root, discover=False) as t:
        copy_with = t.what_breaks("app.urls.URL.copy_with")
        request = t.what_breaks("app.client.Client.request")
    assert [(d["symbol"], d["line"]) for d in copy_with["dependants"]] == [
        ("test_x.test_a", 7), ("test_x.test_b", 12), ("test_x.test_c", 16)]
    assert copy_with["refuted"] == []
    assert [(d["symbol"], d["line"], d["tier"]) for d in request["dependants"]] == [("test_x.test_a", 6, "resolved")]
