"""Display products of side-scan lines: the waterfall and the ground-range-corrected waterfall.

For looking, never measuring; each product has its own identity
(:attr:`Waterfall.display_hash`, the display domain of :mod:`leviathan.identity`)
over its kind, the hashes of the lines it shows and its pixels, never part of a
line's ``content_hash``.

* **Waterfall** (:func:`waterfall`): one row per line, the newest at the top; each
  row is the port side with its far range at the left edge, then the starboard
  side from nadir outwards, so nadir is the centre column and the water column
  before the first seabed return (the nadir gap) is a dark band around it. Column
  ``c`` of the ``2N`` columns shows port bin ``N - 1 - c`` for ``c < N``, starboard
  bin ``c - N`` otherwise. The row stack :attr:`Waterfall.values` holds the lines'
  display channel exactly, bit for bit.
* **Ground-range-corrected waterfall** (:func:`ground_range_waterfall`): the same
  with each side resampled onto ``N`` ground-range columns ``g_i = (i + ½) ·
  R_max / N`` from nadir outwards, by the flat-bottom rule processing software
  uses: column ``g`` shows the bin ``range_bin(sqrt(g² + a²))`` of the line's true
  altitude ``a`` (``metadata["altitude_m"]``); beyond the window it is black.

Levels: the displayed channel is ``speckle_return`` when the lines carry it, else
``linear_return``; ``dB = 10 log10(v / ref)`` with ``ref`` the brightest finite
positive cell of the whole waterfall (``math.log10`` per value), clipped to
``[-DR, 0]``; grey ``rint((dB + DR) / DR · 255)``; empty cells black, missing
(NaN) cells magenta (:data:`leviathan.sonar.display.MISSING_RGB`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from leviathan._files import encode_png
from leviathan._frozen import frozen_array
from leviathan.identity import display_hash
from leviathan.side_scan._line import SideScanLine
from leviathan.sonar import range_bin
from leviathan.sonar.display import MISSING_RGB

__all__ = ["Waterfall", "ground_range_waterfall", "waterfall"]


@dataclass(frozen=True, eq=False)
class Waterfall:
    """A stack of side-scan lines for display.

    Attributes:
        kind: ``"slant_range"`` or ``"ground_range"``.
        values: The displayed values, float64 [line, 2N] (newest line first), in the
            column order of the module docstring; NaN missing, and (ground range)
            NaN beyond the window where ``outside`` is set.
        outside: Columns with no cell (ground range beyond the window), bool [line, 2N].
        axis_m: Signed range of each column [m], port negative, float64 [2N].
        line_hashes: ``content_hash`` of each line, newest first.
        dynamic_range_db: DR [dB].
    """

    __content_type__ = "leviathan.side_scan.display.Waterfall"

    kind: str
    values: np.ndarray
    outside: np.ndarray
    axis_m: np.ndarray
    line_hashes: tuple[str, ...]
    dynamic_range_db: float

    @cached_property
    def pixels(self) -> np.ndarray:
        """sRGB uint8 [line, 2N, 3]."""
        dr = self.dynamic_range_db
        v = self.values
        missing = np.isnan(v) & ~self.outside
        positive = v > 0.0
        db = np.full(v.shape, -dr, dtype=np.float64)
        if positive.any():
            ref = float(v[positive].max())
            ratio = (v[positive] / ref).tolist()
            log = np.array([math.log10(x) for x in ratio], dtype=np.float64)
            db[positive] = np.clip(10.0 * log, -dr, 0.0)
        grey = np.rint(((db + dr) / dr) * 255.0).astype(np.uint8)
        rgb = np.repeat(grey[..., None], 3, axis=-1)
        rgb[missing] = MISSING_RGB
        return np.ascontiguousarray(rgb)

    @cached_property
    def display_hash(self) -> str:
        """Display identity: kind, line hashes, dynamic range and pixels."""
        return display_hash(
            {
                "kind": self.kind,
                "line_hashes": list(self.line_hashes),
                "dynamic_range_db": self.dynamic_range_db,
                "pixels": self.pixels,
            }
        )

    def png(self, path: str | os.PathLike[str] | None = None) -> bytes:
        """The waterfall as PNG bytes (written to ``path`` if given)."""
        return encode_png(self.pixels, path)


def _channel(line: SideScanLine) -> np.ndarray:
    name = "speckle_return" if "speckle_return" in line.channels else "linear_return"
    return line.channels[name]


def _check(lines: Sequence[SideScanLine], dynamic_range_db: float | None) -> float:
    if isinstance(lines, SideScanLine) or not isinstance(lines, Sequence) or not lines:
        raise ValueError(f"lines: expected a non-empty sequence of SideScanLine, got {lines!r}")
    for i, line in enumerate(lines):
        if not isinstance(line, SideScanLine):
            raise TypeError(f"lines[{i}]: expected a SideScanLine, got {type(line).__name__}")
    spec = lines[0].metadata["spec"]
    for i, line in enumerate(lines):
        if line.metadata["spec"] != spec:
            raise ValueError(f"lines[{i}]: expected the spec of lines[0] (one sensor's lines)")
    dr = (
        lines[0].display.get("dynamic_range_db", 60.0)
        if dynamic_range_db is None
        else dynamic_range_db
    )
    if (
        isinstance(dr, bool)
        or not isinstance(dr, int | float)
        or not (math.isfinite(dr) and dr > 0)
    ):
        raise ValueError(f"dynamic_range_db: expected a finite number of dB > 0, got {dr!r}")
    return float(dr)


def waterfall(lines: Sequence[SideScanLine], *, dynamic_range_db: float | None = None) -> Waterfall:
    """The slant-range waterfall of ``lines`` (oldest first; shown newest at the top)."""
    dr = _check(lines, dynamic_range_db)
    newest_first = list(lines)[::-1]
    rows = np.stack([_channel(line) for line in newest_first])  # [P, 2, N]
    values = np.concatenate([rows[:, 0, ::-1], rows[:, 1, :]], axis=1)
    edges = np.asarray(lines[0].metadata["range_bin_edges_m"], dtype=np.float64)
    centre = (edges[:-1] + edges[1:]) * 0.5
    axis = np.concatenate([-centre[::-1], centre])
    return Waterfall(
        kind="slant_range",
        values=frozen_array(values),
        outside=frozen_array(np.zeros(values.shape, dtype=bool)),
        axis_m=frozen_array(axis),
        line_hashes=tuple(line.content_hash for line in newest_first),
        dynamic_range_db=dr,
    )


def ground_range_waterfall(
    lines: Sequence[SideScanLine], *, dynamic_range_db: float | None = None
) -> Waterfall:
    """The ground-range-corrected waterfall (flat-bottom rule, each line's true altitude)."""
    dr = _check(lines, dynamic_range_db)
    spec = lines[0].metadata["spec"]
    window = {k: spec[k] for k in ("range_min_m", "range_max_m", "range_bin_count")}
    n = int(spec["range_bin_count"])
    r_max = float(spec["range_max_m"])
    g = (np.arange(n, dtype=np.float64) + 0.5) * (r_max / float(n))
    newest_first = list(lines)[::-1]
    values = np.full((len(newest_first), 2 * n), np.nan, dtype=np.float64)
    outside = np.ones(values.shape, dtype=bool)
    for row, line in enumerate(newest_first):
        a = float(line.metadata["altitude_m"])
        if not math.isfinite(a):
            continue
        k = range_bin(np.sqrt(g * g + a * a), **window)
        ok = k >= 0
        ch = _channel(line)
        port = np.full(n, np.nan)
        star = np.full(n, np.nan)
        port[ok] = ch[0, k[ok]]
        star[ok] = ch[1, k[ok]]
        values[row] = np.concatenate([port[::-1], star])
        outside[row] = np.concatenate([~ok[::-1], ~ok])
    return Waterfall(
        kind="ground_range",
        values=frozen_array(values),
        outside=frozen_array(outside),
        axis_m=frozen_array(np.concatenate([-g[::-1], g])),
        line_hashes=tuple(line.content_hash for line in newest_first),
        dynamic_range_db=dr,
    )
