"""The one fan geometry: which ``[range_bin, bearing]`` cell each pixel of a fan picture shows.

Every fan picture (the canonical display's :func:`~leviathan.sonar.display.fan_pixels`
and the analytic tier's fan raster) is drawn on this raster, so the two agree
pixel for pixel on where a cell lies.

The sensor (apex) sits at the middle of the bottom edge, boresight points up and
starboard is to the right. One pixel spans ``s = range_max_m / height`` metres in
both directions, so the far range edge on the boresight touches the top edge.
Each pixel centre ``(x, y)`` [m] (x starboard, y forward) maps to the cell with

* range ``r = sqrt(x² + y²)``, binned by :func:`leviathan.sonar.range_bin` over the
  window (one bin per image row of the cell grid): the pixel shows the cell a
  return at range ``r`` lands in; outside ``[range_min_m, range_max_m)`` it is
  outside the fan;
* bearing ``atan2(x, y)``, matched to the nearest bearing of the grid (a tie goes
  to the port bearing) when it lies within the grid widened by half a bearing
  spacing on each side (the spacing is ``FOV / (bearing_count - 1)``, or the whole
  FOV for a single bearing).

No transcendental function is evaluated per pixel: the bearing test compares
``x / y`` with the tangents of the cell boundaries, which is equivalent to comparing
``atan2(x, y)`` with them (``y > 0`` at every pixel centre, and every boundary lies
within ±90° because the FOV is below 180°). Per pixel there are only correctly
rounded IEEE operations (``*``, ``+``, ``/``, ``sqrt``) and comparisons; the few
tangents of the boundaries and the sine of the half-angle are ``math`` (libm)
calls on Python floats, never NumPy's SIMD transcendentals, whose last bit can
differ between CPUs.

Height: with ``h`` the half-angle of the widened grid (capped at 90°), the fan spans
``2 * height * sin(h)`` pixels across, so ``height = min(width_px, floor(width_px /
(2 sin h)))``: wide fans fill the width exactly, fans narrower than 60° get a
square image with margins.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from leviathan.sonar._binning import range_bin

__all__ = ["FanRaster", "fan_raster"]


@dataclass(frozen=True, eq=False)
class FanRaster:
    """Where each pixel of a fan picture looks, in the cell grid.

    Attributes:
        range_bin: Range bin per pixel, int [height, width]; -1 outside the range window.
        bearing_index: Nearest bearing per pixel, int [height, width]; meaningful
            only where ``inside``.
        inside: Whether the pixel shows a cell (in the range window and the widened
            bearing grid), bool [height, width].
        scale_m: Size of a pixel [m], both ways.
    """

    range_bin: np.ndarray
    bearing_index: np.ndarray
    inside: np.ndarray
    scale_m: float

    @property
    def shape(self) -> tuple[int, int]:
        """``(height, width)`` [px]."""
        return self.inside.shape  # type: ignore[return-value]

    @property
    def extent_m(self) -> tuple[float, float, float, float]:
        """``(x_min, x_max, y_min, y_max)`` [m] of the raster's outer pixel edges."""
        height, width = self.shape
        return (-0.5 * width * self.scale_m, 0.5 * width * self.scale_m, 0.0, height * self.scale_m)

    def cells(self, values: np.ndarray, outside: object) -> np.ndarray:
        """``values[range_bin, bearing]`` resampled onto the raster, ``outside`` elsewhere.

        Args:
            values: Cell values, [range_bin, bearing, ...] (e.g. float64 levels or
                uint8 RGB).
            outside: The value of pixels outside the fan (broadcast to a pixel).

        Returns:
            An array [height, width, ...] of ``values``' dtype.
        """
        out = np.empty((*self.shape, *values.shape[2:]), dtype=values.dtype)
        out[...] = outside
        out[self.inside] = values[self.range_bin[self.inside], self.bearing_index[self.inside]]
        return out


def fan_raster(
    bearing_rad: np.ndarray,
    *,
    azimuth_fov_rad: float,
    range_min_m: float,
    range_max_m: float,
    range_bin_count: int,
    width_px: int,
) -> FanRaster:
    """The fan raster of a cell grid (see this module's docstring for the geometry).

    Args:
        bearing_rad: Ascending bearings of the grid's columns [rad], float64 [bearing_count].
        azimuth_fov_rad: Full azimuth field of view [rad] (gives a single bearing's spacing).
        range_min_m: Near edge of the range window [m].
        range_max_m: Far edge of the range window [m], > 0.
        range_bin_count: Range bins of the grid (its rows).
        width_px: Raster width [px], >= 2 (callers check their own bounds).

    Returns:
        The raster, ``height`` following from the widened bearing grid.
    """
    bearing_count = bearing_rad.shape[0]
    spacing = azimuth_fov_rad if bearing_count == 1 else azimuth_fov_rad / float(bearing_count - 1)
    lo_rad = float(bearing_rad[0]) - 0.5 * spacing
    hi_rad = float(bearing_rad[-1]) + 0.5 * spacing
    half_angle = min(max(-lo_rad, hi_rad), 0.5 * math.pi)
    height = max(1, min(width_px, math.floor(width_px / (2.0 * math.sin(half_angle)))))
    scale_m = range_max_m / float(height)

    x_m = (np.arange(width_px, dtype=np.float64) + (0.5 - 0.5 * width_px)) * scale_m
    y_m = (np.arange(height, 0, -1, dtype=np.float64) - 0.5) * scale_m
    x, y = np.meshgrid(x_m, y_m)  # [height, width]
    rbin = range_bin(
        np.sqrt(x * x + y * y),
        range_min_m=range_min_m,
        range_max_m=range_max_m,
        range_bin_count=range_bin_count,
    )
    tan_bearing = x / y
    inside = rbin >= 0
    # Bounds at or beyond ±90° exclude nothing in the forward half-plane.
    if lo_rad > -0.5 * math.pi:
        inside &= tan_bearing >= math.tan(lo_rad)
    if hi_rad < 0.5 * math.pi:
        inside &= tan_bearing <= math.tan(hi_rad)
    mid_rad = 0.5 * (bearing_rad[:-1] + bearing_rad[1:])
    tan_mid = np.array([math.tan(m) for m in mid_rad.tolist()], dtype=np.float64)
    # side="left": a pixel exactly on a boundary takes the lower (port) bearing.
    bidx = np.searchsorted(tan_mid, tan_bearing, side="left")
    return FanRaster(range_bin=rbin, bearing_index=bidx, inside=inside, scale_m=scale_m)
