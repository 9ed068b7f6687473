"""A local OTLP/HTTP trace receiver: `POST /v1/traces`, JSON or protobuf, gzip or not.

Responses follow the OTLP/HTTP spec: 200 with an `ExportTraceServiceResponse` (its
`partial_success` says how many spans were rejected and why), 400 with a `google.rpc.Status` for a
body that cannot be decoded, 413 past the size limit (decompressed: a gzip body is inflated as it
arrives and stopped there), 415 for an unknown content type, 503 with Retry-After (which exporters
retry) while the database stays locked or the bodies held at once reach their bound — each in the
request's own encoding. A request naming another Host or Origin than the server's gets 421 / 403
(DNS rebinding). Every accepted request is committed before its response, so a bad request never
costs what earlier ones brought. Spans are linked to parents that arrived in earlier requests.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
import zlib
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTracePartialSuccess,
    ExportTraceServiceResponse,
)
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tenure.http_guard import HostCheck, HostGuard
from tenure.storage import DatabaseLocked, DatabaseUnavailable
from tenure.structural.traces.ingest import TraceIngestor
from tenure.structural.traces.otlp import MAX_REQUEST_BYTES, Decoded, MalformedRequest, decode_json, decode_protobuf

TRACES_PATH = "/v1/traces"
ORIGIN = "otlp-http"
JSON = "application/json"
PROTOBUF = "application/x-protobuf"
# Bodies held at once, across requests (read, decoded, waiting for the writer); their decoded spans
# take about twice as much again. Past it a request gets 503: exporters retry it.
MAX_IN_FLIGHT_BYTES = 64 * 1024 * 1024
PRUNE_EVERY_S = 60.0
RETRY_AFTER_S = 5
_INVALID_ARGUMENT, _RESOURCE_EXHAUSTED, _UNAVAILABLE = 3, 8, 14  # google.rpc.Code


@dataclass
class Received:
    """One accepted request, as the CLI reports it."""

    services: list[str]
    spans: int
    rejected: int
    problems: dict[str, int]


class TraceReceiver:
    """The ingest side of the server: one ingestor, one writer at a time."""

    def __init__(self, ingestor: TraceIngestor, on_request: Callable[[Received], None] | None = None) -> None:
        self.ingestor = ingestor
        self.on_request = on_request
        self._lock = threading.Lock()
        self._pruned_at = time.monotonic()
        ingestor.begin(ORIGIN, replace=False)

    def accept(self, decoded: Decoded) -> Received:
        started = time.perf_counter()
        with self._lock:
            self.ingestor.refresh_if_reindexed()
            taken = self.ingestor.add(decoded.spans, ORIGIN) if decoded.spans else 0
            self.ingestor.report.merge_decoded(decoded)  # counted once it is in: a retried request is not
            if time.monotonic() - self._pruned_at > PRUNE_EVERY_S:
                self.ingestor.finish()
                self._pruned_at = time.monotonic()
            self.ingestor.report.seconds += time.perf_counter() - started
        received = Received(sorted({s.service for s in decoded.spans}), taken, decoded.rejected,
                            dict(decoded.problems))
        if self.on_request:
            self.on_request(received)
        return received

    def reject(self, reason: str) -> None:
        with self._lock:
            self.ingestor.report.requests += 1
            self.ingestor.report.problems[reason] += 1

    def close(self) -> None:
        with self._lock:
            self.ingestor.finish()


class InFlight:
    """The bytes of request bodies the server holds at once; requests share the event loop's thread."""

    def __init__(self, limit: int = MAX_IN_FLIGHT_BYTES) -> None:
        self.limit = limit
        self.held = 0

    @contextlib.contextmanager
    def holding(self) -> Iterator[Callable[[int], None]]:
        """A request's share: `take(n)` more bytes (refused with 503 past the limit), all given back at the end."""
        taken = 0

        def take(n: int) -> None:
            nonlocal taken
            if self.held + n > self.limit:
                raise _BodyError(503, _UNAVAILABLE, "", f"the server holds {self.held} bytes of other requests "
                                 f"(its bound is {self.limit}): retry")
            self.held += n
            taken += n

        try:
            yield take
        finally:
            self.held -= taken


