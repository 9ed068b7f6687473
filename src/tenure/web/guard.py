"""The page binds loopback only; this also keeps other web sites out of it: a request must name a
loopback host (no DNS rebinding), and a write must be JSON (a cross-site form cannot send that
without a CORS preflight, which this server never grants)."""

from __future__ import annotations

import json

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


class LoopbackGuard:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = Headers(scope=scope)
            why = _refusal(scope["method"], headers)
            if why:
                await send({"type": "http.response.start", "status": 403,
                            "headers": [(b"content-type", b"application/json")]})
                await send({"type": "http.response.body", "body": json.dumps({"error": why}).encode()})
                return
        await self.app(scope, receive, send)


def _refusal(method: str, headers: Headers) -> str | None:
    given = headers.get("host", "")
    host = given[: given.find("]") + 1] if given.startswith("[") else given.split(":")[0]
    if host not in LOOPBACK_NAMES:
        return f"this page answers only on loopback (open http://127.0.0.1:PORT/), not {host!r}"
    if method not in ("GET", "HEAD") and headers.get("content-type", "").split(";")[0] != "application/json":
        return "writes must be sent as application/json"
    return None
