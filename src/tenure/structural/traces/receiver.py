"""A local OTLP/HTTP trace receiver: `POST /v1/traces`, JSON or protobuf, gzip or not.

Responses follow the OTLP/HTTP spec: 200 with an `ExportTraceServiceResponse` (its
`partial_success` says how many spans were rejected and why), 400 with a `google.rpc.Status` for a
body that cannot be decoded, 413 past the size limit, 415 for an unknown content type, 503 (which
exporters retry) while the database stays locked — each in the request's own encoding. Every
accepted request is committed before its response, so a bad request never costs what earlier ones
brought. Spans are linked to parents that arrived in earlier requests.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
import zlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTracePartialSuccess,
    ExportTraceServiceResponse,
)
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tenure.structural.traces.ingest import TraceIngestor
from tenure.structural.traces.otlp import Decoded, MalformedRequest, decode_json, decode_protobuf

TRACES_PATH = "/v1/traces"
ORIGIN = "otlp-http"
JSON = "application/json"
PROTOBUF = "application/x-protobuf"
MAX_BODY_BYTES = 64 * 1024 * 1024  # decompressed; the collector's own default limit is of this order
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


def build_app(receiver: TraceReceiver) -> Starlette:
    async def traces(request: Request) -> Response:
        content_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if content_type not in (JSON, PROTOBUF):
            return _status(415, _INVALID_ARGUMENT, f"content type must be {JSON} or {PROTOBUF}", JSON)
        try:
            body = await _read_body(request)
        except _BodyError as exc:
            await run_in_threadpool(receiver.reject, exc.reason)
            return _status(exc.http_status, exc.code, str(exc), content_type)
        decode = decode_json if content_type == JSON else decode_protobuf
        try:
            decoded = decode(body)
        except MalformedRequest as exc:
            await run_in_threadpool(receiver.reject, exc.reason)
            return _status(400, _INVALID_ARGUMENT, str(exc), content_type)
        try:
            await run_in_threadpool(receiver.accept, decoded)
        except sqlite3.OperationalError as exc:
            # the database stayed locked past its busy timeout (a long index): the batch rolled back
            # whole, and 503 is what OTLP exporters retry
            response = _status(503, _UNAVAILABLE, f"database busy, retry: {exc}", content_type)
            response.headers["retry-after"] = str(RETRY_AFTER_S)
            return response
        return _success(decoded, content_type)

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        yield
        receiver.close()  # orphans counted, span index pruned

    return Starlette(routes=[Route(TRACES_PATH, traces, methods=["POST"])], lifespan=lifespan)


class _BodyError(Exception):
    def __init__(self, http_status: int, code: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.http_status, self.code, self.reason = http_status, code, reason


async def _read_body(request: Request) -> bytes:
    encoding = request.headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("identity", "gzip"):
        raise _BodyError(415, _INVALID_ARGUMENT, "unsupported_encoding",
                         f"content encoding {encoding!r}: send gzip or none")
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY_BYTES:
            raise _BodyError(413, _RESOURCE_EXHAUSTED, "too_large", f"body over {MAX_BODY_BYTES} bytes")
    if encoding == "identity":
        return bytes(raw)
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)  # gzip framing
    try:
        body = inflate.decompress(bytes(raw), MAX_BODY_BYTES + 1)
    except zlib.error as exc:
        raise _BodyError(400, _INVALID_ARGUMENT, "malformed_gzip", f"not gzip: {exc}") from exc
    if len(body) > MAX_BODY_BYTES:
        raise _BodyError(413, _RESOURCE_EXHAUSTED, "too_large", f"body over {MAX_BODY_BYTES} bytes decompressed")
    return body


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
