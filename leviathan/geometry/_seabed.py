"""The keyed seabed: grid shape, smooth sinusoid relief and per-vertex roughness."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from leviathan._validation import check_count, check_finite, check_root_seed, check_vector
from leviathan.geometry._grids import _grid_mesh
from leviathan.random import uniform
from leviathan.scene import TriangleMesh

SEABED_COMPONENT_COUNT = 4
"""Number of sinusoids in the smooth seabed relief field."""

SEABED_ROUGHNESS_FRACTION = 0.05
"""Per-vertex roughness amplitude as a fraction of ``relief_m``."""

_SEABED_SENSOR_ID = "seabed"
_TWO_PI = 2.0 * math.pi


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
    count = check_count("triangle_count", triangle_count, minimum=2)
    sx, sy = check_vector("size_m", size_m, 2, positive=True)
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
    sx, sy = check_vector("size_m", size_m, 2, positive=True)
    mean = check_finite("mean_depth_m", mean_depth_m)
    relief = check_finite("relief_m", relief_m)
    if relief < 0.0:
        raise ValueError(f"relief_m: expected a relief amplitude >= 0 m, got {relief!r}")
    seed = check_root_seed("seed", seed)
    x0, y0 = check_vector("origin", origin, 2)
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
