"""The imaging sonar's beam quadrature, cached by the beam parameters that define it.

One key serves a spec and the physics spec a frame records in its metadata
(``metadata["spec"]``), so the renderer and the channel rules that rebuild a frame's
truth (:mod:`leviathan.sonar._rebuild`) use the very same grid.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import numpy as np

from leviathan.reference_cpu import sonar as ref
from leviathan.specs import ImagingSonarSpec

__all__ = ["beam_grid_for", "grid_key", "recorded_grid"]

GridKey = tuple[float, float, int, int, float | None, float | None]


def _key(fov_deg: float, aperture_deg: float, bearings: int, elevations: int, beam: Any) -> GridKey:
    gaussian = beam["kind"] == "gaussian"
    return (
        math.radians(fov_deg),
        math.radians(aperture_deg),
        bearings,
        elevations,
        math.radians(beam["azimuth_3db_full_width_deg"]) if gaussian else None,
        math.radians(beam["elevation_3db_full_width_deg"]) if gaussian else None,
    )


def grid_key(spec: ImagingSonarSpec) -> GridKey:
    """The beam parameters of ``spec`` in radians: the cache key of its grid."""
    bp = spec.beam_pattern
    return _key(
        spec.azimuth_fov_deg,
        spec.elevation_aperture_deg,
        spec.bearing_count,
        spec.elevation_sample_count,
        {
            "kind": bp.kind,
            "azimuth_3db_full_width_deg": bp.azimuth_3db_full_width_deg,
            "elevation_3db_full_width_deg": bp.elevation_3db_full_width_deg,
        },
    )


@lru_cache(maxsize=32)
def _grid(
    fov: float,
    aperture: float,
    bearings: int,
    elevations: int,
    w_az: float | None,
    w_el: float | None,
) -> tuple[ref.BeamGrid, np.ndarray]:
    grid = ref.beam_grid(
        azimuth_fov_rad=fov,
        elevation_aperture_rad=aperture,
        bearing_count=bearings,
        elevation_count=elevations,
        azimuth_width_rad=w_az,
        elevation_width_rad=w_el,
    )
    dirs = ref.sensor_ray_directions(grid)
    dirs.setflags(write=False)
    return grid, dirs


def beam_grid_for(spec: ImagingSonarSpec) -> tuple[ref.BeamGrid, np.ndarray]:
    """Quadrature grid and sensor-frame ray directions of a sonar spec (cached).

    Args:
        spec: The imaging sonar whose beam quadrature is wanted.

    Returns:
        ``(grid, directions)``: the :class:`~leviathan.reference_cpu.sonar.BeamGrid`
        and the unit ray directions in the sensor FRD frame, float64, shape
        [elevation_count * bearing_count, 3] (ray ``j * bearing_count + i``),
        read-only; the same objects for equal beam parameters.
    """
    return _grid(*grid_key(spec))


def recorded_grid(spec: Mapping[str, Any]) -> tuple[ref.BeamGrid, np.ndarray]:
    """:func:`beam_grid_for` of the physics spec a frame records (``metadata["spec"]``).

    Raises:
        KeyError, TypeError, ValueError: Where the mapping lacks a field or has one of
            the wrong type.
    """
    return _grid(
        *_key(
            float(spec["azimuth_fov_deg"]),
            float(spec["elevation_aperture_deg"]),
            int(spec["bearing_count"]),
            int(spec["elevation_sample_count"]),
            spec["beam_pattern"],
        )
    )
