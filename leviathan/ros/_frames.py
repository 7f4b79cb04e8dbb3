"""LEVIATHAN's NED/FRD frames and the ENU/FLU frames ROS expects: every conversion, in one place.

LEVIATHAN reports the world in NED (x north, y east, z down) and bodies and
sensors in FRD (x forward, y starboard, z down). ROS expects the world in ENU
(x east, y north, z up) and bodies in FLU (x forward, y left, z up): REP 103
("Standard Units of Measure and Coordinate Conventions") and REP 105
("Coordinate Frames for Mobile Platforms"). The two are related by fixed
signed permutations::

    world   v_enu = P v_ned     P = [[0, 1, 0], [1, 0, 0], [0, 0, -1]]   x_enu = y_ned,
                                                                         y_enu = x_ned,
                                                                         z_enu = -z_ned
    body    v_flu = D v_frd     D = diag(1, -1, -1)                      (x, -y, -z)

Both are proper rotations (det +1) and their own inverses (``P P = D D = I``), so
every function here converts in both directions. A pose ``T_world_body`` in
NED/FRD becomes ``T_map_base_link`` in ENU/FLU as::

    T_map_base_link = T_map_world_ned @ T_world_body @ T_base_link_frd_base_link
    R_enu_flu = P R_ned_frd D,          t_enu = P t_ned

Exactness. Positions, free vectors, angular rates, twists and rotation
matrices only move and negate components, so they convert exactly (a NaN stays
NaN, ``x`` becomes ``-x`` bit for bit). A quaternion cannot: ``P`` is the 180°
turn about ``(1, 1, 0) / sqrt 2`` and its quaternion holds ``sqrt(1/2)``, so the
ENU/FLU quaternion is ``sqrt(1/2) * (a sum of two components)`` per component,
rounded twice: each component within ``2**-52`` of the exact value (the
quaternion has unit norm), and a NED -> ENU -> NED round trip within
``2**-51``. Wherever exactness matters, use the rotation matrix or the NED/FRD
quaternion (LEVIATHAN's own, exact).

Quaternions: LEVIATHAN writes ``(w, x, y, z)`` (Hamilton, scalar first); ROS
messages order them ``(x, y, z, w)``. Functions say which they take and give.

Acoustic message frames. ``marine_acoustic_msgs`` documents its own sensor
axes: ProjectedSonarImage "The Z-axis is centered in the plane of the fan
("forward"), with X up", Dvl "z-axis in direction DVL is pointing, x-axis
aligned with vehicle forward". Both are the sensor FRD frame turned so that z
is the boresight and x is -z_frd (up for a level forward-looking sonar, vehicle
forward for a DVL looking down with the usual pitch -90° mount)::

    v_acoustic = A v_frd      A = [[0, 0, -1], [0, 1, 0], [1, 0, 0]]   (-z, y, x)

also exact. Unlike ``P`` and ``D``, ``A`` is not its own inverse
(:func:`acoustic_to_frd` undoes it).

ROS time: a stamp is built from the integer nanoseconds only, ``sec = t //
10**9``, ``nanosec = t % 10**9`` (never through float seconds).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from leviathan._frozen import frozen_array
from leviathan._validation import is_integer
from leviathan.frames import Transform

__all__ = [
    "R_ENU_NED",
    "R_FLU_FRD",
    "R_FRD_ACOUSTIC",
    "T_BASE_LINK_FRD",
    "T_MAP_WORLD_NED",
    "acoustic_to_frd",
    "enu_to_ned",
    "flu_to_frd",
    "frd_to_acoustic",
    "frd_to_flu",
    "ned_to_enu",
    "pose_enu_flu_to_ned_frd",
    "pose_ned_frd_to_enu_flu",
    "quaternion_enu_flu_to_ned_frd",
    "quaternion_ned_frd_to_enu_flu",
    "quaternion_to_ros",
    "ros_stamp",
    "rotation_enu_flu_to_ned_frd",
    "rotation_ned_frd_to_enu_flu",
    "twist_frd_to_flu",
]

R_ENU_NED: np.ndarray = frozen_array(
    np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]], dtype=np.float64)
)
"""``P``: maps world NED coordinates to ENU (``v_enu = P v_ned``); its own inverse; read-only."""

R_FLU_FRD: np.ndarray = frozen_array(np.diag([1.0, -1.0, -1.0]).astype(np.float64))
"""``D``: maps body FRD coordinates to FLU (``v_flu = D v_frd``); its own inverse; read-only."""

R_FRD_ACOUSTIC: np.ndarray = frozen_array(
    np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]], dtype=np.float64)
)
"""Maps acoustic-message coordinates to sensor FRD (``v_frd = R v_acoustic``); columns are the
acoustic x (= -z_frd), y (= y_frd) and z (= x_frd, the boresight) axes in FRD; read-only."""

T_MAP_WORLD_NED: Transform = Transform(R_ENU_NED, (0.0, 0.0, 0.0))
"""``map`` (ENU) <- ``world_ned``: same origin (the sea surface above the world origin)."""

T_BASE_LINK_FRD: Transform = Transform(R_FLU_FRD, (0.0, 0.0, 0.0))
"""``<vehicle>/base_link`` (FLU) <- ``<vehicle>/base_link_frd``: same origin (the CG)."""

# sqrt(1/2), correctly rounded: the only inexact constant of the conversions.
_HALF_SQRT2 = math.sqrt(0.5)

# ROS builtin_interfaces/Time holds sec as int32.
_MAX_STAMP_NS = 2**31 * 1_000_000_000 - 1


def _real_array(name: str, value: Any, shape: tuple[int, ...]) -> np.ndarray:
    """``value`` as a float64 array whose trailing axes are ``shape`` (NaN allowed)."""
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name}: expected real numbers, got {value!r}") from error
    # A shorter array's shape has fewer trailing entries, so it never equals ``shape``.
    if array.shape[-len(shape) :] != shape:
        expected = ", ".join(["...", *map(str, shape)])
        raise ValueError(f"{name}: expected shape ({expected}), got shape {array.shape}")
    return array


def _vectors(name: str, value: Any, width: int) -> np.ndarray:
    """``value`` as a float64 array whose last axis has ``width`` entries (NaN allowed)."""
    return _real_array(name, value, (width,))


def _signed_permutation(
    name: str, value: Any, axes: tuple[int, ...], signs: tuple[int, ...]
) -> np.ndarray:
    """``out[..., k] = signs[k] * value[..., axes[k]]``, exact: entries are only moved and negated.

    Args:
        name: Argument name used in error messages.
        value: Coordinates, shape (..., len(axes)).
        axes: Source component of each output component.
        signs: +1 or -1 per output component (negation, never a multiplication, so a
            NaN keeps its payload and ``-0.0`` stays exact).
    """
    v = _vectors(name, value, len(axes))
    out = np.empty(v.shape, dtype=np.float64)
    for k, (axis, sign) in enumerate(zip(axes, signs, strict=True)):
        out[..., k] = v[..., axis] if sign > 0 else -v[..., axis]
    return out


# --------------------------------------------------------------------------- vectors


def ned_to_enu(vectors: Any) -> np.ndarray:
    """World NED coordinates to ENU: ``(x, y, z) -> (y, x, -z)``, exact.

    Applies to points (positions) and to free vectors (velocities, forces) alike.

    Args:
        vectors: NED coordinates, shape (..., 3).

    Returns:
        ENU coordinates, float64, same shape.
    """
    return _signed_permutation("vectors", vectors, (1, 0, 2), (1, 1, -1))


def enu_to_ned(vectors: Any) -> np.ndarray:
    """World ENU coordinates to NED: ``(x, y, z) -> (y, x, -z)``, exact (``P`` is an involution).

    Args:
        vectors: ENU coordinates, shape (..., 3).

    Returns:
        NED coordinates, float64, same shape.
    """
    return ned_to_enu(vectors)


def frd_to_flu(vectors: Any) -> np.ndarray:
    """Body or sensor FRD coordinates to FLU: ``(x, y, z) -> (x, -y, -z)``, exact.

    Applies to points, free vectors and angular rates (a proper rotation turns an
    angular velocity like any vector).

    Args:
        vectors: FRD coordinates, shape (..., 3).

    Returns:
        FLU coordinates, float64, same shape.
    """
    return _signed_permutation("vectors", vectors, (0, 1, 2), (1, -1, -1))


def flu_to_frd(vectors: Any) -> np.ndarray:
    """FLU coordinates to FRD: ``(x, y, z) -> (x, -y, -z)``, exact (``D`` is an involution).

    Args:
        vectors: FLU coordinates, shape (..., 3).

    Returns:
        FRD coordinates, float64, same shape.
    """
    return frd_to_flu(vectors)


def frd_to_acoustic(vectors: Any) -> np.ndarray:
    """Sensor FRD coordinates to the acoustic message frame: ``(x, y, z) -> (-z, y, x)``, exact.

    Args:
        vectors: Sensor FRD coordinates (x along the boresight), shape (..., 3).

    Returns:
        Acoustic-frame coordinates (z along the boresight), float64, same shape.
    """
    return _signed_permutation("vectors", vectors, (2, 1, 0), (-1, 1, 1))


def acoustic_to_frd(vectors: Any) -> np.ndarray:
    """Acoustic message frame coordinates to sensor FRD: ``(x, y, z) -> (z, y, -x)``, exact.

    Args:
        vectors: Acoustic-frame coordinates, shape (..., 3).

    Returns:
        Sensor FRD coordinates, float64, same shape.
    """
    return _signed_permutation("vectors", vectors, (2, 1, 0), (1, 1, -1))


def twist_frd_to_flu(twist: Any) -> np.ndarray:
    """A body twist ``(u, v, w, p, q, r)`` in FRD to FLU: ``(u, -v, -w, p, -q, -r)``, exact.

    Args:
        twist: Linear [m/s] then angular [rad/s] velocity in body FRD, shape (..., 6).

    Returns:
        The same twist in body FLU, float64, same shape. Also converts FLU back to FRD.
    """
    return _signed_permutation("twist", twist, (0, 1, 2, 3, 4, 5), (1, -1, -1, 1, -1, -1))


# --------------------------------------------------------------------------- rotations


def rotation_ned_frd_to_enu_flu(rotation: Any) -> np.ndarray:
    """``R_world_body`` (NED <- FRD) to ``R_map_base_link`` (ENU <- FLU): ``P R D``, exact.

    ``(P R D)[i, j] = p_i d_j R[pi(i), j]`` with ``pi = (1, 0, 2)``, ``p = (1, 1, -1)`` and
    ``d = (1, -1, -1)``: entries are only moved and negated.

    Args:
        rotation: Rotation matrices, shape (..., 3, 3).

    Returns:
        The converted rotations, float64, same shape.
    """
    r = _real_array("rotation", rotation, (3, 3))
    out = np.empty(r.shape, dtype=np.float64)
    for i, (row, row_sign) in enumerate(((1, 1.0), (0, 1.0), (2, -1.0))):
        for j, column_sign in enumerate((1.0, -1.0, -1.0)):
            sign = row_sign * column_sign
            out[..., i, j] = r[..., row, j] if sign > 0 else -r[..., row, j]
    return out


def rotation_enu_flu_to_ned_frd(rotation: Any) -> np.ndarray:
    """``R_map_base_link`` (ENU <- FLU) to ``R_world_body`` (NED <- FRD): ``P R D``, exact.

    Args:
        rotation: Rotation matrices, shape (..., 3, 3).

    Returns:
        The converted rotations, float64, same shape.
    """
    return rotation_ned_frd_to_enu_flu(rotation)


def pose_ned_frd_to_enu_flu(T_world_body: Transform) -> Transform:
    """A body pose in NED/FRD, ``T_world_body``, as ``T_map_base_link`` in ENU/FLU, exact.

    Args:
        T_world_body: Maps body FRD points into world NED.

    Returns:
        ``T_map_world_ned @ T_world_body @ T_base_link_frd.inverse()``: maps base_link
        (FLU) points into map (ENU).

    Raises:
        TypeError: If ``T_world_body`` is not a :class:`~leviathan.frames.Transform`.
    """
    if not isinstance(T_world_body, Transform):
        raise TypeError(
            "T_world_body: expected a leviathan.frames.Transform, got "
            f"{type(T_world_body).__name__}"
        )
    return Transform(
        rotation_ned_frd_to_enu_flu(T_world_body.rotation), ned_to_enu(T_world_body.translation)
    )


def pose_enu_flu_to_ned_frd(T_map_base_link: Transform) -> Transform:
    """A pose ``T_map_base_link`` in ENU/FLU as ``T_world_body`` in NED/FRD, exact.

    Args:
        T_map_base_link: Maps base_link (FLU) points into map (ENU).

    Returns:
        ``T_world_body``, mapping body FRD points into world NED.

    Raises:
        TypeError: If the argument is not a :class:`~leviathan.frames.Transform`.
    """
    if not isinstance(T_map_base_link, Transform):
        raise TypeError(
            "T_map_base_link: expected a leviathan.frames.Transform, got "
            f"{type(T_map_base_link).__name__}"
        )
    return Transform(
        rotation_enu_flu_to_ned_frd(T_map_base_link.rotation),
        enu_to_ned(T_map_base_link.translation),
    )


# --------------------------------------------------------------------------- quaternions


def quaternion_to_ros(quaternion_wxyz: Any) -> np.ndarray:
    """Reorders LEVIATHAN's ``(w, x, y, z)`` into ROS's ``(x, y, z, w)``, exact (no frame change).

    Args:
        quaternion_wxyz: Quaternions, shape (..., 4).

    Returns:
        ``(x, y, z, w)``, float64, same shape.
    """
    q = _vectors("quaternion_wxyz", quaternion_wxyz, 4)
    return np.concatenate([q[..., 1:], q[..., :1]], axis=-1)


def quaternion_ned_frd_to_enu_flu(quaternion_wxyz: Any) -> np.ndarray:
    """``q_world_body`` (NED <- FRD, ``w x y z``) to ``q_map_base_link`` (ENU <- FLU, ROS order).

    ``q' = q_P q q_D`` with ``q_P = (0, s, s, 0)`` (the 180° turn about ``(1, 1, 0) / sqrt 2``)
    and ``q_D = (0, 1, 0, 0)`` (180° about x), ``s = sqrt(1/2)``; written out, and with the
    sign that keeps ``w' = s (w + z)``::

        (x', y', z', w') = s (x + y, x - y, w - z, w + z)

    Each component is rounded twice (the sum, then the product): within ``2**-52`` of exact.

    Args:
        quaternion_wxyz: Unit quaternions ``(w, x, y, z)``, shape (..., 4).

    Returns:
        ``(x, y, z, w)`` of the ENU/FLU rotation, float64, same shape.
    """
    q = _vectors("quaternion_wxyz", quaternion_wxyz, 4)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    out = np.empty(q.shape, dtype=np.float64)
    out[..., 0] = _HALF_SQRT2 * (x + y)
    out[..., 1] = _HALF_SQRT2 * (x - y)
    out[..., 2] = _HALF_SQRT2 * (w - z)
    out[..., 3] = _HALF_SQRT2 * (w + z)
    return out


def quaternion_enu_flu_to_ned_frd(quaternion_xyzw: Any) -> np.ndarray:
    """``q_map_base_link`` (ENU <- FLU, ROS ``x y z w``) to ``q_world_body`` (``w x y z``).

    The inverse of :func:`quaternion_ned_frd_to_enu_flu` (the same product, since ``q_P`` and
    ``q_D`` turn by 180°): ``(w, x, y, z) = s (w' + z', x' + y', x' - y', w' - z')``; a round
    trip returns each component within ``2**-51``.

    Args:
        quaternion_xyzw: Unit quaternions in ROS order, shape (..., 4).

    Returns:
        ``(w, x, y, z)`` of the NED/FRD rotation, float64, same shape.
    """
    q = _vectors("quaternion_xyzw", quaternion_xyzw, 4)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    out = np.empty(q.shape, dtype=np.float64)
    out[..., 0] = _HALF_SQRT2 * (w + z)
    out[..., 1] = _HALF_SQRT2 * (x + y)
    out[..., 2] = _HALF_SQRT2 * (x - y)
    out[..., 3] = _HALF_SQRT2 * (w - z)
    return out


# --------------------------------------------------------------------------- time


def ros_stamp(time_ns: int) -> tuple[int, int]:
    """A ``builtin_interfaces/Time`` ``(sec, nanosec)`` from integer nanoseconds, exact.

    Args:
        time_ns: Time [ns], an int in ``[0, 2**31 * 10**9)`` (``sec`` is an int32).

    Returns:
        ``(time_ns // 10**9, time_ns % 10**9)``.

    Raises:
        TypeError: If ``time_ns`` is not an integer (floats are refused: a float second
            count cannot carry every nanosecond).
        ValueError: If it is negative or too large for an int32 ``sec``.
    """
    if not is_integer(time_ns):
        raise TypeError(
            f"time_ns: expected an integer number of nanoseconds, got {time_ns!r} "
            f"of type {type(time_ns).__name__}"
        )
    t = int(time_ns)
    if not 0 <= t <= _MAX_STAMP_NS:
        raise ValueError(
            f"time_ns: expected 0 <= time_ns < 2**31 s (a ROS stamp's int32 seconds), got {t} ns"
        )
    return t // 1_000_000_000, t % 1_000_000_000