def build_app(receiver: TraceReceiver, check: HostCheck, in_flight: InFlight | None = None) -> Starlette:
    """The receiver's app; requests must pass `check` (the Host and Origin of the server's bind)."""
    in_flight = in_flight or InFlight()

    async def traces(request: Request) -> Response:
        content_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if content_type not in (JSON, PROTOBUF):
            return _status(415, _INVALID_ARGUMENT, f"content type must be {JSON} or {PROTOBUF}", JSON)
        with in_flight.holding() as take:
            try:
                body = await _read_body(request, take)
            except _BodyError as exc:
                if exc.http_status == 503:
                    return _retry_later(str(exc), content_type)
                await run_in_threadpool(receiver.reject, exc.reason)
                return _status(exc.http_status, exc.code, str(exc), content_type)
            decode = decode_json if content_type == JSON else decode_protobuf
            try:
                decoded = decode(body)
            except MalformedRequest as exc:
                await run_in_threadpool(receiver.reject, exc.reason)
                return _status(400, _INVALID_ARGUMENT, str(exc), content_type)
            del body
            try:
                await run_in_threadpool(receiver.accept, decoded)
            except (DatabaseLocked, DatabaseUnavailable) as exc:
                # the database stayed locked past its busy timeout (a long index) or could not be written
                # (disk full): the batch rolled back whole
                return _retry_later(f"database busy, retry: {exc}", content_type)
        return _success(decoded, content_type)

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        yield
        receiver.close()  # orphans counted, span index pruned

    return Starlette(routes=[Route(TRACES_PATH, traces, methods=["POST"])], lifespan=lifespan,
                     middleware=[Middleware(HostGuard, check=check)])


class _BodyError(Exception):
    def __init__(self, http_status: int, code: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.http_status, self.code, self.reason = http_status, code, reason


async def _read_body(request: Request, take: Callable[[int], None]) -> bytearray:
    """The body, decompressed as it arrives: never more than MAX_REQUEST_BYTES of it is held (a small
    gzip body can inflate a thousandfold), each chunk taken from the bytes in flight first."""
    encoding = request.headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("identity", "gzip"):
        raise _BodyError(415, _INVALID_ARGUMENT, "unsupported_encoding",
                         f"content encoding {encoding!r}: send gzip or none")
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS) if encoding == "gzip" else None  # gzip framing
    body = bytearray()
    async for chunk in request.stream():
        if inflate is not None:
            try:
                chunk = inflate.decompress(chunk, MAX_REQUEST_BYTES + 1 - len(body))  # (never 0: that is unbounded)
            except zlib.error as exc:
                raise _BodyError(400, _INVALID_ARGUMENT, "malformed_gzip", f"not gzip: {exc}") from exc
        if inflate is not None and inflate.unused_data:  # (kept by zlib, unbounded: refused at once)
            raise _BodyError(400, _INVALID_ARGUMENT, "malformed_gzip", "not gzip: data after the end of the stream")
        if len(body) + len(chunk) > MAX_REQUEST_BYTES:
            raise _BodyError(413, _RESOURCE_EXHAUSTED, "too_large",
                             f"body over {MAX_REQUEST_BYTES} bytes" + (" decompressed" if inflate else ""))
        take(len(chunk))
        body += chunk
    if inflate is not None and not inflate.eof:
        raise _BodyError(400, _INVALID_ARGUMENT, "malformed_gzip", "not gzip: the compressed body is cut short")
    return body  # (not copied into bytes: both decoders read a bytearray)


def _retry_later(message: str, content_type: str) -> Response:
    """503 with Retry-After: what OTLP exporters retry."""
    response = _status(503, _UNAVAILABLE, message, content_type)
    response.headers["retry-after"] = str(RETRY_AFTER_S)
    return response


def _success(decoded: Decoded, content_type: str) -> Response:
    response = ExportTraceServiceResponse()
    if decoded.rejected or decoded.problems:
        why = ", ".join(f"{n} {reason}" for reason, n in sorted(decoded.problems.items()))
        response.partial_success.CopyFrom(ExportTracePartialSuccess(rejected_spans=decoded.rejected, error_message=why))
    if content_type == JSON:
        return Response(json_format.MessageToJson(response, indent=None), media_type=JSON)
    return Response(response.SerializeToString(), media_type=PROTOBUF)


def _status(http_status: int, code: int, message: str, content_type: str) -> Response:
    """A google.rpc.Status body, as the OTLP/HTTP spec asks of every 4xx."""
    if content_type == JSON:
        return Response(json.dumps({"code": code, "message": message}), http_status, media_type=JSON)
    return Response(_status_protobuf(code, message), http_status, media_type=PROTOBUF)


def _status_protobuf(code: int, message: str) -> bytes:
    # google.rpc.Status is two fields here (code = 1, message = 2): encoded by hand rather than
    # pulling googleapis-common-protos in for one message.
    text = message.encode()
    return b"\x08" + _varint(code) + b"\x12" + _varint(len(text)) + text


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)
