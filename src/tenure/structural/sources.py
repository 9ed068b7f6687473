"""Sources that run after tree-sitter's pass (bytecode, DI wiring, language servers, …).

Each one looks at the project, writes its evidence as `source_edges` (and source symbols) through
the structural store, and returns a short JSON-ready report that `tenure index` prints. A source
that fails is reported with its reason and never fails the index: tree-sitter's graph stands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from tenure.structural.jvm.after_index import JvmSource
from tenure.structural.lsp.background import LspSource
from tenure.structural.traces.after_index import TraceEdgesCheck

if TYPE_CHECKING:
    from tenure.api import Tenure
    from tenure.structural.report import IndexReport


class AfterIndex(Protocol):
    name: str

    def run(self, tenure: Tenure, report: IndexReport) -> dict: ...


def after_index_sources() -> list[AfterIndex]:
    """The sources `tenure index` runs, in order (later ones may build on earlier ones' edges)."""
    # bytecode and wiring first: the language servers then verify what remains unresolved
    return [JvmSource(), TraceEdgesCheck(), LspSource()]


def run_after_index(tenure: Tenure, report: IndexReport) -> None:
    for source in after_index_sources():
        try:
            if summary := source.run(tenure, report):  # a source with nothing to read says nothing
                report.sources[source.name] = summary
        except Exception as exc:  # noqa: BLE001 — one broken source must not cost the index
            report.sources[source.name] = {"error": f"{type(exc).__name__}: {exc}"}
