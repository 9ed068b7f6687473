"""`tenure index` into a pipe or a log says what it is doing, in lines (a bar needs a terminal): a user
or an agent reading it never waits on a silent command."""

from __future__ import annotations

import time

from typer.testing import CliRunner

from tenure.cli import app, common


def test_index_piped_prints_a_progress_line_per_phase(make_repo) -> None:
    root = make_repo({"a.py": "def f():\n    return 1\n", "b.py": "from a import f\n\nf()\n"})
    result = CliRunner().invoke(app, ["index", str(root)])
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    for phase in ("parse", "resolve"):
        assert any(line.startswith(f"tenure: {phase}: ") for line in lines), lines
        assert any(line.startswith(f"tenure: {phase}: 2/2 done in ") for line in lines), lines
    assert "indexed 2 files" in result.stdout  # (the report stays on stdout, the progress on stderr)


def test_index_as_json_prints_no_progress(make_repo) -> None:
    result = CliRunner().invoke(app, ["index", str(make_repo({"a.py": "x = 1\n"})), "--json"])
    assert result.exit_code == 0 and "tenure:" not in result.stderr


def test_a_phase_that_reports_nothing_for_a_while_is_still_named(capfd, monkeypatch) -> None:
    # (resolve workers report per batch: one stuck batch must not leave the log silent)
    monkeypatch.setattr(common, "PLAIN_EVERY", 0.0)
    with common.PlainProgress() as lines:
        lines.update("resolve", 3, 10)
        said, deadline = "", time.monotonic() + 60
        while "3/10, " not in said and time.monotonic() < deadline:
            time.sleep(0.05)
            said += capfd.readouterr().err
        assert "tenure: resolve: 3/10, " in said and "s in this phase" in said
        lines.update("resolve", 10, 10)
    assert "tenure: resolve: 10/10 done in" in capfd.readouterr().err
