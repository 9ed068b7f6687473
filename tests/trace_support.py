"""Trace data in the standard shapes, written the way exporters write it: OTLP/JSON requests (one per
line, as the collector's file exporter does) and binary protobuf, built from one description; and a
small indexed shop (three services in one repository) the spans map to."""

from __future__ import annotations

import base64
import copy
import itertools
import json
from pathlib import Path

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

SERVER, CLIENT, PRODUCER, CONSUMER, INTERNAL = 2, 3, 4, 5, 1
T0 = 1_764_500_000_000_000_000  # 2025-11-30T10:53:20Z in ns
_ids = itertools.count(1)

SHOP = {
    "shop/__init__.py": "",
    "shop/orders/__init__.py": "",
    "shop/billing/__init__.py": "",
    "shop/checkout/__init__.py": "",
    "shop/orders/api.py": (
        "from fastapi import FastAPI\n"
        "\n"
        "from shop.orders.service import OrderService\n"
        "\n"
        "app = FastAPI()\n"
        "\n"
        "\n"
        '@app.get("/orders/{order_id}")\n'
        "def get_order(order_id: int) -> dict:\n"
        "    return OrderService().load(order_id)\n"
        "\n"
        "\n"
        '@app.post("/orders")\n'
        "def create_order(order: dict) -> dict:\n"
        "    return OrderService().publish(order)\n"
    ),
    "shop/orders/service.py": (
        "class OrderService:\n"
        "    def load(self, order_id: int) -> dict:\n"
        "        return self.fetch(order_id)\n"
        "\n"
        "    def fetch(self, order_id: int) -> dict:\n"
        '        return {"id": order_id}\n'
        "\n"
        "    def publish(self, order: dict) -> dict:\n"
        "        return order\n"
    ),
    "shop/billing/handlers.py": (
        "def on_order_created(event: dict) -> None:\n"
        "    charge(event)\n"
        "\n"
        "\n"
        "def charge(event: dict) -> None:\n"
        "    pass\n"
    ),
    "shop/checkout/client.py": (
        "import httpx\n"
        "\n"
        "\n"
        "def checkout(order_id: int) -> dict:\n"
        '    return httpx.get(f"http://orders/orders/{order_id}").json()\n'
    ),
}


def trace_id() -> str:
    return f"{next(_ids):032x}"


def span_id() -> str:
    return f"{next(_ids):016x}"


def attr(key: str, value: object) -> dict:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}  # int64 as a string, as OTLP/JSON says
    return {"key": key, "value": {"stringValue": value}}


def span(trace: str, sid: str, name: str, kind: int = INTERNAL, parent: str = "", start: int = 0,
         duration: int = 1_000_000, links: tuple[tuple[str, str], ...] = (), **attributes: object) -> dict:
    """`code_function_name="x"` is the attribute `code.function.name`."""
    start = start or T0
    return {
        "traceId": trace, "spanId": sid, "parentSpanId": parent, "name": name, "kind": kind,
        "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + duration),
        "attributes": [attr(k.replace("_", "."), v) for k, v in attributes.items()],
        "links": [{"traceId": t, "spanId": s} for t, s in links],
        "status": {},
    }


def request(service: str | None, spans: list[dict]) -> dict:
    resource = {"attributes": [attr("service.name", service)] if service else []}
    return {"resourceSpans": [{"resource": resource, "scopeSpans": [{"scope": {"name": "test"}, "spans": spans}]}]}


def write_json_lines(path: Path, requests: list[dict | str]) -> Path:
    """One request per line; a str is written as it is (to write broken lines)."""
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in requests))
    return path


def to_protobuf(req: dict) -> bytes:
    """The same request as binary protobuf (ids become bytes: protobuf's JSON mapping spells them base64)."""
    req = copy.deepcopy(req)
    for rs in req["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for s in ss["spans"]:
                for holder in (s, *s["links"]):
                    for k in ("traceId", "spanId", "parentSpanId"):
                        if holder.get(k):
                            holder[k] = base64.b64encode(bytes.fromhex(holder[k])).decode()
    return json_format.ParseDict(req, ExportTraceServiceRequest()).SerializeToString()


def write_protobuf_frames(path: Path, requests: list[dict]) -> Path:
    """The collector file exporter's `format: proto`: each request after its 4-byte big-endian length."""
    with path.open("wb") as f:
        for r in requests:
            data = to_protobuf(r)
            f.write(len(data).to_bytes(4, "big") + data)
    return path


def checkout_trace() -> list[dict]:
    """checkout.checkout() calls GET /orders/{order_id} on orders, whose handler loads and fetches.
    Each service exports its own request, children before parents as SDKs do."""
    t = trace_id()
    root, client, server, load, fetch = (span_id() for _ in range(5))
    return [
        request("checkout", [
            span(t, client, "GET", CLIENT, parent=root, start=T0 + 10, http_request_method="GET",
                 url_full="http://orders/orders/7"),
            span(t, root, "checkout", start=T0, code_function_name="shop.checkout.client.checkout"),
        ]),
        request("orders", [
            span(t, fetch, "fetch", parent=load, start=T0 + 30, code_function="fetch",
                 code_namespace="shop.orders.service.OrderService"),  # the older conventions
            span(t, load, "load", parent=server, start=T0 + 25,
                 code_function_name="shop.orders.service.OrderService.load"),
            span(t, server, "GET /orders/{order_id}", SERVER, parent=client, start=T0 + 20,
                 http_route="/orders/{order_id}", http_request_method="GET"),  # no code attributes: mapped by route
        ]),
    ]


def order_created_trace() -> list[dict]:
    """orders publishes to order.created; billing processes it in on_order_created."""
    t = trace_id()
    publish, producer, consumer = span_id(), span_id(), span_id()
    return [
        request("orders", [
            span(t, publish, "publish", start=T0 + 100, code_function_name="shop.orders.service.OrderService.publish"),
            span(t, producer, "order.created publish", PRODUCER, parent=publish, start=T0 + 110,
                 messaging_destination_name="order.created", messaging_operation_type="publish",
                 messaging_system="kafka"),
        ]),
        request("billing", [
            span(t, consumer, "order.created process", CONSUMER, parent=producer, start=T0 + 200,
                 messaging_destination_name="order.created", messaging_operation_type="process",
                 code_function_name="shop.billing.handlers.on_order_created"),
        ]),
    ]
