"""``R(q)`` as nested Python floats: the one scalar rotation of the dynamics.

The integrator, the restoring force, the energy and the controllers all need
``R_world_body`` element by element on Python floats (no BLAS call), with the
arithmetic of :func:`leviathan.frames.rotation_from_quaternion` but without
its validation and array building, which every RK4 stage would pay for. They
share this function so that the order of those operations is written once.
"""

from __future__ import annotations

import math


def rotation_rows_from_quaternion(w: float, x: float, y: float, z: float) -> list[list[float]]:
    """``R_world_body = R(q)`` as nested lists, shape (3, 3), from ``q_world_body``.

    The quaternion ``(w, x, y, z)`` is normalised first, then expanded with the
    arithmetic of :func:`leviathan.frames.rotation_from_quaternion` on Python
    floats, so the result is bit-identical to it.

    Args:
        w, x, y, z: Components of ``q_world_body`` (Hamilton, scalar first), not
            all zero.

    Returns:
        The three rows of ``R_world_body`` as lists of Python floats.
    """
    norm = math.sqrt(((w * w + x * x) + y * y) + z * z)
    if not (norm > 0.0 and math.isfinite(norm)):
        raise ValueError(
            f"attitude_q: {[w, x, y, z]!r} has norm {norm!r}; expected a unit quaternion"
        )
    w, x, y, z = w / norm, x / norm, y / norm, z / norm
    return [
        [1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - z * w), 2.0 * (x * z + y * w)],
        [2.0 * (x * y + z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - x * w)],
        [2.0 * (x * z - y * w), 2.0 * (y * z + x * w), 1.0 - 2.0 * (x * x + y * y)],
    ]
