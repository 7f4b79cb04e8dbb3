"""Bathymetry from multibeam soundings: a north/east grid checked against the true seabed.

**Gridding** (:func:`grid_soundings`). Cell ``(i, j)`` holds the soundings with
``floor(north / c) = i0 + i`` and ``floor(east / c) = j0 + j`` (``c`` the cell size,
``i0, j0`` the smallest indices present), so cell edges lie on multiples of ``c``
in world NED and a cell's centre is ``((i0 + i + 1/2) c, (j0 + j + 1/2) c)``. A cell's
depth is the mean of its soundings' ``z`` (world NED, positive down), summed in
sounding order and divided by its count; an empty cell is NaN with count 0.

**Truth** (:func:`true_depth`). The true seabed at a position is the nearest hit
of a vertical ray (``+z``, from above the highest vertex) on the meshes labelled
``"seabed"`` in the scene, through the shared tracing stage; no seabed there is NaN.

**Comparison** (:func:`compare_with_seabed`). The error map is ``grid - truth`` at
the cell centres; RMS and largest absolute error over the cells that have both.
Each sounding is also compared with the true seabed under it: the share whose
``|z - z_true|`` is within IHO S-44 Special Order total vertical uncertainty,
``TVU(d) = sqrt(a^2 + (b d)^2)``, ``a = 0.25 m``, ``b = 0.0075``, ``d`` the true depth.

**Bound.** On a planar seabed ``z = z0 + g_n n + g_e e``, a cell's mean minus the
plane at its centre is ``g_n (mean n - n_c) + g_e (mean e - e_c)`` plus the mean
of its soundings' own vertical errors, so
``|error| <= (|g_n| + |g_e|) c / 2 + max |sounding error|`` (:func:`planar_grid_bound`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from leviathan.raycast import prepare_scene, trace_meshes
from leviathan.scene import Scene

__all__ = [
    "SPECIAL_ORDER_TVU",
    "BathymetryGrid",
    "BathymetryReport",
    "compare_with_seabed",
    "grid_soundings",
    "planar_grid_bound",
    "true_depth",
    "tvu_m",
]

SPECIAL_ORDER_TVU = (0.25, 0.0075)
"""IHO S-44 (6th ed.) Special Order ``(a [m], b [-])`` of ``TVU = sqrt(a^2 + (b d)^2)``."""


def tvu_m(
    depth_m: float, a: float = SPECIAL_ORDER_TVU[0], b: float = SPECIAL_ORDER_TVU[1]
) -> float:
    """Total vertical uncertainty allowed at depth ``d``: ``sqrt(a^2 + (b d)^2)`` [m]."""
    bd = b * float(depth_m)
    return math.sqrt(a * a + bd * bd)


def planar_grid_bound(
    gradient_n: float, gradient_e: float, cell_m: float, sounding_error_m: float
) -> float:
    """The largest grid error on a planar seabed (module docstring) [m]."""
    return (abs(gradient_n) + abs(gradient_e)) * (0.5 * cell_m) + abs(sounding_error_m)


@dataclass(frozen=True, eq=False)
class BathymetryGrid:
    """Gridded soundings.

    Attributes:
        cell_m: Cell size [m].
        first_index: ``(i0, j0)``: the north and east index of cell ``(0, 0)``.
        depth_m: Mean sounding depth per cell [m], NaN where empty, float64 [rows, cols].
        count: Soundings per cell, int64 [rows, cols].
    """

    __content_type__ = "leviathan.multibeam.BathymetryGrid"

    cell_m: float
    first_index: tuple[int, int]
    depth_m: np.ndarray
    count: np.ndarray

    def centres(self) -> tuple[np.ndarray, np.ndarray]:
        """North and east of every cell's centre [m], float64 [rows, cols] each."""
        rows, cols = self.depth_m.shape
        i0, j0 = self.first_index
        north = (np.arange(rows, dtype=np.float64) + (i0 + 0.5)) * self.cell_m
        east = (np.arange(cols, dtype=np.float64) + (j0 + 0.5)) * self.cell_m
        n, e = np.meshgrid(north, east, indexing="ij")
        return n, e


def _check_points(points_ned_m: np.ndarray) -> np.ndarray:
    p = np.asarray(points_ned_m, dtype=np.float64)
    if p.ndim != 2 or p.shape[1] != 3 or p.shape[0] == 0:
        raise ValueError(f"points_ned_m: expected shape [n >= 1, 3], got {p.shape}")
    if not np.all(np.isfinite(p)):
        raise ValueError("points_ned_m: expected finite soundings (drop the undetected beams)")
    return p


