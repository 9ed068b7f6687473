"""OTLP trace data in, neutral :class:`Span` records out.

Two encodings of `ExportTraceServiceRequest`: OTLP/JSON (lowerCamelCase keys as the spec says,
hex trace and span ids, 64-bit integers as strings, attribute values as `AnyValue` objects) and
binary protobuf (`opentelemetry-proto`'s generated classes). Files are read as a stream: one request
per line (the collector's file exporter), or length-prefixed protobuf frames. Nothing here is fatal:
what a request gets wrong is counted per reason in :attr:`Decoded.problems`, the rest is kept.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import zlib
from collections import Counter
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import msgspec
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tenure.structural.traces.conventions import SERVICE_NAME, SPAN_KIND_NAMES, WANTED

TRACE_ID_BYTES = 16
SPAN_ID_BYTES = 8
# One request (a POST body, a line, a frame), decompressed: the OpenTelemetry collector's own default
# bound on a request body (confighttp's max_request_body_size, 20 MiB). SDK exporters send far less.
MAX_REQUEST_BYTES = 20 * 1024 * 1024
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_GZIP_MAGIC = b"\x1f\x8b"
_json = msgspec.json.Decoder()


class Span(msgspec.Struct, gc=False):
    """One span, reduced to what the graph needs."""

    trace_id: bytes
    span_id: bytes
    parent_id: bytes  # b"" for a root span
    name: str
    kind: int  # conventions.SpanKind
    start_ns: int  # 0 when the span did not say
    end_ns: int
    service: str  # "" when the resource names none
    attributes: dict[str, Any]  # only conventions.WANTED
    links: tuple[bytes, ...] = ()  # trace id + span id of each linked span


@dataclass
class Decoded:
    """What one request (a line, a frame, a POST body) held."""

    spans: list[Span] = field(default_factory=list)
    problems: Counter[str] = field(default_factory=Counter)
    rejected: int = 0  # spans dropped (no usable ids): OTLP's partial_success.rejected_spans
    skipped_bytes: int = 0  # of a line or frame over the size bound, not read into memory


class MalformedRequest(ValueError):
    """The whole request is unreadable; `reason` is the problem counter it adds to."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


# JSON -----------------------------------------------------------------------------------------
# OTLP/JSON's shape, for msgspec to decode into directly. Lenient where writers differ (kind as a
# number or the enum's name, 64-bit integers as strings or numbers, null ids); anything else that
# does not fit sends the request down the slower path that salvages it span by span.
class _KeyValue(msgspec.Struct):
    key: str = ""
    value: Any = None  # an AnyValue object, looked at only when the key is wanted


class _Link(msgspec.Struct, rename="camel"):
    trace_id: str | None = None
    span_id: str | None = None


class _JsonSpan(msgspec.Struct, rename="camel"):
    trace_id: str | None = None
    span_id: str | None = None
    parent_span_id: str | None = None
    name: str = ""
    kind: int | str = 0
    start_time_unix_nano: int | str = 0
    end_time_unix_nano: int | str = 0
    attributes: list[_KeyValue] = []
    links: list[_Link] = []


class _Scope(msgspec.Struct):
    spans: list[_JsonSpan] = []


class _Resource(msgspec.Struct):
    attributes: list[_KeyValue] = []


class _ResourceSpans(msgspec.Struct, rename="camel"):
    resource: _Resource = msgspec.field(default_factory=_Resource)
    scope_spans: list[_Scope] = []
    instrumentation_library_spans: list[_Scope] = []  # before OTLP 0.19 (collector < 0.63)


class _Request(msgspec.Struct, rename="camel"):
    resource_spans: list[_ResourceSpans]


_typed = msgspec.json.Decoder(_Request)


def decode_json(data: bytes | bytearray | str) -> Decoded:
    out = Decoded()
    try:
        try:
            resources = _typed.decode(data).resource_spans
        except msgspec.ValidationError:
            resources = _salvage(data, out)
    except msgspec.DecodeError as exc:
        raise MalformedRequest("malformed_json", f"not JSON: {exc}") from exc
    except RecursionError as exc:  # arrays in arrays thousands deep: no request is shaped so
        raise MalformedRequest("nested_too_deep", "not an ExportTraceServiceRequest: nested too deep") from exc
    for resource_spans in resources:
        service = str(_json_attributes(resource_spans.resource.attributes, (SERVICE_NAME,), out)
                      .get(SERVICE_NAME, ""))
        for scope in resource_spans.scope_spans or resource_spans.instrumentation_library_spans:
            for raw in scope.spans:
                span = _json_span(raw, service, out)
                if span is None:
                    out.rejected += 1
                else:
                    out.spans.append(span)
    return out


