"""Flat grids: the plane and the heightfield, vertices row-major, faces wound to a -z normal."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from leviathan._validation import check_count, check_positive, check_vector
from leviathan.scene import TriangleMesh


def _grid_faces(nx: int, ny: int) -> NDArray[np.int64]:
    """Faces of an ``nx`` x ``ny`` cell grid with row-major vertices (see heightfield_mesh)."""
    row = nx + 1
    v00 = (np.arange(ny, dtype=np.int64)[:, None] * row + np.arange(nx, dtype=np.int64)).ravel()
    v10 = v00 + 1
    v01 = v00 + row
    v11 = v01 + 1
    faces = np.empty((2 * v00.shape[0], 3), dtype=np.int64)
    # Both triangles share the v00-v11 diagonal and wind to a -z (up) normal.
    faces[0::2, 0] = v00
    faces[0::2, 1] = v11
    faces[0::2, 2] = v10
    faces[1::2, 0] = v00
    faces[1::2, 1] = v01
    faces[1::2, 2] = v11
    return faces


def _grid_mesh(
    x_m: NDArray[np.float64], y_m: NDArray[np.float64], z_m: NDArray[np.float64]
) -> TriangleMesh:
    """Grid mesh from x [nx+1], y [ny+1] and z [ny+1, nx+1]; vertex j*(nx+1)+i."""
    ny1, nx1 = z_m.shape
    vertices = np.empty((ny1, nx1, 3), dtype=np.float64)
    vertices[:, :, 0] = x_m[None, :]
    vertices[:, :, 1] = y_m[:, None]
    vertices[:, :, 2] = z_m
    return TriangleMesh(vertices.reshape(-1, 3), _grid_faces(nx1 - 1, ny1 - 1))


def plane_mesh(
    size_x_m: float,
    size_y_m: float,
    *,
    divisions_x: int = 1,
    divisions_y: int = 1,
    center: Sequence[float] = (0.0, 0.0, 0.0),
) -> TriangleMesh:
    """A flat rectangle in the local plane ``z = center[2]``.

    The vertex and triangle layout is that of :func:`heightfield_mesh` with
    ``nx = divisions_x`` and ``ny = divisions_y``: vertex ``j * (nx + 1) + i`` lies
    at ``x = cx + (i / nx - 0.5) * size_x_m``, ``y = cy + (j / ny - 0.5) * size_y_m``
    (so the edges are exactly ``c -/+ size / 2`` before adding the centre), and
    cell ``(i, j)`` holds triangles ``2 * (j * nx + i)`` and ``2 * (j * nx + i) + 1``.
    Normals point to ``-z``.

    Args:
        size_x_m: Extent along x [m], > 0.
        size_y_m: Extent along y [m], > 0.
        divisions_x: Cells along x, >= 1.
        divisions_y: Cells along y, >= 1.
        center: Centre of the rectangle in the object frame [m], 3 numbers.

    Returns:
        A mesh with ``(nx + 1) * (ny + 1)`` vertices and ``2 * nx * ny`` triangles.

    Raises:
        TypeError: If an argument has the wrong type.
        ValueError: If a size is not positive and finite, a division count is
            below 1, or ``center`` is not 3 finite numbers.
    """
    sx = check_positive("size_x_m", size_x_m)
    sy = check_positive("size_y_m", size_y_m)
    nx = check_count("divisions_x", divisions_x, minimum=1)
    ny = check_count("divisions_y", divisions_y, minimum=1)
    cx, cy, cz = check_vector("center", center, 3)
    x = cx + (np.arange(nx + 1, dtype=np.float64) / nx - 0.5) * sx
    y = cy + (np.arange(ny + 1, dtype=np.float64) / ny - 0.5) * sy
    return _grid_mesh(x, y, np.full((ny + 1, nx + 1), cz, dtype=np.float64))


def heightfield_mesh(
    depths_m: ArrayLike,
    *,
    spacing_m: Sequence[float] = (1.0, 1.0),
    origin: Sequence[float] = (0.0, 0.0),
) -> TriangleMesh:
    """Triangulated surface through a regular grid of depths (z, NED, positive down).

    Layout (row-major, like ``depths_m.ravel()``):

    * ``depths_m[j, i]`` is the depth at ``x = x0 + i * dx``, ``y = y0 + j * dy``
      (rows run along y/east, columns along x/north); it becomes vertex
      ``j * (nx + 1) + i`` with its z equal to the input value exactly.
    * Cell ``(i, j)`` (``0 <= i < nx``, ``0 <= j < ny``) has corners
      ``v00 = j * (nx + 1) + i``, ``v10 = v00 + 1``, ``v01 = v00 + nx + 1`` and
      ``v11 = v01 + 1``, and is split along the fixed ``v00``-``v11`` diagonal into
      triangles ``2 * (j * nx + i) = (v00, v11, v10)`` and
      ``2 * (j * nx + i) + 1 = (v00, v01, v11)``, both with normals towards ``-z``.

    Args:
        depths_m: Depths z [m], shape [ny + 1, nx + 1] with ``nx, ny >= 1``,
            finite real values.
        spacing_m: Grid spacing ``(dx, dy)`` [m], both > 0.
        origin: Position ``(x0, y0)`` of vertex ``[0, 0]`` in the object frame [m].

    Returns:
        A mesh with ``(nx + 1) * (ny + 1)`` vertices and ``2 * nx * ny`` triangles.

    Raises:
        TypeError: If ``depths_m`` is not a real numeric array or an option has the
            wrong type.
        ValueError: If ``depths_m`` is not 2-D with at least 2 x 2 values, holds a
            non-finite value, or a spacing is not positive.
    """
    z = np.asarray(depths_m)
    if z.dtype.kind not in "fiu":
        raise TypeError(f"depths_m: expected a real numeric array, got dtype {z.dtype}")
    if z.ndim != 2 or z.shape[0] < 2 or z.shape[1] < 2:
        raise ValueError(
            f"depths_m: expected shape [ny + 1, nx + 1] with at least 2 x 2 values, got {z.shape}"
        )
    z = z.astype(np.float64)
    if not np.all(np.isfinite(z)):
        bad = tuple(int(k) for k in np.argwhere(~np.isfinite(z))[0])
        raise ValueError(f"depths_m: non-finite value {z[bad]!r} at index {bad}")
    dx, dy = check_vector("spacing_m", spacing_m, 2, positive=True)
    x0, y0 = check_vector("origin", origin, 2)
    x = x0 + np.arange(z.shape[1], dtype=np.float64) * dx
    y = y0 + np.arange(z.shape[0], dtype=np.float64) * dy
    return _grid_mesh(x, y, z)
