"""Reference imaging-sonar physics and per-cell ground truth (plain numpy).

Everything here runs on the host for every backend: the Warp backend only
replaces the tracing stage. The arithmetic is written out in a fixed order;
transcendental functions use Python's ``math`` (the platform libm, one value
at a time) rather than numpy's vectorised versions, whose SIMD code paths
differ between CPU generations and would make the frozen fixture depend on
the machine's instruction set.

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

Range bins (:func:`range_bin`, the one definition: the renderer, the fan display
and anyone re-binning a range call it)::

    width = (r_max - r_min) / N                          # float64
    k     = min(floor((R - r_min) / width), N - 1)       # r_min <= R < r_max, else -1

The published ``metadata["range_bin_edges_m"]`` (:func:`range_bin_edges`,
``r_min + width * arange(N + 1)``) are frozen content but are the nominal edges
rounded, not the values at which ``k`` changes: the two differ by up to a few ulps,
so a range on or next to a printed edge may sit in the bin on either side of it.
:func:`range_bin_boundaries` gives the exact float64 values at which ``k`` changes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import repeat

import numpy as np

__all__ = [
    "BASIS_CONTRIBUTION",
    "BASIS_GEOMETRIC",
    "BASIS_GEOMETRIC_NO_ABSORPTION",
    "BASIS_NONE",
    "CELL_FLAGS",
    "FLAG_EMPTY",
    "FLAG_MIXED_STATUS",
    "FLAG_MULTIPLE_INSTANCES",
    "FLAG_SEA_SURFACE",
    "FLAG_TRUNCATED",
    "FLAG_UNKNOWN_MATERIAL",
    "FLAG_UNSUPPORTED_MATERIAL",
    "FLAG_UNSUPPORTED_MEDIUM",
    "FLAG_VALID",
    "BeamGrid",
    "accumulate_cells",
    "acos_clipped",
    "beam_grid",
    "beam_pattern_one_way",
    "range_bin",
    "range_bin_boundaries",
    "range_bin_edges",
    "sample_physics",
    "sensor_ray_directions",
    "trapezoid_weights",
]

# Cell validity flags (uint16 bit mask).
FLAG_EMPTY = 1 << 0  # no sample integrated: linear_return is 0 (nothing scatters there)
FLAG_VALID = 1 << 1  # return has a value: every contributor KNOWN and the medium supported
FLAG_UNKNOWN_MATERIAL = 1 << 2  # a contributor without a declared acoustic material
FLAG_UNSUPPORTED_MATERIAL = 1 << 3  # a contributor whose declared model is not implemented
FLAG_UNSUPPORTED_MEDIUM = 1 << 4  # water/frequency/depth outside the absorption model
FLAG_SEA_SURFACE = 1 << 5  # a contributor on the sea-surface interface
FLAG_MIXED_STATUS = 1 << 6  # contributors with more than one acoustic status
FLAG_MULTIPLE_INSTANCES = 1 << 7  # contributors from more than one instance
FLAG_TRUNCATED = 1 << 8  # more contributors than top_k

CELL_FLAGS: dict[str, int] = {
    "empty": FLAG_EMPTY,
    "valid": FLAG_VALID,
    "unknown_material": FLAG_UNKNOWN_MATERIAL,
    "unsupported_material": FLAG_UNSUPPORTED_MATERIAL,
    "unsupported_medium": FLAG_UNSUPPORTED_MEDIUM,
    "sea_surface": FLAG_SEA_SURFACE,
    "mixed_status": FLAG_MIXED_STATUS,
    "multiple_instances": FLAG_MULTIPLE_INSTANCES,
    "truncated": FLAG_TRUNCATED,
}

# primary_basis codes: the rule used for dominance in each cell.
BASIS_NONE = 0  # empty cell
BASIS_CONTRIBUTION = 1  # radiometry fully known: dominance = contribution
BASIS_GEOMETRIC = 2  # radiometry unknown somewhere: dominance = geometric weight
BASIS_GEOMETRIC_NO_ABSORPTION = 3  # medium unsupported: geometric weight without absorption

_STATUS_KNOWN = 1
_STATUS_UNKNOWN = 2
_STATUS_UNSUPPORTED = 3
_STATUS_INTERFACE = 4


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
    x = np.asarray(x, dtype=np.float64)
    return np.fromiter(
        map(math.pow, repeat(10.0, x.shape[0]), (-x).tolist()), dtype=np.float64, count=x.shape[0]
    )


def acos_clipped(x: np.ndarray) -> np.ndarray:
    """``acos(min(x, 1))`` element by element with the platform libm (``math.acos``)."""
    x = np.minimum(np.asarray(x, dtype=np.float64), 1.0)
    return np.fromiter(map(math.acos, x.tolist()), dtype=np.float64, count=x.shape[0])


def _range_window(
    range_min_m: float, range_max_m: float, range_bin_count: int
) -> tuple[float, float, int, float]:
    """Checks a range window and returns ``(r_min, r_max, N, width)`` as float64/int."""
    for name, value in (("range_min_m", range_min_m), ("range_max_m", range_max_m)):
        if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
            raise TypeError(f"{name}: expected a real number of metres, got {value!r}")
        if not math.isfinite(float(value)):
            raise ValueError(f"{name}: expected a finite number of metres, got {value!r}")
    r_min, r_max = float(range_min_m), float(range_max_m)
    if r_min < 0.0:
        raise ValueError(f"range_min_m: expected a range >= 0 m, got {range_min_m!r}")
    if not r_max > r_min:
        raise ValueError(
            f"range_max_m: expected a range > range_min_m ({r_min!r} m), got {range_max_m!r}"
        )
    if isinstance(range_bin_count, bool) or not isinstance(range_bin_count, int | np.integer):
        raise TypeError(f"range_bin_count: expected an int >= 1, got {range_bin_count!r}")
    if range_bin_count < 1:
        raise ValueError(f"range_bin_count: expected an int >= 1, got {range_bin_count!r}")
    n = int(range_bin_count)
    return r_min, r_max, n, (r_max - r_min) / float(n)


def range_bin(
    range_m: np.ndarray | float,
    *,
    range_min_m: float,
    range_max_m: float,
    range_bin_count: int,
) -> np.ndarray:
    """Range bin of each slant range: the sonar's own assignment, exactly.

    ``k = min(floor((R - r_min) / width), N - 1)`` with ``width = (r_max - r_min) / N``,
    each operation rounded once in float64 in this order; ``-1`` when ``R`` lies
    outside the half-open window ``[r_min, r_max)`` or is NaN (such a hit is not
    integrated). The clamp catches a range just below ``r_max`` whose quotient
    rounds up to ``N``. An image row ``k`` of a frame holds exactly the samples with
    this ``k``; re-bin with this function (pass ``frame.metadata["spec"]``'s three
    window fields), never with ``range_bin_edges_m``, whose values are rounded
    nominal edges (see :func:`range_bin_boundaries`).

    Args:
        range_m: Slant ranges R [m], real numbers of any shape.
        range_min_m: Near edge of the window r_min [m], finite, >= 0.
        range_max_m: Far edge of the window r_max [m], finite, > ``range_min_m``.
        range_bin_count: Number of range bins N, >= 1.

    Returns:
        Bin indices in ``[0, N)`` or -1, int64 of the shape of ``range_m`` (0-d for a
        scalar).

    Raises:
        TypeError: If ``range_m`` is not real-valued or a window field has the wrong type.
        ValueError: If the window is not finite, ``range_min_m < 0``, ``range_max_m <=
            range_min_m`` or ``range_bin_count < 1``.
    """
    r_min, r_max, n, width = _range_window(range_min_m, range_max_m, range_bin_count)
    r = np.asarray(range_m)
    if r.dtype.kind not in "iuf":
        raise TypeError(f"range_m: expected real numbers of metres, got an array of {r.dtype}")
    r = r.astype(np.float64, copy=False)
    k = np.full(r.shape, -1, dtype=np.int64)
    inside = (r >= r_min) & (r < r_max)
    # Only in-window values are divided, so NaN and inf never reach the int cast.
    k[inside] = np.minimum(np.floor((r[inside] - r_min) / width).astype(np.int64), n - 1)
    return k


def range_bin_edges(*, range_min_m: float, range_max_m: float, range_bin_count: int) -> np.ndarray:
    """The published nominal edges ``r_min + width * arange(N + 1)`` [m], float64 [N + 1].

    These are the frame's ``metadata["range_bin_edges_m"]`` (part of its content
    hash, so they never change). Each is the nominal edge ``r_min + k * width``
    rounded, not the value at which :func:`range_bin` changes. For ``0 < k < N``,
    ``edges[k]`` lies within 6 ulp of the exact boundary ``b[k]`` of
    :func:`range_bin_boundaries` (both are within ``2u`` resp. ``[-2u, +4u]`` relative
    error of the real ``r_min + k * width``, ``u = 2**-53``; 2 ulp is the most seen),
    and ``edges[N]`` may differ from ``r_max`` by a few ulps. So
    ``np.searchsorted(edges, R, side="right") - 1`` is the sonar's bin for every range
    farther than that from every edge, and may be a neighbouring bin for a range on
    or next to an edge. Use the edges to draw and label bins; re-bin with
    :func:`range_bin` (or search :func:`range_bin_boundaries`).

    Args:
        range_min_m: Near edge of the window r_min [m], finite, >= 0.
        range_max_m: Far edge of the window r_max [m], finite, > ``range_min_m``.
        range_bin_count: Number of range bins N, >= 1.

    Returns:
        Ascending float64 [N + 1]; ``edges[0] == range_min_m``.
    """
    r_min, _, n, width = _range_window(range_min_m, range_max_m, range_bin_count)
    return r_min + width * np.arange(n + 1, dtype=np.float64)


def range_bin_boundaries(
    *, range_min_m: float, range_max_m: float, range_bin_count: int
) -> np.ndarray:
    """The exact float64 values at which :func:`range_bin` changes [m], float64 [N + 1].

    ``b[0] = r_min``, ``b[N] = r_max`` and ``b[k]`` is the smallest float64 ``R`` with
    ``range_bin(R) >= k``; non-decreasing (two are equal only where a bin narrower
    than the float64 spacing there receives no value). For every float64 ``R``,
    ``k = np.searchsorted(b, R, side="right") - 1`` equals ``range_bin(R)`` when
    ``0 <= k < N``, and ``range_bin(R) == -1`` otherwise: bin ``k`` is exactly the
    half-open interval ``[b[k], b[k + 1])``.

    Found by bisection on the bit patterns (non-negative float64 values order like
    their bits read as int64), evaluating :func:`range_bin` itself, so the
    boundaries follow the binning arithmetic whatever its rounding does.

    Args:
        range_min_m: Near edge of the window r_min [m], finite, >= 0.
        range_max_m: Far edge of the window r_max [m], finite, > ``range_min_m``.
        range_bin_count: Number of range bins N, >= 1.

    Returns:
        Non-decreasing float64 [N + 1].
    """
    window = {
        "range_min_m": range_min_m,
        "range_max_m": range_max_m,
        "range_bin_count": range_bin_count,
    }
    r_min, r_max, n, _ = _range_window(range_min_m, range_max_m, range_bin_count)
    bounds = np.empty(n + 1, dtype=np.float64)
    bounds[0], bounds[n] = r_min, r_max
    if n > 1:
        k = np.arange(1, n, dtype=np.int64)
        # Invariant: range_bin(lo) < k (lo starts at r_min, bin 0) and hi is the first
        # value known to reach k (hi starts at r_max, past every bin). ``+ 0.0`` turns
        # a -0.0 window edge into +0.0, whose bits are the smallest non-negative ones.
        lo = np.full(n - 1, r_min + 0.0, dtype=np.float64).view(np.int64)
        hi = np.full(n - 1, r_max, dtype=np.float64).view(np.int64)
        while True:
            open_ = (hi - lo) > 1
            if not open_.any():
                break
            mid = lo + (hi - lo) // 2
            reached = range_bin(mid.view(np.float64), **window) >= k
            hi = np.where(open_ & reached, mid, hi)
            lo = np.where(open_ & ~reached, mid, lo)
        bounds[1:n] = hi.view(np.float64)
    return bounds


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


def accumulate_cells(
    *,
    range_bin_count: int,
    bearing_count: int,
    elevation_count: int,
    top_k: int,
    medium_supported: bool,
    sample_cell: np.ndarray,
    sample_elevation: np.ndarray,
    sample_instance: np.ndarray,
    sample_triangle: np.ndarray,
    sample_range: np.ndarray,
    sample_status: np.ndarray,
    contribution: np.ndarray,
    geometric_weight: np.ndarray,
    geometric_weight_no_absorption: np.ndarray,
) -> dict[str, np.ndarray]:
    """Sums samples into cells and ranks contributors (the output stage).

    Args:
        range_bin_count, bearing_count: Image shape.
        elevation_count: Elevation samples per bearing (at most one sample per cell and elevation).
        top_k: Contributors kept per cell.
        medium_supported: Whether absorption is defined for this ping.
        sample_cell: Flat cell index ``range_bin * bearing_count + bearing``, int64 [n].
        sample_elevation: Elevation index ``j``, int64 [n].
        sample_instance, sample_triangle: Hit identity, int64 [n].
        sample_range: Slant range [m], float64 [n].
        sample_status: Acoustic status code, uint8 [n].
        contribution, geometric_weight, geometric_weight_no_absorption: float64 [n].

    Returns:
        Cell arrays (flat over cells, reshaped by the caller): ``linear_return``,
        ``sample_count``, ``primary_basis``, ``validity``, ``truncation``,
        ``sample_rank`` (rank of each sample in its cell) and ``sample_dominance``.
    """
    cells = range_bin_count * bearing_count
    n = sample_cell.shape[0]
    count = np.bincount(sample_cell, minlength=cells).astype(np.int32)

    status_mask = np.zeros(cells, dtype=np.int64)
    np.bitwise_or.at(status_mask, sample_cell, np.left_shift(1, sample_status.astype(np.int64)))
    known_only = status_mask == (1 << _STATUS_KNOWN)
    nonempty = count > 0

    basis = np.zeros(cells, dtype=np.uint8)
    if medium_supported:
        basis[nonempty & known_only] = BASIS_CONTRIBUTION
        basis[nonempty & ~known_only] = BASIS_GEOMETRIC
    else:
        basis[nonempty] = BASIS_GEOMETRIC_NO_ABSORPTION
    sample_basis = basis[sample_cell]
    dominance = np.where(
        sample_basis == BASIS_CONTRIBUTION,
        contribution,
        np.where(sample_basis == BASIS_GEOMETRIC, geometric_weight, geometric_weight_no_absorption),
    )

    # linear_return: contributions summed in ascending elevation order. Each
    # (cell, elevation) pair holds at most one sample, so the indexed add per
    # elevation has no repeated index and the order is exactly j = 0, 1, ...
    linear_return = np.zeros(cells, dtype=np.float64)
    by_elev = np.argsort(sample_elevation, kind="stable")
    bounds = np.searchsorted(sample_elevation[by_elev], np.arange(elevation_count + 1), side="left")
    for j in range(elevation_count):
        idx = by_elev[bounds[j] : bounds[j + 1]]
        if idx.size:
            linear_return[sample_cell[idx]] += contribution[idx]

    # Deterministic contributor order: dominance (descending), range, elevation,
    # instance, triangle — all ascending — within each cell. A cell holds at most
    # one sample per elevation, so (cell, elevation) is already unique and the
    # instance and triangle keys can never decide: sorting without them gives the
    # same permutation, faster.
    order = np.lexsort((sample_elevation, sample_range, -dominance, sample_cell))
    sorted_cell = sample_cell[order]
    first_of_cell = np.searchsorted(sorted_cell, sorted_cell, side="left")
    rank_sorted = np.arange(n, dtype=np.int64) - first_of_cell
    rank = np.empty(n, dtype=np.int64)
    rank[order] = rank_sorted

    # Share of the return outside the top-K, summed in rank order.
    rest = np.zeros(cells, dtype=np.float64)
    max_rank = int(rank.max()) if n else -1
    for r in range(top_k, max_rank + 1):
        idx = order[rank_sorted == r]
        rest[sample_cell[idx]] += contribution[idx]
    with np.errstate(divide="ignore", invalid="ignore"):
        truncation = np.where(count > top_k, rest / linear_return, 0.0)
    truncation = np.where(np.isfinite(linear_return) & (linear_return > 0.0), truncation, np.nan)
    truncation = np.where(nonempty, truncation, np.nan)

    inst_min = np.full(cells, np.iinfo(np.int64).max, dtype=np.int64)
    inst_max = np.full(cells, -1, dtype=np.int64)
    np.minimum.at(inst_min, sample_cell, sample_instance)
    np.maximum.at(inst_max, sample_cell, sample_instance)

    validity = np.zeros(cells, dtype=np.uint16)
    validity[~nonempty] |= FLAG_EMPTY
    validity[nonempty & np.isfinite(linear_return)] |= FLAG_VALID
    validity[(status_mask & (1 << _STATUS_UNKNOWN)) != 0] |= FLAG_UNKNOWN_MATERIAL
    validity[(status_mask & (1 << _STATUS_UNSUPPORTED)) != 0] |= FLAG_UNSUPPORTED_MATERIAL
    validity[(status_mask & (1 << _STATUS_INTERFACE)) != 0] |= FLAG_SEA_SURFACE
    if not medium_supported:
        validity[nonempty] |= FLAG_UNSUPPORTED_MEDIUM
    # Mixed status: more than one status bit set (only non-empty cells have any).
    occupied = np.nonzero(nonempty)[0]
    occupied_mask = status_mask[occupied]
    popcount = np.zeros(occupied.shape[0], dtype=np.int64)
    for s in range(8):
        popcount += (occupied_mask >> s) & 1
    validity[occupied[popcount > 1]] |= FLAG_MIXED_STATUS
    validity[nonempty & (inst_min != inst_max)] |= FLAG_MULTIPLE_INSTANCES
    validity[count > top_k] |= FLAG_TRUNCATED

    return {
        "linear_return": linear_return,
        "sample_count": count,
        "primary_basis": basis,
        "validity": validity,
        "truncation": truncation,
        "sample_rank": rank,
        "sample_dominance": dominance,
    }
