"""One JSON shape for every failure: ``{code, message, field, value, expected}``.

Typed service errors carry their HTTP status; library errors are mapped by type
(:func:`error_for`), so a handler never builds an error response itself:

======  ===================  ==========================================================
status  code                 when
======  ===================  ==========================================================
400     malformed            the request body is not JSON (or not UTF-8) at all
401     unauthorized         the token is missing or wrong
404     world_not_found      no open World has this id (never opened, or closed)
404     not_found            no such route, vehicle sample or resource
410     world_released       the World was released after being idle
409     limit_reached        capacity (open Worlds) or a World's step limit
409     refused              an operation a live World refuses (thruster faults)
409     conflict             a request valid in itself that the World's state rules out
                             (e.g. a track from a tick it has not reached)
405     method_not_allowed   a method the path does not have (``Allow`` lists those it has)
413     body_too_large       the request body is over the service's limit
422     invalid              bad input: a body, parameter or value the library refuses
503     shutting_down        the service is stopping
500     internal             a bug; the message says so and carries no traceback
======  ===================  ==========================================================
"""

from __future__ import annotations

import functools
import json
import logging
import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from leviathan.service._models import ErrorBody

__all__ = [
    "ERROR_DESCRIPTIONS",
    "InternalErrorMiddleware",
    "ServiceError",
    "error_body",
    "error_for",
    "errors",
    "install_error_handlers",
    "not_found",
]

_LOG = logging.getLogger("leviathan.service")
_VALUE_CHARS = 200


