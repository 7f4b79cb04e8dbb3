"""One router per resource: worlds, samples, live (WebSocket and Play), service."""

from leviathan.service.routers._live import router as live_router
from leviathan.service.routers._samples import router as samples_router
from leviathan.service.routers._service import router as service_router
from leviathan.service.routers._worlds import router as worlds_router

__all__ = ["live_router", "samples_router", "service_router", "worlds_router"]
