"""Observed edges from trace files: OTLP JSON lines and protobuf, mapped to the symbols of an indexed
repository, linked parent to child across requests and files, with bad input counted, never fatal."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tenure import Tenure
from tenure.cli import app
from tenure.structural.traces.otlp import MAX_INFLATION, MAX_REQUEST_BYTES
from tests.trace_support import (
    CLIENT,
    CONSUMER,
    PRODUCER,
    SERVER,
    SHOP,
    T0,
    checkout_trace,
    order_created_trace,
    request,
    span,
    span_id,
    to_protobuf,
    trace_id,
    write_json_lines,
    write_protobuf_frames,
)


@pytest.fixture
def shop(make_indexed_repo) -> Path:
    return make_indexed_repo(SHOP)


def _dependants(t: Tenure, symbol: str, depth: int = 1) -> dict[str, dict]:
    return {d["symbol"]: d for d in t.what_breaks(symbol, depth)["dependants"]}


def test_a_traced_call_that_tree_sitter_also_found_carries_both_sources_and_the_observed_tier(shop, tmp_path):
    f = write_json_lines(tmp_path / "traces.jsonl", checkout_trace() + checkout_trace())
    with Tenure.open(shop) as t:
        report = t.ingest_traces([f])
        fetch_callers = _dependants(t, "OrderService.fetch")
        edge = next(e for e in t.export_edges()
                    if e["src"].endswith("OrderService.load") and e["dst"].endswith("OrderService.fetch"))
    assert report["spans"] == 10 and report["problems"] == {}
    load = fetch_callers["shop.orders.service.OrderService.load"]
    assert load["sources"] == ["trace", "tree-sitter"]
    assert load["tier"] == "observed" and load["count"] == 2
    assert edge["count"] == 2
    assert edge["first_seen"] == "2025-11-30T10:53:20.000Z" and edge["last_seen"].startswith("2025-11-30T10:53:20")


def test_a_client_span_and_its_server_span_in_another_service_give_http_edges_to_the_route_handler(shop, tmp_path):
    f = write_json_lines(tmp_path / "traces.jsonl", checkout_trace())
    with Tenure.open(shop) as t:
        t.ingest_traces([f])
        impact = t.what_breaks("shop.orders.api.get_order")
        services = _dependants(t, "service:orders")
    callers = {d["symbol"]: d for d in impact["dependants"]}
    assert callers["shop.checkout.client.checkout"]["relation"] == "http"
    assert callers["shop.checkout.client.checkout"]["sources"] == ["trace"]
    assert "1 HTTP caller (1 observed)" in impact["summary"]["text"]
    assert impact["summary"]["lower_bound"], "traces never prove that no other caller exists"
    assert services["service:checkout"]["relation"] == "http"


def test_what_breaks_on_a_consumer_reaches_the_producer_through_the_topic(shop, tmp_path):
    f = write_json_lines(tmp_path / "traces.jsonl", order_created_trace())
    with Tenure.open(shop) as t:
        t.ingest_traces([f])
        deps = _dependants(t, "on_order_created", depth=2)
        topic = t.find_symbol("topic:order.created").unique
    assert deps["topic:order.created"]["depth"] == 1 and deps["topic:order.created"]["relation"] == "message"
    assert deps["shop.orders.service.OrderService.publish"]["depth"] == 2
    assert topic is not None and topic.kind == "topic"


def test_services_become_elements_and_ingesting_another_file_keeps_the_earlier_ones(shop, tmp_path):
    a = write_json_lines(tmp_path / "a.jsonl", checkout_trace())
    b = write_json_lines(tmp_path / "b.jsonl", order_created_trace())
    with Tenure.open(shop) as t:
        t.ingest_traces([a])
        t.ingest_traces([b])
        kinds = {fqn: t.find_symbol(fqn).unique for fqn in
                 ("service:checkout", "service:orders", "service:billing")}
    assert all(m is not None and m.kind == "service" for m in kinds.values())


def test_protobuf_frames_give_the_same_edges_as_json_lines(make_indexed_repo, tmp_path):
    requests = checkout_trace() + order_created_trace()
    from_json = make_indexed_repo(SHOP, name="json")
    from_proto = make_indexed_repo(SHOP, name="proto")
    with Tenure.open(from_json) as t:
        t.ingest_traces([write_json_lines(tmp_path / "t.jsonl", requests)])
        json_edges = sorted((e["src"], e["dst"], e["relation"], e["count"]) for e in t.export_edges()
                            if "trace" in e["sources"])
    with Tenure.open(from_proto) as t:
        report = t.ingest_traces([write_protobuf_frames(tmp_path / "t.pb", requests)])
        proto_edges = sorted((e["src"], e["dst"], e["relation"], e["count"]) for e in t.export_edges()
                             if "trace" in e["sources"])
    assert report["requests"] == 4 and report["problems"] == {}
    assert proto_edges == json_edges and len(json_edges) >= 6


def test_a_gzipped_file_and_a_bare_protobuf_request_are_read_too(shop, tmp_path):
    gz = tmp_path / "t.jsonl.gz"
    gz.write_bytes(gzip.compress(b"".join(json.dumps(r).encode() + b"\n" for r in checkout_trace())))
    bare = tmp_path / "body.bin"
    bare.write_bytes(to_protobuf(order_created_trace()[0]))
    with Tenure.open(shop) as t:
        report = t.ingest_traces([gz, bare])
    assert report["spans"] == 7 and report["problems"] == {}


def test_a_compressed_file_cut_off_keeps_the_requests_before_the_cut(shop, tmp_path):
    lines = b"".join(json.dumps(r).encode() + b"\n" for r in checkout_trace() * 40)
    whole = gzip.compress(lines)
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(whole[: len(whole) * 3 // 4])  # a copy stopped half-way
    with Tenure.open(shop) as t:
        report = t.ingest_traces([cut])
    assert report["problems"]["truncated_compressed_file"] == 1 and report["spans"] == 5  # (then repeats)


def test_a_request_nested_too_deep_is_counted_and_the_others_kept(shop, tmp_path):
    deep = '{"resourceSpans": ' + "[" * 100_000 + "]" * 100_000 + "}"
    with Tenure.open(shop) as t:
        report = t.ingest_traces([write_json_lines(tmp_path / "deep.jsonl", [deep, *checkout_trace()])])
    assert report["problems"] == {"nested_too_deep": 1} and report["spans"] == 5


def test_a_timestamp_no_store_can_hold_is_counted_and_its_span_kept(shop, tmp_path):
    first, *rest = checkout_trace()
    spans = first["resourceSpans"][0]["scopeSpans"][0]["spans"]
    spans[0] = {**spans[0], "startTimeUnixNano": "99999999999999999999999999"}
    with Tenure.open(shop) as t:
        report = t.ingest_traces([write_json_lines(tmp_path / "far.jsonl", [first, *rest])])
    assert report["problems"].get("bad_timestamp") == 1 and report["spans"] == 5


def test_a_parent_in_another_file_is_linked_and_reading_a_file_again_counts_nothing_twice(shop, tmp_path):
    checkout, orders = checkout_trace()
    a = write_json_lines(tmp_path / "a.jsonl", [orders])  # the server side first: its parent is not here yet
    b = write_json_lines(tmp_path / "b.jsonl", [checkout])
    with Tenure.open(shop) as t:
        first = t.ingest_traces([a])
        t.ingest_traces([b])
        before = _dependants(t, "get_order")["shop.checkout.client.checkout"]
        t.ingest_traces([a])
        t.ingest_traces([b])
        after = _dependants(t, "get_order")["shop.checkout.client.checkout"]
        edges = [e for e in t.export_edges() if e["dst"] == "shop.orders.api.get_order" and e["relation"] == "http"]
    assert first["problems"] == {"orphan": 1}  # the server span's parent (the client span) was not seen yet
    assert before["relation"] == "http"
    assert [e["count"] for e in edges] == [1], "re-reading a file replaces what it gave"
    assert after["sources"] == ["trace"]


def test_code_file_path_and_line_map_to_the_enclosing_function(shop, tmp_path):
    t_id, sid = trace_id(), span_id()
    child = span_id()
    req = request("billing", [
        span(t_id, sid, "handle", start=T0, code_filepath="/srv/app/shop/billing/handlers.py", code_lineno=2),
        span(t_id, child, "charge", parent=sid, start=T0 + 5, code_file_path="/srv/app/shop/billing/handlers.py",
             code_function_name="charge"),
    ])
    with Tenure.open(shop) as t:
        report = t.ingest_traces([write_json_lines(tmp_path / "t.jsonl", [req])])
        callers = _dependants(t, "shop.billing.handlers.charge")
    assert report["mapped_by"] == {"file_line": 1, "suffix": 1}
    assert callers["shop.billing.handlers.on_order_created"]["sources"] == ["trace", "tree-sitter"]


def test_a_batch_consumer_linked_to_its_producers_by_span_links_counts_as_their_consumer(shop, tmp_path):
    producers = [(trace_id(), span_id()) for _ in range(3)]
    produce = request("orders", [
        span(t, s, "publish", PRODUCER, start=T0 + i, messaging_destination_name="order.created",
             messaging_operation_type="send", code_function_name="shop.orders.service.OrderService.publish")
        for i, (t, s) in enumerate(producers)
    ])
    consume = request("billing", [
        span(trace_id(), span_id(), "process batch", CONSUMER, start=T0 + 50, links=tuple(producers),
             code_function_name="shop.billing.handlers.on_order_created"),  # no destination of its own
    ])
    with Tenure.open(shop) as t:
        t.ingest_traces([write_json_lines(tmp_path / "t.jsonl", [consume, produce])])  # consumer first
        deps = _dependants(t, "on_order_created", depth=2)
    assert deps["topic:order.created"]["relation"] == "message"
    assert deps["shop.orders.service.OrderService.publish"]["depth"] == 2


def test_bad_input_is_counted_by_reason_and_never_costs_the_good_requests(shop, tmp_path):
    t_id = trace_id()
    root, orphan_child, skewed = span_id(), span_id(), span_id()
    lines: list[dict | str] = [
        *checkout_trace(),
        '{"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": [{"name": "cut off"',  # malformed
        '{"hello": "world"}',  # JSON, but no request
        request("orders", [{"traceId": "zz", "spanId": "", "name": "no ids"}]),
        request("orders", [span(t_id, span_id(), "kept", start=T0),
                           {**span(t_id, span_id(), "kind is a list", start=T0), "kind": [2]}]),  # wrong type
        request(None, [span(t_id, root, "who am I", start=T0)]),  # no service.name
        request("unknown_service:python", [span(t_id, span_id(), "defaulted", start=T0)]),
        request("orders", [span(t_id, orphan_child, "child", parent=span_id(), start=T0)]),  # parent never seen
        request("billing", [span(t_id, skewed, "early", parent=root, start=T0 - 5_000_000)]),  # before its parent
        request("billing", [{**span(t_id, span_id(), "backwards", start=T0), "endTimeUnixNano": str(T0 - 1)}]),
    ]
    with Tenure.open(shop) as t:
        report = t.ingest_traces([write_json_lines(tmp_path / "bad.jsonl", lines), tmp_path / "missing.jsonl"])
        callers = _dependants(t, "get_order")
    assert report["problems"] == {
        "malformed_json": 1, "wrong_shape": 2, "missing_ids": 1, "unknown_service": 2, "orphan": 1,
        "clock_skew": 2, "unreadable_file": 1,
    }
    assert "missing.jsonl" in report["errors"][0]
    assert report["spans"] == 5 + 6  # the checkout trace, and every span that had ids and the right shape
    assert callers["shop.checkout.client.checkout"]["relation"] == "http", "the good requests all count"


def test_tenure_traces_ingest_prints_the_report(shop, tmp_path, monkeypatch):
    f = write_json_lines(tmp_path / "t.jsonl", checkout_trace() + ["not json"])
    monkeypatch.chdir(shop)
    result = CliRunner().invoke(app, ["traces", "ingest", str(f)])
    assert result.exit_code == 0, result.output
    assert "5 spans from 3 requests" in result.output
    assert "services: checkout, orders" in result.output
    assert "line is not JSON (skipped)" in result.output
    as_json = CliRunner().invoke(app, ["traces", "ingest", str(f), "--json"])
    assert json.loads(as_json.output)["edges"]["http"] == 2


def test_a_java_handler_is_found_by_its_annotation_route_under_the_class_prefix(make_indexed_repo, tmp_path):
    repo = make_indexed_repo({"src/main/java/com/acme/OrderController.java": (
        "package com.acme;\n"
        "\n"
        "@RestController\n"
        '@RequestMapping("/api")\n'
        "public class OrderController {\n"
        '    @GetMapping("/orders/{id}")\n'
        "    public String get(long id) { return null; }\n"
        "\n"
        '    @PostMapping("/orders/{id}")\n'
        "    public String update(long id) { return null; }\n"
        "}\n"
    )})
    t_id, client, server = trace_id(), span_id(), span_id()
    lines = [
        request("web", [span(t_id, client, "GET", CLIENT, start=T0)]),
        request("orders", [span(t_id, server, "GET /api/orders/{id}", SERVER, parent=client, start=T0 + 1,
                                http_route="/api/orders/{id}", http_method="GET")]),
    ]
    with Tenure.open(repo) as t:
        report = t.ingest_traces([write_json_lines(tmp_path / "t.jsonl", lines)])
        callers = _dependants(t, "com.acme.OrderController.get")
    assert report["mapped_by"]["route"] == 1
    assert callers["service:web"]["relation"] == "http"


def test_tenure_index_says_which_observed_edges_name_symbols_that_are_gone(shop, tmp_path):
    with Tenure.open(shop) as t:
        t.ingest_traces([write_json_lines(tmp_path / "t.jsonl", checkout_trace())])
        (shop / "shop/orders/service.py").write_text((shop / "shop/orders/service.py").read_text()
                                                     .replace("def fetch", "def fetch_one"))
        report = t.index()
    traces = report.sources["traces"]
    assert traces["observed edges"] >= 4
    assert traces["on symbols gone from the index (ingest the traces again to re-map)"] == 1  # load -> fetch


def test_a_directory_of_rotated_trace_files_is_read_oldest_first(shop, tmp_path):
    rotated = tmp_path / "otel"
    rotated.mkdir()
    checkout, orders = checkout_trace()
    older = write_json_lines(rotated / "traces-2025-11-30T10-00-00.000.json", [checkout])
    newer = write_json_lines(rotated / "traces.json", [orders])
    os.utime(older, (1_000_000, 1_000_000))
    os.utime(newer, (2_000_000, 2_000_000))
    with Tenure.open(shop) as t:
        report = t.ingest_traces([rotated])
        callers = _dependants(t, "get_order")
    assert report["requests"] == 2 and report["problems"] == {}
    assert callers["shop.checkout.client.checkout"]["relation"] == "http"


def _varint(n: int) -> bytes:
    """A length prefix of the OTLP file exporter's varint-delimited frames."""
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    return bytes(out + bytes([n]))


