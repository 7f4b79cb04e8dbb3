"""The service face: live Worlds over HTTP and WebSocket (``leviathan serve``).

* :func:`create_app` — the FastAPI application (routers per resource, one error shape);
* :func:`serve` — run it on uvicorn (loopback by default; a token elsewhere);
* :class:`ServiceSettings` — limits: Worlds, steps, idle release, ticks per request,
  body size, worker threads;
* the wire form shared with clients: :func:`encode_value` / :func:`decode_value`
  (lossless JSON of content trees), :func:`encode_record` / :func:`decode_record`
  (the World's records, rebuilt with their content hashes), :class:`WireError`,
  and :func:`controller_document`, :func:`environment_document`,
  :func:`setup_document` (library objects as the request documents the service reads);
* :func:`bench_service`, :func:`format_service_bench` — ``leviathan bench --service``.

The Python client is :mod:`leviathan.client`. Service code is I/O: it does no
canonical arithmetic, it calls the library. The modules behind this ``__init__``
(app, routers, hosting, errors, wire, ...) are internal.
"""

from leviathan.service._app import create_app
from leviathan.service._bench import bench_service, format_service_bench
from leviathan.service._documents import controller_document, environment_document, setup_document
from leviathan.service._hosting import ServiceSettings
from leviathan.service._server import serve
from leviathan.service._wire import (
    WireError,
    decode_record,
    decode_value,
    encode_record,
    encode_value,
)

__all__ = [
    "ServiceSettings",
    "WireError",
    "bench_service",
    "controller_document",
    "create_app",
    "decode_record",
    "decode_value",
    "encode_record",
    "encode_value",
    "environment_document",
    "format_service_bench",
    "serve",
    "setup_document",
]
