"""The receive-beam geometry of a multibeam spec, computed once per set of beam parameters.

The formulas are the reference's (:mod:`leviathan.reference_cpu.multibeam`); this
module converts the spec's degrees once and caches the result, read-only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from leviathan.reference_cpu import multibeam as ref
from leviathan.specs import MultibeamSpec

__all__ = ["FOOTPRINT_RAY_COUNT", "BeamGeometry", "beam_geometry"]

FOOTPRINT_RAY_COUNT = 5
"""Rays across each beam's -3 dB width (``delta`` in ``[-w_k/2, w_k/2]``, ``psi = 0``)
traced for its footprint truth (:mod:`leviathan.multibeam._truth`)."""


@dataclass(frozen=True, eq=False)
class BeamGeometry:
    """Where each beam of a multibeam looks, in the sensor frame (arrays read-only).

    Attributes:
        angle_rad: Across-track beam angle ``theta_k`` [rad], port to starboard, float64 [N].
        width_rad: Across-track -3 dB full width ``w_0 / cos(theta_k)`` [rad], float64 [N].
        axis: Unit beam axes ``(0, sin theta, cos theta)``, float64 [N, 3].
        footprint: Footprint ray directions, ray ``k * F + f``, float64 [N * F, 3].
    """

    __content_type__ = "leviathan.multibeam.BeamGeometry"

    angle_rad: np.ndarray
    width_rad: np.ndarray
    axis: np.ndarray
    footprint: np.ndarray


@lru_cache(maxsize=32)
def _geometry(
    swath: float,
    count: int,
    spacing: str,
    nadir_width: float,
) -> BeamGeometry:
    angles = ref.beam_angles(swath, count, spacing)
    widths = ref.beam_widths(nadir_width, angles)
    axis = ref.beam_axis_directions(angles)
    offsets = []
    for k in range(count):
        w = float(widths[k])
        for f in range(FOOTPRINT_RAY_COUNT):
            u = (2.0 * f - float(FOOTPRINT_RAY_COUNT - 1)) / float(FOOTPRINT_RAY_COUNT - 1)
            offsets.append(float(angles[k]) + (0.5 * w) * u)
    footprint = ref.beam_axis_directions(np.array(offsets, dtype=np.float64))
    for a in (angles, widths, axis, footprint):
        a.setflags(write=False)
    return BeamGeometry(angles, widths, axis, footprint)


def beam_geometry(spec: MultibeamSpec) -> BeamGeometry:
    """The beam geometry of ``spec`` (the same object for equal beam parameters)."""
    return _geometry(
        math.radians(spec.swath_deg),
        int(spec.beam_count),
        spec.beam_spacing,
        math.radians(spec.across_track_width_deg),
    )
