"""The immutable rigid transform ``T_A_B`` (conventions in :mod:`leviathan.frames`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from leviathan._validation import float_array
from leviathan.frames._arithmetic import (
    _compose_rotations,
    _read_only,
    _rotate,
    _transform_points,
    _validated_rotation,
    _validated_translation,
    _validated_vectors,
)
from leviathan.frames._attitude import rotation_from_euler, rotation_from_quaternion


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

    def with_translation(self, translation: Any) -> Transform:
        """This rotation with another translation [m], shape (3,).

        The rotation is this transform's own (already checked), so only the
        translation is validated: what a moving body posed at each instant needs.

        Raises:
            ValueError: If ``translation`` has the wrong shape or is non-finite.
        """
        return Transform._trusted(
            self._rotation, _validated_translation("translation", translation)
        )

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
    def from_quaternion(cls, quaternion: Any, *, translation: Any = (0.0, 0.0, 0.0)) -> Transform:
        """Build a transform from a quaternion ``(w, x, y, z)`` and a translation [m].

        Args:
            quaternion: Hamilton, scalar first, shape (4,), finite and non-zero; it is
                normalised first (:func:`leviathan.frames.rotation_from_quaternion`).
            translation: Translation [m], shape (3,).

        Returns:
            ``Transform(rotation_from_quaternion(quaternion), translation)``, bit for bit.

        Raises:
            ValueError: If the quaternion or the translation is malformed.
        """
        # The matrix of a normalised quaternion is orthonormal to rounding (|R^T R - I|
        # ~1e-16, determinant +1), far inside the constructor's 1e-9: its check cannot
        # fail here and is skipped (a vehicle's pose is built every tick).
        return cls._trusted(
            rotation_from_quaternion(quaternion),
            _validated_translation("translation", translation),
        )

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
        m = float_array("matrix", matrix, "(4, 4)")
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