def _json_line(r: dict) -> bytes:
    return json.dumps(r).encode() + b"\n"


def test_a_line_or_frame_over_the_size_bound_is_skipped_unread_and_the_rest_kept(shop, tmp_path):
    """A line is one request: one over MAX_REQUEST_BYTES is read past in bounded memory, counted with
    its bytes, and the lines after it are still read; so is a protobuf frame over the bound."""
    huge = b'{"resourceSpans": [{"resource": {"attributes": [{"key": "x", "value": {"stringValue": "' + \
        os.urandom(MAX_REQUEST_BYTES // 2 + 1).hex().encode() + b'"}}]}}]}\n'  # random: gzip cannot shrink it
    first, second = checkout_trace()
    lines = tmp_path / "lines.jsonl.gz"
    lines.write_bytes(gzip.compress(_json_line(first) + huge + _json_line(second), 1))
    frames = tmp_path / "frames.bin"
    good = to_protobuf(order_created_trace()[0])
    frames.write_bytes(_varint(MAX_REQUEST_BYTES + 1) + b"\x00" * (MAX_REQUEST_BYTES + 1) + _varint(len(good)) + good)
    with Tenure.open(shop) as t:
        report = t.ingest_traces([lines, frames])
    assert report["problems"] == {"too_large": 2}
    assert report["skipped_bytes"] == len(huge) + MAX_REQUEST_BYTES + 1
    assert report["spans"] == 7


def test_a_compressed_file_is_read_no_further_than_it_inflates_sanely(shop, tmp_path):
    """A small gzip file can hold gigabytes (a bomb): past MAX_INFLATION times its size (or the size
    bound, for a small file) the rest is not read, and the report says so with the bytes of the line
    it cut."""
    bomb = tmp_path / "bomb.jsonl.gz"
    with gzip.open(bomb, "wb") as f:
        f.write(_json_line(checkout_trace()[0]))
        for _ in range(40):
            f.write(b" " * 1024 * 1024)  # one line of 40 MiB, 40 KB compressed
        f.write(b"\n" + _json_line(checkout_trace()[1]))
    assert bomb.stat().st_size * MAX_INFLATION < MAX_REQUEST_BYTES
    with Tenure.open(shop) as t:
        report = t.ingest_traces([bomb])
    assert report["problems"] == {"inflated_too_far": 1}
    assert report["spans"] == 2  # the request before it
    assert report["skipped_bytes"] == MAX_REQUEST_BYTES - len(_json_line(checkout_trace()[0]))


def test_a_file_of_blank_lines_is_read_to_its_end(shop, tmp_path):
    blank = tmp_path / "blank.jsonl"
    blank.write_text("\n\n\n")
    spaced = write_json_lines(tmp_path / "spaced.jsonl", ["", *[""] * 100, *checkout_trace()])
    with Tenure.open(shop) as t:
        assert t.ingest_traces([blank])["requests"] == 0
        assert t.ingest_traces([spaced])["spans"] == 5