def grid_soundings(points_ned_m: np.ndarray, *, cell_m: float) -> BathymetryGrid:
    """Grids soundings in north/east cells (module docstring).

    Args:
        points_ned_m: Soundings in world NED [m], finite, float64 [n, 3].
        cell_m: Cell size [m], finite and > 0.
    """
    if not (isinstance(cell_m, int | float) and math.isfinite(cell_m) and cell_m > 0):
        raise ValueError(f"cell_m: expected a finite cell size > 0 [m], got {cell_m!r}")
    p = _check_points(points_ned_m)
    cell_m = float(cell_m)
    i = np.floor(p[:, 0] / cell_m).astype(np.int64)
    j = np.floor(p[:, 1] / cell_m).astype(np.int64)
    i0, j0 = int(i.min()), int(j.min())
    rows, cols = int(i.max()) - i0 + 1, int(j.max()) - j0 + 1
    if rows * cols > 50_000_000:
        raise ValueError(
            f"cell_m: {cell_m} m gives a {rows} x {cols} grid over the soundings; expected at "
            "most 50,000,000 cells (choose a larger cell)"
        )
    total = [0.0] * (rows * cols)
    count = np.zeros(rows * cols, dtype=np.int64)
    flat = ((i - i0) * cols + (j - j0)).tolist()
    for c, z in zip(flat, p[:, 2].tolist(), strict=True):
        total[c] = total[c] + z
        count[c] += 1
    mean = np.array(total, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(count > 0, mean / count, np.nan)
    return BathymetryGrid(cell_m, (i0, j0), mean.reshape(rows, cols), count.reshape(rows, cols))


def _seabed_scene(scene: Scene) -> Scene:
    seabed = [inst for inst in scene.instances if inst.semantic_label == "seabed"]
    if not seabed:
        raise ValueError(
            f"scene: expected at least one instance labelled 'seabed', got labels "
            f"{sorted({inst.semantic_label for inst in scene.instances})}"
        )
    return Scene(seabed, name=f"{scene.name} seabed")


def true_depth(
    scene: Scene,
    north_m: np.ndarray,
    east_m: np.ndarray,
    *,
    backend: str = "auto",
    device: str | None = None,
) -> np.ndarray:
    """Depth of the true seabed under each position (module docstring), NaN where none [m]."""
    seabed = _seabed_scene(scene)
    prepared = prepare_scene(seabed)
    bounds = prepared.instance_bounds  # padded (min xyz, max xyz) per instance
    top, bottom = float(np.min(bounds[:, 2])) - 1.0, float(np.max(bounds[:, 5])) + 1.0
    n = np.asarray(north_m, dtype=np.float64).ravel()
    e = np.asarray(east_m, dtype=np.float64).ravel()
    o = np.stack([n, e, np.full_like(n, top)], axis=1)
    d = np.zeros_like(o)
    d[:, 2] = 1.0
    hits = trace_meshes(prepared, o, d, t_max=bottom - top, backend=backend, device=device)
    depth = np.where(hits.instance >= 0, top + hits.t, np.nan)
    return depth.reshape(np.shape(north_m))


@dataclass(frozen=True, eq=False)
class BathymetryReport:
    """A grid compared with the true seabed.

    Attributes:
        grid: The gridded soundings.
        true_depth_m: True seabed at the cell centres [m], float64 [rows, cols].
        error_m: ``grid.depth_m - true_depth_m`` [m], NaN where either is missing.
        rms_error_m: RMS of the error over the cells that have one [m].
        max_abs_error_m: Largest absolute cell error [m].
        sounding_count: Soundings gridded.
        sounding_error_m: Each sounding's ``z - z_true`` under it [m], float64 [n].
        special_order_share: Share of soundings within Special Order TVU [-].
    """

    __content_type__ = "leviathan.multibeam.BathymetryReport"

    grid: BathymetryGrid
    true_depth_m: np.ndarray
    error_m: np.ndarray
    rms_error_m: float
    max_abs_error_m: float
    sounding_count: int
    sounding_error_m: np.ndarray
    special_order_share: float

    def figures(self) -> dict[str, float | int]:
        """The report's figures as plain numbers."""
        return {
            "cell_m": self.grid.cell_m,
            "cells_with_soundings": int(np.count_nonzero(self.grid.count)),
            "sounding_count": self.sounding_count,
            "rms_error_m": self.rms_error_m,
            "max_abs_error_m": self.max_abs_error_m,
            "special_order_share": self.special_order_share,
        }


def compare_with_seabed(
    points_ned_m: np.ndarray,
    scene: Scene,
    *,
    cell_m: float,
    backend: str = "auto",
    device: str | None = None,
) -> BathymetryReport:
    """Grids the soundings and compares grid and soundings with the true seabed."""
    p = _check_points(points_ned_m)
    grid = grid_soundings(p, cell_m=cell_m)
    n, e = grid.centres()
    truth = true_depth(scene, n, e, backend=backend, device=device)
    error = grid.depth_m - truth
    have = np.isfinite(error)
    values = error[have].tolist()
    rms = math.sqrt(math.fsum(v * v for v in values) / len(values)) if values else math.nan
    largest = max((abs(v) for v in values), default=math.nan)
    under = true_depth(scene, p[:, 0], p[:, 1], backend=backend, device=device)
    s_err = p[:, 2] - under
    within = 0
    for err, d in zip(s_err.tolist(), under.tolist(), strict=True):
        if err == err and abs(err) <= tvu_m(d):
            within += 1
    return BathymetryReport(
        grid=grid,
        true_depth_m=truth,
        error_m=error,
        rms_error_m=rms,
        max_abs_error_m=largest,
        sounding_count=int(p.shape[0]),
        sounding_error_m=s_err,
        special_order_share=within / p.shape[0],
    )
