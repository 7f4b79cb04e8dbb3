"""``create_app``: the FastAPI application of ``leviathan serve``.

Layout (FastAPI's "bigger applications"): one router per resource
(:mod:`leviathan.service.routers`), pydantic request and response models
(:mod:`leviathan.service._requests`, :mod:`leviathan.service._models`; the World
documents are :mod:`leviathan.specs`' one schema), a dependency for the World host
(:mod:`leviathan.service._deps`), one set of exception handlers that gives every
failure the one JSON shape (:mod:`leviathan.service._errors`), and the gate for
the token, body size and shutdown (:mod:`leviathan.service._auth`).

The OpenAPI schema is served at ``/openapi.json`` and states everything the server
enforces (:mod:`leviathan.service._openapi`); the interactive docs pages are
disabled, since FastAPI's would load their scripts from a CDN (nothing is fetched
from the internet). The Dashboard is served at ``/`` from package data
(:mod:`leviathan.service.routers._dashboard`). CORS headers are sent only for the
origins configured.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable

from fastapi import FastAPI

from leviathan.service._auth import GuardMiddleware
from leviathan.service._errors import InternalErrorMiddleware, install_error_handlers
from leviathan.service._hosting import ServiceSettings, WorldHost
from leviathan.service._openapi import service_openapi
from leviathan.service.routers import live_router, samples_router, service_router, worlds_router
from leviathan.service.routers._analytic import router as analytic_router
from leviathan.service.routers._dashboard import is_public_path
from leviathan.service.routers._dashboard import router as dashboard_router
from leviathan.service.routers._multibeam import router as multibeam_router
from leviathan.service.routers._scene import router as scene_router
from leviathan.service.routers._side_scan import router as side_scan_router
from leviathan.service.routers._vehicles import router as vehicles_router

__all__ = ["create_app"]

_LOG = logging.getLogger("leviathan.service")


def create_app(
    settings: ServiceSettings | None = None,
    *,
    token: str | None = None,
    lifecycle_clock: Callable[[], float] = time.monotonic,
) -> FastAPI:
    """Builds the service application with a fresh, empty :class:`WorldHost`.

    Args:
        settings: Limits and options (default :class:`ServiceSettings()`).
        token: Token every request must carry (``None``: no token, loopback only
            is enforced by :func:`leviathan.service.serve`).
        lifecycle_clock: Monotonic seconds source for idle release (tests inject one).

    Returns:
        The ASGI application; ``app.state.host`` is its :class:`WorldHost`.
    """
    from leviathan import __version__

    settings = settings or ServiceSettings()
    host = WorldHost(settings, lifecycle_clock=lifecycle_clock)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        host.loop = asyncio.get_running_loop()

        async def sweeper() -> None:
            # Idle release must not wait for the next request; the decision itself is
            # the registry's, on its lifecycle clock.
            while True:
                await asyncio.sleep(settings.sweep_s)
                try:
                    host.sweep()
                except Exception:  # a bug must not end background release for good
                    _LOG.exception("idle sweep failed; retrying in %g s", settings.sweep_s)

        task = asyncio.create_task(sweeper())
        try:
            yield
        finally:
            host.begin_shutdown()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            host.shutdown()

    app = FastAPI(
        title="LEVIATHAN service",
        version=__version__,
        description="Live canonical Worlds over HTTP and WebSocket (see `leviathan serve`). "
        "Every failure has one JSON shape {code, message, field, value, expected}.",
        docs_url=None,
        redoc_url=None,
        openapi_url="/openapi.json",
        lifespan=lifespan,
        # Operation ids are the handlers' names (create_world, step_world, ...): the
        # names links and generated clients use.
        generate_unique_id_function=lambda route: route.name,
    )
    app.state.host = host
    schema: dict = {}

    def openapi() -> dict:
        if not schema:
            schema.update(service_openapi(app, settings, token=bool(token)))
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
    install_error_handlers(app)
    for router in (
        service_router,
        worlds_router,
        vehicles_router,
        samples_router,
        side_scan_router,
        multibeam_router,
        live_router,
        analytic_router,
        scene_router,
        dashboard_router,
    ):
        app.include_router(router)
    # Inside the gate, so a refused request never reaches it; outside the routes.
    app.add_middleware(InternalErrorMiddleware)
    app.add_middleware(
        GuardMiddleware,
        token=token,
        max_body_bytes=settings.max_body_bytes,
        is_shutting_down=lambda: host.shutting_down,
        is_public=is_public_path,
    )
    if settings.cors_origins:
        from fastapi.middleware.cors import CORSMiddleware

        # Outermost, so a browser's preflight (which carries no token) is answered.
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(settings.cors_origins),
            allow_methods=["*"],
            allow_headers=["*"],
        )
    return app
