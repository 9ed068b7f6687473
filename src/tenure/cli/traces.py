"""`tenure traces …`: observed edges from OpenTelemetry traces, from files or a local OTLP/HTTP receiver."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from tenure.api import Tenure
from tenure.cli.common import (
    AllowHostOpt,
    JsonOpt,
    RepoOpt,
    bars,
    check_listen,
    console,
    err,
    escape,
    new_table,
    open_project,
)
from tenure.http_guard import TOKEN_ENV, BearerAuth
from tenure.words import counted

traces_app = typer.Typer(help="Observed edges from OpenTelemetry traces (OTLP).", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(traces_app, name="traces")


@traces_app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Trace files or directories of them: OTLP JSON lines (the "
                                                     "collector's file exporter) or protobuf; .gz is read through.")],
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Ingest trace files into the graph as observed edges (a file read again replaces what it gave)."""
    with open_project(repo) as t:
        quiet = as_json or not sys.stderr.isatty()
        report = t.ingest_traces(paths) if quiet else _ingest_with_progress(t, paths)
    if as_json:
        print(json.dumps(report, indent=2))
    else:
        print_report(report)
    if report["errors"] and not report["spans"]:
        raise typer.Exit(1)


def _ingest_with_progress(t: Tenure, paths: list[Path]) -> dict:
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn  # (see with_progress)

    columns = (TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TimeElapsedColumn())
    with Progress(*columns, console=bars.real, transient=True) as bar:
        tasks: dict[Path, int] = {}

        def update(path: Path, done: int, size: int) -> None:
            if path not in tasks:
                tasks[path] = bar.add_task(path.name, total=size)
            bar.update(tasks[path], completed=done)

        return t.ingest_traces(paths, progress=update)


def print_report(report: dict) -> None:
    mapped = ", ".join(f"{n} by {how.replace('_', ' ')}" for how, n in report["mapped_by"].items())
    console.print(
        f"{counted(report['spans'], 'span')} from {counted(report['requests'], 'request')} in {report['seconds']:.2f}s "
        f"({report['spans_per_second']} spans/s); {report['spans_mapped']} mapped to symbols"
        + (f" ({mapped})" if mapped else "")
    )
    console.print(f"services: {', '.join(report['services']) or 'none'}; "
                  f"topics: {', '.join(report['topics']) or 'none'}")
    edges = ", ".join(f"{n} {rel} ({counted(report['observations'].get(rel, 0), 'observation')})"
                      for rel, n in sorted(report["edges"].items()))
    console.print(f"observed edges: {edges or 'none'}")
    if report["unmapped_by_service"]:
        console.print("spans not mapped to a symbol (their service stands in): " + ", ".join(
            f"{service} {n}" for service, n in report["unmapped_by_service"].items()))
    if report["problems"]:
        table = new_table("problem", "count", title="bad input (counted, skipped or kept as noted; nothing else lost)")
        for reason, n in report["problems"].items():
            table.add_row(PROBLEMS.get(reason, reason), str(n))
        console.print(table)
    if report["skipped_bytes"]:
        console.print(f"{counted(report['skipped_bytes'], 'byte')} skipped (over the size bound, not read into memory)")
    for error in report["errors"]:
        err.print(f"[red]error:[/red] {error}")


# What each counted problem means and what was done about it.
PROBLEMS = {
    "malformed_json": "line is not JSON (skipped)",
    "malformed_protobuf": "frame is not an ExportTraceServiceRequest (skipped)",
    "truncated_frame": "protobuf frame cut short at the end of the file (skipped)",
    "wrong_shape": "JSON that is not an ExportTraceServiceRequest, or a part of one (skipped)",
    "missing_ids": "span without a valid trace or span id (skipped)",
    "bad_parent_id": "span with an unreadable parent id (kept as a root)",
    "bad_attribute": "attribute value that is not an AnyValue (ignored)",
    "bad_timestamp": "unreadable start or end time (kept)",
    "missing_timestamps": "span without start or end time (kept, no first/last seen)",
    "unknown_service": "span with no service.name (kept, no service element)",
    "clock_skew": "child starting before its parent, or ending before it starts (kept)",
    "duplicate": "span already ingested (skipped)",
    "orphan": "parent span never seen (kept; linked if it arrives later)",
    "unreadable_file": "file that could not be read",
    "malformed_gzip": "request body that is not gzip (rejected)",
    "unsupported_encoding": "request with an unsupported content encoding (rejected)",
    "too_large": "request, line or frame over 20 MiB decompressed (skipped)",  # otlp.MAX_REQUEST_BYTES
    "inflated_too_far": "compressed file inflating over 100 times its size: the rest not read",  # MAX_INFLATION
}


@traces_app.command()
def receive(
    host: Annotated[str, typer.Option(
        help="Address to bind. Any but 127.0.0.1, localhost and ::1 needs --token.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (4318 is OTLP/HTTP's).")] = 4318,
    token: Annotated[str | None, typer.Option(envvar=TOKEN_ENV, show_envvar=True,
                                              help="Bearer token every request must carry.")] = None,
    allow_host: AllowHostOpt = None,
    repo: RepoOpt = Path("."),
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No line per request.")] = False,
) -> None:
    """Receive traces over OTLP/HTTP (POST /v1/traces, JSON or protobuf) until Ctrl-C."""
    import uvicorn

    from tenure.structural.traces.ingest import TraceIngestor
    from tenure.structural.traces.receiver import TRACES_PATH, Received, TraceReceiver, build_app

    check = check_listen(host, port, token, allow_host)

    def said(r: Received) -> None:
        problems = "".join(f", {n} {reason}" for reason, n in r.problems.items())
        console.print(f"{counted(r.spans, 'span')} from {', '.join(s or '(unknown)' for s in r.services)}"
                      f"{f', {r.rejected} rejected' if r.rejected else ''}{problems}")

    with open_project(repo) as t:
        receiver = TraceReceiver(TraceIngestor(t.structural, t.root), on_request=None if quiet else said)
        app = build_app(receiver, check)
        err.print(f"tenure OTLP/HTTP receiver on http://{host}:{port}{TRACES_PATH} for {t.root} (answers to "
                  f"{escape(', '.join(check.names))}; Ctrl-C to stop)")
        uvicorn.run(BearerAuth(app, token) if token else app, host=host, port=port, log_level="warning")
        print_report(receiver.ingestor.report.as_dict())
