"""Display products of a :class:`~leviathan.sonar.SonarFrame`.

Everything here is for looking at a frame, never for measuring it: a dB image
relative to the frame's brightest cell, an sRGB range × bearing preview (a
B-scan) and a polar-to-Cartesian fan. Display products have their own identity,
:func:`display_product_hash`, computed over the pixel arrays (so it does not
depend on the PNG encoder or zlib version) behind the display domain prefix of
:mod:`leviathan.identity`. They never enter the frame's ``content_hash``.

Conventions shared by every product:

* The displayed channel is ``speckle_return`` when the frame carries it,
  otherwise ``linear_return``.
* The dynamic range DR [dB] is the ``dynamic_range_db`` argument, or the
  spec's ``dynamic_range_db`` when the argument is ``None``.
* Grey level = ``round((dB + DR) / DR * 255)``, rounding half to even (as
  Python's :func:`round` and :func:`numpy.rint`); 0 dB is white, -DR and empty
  cells are black.
* Missing cells (NaN) are drawn in :data:`MISSING_RGB` (magenta), a colour no
  grey level can take, so a missing value is never mistaken for a dark one.
* Everything is computed with correctly rounded float64 arithmetic in a fixed
  order, so the pixels are bit-identical on every platform.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from typing import Any, Protocol

import numpy as np

from leviathan._files import PNG_COMPRESS_LEVEL, encode_png
from leviathan._validation import check_integer
from leviathan.identity import display_hash
from leviathan.sonar._fan_geometry import FanRaster, fan_raster

__all__ = [
    "FAN_BACKGROUND_RGB",
    "MISSING_RGB",
    "PNG_COMPRESS_LEVEL",
    "DisplayedFrame",
    "FanRaster",
    "db_image",
    "display_product_hash",
    "fan_pixels",
    "fan_png",
    "fan_raster",
    "preview_pixels",
    "preview_png",
]

MISSING_RGB: tuple[int, int, int] = (255, 0, 255)
"""Colour of a cell whose value is missing (NaN): magenta, never a grey level."""

FAN_BACKGROUND_RGB: tuple[int, int, int] = (0, 0, 0)
"""Colour of fan-image pixels outside the field of view or the range window."""


class DisplayedFrame(Protocol):
    """What a display product reads of a frame: a :class:`~leviathan.sonar.SonarFrame`.

    The display functions read only these three mappings, so this module needs
    nothing of the frame's class (which, in turn, offers them as methods).
    """

    @property
    def channels(self) -> Mapping[str, np.ndarray]:
        """Channel arrays by name (``linear_return``, ``speckle_return``, ...)."""

    @property
    def metadata(self) -> Mapping[str, Any]:
        """Grids and the spec (``bearing_rad``, ``range_bin_edges_m``, ``spec``)."""

    @property
    def display(self) -> Mapping[str, Any]:
        """Display settings (``dynamic_range_db``)."""


# --------------------------------------------------------------------------- helpers


def _spec(frame: DisplayedFrame) -> Mapping[str, Any]:
    spec = frame.metadata.get("spec")
    if not isinstance(spec, Mapping):
        raise ValueError(
            "frame.metadata['spec'] is missing or not a mapping; display products need the "
            "ImagingSonarSpec as a JSON dict (spec.model_dump(mode='json'))"
        )
    return spec


def _spec_float(frame: DisplayedFrame, key: str) -> float:
    spec = _spec(frame)
    if key not in spec:
        raise ValueError(f"frame.metadata['spec'] has no {key!r}; display products need it")
    return float(spec[key])


def _resolve_dynamic_range(frame: DisplayedFrame, dynamic_range_db: float | None) -> float:
    source = "dynamic_range_db"
    if dynamic_range_db is None and "dynamic_range_db" in frame.display:
        dynamic_range_db = frame.display["dynamic_range_db"]
        source = "frame.display['dynamic_range_db']"
    if dynamic_range_db is None:
        dynamic_range_db = _spec_float(frame, "dynamic_range_db")
        source = "frame.metadata['spec']['dynamic_range_db']"
    if isinstance(dynamic_range_db, bool) or not isinstance(
        dynamic_range_db, (int, float, np.integer, np.floating)
    ):
        raise TypeError(
            f"{source} must be a real number of decibels, got {type(dynamic_range_db).__name__}"
        )
    dr = float(dynamic_range_db)
    if not (math.isfinite(dr) and dr > 0.0):
        raise ValueError(f"{source} must be finite and > 0 dB, got {dr!r}; try e.g. 60.0")
    return dr


def _display_channel(frame: DisplayedFrame) -> np.ndarray:
    name = "speckle_return" if "speckle_return" in frame.channels else "linear_return"
    if name not in frame.channels:
        raise ValueError("frame has no 'linear_return' channel; nothing to display")
    values = frame.channels[name]
    if values.ndim != 2 or values.dtype != np.float64:
        raise ValueError(
            f"channel {name!r} must be float64 [range_bin, bearing], got "
            f"{values.dtype} with shape {values.shape}"
        )
    bad = ~np.isnan(values) & ~(np.isfinite(values) & (values >= 0.0))
    if bad.any():
        r, b = np.argwhere(bad)[0].tolist()
        raise ValueError(
            f"channel {name!r} holds a negative or infinite value ({values[r, b]!r} at range "
            f"bin {r}, bearing {b}); a linear return is finite and >= 0, NaN where missing"
        )
    return values


def _grey_levels(
    frame: DisplayedFrame, dynamic_range_db: float | None
) -> tuple[np.ndarray, np.ndarray]:
    """Grey level uint8 [range_bin, bearing] and missing mask bool [range_bin, bearing]."""
    dr = _resolve_dynamic_range(frame, dynamic_range_db)
    db = db_image(frame, dynamic_range_db=dr)
    missing = np.isnan(db)
    level = np.rint(((np.where(missing, -dr, db) + dr) / dr) * 255.0)
    return level.astype(np.uint8), missing


def _to_rgb(grey: np.ndarray, missing: np.ndarray) -> np.ndarray:
    rgb = np.repeat(grey[..., None], 3, axis=-1)
    rgb[missing] = MISSING_RGB
    return np.ascontiguousarray(rgb)


# --------------------------------------------------------------------------- public API


def db_image(frame: DisplayedFrame, *, dynamic_range_db: float | None = None) -> np.ndarray:
    """Return the displayed return in dB relative to the frame's brightest cell.

    ``dB = 10 * log10(value / ref)`` with ``ref`` the largest finite positive value
    of the display channel (``speckle_return`` if present, else ``linear_return``),
    clipped to ``[-DR, 0]``. Empty cells (0.0) are ``-DR``; missing cells (NaN) stay
    NaN. If no cell is positive, every non-missing cell is ``-DR``.

    Args:
        frame: The sonar frame.
        dynamic_range_db: Dynamic range DR [dB], finite and > 0; ``None`` uses
            ``frame.metadata["spec"]["dynamic_range_db"]``.

    Returns:
        float64 [range_bin, bearing] in [dB], values in ``[-DR, 0]`` or NaN.

    Raises:
        ValueError: If DR is not finite and positive, the spec is missing, or the
            channel holds a negative or infinite value.
        TypeError: If DR is not a real number.
    """
    dr = _resolve_dynamic_range(frame, dynamic_range_db)
    values = _display_channel(frame)
    out = np.full(values.shape, -dr, dtype=np.float64)
    out[np.isnan(values)] = np.nan
    positive = values > 0.0  # NaN compares False
    if positive.any():
        ref = float(values[positive].max())
        ratio = (values[positive] / ref).tolist()
        # math.log10 per element rather than np.log10: numpy may dispatch to SIMD
        # transcendental kernels whose last bit differs between CPUs.
        log = np.array([math.log10(x) for x in ratio], dtype=np.float64)
        out[positive] = np.clip(10.0 * log, -dr, 0.0)
    return out


def preview_pixels(frame: DisplayedFrame, *, dynamic_range_db: float | None = None) -> np.ndarray:
    """Return the range × bearing preview (B-scan) as sRGB pixels.

    Row 0 (top) is the farthest range bin and the last row the nearest, so near
    range is at the bottom as on a B-scan display; column 0 is the most port
    bearing, the last column the most starboard.

    Args:
        frame: The sonar frame.
        dynamic_range_db: Dynamic range DR [dB]; ``None`` uses the spec's.

    Returns:
        uint8 [range_bin_count, bearing_count, 3] sRGB pixels: grey levels, with
        missing cells in :data:`MISSING_RGB`.
    """
    grey, missing = _grey_levels(frame, dynamic_range_db)
    return _to_rgb(grey[::-1], missing[::-1])


def preview_png(
    frame: DisplayedFrame,
    path: str | os.PathLike[str] | None = None,
    *,
    dynamic_range_db: float | None = None,
) -> bytes:
    """Encode :func:`preview_pixels` as an 8-bit RGB PNG.

    Args:
        frame: The sonar frame.
        path: If given, the PNG is also written there atomically (temp file, then
            ``os.replace``).
        dynamic_range_db: Dynamic range DR [dB]; ``None`` uses the spec's.

    Returns:
        The PNG bytes (no metadata or time chunks; zlib level
        :data:`PNG_COMPRESS_LEVEL`).
    """
    return encode_png(preview_pixels(frame, dynamic_range_db=dynamic_range_db), path)


def fan_pixels(
    frame: DisplayedFrame, *, width_px: int = 512, dynamic_range_db: float | None = None
) -> np.ndarray:
    """Return the polar-to-Cartesian fan image as sRGB pixels.

    Drawn on the one fan geometry (:func:`fan_raster`; its module states it): the
    sensor (apex) at the middle of the bottom edge, boresight up, starboard to the
    right, one pixel ``range_max_m / height`` metres both ways. A pixel shows the
    cell whose range bin is :func:`leviathan.sonar.range_bin` of the pixel centre's
    range over the spec's window (which can differ from searching the rounded
    ``metadata["range_bin_edges_m"]`` within a few ulps of an edge) and whose
    bearing is the nearest of ``metadata["bearing_rad"]`` (a tie goes to the port
    bearing), within the grid widened by half a bearing spacing; only correctly
    rounded arithmetic is evaluated per pixel, so the image is bit-identical across
    platforms. Fans narrower than 60° get a square image with black margins.

    Args:
        frame: The sonar frame.
        width_px: Image width [px], >= 2.
        dynamic_range_db: Dynamic range DR [dB]; ``None`` uses the spec's.

    Returns:
        uint8 [height, width_px, 3] sRGB pixels: grey levels inside the fan,
        :data:`MISSING_RGB` for missing cells, :data:`FAN_BACKGROUND_RGB` outside
        the fan or the range window.

    Raises:
        ValueError: If the metadata grids disagree with the image shape, or a
            parameter is out of range.
    """
    width = check_integer("width_px", width_px, low=2)
    grey, missing = _grey_levels(frame, dynamic_range_db)
    range_bin_count, bearing_count = grey.shape

    bearing_rad = np.asarray(frame.metadata.get("bearing_rad"), dtype=np.float64)
    edges_m = np.asarray(frame.metadata.get("range_bin_edges_m"), dtype=np.float64)
    if bearing_rad.shape != (bearing_count,):
        raise ValueError(
            f"metadata['bearing_rad'] must have shape ({bearing_count},) to match the image, "
            f"got {bearing_rad.shape}"
        )
    if edges_m.shape != (range_bin_count + 1,):
        raise ValueError(
            f"metadata['range_bin_edges_m'] must have shape ({range_bin_count + 1},) to match "
            f"the image, got {edges_m.shape}"
        )
    if np.any(np.diff(bearing_rad) <= 0.0) or np.any(np.diff(edges_m) <= 0.0):
        raise ValueError("metadata['bearing_rad'] and ['range_bin_edges_m'] must be ascending")
    range_max_m = _spec_float(frame, "range_max_m")
    fov_rad = math.radians(_spec_float(frame, "azimuth_fov_deg"))
    if not (range_max_m > 0.0 and math.isfinite(range_max_m)):
        raise ValueError(f"spec range_max_m must be finite and > 0 m, got {range_max_m!r}")
    spec_bins = _spec(frame).get("range_bin_count", range_bin_count)
    if spec_bins != range_bin_count:
        raise ValueError(
            f"frame.metadata['spec']['range_bin_count'] is {spec_bins!r} but the image has "
            f"{range_bin_count} range rows; they must agree"
        )
    # The sonar's own range assignment, so a pixel on a bin edge shows the cell a
    # return at that range was put in (the published edges are rounded nominal values).
    raster = fan_raster(
        bearing_rad,
        azimuth_fov_rad=fov_rad,
        range_min_m=_spec_float(frame, "range_min_m"),
        range_max_m=range_max_m,
        range_bin_count=range_bin_count,
        width_px=width,
    )
    return raster.cells(_to_rgb(grey, missing), FAN_BACKGROUND_RGB)


def fan_png(
    frame: DisplayedFrame,
    path: str | os.PathLike[str] | None = None,
    *,
    width_px: int = 512,
    dynamic_range_db: float | None = None,
) -> bytes:
    """Encode :func:`fan_pixels` as an 8-bit RGB PNG.

    Args:
        frame: The sonar frame.
        path: If given, the PNG is also written there atomically (temp file, then
            ``os.replace``).
        width_px: Image width [px], >= 2; the height follows from the FOV (see
            :func:`fan_pixels`).
        dynamic_range_db: Dynamic range DR [dB]; ``None`` uses the spec's.

    Returns:
        The PNG bytes (no metadata or time chunks; zlib level
        :data:`PNG_COMPRESS_LEVEL`).
    """
    pixels = fan_pixels(frame, width_px=width_px, dynamic_range_db=dynamic_range_db)
    return encode_png(pixels, path)


def display_product_hash(pixels: np.ndarray) -> str:
    """Return the display identity of a pixel array.

    Hashing the pixels rather than the PNG bytes keeps the identity independent of
    the Pillow and zlib versions. The hash uses the display domain, so it never
    equals a content hash and must never be fed into one.

    Args:
        pixels: uint8 [height, width, 3] from :func:`preview_pixels` or
            :func:`fan_pixels`.

    Returns:
        A 64-character lowercase hexadecimal SHA-256 digest.
    """
    pixels = np.asarray(pixels)
    if pixels.dtype != np.uint8 or pixels.ndim != 3 or pixels.shape[-1] != 3:
        raise ValueError(
            f"pixels must be uint8 [height, width, 3], got {pixels.dtype} with shape "
            f"{pixels.shape}; pass the output of preview_pixels or fan_pixels"
        )
    return display_hash(pixels)
