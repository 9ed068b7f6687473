"""Spans -> observed edges (source `trace`, tier `observed`), with counts and first/last seen.

Per batch, in one transaction: each span is mapped to a symbol (mapping.py) and linked to its
parent and span links, whether those arrived in this batch or an earlier one (spans.py). A pair of
spans gives, by kind and service:

- parent -> child in one service, both mapped: `calls` (confirms tree-sitter's edge when it has one);
- CLIENT -> child SERVER: `http` from the client's symbol (or `service:A`) to the handler (or
  `service:B`), and `service:A -> service:B`;
- a span that publishes to a destination: `message` producer -> `topic:<dest>`; one that
  processes or receives from it: `message` `topic:<dest>` -> consumer; a consumer with no
  destination of its own takes its producer's (parent or span link), and with none on either side
  the producer -> consumer edge is direct.

Spans with no code attributes (HTTP clients, producers) run in the symbol of their nearest mapped
ancestor in the same service; an unmapped SERVER or CONSUMER span in the handler its first mapped
child runs in. What a batch gets wrong is counted by reason and never stops the ingest.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from tenure.namespace.tiers import Relation, Tier
from tenure.structural.resolve import SymbolInfo
from tenure.structural.store import SourceEdge, StructuralStore
from tenure.structural.traces import SOURCE
from tenure.structural.traces import conventions as cv
from tenure.structural.traces.mapping import SpanMapper, SymbolIndex
from tenure.structural.traces.otlp import Decoded, Span, TraceFileError, read_file
from tenure.structural.traces.spans import SpanIndex, SpanNode

BATCH_SPANS = 5000
RETENTION_HOURS = 6.0  # spans this much older (trace time) than the newest are forgotten by the linker
_ENTRY_KINDS = (cv.SpanKind.SERVER, cv.SpanKind.CONSUMER)
_OUTGOING_KINDS = (cv.SpanKind.CLIENT, cv.SpanKind.PRODUCER)
_ANCESTOR_DEPTH = 32
ORIGIN_SEPARATOR = "\n"  # an edge of two spans from two files belongs to both


def service_element(name: str) -> str | None:
    return f"service:{name}" if name else None


def topic_element(name: str) -> str:
    return f"topic:{name}"


@dataclass
class IngestReport:
    requests: int = 0
    spans: int = 0
    spans_mapped: int = 0
    mapped_by: Counter[str] = field(default_factory=Counter)
    unmapped_by_service: Counter[str] = field(default_factory=Counter)
    services: set[str] = field(default_factory=set)
    topics: set[str] = field(default_factory=set)
    observations: Counter[str] = field(default_factory=Counter)  # relation -> edge observations
    edges: set[tuple[str, str, str]] = field(default_factory=set)  # distinct (src, dst, relation)
    problems: Counter[str] = field(default_factory=Counter)
    skipped_bytes: int = 0  # of lines and frames over the size bound
    pruned: int = 0
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)  # whole inputs that could not be read

    def merge_decoded(self, decoded: Decoded) -> None:
        self.requests += 1
        self.problems.update(decoded.problems)
        self.skipped_bytes += decoded.skipped_bytes

    def as_dict(self) -> dict:
        by_relation = Counter(rel for _, _, rel in self.edges)
        return {
            "requests": self.requests, "spans": self.spans, "spans_mapped": self.spans_mapped,
            "mapped_by": dict(self.mapped_by),
            "unmapped_by_service": dict(self.unmapped_by_service.most_common(20)),
            "services": sorted(self.services), "topics": sorted(self.topics),
            "edges": dict(by_relation), "observations": dict(self.observations),
            "problems": dict(sorted(self.problems.items())), "skipped_bytes": self.skipped_bytes,
            "pruned_spans": self.pruned,
            "seconds": round(self.seconds, 3),
            "spans_per_second": int(self.spans / self.seconds) if self.seconds else 0,
            "errors": self.errors,
        }


class _EdgeBatch:
    """Observations of one batch, summed per edge and origin before they are written.

    An edge from one span belongs to that span's origin; one from a pair of spans to both origins
    (`A\nB`), so reading either file again replaces it, and it is counted once."""

    def __init__(self) -> None:
        # (origin ids, src, dst, relation, context) -> [count, first ns, last ns, detail]
        self.edges: dict[tuple[tuple[int, ...], str, str, str, str], list] = {}

    def add(self, origins: tuple[int, ...], src: str | None, dst: str | None, relation: Relation, context: str,
            start_ns: int, detail: str = "") -> None:
        if not src or not dst or src == dst:
            return
        key = (tuple(sorted(set(origins))), src, dst, relation.value, context)
        seen = self.edges.get(key)
        if seen is None:
            self.edges[key] = [1, start_ns, start_ns, detail]
            return
        seen[0] += 1
        if start_ns and (not seen[1] or start_ns < seen[1]):
            seen[1] = start_ns
        seen[2] = max(seen[2], start_ns)
        seen[3] = seen[3] or detail

    def by_origin(self) -> dict[tuple[int, ...], list[SourceEdge]]:
        out: dict[tuple[int, ...], list[SourceEdge]] = {}
        for (origins, src, dst, rel, context), (n, lo, hi, detail) in self.edges.items():
            out.setdefault(origins, []).append(SourceEdge(
                src=src, dst=dst, relation=rel, tier=Tier.OBSERVED.value, context=context, count=n,
                first_seen=_iso(lo), last_seen=_iso(hi), detail=detail,
            ))
        return out


def _iso(ns: int) -> str:
    if ns <= 0:
        return ""
    return datetime.fromtimestamp(ns / 1e9, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class TraceIngestor:
    """Turns batches of spans into observed edges of the project's graph. One per process and
    project; every `add` commits on its own, so an interrupted ingest keeps what it had."""

    def __init__(self, store: StructuralStore, root: Path, retention_hours: float = RETENTION_HOURS) -> None:
        self.store = store
        self.root = root
        self.spans = SpanIndex(store.db)
        self.retention_ns = int(retention_hours * 3600e9)
        self.report = IngestReport()
        self._origin_ids: dict[str, int] = {}
        self._origin_names = self.spans.origin_names()
        self._elements = {r["fqn"] for r in store.db.query(
            "SELECT fqn FROM symbols WHERE file_id IS NULL AND origin LIKE 'trace:%'")}
        self._index_generation = ""
        self.mapper = self._fresh_mapper()

    def _fresh_mapper(self) -> SpanMapper:
        self._index_generation = self.store.get_meta("indexed_at")
        return SpanMapper(SymbolIndex.load(self.store, self.root))

    def refresh_if_reindexed(self) -> None:
        """A long-running receiver maps against the index as it is now, not as it was at start."""
        if self.store.get_meta("indexed_at") != self._index_generation:
            self.mapper = self._fresh_mapper()

    # origins -------------------------------------------------------------------------------------
    def begin(self, origin: str, replace: bool) -> None:
        """Start ingesting `origin`; `replace` first forgets what it contributed before (a file read again)."""
        with self.store.db.transaction():
            origin_id = self._origin_ids[origin] = self.spans.origin_id(origin)
            self._origin_names[origin_id] = origin
            if replace:
                involving = [r["origin"] for r in self.store.db.query(
                    "SELECT DISTINCT origin FROM source_edges WHERE source = ?", (SOURCE,))
                    if origin in r["origin"].split(ORIGIN_SEPARATOR)]
                self.store.delete_source_edges(SOURCE, involving)
                self.spans.forget_origin(origin_id)

    def finish(self) -> IngestReport:
        """Count the orphans of every origin of this run and prune the span index."""
        if self._origin_ids:
            self.report.problems["orphan"] = self.spans.orphans(list(self._origin_ids.values()))
            if not self.report.problems["orphan"]:
                del self.report.problems["orphan"]
        with self.store.db.transaction():
            self.report.pruned += self.spans.prune(self.retention_ns)
        return self.report

    # batches -------------------------------------------------------------------------------------
    def add(self, spans: list[Span], origin: str) -> int:
        """Link, map and write one batch in one transaction; returns how many spans it took."""
        if origin not in self._origin_ids:
            self.begin(origin, replace=False)
        with self.store.db.transaction():
            return self._add(spans, self._origin_ids[origin])

    def _add(self, spans: list[Span], origin_id: int) -> int:
        batch = self._nodes(spans, origin_id)
        for key in self.spans.existing(list(batch)):
            del batch[key]
            self.report.problems["duplicate"] += 1
        if not batch:
            return 0
        known = self.spans.get({n.parent for n in batch.values() if n.parent and n.parent not in batch})
        waiting = self.spans.waiting_children(list(batch))  # children that arrived before their parent
        edges = _EdgeBatch()
        for adopted in self._inherit_symbols(batch, known, waiting):
            self._messaging(adopted, edges, symbol_only=True)
        for node in batch.values():
            if node.symbol:
                self.report.spans_mapped += 1
                self.report.mapped_by[node.how or "inherited"] += 1
            else:
                self.report.unmapped_by_service[node.service or "(unknown)"] += 1
        self._link(batch, known, waiting, edges)
        for node in batch.values():
            self._messaging(node, edges)
        self.spans.add(batch.values())
        self._write(edges)
        self.report.spans += len(batch)
        return len(batch)

    def _nodes(self, spans: list[Span], origin_id: int) -> dict[bytes, SpanNode]:
        nodes: dict[bytes, SpanNode] = {}
        report = self.report
        for span in spans:
            key = span.trace_id + span.span_id
            if key in nodes:
                report.problems["duplicate"] += 1
                continue
            service = "" if cv.is_unknown_service(span.service) else span.service
            if not service:
                report.problems["unknown_service"] += 1
            elif service not in report.services:
                report.services.add(service)
                self._element(service_element(service) or "", service, "service")
            if span.start_ns <= 0 or span.end_ns <= 0:
                report.problems["missing_timestamps"] += 1
            elif span.end_ns < span.start_ns:
                report.problems["clock_skew"] += 1
            mapped = self.mapper.map(span)
            a = span.attributes
            role = cv.messaging_role(span.kind, cv.first(a, cv.OPERATION))
            destination = cv.first(a, cv.DESTINATION) if role else None
            nodes[key] = SpanNode(
                key=key, parent=span.trace_id + span.parent_id if span.parent_id else None, service=service,
                symbol=mapped.fqn, kind=span.kind, role=role, destination=str(destination or ""),
                start_ns=max(span.start_ns, 0), detail=_detail(span, role), origin_id=origin_id,
                own_symbol=mapped.fqn, how=mapped.how, links=span.links,
            )
        return nodes

    def _inherit_symbols(self, batch: dict[bytes, SpanNode], known: dict[bytes, SpanNode],
                         waiting: list[SpanNode]) -> list[SpanNode]:
        """Give unmapped spans the symbol they ran in; returns the stored children that learnt theirs now."""
        children: dict[bytes, list[SpanNode]] = {}
        for node in [*batch.values(), *waiting]:
            if node.parent in batch:
                children.setdefault(node.parent, []).append(node)
        for node in batch.values():  # entry spans: the handler their first mapped child runs in
            if node.symbol is None and node.kind in _ENTRY_KINDS:
                mapped = sorted((c for c in children.get(node.key, ())
                                 if (c.own_symbol or c.symbol) and c.service == node.service and c.kind not in
                                 _ENTRY_KINDS), key=lambda c: c.start_ns)
                if mapped:
                    node.symbol = mapped[0].own_symbol or mapped[0].symbol
        for node in batch.values():  # the rest: the nearest mapped ancestor in the same service
            if node.symbol is None and node.kind not in _ENTRY_KINDS:
                node.symbol = _ancestor_symbol(node, batch, known)
        # a child exported before its parent (SDKs export spans as they end) learns it now
        adopted = []
        for child in waiting:
            parent = batch[child.parent]  # type: ignore[index]
            if (child.symbol is None and child.kind not in _ENTRY_KINDS and parent.symbol
                    and parent.service == child.service):
                child.symbol = parent.symbol
                adopted.append(child)
        self.spans.set_symbols(adopted)
        return adopted

    def _link(self, batch: dict[bytes, SpanNode], known: dict[bytes, SpanNode], waiting: list[SpanNode],
              edges: _EdgeBatch) -> None:
        for node in batch.values():
            if node.parent is None:
                continue
            parent = batch.get(node.parent) or known.get(node.parent)
            if parent is not None:
                self._pair(parent, node, edges)
        for child in waiting:
            self._pair(batch[child.parent], child, edges)  # type: ignore[index]
        # span links: to spans already seen now, else waiting for them
        link_targets = {t for n in batch.values() for t in n.links}
        linked = self.spans.get(t for t in link_targets if t not in batch)
        unresolved: list[tuple[bytes, SpanNode]] = []
        for node in batch.values():
            for target in node.links:
                producer = batch.get(target) or linked.get(target)
                if producer is None:
                    unresolved.append((target, node))
                else:
                    self._pair_messages(producer, node, edges)
        self.spans.add_links(unresolved)
        waiting_links = self.spans.waiting_links(list(batch))
        linkers = self.spans.get({span for _, span in waiting_links})
        for target, span in waiting_links:
            if span in linkers:
                self._pair_messages(batch[target], linkers[span], edges)

    def _pair(self, parent: SpanNode, child: SpanNode, edges: _EdgeBatch) -> None:
        if parent.start_ns and child.start_ns and child.start_ns < parent.start_ns:
            self.report.problems["clock_skew"] += 1  # kept: the relation holds, only the clocks disagree
        same_service = bool(parent.service) and parent.service == child.service
        origins = (parent.origin_id, child.origin_id)
        if parent.kind == cv.SpanKind.CLIENT and child.kind == cv.SpanKind.SERVER:
            client, server = service_element(parent.service), service_element(child.service)
            edges.add(origins, parent.symbol or client, child.symbol or server, Relation.HTTP, parent.service,
                      child.start_ns, child.detail)
            if not same_service:
                edges.add(origins, client, server, Relation.HTTP, parent.service, child.start_ns, child.detail)
        elif parent.role == "produce" and child.role == "consume":
            self._pair_messages(parent, child, edges)
        elif same_service and child.kind not in _ENTRY_KINDS and parent.kind not in _OUTGOING_KINDS:
            edges.add(origins, parent.symbol, child.symbol, Relation.CALLS, parent.service, child.start_ns)

    def _pair_messages(self, producer: SpanNode, consumer: SpanNode, edges: _EdgeBatch) -> None:
        """A producer and the consumer it reached: fills in a destination one side lacks."""
        src = producer.symbol or service_element(producer.service)
        dst = consumer.symbol or service_element(consumer.service)
        origins = (producer.origin_id, consumer.origin_id)
        if producer.destination and not consumer.destination:
            edges.add(origins, self._topic(producer.destination), dst, Relation.MESSAGE, consumer.service,
                      consumer.start_ns)
        elif consumer.destination and not producer.destination:
            edges.add(origins, src, self._topic(consumer.destination), Relation.MESSAGE, producer.service,
                      producer.start_ns)
        elif not producer.destination and not consumer.destination:
            edges.add(origins, src, dst, Relation.MESSAGE, producer.service, consumer.start_ns)

    def _messaging(self, node: SpanNode, edges: _EdgeBatch, symbol_only: bool = False) -> None:
        """A span's own messaging edges: its service's, and its symbol's when it has one (which a
        producer exported before its parent learns only when the parent arrives: `symbol_only`)."""
        if not node.role or not node.destination:
            return
        topic = self._topic(node.destination)
        for here in ((node.symbol,) if symbol_only else (service_element(node.service), node.symbol)):
            if node.role == "produce":
                edges.add((node.origin_id,), here, topic, Relation.MESSAGE, node.service, node.start_ns, node.detail)
            else:
                edges.add((node.origin_id,), topic, here, Relation.MESSAGE, node.service, node.start_ns, node.detail)

    def _topic(self, destination: str) -> str:
        fqn = topic_element(destination)
        if destination not in self.report.topics:
            self.report.topics.add(destination)
            self._element(fqn, destination, "topic")
        return fqn

    def _element(self, fqn: str, name: str, kind: str) -> None:
        """A service or topic as a symbol of its own origin, so no later file drops it."""
        if fqn in self._elements:
            return
        self._elements.add(fqn)
        self.store.replace_source_symbols(
            f"{SOURCE}:{fqn}", [SymbolInfo(fqn=fqn, name=name, kind=kind, language="service", path="", line=0)]
        )

    def _write(self, edges: _EdgeBatch) -> None:
        for origin_ids, rows in edges.by_origin().items():
            origin = ORIGIN_SEPARATOR.join(sorted(self._origin_name(i) for i in origin_ids))
            self.store.add_source_edges(SOURCE, origin, rows)
            for e in rows:
                self.report.observations[e.relation] += e.count
                self.report.edges.add((e.src, e.dst or "", e.relation))

    def _origin_name(self, origin_id: int) -> str:
        if origin_id not in self._origin_names:
            self._origin_names = self.spans.origin_names()
        return self._origin_names[origin_id]


def _ancestor_symbol(node: SpanNode, batch: dict[bytes, SpanNode], known: dict[bytes, SpanNode]) -> str | None:
    current = node
    for _ in range(_ANCESTOR_DEPTH):
        parent = batch.get(current.parent) if current.parent else None
        if parent is None:
            parent = known.get(current.parent) if current.parent else None
            # a stored span's symbol is already what it inherited: one step is enough
            return parent.symbol if parent is not None and parent.service == node.service else None
        if parent.service != node.service:
            return None
        if parent.own_symbol or parent.symbol:
            return parent.symbol or parent.own_symbol
        current = parent
    return None


def _detail(span: Span, role: str) -> str:
    """What an edge's detail says: the server's `GET /orders/{id}` (its http edges), the messaging
    system and operation (message edges). Other spans' edges need none: not computed per span."""
    a = span.attributes
    if role:
        return " ".join(str(x) for x in (cv.first(a, cv.MESSAGING_SYSTEM), cv.first(a, cv.OPERATION)) if x)
    if span.kind == cv.SpanKind.SERVER:
        where = cv.first(a, cv.HTTP_ROUTE) or cv.first(a, cv.URL) or cv.first(a, cv.SERVER_ADDRESS)
        return " ".join(str(x) for x in (cv.first(a, cv.HTTP_METHOD), where) if x)
    return ""