def _salvage(data: bytes | bytearray | str, out: Decoded) -> list[_ResourceSpans]:
    """A request with a part of the wrong shape: keep every resource and span that fits, count the rest."""
    obj = _json.decode(data)
    if not isinstance(obj, dict) or not isinstance(obj.get("resourceSpans"), list):
        raise MalformedRequest("wrong_shape", "not an ExportTraceServiceRequest: no resourceSpans list")
    kept = []
    for raw in obj["resourceSpans"]:
        try:
            kept.append(msgspec.convert(raw, _ResourceSpans))
            continue
        except msgspec.ValidationError:
            pass
        if not isinstance(raw, dict):
            out.problems["wrong_shape"] += 1
            continue
        resource = _convert_or_count(raw.get("resource") or {}, _Resource, out) or _Resource()
        scopes = []
        for scope in _list(raw.get("scopeSpans") or raw.get("instrumentationLibrarySpans"), out):
            spans = _list(scope.get("spans") if isinstance(scope, dict) else None, out)
            converted = (_convert_or_count(s, _JsonSpan, out) for s in spans)
            scopes.append(_Scope([s for s in converted if s is not None]))
        kept.append(_ResourceSpans(resource=resource, scope_spans=scopes))
    return kept


def _list(value: object, out: Decoded) -> list:
    if isinstance(value, list):
        return value
    out.problems["wrong_shape"] += 1
    return []


def _convert_or_count(raw: object, kind: type, out: Decoded) -> Any:
    try:
        return msgspec.convert(raw, kind)
    except msgspec.ValidationError:
        out.problems["wrong_shape"] += 1
        out.rejected += kind is _JsonSpan
        return None


def _json_span(raw: _JsonSpan, service: str, out: Decoded) -> Span | None:
    trace_id = _json_id(raw.trace_id, TRACE_ID_BYTES)
    span_id = _json_id(raw.span_id, SPAN_ID_BYTES)
    if trace_id is None or span_id is None:
        out.problems["missing_ids"] += 1
        return None
    parent_id = _json_id(raw.parent_span_id, SPAN_ID_BYTES) if raw.parent_span_id else b""
    if parent_id is None:
        out.problems["bad_parent_id"] += 1  # kept as a root: its own edges still count
        parent_id = b""
    kind = raw.kind if isinstance(raw.kind, int) else SPAN_KIND_NAMES.get(raw.kind, 0)
    links = []
    for link in raw.links:
        lt, ls = _json_id(link.trace_id, TRACE_ID_BYTES), _json_id(link.span_id, SPAN_ID_BYTES)
        if lt and ls:
            links.append(lt + ls)
    return Span(
        trace_id=trace_id, span_id=span_id, parent_id=parent_id, name=raw.name, kind=kind,
        start_ns=_json_int(raw.start_time_unix_nano, out), end_ns=_json_int(raw.end_time_unix_nano, out),
        service=service, attributes=_json_attributes(raw.attributes, WANTED, out), links=tuple(links),
    )


def _json_id(value: str | None, size: int) -> bytes | None:
    """OTLP/JSON spells ids in hex; protobuf's generic JSON mapping in base64. All-zero is invalid."""
    if not value:
        return None
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        try:
            raw = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            return None
    return raw if len(raw) == size and any(raw) else None


_MAX_NS = 2**63 - 1  # the latest time the store can hold (2262): OTLP's fixed64 reaches further


def _json_int(value: int | str, out: Decoded) -> int:
    try:
        return _nanoseconds(int(value), out)
    except ValueError:
        return _nanoseconds(-1, out)


def _nanoseconds(value: int, out: Decoded) -> int:
    """A span's timestamp, or 0 (not said) counted as a bad one when no time can be that."""
    if 0 <= value <= _MAX_NS:
        return value
    out.problems["bad_timestamp"] += 1
    return 0


def _json_attributes(attributes: list[_KeyValue], wanted: frozenset[str] | tuple[str, ...],
                     out: Decoded) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for kv in attributes:
        if kv.key not in wanted:
            continue
        value = kv.value
        if not isinstance(value, dict) or len(value) != 1:
            out.problems["bad_attribute"] += 1
            continue
        ((kind, scalar),) = value.items()
        if kind == "intValue":  # int64 as a string
            try:
                scalar = int(scalar)
            except (TypeError, ValueError):
                out.problems["bad_attribute"] += 1
                continue
        if isinstance(scalar, (str, int, float, bool)):
            found[kv.key] = scalar
    return found


