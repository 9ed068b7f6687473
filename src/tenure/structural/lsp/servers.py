"""Which language server checks which language: the table in servers.toml, overridable per language
(`[lsp.<language>] command = [...]`) in the user's tenure config, or in the project's tenure.toml when the
user's config allows that very command (`[lsp] allowed_commands`): a cloned repository's tenure.toml is
someone else's input, and `tenure index` starts enrichment on its own. Used only when its command can be
found."""

from __future__ import annotations

import os
import re
import shutil
import sys
import sysconfig
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from importlib import resources
from pathlib import Path

from tenure.config import CONFIG_FILE, ConfigError, project_table, string_list
from tenure.structural.lsp.bounds import Bounds
from tenure.team.user_config import trusts, user_config_path, user_table


@dataclass(frozen=True)
class ServerSpec:
    name: str
    languages: tuple[str, ...]
    command: tuple[str, ...]
    language_ids: dict[str, str] = field(default_factory=dict)
    external_names: dict[str, str] = field(default_factory=dict)
    ready_log: str = ""  # a window/logMessage pattern that means the workspace is loaded
    transparent_decorators: frozenset[str] = frozenset()  # calls still reach the definition they decorate
    exact_references: bool = False  # references name only calls that resolve to the symbol (else each is checked)
    open_files: bool = True  # didOpen each file before asking about it (some servers answer from disk)
    install: str = ""
    # initializationOptions; a value "beside-server:<package path>" is that file of the Node package the
    # server's own installation resolves (never one of the repository's node_modules)
    initialization_options: dict = field(default_factory=dict)
    runs_project_code: str = ""  # how the server runs code the repository holds: started only where trusted
    # workspace settings answered for a project the user's config does not trust, where the server's
    # defaults run a file the repository holds; "tenure-python:" is the interpreter running tenure
    untrusted_settings: dict = field(default_factory=dict)

    def language_id(self, language: str) -> str:
        return self.language_ids.get(language, language)

    def executable(self) -> str | None:
        """The command's program as found on PATH, or next to this interpreter (PyPI servers
        installed into a virtual environment that is not on PATH)."""
        program = self.command[0]
        if os.path.isabs(program):
            return program if os.access(program, os.X_OK) else None
        found = shutil.which(program)
        if found:  # (absolute: a PATH entry "." or "" names the folder tenure runs in, not the server's)
            return os.path.abspath(found)
        return shutil.which(program, path=os.pathsep.join({sysconfig.get_path("scripts"),
                                                           str(Path(sys.executable).parent)}))

    def argv(self) -> list[str] | None:
        program = self.executable()
        return [program, *self.command[1:]] if program else None

    def options(self, program: str, root: Path) -> dict:
        """The initializationOptions for the server at `program`; ServerRefused when a file they name
        is not found beside it (the server would then run the repository's own)."""
        server, top = Path(program).resolve(), root.resolve()
        return _filled(self.initialization_options, _BESIDE, lambda wanted: _beside(wanted, server, top, self.name))

    def settings(self, root: Path) -> dict:
        """section -> the workspace settings the server is answered for `root`."""
        if not self.untrusted_settings or trusted(root):
            return {}
        return _filled(self.untrusted_settings, _PYTHON, lambda _: sys.executable)


class ServerRefused(ValueError):
    """A server tenure will not start for this project, and why."""


# servers.toml's values that name a file found when the server starts
_BESIDE = "beside-server:"  # then a path in the node_modules of the server's own installation
_PYTHON = "tenure-python:"  # the interpreter running tenure


def _filled(table: dict, marker: str, fill: Callable[[str], object]) -> dict:
    """`table` with each string "<marker>rest" in it (nested tables too) replaced by `fill(rest)`."""
    return {key: _filled(value, marker, fill) if isinstance(value, dict)
            else fill(value.removeprefix(marker)) if isinstance(value, str) and value.startswith(marker) else value
            for key, value in table.items()}


def _beside(wanted: str, program: Path, root: Path, server: str) -> str:
    for folder in program.parents:  # as Node resolves a package from the server's own files
        found = folder / "node_modules" / wanted
        if found.is_file() and not found.resolve().is_relative_to(root):
            return str(found.resolve())
    raise ServerRefused(f"{server}: no {wanted} installed beside it ({program}); without one it runs the "
                        "repository's own, which a cloned repository can hold: not started")


