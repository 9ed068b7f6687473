"""The JVM source as `tenure index` runs it after tree-sitter (source.py does the work), and what it
keeps between runs. A project without JVM code imports no class-file reader and walks nothing."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tenure.structural.jvm.inputs import CONFIG, may_be_input
from tenure.structural.languages import language_table

if TYPE_CHECKING:
    from tenure.structural.after_index import SourceContext
    from tenure.structural.report import IndexReport

STATE_KEY = "jvm.state"


@dataclass
class JvmState:
    """What the last run read (kept in the structural store's meta table)."""

    origins: dict[str, str] = field(default_factory=dict)  # origin -> content hash
    beans: list[str] = field(default_factory=list)  # beans origins written
    classpath: list[str] = field(default_factory=list)  # origins added by hand (`tenure bytecode ingest`)
    manual_beans: list[dict] = field(default_factory=list)  # {origin, profile, data}: `tenure di ingest`
    fingerprint: str = ""

    @classmethod
    def load(cls, context: SourceContext) -> JvmState:
        raw = context.structural.get_meta(STATE_KEY)
        return cls(**json.loads(raw)) if raw else cls()

    def save(self, context: SourceContext) -> None:
        context.structural.set_meta(STATE_KEY, json.dumps(self.__dict__))


class JvmSource:
    name = "jvm"
    after = ()  # (tree-sitter's symbols and edges only)

    def run(self, context: SourceContext, report: IndexReport) -> dict:
        if JvmState.load(context) == JvmState() and not _may_have_inputs(context, report):
            return {}  # no walk of the tree
        from tenure.structural.jvm.source import index_jvm  # (the readers: only where there may be input)

        return index_jvm(context, force=bool(report.files_parsed or report.files_removed))


def _may_have_inputs(context: SourceContext, report: IndexReport) -> bool:
    """Whether a project in which no JVM input was ever found may have one now: a watched edit that
    could add one (`may_be_input`), or else a project with files of a language compiled to class
    files (languages.toml: `bytecode`), or a tenure.toml that may name inputs. (A jar in a project
    without JVM code is read once `tenure bytecode ingest` names it.)"""
    if report.changed_paths is not None:
        return any(map(may_be_input, report.changed_paths))
    jvm = [spec.name for spec in language_table().values() if spec.extra.get("bytecode") == "jvm"]
    return (context.root / CONFIG).is_file() or context.structural.has_files_in(jvm)
