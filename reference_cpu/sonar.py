"""Reference imaging-sonar physics: beam quadrature and per-sample return terms (plain numpy).

Everything here runs on the host for every backend: the Warp backend only
replaces the tracing stage. Binning and the per-cell ground truth that follow
live in :mod:`leviathan.sonar`. The arithmetic is written out in a fixed
order; transcendental functions use Python's ``math`` (the platform libm, one
value at a time) rather than numpy's vectorised versions, whose SIMD code
paths differ between CPU generations and would make the frozen fixture depend
on the machine's instruction set.

Ray layout: ray ``r = j * bearing_count + i`` for elevation sample ``j`` and
bearing ``i``. Image layout: ``[range_bin, bearing]``.

Per integrated sample (a ray whose nearest hit lies in the range window)::

    G2       = G * G,  G = 2 ** -((2b/W_az)**2 + (2e/W_el)**2)   (uniform: G = 1)
    dOmega   = (cos(e) * delta_b) * w_e
    gw0      = G2 * (((R*R) * dOmega) / cos_inc) / ((R*R) * (R*R))   # no absorption
    gw       = gw0 * 10 ** -((alpha * (2*R)) / 10)                   # geometric weight
    sigma    = mu * (cos_inc * cos_inc)                              # Lambert
    c        = sigma * gw                                            # contribution

``c`` is NaN (missing) when the surface's acoustic status is not KNOWN or the
medium is unsupported; ``gw`` is NaN when the medium is unsupported.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import repeat

import numpy as np

__all__ = [
    "BeamGrid",
    "acos_clipped",
    "beam_grid",
    "beam_pattern_one_way",
    "sample_physics",
    "sensor_ray_directions",
    "trapezoid_weights",
]


def _inclusive_grid(full_width: float, count: int) -> np.ndarray:
    """Inclusive grid of ``count`` values over ``[-w/2, w/2]``: exactly symmetric, 0 at centre."""
    if count == 1:
        return np.zeros(1, dtype=np.float64)
    half = full_width * 0.5
    k = np.arange(count, dtype=np.float64)
    return half * ((2.0 * k - float(count - 1)) / float(count - 1))


def trapezoid_weights(aperture: float, count: int) -> np.ndarray:
    """Trapezoid weights of an inclusive grid over the aperture [rad].

    The weights sum exactly (``==``, summed left to right) to ``aperture``:
    the last weight is ``aperture`` minus the running sum of the others,
    which Sterbenz's lemma makes exact. One sample gets the whole aperture.
    """
    if count == 1:
        return np.array([aperture], dtype=np.float64)
    h = aperture / float(count - 1)
    w = np.full(count, h, dtype=np.float64)
    w[0] = h * 0.5
    running = 0.0
    for k in range(count - 1):
        running = running + float(w[k])
    w[count - 1] = aperture - running
    return w


def beam_pattern_one_way(
    bearing_rad: float,
    elevation_rad: float,
    *,
    azimuth_width_rad: float | None,
    elevation_width_rad: float | None,
) -> float:
    """One-way intensity beam pattern G relative to boresight.

    Gaussian: ``G = 2 ** -((2b/W_az)**2 + (2e/W_el)**2)``, exactly 0.5 at the
    half width; uniform (widths ``None``): 1.
    """
    if azimuth_width_rad is None or elevation_width_rad is None:
        return 1.0
    xb = (2.0 * bearing_rad) / azimuth_width_rad
    ye = (2.0 * elevation_rad) / elevation_width_rad
    return math.exp2(-((xb * xb) + (ye * ye)))


@dataclass(frozen=True, eq=False)
class BeamGrid:
    """Bearing/elevation quadrature of one sonar.

    Attributes:
        bearing_rad: Bearings, positive to starboard, float64 [bearing_count].
        elevation_rad: Elevations, positive downward, float64 [elevation_count].
        delta_bearing_rad: Bearing spacing (the full FOV for one bearing).
        elevation_weight_rad: Trapezoid weights, summing exactly to the aperture.
        two_way_gain: G², float64 [elevation_count, bearing_count].
        solid_angle_sr: dΩ = (cos e · Δb) · w_e, float64 [elevation_count, bearing_count].
    """

    __content_type__ = "leviathan.reference_cpu.sonar.BeamGrid"

    bearing_rad: np.ndarray
    elevation_rad: np.ndarray
    delta_bearing_rad: float
    elevation_weight_rad: np.ndarray
    two_way_gain: np.ndarray
    solid_angle_sr: np.ndarray


def beam_grid(
    *,
    azimuth_fov_rad: float,
    elevation_aperture_rad: float,
    bearing_count: int,
    elevation_count: int,
    azimuth_width_rad: float | None,
    elevation_width_rad: float | None,
) -> BeamGrid:
    """Builds the quadrature grid, beam gains and per-ray solid angles."""
    bearings = _inclusive_grid(azimuth_fov_rad, bearing_count)
    elevations = _inclusive_grid(elevation_aperture_rad, elevation_count)
    delta_b = azimuth_fov_rad if bearing_count == 1 else azimuth_fov_rad / float(bearing_count - 1)
    weights = trapezoid_weights(elevation_aperture_rad, elevation_count)
    gain = np.empty((elevation_count, bearing_count), dtype=np.float64)
    domega = np.empty((elevation_count, bearing_count), dtype=np.float64)
    for j, e in enumerate(elevations.tolist()):
        cos_e = math.cos(e)
        for i, b in enumerate(bearings.tolist()):
            g = beam_pattern_one_way(
                b, e, azimuth_width_rad=azimuth_width_rad, elevation_width_rad=elevation_width_rad
            )
            gain[j, i] = g * g
            domega[j, i] = (cos_e * delta_b) * float(weights[j])
    return BeamGrid(bearings, elevations, delta_b, weights, gain, domega)


def sensor_ray_directions(grid: BeamGrid) -> np.ndarray:
    """Unit ray directions in the sensor FRD frame, float64 [elevation_count * bearing_count, 3].

    ``d = (cos e cos b, cos e sin b, sin e)``: bearing positive to starboard
    (+y), elevation positive downward (+z).
    """
    cb = np.array([math.cos(b) for b in grid.bearing_rad.tolist()], dtype=np.float64)
    sb = np.array([math.sin(b) for b in grid.bearing_rad.tolist()], dtype=np.float64)
    ce = np.array([math.cos(e) for e in grid.elevation_rad.tolist()], dtype=np.float64)
    se = np.array([math.sin(e) for e in grid.elevation_rad.tolist()], dtype=np.float64)
    dx = ce[:, None] * cb[None, :]
    dy = ce[:, None] * sb[None, :]
    dz = np.broadcast_to(se[:, None], dx.shape)
    return np.ascontiguousarray(np.stack([dx, dy, dz], axis=-1).reshape(-1, 3))


def _pow10_neg(x: np.ndarray) -> np.ndarray:
    """``10**-x`` element by element with the platform libm (``math.pow``), not numpy's SIMD."""
    # Iterating a memoryview hands math.pow each element as a float without
    # building a list of them first (the values are the same as tolist's).
    neg = np.ascontiguousarray(-np.asarray(x, dtype=np.float64))
    return np.fromiter(
        map(math.pow, repeat(10.0), memoryview(neg)), dtype=np.float64, count=neg.shape[0]
    )