class ServiceError(Exception):
    """A failure with its HTTP status and the fields of the error shape."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        field: str | None = None,
        value: Any = None,
        expected: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.headers = headers
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.value = value
        self.expected = expected

    def body(self) -> dict[str, Any]:
        """The JSON error shape."""
        return error_body(self.code, self.message, self.field, self.value, self.expected)


def not_found(field: str, value: Any, missing: str, *, expected: str) -> ServiceError:
    """404 ``not_found`` for a ``field`` whose ``value`` names nothing that exists; the
    message is ``"{field}: {missing}"``."""
    return ServiceError(
        404, "not_found", f"{field}: {missing}", field=field, value=value, expected=expected
    )


def _short(value: Any) -> Any:
    """A JSON-safe value, shortened so an error never echoes a whole body back."""
    try:
        text = json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        text = json.dumps(repr(value))
        value = repr(value)
    if len(text) <= _VALUE_CHARS:
        return value
    return text[:_VALUE_CHARS] + "..."


def error_body(
    code: str, message: str, field: str | None, value: Any = None, expected: str | None = None
) -> dict[str, Any]:
    """The JSON error shape, ``value`` shortened."""
    return {
        "code": code,
        "message": message,
        "field": field,
        "value": _short(value),
        "expected": expected,
    }


# A library message starts "<field>: ..." (e.g. "n: expected a positive integer ...").
_FIELD = re.compile(r"^([A-Za-z_][\w.\[\]'\"/ -]{0,80}?): ")
_EXPECTED = re.compile(r"expected (.+?)(?:, got (.+))?$", re.DOTALL)


def _from_message(status: int, code: str, message: str) -> ServiceError:
    field_match = _FIELD.match(message)
    expected_match = _EXPECTED.search(message)
    return ServiceError(
        status,
        code,
        message,
        field=field_match.group(1) if field_match else None,
        value=expected_match.group(2) if expected_match and expected_match.group(2) else None,
        expected=expected_match.group(1) if expected_match else None,
    )


def error_for(error: BaseException) -> ServiceError:
    """The service error for any exception a handler let through."""
    from leviathan.wire import WireError
    from leviathan.world import ThrusterFaultRefusedError, WorldDivergedError, WorldLimitError

    if isinstance(error, ServiceError):
        return error
    if isinstance(error, WorldLimitError):
        return _from_message(409, "limit_reached", str(error))
    if isinstance(error, ThrusterFaultRefusedError):
        return _from_message(409, "refused", str(error))
    if isinstance(error, WorldDivergedError):
        return _from_message(409, "conflict", str(error))
    if isinstance(error, KeyError) and len(error.args) == 1 and isinstance(error.args[0], str):
        return _from_message(422, "invalid", error.args[0])
    if isinstance(error, ValueError | TypeError | KeyError | WireError):
        message = "; ".join(line.strip() for line in str(error).splitlines() if line.strip())
        return _from_message(422, "invalid", message or type(error).__name__)
    return ServiceError(
        500,
        "internal",
        f"internal error: {type(error).__name__} (a bug in the service; the server log has "
        "the traceback)",
    )


def _json(error: ServiceError) -> JSONResponse:
    return JSONResponse(error.body(), status_code=error.status, headers=error.headers)


def _malformed(detail: str) -> ServiceError:
    return ServiceError(
        400,
        "malformed",
        f"body: {detail}; send a JSON object (UTF-8, Content-Type: application/json)",
        field="body",
        expected="a JSON object",
    )


@functools.cache
def _union_tags() -> frozenset[str]:
    """The tags of the tagged unions in request bodies (controller, material and sensor
    kinds, a vehicle's name-or-document): pydantic puts them into error locations, but
    they name a choice, not a field."""
    import typing

    from leviathan.specs import ControllerDocument, MaterialDocument, SensorSpec

    tags = {"catalogue_name", "vehicle_document"}
    for union in (ControllerDocument, MaterialDocument, SensorSpec):
        members = typing.get_args(typing.get_args(union)[0]) or typing.get_args(union)
        for member in members:
            kind = getattr(member, "model_fields", {}).get("kind")
            if kind is not None:
                tags.update(str(t) for t in typing.get_args(kind.annotation))
    return frozenset(tags)


def _location(loc: tuple[Any, ...]) -> str:
    """A pydantic error location as a field path: ``vehicles[0].controller.depth_m``."""
    out = ""
    for part in loc:
        if part in ("body", "query", "path") and not out:
            continue
        if isinstance(part, int):
            out += f"[{part}]"
        elif str(part) not in _union_tags():
            out += f".{part}" if out else str(part)
    return out


def _accepts(error: dict[str, Any]) -> str:
    """What the field accepts: a pattern named in words, not by its regex."""
    if error.get("type") != "string_pattern_mismatch":
        return str(error.get("msg", ""))
    from leviathan.service._requests import PATTERN_HINTS

    pattern = str(error.get("ctx", {}).get("pattern", ""))
    return PATTERN_HINTS.get(pattern, f"text of the form {pattern}")


def _words(error: dict[str, Any]) -> str:
    if error.get("type") != "string_pattern_mismatch":
        return str(error.get("msg", ""))
    return f"{error.get('input')!r} is not {_accepts(error)}"


def _validation(exc: RequestValidationError) -> ServiceError:
    errors = exc.errors()
    first = errors[0] if errors else {}
    kind = first.get("type", "")
    if kind == "json_invalid":
        return _malformed(f"not valid JSON ({first.get('ctx', {}).get('error', 'decode error')})")
    field = _location(tuple(first.get("loc", ()))) or "body"
    message = "; ".join(
        f"{_location(tuple(e.get('loc', ()))) or 'body'}: {_words(e)}" for e in errors[:5]
    )
    return ServiceError(
        422,
        "invalid",
        message or "invalid request",
        field=field,
        value=first.get("input"),
        expected=_accepts(first) if first else None,
    )


def install_error_handlers(app: FastAPI) -> None:
    """Routes every error to the one shape."""

    @app.exception_handler(ServiceError)
    async def _service(request: Request, exc: ServiceError) -> JSONResponse:
        return _json(exc)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return _json(_validation(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        path = request.url.path
        if exc.status_code == 400:
            return _json(_malformed("cannot be read"))
        if exc.status_code == 405:
            allowed = _allowed_methods(request.app, request.scope)
            return _json(
                ServiceError(
                    405,
                    "method_not_allowed",
                    f"{path}: {request.method} is not allowed here; allowed: {', '.join(allowed)}",
                    field="method",
                    value=request.method,
                    expected=f"one of {', '.join(allowed)}",
                    headers={"Allow": ", ".join(allowed)},
                )
            )
        codes = {404: "not_found"}
        code = codes.get(exc.status_code, "http_error")
        return _json(ServiceError(exc.status_code, code, f"{path}: {exc.detail}"))

    async def _other(request: Request, exc: Exception) -> JSONResponse:
        error = error_for(exc)
        if error.status >= 500:
            _LOG.error("internal error on %s", request.url.path, exc_info=exc)
        return _json(error)

    # Library errors by type; everything else is InternalErrorMiddleware's (500).
    for kind in (ValueError, TypeError, KeyError, RuntimeError):
        app.add_exception_handler(kind, _other)


_METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE")


def _allowed_methods(app: Any, scope: dict[str, Any]) -> list[str]:
    """Every method some route serves at this path (Starlette's own 405 names only the
    first route's; a path served by several routes, e.g. GET and POST /play, has more)."""
    from starlette.routing import Match

    allowed = []
    for method in _METHODS:
        probe = {**scope, "method": method}
        if any(route.matches(probe)[0] == Match.FULL for route in app.router.routes):
            allowed.append(method)
    return allowed


class InternalErrorMiddleware:
    """ASGI middleware: an exception no handler took becomes the 500 shape.

    Not an ``Exception`` handler on purpose: Starlette hands those to its outermost
    middleware, which sends the response and then re-raises, so uvicorn drops the
    keep-alive connection and the client's next request on it fails. Here the
    exception ends with the response; the server log gets the traceback, the client
    only the exception's type name.

    Args:
        app: The wrapped ASGI application.
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked(message: dict[str, Any]) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception as exc:
            _LOG.error("internal error on %s", scope.get("path"), exc_info=exc)
            if started:  # too late for an error response: let the server end it
                raise
            await _json(error_for(exc))(scope, receive, send)


ERROR_DESCRIPTIONS: dict[int, str] = {
    400: "The body is not JSON (or not UTF-8) at all",
    401: "Token missing or wrong",
    404: "Unknown World, vehicle, sample or resource",
    409: "Capacity or a step limit reached, or the operation is refused in this state",
    410: "World released after being idle",
    413: "Request body too large",
    422: "Invalid input: a value the schema or the library refuses (field, value, expected)",
    500: "Internal error (a bug; the server log has the traceback)",
    503: "The service is shutting down",
}
"""What each error status means on this service; every error has the one shape."""


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI ``responses`` of a route's error statuses, each with the one shape.

    Statuses every operation can return (500, 503, and 401 with a token) and
    those of a body (400, 413, 422) are added to the served schema for every
    operation that has them (:mod:`leviathan.service._openapi`).
    """
    return {
        status: {"model": ErrorBody, "description": ERROR_DESCRIPTIONS[status]}
        for status in statuses
    }
