"""Closed solids wound outward: box, UV sphere, cylinder and capsule."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np

from leviathan._validation import check_count, check_positive, check_vector
from leviathan.scene import TriangleMesh

_TWO_PI = 2.0 * math.pi


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
    sx, sy, sz = check_vector("size_m", size_m, 3, positive=True)
    cx, cy, cz = check_vector("center", center, 3)
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
    r = check_positive("radius_m", radius_m)
    n = check_count("segments", segments, minimum=3)
    rings = check_count("rings", rings, minimum=2)
    cx, cy, cz = check_vector("center", center, 3)
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
    r = check_positive("radius_m", radius_m)
    half = 0.5 * check_positive("length_m", length_m)
    n = check_count("segments", segments, minimum=3)
    if axis not in ("x", "y", "z"):
        raise ValueError(f'axis: expected "x", "y" or "z", got {axis!r}')
    if not isinstance(capped, bool | np.bool_):
        raise TypeError(f"capped: expected a bool, got {capped!r}")
    c = check_vector("center", center, 3)

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


def capsule_mesh(
    radius_m: float,
    length_m: float,
    *,
    segments: int = 16,
    rings: int = 4,
    axis: Literal["x", "y", "z"] = "x",
    center: Sequence[float] = (0.0, 0.0, 0.0),
) -> TriangleMesh:
    """A cylinder with hemispherical ends (a capsule) along a local axis, outward-wound.

    Built in ``(u, v, w)`` with ``w`` along the axis and mapped to ``(x, y, z)`` as in
    :func:`cylinder_mesh`. With ``h = length_m / 2 - radius_m`` the half length of the
    straight part: vertex 0 is the tip ``w = -(h + r)``; then ``2 * rings`` circles of
    ``segments`` vertices (azimuth ``phi_m = 2 pi m / segments``, ``(u, v) = rho (cos
    phi, sin phi)`` via ``math``): for ``k = 1 .. rings`` the first end's circles at
    polar angle ``theta_k = (pi / 2) k / rings`` from the tip, ``rho = r sin theta_k``,
    ``w = -h - r cos theta_k``, then the second end's in the mirrored order
    (``k = rings .. 1``, ``w = +h + r cos theta_k``); the last vertex is the tip
    ``w = +(h + r)``. Triangles: the first tip's fan, the bands between successive
    circles (two per quad; the band between the two ``theta = pi / 2`` circles is
    the straight part), the last tip's fan, each in azimuth order.

    Args:
        radius_m: Radius of the cylinder and of both hemispheres [m], > 0.
        length_m: Overall length along the axis, both ends included [m], >= 2 * radius_m.
        segments: Vertices per circle, >= 3.
        rings: Circles per hemisphere from tip to equator, >= 1.
        axis: Local axis, ``"x"``, ``"y"`` or ``"z"``.
        center: Centre in the object frame [m], 3 numbers.

    Returns:
        A mesh with ``2 + 2 * rings * segments`` vertices and ``4 * rings * segments``
        triangles.

    Raises:
        TypeError: If an argument has the wrong type.
        ValueError: If a length is not positive and finite, ``length_m < 2 * radius_m``,
            a count is too small, ``axis`` is unknown or ``center`` is not 3 finite numbers.
    """
    r = check_positive("radius_m", radius_m)
    length = check_positive("length_m", length_m)
    if length < 2.0 * r:
        raise ValueError(
            f"length_m: a capsule is at least one diameter long (2 * radius_m = {2.0 * r!r}), "
            f"got {length!r}"
        )
    n = check_count("segments", segments, minimum=3)
    rings = check_count("rings", rings, minimum=1)
    if axis not in ("x", "y", "z"):
        raise ValueError(f'axis: expected "x", "y" or "z", got {axis!r}')
    c = check_vector("center", center, 3)
    h = 0.5 * length - r
    azimuth = [(math.cos(_TWO_PI * m / n), math.sin(_TWO_PI * m / n)) for m in range(n)]
    circles: list[tuple[float, float]] = []  # (rho, w) of each circle, tip to tip
    for k in range(1, rings + 1):
        theta = 0.5 * math.pi * k / rings
        circles.append((r * math.sin(theta), -h - r * math.cos(theta)))
    for k in range(rings, 0, -1):
        theta = 0.5 * math.pi * k / rings
        circles.append((r * math.sin(theta), h + r * math.cos(theta)))
    uvw: list[tuple[float, float, float]] = [(0.0, 0.0, -(h + r))]
    for rho, w in circles:
        uvw.extend((rho * cu, rho * sv, w) for cu, sv in azimuth)
    uvw.append((0.0, 0.0, h + r))
    last = len(uvw) - 1

    faces: list[tuple[int, int, int]] = []
    for m in range(n):
        faces.append((0, 1 + (m + 1) % n, 1 + m))
    for k in range(len(circles) - 1):
        a, b = 1 + k * n, 1 + (k + 1) * n
        for m in range(n):
            m1 = (m + 1) % n
            faces.append((a + m, a + m1, b + m1))
            faces.append((a + m, b + m1, b + m))
    final = 1 + (len(circles) - 1) * n
    for m in range(n):
        faces.append((last, final + m, final + (m + 1) % n))
    local = np.array(uvw, dtype=np.float64)
    order = {"z": (0, 1, 2), "x": (2, 0, 1), "y": (1, 2, 0)}[axis]
    vertices = local[:, list(order)] + np.array(c, dtype=np.float64)
    return TriangleMesh(vertices, np.array(faces, dtype=np.int64))
