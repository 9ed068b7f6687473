"""Who may talk to the HTTP server: loopback by default; any other address needs a bearer token."""

from __future__ import annotations

import hmac
import ipaddress
import json

from starlette.types import ASGIApp, Receive, Scope, Send

TOKEN_ENV = "TENURE_TOKEN"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


def check_bind(host: str, token: str | None) -> None:
    """Refuse to expose the server beyond this machine without a token."""
    if not token and not is_loopback(host):
        raise PermissionError(
            f"refusing to listen on {host} without a bearer token: anyone who can reach it could read and "
            f"write this project's memories. Pass --token SECRET (or set {TOKEN_ENV}) and give clients the "
            "header `Authorization: Bearer SECRET`, or bind 127.0.0.1."
        )


class BearerAuth:
    """ASGI middleware: every HTTP request must carry `Authorization: Bearer <token>`, else 401."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._authorised(scope):
            body = json.dumps({"error": "missing or wrong bearer token: send `Authorization: Bearer <token>`"})
            await send({"type": "http.response.start", "status": 401, "headers": [
                (b"content-type", b"application/json"), (b"www-authenticate", b'Bearer realm="tenure"')]})
            await send({"type": "http.response.body", "body": body.encode()})
            return
        await self.app(scope, receive, send)

    def _authorised(self, scope: Scope) -> bool:
        given = dict(scope.get("headers") or []).get(b"authorization", b"")
        return hmac.compare_digest(given, self.expected)