# protobuf -------------------------------------------------------------------------------------
def decode_protobuf(data: bytes | bytearray) -> Decoded:
    try:
        request = ExportTraceServiceRequest.FromString(data)
    except DecodeError as exc:
        raise MalformedRequest("malformed_protobuf", f"not an ExportTraceServiceRequest: {exc}") from exc
    out = Decoded()
    for resource_spans in request.resource_spans:
        service = _proto_attributes(resource_spans.resource.attributes, (SERVICE_NAME,)).get(SERVICE_NAME, "")
        for scope in resource_spans.scope_spans:
            for s in scope.spans:
                if len(s.trace_id) != TRACE_ID_BYTES or len(s.span_id) != SPAN_ID_BYTES or not any(s.span_id):
                    out.problems["missing_ids"] += 1
                    out.rejected += 1
                    continue
                parent_id = s.parent_span_id
                if parent_id and len(parent_id) != SPAN_ID_BYTES:
                    out.problems["bad_parent_id"] += 1
                    parent_id = b""
                out.spans.append(Span(
                    trace_id=s.trace_id, span_id=s.span_id, parent_id=parent_id, name=s.name, kind=s.kind,
                    start_ns=_nanoseconds(s.start_time_unix_nano, out),
                    end_ns=_nanoseconds(s.end_time_unix_nano, out), service=str(service),
                    attributes=_proto_attributes(s.attributes, WANTED),
                    links=tuple(link.trace_id + link.span_id for link in s.links
                                if len(link.trace_id) == TRACE_ID_BYTES and len(link.span_id) == SPAN_ID_BYTES),
                ))
    return out


