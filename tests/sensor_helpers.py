"""Support for the tests that define a sensor kind of their own: registered only while used."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from leviathan.sensors import SensorKind, register_sensor_kind, unregister_sensor_kind


@contextlib.contextmanager
def registered_kind(sensor: SensorKind) -> Iterator[SensorKind]:
    """``sensor`` registered as its ``kind`` inside the block, unregistered after it.

    A test that unregisters the kind inside the block registers it again before leaving,
    so the registry ends as it began.
    """
    kind = register_sensor_kind(sensor)
    try:
        yield kind
    finally:
        unregister_sensor_kind(sensor.kind)
