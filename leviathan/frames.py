"""Coordinate frames, rigid transforms and attitude conventions.

Frames (all right-handed, lengths in metres, values float64):

* world: NED, x north, y east, z down, origin at the sea surface;
* body: FRD, x forward, y starboard, z down, origin at the centre of gravity;
* camera: OpenCV optical, x right, y down, z forward along the optical axis;
* sensor (acoustic and inertial): FRD, x along the boresight, y starboard, z down.

A transform ``T_A_B`` maps a point expressed in frame B into frame A::

    p_A = R_A_B p_B + t_A_B        T_A_C = T_A_B @ T_B_C        T_B_A = T_A_B.inverse()

Attitude is roll φ, pitch θ, yaw ψ [rad] applied in ZYX order:
``R_world_body = Rz(ψ) Ry(θ) Rx(φ)``.

Arithmetic order is part of the contract. Every product of a rotation with a
vector or with another rotation is written out element by element in a fixed
order, ``out_i = ((R_i0 * v_0 + R_i1 * v_1) + R_i2 * v_2) + t_i``, with separate
IEEE multiplies and adds. ``@``, ``np.dot``, ``np.matmul``, ``einsum`` and
``np.sum`` are not used on these paths because they may reorder or fuse
operations (BLAS blocking, FMA). A GPU backend reproduces the same order, so
results are bit-for-bit identical between backends.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np

from leviathan._frozen import frozen_array

__all__ = [
    "R_CAMERA_SENSOR",
    "R_SENSOR_CAMERA",
    "T_SENSOR_CAMERA",
    "Transform",
    "euler_from_rotation",
    "quaternion_from_rotation",
    "rotation_from_euler",
    "rotation_from_quaternion",
    "sensor_pose",
    "wrap_angle",
]

# Largest accepted max |R^T R - I| for a rotation matrix.
_ORTHONORMAL_TOLERANCE = 1e-9
# Gimbal lock is declared when cos(pitch) = hypot(R[0,0], R[1,0]) is at or below
# this. Measuring cos(pitch) rather than 1 - |R[2,0]| keeps the test well
# conditioned: near ±90° a change of ε in pitch moves R[2,0] only by ε²/2.
_GIMBAL_LOCK_TOLERANCE = 1e-9


# --------------------------------------------------------------------------- validation


def _finite_scalar(name: str, value: Any) -> float:
    """Return ``value`` as a float, or raise naming ``name``."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{name} must be a real number [rad or m], got {value!r} of type {type(value).__name__}"
        )
    result = float(value)
    if not math.isfinite(result):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return result


def _float_array(name: str, value: Any, expected: str) -> np.ndarray:
    """Convert ``value`` to a float64 array, refusing non-numeric and non-finite input."""
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError) as error:  # ragged nested lists
        raise ValueError(
            f"{name} must be an array of real numbers with shape {expected}, got {value!r}"
        ) from error
    if raw.dtype.kind not in "iuf":
        raise ValueError(
            f"{name} must hold real numbers (int or float) with shape {expected}, "
            f"got dtype {raw.dtype} from {value!r}"
        )
    array = raw.astype(np.float64, copy=True)
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite, got {array.tolist()!r}")
    return array


def _validated_rotation(name: str, value: Any) -> np.ndarray:
    """Return a float64 (3, 3) copy of ``value`` after checking it is a proper rotation."""
    rotation = _float_array(name, value, "(3, 3)")
    if rotation.shape != (3, 3):
        raise ValueError(f"{name} must have shape (3, 3), got shape {rotation.shape}")
    gram = _compose_rotations(rotation.T, rotation)
    error = float(np.max(np.abs(gram - np.eye(3))))
    if error > _ORTHONORMAL_TOLERANCE:
        raise ValueError(
            f"{name} must be orthonormal (max |R^T R - I| <= {_ORTHONORMAL_TOLERANCE:g}), "
            f"got max |R^T R - I| = {error:.3g} for {rotation.tolist()!r}; "
            "re-orthonormalise it or build it with rotation_from_euler/rotation_from_quaternion"
        )
    determinant = _determinant(rotation)
    if determinant < 0.0:
        raise ValueError(
            f"{name} must be a proper rotation with determinant +1, got determinant "
            f"{determinant:.6g} (a reflection) for {rotation.tolist()!r}; "
            "check the handedness of the axes"
        )
    return rotation


