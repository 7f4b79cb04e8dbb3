"""Fixtures of the service tests: one real uvicorn on 127.0.0.1 per module, and a client.

* ``service``: :func:`service_helpers.start_service` with default settings, stopped at
  the end of the module;
* ``client``: a :class:`~leviathan.client.ServiceClient` of it that deletes every World
  it left open after the test.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from service_helpers import RunningService, start_service

from leviathan.client import ServiceClient


@pytest.fixture(scope="module")
def service() -> Iterator[RunningService]:
    running = start_service()
    yield running
    running.stop()


@pytest.fixture()
def client(service: RunningService) -> Iterator[ServiceClient]:
    with ServiceClient(service.url) as c:
        yield c
        for wid in c.world_ids():
            c.world(wid).delete()