# files ------------------------------------------------------------------------------------------
def ingest_files(
    ingestor: TraceIngestor, paths: Iterable[Path], progress: Callable[[Path, int, int], None] | None = None,
) -> IngestReport:
    """Stream every file (a directory: its files, oldest first, as a collector rotates them) through the
    ingestor in batches; a file read again replaces what it gave before. A file that cannot be read at
    all is reported and skipped."""
    started = time.perf_counter()
    for path in _files(paths):
        try:
            _ingest_file(ingestor, path, progress)
        except TraceFileError as exc:
            ingestor.report.problems["unreadable_file"] += 1
            ingestor.report.errors.append(str(exc))
    report = ingestor.finish()
    report.seconds += time.perf_counter() - started
    return report


def _files(paths: Iterable[Path]) -> Iterator[Path]:
    for path in paths:
        if path.is_dir():
            yield from sorted((p for p in path.iterdir() if p.is_file()), key=lambda p: (p.stat().st_mtime, p.name))
        else:
            yield path


def _ingest_file(ingestor: TraceIngestor, path: Path, progress: Callable[[Path, int, int], None] | None) -> None:
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise TraceFileError(f"cannot read {path}: {exc.strerror}") from exc
    origin = f"file:{path.resolve()}"
    ingestor.begin(origin, replace=True)
    pending: list[Span] = []
    for decoded, done in read_file(path):
        ingestor.report.merge_decoded(decoded)
        pending += decoded.spans
        if len(pending) >= BATCH_SPANS:
            ingestor.add(pending, origin)
            pending = []
        if progress:
            progress(path, done, size)
    if pending:
        ingestor.add(pending, origin)
    if progress:
        progress(path, size, size)
