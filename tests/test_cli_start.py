"""Start cost: a command imports what it runs. `tenure why` (an agent calls it and waits) and an offline
`tenure knowledge build` load no parser grammars, no web framework, no HTTP client and no NumPy."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("tree_sitter", "tree_sitter_language_pack", "starlette", "uvicorn", "httpx", "numpy", "mcp")


def imported_by(argv: list[str]) -> dict[str, list[str]]:
    probe = (f"import json, sys; from tenure.cli import app\ntry:\n    app({argv!r}, standalone_mode=False)\n"
             "except SystemExit:\n    pass\n"
             "print(json.dumps({'heavy': sorted({m.split('.')[0] for m in sys.modules} & set(" + repr(HEAVY) + ")),"
             " 'tenure': sorted(m for m in sys.modules if m.startswith('tenure.'))}))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return json.loads(out.splitlines()[-1])


@pytest.mark.parametrize("argv", [["why", "url_for", "--json"], ["knowledge", "build", "--no-embed", "--json"]],
                         ids=" ".join)
def test_why_and_an_offline_build_load_nothing_they_do_not_run(tmp_path: Path, argv: list[str]) -> None:
    loaded = imported_by([*argv, "--repo", str(tmp_path)])
    assert loaded["heavy"] == []
    assert not [m for m in loaded["tenure"] if m.startswith(("tenure.structural.indexer", "tenure.memories.api",
                                                             "tenure.knowledge.extraction", "tenure.http_guard"))]


def test_the_help_of_a_command_opens_no_project_code(tmp_path: Path) -> None:
    loaded = imported_by(["knowledge", "build", "--help"])
    assert loaded["heavy"] == [] and "tenure.api" not in loaded["tenure"]
