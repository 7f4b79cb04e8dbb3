"""The service face: live Worlds over HTTP and WebSocket (``leviathan serve``).

* :func:`create_app` — the FastAPI application (routers per resource, one error shape,
  an OpenAPI schema that states every constraint the server enforces);
* :func:`serve` — run it on uvicorn (loopback by default; a token elsewhere);
* :class:`ServiceSettings` — limits: Worlds, steps, idle release, ticks per request,
  body size, kept samples (count and bytes, per World and in all), worker threads;
* :func:`bench_service`, :func:`format_service_bench` — ``leviathan bench --service``.

What crosses the wire is :mod:`leviathan.wire` (the one typed-JSON codec, shared
with the datasets); the request documents are :mod:`leviathan.specs`' World
documents, built by :mod:`leviathan.documents`; the Python client is
:mod:`leviathan.client`, which imports none of this package. Service code is
I/O: it does no canonical arithmetic, it calls the library. The modules behind
this ``__init__`` (app, routers, hosting, errors, ...) are internal.
"""

from leviathan.service._app import create_app
from leviathan.service._bench import bench_service, format_service_bench
from leviathan.service._hosting import ServiceSettings
from leviathan.service._server import serve

__all__ = [
    "ServiceSettings",
    "bench_service",
    "create_app",
    "format_service_bench",
    "serve",
]
