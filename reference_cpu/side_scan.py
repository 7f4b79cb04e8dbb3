"""Reference side-scan physics: the two fans' ray quadrature and two-way beam gains (numpy + libm).

The return model is the imaging sonar's (:mod:`leviathan.reference_cpu.sonar`,
``sample_physics``: Lambert ``mu cos²θ``, ``G²``, footprint ``R² dΩ / cos θ``,
Francois–Garrison absorption, ``1/R⁴``), integrated per side by the acoustic fan
render (:mod:`leviathan.sonar._fan`); this module gives its rays.

Layout: ray ``r = (s * A + k) * M + j`` for side ``s`` (0 port, 1 starboard),
along-track sample ``k`` (of ``A``) and depression sample ``j`` (of ``M``); column
``s``, row ``k * M + j`` (a cell's samples are summed in ascending row).

Per ray, with along-track angle ``a_k`` (inclusive grid over ``±aperture/2``,
exactly symmetric) and depression ``δ_j`` (inclusive grid from the shallowest to
the steepest sampled depression, the last exactly the steepest)::

    d      = (sin a, ±(cos a * cos δ), cos a * sin δ)     # − port, + starboard
    dOmega = (cos a * w_a[k]) * w_δ[j]                     # trapezoid weights
    g      = one_way_gain(kind, a, δ − depression)         # leviathan.sonar.beams
    G2     = g * g

Every sine and cosine is ``math`` (libm) on one Python float.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from leviathan.reference_cpu.sonar import _inclusive_grid, trapezoid_weights
from leviathan.sonar.beams import inclusive_grid, one_way_gain

__all__ = ["PORT", "STARBOARD", "SideScanRays", "side_scan_rays"]

PORT = 0
STARBOARD = 1


@dataclass(frozen=True, eq=False)
class SideScanRays:
    """The rays of both fans (see the module docstring for the layout).

    Attributes:
        directions: Unit directions in sensor FRD, float64 [2 A M, 3].
        two_way_gain: ``G²``, float64 [2 A M].
        solid_angle_sr: ``dΩ`` [sr], float64 [2 A M].
        column: Side per ray (0 port, 1 starboard), int64 [2 A M].
        row: ``k * M + j``, int64 [2 A M].
        along_track_rad: ``a`` per ray, float64 [2 A M].
        across_track_rad: Depression ``δ`` per ray, float64 [2 A M].
        along_grid_rad, depression_grid_rad: The two grids, float64 [A] and [M].
        along_weight_rad, depression_weight_rad: Their trapezoid weights.
    """

    __content_type__ = "leviathan.reference_cpu.side_scan.SideScanRays"

    directions: np.ndarray
    two_way_gain: np.ndarray
    solid_angle_sr: np.ndarray
    column: np.ndarray
    row: np.ndarray
    along_track_rad: np.ndarray
    across_track_rad: np.ndarray
    along_grid_rad: np.ndarray
    depression_grid_rad: np.ndarray
    along_weight_rad: np.ndarray
    depression_weight_rad: np.ndarray


def side_scan_rays(
    *,
    depression_rad: float,
    min_depression_rad: float,
    max_depression_rad: float,
    across_count: int,
    along_aperture_rad: float,
    along_count: int,
    pattern: str,
    widths_rad: tuple[float, float] | None = None,
    array_lengths_m: tuple[float, float] | None = None,
    frequency_hz: float | None = None,
) -> SideScanRays:
    """Both fans' rays, gains and solid angles.

    Args:
        depression_rad: Each fan's axis below the sensor x–y plane [rad].
        min_depression_rad, max_depression_rad: The sampled vertical aperture [rad].
        across_count: Depression samples M per side and along-track angle (>= 2).
        along_aperture_rad: Sampled along-track aperture [rad].
        along_count: Along-track samples A.
        pattern: ``"uniform"``, ``"gaussian"`` or ``"sinc2"``
            (:func:`leviathan.sonar.beams.one_way_gain`; first plane along-track,
            second across-track).
        widths_rad, array_lengths_m, frequency_hz: The pattern's parameters.
    """
    M, A = int(across_count), int(along_count)
    delta = inclusive_grid(min_depression_rad, max_depression_rad, M)
    w_delta = trapezoid_weights(max_depression_rad - min_depression_rad, M)
    along = _inclusive_grid(along_aperture_rad, A)
    w_along = trapezoid_weights(along_aperture_rad, A)
    sa = [math.sin(a) for a in along.tolist()]
    ca = [math.cos(a) for a in along.tolist()]
    sd = [math.sin(x) for x in delta.tolist()]
    cd = [math.cos(x) for x in delta.tolist()]
    n = 2 * A * M
    d = np.empty((n, 3), dtype=np.float64)
    gain = np.empty(n, dtype=np.float64)
    domega = np.empty(n, dtype=np.float64)
    along_ray = np.empty(n, dtype=np.float64)
    delta_ray = np.empty(n, dtype=np.float64)
    # One side's per-(k, j) values, then the two sides differ only in the sign of y.
    gk = np.empty(A * M, dtype=np.float64)
    ok = np.empty(A * M, dtype=np.float64)
    dk = np.empty((A * M, 3), dtype=np.float64)
    for k, a in enumerate(along.tolist()):
        for j, x in enumerate(delta.tolist()):
            r = k * M + j
            g = one_way_gain(
                pattern,
                a,
                x - depression_rad,
                widths_rad=widths_rad,
                array_lengths_m=array_lengths_m,
                frequency_hz=frequency_hz,
            )
            gk[r] = g * g
            ok[r] = (ca[k] * float(w_along[k])) * float(w_delta[j])
            dk[r, 0] = sa[k]
            dk[r, 1] = ca[k] * cd[j]
            dk[r, 2] = ca[k] * sd[j]
    for s, sign in ((0, -1.0), (1, 1.0)):
        sl = slice(s * A * M, (s + 1) * A * M)
        d[sl, 0] = dk[:, 0]
        d[sl, 1] = sign * dk[:, 1]
        d[sl, 2] = dk[:, 2]
        gain[sl] = gk
        domega[sl] = ok
        along_ray[sl] = np.repeat(along, M)
        delta_ray[sl] = np.tile(delta, A)
    ray = np.arange(n, dtype=np.int64)
    return SideScanRays(
        directions=d,
        two_way_gain=gain,
        solid_angle_sr=domega,
        column=ray // (A * M),
        row=ray % (A * M),
        along_track_rad=along_ray,
        across_track_rad=delta_ray,
        along_grid_rad=along,
        depression_grid_rad=delta,
        along_weight_rad=w_along,
        depression_weight_rad=w_delta,
    )
