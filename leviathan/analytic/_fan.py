"""Analytic sonar pictures: the fan (polar to Cartesian) and the B-scan as PNGs.

Not canonical and outside every hash: these are for looking at an analytic image.
The fan is the image's fan raster (:attr:`SonarImage.fan_level_db`), drawn on the one
fan geometry of every fan picture (:func:`leviathan.sonar.display.fan_raster`): the
sensor at the middle of the bottom edge, boresight up and starboard to the right,
one pixel ``range_max_m / height`` metres both ways.

PNGs are drawn with matplotlib's Agg backend: levels in dB re 1 on a colour scale
from ``ceiling - dynamic_range`` to ``ceiling`` (the ceiling is the report's
saturation ceiling), with a labelled colour bar; the fan has range rings and bearing
ticks, the B-scan range and bearing axes. Empty cells are drawn black (below the
scale), cells without a value (NaN radiometry) magenta.
"""

from __future__ import annotations

import io
import math
import os
from typing import TYPE_CHECKING, Literal

import numpy as np

from leviathan._files import write_atomically

if TYPE_CHECKING:
    from leviathan.analytic._sonar_image import SonarImage

__all__ = ["sonar_image_png"]

_MISSING = "#ff00ff"


def sonar_image_png(
    image: SonarImage,
    path: str | os.PathLike[str] | None = None,
    *,
    view: Literal["fan", "bscan"] = "fan",
    dynamic_range_db: float | None = None,
) -> bytes:
    """Draw an analytic image as a PNG: the fan or the B-scan, with a dB colour bar.

    Args:
        image: The analytic image.
        path: If given, the PNG is also written there atomically.
        view: ``"fan"`` (polar to Cartesian, range rings, bearing ticks) or ``"bscan"``
            (range up, bearing across).
        dynamic_range_db: Span of the colour scale [dB] below the ceiling; ``None``
            uses the spec's ``dynamic_range_db``.

    Returns:
        The PNG bytes (no time or software chunks).
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if view not in ("fan", "bscan"):
        raise ValueError(f"view: expected 'fan' or 'bscan', got {view!r}")
    report = image.report
    dr = report.display_dynamic_range_db.value if dynamic_range_db is None else dynamic_range_db
    if not (isinstance(dr, int | float) and math.isfinite(dr) and dr > 0):
        raise ValueError(f"dynamic_range_db: expected a finite span > 0 dB, got {dr!r}")
    top = report.saturation_ceiling_db.value
    top = 0.0 if top is None else float(top)
    vmin, vmax = top - float(dr), top

    fig = Figure(figsize=(8.0, 5.6) if view == "fan" else (7.0, 6.0), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    # Fan: masked pixels (outside the fan, no value) transparent; no-value cells are
    # overlaid in magenta. B-scan: no-value cells are the colour map's "bad" colour.
    bad = (0.0, 0.0, 0.0, 0.0) if view == "fan" else _MISSING
    cmap = matplotlib.colormaps["viridis"].with_extremes(under="black", bad=bad)
    if view == "fan":
        data = _for_display(image.fan_level_db, vmin, outside=~image.fan_inside)
        x0, x1, y0, y1 = image.fan_extent_m
        shown = ax.imshow(
            data, extent=(x0, x1, y0, y1), cmap=cmap, vmin=vmin, vmax=vmax, interpolation="nearest"
        )
        no_value = image.fan_inside & np.isnan(image.fan_level_db)
        if no_value.any():
            overlay = np.zeros((*no_value.shape, 4))
            overlay[no_value] = (1.0, 0.0, 1.0, 1.0)
            ax.imshow(overlay, extent=(x0, x1, y0, y1), interpolation="nearest")
        _rings_and_ticks(ax, image)
        ax.set_xlabel("starboard [m]")
        ax.set_ylabel("forward [m]")
        ax.set_aspect("equal")
        ax.set_facecolor("#202020")
    else:
        data = _for_display(image.level_db, vmin, outside=None)
        b = np.degrees(image.bearing_rad)
        half = 0.5 * (b[1] - b[0]) if b.size > 1 else 0.5 * report.azimuth_fov_deg.value
        edges = image.range_bin_edges_m
        shown = ax.imshow(
            data,
            extent=(b[0] - half, b[-1] + half, edges[0], edges[-1]),
            origin="lower",
            aspect="auto",
            cmap=cmap,
            vmin=vmin,
            vmax=vmax,
            interpolation="nearest",
        )
        ax.set_xlabel("bearing [deg] (starboard +)")
        ax.set_ylabel("slant range [m]")
    bar = fig.colorbar(shown, ax=ax, extend="min")
    bar.set_label("level [dB re 1] (analytic; black: empty, magenta: no value)")
    ax.set_title(f"analytic sonar image ({view}): not a canonical product", fontsize=10, pad=16)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", metadata={"Software": None})
    data_bytes = buffer.getvalue()
    if path is not None:
        write_atomically(path, data_bytes)
    return data_bytes


def _for_display(level: np.ndarray, vmin: float, *, outside: np.ndarray | None) -> np.ndarray:
    """Empty cells (-inf) below the scale; NaN stays NaN (no value); outside the fan masked."""
    shown = np.where(np.isneginf(level), vmin - 1.0, level)
    if outside is not None:
        return np.ma.masked_array(shown, mask=outside | np.isnan(shown))
    return shown


def _rings_and_ticks(ax, image: SonarImage) -> None:
    """Range rings at a round step and bearing ticks every 15 degrees, labelled."""
    report = image.report
    r_max = report.range_max_m.value
    lo = float(image.bearing_rad[0])
    hi = float(image.bearing_rad[-1])
    step = _round_step(r_max / 5.0)
    theta = np.linspace(lo, hi, 181)
    r = step
    while r <= r_max + 1e-9:
        ax.plot(r * np.sin(theta), r * np.cos(theta), color="white", lw=0.5, alpha=0.6)
        ax.text(r * math.sin(hi), r * math.cos(hi), f" {r:g} m", color="white", fontsize=7)
        r += step
    for deg in range(-180, 181, 15):
        a = math.radians(deg)
        if lo - 1e-9 <= a <= hi + 1e-9:
            ax.plot(
                [0.0, r_max * math.sin(a)],
                [0.0, r_max * math.cos(a)],
                color="white",
                lw=0.4,
                alpha=0.5,
            )
            ax.text(
                1.03 * r_max * math.sin(a),
                1.03 * r_max * math.cos(a),
                f"{deg}°",
                color="black",
                fontsize=7,
                ha="center",
                va="bottom",
            )


def _round_step(x: float) -> float:
    """The largest of 1, 2, 5 x 10^k not above ``x``."""
    k = math.floor(math.log10(x))
    for m in (5.0, 2.0, 1.0):
        if m * 10.0**k <= x:
            return m * 10.0**k
    return 10.0**k
