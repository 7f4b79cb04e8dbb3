"""The service's gate: the token, the body-size bound and the shutdown refusal.

It is ASGI middleware rather than a FastAPI dependency on purpose: it must also
cover the OpenAPI schema and the WebSocket handshake, and it must refuse an
unauthenticated or oversized request *before* its body is read and parsed (a
dependency runs after validation, so a stranger would be told about a malformed
body, and a huge body would already be in memory).

* **Token**: when the service has one, every HTTP request must carry
  ``Authorization: Bearer <token>``; a WebSocket may give it instead as the
  ``token`` query parameter (browsers cannot set headers on a WebSocket). Compared
  in constant time. Missing or wrong: 401 (a WebSocket is refused at the handshake).
* **Body size**: a ``Content-Length`` over the bound, or a streamed body that grows
  past it, gets 413 before the application sees it.
* **Shutdown**: once the service is stopping, every request gets 503.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

from leviathan.service._errors import error_body

__all__ = ["TOKEN_ENV", "GuardMiddleware", "is_loopback", "require_token_for"]

TOKEN_ENV = "LEVIATHAN_TOKEN"
"""Environment variable read for the token when ``--token`` is not given."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` names only this machine (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def require_token_for(host: str, token: str | None) -> None:
    """Refuses to serve a non-loopback address without a token.

    Raises:
        ValueError: If ``host`` is not loopback and ``token`` is empty.
    """
    if token is not None and not isinstance(token, str):
        raise TypeError(f"token: expected a string, got {type(token).__name__}")
    if not is_loopback(host) and not token:
        raise ValueError(
            f"--host: serving on {host!r} (not loopback) requires a token; give --token or "
            f"set {TOKEN_ENV}, or serve on 127.0.0.1"
        )


Send = Callable[[dict[str, Any]], Any]


async def _respond(send: Send, status: int, body: dict[str, Any]) -> None:
    payload = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})


class GuardMiddleware:
    """ASGI middleware enforcing the token, the body bound and shutdown (see module).

    Args:
        app: The wrapped ASGI application.
        token: The token every request must carry, or ``None`` for none.
        max_body_bytes: Largest request body [bytes].
        is_shutting_down: Returns whether the service is stopping.
        is_public: ``(method, path) -> bool``: requests served without the token (the
            Dashboard's static files); the body bound and shutdown still apply.
    """

    def __init__(
        self,
        app: Any,
        *,
        token: str | None,
        max_body_bytes: int,
        is_shutting_down: Callable[[], bool],
        is_public: Callable[[str, str], bool] = lambda method, path: False,
    ) -> None:
        self.app = app
        self.token = token.encode() if token else None
        self.max_body_bytes = max_body_bytes
        self.is_shutting_down = is_shutting_down
        self.is_public = is_public

    def _authorised(self, scope: dict[str, Any]) -> bool:
        if self.token is None:
            return True
        if scope["type"] == "http" and self.is_public(scope.get("method", ""), scope["path"]):
            return True
        given = b""
        for name, value in scope.get("headers", ()):
            if name == b"authorization" and value[:7].lower() == b"bearer ":
                given = value[7:].strip()
        if not given and scope["type"] == "websocket":
            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            given = query.get("token", [""])[0].encode("latin-1", "replace")
        return hmac.compare_digest(given, self.token)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if self.is_shutting_down():
            if kind == "websocket":
                await send({"type": "websocket.close", "code": 1012})
                return
            await _respond(
                send, 503, error_body("shutting_down", "the service is shutting down", None)
            )
            return
        if not self._authorised(scope):
            if kind == "websocket":
                await send({"type": "websocket.close", "code": 4401})
                return
            await _respond(
                send,
                401,
                error_body(
                    "unauthorized",
                    "token missing or wrong: send 'Authorization: Bearer <token>'",
                    "Authorization",
                    None,
                    "Bearer <the service's token>",
                ),
            )
            return
        if kind == "websocket":
            await self.app(scope, receive, send)
            return
        await self._bounded(scope, receive, send)

    async def _bounded(self, scope: dict[str, Any], receive: Any, send: Send) -> None:
        limit = self.max_body_bytes
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
                if declared > limit:
                    await _respond(send, 413, _too_large(declared, limit))
                    return
        # The body is read here, bounded, and handed on whole: nothing past the
        # limit is ever held in memory.
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await _respond(send, 413, _too_large(size, limit))
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        delivered = False

        async def replay() -> dict[str, Any]:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def _too_large(size: int, limit: int) -> dict[str, Any]:
    return error_body(
        "body_too_large",
        f"body: {size} bytes is over the service's limit of {limit} bytes",
        "body",
        size,
        f"at most {limit} bytes",
    )