def acos_clipped(x: np.ndarray) -> np.ndarray:
    """``acos(min(x, 1))`` element by element with the platform libm (``math.acos``)."""
    x = np.ascontiguousarray(np.minimum(np.asarray(x, dtype=np.float64), 1.0))
    return np.fromiter(map(math.acos, memoryview(x)), dtype=np.float64, count=x.shape[0])


def sample_physics(
    *,
    range_m: np.ndarray,
    cos_incidence: np.ndarray,
    two_way_gain: np.ndarray,
    solid_angle_sr: np.ndarray,
    mu: np.ndarray,
    known: np.ndarray,
    alpha_db_per_m: float | None,
) -> dict[str, np.ndarray]:
    """Per-sample return terms (see module docstring for the formulas).

    Args:
        range_m: Slant range R [m], float64 [n].
        cos_incidence: |cos θ| between normal and reversed ray, float64 [n].
        two_way_gain: G², float64 [n].
        solid_angle_sr: dΩ [sr], float64 [n].
        mu: Lambert μ of the hit surface (ignored where not ``known``), float64 [n].
        known: Whether the surface's radiometry is KNOWN, bool [n].
        alpha_db_per_m: Absorption [dB/m], or ``None`` when the medium is unsupported.

    Returns:
        ``geometric_weight_no_absorption``, ``geometric_weight`` and ``contribution``,
        float64 [n] each.
    """
    r2 = range_m * range_m
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        area = (r2 * solid_angle_sr) / cos_incidence
        gw0 = (two_way_gain * area) / (r2 * r2)
    if alpha_db_per_m is None:
        gw = np.full_like(gw0, np.nan)
        contribution = np.full_like(gw0, np.nan)
    else:
        x = (alpha_db_per_m * (2.0 * range_m)) / 10.0
        gw = gw0 * _pow10_neg(x)
        sigma = mu * (cos_incidence * cos_incidence)
        contribution = np.where(known, sigma * gw, np.nan)
    return {
        "geometric_weight_no_absorption": gw0,
        "geometric_weight": gw,
        "contribution": contribution,
    }
