"""Attitude conventions: ZYX Euler angles, unit quaternions and angle wrapping, float64."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from leviathan._validation import check_finite, float_array
from leviathan.frames._arithmetic import (
    _GIMBAL_LOCK_TOLERANCE,
    _validated_rotation,
)


def wrap_angle(angle: float) -> float:
    """Wrap an angle to the interval (-π, π].

    Args:
        angle: Angle [rad], finite scalar.

    Returns:
        The equivalent angle in (-π, π] [rad]; ``-π`` maps to ``π``.
    """
    value = check_finite("angle", angle)
    # math.remainder is exact (no rounding) and lands in [-π, π].
    wrapped = math.remainder(value, 2.0 * math.pi)
    if wrapped <= -math.pi:
        wrapped += 2.0 * math.pi
    return wrapped


def rotation_from_euler(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """Return ``R_world_body = Rz(yaw) Ry(pitch) Rx(roll)`` in closed form.

    Columns are the body axes expressed in world NED: column 0 is body x
    (forward), column 1 body y (starboard), column 2 body z (down).

    Args:
        roll: Roll φ [rad].
        pitch: Pitch θ [rad].
        yaw: Yaw ψ [rad], from north towards east.

    Returns:
        Rotation matrix, float64, shape (3, 3).
    """
    phi = check_finite("roll", roll)
    theta = check_finite("pitch", pitch)
    psi = check_finite("yaw", yaw)
    c_phi, s_phi = math.cos(phi), math.sin(phi)
    c_theta, s_theta = math.cos(theta), math.sin(theta)
    c_psi, s_psi = math.cos(psi), math.sin(psi)
    return np.array(
        [
            [
                c_psi * c_theta,
                c_psi * s_theta * s_phi - s_psi * c_phi,
                c_psi * s_theta * c_phi + s_psi * s_phi,
            ],
            [
                s_psi * c_theta,
                s_psi * s_theta * s_phi + c_psi * c_phi,
                s_psi * s_theta * c_phi - c_psi * s_phi,
            ],
            [-s_theta, c_theta * s_phi, c_theta * c_phi],
        ],
        dtype=np.float64,
    )


def euler_from_rotation(rotation: Any) -> tuple[float, float, float]:
    """Recover ZYX Euler angles from ``R_world_body``.

    Ranges: pitch in [-π/2, π/2], roll and yaw in (-π, π].

    Gimbal lock: when ``|R[2, 0]|`` is 1 within tolerance, i.e. pitch is ±90°
    and ``cos(pitch) = hypot(R[0, 0], R[1, 0]) <= 1e-9``, only ``yaw - roll``
    (pitch +90°) or ``yaw + roll`` (pitch -90°) is observable. Then roll is set
    to 0, pitch to exactly ±π/2, and the whole rotation about the vertical goes
    into yaw, so ``rotation_from_euler(*euler_from_rotation(R))`` still
    reproduces R.

    Args:
        rotation: Proper rotation matrix, shape (3, 3).

    Returns:
        ``(roll, pitch, yaw)`` [rad] as Python floats.
    """
    r = _validated_rotation("rotation", rotation)
    cos_pitch = math.hypot(float(r[0, 0]), float(r[1, 0]))
    if cos_pitch <= _GIMBAL_LOCK_TOLERANCE:
        pitch = math.copysign(math.pi / 2.0, -float(r[2, 0]))
        roll = 0.0
        # With roll = 0: R[0, 1] = -sin(yaw) and R[1, 1] = cos(yaw) at both ±90°.
        yaw = wrap_angle(math.atan2(-float(r[0, 1]), float(r[1, 1])))
        return roll, pitch, yaw
    pitch = math.atan2(-float(r[2, 0]), cos_pitch)
    roll = wrap_angle(math.atan2(float(r[2, 1]), float(r[2, 2])))
    yaw = wrap_angle(math.atan2(float(r[1, 0]), float(r[0, 0])))
    return roll, pitch, yaw


def quaternion_from_rotation(rotation: Any) -> tuple[float, float, float, float]:
    """Convert a rotation matrix to a unit quaternion.

    Hamilton convention, scalar first: ``q = (w, x, y, z)`` with
    ``R v = q v q*``. The sign is canonical: ``w >= 0``, and when ``w == 0`` the
    first non-zero of ``x, y, z`` is positive. Uses Shepperd's method (branch on
    the largest diagonal term) for accuracy near 180° rotations.

    Args:
        rotation: Proper rotation matrix, shape (3, 3).

    Returns:
        ``(w, x, y, z)`` as Python floats, unit norm.
    """
    r = _validated_rotation("rotation", rotation)
    r00, r01, r02 = (float(v) for v in r[0])
    r10, r11, r12 = (float(v) for v in r[1])
    r20, r21, r22 = (float(v) for v in r[2])
    trace = (r00 + r11) + r22
    if trace > 0.0:
        s = 2.0 * math.sqrt(trace + 1.0)
        w, x, y, z = 0.25 * s, (r21 - r12) / s, (r02 - r20) / s, (r10 - r01) / s
    elif r00 > r11 and r00 > r22:
        s = 2.0 * math.sqrt(((1.0 + r00) - r11) - r22)
        w, x, y, z = (r21 - r12) / s, 0.25 * s, (r01 + r10) / s, (r02 + r20) / s
    elif r11 > r22:
        s = 2.0 * math.sqrt(((1.0 + r11) - r00) - r22)
        w, x, y, z = (r02 - r20) / s, (r01 + r10) / s, 0.25 * s, (r12 + r21) / s
    else:
        s = 2.0 * math.sqrt(((1.0 + r22) - r00) - r11)
        w, x, y, z = (r10 - r01) / s, (r02 + r20) / s, (r12 + r21) / s, 0.25 * s
    norm = math.sqrt(((w * w + x * x) + y * y) + z * z)
    w, x, y, z = w / norm, x / norm, y / norm, z / norm
    first_nonzero_vector = next((v for v in (x, y, z) if v != 0.0), 0.0)
    if w < 0.0 or (w == 0.0 and first_nonzero_vector < 0.0):
        w, x, y, z = -w, -x, -y, -z
    # Adding 0.0 turns a -0.0 component into 0.0 so equal rotations give equal tuples.
    return w + 0.0, x + 0.0, y + 0.0, z + 0.0


def rotation_from_quaternion(quaternion: Any) -> np.ndarray:
    """Convert a quaternion to a rotation matrix.

    Hamilton convention, scalar first ``(w, x, y, z)``. The input is
    normalised first, so any non-zero multiple of a unit quaternion (of
    either sign) gives the same rotation.

    Args:
        quaternion: ``(w, x, y, z)``, shape (4,), finite and non-zero.

    Returns:
        Rotation matrix, float64, shape (3, 3).

    Raises:
        ValueError: If the quaternion has the wrong shape, is non-finite or
            has zero norm.
    """
    q = float_array("quaternion", quaternion, "(4,)")
    if q.shape != (4,):
        raise ValueError(f"quaternion must have shape (4,) as (w, x, y, z), got shape {q.shape}")
    w, x, y, z = (float(v) for v in q)
    norm = math.sqrt(((w * w + x * x) + y * y) + z * z)
    if norm == 0.0:
        raise ValueError(
            f"quaternion must have non-zero norm, got {q.tolist()!r}; "
            "the identity rotation is (1, 0, 0, 0)"
        )
    w, x, y, z = w / norm, x / norm, y / norm, z / norm
    return np.array(
        [
            [1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - z * w), 2.0 * (x * z + y * w)],
            [2.0 * (x * y + z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - x * w)],
            [2.0 * (x * z - y * w), 2.0 * (y * z + x * w), 1.0 - 2.0 * (x * x + y * y)],
        ],
        dtype=np.float64,
    )