def untrusted(spec: ServerSpec, root: Path) -> str:
    """Why `spec` is not started for `root` ("" when it may be): a server that runs the repository's own
    code (build scripts, a build tool's wrapper) runs only for projects the user's config trusts, and so
    does a server program that is one of the repository's files (PATH naming "." or "", or the project's
    node_modules/.bin)."""
    program = spec.executable()
    inside = program is not None and Path(program).resolve().is_relative_to(root.resolve())
    if not (spec.runs_project_code or inside) or trusted(root):
        return ""
    if inside:
        return (f"{spec.name} not started: {program}, found on PATH, is a file of the repository; to run it for "
                f"this project, add \"{root.resolve()}\" to [lsp] trusted_projects in {user_config_path()}")
    return (f"{spec.name} not started: it {spec.runs_project_code}; to run it for this project, add "
            f"\"{root.resolve()}\" to [lsp] trusted_projects in {user_config_path()}")


def trusted(root: Path) -> bool:
    """Whether the user's config lists `root` in `[lsp] trusted_projects`."""
    return trusts("lsp", root)


def server_table() -> dict[str, ServerSpec]:
    raw = tomllib.loads(resources.files("tenure.structural.lsp").joinpath("servers.toml").read_text("utf-8"))
    return {
        name: ServerSpec(name=name, languages=tuple(entry["languages"]), command=tuple(entry["command"]),
                         language_ids=entry.get("language_ids", {}), external_names=entry.get("external_names", {}),
                         ready_log=entry.get("ready_log", ""),
                         exact_references=entry.get("exact_references", False),
                         transparent_decorators=frozenset(entry.get("transparent_decorators", ())),
                         open_files=entry.get("open_files", True),
                         install=entry.get("install", ""),
                         initialization_options=entry.get("initialization_options", {}),
                         runs_project_code=entry.get("runs_project_code", ""),
                         untrusted_settings=entry.get("untrusted_settings", {}))
        for name, entry in raw.items()
    }


def project_config(root: Path) -> dict:
    """The `[lsp]` table of the project's tenure.toml ({} without one); a broken file is an error
    that names the file rather than silently running the defaults."""
    return project_table(root, "lsp")


def bounds_for(root: Path) -> Bounds:
    """The bounds a run in `root` keeps: the user's config's `[lsp]` bounds (the defaults where unset), or
    the project's tenure.toml's where lower: a cloned repository can tighten a bound, never lift it."""
    user = Bounds.of(user_table("lsp"), str(user_config_path()))
    table = project_config(root)
    project = Bounds.of(table, str(root / CONFIG_FILE))
    return Bounds(**{f.name: min(getattr(user, f.name), getattr(project, f.name)) if f.name in table
                     else getattr(user, f.name) for f in fields(Bounds)})


def servers_for(root: Path, languages: set[str]) -> dict[str, ServerSpec]:
    """language -> the server that checks it, for the given languages, with the chosen commands applied
    (a language overridden alone gets a server of its own)."""
    out: dict[str, ServerSpec] = {}
    for spec in server_table().values():
        for language in spec.languages:
            if language in languages:
                out[language] = spec
    for language, entry in chosen_commands(root)[0].items():
        if language not in languages:
            continue
        command = tuple(entry["command"])
        base = out.get(language)
        program = Path(command[0]).name
        if base is None or Path(base.command[0]).name != program:  # another server: the table's quirks do not apply
            base = ServerSpec(name=program, languages=(language,), command=(), ready_log=entry.get("ready_log", ""))
        out[language] = replace(base, name=f"{program} ({language})", languages=(language,), command=command)
    return out


@dataclass
class Plan:
    """Which language a run verifies with which server, and why the others get none."""

    runnable: dict[str, ServerSpec] = field(default_factory=dict)
    no_server: dict[str, str] = field(default_factory=dict)  # language -> how to install one
    refused: dict[str, str] = field(default_factory=dict)  # language -> why its server is not run


