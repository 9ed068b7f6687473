"""The OTLP/HTTP receiver on loopback, fed by the OpenTelemetry SDK's own OTLP/HTTP exporter."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
from opentelemetry import propagate, trace
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from tenure import Tenure
from tenure.http_guard import HostCheck
from tenure.structural.traces.ingest import TraceIngestor
from tenure.structural.traces.otlp import MAX_REQUEST_BYTES
from tenure.structural.traces.receiver import TRACES_PATH, InFlight, TraceReceiver, build_app
from tests.trace_support import SHOP, checkout_trace, to_protobuf


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def _running(t: Tenure, in_flight: InFlight | None = None) -> Iterator[str]:
    """A receiver for `t` on 127.0.0.1, running in uvicorn as `tenure traces receive` does; yields its URL."""
    port = _free_port()
    receiver = TraceReceiver(TraceIngestor(t.structural, t.root))
    app = build_app(receiver, HostCheck("127.0.0.1", port), in_flight)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        thread.join(0.05)
    yield f"http://127.0.0.1:{port}{TRACES_PATH}"
    server.should_exit = True
    thread.join(10)


@pytest.fixture
def receiving(make_indexed_repo) -> Iterator[tuple[Tenure, str]]:
    """A receiver for the indexed shop."""
    repo: Path = make_indexed_repo(SHOP)
    with Tenure.open(repo) as t, _running(t) as url:
        yield t, url


def _tracer(service: str, endpoint: str, compression: Compression = Compression.NoCompression) -> trace.Tracer:
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    # one export request per span, as it ends: children reach the receiver before their parents
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=endpoint, compression=compression)))
    return provider.get_tracer("tenure-test")


def span(tracer: trace.Tracer, name: str, kind: trace.SpanKind = trace.SpanKind.INTERNAL, context: object = None,
         **attributes: object):
    """A span of one service; attributes by their dotted names, e.g. **{"code.function.name": ...}."""
    return tracer.start_as_current_span(name, context=context, kind=kind, attributes=attributes)


def test_spans_from_the_sdk_exporter_become_observed_edges_across_services(receiving):
    t, endpoint = receiving
    checkout = _tracer("checkout", endpoint)
    orders = _tracer("orders", endpoint, Compression.Gzip)
    billing = _tracer("billing", endpoint)
    with span(checkout, "checkout", **{"code.function.name": "shop.checkout.client.checkout"}), \
            span(checkout, "GET", trace.SpanKind.CLIENT, **{"http.request.method": "GET"}):
        headers: dict[str, str] = {}
        propagate.inject(headers)  # what an instrumented HTTP client sends along
    server = span(orders, "GET /orders/{order_id}", trace.SpanKind.SERVER, propagate.extract(headers),
                  **{"http.route": "/orders/{order_id}", "http.request.method": "GET"})
    with server:
        with span(orders, "load", **{"code.function.name": "shop.orders.service.OrderService.load"}), \
                span(orders, "fetch", **{"code.function": "fetch",  # the older conventions
                                         "code.namespace": "shop.orders.service.OrderService"}):
            pass
        with span(orders, "publish", **{"code.function.name": "shop.orders.service.OrderService.publish"}), \
                span(orders, "order.created publish", trace.SpanKind.PRODUCER, **{
                    "messaging.destination.name": "order.created", "messaging.operation.type": "publish"}):
            message: dict[str, str] = {}
            propagate.inject(message)
    with span(billing, "order.created process", trace.SpanKind.CONSUMER, propagate.extract(message), **{
            "messaging.destination.name": "order.created", "messaging.operation.type": "process",
            "code.function.name": "shop.billing.handlers.on_order_created"}):
        pass

    handler = {d["symbol"]: d for d in t.what_breaks("get_order")["dependants"]}
    fetch = {d["symbol"]: d for d in t.what_breaks("OrderService.fetch")["dependants"]}
    consumer = {d["symbol"]: d for d in t.what_breaks("on_order_created", depth=2)["dependants"]}
    orders_service = {d["symbol"]: d for d in t.what_breaks("service:orders")["dependants"]}
    assert handler["shop.checkout.client.checkout"]["relation"] == "http"
    assert fetch["shop.orders.service.OrderService.load"]["sources"] == ["trace", "tree-sitter"]
    assert consumer["shop.orders.service.OrderService.publish"]["depth"] == 2
    assert orders_service["service:checkout"]["tier"] == "observed"


def test_a_malformed_body_gets_400_and_loses_nothing_accepted_before(receiving):
    t, endpoint = receiving
    good = to_protobuf(checkout_trace()[1])
    ok = httpx.post(endpoint, content=gzip.compress(good),
                    headers={"content-type": "application/x-protobuf", "content-encoding": "gzip"})
    assert ok.status_code == 200
    assert not ExportTraceServiceResponse.FromString(ok.content).HasField("partial_success")

    broken = httpx.post(endpoint, content=b"{not json", headers={"content-type": "application/json"})
    assert broken.status_code == 400 and json.loads(broken.content)["code"] == 3
    garbage = httpx.post(endpoint, content=b"\xff\xff\xff", headers={"content-type": "application/x-protobuf"})
    assert garbage.status_code == 400
    unknown = httpx.post(endpoint, content=b"x", headers={"content-type": "text/plain"})
    assert unknown.status_code == 415

    partly = httpx.post(endpoint, headers={"content-type": "application/json"}, content=json.dumps({"resourceSpans": [
        {"resource": {}, "scopeSpans": [{"spans": [{"traceId": "", "spanId": "", "name": "no ids"}]}]}]}))
    assert partly.status_code == 200
    assert partly.json()["partialSuccess"]["rejectedSpans"] == "1"

    callers = {d["symbol"] for d in t.what_breaks("OrderService.fetch")["dependants"]}
    assert "shop.orders.service.OrderService.load" in callers


def test_a_locked_database_gets_503_which_exporters_retry_and_the_retry_lands(receiving):
    t, endpoint = receiving
    t.db.execute("PRAGMA busy_timeout = 100")  # the receiver gives up after 0.1 s instead of 30
    body = to_protobuf(checkout_trace()[1])
    headers = {"content-type": "application/x-protobuf"}
    blocker = sqlite3.connect(t.root / ".tenure" / "tenure.db")
    blocker.execute("BEGIN IMMEDIATE")  # another writer (a long index) holds the database
    try:
        busy = httpx.post(endpoint, content=body, headers=headers)
    finally:
        blocker.rollback()
        blocker.close()
    assert busy.status_code == 503 and busy.headers["retry-after"]
    assert httpx.post(endpoint, content=body, headers=headers).status_code == 200
    callers = {d["symbol"]: d for d in t.what_breaks("OrderService.fetch")["dependants"]}
    assert callers["shop.orders.service.OrderService.load"]["count"] == 1


def test_tenure_traces_receive_listens_on_loopback_and_reports_on_exit(make_indexed_repo):
    repo = make_indexed_repo(SHOP)
    port = _free_port()
    cli = [sys.executable, "-c", "from tenure.cli import app; app()", "traces", "receive", "--port", str(port),
           "-r", str(repo)]
    proc = subprocess.Popen(cli, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    try:
        endpoint = f"http://127.0.0.1:{port}{TRACES_PATH}"
        for _ in range(200):  # the CLI imports and opens the project first
            try:
                response = httpx.post(endpoint, json=checkout_trace()[0])
                break
            except httpx.ConnectError:
                time.sleep(0.1)
        assert response.status_code == 200
        proc.send_signal(signal.SIGINT)
        out, errors = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert f"http://127.0.0.1:{port}/v1/traces" in errors
    assert "2 spans from checkout" in out  # the line per request
    assert "services: checkout" in out  # the report on exit


def test_a_request_naming_another_host_or_origin_is_refused(receiving):
    """DNS rebinding: a page of another site whose name now resolves to 127.0.0.1 sends its own name."""
    t, endpoint = receiving
    body, headers = to_protobuf(checkout_trace()[1]), {"content-type": "application/x-protobuf"}
    port = endpoint.split(":")[2].split("/")[0]
    rebound = httpx.post(endpoint, content=body, headers={**headers, "host": f"evil.example:{port}"})
    assert rebound.status_code == 421 and "--allow-host" in rebound.json()["error"]
    from_a_page = httpx.post(endpoint, content=body, headers={**headers, "origin": "http://evil.example"})
    assert from_a_page.status_code == 403
    def observed() -> bool:
        return any("trace" in d["sources"] for d in t.what_breaks("OrderService.fetch")["dependants"])

    assert not observed()  # neither wrote an edge
    assert httpx.post(endpoint, content=body, headers={**headers, "origin": f"http://localhost:{port}"}).status_code \
        == 200
    assert observed()


def test_a_body_inflating_past_the_bound_gets_413_without_being_inflated_whole(receiving):
    _, endpoint = receiving
    bomb = gzip.compress(b"{" + b" " * (MAX_REQUEST_BYTES + 1) + b"}")
    response = httpx.post(endpoint, content=bomb, headers={"content-type": "application/json",
                                                           "content-encoding": "gzip"})
    assert response.status_code == 413 and "decompressed" in response.json()["message"]


def test_bodies_held_at_once_are_bounded_and_a_request_past_the_bound_gets_503(make_indexed_repo):
    """While one request's body is held, another that would pass the bound is told to retry (503 with
    Retry-After); once the first is done its bytes are free again."""
    body = to_protobuf(checkout_trace()[1])
    in_flight = InFlight(limit=len(body) + 10)
    headers = {"content-type": "application/x-protobuf"}
    with Tenure.open(make_indexed_repo(SHOP)) as t, _running(t, in_flight) as endpoint:
        first_half_sent, finish = threading.Event(), threading.Event()

        def slow_body() -> Iterator[bytes]:
            yield body[: len(body) // 2]
            first_half_sent.set()
            finish.wait(30)
            yield body[len(body) // 2:]

        slow: list[httpx.Response] = []
        sender = threading.Thread(target=lambda: slow.append(httpx.post(endpoint, content=slow_body(),
                                                                          headers=headers, timeout=60)))
        sender.start()
        assert first_half_sent.wait(30)
        while not in_flight.held:  # the server has read the first half
            time.sleep(0.01)
        refused = httpx.post(endpoint, content=body, headers=headers)
        finish.set()
        sender.join(60)
        assert refused.status_code == 503 and refused.headers["retry-after"]
        assert slow[0].status_code == 200 and in_flight.held == 0
        assert httpx.post(endpoint, content=body, headers=headers).status_code == 200