def _validated_translation(name: str, value: Any) -> np.ndarray:
    translation = _float_array(name, value, "(3,)")
    if translation.shape != (3,):
        raise ValueError(f"{name} must have shape (3,) [m], got shape {translation.shape}")
    return translation


def _validated_vectors(name: str, value: Any) -> np.ndarray:
    vectors = _float_array(name, value, "(3,) or (N, 3)")
    if not (vectors.ndim in (1, 2) and vectors.shape[-1] == 3):
        raise ValueError(f"{name} must have shape (3,) or (N, 3), got shape {vectors.shape}")
    return vectors


def _read_only(array: np.ndarray) -> np.ndarray:
    # Over immutable bytes, not just flagged: setflags(write=True) cannot undo it.
    return frozen_array(array)


# --------------------------------------------------------------------------- ordered arithmetic


def _determinant(m: np.ndarray) -> float:
    """Determinant by cofactor expansion along the first row, in written order."""
    return float(
        (
            m[0, 0] * (m[1, 1] * m[2, 2] - m[1, 2] * m[2, 1])
            - m[0, 1] * (m[1, 0] * m[2, 2] - m[1, 2] * m[2, 0])
        )
        + m[0, 2] * (m[1, 0] * m[2, 1] - m[1, 1] * m[2, 0])
    )


