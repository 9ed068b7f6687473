"""Trace ingest rate and memory (issue 7, item 6).

Generates a synthetic but realistic OTLP JSON-lines file (the collector file exporter's shape: one
ExportTraceServiceRequest per line, several services per line) of N spans (default 1,000,000):
HTTP calls between services (client -> server with `http.route`), internal spans with `code.*`
attributes in both conventions, database client spans, and Kafka publish -> process pairs, over a
generated Python repository whose functions the spans name. Then, each in its own process:

- floor: a plain `json.loads` pass over the same file, counting spans (no mapping, no linking, no writes);
- tenure: `tenure traces ingest FILE --json` into a fresh index of that repository;
- protobuf: the same for a smaller file in the file exporter's `format: proto` (4-byte length frames),
  beside tenure on the JSON-lines form of the same spans.

Prints spans/s, wall time, peak RSS per process, edges written and the database size.

    python bench/trace_ingest.py [--spans 1000000] [--proto-spans 100000] [--json-out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import fmt_bytes, print_table, tenure_command, write_json  # noqa: E402

SERVICES = ("gateway", "orders", "inventory", "payments", "billing", "shipping")
FUNCTIONS_PER_SERVICE = 40
SPANS_PER_LINE = 400
T0 = 1_764_500_000_000_000_000
FLOOR = """
import json, sys
spans = 0
with open(sys.argv[1], "rb") as f:
    for line in f:
        for rs in json.loads(line)["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                spans += len(ss["spans"])
print(json.dumps({"spans": spans}))
"""


# the repository the spans map to ----------------------------------------------------------------
def write_repo(root: Path) -> None:
    for service in SERVICES:
        pkg = root / "svc" / service
        pkg.mkdir(parents=True)
        (pkg / "__init__.py").write_text("")
        lines = ["from fastapi import APIRouter", "", "router = APIRouter()", ""]
        for i in range(FUNCTIONS_PER_SERVICE // 2):
            lines += [f'@router.get("/{service}/items{i}/{{item_id}}")', f"def handle{i}(item_id: int) -> dict:",
                      f"    return Service().step{i}(item_id)", "", ""]
        (pkg / "api.py").write_text("\n".join(["from svc." + service + ".service import Service", *lines]))
        body = ["class Service:"]
        for i in range(FUNCTIONS_PER_SERVICE // 2):
            body += [f"    def step{i}(self, item_id: int) -> dict:",
                     f"        return self.step{(i + 1) % (FUNCTIONS_PER_SERVICE // 2)}(item_id)", ""]
        (pkg / "service.py").write_text("\n".join(body))
    (root / "svc" / "__init__.py").write_text("")


# the trace file -----------------------------------------------------------------------------------
class Generator:
    def __init__(self, seed: int = 7) -> None:
        self.rng = random.Random(seed)
        self.next_id = 1
        self.clock = T0
        self.starts: dict[str, int] = {}  # span id -> start: a child starts after its parent

    def ids(self) -> tuple[str, str]:
        self.next_id += 1
        return f"{self.rng.getrandbits(64):016x}{self.next_id:016x}", f"{self.next_id:016x}"

    def span_id(self) -> str:
        self.next_id += 1
        return f"{self.next_id:016x}"

    def trace(self) -> dict[str, list[dict]]:
        """One request through three services, a database call and a message: ~12 spans."""
        rng = self.rng
        self.clock += rng.randint(50_000, 2_000_000)
        self.starts.clear()
        trace_id, _ = self.ids()
        out: dict[str, list[dict]] = {}
        entry, downstream, consumer = rng.sample(SERVICES, 3)
        i = rng.randrange(FUNCTIONS_PER_SERVICE // 2)
        j = rng.randrange(FUNCTIONS_PER_SERVICE // 2)
        client = self._http_chain(out, trace_id, entry, i, parent="", target=downstream)
        server = self._server(out, trace_id, downstream, j, parent=client)
        produce = self._span(out, trace_id, downstream, "orders.events publish", 4, server, [
            ("messaging.system", "kafka"), ("messaging.destination.name", f"{downstream}.events"),
            ("messaging.operation.type", "publish"), ("server.address", "kafka:9092")])
        process = self._span(out, trace_id, consumer, f"{downstream}.events process", 5, produce, [
            ("messaging.system", "kafka"), ("messaging.destination.name", f"{downstream}.events"),
            ("messaging.operation", "process"),  # the older convention
            ("code.function.name", f"svc.{consumer}.api.handle{j}")])
        self._internal(out, trace_id, consumer, j, process)
        return out

    def _http_chain(self, out: dict, trace_id: str, service: str, i: int, parent: str, target: str) -> str:
        server = self._server(out, trace_id, service, i, parent)
        step = self._span(out, trace_id, service, f"step{i}", 1, server, [
            ("code.function", f"step{i}"), ("code.namespace", f"svc.{service}.service.Service")])
        return self._span(out, trace_id, service, "GET", 3, step, [
            ("http.request.method", "GET"), ("url.full", f"http://{target}:8080/{target}/items{i}/{self.rng.randrange(10**6)}"),
            ("server.address", target), ("server.port", 8080), ("http.response.status_code", 200)])

    def _server(self, out: dict, trace_id: str, service: str, i: int, parent: str) -> str:
        server = self._span(out, trace_id, service, f"GET /{service}/items{i}/{{item_id}}", 2, parent, [
            ("http.request.method", "GET"), ("http.route", f"/{service}/items{i}/{{item_id}}"),
            ("url.path", f"/{service}/items{i}/{self.rng.randrange(10**6)}"), ("url.scheme", "http"),
            ("http.response.status_code", 200), ("user_agent.original", "python-httpx/0.28.1")])
        self._internal(out, trace_id, service, i, server)
        return server

    def _internal(self, out: dict, trace_id: str, service: str, i: int, parent: str) -> None:
        n = FUNCTIONS_PER_SERVICE // 2
        step = self._span(out, trace_id, service, f"step{i}", 1, parent, [
            ("code.function.name", f"svc.{service}.service.Service.step{i}"),
            ("code.file.path", f"/app/svc/{service}/service.py"), ("code.line.number", 2 + 3 * i)])
        nxt = self._span(out, trace_id, service, f"step{(i + 1) % n}", 1, step, [
            ("code.function.name", f"svc.{service}.service.Service.step{(i + 1) % n}")])
        self._span(out, trace_id, service, "SELECT items", 3, nxt, [
            ("db.system.name", "postgresql"), ("db.query.text", "SELECT * FROM items WHERE id = $1"),
            ("server.address", "db"), ("db.namespace", service)])

    def _span(self, out: dict, trace_id: str, service: str, name: str, kind: int, parent: str,
              attributes: list[tuple[str, object]]) -> str:
        sid = self.span_id()
        start = self.starts.get(parent, self.clock) + self.rng.randint(10_000, 500_000)
        self.starts[sid] = start
        out.setdefault(service, []).append({
            "traceId": trace_id, "spanId": sid, "parentSpanId": parent, "flags": 257, "name": name, "kind": kind,
            "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + self.rng.randint(100_000, 9_000_000)),
            "attributes": [_attr(k, v) for k, v in attributes], "status": {},
        })
        return sid


def _attr(key: str, value: object) -> dict:
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def _requests(total_spans: int) -> list[dict]:
    """Lines of ~SPANS_PER_LINE spans, each holding every service's spans of a run of traces."""
    gen = Generator()
    made = 0
    while made < total_spans:
        by_service: dict[str, list[dict]] = {}
        while sum(len(v) for v in by_service.values()) < SPANS_PER_LINE and made < total_spans:
            for service, spans in gen.trace().items():
                by_service.setdefault(service, []).extend(spans)
                made += len(spans)
        yield {"resourceSpans": [
            {"resource": {"attributes": [_attr("service.name", s), _attr("telemetry.sdk.language", "python")]},
             "scopeSpans": [{"scope": {"name": "opentelemetry.instrumentation.fastapi"}, "spans": spans}]}
            for s, spans in by_service.items()
        ]}


def write_json_lines(path: Path, total_spans: int) -> None:
    with path.open("w") as f:
        for req in _requests(total_spans):
            f.write(json.dumps(req, separators=(",", ":")) + "\n")


def write_protobuf(path: Path, json_path: Path) -> None:
    """The same requests in the file exporter's `format: proto` (ids to bytes via protobuf's JSON mapping)."""
    import base64

    from google.protobuf import json_format
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    with json_path.open() as src, path.open("wb") as out:
        for line in src:
            req = json.loads(line)
            for rs in req["resourceSpans"]:
                for ss in rs["scopeSpans"]:
                    for s in ss["spans"]:
                        for k in ("traceId", "spanId", "parentSpanId"):
                            if s[k]:
                                s[k] = base64.b64encode(bytes.fromhex(s[k])).decode()
            data = json_format.ParseDict(req, ExportTraceServiceRequest()).SerializeToString()
            out.write(len(data).to_bytes(4, "big") + data)


# measuring ----------------------------------------------------------------------------------------
def measure(argv: list[str], work: Path) -> tuple[float, float, int, str]:
    """Wall seconds, CPU seconds, peak RSS (bytes) and stdout of one child process (its own rusage, via wait4)."""
    out_path = work / "stdout.txt"
    with out_path.open("w") as out, (work / "stderr.txt").open("w") as errors:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=errors)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{' '.join(argv)} failed:\n{(work / 'stderr.txt').read_text()[-2000:]}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, out_path.read_text()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spans", type=int, default=1_000_000)
    parser.add_argument("--proto-spans", type=int, default=100_000)
    parser.add_argument("--tenure", help="command that runs tenure (default: tenure on PATH)")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    tenure = tenure_command(args.tenure)
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="tenure-traces-") as tmp:
        work = Path(tmp)
        repo = work / "repo"
        write_repo(repo)
        subprocess.run([*tenure, "index", str(repo), "--json"], check=True, capture_output=True)
        repos = {name: work / name for name in ("proto", "small", "big")}
        for copy in repos.values():  # each run ingests into its own fresh index
            shutil.copytree(repo, copy)
        started = time.perf_counter()
        big = work / "traces.jsonl"
        write_json_lines(big, args.spans)
        print(f"generated {args.spans:,} spans, {fmt_bytes(big.stat().st_size)} in "
              f"{time.perf_counter() - started:.1f}s")
        small = work / "small.jsonl"
        write_json_lines(small, args.proto_spans)
        proto = work / "small.pb"
        write_protobuf(proto, small)

        runs = [
            ("json.loads floor", big, [sys.executable, "-c", FLOOR, str(big)], args.spans),
            ("tenure, protobuf frames", proto,
             [*tenure, "traces", "ingest", str(proto), "--json", "-r", str(repos["proto"])], args.proto_spans),
            ("tenure, JSON lines (same spans)", small,
             [*tenure, "traces", "ingest", str(small), "--json", "-r", str(repos["small"])], args.proto_spans),
            ("tenure, JSON lines", big,
             [*tenure, "traces", "ingest", str(big), "--json", "-r", str(repos["big"])], args.spans),
        ]
        rows = []
        for name, path, argv, spans in runs:
            seconds, cpu, rss, out = measure(argv, work)
            report = json.loads(out)
            edges = sum(report.get("edges", {}).values()) if "edges" in report else None
            results[name] = {"spans": report["spans"], "seconds": seconds, "cpu_seconds": cpu,
                             "spans_per_second": spans / seconds, "spans_per_cpu_second": spans / cpu,
                             "peak_rss": rss, "edges": edges, "file_bytes": path.stat().st_size,
                             "problems": report.get("problems"), "mapped": report.get("spans_mapped")}
            mapped = "-" if "spans_mapped" not in report else f"{report['spans_mapped'] / report['spans']:.0%}"
            rows.append([name, f"{report['spans']:,}", fmt_bytes(path.stat().st_size), f"{seconds:.1f}s",
                         f"{cpu:.1f}s", f"{spans / seconds:,.0f}", f"{spans / cpu:,.0f}", fmt_bytes(rss),
                         "-" if edges is None else f"{edges:,}", mapped])
        db_bytes = sum(p.stat().st_size for p in (repos["big"] / ".tenure").glob("tenure.db*"))
        print_table("trace ingest (each run in its own process)",
                    ["run", "spans", "file", "wall", "CPU", "spans/s", "spans/CPU s", "peak RSS", "edges", "mapped"],
                    rows)
        print(f"database after the big run: {fmt_bytes(db_bytes)}; "
              f"problems in the big run: {results['tenure, JSON lines']['problems']}")
        floor, ours = results["json.loads floor"], results["tenure, JSON lines"]
        print(f"tenure JSON lines takes {ours['cpu_seconds'] / floor['cpu_seconds']:.1f}x the CPU time of the "
              "json.loads floor (wall times depend on what else the machine runs)")
    write_json(args.json_out, results)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
