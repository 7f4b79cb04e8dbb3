"""Deterministic float64 mesh generators: primitives, heightfields and seabeds.

Every generator is a pure function of its arguments: the same arguments give
bitwise the same vertex and face arrays on every run and every machine. To keep
that promise the module avoids three things:

* numpy transcendentals (``np.sin``, ``np.cos``), whose SIMD code paths differ
  between CPU instruction sets. Angles are evaluated with Python's ``math`` (the
  platform libm, one call per angle) and only exactly rounded numpy operations
  (``+``, ``-``, ``*``, ``/``) touch whole arrays;
* global random state: seabed relief uses keyed randomness
  (:mod:`leviathan.random`), whose uniform draws are exact integer arithmetic;
* mesh processing (trimesh merging, reordering, deduplication): vertex and
  triangle orders are the documented ones below.

All meshes are returned in the object-local frame with NED-like axes: x north
(forward), y east (starboard), z down. Windings follow the right-hand rule:
closed solids wind outward; flat grids (plane, heightfield, seabed) wind so that
their normal points to ``-z`` (up, towards the water column above a seabed).
:class:`~leviathan.scene.TriangleMesh` surfaces are two-sided, so the winding is a
convention for readers and exporters, not something ray casts depend on.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from leviathan._validation import check_root_seed, is_integer
from leviathan.random import uniform
from leviathan.scene import TriangleMesh

__all__ = [
    "SEABED_COMPONENT_COUNT",
    "SEABED_ROUGHNESS_FRACTION",
    "box_mesh",
    "cylinder_mesh",
    "heightfield_mesh",
    "merge_meshes",
    "plane_mesh",
    "seabed_grid_shape",
    "seabed_mesh",
    "uv_sphere_mesh",
]

SEABED_COMPONENT_COUNT = 4
"""Number of sinusoids in the smooth seabed relief field."""

SEABED_ROUGHNESS_FRACTION = 0.05
"""Per-vertex roughness amplitude as a fraction of ``relief_m``."""

_SEABED_SENSOR_ID = "seabed"
_TWO_PI = 2.0 * math.pi


# --------------------------------------------------------------------------- validation


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)


def _finite(value: Any, name: str) -> float:
    if not _is_real(value):
        raise TypeError(f"{name}: expected a real number, got {value!r} ({type(value).__name__})")
    result = float(value)
    if not math.isfinite(result):
        raise ValueError(f"{name}: expected a finite number, got {result!r}")
    return result


def _positive(value: Any, name: str) -> float:
    result = _finite(value, name)
    if not result > 0.0:
        raise ValueError(f"{name}: expected a positive length in metres, got {result!r}")
    return result


def _count(value: Any, name: str, minimum: int) -> int:
    if not is_integer(value):
        raise TypeError(f"{name}: expected an int >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name}: expected an int >= {minimum}, got {int(value)}")
    return int(value)


def _vector(value: Any, name: str, length: int, *, positive: bool = False) -> tuple[float, ...]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence | np.ndarray):
        raise TypeError(f"{name}: expected a sequence of {length} numbers, got {value!r}")
    items = list(value)
    if len(items) != length:
        raise ValueError(f"{name}: expected {length} numbers, got {len(items)} ({value!r})")
    check = _positive if positive else _finite
    return tuple(check(v, f"{name}[{k}]") for k, v in enumerate(items))


# --------------------------------------------------------------------------- grids


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
    sx = _positive(size_x_m, "size_x_m")
    sy = _positive(size_y_m, "size_y_m")
    nx = _count(divisions_x, "divisions_x", 1)
    ny = _count(divisions_y, "divisions_y", 1)
    cx, cy, cz = _vector(center, "center", 3)
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
    dx, dy = _vector(spacing_m, "spacing_m", 2, positive=True)
    x0, y0 = _vector(origin, "origin", 2)
    x = x0 + np.arange(z.shape[1], dtype=np.float64) * dx
    y = y0 + np.arange(z.shape[0], dtype=np.float64) * dy
    return _grid_mesh(x, y, z)


# --------------------------------------------------------------------------- solids


def box_mesh(
    size_m: Sequence[float] = (1.0, 1.0, 1.0),
    *,
    center: Sequence[float] = (0.0, 0.0, 0.0),
) -> TriangleMesh:
    """An axis-aligned box: 8 vertices, 12 outward-wound triangles.

    Vertex ``k`` (0..7) is the corner ``center + (sx * (bx - 0.5), sy * (by - 0.5),
    sz * (bz - 0.5))`` with ``bx = k & 1``, ``by = (k >> 1) & 1``, ``bz = (k >> 2) & 1``.
    Triangles come in pairs per face, in the order -x, +x, -y, +y, -z, +z.

    Args:
        size_m: Edge lengths ``(sx, sy, sz)`` [m], all > 0.
        center: Centre of the box in the object frame [m], 3 numbers.

    Returns:
        The box mesh.

    Raises:
        TypeError: If an argument has the wrong type.
        ValueError: If a size is not positive and finite or ``center`` is not 3
            finite numbers.
    """
    sx, sy, sz = _vector(size_m, "size_m", 3, positive=True)
    cx, cy, cz = _vector(center, "center", 3)
    vertices = np.array(
        [
            (
                cx + sx * ((k & 1) - 0.5),
                cy + sy * (((k >> 1) & 1) - 0.5),
                cz + sz * ((k >> 2) - 0.5),
            )
            for k in range(8)
        ],
        dtype=np.float64,
    )
    faces = np.array(
        [
            (0, 4, 6), (0, 6, 2),  # -x
            (1, 3, 7), (1, 7, 5),  # +x
            (0, 1, 5), (0, 5, 4),  # -y
            (2, 6, 7), (2, 7, 3),  # +y
            (0, 2, 3), (0, 3, 1),  # -z
            (4, 5, 7), (4, 7, 6),  # +z
        ],
        dtype=np.int64,
    )  # fmt: skip
    return TriangleMesh(vertices, faces)


def uv_sphere_mesh(
    radius_m: float,
    *,
    segments: int = 16,
    rings: int = 8,
    center: Sequence[float] = (0.0, 0.0, 0.0),
) -> TriangleMesh:
    """A UV sphere with its poles on the local z axis, outward-wound.

    Vertices: the top pole ``center - (0, 0, r)`` (index 0), then ``rings - 1``
    latitude circles of ``segments`` vertices each (polar angle
    ``theta_k = pi * k / rings`` from the top pole, azimuth
    ``phi_m = 2 pi m / segments`` from +x towards +y), then the bottom pole
    ``center + (0, 0, r)`` (last index). A circle vertex is
    ``center + r * (sin theta cos phi, sin theta sin phi, -cos theta)``, with the
    trigonometry from Python's ``math``. Triangles: the top fan, the bands between
    successive circles (two per quad), the bottom fan, each in azimuth order.

    Args:
        radius_m: Radius [m], > 0.
        segments: Vertices per latitude circle, >= 3.
        rings: Latitude bands from pole to pole, >= 2.
        center: Centre in the object frame [m], 3 numbers.

    Returns:
        A mesh with ``2 + (rings - 1) * segments`` vertices and
        ``2 * segments * (rings - 1)`` triangles.

    Raises:
        TypeError: If an argument has the wrong type.
        ValueError: If ``radius_m`` is not positive and finite, a count is too
            small, or ``center`` is not 3 finite numbers.
    """
    r = _positive(radius_m, "radius_m")
    n = _count(segments, "segments", 3)
    rings = _count(rings, "rings", 2)
    cx, cy, cz = _vector(center, "center", 3)
    azimuth = [(math.cos(_TWO_PI * m / n), math.sin(_TWO_PI * m / n)) for m in range(n)]
    vertices = [(cx, cy, cz - r)]
    for k in range(1, rings):
        theta = math.pi * k / rings
        rho, z = r * math.sin(theta), cz - r * math.cos(theta)
        vertices.extend((cx + rho * c, cy + rho * s, z) for c, s in azimuth)
    vertices.append((cx, cy, cz + r))
    bottom = len(vertices) - 1

    faces: list[tuple[int, int, int]] = []
    for m in range(n):
        faces.append((0, 1 + (m + 1) % n, 1 + m))
    for k in range(rings - 2):
        upper, lower = 1 + k * n, 1 + (k + 1) * n
        for m in range(n):
            m1 = (m + 1) % n
            faces.append((upper + m, upper + m1, lower + m1))
            faces.append((upper + m, lower + m1, lower + m))
    last = 1 + (rings - 2) * n
    for m in range(n):
        faces.append((bottom, last + m, last + (m + 1) % n))
    return TriangleMesh(np.array(vertices, dtype=np.float64), np.array(faces, dtype=np.int64))


def cylinder_mesh(
    radius_m: float,
    length_m: float,
    *,
    segments: int = 16,
    axis: Literal["x", "y", "z"] = "z",
    capped: bool = True,
    center: Sequence[float] = (0.0, 0.0, 0.0),
) -> TriangleMesh:
    """A cylinder centred on ``center`` along a local axis, outward-wound.

    Built in axis-aligned coordinates ``(u, v, w)`` with ``w`` along the axis, then
    mapped by the cyclic (handedness-preserving) permutation ``(x, y, z) = (u, v, w)``
    for axis z, ``(w, u, v)`` for axis x and ``(v, w, u)`` for axis y.

    Vertices: ring ``w = -L/2`` (``segments`` vertices, azimuth
    ``phi_m = 2 pi m / segments``, ``(u, v) = r (cos phi, sin phi)`` via ``math``),
    ring ``w = +L/2``, then if capped the two cap centres (``-L/2`` then ``+L/2``).
    Triangles: ``2 * segments`` side triangles in azimuth order, then if capped the
    ``-L/2`` cap fan and the ``+L/2`` cap fan.

    Args:
        radius_m: Radius [m], > 0.
        length_m: Length along the axis [m], > 0.
        segments: Vertices per ring, >= 3.
        axis: Local axis of the cylinder, ``"x"``, ``"y"`` or ``"z"``.
        capped: Whether to close both ends with flat caps.
        center: Centre in the object frame [m], 3 numbers.

    Returns:
        A mesh with ``2 * segments (+ 2 if capped)`` vertices and
        ``2 * segments (+ 2 * segments if capped)`` triangles.

    Raises:
        TypeError: If an argument has the wrong type.
        ValueError: If a length is not positive and finite, ``segments < 3``,
            ``axis`` is not one of ``"x"``, ``"y"``, ``"z"``, or ``center`` is not 3
            finite numbers.
    """
    r = _positive(radius_m, "radius_m")
    half = 0.5 * _positive(length_m, "length_m")
    n = _count(segments, "segments", 3)
    if axis not in ("x", "y", "z"):
        raise ValueError(f'axis: expected "x", "y" or "z", got {axis!r}')
    if not isinstance(capped, bool | np.bool_):
        raise TypeError(f"capped: expected a bool, got {capped!r}")
    c = _vector(center, "center", 3)

    uvw: list[tuple[float, float, float]] = []
    ring = [(r * math.cos(_TWO_PI * m / n), r * math.sin(_TWO_PI * m / n)) for m in range(n)]
    for w in (-half, half):
        uvw.extend((u, v, w) for u, v in ring)
    faces: list[tuple[int, int, int]] = []
    for m in range(n):
        m1 = (m + 1) % n
        faces.append((m, m1, n + m1))
        faces.append((m, n + m1, n + m))
    if capped:
        uvw.extend([(0.0, 0.0, -half), (0.0, 0.0, half)])
        low, high = 2 * n, 2 * n + 1
        faces.extend((low, (m + 1) % n, m) for m in range(n))
        faces.extend((high, n + m, n + (m + 1) % n) for m in range(n))

    local = np.array(uvw, dtype=np.float64)
    order = {"z": (0, 1, 2), "x": (2, 0, 1), "y": (1, 2, 0)}[axis]
    vertices = local[:, list(order)] + np.array(c, dtype=np.float64)
    return TriangleMesh(vertices, np.array(faces, dtype=np.int64))


# --------------------------------------------------------------------------- seabed


def seabed_grid_shape(triangle_count: int, size_m: Sequence[float]) -> tuple[int, int]:
    """Cell counts ``(nx, ny)`` that :func:`seabed_mesh` uses.

    With ``cells = ceil(triangle_count / 2)`` and the square-cell ideals
    ``ix = sqrt(cells * sx / sy)``, ``iy = sqrt(cells * sy / sx)``, the candidates
    are ``(n, ceil(cells / n))`` for every ``n`` in ``near(ix)`` and
    ``(ceil(cells / m), m)`` for every ``m`` in ``near(iy)``, where ``near(i)`` is
    the integers from ``clamp(floor(0.9 i), 1, cells)`` to
    ``clamp(ceil(1.1 i), that, cells)``. With ``fewest`` the smallest
    ``nx * ny`` among them, the admissible candidates are those with
    ``100 * nx * ny <= 101 * fewest``, and the chosen ``(nx, ny)`` is the
    admissible one that minimises ``(aspect, nx * ny, nx)`` where
    ``aspect = max(sx * ny, sy * nx) / min(sx * ny, sy * nx)`` is the cell's
    long-to-short side ratio: the squarest cells within 1 % of the fewest cells,
    then the fewer cells, then the smaller ``nx``.

    So ``2 * nx * ny >= triangle_count``, ``nx / ny`` follows ``sx / sy``, and
    the excess is in practice at most a few percent from 10**3 triangles up and
    under 1.5 % from 10**4 up.

    Args:
        triangle_count: Requested number of triangles, >= 2.
        size_m: Extent ``(sx, sy)`` [m], both > 0.

    Returns:
        ``(nx, ny)``, both >= 1.

    Raises:
        TypeError: If an argument has the wrong type.
        ValueError: If ``triangle_count < 2`` or a size is not positive and finite.
    """
    count = _count(triangle_count, "triangle_count", 2)
    sx, sy = _vector(size_m, "size_m", 2, positive=True)
    cells = (count + 1) // 2

    def near(ideal: float) -> range:
        low = max(1, min(cells, math.floor(0.9 * ideal)))
        return range(low, max(low, min(cells, math.ceil(1.1 * ideal))) + 1)

    candidates = [(n, -(-cells // n)) for n in near(math.sqrt(cells * sx / sy))]
    candidates += [(-(-cells // m), m) for m in near(math.sqrt(cells * sy / sx))]

    def aspect(shape: tuple[int, int]) -> float:
        # Exactly rounded products and one division only: the same on every machine.
        wide, tall = sx * shape[1], sy * shape[0]
        return max(wide, tall) / min(wide, tall)

    fewest = min(nx * ny for nx, ny in candidates)
    # Trading up to 1 % more cells for squarer cells; integer test, no rounding.
    admissible = [c for c in candidates if 100 * c[0] * c[1] <= 101 * fewest]
    return min(admissible, key=lambda c: (aspect(c), c[0] * c[1], c[0]))


def _sinusoid_field(
    seed: int, x_m: NDArray[np.float64], y_m: NDArray[np.float64], span_m: float
) -> NDArray[np.float64]:
    """Smooth relief field in [-1, 1] on the grid x [nx+1] by y [ny+1], shape [ny+1, nx+1].

    ``sin(a + b) = sin a cos b + cos a sin b`` separates each plane wave into 1-D
    factors, so ``math`` evaluates only ``nx + ny + 2`` angles per wave and numpy
    only multiplies and adds (exactly rounded, hence machine-independent).
    """
    draws = uniform(
        seed, _SEABED_SENSOR_ID, 0, "relief", np.arange(2 * SEABED_COMPONENT_COUNT, dtype=np.int64)
    ).tolist()
    weight_total = float(2**SEABED_COMPONENT_COUNT - 1)
    field = np.zeros((y_m.shape[0], x_m.shape[0]), dtype=np.float64)
    term = np.empty_like(field)
    for j in range(SEABED_COMPONENT_COUNT):
        direction_rad = _TWO_PI * draws[2 * j]
        phase_rad = _TWO_PI * draws[2 * j + 1]
        wavenumber = _TWO_PI * (2**j) / span_m
        amplitude = (2 ** (SEABED_COMPONENT_COUNT - 1 - j)) / weight_total
        kx = wavenumber * math.cos(direction_rad)
        ky = wavenumber * math.sin(direction_rad)
        a = [kx * x + phase_rad for x in x_m.tolist()]
        b = [ky * y for y in y_m.tolist()]
        sin_a = np.array([math.sin(t) for t in a], dtype=np.float64)
        cos_a = np.array([math.cos(t) for t in a], dtype=np.float64)
        sin_b = np.array([math.sin(t) for t in b], dtype=np.float64)
        cos_b = np.array([math.cos(t) for t in b], dtype=np.float64)
        np.multiply(cos_b[:, None], sin_a[None, :], out=term)
        term += sin_b[:, None] * cos_a[None, :]
        term *= amplitude
        field += term
    return field


def seabed_mesh(
    *,
    triangle_count: int,
    size_m: Sequence[float],
    mean_depth_m: float,
    relief_m: float,
    seed: int,
    origin: Sequence[float] = (0.0, 0.0),
) -> TriangleMesh:
    """A generated seabed: a :func:`heightfield_mesh` with smooth keyed relief.

    Grid: ``(nx, ny) = seabed_grid_shape(triangle_count, size_m)`` cells of
    ``dx = sx / nx`` by ``dy = sy / ny``, vertex ``[0, 0]`` at ``origin``; the
    layout and triangle order are those of :func:`heightfield_mesh`, and the actual
    count ``2 * nx * ny >= triangle_count`` is ``mesh.triangle_count``.

    Depth of a vertex at local offsets ``(X, Y) = (x - x0, y - y0)``::

        depth = mean_depth_m + relief_m * (field(X, Y) + 0.05 * (2 u - 1))
        field = sum_j a_j sin(k_j (cos t_j X + sin t_j Y) + p_j),  j = 0..3

    with ``a_j = 2**(3 - j) / 15`` (they sum to 1), ``k_j = 2 pi 2**j / max(sx, sy)``
    (wavelengths of the span, half, quarter and eighth of it), direction
    ``t_j = 2 pi w[2j]`` and phase ``p_j = 2 pi w[2j + 1]`` for
    ``w = uniform(seed, "seabed", 0, "relief", arange(8))``, and per-vertex
    roughness ``u = uniform(seed, "seabed", 0, "roughness", vertex_index)``. The
    field is continuous in ``(X, Y)``: the same seed and size give the same smooth
    surface at every ``triangle_count`` (only its sampling and roughness change),
    wherever ``origin`` puts it. Depths stay within ``mean_depth_m +/- 1.05 *
    relief_m`` (up to rounding).

    Roughness uses keyed uniforms rather than normals: uniform draws are exact
    integer arithmetic (bitwise identical on every machine, and about four times
    faster than Box-Muller at this size), and they keep the depth bounded.

    Args:
        triangle_count: Requested number of triangles, >= 2.
        size_m: Extent ``(sx, sy)`` [m], both > 0.
        mean_depth_m: Mean depth z [m] (NED, positive down), finite.
        relief_m: Relief amplitude [m], finite and >= 0 (0 gives a flat seabed).
        seed: Root seed of the keyed draws, ``0 <= seed < 2**64``.
        origin: Position ``(x0, y0)`` of grid vertex ``[0, 0]`` [m].

    Returns:
        The seabed mesh, ``(nx + 1) * (ny + 1)`` vertices and ``2 * nx * ny``
        triangles.

    Raises:
        TypeError: If an argument has the wrong type.
        ValueError: If an argument is out of range or not finite.
    """
    nx, ny = seabed_grid_shape(triangle_count, size_m)
    sx, sy = _vector(size_m, "size_m", 2, positive=True)
    mean = _finite(mean_depth_m, "mean_depth_m")
    relief = _finite(relief_m, "relief_m")
    if relief < 0.0:
        raise ValueError(f"relief_m: expected a relief amplitude >= 0 m, got {relief!r}")
    seed = check_root_seed("seed", seed)
    x0, y0 = _vector(origin, "origin", 2)
    dx, dy = sx / nx, sy / ny

    local_x = np.arange(nx + 1, dtype=np.float64) * dx
    local_y = np.arange(ny + 1, dtype=np.float64) * dy
    relative = _sinusoid_field(seed, local_x, local_y, max(sx, sy))
    vertex_index = np.arange((nx + 1) * (ny + 1), dtype=np.int64)
    roughness = uniform(seed, _SEABED_SENSOR_ID, 0, "roughness", vertex_index)
    roughness = (roughness * 2.0 - 1.0) * SEABED_ROUGHNESS_FRACTION
    relative += roughness.reshape(ny + 1, nx + 1)
    depths = mean + relative * relief
    return _grid_mesh(x0 + local_x, y0 + local_y, depths)


# --------------------------------------------------------------------------- merge


def merge_meshes(meshes: Sequence[TriangleMesh]) -> TriangleMesh:
    """Concatenates meshes in order into one mesh.

    Vertices of ``meshes[k]`` follow those of ``meshes[:k]`` and its faces are
    offset by their total vertex count; triangles keep their order, so triangle
    ``t`` of ``meshes[k]`` becomes ``t + sum(m.triangle_count for m in meshes[:k])``.
    Nothing is deduplicated.

    Args:
        meshes: One or more meshes.

    Returns:
        The merged mesh.

    Raises:
        TypeError: If ``meshes`` is not a sequence of ``TriangleMesh``.
        ValueError: If ``meshes`` is empty.
    """
    if isinstance(meshes, TriangleMesh) or not isinstance(meshes, Sequence):
        raise TypeError(f"meshes: expected a sequence of TriangleMesh, got {type(meshes).__name__}")
    items = list(meshes)
    if not items:
        raise ValueError("meshes: expected at least one TriangleMesh, got an empty sequence")
    for k, mesh in enumerate(items):
        if not isinstance(mesh, TriangleMesh):
            raise TypeError(f"meshes[{k}]: expected a TriangleMesh, got {type(mesh).__name__}")
    offsets = np.cumsum([0] + [m.vertices.shape[0] for m in items[:-1]], dtype=np.int64)
    vertices = np.concatenate([m.vertices for m in items], axis=0)
    faces = np.concatenate([m.faces + off for m, off in zip(items, offsets, strict=True)], axis=0)
    return TriangleMesh(vertices, faces)
