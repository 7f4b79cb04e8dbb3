"""The elevation fill rule of an imaging sonar: how many elevation samples fill its window.

One rule, two users: the analytic tier raises a ping's elevation sampling by it
(:func:`leviathan.analytic.sonar_image`, whose module docstring derives it), and
the canonical :func:`leviathan.sonar.render` warns when a spec's sampling falls
short of it (:class:`leviathan.sonar.SonarSamplingWarning`). Kept here, below
both, so that neither imports the other.

For a plane at perpendicular distance ``h`` from the sensor, adjacent elevation
rays whose hits lie in the range window differ in range by at most
``R_max^2 / h * de``; the rule asks that to be at most a fraction ``f`` of a range
bin ``dr = (R_max - R_min) / N``::

    de <= f * dr * h / R_max^2,     M = ceil(A / de_max) + 1

for an elevation aperture ``A`` on the inclusive grid of ``M`` samples. With
``f <= 1`` no range bin the plane's hits span can be skipped; below the ``M`` of
``f = 1`` some can (cells the surface covers stay empty).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from leviathan.specs import ImagingSonarSpec

__all__ = [
    "FILL_BIN_FRACTION",
    "elevation_samples_for_fill",
    "elevation_step_for_fill_rad",
    "fill_plane_distance",
]

FILL_BIN_FRACTION = 0.5
"""Default ``f`` of the fill rule: adjacent elevation rays at most half a range bin apart."""


def elevation_samples_for_fill(
    spec: ImagingSonarSpec, *, plane_distance_m: float, bin_fraction: float = FILL_BIN_FRACTION
) -> int:
    """Elevation sample count the fill rule asks for (see the module docstring).

    ``M = ceil(A / de_max) + 1`` with ``de_max = f * dr * h / R_max^2``.

    Args:
        spec: The sonar (aperture, range window, bin count).
        plane_distance_m: Perpendicular distance ``h`` from the sensor to the plane [m], > 0.
        bin_fraction: ``f``, the largest allowed range step between adjacent elevation
            rays as a share of a range bin, in (0, 1].

    Returns:
        ``M`` [-], >= 2 (1 when the aperture is 0).

    Raises:
        ValueError: If ``plane_distance_m`` or ``bin_fraction`` is out of range.
    """
    if not isinstance(spec, ImagingSonarSpec):
        raise TypeError(f"spec: expected an ImagingSonarSpec, got {type(spec).__name__}")
    h = float(plane_distance_m)
    if not (math.isfinite(h) and h > 0.0):
        raise ValueError(f"plane_distance_m: expected a finite distance > 0 m, got {h!r}")
    f = float(bin_fraction)
    if not 0.0 < f <= 1.0:
        raise ValueError(f"bin_fraction: expected a share of a range bin in (0, 1], got {f!r}")
    aperture = math.radians(spec.elevation_aperture_deg)
    if aperture == 0.0:
        return 1
    step = elevation_step_for_fill_rad(spec, plane_distance_m=h, bin_fraction=f)
    return math.ceil(aperture / step) + 1


def elevation_step_for_fill_rad(
    spec: ImagingSonarSpec, *, plane_distance_m: float, bin_fraction: float = FILL_BIN_FRACTION
) -> float:
    """Largest elevation step of the fill rule, ``f * dr * h / R_max^2`` [rad]."""
    bin_width = (spec.range_max_m - spec.range_min_m) / spec.range_bin_count
    return bin_fraction * bin_width * plane_distance_m / (spec.range_max_m * spec.range_max_m)


def fill_plane_distance(
    channels: Mapping[str, Any], *, statistic: str = "min"
) -> tuple[float, int, int] | None:
    """The plane the fill rule fills, estimated from one ping's cells.

    The extended surface is the instance holding the most hit cells (the seabed in
    a survey scene; a discrete target's faces would ask for far more rays), and
    ``h`` a statistic of ``R cos(theta)`` over its cells, the perpendicular distance
    to its primary triangles' planes (for a true plane every cell gives the same).
    ``"min"`` (the analytic tier's choice from its coarse ping) is the cautious
    one; ``"median"`` is the surface's typical distance, which a fine ping of a
    rough seabed keeps from being pulled down by its few steep cells (the canonical
    render's warning uses it, so it speaks of the surface, not of its roughness).

    Args:
        channels: A sonar frame's channels (``sample_count``, ``primary_instance``,
            ``primary_range_m``, ``primary_incidence_rad``).
        statistic: ``"min"`` or ``"median"``.

    Returns:
        ``(h [m], instance, cell count)``, or ``None`` when no cell has a sample.
    """
    if statistic not in ("min", "median"):
        raise ValueError(f"statistic: expected 'min' or 'median', got {statistic!r}")
    hit = np.asarray(channels["sample_count"]) > 0
    if not hit.any():
        return None
    inst = np.asarray(channels["primary_instance"])[hit]
    ids, counts = np.unique(inst, return_counts=True)
    main = ids[np.argmax(counts)]
    mine = inst == main
    r = np.asarray(channels["primary_range_m"])[hit][mine]
    inc = np.asarray(channels["primary_incidence_rad"])[hit][mine]
    distance = r * np.cos(inc)
    h = np.min(distance) if statistic == "min" else np.median(distance)
    return float(h), int(main), int(counts.max())