def plan(root: Path, languages: set[str]) -> Plan:
    """The servers for `languages`, each checked as its run would check it: its command a repository chose,
    the trust a server running the project's code needs, its program found, the files it must be handed
    (so that an index says "scheduled" only for what the enrichment will really run)."""
    bounds_for(root)  # a wrong bound is named now, not in the run's log
    out = Plan(refused=refused_commands(root, languages))
    for language, spec in servers_for(root, languages).items():
        program = spec.executable()
        try:
            if why := untrusted(spec, root):
                out.refused[language] = why
            elif program is None:
                out.no_server[language] = f"{spec.command[0]} not found: {spec.install}"
            else:
                spec.options(program, root)
                out.runnable[language] = spec
        except ServerRefused as exc:
            out.refused[language] = str(exc)
    return out


def refused_commands(root: Path, languages: set[str]) -> dict[str, str]:
    """language -> why the project's tenure.toml names a command for it that is not run."""
    return {language: why for language, why in chosen_commands(root)[1].items() if language in languages}


def chosen_commands(root: Path) -> tuple[dict[str, dict], dict[str, str]]:
    """The `[lsp.<language>]` entries whose command runs: the user's config's, and the project's whose
    command the user's `[lsp] allowed_commands` lists; and language -> why a project's command does not."""
    user = user_table("lsp")
    allowed = user.get("allowed_commands", [])
    if not (isinstance(allowed, list) and all(_is_command(c) for c in allowed)):
        raise ConfigError(f"{user_config_path()}: [lsp] allowed_commands must be a list of commands (lists of "
                          f"strings), not {allowed!r}")
    chosen: dict[str, dict] = {}
    refused: dict[str, str] = {}
    for language, entry in _entries(project_config(root), root / CONFIG_FILE, _PROJECT_SETTINGS).items():
        if entry["command"] in allowed:
            chosen[language] = entry
        else:
            refused[language] = (
                f"{CONFIG_FILE} [lsp.{language}] command {entry['command']} not run: a repository cannot choose "
                f"what runs on this machine; to run it, add it to [lsp] allowed_commands in {user_config_path()}")
    chosen.update(_entries(user, user_config_path(), _USER_SETTINGS))  # the user's own choice wins
    return chosen, refused


# What an `[lsp]` table may hold beside its `[lsp.<language>]` tables: the project's bounds, the user's
# choices of what runs; and what a language's table may hold
_PROJECT_SETTINGS = tuple(f.name for f in fields(Bounds))
_USER_SETTINGS = ("allowed_commands", "trusted_projects", *_PROJECT_SETTINGS)
_LANGUAGE_SETTINGS = ("command", "ready_log")


def _entries(table: dict, where: Path, settings: tuple[str, ...]) -> dict[str, dict]:
    """language -> its `[lsp.<language>]` table; ConfigError naming the file and the setting for anything
    else than `settings` and well-formed language tables (a typo would silently keep the defaults)."""
    out = {}
    for language, entry in table.items():
        if language in settings:
            continue
        if not isinstance(entry, dict):
            raise ConfigError(f"{where}: [lsp] has no setting {language!r} (known: {', '.join(settings)}; a "
                              f"language's server is a table: [lsp.{language}] command = [...]), not {entry!r}")
        if unknown := sorted(set(entry) - set(_LANGUAGE_SETTINGS)):
            raise ConfigError(f"{where}: [lsp.{language}] has no setting {unknown[0]!r} "
                              f"(known: {', '.join(_LANGUAGE_SETTINGS)})")
        if "command" not in entry:
            raise ConfigError(f"{where}: [lsp.{language}] needs a command (a list of strings)")
        string_list(entry, "command", f"{where}: [lsp.{language}]", empty=False)
        _ready_log(entry, f"{where}: [lsp.{language}]")
        out[language] = entry
    return out


def _ready_log(entry: dict, where: str) -> None:
    """ConfigError unless the entry's ready_log (when set) is a regular expression."""
    pattern = entry.get("ready_log", "")
    try:
        if isinstance(pattern, str):
            re.compile(pattern)
            return
    except re.error as exc:
        raise ConfigError(f"{where} ready_log is no regular expression ({exc}): {pattern!r}") from exc
    raise ConfigError(f"{where} ready_log must be a string (a regular expression), not {pattern!r}")


def _is_command(command: object) -> bool:
    return isinstance(command, list) and bool(command) and all(isinstance(w, str) for w in command)
