"""Situational procedures: relevant only in a situation, so a tool with a trigger, not a document.

```toml
[procedures.integration-tests]
run = "docker compose up -d db && pytest tests/integration"   # a shell command, run at the project root
when = "after changing anything under src/db/ or a migration"  # the trigger, in the tool's description
timeout = 900                                                   # seconds (default 600)
```

A cloned repository's tenure.toml is someone else's input: its procedures run only in a project the user's
own config trusts (`[procedures] trusted_projects`), as the language servers that run a project's code do
(`[lsp] trusted_projects`). A command is not allowed by its words alone: `make test` or `pytest` runs the
Makefile or conftest.py of whichever repository names it. Elsewhere each is listed, and its tool says why it
does not run and which setting runs it.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from tenure.config import CONFIG_FILE, ConfigError, project_table
from tenure.team.user_config import trusts, user_config_path

DEFAULT_TIMEOUT_S = 600
OUTPUT_TAIL = 8000  # characters of the output returned (the full output goes to the test-line reader)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,40}$")


@dataclass(frozen=True)
class Procedure:
    name: str
    run: str
    when: str
    timeout: float = DEFAULT_TIMEOUT_S
    not_run: str = ""  # why it does not run here, and the setting that runs it ("" when it runs)

    @property
    def tool_name(self) -> str:
        return "procedure_" + self.name.replace("-", "_")


def procedures(root: Path) -> list[Procedure]:
    """Every procedure of the project's tenure.toml, those that do not run here with why (`not_run`)."""
    found = []
    why = untrusted(root)
    for name, entry in sorted(project_table(root, "procedures").items()):
        if not _NAME.match(name) or not isinstance(entry, dict):
            raise ConfigError(f"{CONFIG_FILE}: [procedures.{name}] must be a table with a short name (letters, "
                                "digits, - and _)")
        run, when, timeout = entry.get("run"), entry.get("when"), entry.get("timeout", DEFAULT_TIMEOUT_S)
        if not isinstance(run, str) or not run.strip() or not isinstance(when, str) or not when.strip():
            raise ConfigError(f"{CONFIG_FILE}: [procedures.{name}] needs run = \"<command>\" and when = \"<the "
                                "situation it is for>\"")
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            raise ConfigError(f"{CONFIG_FILE}: [procedures.{name}] timeout must be a positive number of seconds")
        found.append(Procedure(name, run.strip(), " ".join(when.split()), float(timeout), why))
    return found


def untrusted(root: Path) -> str:
    """Why the project's procedures do not run ("" when the user's config trusts the project)."""
    if trusts("procedures", root):
        return ""
    return (f"not run: a repository's {CONFIG_FILE} cannot choose what runs on this machine; to run this "
            f"project's procedures, the user adds \"{root.resolve()}\" to [procedures] trusted_projects in "
            f"{user_config_path()}")


def execute(root: Path, procedure: Procedure) -> tuple[dict, str]:
    """Run it at the project root, in its own process group (a timeout stops all it started): what
    happened, and its whole output."""
    started = time.monotonic()
    proc = subprocess.Popen(["/bin/sh", "-c", procedure.run], cwd=root, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, errors="replace", start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=procedure.timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        output, _ = proc.communicate()
        timed_out = True
    return {"procedure": procedure.name, "command": procedure.run, "exitCode": None if timed_out else proc.returncode,
            "timedOut": timed_out, "seconds": round(time.monotonic() - started, 2),
            "output": output[-OUTPUT_TAIL:]}, output
