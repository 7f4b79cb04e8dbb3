"""Reference multibeam echosounder: receive-beam geometry and the bottom detector (plain numpy).

Everything here runs on the host for every backend (only tracing is backend
specific), in a fixed written order, with transcendental functions from Python's
``math`` (libm) one value at a time, as :mod:`leviathan.reference_cpu.sonar` does.

**Sensor frame.** FRD: x forward (along-track), y starboard, z down. The swath is
centred on +z. A direction at along-track angle ``psi`` (positive forward) and
across-track angle ``theta`` (positive to starboard) is::

    d = (sin psi, cos psi sin theta, cos psi cos theta)

so beam ``k``'s axis is ``u_k = (0, sin theta_k, cos theta_k)``.

**Beam angles** over the swath ``Theta`` (beam 0 is the port edge, beam N-1 the
starboard edge; one beam looks straight down):

* ``equiangular``: ``theta_k = (Theta/2) (2k - (N-1)) / (N-1)``;
* ``equidistant`` (equal spacing on a flat bottom under a level sensor):
  ``theta_k = atan(tan(Theta/2) (2k - (N-1)) / (N-1))``, so the beams meet a flat
  bottom ``D`` below at ``y_k = D tan(Theta/2) (2k - (N-1)) / (N-1)``, spaced
  ``2 D tan(Theta/2) / (N-1)`` apart, and the swath is ``2 D tan(Theta/2)`` wide.

**Beam widths.** The receive beam's across-track -3 dB full width is ``w_0`` at
nadir and ``w_k = w_0 / cos(theta_k)`` off nadir (a line array steered to
``theta_k`` broadens as ``1 / cos``). The transmit fan's along-track -3 dB full
width is ``w_t`` for every beam.

**Rays of a beam** (the water column's quadrature, built on the shared beam patterns)
are in :mod:`leviathan.sonar._multibeam`.

**Bottom detector** (:func:`detect_bottom`), amplitude detection on the beam's own
return over the range bins ``A_m`` (bin centres ``r_m``):

1. finite, positive returns only; none: ``MISSING_RETURN`` if some bin's return is
   missing (NaN: unknown radiometry or unsupported water), else ``NO_BOTTOM``;
2. the peak bin ``m*`` is the first bin holding the largest return;
3. the peak in dB, ``10 log10(A_m*)``, below ``threshold_db``: ``BELOW_THRESHOLD``;
4. window rule: from ``m*`` outwards on each side, bins are taken while their
   return is finite and ``>= A_m* * 10**(-window_db / 10)``, at most
   ``max_half_window_bins`` on each side;
5. detected slant range ``R = sum(r_m A_m) / sum(A_m)`` over the window, summed
   in ascending bin order; the two-way travel time is ``2 R / c``.

Detection is deterministic: only IEEE ``+ * /`` in a fixed order and
comparisons; ``log10`` once per beam (libm).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from leviathan.reference_cpu.sonar import _inclusive_grid

__all__ = [
    "BEAM_SPACINGS",
    "DETECTION_FLAGS",
    "Detections",
    "beam_angles",
    "beam_axis_directions",
    "beam_widths",
    "detect_bottom",
]

BEAM_SPACINGS = ("equiangular", "equidistant")
"""How the receive beams are spaced across the swath."""

DETECTION_FLAGS: dict[str, int] = {
    "DETECTED": 1,
    "NO_BOTTOM": 2,
    "BELOW_THRESHOLD": 4,
    "MISSING_RETURN": 8,
    "SEA_SURFACE": 16,
    "MOVING_BODY": 32,
    "NONPLANAR_FOOTPRINT": 64,
    "MIXED_FOOTPRINT": 128,
}
"""Bits of a beam's quality flag (uint8). Exactly one of the first four is set by the
detector; ``SEA_SURFACE`` and ``MOVING_BODY`` mark a beam whose axis ray met the sea
surface or a moving body first; the last two describe the beam's -3 dB footprint
(its points not on one straight line within half a range bin; more than one
instance in it): a beam straddling a step or an edge."""


def beam_angles(swath_rad: float, count: int, spacing: str) -> np.ndarray:
    """Across-track beam angles [rad], port to starboard, float64 [count].

    Args:
        swath_rad: Full swath ``Theta`` [rad], in (0, pi).
        count: Number of beams ``N``.
        spacing: ``"equiangular"`` or ``"equidistant"`` (module docstring).
    """
    if spacing not in BEAM_SPACINGS:
        raise ValueError(f"spacing: expected one of {BEAM_SPACINGS}, got {spacing!r}")
    if spacing == "equiangular":
        return _inclusive_grid(swath_rad, count)
    unit = _inclusive_grid(2.0, count)  # (2k - (N-1)) / (N-1), exactly symmetric
    t = math.tan(0.5 * swath_rad)
    return np.array([math.atan(t * u) for u in unit.tolist()], dtype=np.float64)


def beam_widths(nadir_width_rad: float, angles_rad: np.ndarray) -> np.ndarray:
    """Across-track -3 dB full width of each receive beam, ``w_0 / cos(theta_k)`` [rad]."""
    return np.array([nadir_width_rad / math.cos(a) for a in angles_rad.tolist()], dtype=np.float64)


def beam_axis_directions(angles_rad: np.ndarray) -> np.ndarray:
    """Unit beam axes in the sensor frame, ``(0, sin theta, cos theta)``, float64 [N, 3]."""
    out = np.zeros((angles_rad.shape[0], 3), dtype=np.float64)
    out[:, 1] = [math.sin(a) for a in angles_rad.tolist()]
    out[:, 2] = [math.cos(a) for a in angles_rad.tolist()]
    return out


@dataclass(frozen=True, eq=False)
class Detections:
    """The detector's result per beam.

    Attributes:
        range_m: Detected slant range [m], NaN where not detected, float64 [N].
        peak_return: The beam's largest finite return, NaN where none, float64 [N].
        peak_bin: Its range bin, -1 where none, int64 [N].
        window_first_bin, window_last_bin: The bins averaged (inclusive), -1 where
            not detected, int64 [N].
        flag: One of ``DETECTED``, ``NO_BOTTOM``, ``BELOW_THRESHOLD``,
            ``MISSING_RETURN`` (:data:`DETECTION_FLAGS`), uint8 [N].
    """

    __content_type__ = "leviathan.reference_cpu.multibeam.Detections"

    range_m: np.ndarray
    peak_return: np.ndarray
    peak_bin: np.ndarray
    window_first_bin: np.ndarray
    window_last_bin: np.ndarray
    flag: np.ndarray


def detect_bottom(
    beam_return: np.ndarray,
    bin_centre_m: np.ndarray,
    *,
    threshold_db: float,
    window_db: float,
    max_half_window_bins: int,
) -> Detections:
    """Amplitude bottom detection on each beam's return (module docstring, steps 1-5).

    Args:
        beam_return: Relative return per ``[range_bin, beam]``, NaN where missing,
            float64 [M, N].
        bin_centre_m: Range of each bin's centre [m], float64 [M].
        threshold_db: Smallest peak accepted, ``10 log10`` of the return [dB].
        window_db: Bins around the peak are averaged while within this many dB of it.
        max_half_window_bins: At most this many bins on each side of the peak.
    """
    a = np.asarray(beam_return, dtype=np.float64)
    m_count, n = a.shape
    centres = [float(x) for x in np.asarray(bin_centre_m, dtype=np.float64).tolist()]
    floor_factor = math.pow(10.0, -window_db / 10.0)
    out_range = np.full(n, np.nan)
    out_peak = np.full(n, np.nan)
    out_bin = np.full(n, -1, dtype=np.int64)
    first = np.full(n, -1, dtype=np.int64)
    last = np.full(n, -1, dtype=np.int64)
    flag = np.zeros(n, dtype=np.uint8)
    # Steps 1-2 on whole columns, comparisons only: NaN bins never win (they become
    # -inf), and argmax gives the first bin holding the largest value, which is the
    # peak when it is > 0 (a scan keeping the first strictly larger value from 0.0).
    nan = np.isnan(a)
    missing_in = nan.any(axis=0)
    if m_count:
        filled = np.where(nan, -np.inf, a)
        peak_bins = np.argmax(filled, axis=0)
        peaks = filled[peak_bins, np.arange(n)]
    else:
        peak_bins = np.zeros(n, dtype=np.int64)
        peaks = np.full(n, -np.inf)
    peak_list, bin_list, missing_list = peaks.tolist(), peak_bins.tolist(), missing_in.tolist()
    for k in range(n):
        best, m_star = peak_list[k], bin_list[k]
        if not best > 0.0:
            flag[k] = DETECTION_FLAGS["MISSING_RETURN" if missing_list[k] else "NO_BOTTOM"]
            continue
        out_peak[k] = best
        out_bin[k] = m_star
        if 10.0 * math.log10(best) < threshold_db:
            flag[k] = DETECTION_FLAGS["BELOW_THRESHOLD"]
            continue
        floor = best * floor_factor
        # The bins the window may take, as Python floats, indexed by bin.
        reach = max(0, max_half_window_bins)
        start = max(0, m_star - reach)
        near = a[start : min(m_count, m_star + reach + 1), k].tolist()
        lo = m_star
        while lo - 1 >= 0 and m_star - (lo - 1) <= max_half_window_bins:
            v = near[lo - 1 - start]
            if not (v == v and v >= floor):
                break
            lo -= 1
        hi = m_star
        while hi + 1 < m_count and (hi + 1) - m_star <= max_half_window_bins:
            v = near[hi + 1 - start]
            if not (v == v and v >= floor):
                break
            hi += 1
        num, den = 0.0, 0.0
        for m in range(lo, hi + 1):
            num = num + centres[m] * near[m - start]
            den = den + near[m - start]
        out_range[k] = num / den
        first[k], last[k] = lo, hi
        flag[k] = DETECTION_FLAGS["DETECTED"]
    return Detections(out_range, out_peak, out_bin, first, last, flag)
