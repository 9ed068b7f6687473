"""OpenTelemetry semantic conventions as data: which attributes say what, current names first.

Instrumentations in the wild emit both the current and the older names (the `code.*` and
`messaging.*` renames of semconv 1.26–1.33, the HTTP renames of 1.21), so every lookup walks a
tuple of names and takes the first present.
"""

from __future__ import annotations

import re
from enum import IntEnum


class SpanKind(IntEnum):
    """OTLP's Span.SpanKind values."""

    UNSPECIFIED = 0
    INTERNAL = 1
    SERVER = 2
    CLIENT = 3
    PRODUCER = 4
    CONSUMER = 5


# OTLP/JSON should carry the integer, but some writers emit the enum's name.
SPAN_KIND_NAMES = {f"SPAN_KIND_{k.name}": k.value for k in SpanKind}

SERVICE_NAME = "service.name"
# What an SDK calls a process nobody named: not one service, so no service element is made for it.
UNKNOWN_SERVICE_PREFIX = "unknown_service"

# Where the code is. `code.function.name` is fully qualified since semconv 1.33; the older
# `code.function` is the bare name and `code.namespace` its class or module.
FUNCTION = ("code.function.name", "code.function")
NAMESPACE = ("code.namespace",)
FILE_PATH = ("code.file.path", "code.filepath")
LINE_NUMBER = ("code.line.number", "code.lineno")

HTTP_ROUTE = ("http.route",)
HTTP_METHOD = ("http.request.method", "http.method")
URL = ("url.full", "http.url", "url.path", "http.target")
SERVER_ADDRESS = ("server.address", "net.peer.name", "net.host.name")

# The template (`/orders/{id}`) is preferred over the concrete name when both are set: it is the
# low-cardinality one, and the topic element should not be one per order.
DESTINATION = ("messaging.destination.template", "messaging.destination.name", "messaging.destination")
OPERATION = ("messaging.operation.type", "messaging.operation")
MESSAGING_SYSTEM = ("messaging.system",)
PRODUCE_OPERATIONS = frozenset({"publish", "send", "create"})
CONSUME_OPERATIONS = frozenset({"process", "receive", "deliver"})

# Only these attributes are kept from a span: everything else is dropped while decoding.
WANTED = frozenset(
    FUNCTION + NAMESPACE + FILE_PATH + LINE_NUMBER + HTTP_ROUTE + HTTP_METHOD + URL + SERVER_ADDRESS
    + DESTINATION + OPERATION + MESSAGING_SYSTEM
)

# Function names as runtimes print them, rewritten to the namespace's spelling (ARCHITECTURE.md
# "Names"): Python's `f.<locals>.g`, Go's `pkg.(*Service).Retry`, `::` (Rust, C++, PHP), Ruby's `#`.
FUNCTION_NAME_REWRITES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\.<locals>"), ""),
    (re.compile(r"\(\*?([A-Za-z_][\w]*)\)"), r"\1"),
    (re.compile(r"::"), "."),
    (re.compile(r"#"), "."),
)

# Route parameters in every framework's spelling (`{id}`, `{id:int}`, `<int:id>`, `:id`, `*`) become `{}`.
ROUTE_PARAMETER = re.compile(r"\{[^}]*\}|<[^>]*>|(?<=/):[^/]+|\*+")
# The string literals of a decorator or annotation that look like a route.
ROUTE_LITERAL = re.compile(r"""(?:'|")(/[^'"]*)(?:'|")""")


def first(attributes: dict, names: tuple[str, ...]) -> object | None:
    for name in names:
        value = attributes.get(name)
        if value is not None and value != "":
            return value
    return None


def messaging_role(kind: int, operation: object | None) -> str:
    """`produce`, `consume` or `` for a span, by its operation (either convention) or else its kind."""
    if isinstance(operation, str):
        op = operation.lower()
        if op in PRODUCE_OPERATIONS:
            return "produce"
        if op in CONSUME_OPERATIONS:
            return "consume"
    if kind == SpanKind.PRODUCER:
        return "produce"
    if kind == SpanKind.CONSUMER:
        return "consume"
    return ""


def normalize_route(route: str) -> str:
    route = ROUTE_PARAMETER.sub("{}", route.split("?", 1)[0])
    return route.rstrip("/") or "/"


def normalize_function(name: str) -> str:
    for pattern, replacement in FUNCTION_NAME_REWRITES:
        name = pattern.sub(replacement, name)
    return name


def is_unknown_service(name: str) -> bool:
    return not name or name.startswith(UNKNOWN_SERVICE_PREFIX)
