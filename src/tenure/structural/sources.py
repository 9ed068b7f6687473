"""The sources `tenure index` runs after tree-sitter's pass (their contract: after_index.py).

A source that fails is reported with its reason and never fails the index: tree-sitter's graph stands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tenure.structural.jvm.after_index import JvmSource
from tenure.structural.lsp.background import LspSource
from tenure.structural.traces.after_index import TraceEdgesCheck

if TYPE_CHECKING:
    from tenure.structural.after_index import AfterIndex, SourceContext
    from tenure.structural.report import IndexReport


def after_index_sources() -> list[AfterIndex]:
    """The sources `tenure index` runs, in the order their `after` declarations give."""
    return in_order([JvmSource(), TraceEdgesCheck(), LspSource()])


def in_order(sources: list[AfterIndex]) -> list[AfterIndex]:
    """`sources` with each one after those it names in `after`, and otherwise as listed. A name no
    source has, or sources waiting for each other, is a mistake in their declarations: an error."""
    names = {source.name for source in sources}
    for source in sources:
        if unknown := set(source.after) - names:
            raise ValueError(f"source {source.name!r} runs after {', '.join(sorted(unknown))}: no such source")
    ordered: list[AfterIndex] = []
    placed: set[str] = set()
    while len(ordered) < len(sources):
        ready = next((s for s in sources if s.name not in placed and placed.issuperset(s.after)), None)
        if ready is None:
            waiting = sorted(s.name for s in sources if s.name not in placed)
            raise ValueError(f"sources {', '.join(waiting)} each wait for another of them")
        ordered.append(ready)
        placed.add(ready.name)
    return ordered


def run_after_index(context: SourceContext, report: IndexReport) -> None:
    for source in after_index_sources():
        try:
            if summary := source.run(context, report):  # a source with nothing to read says nothing
                report.sources[source.name] = summary
        except Exception as exc:  # noqa: BLE001 — one broken source must not cost the index
            report.sources[source.name] = {"error": f"{type(exc).__name__}: {exc}"}