def _proto_attributes(attributes: Any, wanted: frozenset[str] | tuple[str, ...]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for kv in attributes:
        if kv.key in wanted:
            which = kv.value.WhichOneof("value")
            if which in ("string_value", "int_value", "double_value", "bool_value"):
                found[kv.key] = getattr(kv.value, which)
    return found


# files ----------------------------------------------------------------------------------------
class TraceFileError(ValueError):
    """A file tenure cannot read at all (compression it does not speak, not a file)."""


def read_file(path: Path) -> Iterator[tuple[Decoded, int]]:
    """Every request in a trace file, with the bytes of the file read so far (for progress).

    JSON lines (the collector's file exporter, `format: json`), or protobuf: frames with a 4-byte
    big-endian length (the file exporter's `format: proto`), varint-delimited frames (the OTLP file
    exporter spec), or one bare request (an OTLP/HTTP body saved to a file). gzip is read through.
    Streamed, in bounded memory: a line or frame over MAX_REQUEST_BYTES is skipped, and a compressed
    file is read no further than it inflates to MAX_INFLATION times its size; both are counted.
    """
    try:
        raw = path.open("rb")
        size = path.stat().st_size
    except OSError as exc:
        raise TraceFileError(f"cannot read {path}: {exc.strerror}") from exc
    with raw:
        magic = raw.read(4)
        raw.seek(0)
        if magic == _ZSTD_MAGIC:
            raise TraceFileError(f"{path} is zstd-compressed: decompress it first (zstd -d {path})")
        compressed, cut_short = magic[:2] == _GZIP_MAGIC, 0
        stream = _Bounded(gzip.GzipFile(fileobj=raw) if compressed else raw,
                          max(MAX_INFLATION * size, MAX_REQUEST_BYTES) if compressed else None)
        try:
            head = stream.read(1)
            while head[-1:].isspace() and len(head) <= _LEADING_SPACE:  # blank lines before JSON; but 0x0a is
                byte = stream.read(1)  # also protobuf's first tag (and a frame's length may read as a space)
                if not byte:
                    return  # blank
                head += byte
            if head[-1:] in (b"{", b"[") or head[-1:].isspace():  # (more than a protobuf request starts with)
                cut_short = yield from _json_lines(head, stream, raw)
            elif head:
                yield from _protobuf_frames(_Unread(head, stream), raw)
        except (EOFError, zlib.error, gzip.BadGzipFile):  # cut off (a copy stopped half-way): keep what came
            yield _problem("truncated_compressed_file"), raw.tell()
        if stream.cut:
            yield _problem("inflated_too_far", cut_short), raw.tell()


MAX_INFLATION = 100  # traces inflate 5-30 times (every span has random ids); a file that inflates further is a bomb
_LEADING_SPACE = 64
_SKIP_CHUNK = 1024 * 1024


class _Bounded:
    """A stream that ends once `limit` bytes were read from it (`cut` then says so)."""

    def __init__(self, stream: IO[bytes], limit: int | None) -> None:
        self.stream, self.left, self.cut = stream, limit, False

    def read(self, n: int) -> bytes:
        return self._count(self.stream.read(self._room(n)))

    def readline(self, n: int) -> bytes:
        return self._count(self.stream.readline(self._room(n)))

    def _room(self, n: int) -> int:
        return n if self.left is None else min(n, self.left)

    def _count(self, data: bytes) -> bytes:
        if self.left is not None:
            self.left -= len(data)
            self.cut = self.cut or (self.left == 0 and bool(self.stream.read(1)))
        return data


def _json_lines(head: bytes, stream: _Bounded, raw: IO[bytes]) -> Generator[tuple[Decoded, int], None, int]:
    """Each line's request; returns the bytes of a last line the inflation bound cut short (not a request)."""
    line = head + stream.readline(MAX_REQUEST_BYTES + 1 - len(head))
    while line:
        if stream.cut and not line.endswith(b"\n"):
            return len(line)
        if len(line) > MAX_REQUEST_BYTES and not line.endswith(b"\n"):  # the rest of it is not kept
            skipped = len(line)
            while not line.endswith(b"\n") and (line := stream.readline(_SKIP_CHUNK)):
                skipped += len(line)
            yield _problem("too_large", skipped), raw.tell()
        elif line.strip():
            yield _decode_or_count(decode_json, line), raw.tell()
        line = stream.readline(MAX_REQUEST_BYTES + 1)
    return 0


class _Unread:
    """A stream with the bytes already peeked at put back in front."""

    def __init__(self, peeked: bytes, stream: _Bounded) -> None:
        self.peeked, self.stream = peeked, stream

    def read(self, n: int) -> bytes:
        out, self.peeked = self.peeked[:n], self.peeked[n:]
        return out + (self.stream.read(n - len(out)) if len(out) < n else b"")


def _protobuf_frames(stream: _Unread, raw: IO[bytes]) -> Iterator[tuple[Decoded, int]]:
    first = stream.peeked[:1]
    if first == b"\x0a":  # field 1 (resource_spans) of a bare request, not a length prefix
        yield _frame(stream, None), raw.tell()
        return
    four_byte = first == b"\x00"  # a 4-byte big-endian length below 16 MB starts with a zero byte
    while (size := _read_length(stream, four_byte)) is not None:
        yield _frame(stream, size), raw.tell()


def _frame(stream: _Unread, size: int | None) -> Decoded:
    """The next request: `size` bytes, or (None) the rest of the stream."""
    if size is not None and size > MAX_REQUEST_BYTES:
        return _problem("too_large", _skip(stream, size))
    frame = stream.read(MAX_REQUEST_BYTES + 1 if size is None else size)
    if len(frame) > MAX_REQUEST_BYTES:
        return _problem("too_large", len(frame) + _skip(stream, None))
    if size is not None and len(frame) < size:
        return _problem("truncated_frame")
    return _decode_or_count(decode_protobuf, frame)


def _skip(stream: _Unread, n: int | None) -> int:
    """Read past `n` bytes (None: the rest), in bounded memory; returns how many there were."""
    skipped = 0
    while (n is None or skipped < n) and (chunk := stream.read(_SKIP_CHUNK if n is None else
                                                                 min(_SKIP_CHUNK, n - skipped))):
        skipped += len(chunk)
    return skipped


def _read_length(stream: _Unread, four_byte: bool) -> int | None:
    if four_byte:
        prefix = stream.read(4)
        return int.from_bytes(prefix, "big") if len(prefix) == 4 else None
    value, shift = 0, 0
    while byte := stream.read(1):
        value |= (byte[0] & 0x7F) << shift
        if not byte[0] & 0x80:
            return value
        shift += 7
    return None


def _decode_or_count(decode: Any, data: bytes) -> Decoded:
    try:
        return decode(data)
    except MalformedRequest as exc:
        return _problem(exc.reason)


def _problem(reason: str, skipped_bytes: int = 0) -> Decoded:
    """A request that gave nothing but one problem, counted under `reason`."""
    out = Decoded(skipped_bytes=skipped_bytes)
    out.problems[reason] += 1
    return out
