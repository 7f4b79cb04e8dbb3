"""Binning stage of the imaging sonar: slant ranges to range bins, samples summed into cells.

Range bins (:func:`range_bin`, the one definition: the renderer, the fan display
and anyone re-binning a range call it)::

    width = (r_max - r_min) / N                          # float64
    k     = min(floor((R - r_min) / width), N - 1)       # r_min <= R < r_max, else -1

The published ``metadata["range_bin_edges_m"]`` (:func:`range_bin_edges`,
``r_min + width * arange(N + 1)``) are frozen content but are the nominal edges
rounded, not the values at which ``k`` changes: the two differ by up to a few ulps,
so a range on or next to a printed edge may sit in the bin on either side of it.
:func:`range_bin_boundaries` gives the exact float64 values at which ``k`` changes.

Cell sums (:func:`bin_samples`): a cell ``range_bin * bearing_count + bearing``
holds at most one sample per elevation; ``linear_return`` adds the samples'
contributions in ascending elevation order, exactly ``j = 0, 1, ...``.
"""

from __future__ import annotations

import math

import numpy as np

from leviathan._validation import check_count

__all__ = ["bin_samples", "range_bin", "range_bin_boundaries", "range_bin_edges"]


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
    n = check_count("range_bin_count", range_bin_count, minimum=1)
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


def bin_samples(
    *,
    range_bin_count: int,
    bearing_count: int,
    elevation_count: int,
    sample_cell: np.ndarray,
    sample_elevation: np.ndarray,
    contribution: np.ndarray,
) -> dict[str, np.ndarray]:
    """Sums the integrated samples into their cells.

    Args:
        range_bin_count, bearing_count: Image shape.
        elevation_count: Elevation samples per bearing (at most one sample per cell and elevation).
        sample_cell: Flat cell index ``range_bin * bearing_count + bearing``, int64 [n].
        sample_elevation: Elevation index ``j``, int64 [n].
        contribution: Per-sample contribution, float64 [n].

    Returns:
        Flat over cells (reshaped by the caller): ``sample_count`` int32 and
        ``linear_return`` float64 (0 in empty cells).
    """
    cells = range_bin_count * bearing_count
    count = np.bincount(sample_cell, minlength=cells).astype(np.int32)

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
    return {"sample_count": count, "linear_return": linear_return}
