"""Channels of an imaging-sonar frame rebuilt exactly from its other channels and metadata.

The sensor kind declares these as its ``channel_rules``, so that a dataset can store
the rule instead of the values (:mod:`leviathan.datasets._hdf5_sparse` keeps it only
where the rebuilt array equals the channel byte for byte, and ``verify`` re-hashes
what it rebuilds on reading).

``primary_hit_point_world`` is the primary sample's ``o + R d`` (as
:func:`leviathan.sonar._physics.sample_geometry` computes it): ``o`` the sensor's
position, ``R`` the cell's ``primary_range_m``, ``d`` the world direction of the ray
at the cell's bearing and the row of its ``primary_elevation_rad`` in the frame's
elevation table, rotated by the frame's ``T_world_sensor`` as the ping rotated it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

import numpy as np

from leviathan.frames import Transform
from leviathan.reference_cpu import sonar as ref

__all__ = ["rebuild_primary_hit_point"]


def rebuild_primary_hit_point(
    channels: Mapping[str, Any], metadata: Mapping[str, Any]
) -> np.ndarray | None:
    """``primary_hit_point_world`` from ``sample_count``, ``primary_range_m``,
    ``primary_elevation_rad`` and the metadata's pose and beam tables; NaN in empty
    cells. None where an input is missing or off its layout, or an elevation is not in
    the table."""
    try:
        counts = np.asarray(channels["sample_count"])
        range_m = np.asarray(channels["primary_range_m"])
        elevation = np.asarray(channels["primary_elevation_rad"])
        bearings = np.asarray(metadata["bearing_rad"], dtype=np.float64).reshape(-1)
        elevations = np.asarray(metadata["elevation_rad"], dtype=np.float64).reshape(-1)
        pose = Transform.from_dict(metadata["T_world_sensor"])
    except (KeyError, TypeError, ValueError):
        return None
    shape = counts.shape
    if (
        counts.ndim != 2
        or shape[1] != bearings.shape[0]
        or range_m.shape != shape
        or elevation.shape != shape
        or range_m.dtype != np.float64
        or elevation.dtype != np.float64
        or elevations.shape[0] == 0
    ):
        return None
    occupied = counts != 0
    # The row of each occupied cell's primary elevation: the same bits in the table.
    order = np.argsort(elevations.view(np.uint64), kind="stable")
    table_bits = elevations.view(np.uint64)[order]
    wanted = elevation[occupied].view(np.uint64)
    at = np.minimum(np.searchsorted(table_bits, wanted), table_bits.shape[0] - 1)
    if not np.array_equal(table_bits[at], wanted):
        return None
    row = order[at]
    column = np.nonzero(occupied)[1]
    # Only the two tables enter the sensor-frame directions (ref.sensor_ray_directions).
    tables = SimpleNamespace(bearing_rad=bearings, elevation_rad=elevations)
    directions = ref.sensor_ray_directions(tables)[row * shape[1] + column]
    d = pose.apply_direction(directions)
    point = np.full((*shape, 3), np.nan, dtype=np.float64)
    hit = np.array(np.broadcast_to(pose.translation, d.shape), dtype=np.float64)
    hit += range_m[occupied][:, None] * d
    point[occupied] = hit
    return point
