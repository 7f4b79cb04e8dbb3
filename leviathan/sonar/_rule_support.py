"""What a frame's truth rules need of the scene: the triangles its top-K names.

:func:`rule_support` is gathered at render time and kept as the frame's
``rule_support``; :func:`support_index` finds a frame's (instance, triangle) pairs in
it. The rules that use it are in :mod:`leviathan.sonar._rebuild`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from leviathan.raycast import PreparedScene
from leviathan.scene import Scene
from leviathan.sonar._physics import _instance_mu, _normal_table

__all__ = ["SUPPORT_NAMES", "VERTICES", "rule_support", "support_index"]

SUPPORT_NAMES = (
    "triangle_row_start",
    "triangle_rows",
    "triangle_normal_world",
    "triangle_v0_world",
    "triangle_e1_world",
    "triangle_e2_world",
    "instance_mu",
    "instance_status",
)
"""The arrays of :func:`rule_support`, in order."""


def rule_support(
    channels: Mapping[str, np.ndarray], *, scene: Scene, prepared: PreparedScene
) -> dict[str, np.ndarray]:
    """What the frame's truth rules need of the scene: the triangles its top-K names.

    Returns:
        ``triangle_row_start`` (int64 [I + 1]: each instance's first row in the ping's
        stacked normal table, the sea surface's one row last), ``triangle_rows`` (int64
        [m], ascending: the rows some top-K slot names), ``triangle_normal_world``
        (float64 [m, 3]: their unit normals in world NED), ``triangle_v0_world``,
        ``triangle_e1_world`` and ``triangle_e2_world`` (float64 [m, 3]: their first
        vertex and edges in world NED [m]; zeros for the sea surface's row, which the
        plane ``z = 0`` stands for), ``instance_mu`` (float64
        [I + 1], NaN where a surface has none) and ``instance_status`` (uint8 [I + 1]).
    """
    table, start = _normal_table(scene, prepared)
    inst = np.asarray(channels["topk_instance"]).reshape(-1)
    tri = np.asarray(channels["topk_triangle"]).reshape(-1)
    named = inst >= 0
    row = _rows(inst[named].astype(np.int64), tri[named].astype(np.int64), start)
    mark = np.zeros(table.shape[0], dtype=bool)
    mark[row] = True
    rows = np.flatnonzero(mark).astype(np.int64)
    vertices = {name: np.zeros((rows.shape[0], 3), dtype=np.float64) for name in VERTICES}
    for k, prep in enumerate(prepared.instances):
        at = np.nonzero((rows >= start[k]) & (rows < start[k + 1]))[0]
        t = rows[at] - start[k]
        for name, field in zip(VERTICES, ("v0", "e1", "e2"), strict=True):
            vertices[name][at] = getattr(prep, field)[t]
    return {
        "triangle_row_start": start.astype(np.int64),
        "triangle_rows": rows,
        "triangle_normal_world": np.ascontiguousarray(table[rows]),
        **vertices,
        "instance_mu": _instance_mu(scene),
        "instance_status": np.asarray(scene.instance_tables["acoustic_status"], dtype=np.uint8),
    }


VERTICES = ("triangle_v0_world", "triangle_e1_world", "triangle_e2_world")


def _rows(inst: np.ndarray, tri: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Row of each (instance, triangle) in the stacked normal table (the sea surface's last)."""
    sea = start.shape[0] - 1
    surface = inst == sea
    return np.where(surface, start[-1], start[np.where(surface, 0, inst)] + tri)


def support_index(inst: np.ndarray, tri: np.ndarray, support: Mapping[str, Any]) -> Any:
    """``(at, arrays)``: the support row of each (instance, triangle) and the support's
    per-triangle arrays by name (and ``sea_surface_instance``); None where the support
    lacks a triangle or is off its layout."""
    try:
        start = np.asarray(support["triangle_row_start"])
        rows = np.asarray(support["triangle_rows"])
        arrays = {n: np.asarray(support[n]) for n in ("triangle_normal_world", *VERTICES)}
    except KeyError:
        return None
    if (
        start.dtype != np.int64
        or rows.dtype != np.int64
        or start.ndim != 1
        or start.shape[0] == 0
        or any(a.dtype != np.float64 or a.shape != (rows.shape[0], 3) for a in arrays.values())
    ):
        return None
    sea = start.shape[0] - 1
    arrays["sea_surface_instance"] = sea
    if inst.size == 0:
        return np.zeros(0, dtype=np.int64), arrays
    if rows.shape[0] == 0 or np.any(inst < 0) or np.any(inst > sea) or np.any(tri < 0):
        return None
    ends = np.append(start[1:], start[-1] + 1)
    row = _rows(inst, tri, start)
    if np.any(row >= ends[inst]):
        return None
    at = _positions(rows, row)
    return None if at is None else (at, arrays)


def _positions(rows: np.ndarray, row: np.ndarray) -> np.ndarray | None:
    """The place of each of ``row`` in the sorted ``rows`` (of equal rows, the first), or
    None where one is not there. Support rows are strictly increasing (each triangle
    once), so a table from row to place finds them in one pass; other ``rows`` (a
    damaged file's) are searched."""
    count = rows.shape[0]
    if 0 < count and rows[0] >= 0 and np.all(rows[1:] > rows[:-1]):
        top = int(rows[-1])
        if top < 16 * (count + row.shape[0]):  # the table stays the size of the inputs
            place = np.full(top + 1, -1, dtype=np.int64)
            place[rows] = np.arange(count, dtype=np.int64)
            at = place[np.minimum(row, top)]
            if np.all(at >= 0) and np.array_equal(rows[at], row):
                return at
            return None
    at = np.minimum(np.searchsorted(rows, row), count - 1)
    return at if np.array_equal(rows[at], row) else None