def _rotate(rotation: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """Return ``R v`` for v of shape (3,) or (N, 3), in the contract order."""
    x = vectors[..., 0]
    y = vectors[..., 1]
    z = vectors[..., 2]
    out = np.empty(vectors.shape, dtype=np.float64)
    for i in range(3):
        out[..., i] = (rotation[i, 0] * x + rotation[i, 1] * y) + rotation[i, 2] * z
    return out


def _transform_points(
    rotation: np.ndarray, translation: np.ndarray, points: np.ndarray
) -> np.ndarray:
    """Return ``R p + t`` for p of shape (3,) or (N, 3), in the contract order."""
    x = points[..., 0]
    y = points[..., 1]
    z = points[..., 2]
    out = np.empty(points.shape, dtype=np.float64)
    for i in range(3):
        out[..., i] = (
            (rotation[i, 0] * x + rotation[i, 1] * y) + rotation[i, 2] * z
        ) + translation[i]
    return out


def _compose_rotations(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Return ``A B`` with ``C_ij = (A_i0 B_0j + A_i1 B_1j) + A_i2 B_2j``."""
    out = np.empty((3, 3), dtype=np.float64)
    for i in range(3):
        for j in range(3):
            out[i, j] = (a[i, 0] * b[0, j] + a[i, 1] * b[1, j]) + a[i, 2] * b[2, j]
    return out


# --------------------------------------------------------------------------- Transform


class Transform:
    """Immutable rigid transform ``T_A_B`` mapping points of frame B into frame A.

    ``p_A = R_A_B p_B + t_A_B``. Composition chains on the shared frame:
    ``T_A_B @ T_B_C -> T_A_C``.

    Args:
        rotation: Rotation ``R_A_B``, shape (3, 3). Must be orthonormal
            (max |R^T R - I| <= 1e-9) with determinant +1.
        translation: Origin of frame B expressed in frame A [m], shape (3,).

    Raises:
        ValueError: If either argument has the wrong shape, is non-finite, or
            ``rotation`` is not a proper rotation.

    Attributes:
        rotation: Read-only float64 array, shape (3, 3).
        translation: Read-only float64 array [m], shape (3,).
    """

    __slots__ = ("_rotation", "_translation")

    _rotation: np.ndarray
    _translation: np.ndarray

    def __init__(self, rotation: Any, translation: Any = (0.0, 0.0, 0.0)) -> None:
        object.__setattr__(self, "_rotation", _read_only(_validated_rotation("rotation", rotation)))
        object.__setattr__(
            self, "_translation", _read_only(_validated_translation("translation", translation))
        )

    @classmethod
    def _trusted(cls, rotation: np.ndarray, translation: np.ndarray) -> Transform:
        """Build from arrays produced by ordered arithmetic on valid transforms."""
        transform = object.__new__(cls)
        object.__setattr__(transform, "_rotation", _read_only(rotation))
        object.__setattr__(transform, "_translation", _read_only(translation))
        return transform

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Transform is immutable; cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Transform is immutable; cannot delete {name!r}")

    @property
    def rotation(self) -> np.ndarray:
        """Rotation ``R_A_B``, read-only float64, shape (3, 3)."""
        return self._rotation

    @property
    def translation(self) -> np.ndarray:
        """Translation ``t_A_B`` [m], read-only float64, shape (3,)."""
        return self._translation

    @classmethod
    def identity(cls) -> Transform:
        """Return the identity transform."""
        return cls._trusted(np.eye(3), np.zeros(3))

    @classmethod
    def from_euler(
        cls,
        roll: float,
        pitch: float,
        yaw: float,
        *,
        translation: Any = (0.0, 0.0, 0.0),
    ) -> Transform:
        """Build a transform from ZYX Euler angles and a translation.

        Args:
            roll: Roll φ [rad].
            pitch: Pitch θ [rad].
            yaw: Yaw ψ [rad].
            translation: Translation [m], shape (3,).

        Returns:
            ``Transform(rotation_from_euler(roll, pitch, yaw), translation)``.
        """
        return cls(rotation_from_euler(roll, pitch, yaw), translation)

    @classmethod
    def from_matrix(cls, matrix: Any) -> Transform:
        """Build a transform from a homogeneous matrix.

        Args:
            matrix: ``[[R, t], [0, 0, 0, 1]]``, shape (4, 4); the bottom row must
                be exactly ``[0, 0, 0, 1]``.

        Raises:
            ValueError: On a wrong shape, non-finite values, a bad bottom row or
                an improper rotation block.
        """
        m = _float_array("matrix", matrix, "(4, 4)")
        if m.shape != (4, 4):
            raise ValueError(f"matrix must have shape (4, 4), got shape {m.shape}")
        if not np.array_equal(m[3], [0.0, 0.0, 0.0, 1.0]):
            raise ValueError(
                f"matrix must have bottom row [0, 0, 0, 1] (a rigid transform), got {m[3].tolist()}"
            )
        return cls(m[:3, :3], m[:3, 3])

    @property
    def matrix(self) -> np.ndarray:
        """Homogeneous matrix ``[[R, t], [0, 0, 0, 1]]``, a writable float64 copy, shape (4, 4)."""
        m = np.zeros((4, 4), dtype=np.float64)
        m[:3, :3] = self._rotation
        m[:3, 3] = self._translation
        m[3, 3] = 1.0
        return m

    def __matmul__(self, other: Transform) -> Transform:
        """Compose ``T_A_B @ T_B_C -> T_A_C`` (``R = R_AB R_BC``, ``t = R_AB t_BC + t_AB``)."""
        if not isinstance(other, Transform):
            return NotImplemented
        rotation = _compose_rotations(self._rotation, other._rotation)
        translation = _transform_points(self._rotation, self._translation, other._translation)
        return Transform._trusted(rotation, translation)

    def inverse(self) -> Transform:
        """Return ``T_B_A`` (``R^T``, ``-R^T t``)."""
        rotation_t = self._rotation.T.copy()
        translation = -_rotate(rotation_t, self._translation)
        return Transform._trusted(rotation_t, translation)

    def apply_point(self, points: Any) -> np.ndarray:
        """Map points from frame B into frame A: ``p_A = R p_B + t``.

        Computed as ``((R_i0 x + R_i1 y) + R_i2 z) + t_i`` for each output axis i;
        this order is part of the determinism contract.

        Args:
            points: Points in frame B [m], shape (3,) or (N, 3).

        Returns:
            Points in frame A [m], float64, same shape as ``points``.
        """
        array = _validated_vectors("points", points)
        return _transform_points(self._rotation, self._translation, array)

    def apply_direction(self, directions: Any) -> np.ndarray:
        """Rotate directions from frame B into frame A: ``d_A = R d_B`` (no translation).

        Computed as ``(R_i0 x + R_i1 y) + R_i2 z``; this order is part of the
        determinism contract.

        Args:
            directions: Directions or free vectors in frame B, shape (3,) or (N, 3).

        Returns:
            Directions in frame A, float64, same shape as ``directions``.
        """
        array = _validated_vectors("directions", directions)
        return _rotate(self._rotation, array)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Transform):
            return NotImplemented
        return bool(
            np.array_equal(self._rotation, other._rotation)
            and np.array_equal(self._translation, other._translation)
        )

    def __hash__(self) -> int:
        # Adding 0.0 turns -0.0 into 0.0 so that equal transforms hash equally.
        return hash(((self._rotation + 0.0).tobytes(), (self._translation + 0.0).tobytes()))

    def __repr__(self) -> str:
        return (
            f"Transform(rotation={self._rotation.tolist()!r}, "
            f"translation={self._translation.tolist()!r})"
        )

    def to_dict(self) -> dict[str, list]:
        """Return ``{"rotation": 3x3 nested list, "translation": 3-list}`` of Python floats.

        Floats survive a JSON round trip exactly (shortest-repr encoding).
        """
        return {
            "rotation": self._rotation.tolist(),
            "translation": self._translation.tolist(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Transform:
        """Inverse of :meth:`to_dict`; validates like the constructor.

        Raises:
            ValueError: If ``data`` does not have exactly the keys
                ``rotation`` and ``translation``.
        """
        if not isinstance(data, Mapping) or set(data) != {"rotation", "translation"}:
            given = sorted(data) if isinstance(data, Mapping) else type(data).__name__
            raise ValueError(
                f"data must be a mapping with exactly the keys ['rotation', 'translation'], "
                f"got {given!r}"
            )
        return cls(data["rotation"], data["translation"])


# --------------------------------------------------------------------------- attitude


def wrap_angle(angle: float) -> float:
    """Wrap an angle to the interval (-π, π].

    Args:
        angle: Angle [rad], finite scalar.

    Returns:
        The equivalent angle in (-π, π] [rad]; ``-π`` maps to ``π``.
    """
    value = _finite_scalar("angle", angle)
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
    phi = _finite_scalar("roll", roll)
    theta = _finite_scalar("pitch", pitch)
    psi = _finite_scalar("yaw", yaw)
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
    q = _float_array("quaternion", quaternion, "(4,)")
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


# --------------------------------------------------------------------------- sensor frames

# Sensor FRD and camera optical axes, looking along the boresight:
#
#        sensor FRD                      camera (OpenCV optical)
#        x = boresight (forward)         z = forward (optical axis)
#        y = starboard (right)   ----->  x = right
#        z = down                        y = down
#
# so v_camera = R_CAMERA_SENSOR v_sensor, with rows picking sensor (y, z, x).
R_CAMERA_SENSOR: np.ndarray = _read_only(
    np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], dtype=np.float64)
)
"""Rotation mapping sensor-FRD vectors to OpenCV camera axes, shape (3, 3), read-only."""

R_SENSOR_CAMERA: np.ndarray = _read_only(R_CAMERA_SENSOR.T.copy())
"""Rotation mapping OpenCV camera vectors to sensor-FRD axes (transpose of
``R_CAMERA_SENSOR``), shape (3, 3), read-only."""

T_SENSOR_CAMERA: Transform = Transform(R_SENSOR_CAMERA, (0.0, 0.0, 0.0))
"""Maps camera-optical points into the sensor FRD frame (shared origin). A
camera's world pose is ``sensor_pose(T_world_body, T_body_sensor) @ T_SENSOR_CAMERA``."""


def sensor_pose(T_world_body: Transform, T_body_sensor: Transform) -> Transform:
    """Form a sensor's world pose; the only way sensor poses are formed.

    Args:
        T_world_body: Vehicle body pose in world NED.
        T_body_sensor: Sensor mount in the body frame.

    Returns:
        ``T_world_sensor = T_world_body @ T_body_sensor``.

    Raises:
        TypeError: If either argument is not a :class:`Transform`.
    """
    for name, value in (("T_world_body", T_world_body), ("T_body_sensor", T_body_sensor)):
        if not isinstance(value, Transform):
            raise TypeError(
                f"{name} must be a Transform, got {type(value).__name__}; "
                "build one with Transform(rotation, translation) or Transform.from_euler(...)"
            )
    return T_world_body @ T_body_sensor
