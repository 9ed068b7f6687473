"""Which language server checks which language: the table in servers.toml, overridable per project
in tenure.toml (`[lsp.<language>] command = [...]`), used only when its command can be found."""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
import tomllib
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path

from tenure.config import CONFIG_FILE, project_table


@dataclass(frozen=True)
class ServerSpec:
    name: str
    languages: tuple[str, ...]
    command: tuple[str, ...]
    language_ids: dict[str, str] = field(default_factory=dict)
    external_names: dict[str, str] = field(default_factory=dict)
    ready_log: str = ""  # a window/logMessage pattern that means the workspace is loaded
    ready_after_open: str = ""  # the same, for servers that load the project when the first file opens
    transparent_decorators: frozenset[str] = frozenset()  # calls still reach the definition they decorate
    exact_references: bool = False  # references name only calls that resolve to the symbol (else each is checked)
    open_files: bool = True  # didOpen each file before asking about it (some servers answer from disk)
    install: str = ""

    def language_id(self, language: str) -> str:
        return self.language_ids.get(language, language)

    def executable(self) -> str | None:
        """The command's program as found on PATH, or next to this interpreter (PyPI servers
        installed into a virtual environment that is not on PATH)."""
        program = self.command[0]
        if os.path.isabs(program):
            return program if os.access(program, os.X_OK) else None
        found = shutil.which(program)
        if found:
            return found
        return shutil.which(program, path=os.pathsep.join({sysconfig.get_path("scripts"),
                                                           str(Path(sys.executable).parent)}))

    def argv(self) -> list[str] | None:
        program = self.executable()
        return [program, *self.command[1:]] if program else None


def server_table() -> dict[str, ServerSpec]:
    raw = tomllib.loads(resources.files("tenure.structural.lsp").joinpath("servers.toml").read_text("utf-8"))
    return {
        name: ServerSpec(name=name, languages=tuple(entry["languages"]), command=tuple(entry["command"]),
                         language_ids=entry.get("language_ids", {}), external_names=entry.get("external_names", {}),
                         ready_log=entry.get("ready_log", ""), ready_after_open=entry.get("ready_after_open", ""),
                         exact_references=entry.get("exact_references", False),
                         transparent_decorators=frozenset(entry.get("transparent_decorators", ())),
                         open_files=entry.get("open_files", True),
                         install=entry.get("install", ""))
        for name, entry in raw.items()
    }


def project_config(root: Path) -> dict:
    """The `[lsp]` table of the project's tenure.toml ({} without one); a broken file is an error
    that names the file rather than silently running the defaults."""
    return project_table(root, "lsp")


def servers_for(root: Path, languages: set[str]) -> dict[str, ServerSpec]:
    """language -> the server that checks it, for the given languages, with the project's
    overrides applied (a language overridden alone gets a server of its own)."""
    config = project_config(root)
    out: dict[str, ServerSpec] = {}
    for spec in server_table().values():
        for language in spec.languages:
            if language in languages:
                out[language] = spec
    for language, entry in config.items():
        if language not in languages or not isinstance(entry, dict) or "command" not in entry:
            continue
        command = entry["command"]
        if not (isinstance(command, list) and command and all(isinstance(w, str) for w in command)):
            raise ValueError(f"{root / CONFIG_FILE}: [lsp.{language}] command must be a list of strings")
        base = out.get(language)
        program = Path(command[0]).name
        if base is None or Path(base.command[0]).name != program:  # another server: the table's quirks do not apply
            base = ServerSpec(name=program, languages=(language,), command=(), ready_log=entry.get("ready_log", ""))
        out[language] = replace(base, name=f"{program} ({language})", languages=(language,), command=tuple(command))
    return out
