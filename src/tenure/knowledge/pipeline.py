"""The build: discover -> ingest (chunks, offline extraction) -> model extraction -> merge and
summarise -> join to symbols -> communities -> reports -> embeddings. Every step works from what the
store holds, so a build stopped anywhere (a budget, a crash, Ctrl-C) resumes where it stopped, and a
build with nothing new to read makes no model call at all."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from tenure.knowledge import citations, communities, graph, ingest, join, reports
from tenure.knowledge.cache import Budget, BudgetExhausted, CachedModel
from tenure.knowledge.config import KnowledgeConfig
from tenure.knowledge.discovery import discover
from tenure.knowledge.providers.base import ChatProvider
from tenure.knowledge.store import model_coverage, set_meta, touched, untouch
from tenure.storage import Database

if TYPE_CHECKING:
    from tenure.embeddings import EmbeddingProvider

Progress = Callable[[str, int, int], None]


@dataclass
class BuildReport:
    mode: str  # offline | model
    steps: dict[str, dict] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    model: dict | None = None  # calls and tokens spent, per step
    stopped: str | None = None  # why the build stopped before its end (a budget); run it again to resume
    remaining: dict = field(default_factory=dict)  # what a stopped build left for the next one
    failed: dict = field(default_factory=dict)  # model calls that failed, per step (the next build asks again)
    coverage: dict | None = None  # how much of the corpus a model has read (model builds)
    skipped: list[dict] = field(default_factory=list)  # files that could not be read, with the reason
    history: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"mode": self.mode, "stopped": self.stopped, "remaining": self.remaining, "failed": self.failed,
                "coverage": self.coverage, "model": self.model, "steps": self.steps,
                "seconds": {k: round(v, 3) for k, v in self.seconds.items()}, "skipped": self.skipped,
                "history": self.history}


def build(db: Database, code: Database, root: Path, config: KnowledgeConfig, provider: ChatProvider | None = None,
          embedder: EmbeddingProvider | None = None, budget: Budget | None = None,
          progress: Progress | None = None) -> BuildReport:
    model = CachedModel(provider, db, budget or Budget()) if provider is not None else None
    report = BuildReport(mode="model" if model else "offline")

    def step(name: str, work: Callable[[], dict]) -> None:
        started = time.perf_counter()
        try:
            report.steps[name] = work()
        finally:
            report.seconds[name] = time.perf_counter() - started

    try:
        found_holder: dict = {}

        def discovered() -> dict:
            found = discover(db, code, root, config)
            found_holder["found"] = found
            report.skipped = [s.as_dict() for s in found.skipped]
            report.history = found.history
            return {"documents": len(found.documents), "skipped": len(found.skipped)}

        step("discover", discovered)
        found = found_holder["found"]
        step("ingest", lambda: ingest.ingest(db, code, found.documents, found.complete, config, progress).as_dict())
        if found.history.get("head"):
            with db.transaction():
                set_meta(db, "history_head", found.history["head"])
                set_meta(db, "history_mapping", found.history["mapping_version"])
        summarize: graph.Summarize | None = None
        write: reports.WriteReport | None = None
        if model is not None:
            from tenure.knowledge import extraction, writing  # (the model's steps: prompts, answers)

            summarize, write = writing.summarizer(model), writing.report_writer(model, db)
            step("extraction", lambda: extraction.extract_all(db, model, config, progress))
        step("merge", lambda: graph.merge(db, summarize).as_dict())
        changed = touched(db)  # (what the merge changed, or a build stopped after it did)
        step("join", lambda: join.join(db, code, changed))
        step("citations", lambda: citations.scan(db, code, root))
        if communities.stale(db):  # unchanged edges keep their communities (Leiden is deterministic)
            step("communities", lambda: communities.cluster(db, config.max_cluster_size))
        step("reports", lambda: reports.build_reports(db, write, config.min_report_size, progress, changed))
        with db.transaction():
            untouch(db)
        if embedder is not None:
            from tenure.knowledge import vectors  # (numpy: only when embedding)

            step("embeddings", lambda: vectors.embed(db, embedder, progress))
    except BudgetExhausted as exc:
        report.stopped = f"{exc}: run the build again (with a larger budget) to resume; nothing is asked twice"
        report.remaining = _remaining(db, [s for s in STEPS if s not in report.steps])
    if model is not None:
        report.model = model.totals()
        report.failed = _failed(report)
        report.coverage = model_coverage(db, model.name)
    with db.transaction():
        if report.history:
            set_meta(db, "history", report.history)
        set_meta(db, "last_build", {"at": datetime.now(UTC).isoformat(timespec="seconds"), "mode": report.mode,
                                    "model": provider.name if provider else None, "stopped": report.stopped,
                                    "calls": report.model["calls"] if report.model else 0,
                                    "failed": sum(report.failed.values())})
    return report


STEPS = ("discover", "ingest", "extraction", "merge", "join", "communities", "reports", "embeddings")


def _failed(report: BuildReport) -> dict[str, int]:
    """Failed model calls per step; extraction's counted in text units (each failed one is read again)."""
    assert report.model is not None
    out = {step: use["failed"] for step, use in report.model["steps"].items()
           if use["failed"] and step not in ("extraction", "gleaning")}
    extraction = report.steps.get("extraction", {})
    if extraction.get("failed"):
        out["extraction (text units)"] = extraction["failed_chunks"]
    return out


def _remaining(db: Database, steps: list[str]) -> dict:
    unread = db.rows("SELECT COUNT(*) FROM knowledge_chunks WHERE model_state IS NULL OR model_state = 'failed'")[0][0]
    return {"text_units_to_read": unread, "steps_not_run": steps}

