"""Who may talk to an HTTP server of tenure (MCP, the OTLP receiver).

Two checks, on every bind. The Host (and Origin, when a browser sends one) must name the address
the server listens on: a page of another site whose name was made to resolve to this address (DNS
rebinding) sends its own name, and is refused. And only the literal loopback names may go without a
bearer token: any other address, even another loopback one such as 127.0.0.2, needs one.
"""

from __future__ import annotations

import hmac
import json
import socket
from collections.abc import Iterable, Mapping

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

TOKEN_ENV = "TENURE_TOKEN"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")  # also the only binds the MCP SDK guards by itself
WILDCARD_BINDS = ("0.0.0.0", "::", "")


def check_bind(host: str, token: str | None) -> None:
    """Refuse to listen anywhere but a literal loopback name without a token."""
    if not token and host not in LOOPBACK_NAMES:
        raise PermissionError(
            f"refusing to listen on {host} without a bearer token: anyone who can reach it could read and "
            f"write this project's memories. Pass --token SECRET (or set {TOKEN_ENV}) and give clients the "
            "header `Authorization: Bearer SECRET`, or bind 127.0.0.1."
        )


class HostCheck:
    """The Host and Origin header values a server bound at host:port answers to: the bind address
    (every loopback name for a loopback name; loopback, this machine's name and addresses for a
    wildcard bind) and the names in `also` (e.g. the DNS name clients use to reach it)."""

    def __init__(self, host: str, port: int, also: Iterable[str] = ()) -> None:
        if host in WILDCARD_BINDS:
            names = [*LOOPBACK_NAMES, *_this_machine()]
        elif host in LOOPBACK_NAMES:
            names = list(LOOPBACK_NAMES)
        else:
            names = [host]
        names = list(dict.fromkeys(_bracketed(n) for n in [*names, *also]))
        self.names = names
        self.hosts = [h for n in names for h in (f"{n}:{port}", n)]
        self.origins = [f"http://{h}" for h in self.hosts]

    def refusal(self, headers: Mapping[str, str]) -> tuple[int, str] | None:
        """(status, why) for a request from elsewhere (421 as the MCP SDK answers a wrong Host, 403 a
        wrong Origin); None when it may go on."""
        host = headers.get("host", "")
        if host not in self.hosts:
            return 421, (f"Host {host!r} is not an address of this server (it answers to {', '.join(self.names)}; "
                         "start it with --allow-host NAME for another name clients use)")
        origin = headers.get("origin")
        if origin is not None and origin not in self.origins:
            return 403, f"requests from the web page {origin!r} are refused"
        return None


def _bracketed(name: str) -> str:
    return f"[{name}]" if ":" in name and not name.startswith("[") else name


def _this_machine() -> list[str]:
    name = socket.gethostname()
    try:
        addresses = [info[4][0] for info in socket.getaddrinfo(name, None)]
    except OSError:  # a name that does not resolve: it is still this machine's
        addresses = []
    return [name, *addresses]


class HostGuard:
    """ASGI middleware: a request whose Host or Origin `HostCheck` refuses gets its status and a JSON error."""

    def __init__(self, app: ASGIApp, check: HostCheck) -> None:
        self.app = app
        self.check = check

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and (refused := self.check.refusal(Headers(scope=scope))):
            status, why = refused
            await _refuse(send, status, why)
            return
        await self.app(scope, receive, send)


class BearerAuth:
    """ASGI middleware: every HTTP request must carry `Authorization: Bearer <token>`, else 401."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._authorised(scope):
            await _refuse(send, 401, "missing or wrong bearer token: send `Authorization: Bearer <token>`",
                          ((b"www-authenticate", b'Bearer realm="tenure"'),))
            return
        await self.app(scope, receive, send)

    def _authorised(self, scope: Scope) -> bool:
        # the scheme's name is case-insensitive (RFC 9110 §11.1): `bearer` and `BEARER` are Bearer
        scheme, _, credentials = dict(scope.get("headers") or []).get(b"authorization", b"").partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(credentials.strip(), self.expected)


async def _refuse(send: Send, status: int, why: str, headers: tuple[tuple[bytes, bytes], ...] = ()) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), *headers]})
    await send({"type": "http.response.body", "body": json.dumps({"error": why}).encode()})
