"""FastAPI dependencies: the World host of the app serving a request."""

from __future__ import annotations

from fastapi import HTTPException, Request, WebSocket

from leviathan.service._hosting import WorldHost

__all__ = ["get_host", "get_host_ws"]


async def get_host(request: Request) -> WorldHost:
    """The :class:`WorldHost` of the app serving ``request``."""
    # async, though it awaits nothing: FastAPI runs a plain ``def`` dependency in
    # its thread pool, a thread hop per request for an attribute read.
    host = getattr(request.app.state, "host", None)
    if host is None:  # never: create_app always sets it
        raise HTTPException(500, "service not initialised")
    return host


def get_host_ws(websocket: WebSocket) -> WorldHost:
    """The :class:`WorldHost` of the app serving ``websocket``."""
    return websocket.app.state.host
