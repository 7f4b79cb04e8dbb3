"""Input validation and the fixed-order float64 arithmetic every frame operation uses.

The order of each product is the contract of :mod:`leviathan.frames` (``out_i = ((R_i0 v_0 +
R_i1 v_1) + R_i2 v_2) + t_i``, separate IEEE multiplies and adds); nothing here calls ``@``,
``np.dot`` or ``np.sum``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from leviathan._frozen import frozen_array
from leviathan._validation import float_array

# Largest accepted max |R^T R - I| for a rotation matrix.
_ORTHONORMAL_TOLERANCE = 1e-9
# Gimbal lock is declared when cos(pitch) = hypot(R[0,0], R[1,0]) is at or below
# this. Measuring cos(pitch) rather than 1 - |R[2,0]| keeps the test well
# conditioned: near ±90° a change of ε in pitch moves R[2,0] only by ε²/2.
_GIMBAL_LOCK_TOLERANCE = 1e-9


# --------------------------------------------------------------------------- validation


def _validated_rotation(name: str, value: Any) -> np.ndarray:
    """Return a float64 (3, 3) copy of ``value`` after checking it is a proper rotation."""
    rotation = float_array(name, value, "(3, 3)")
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
    translation = float_array(name, value, "(3,)")
    if translation.shape != (3,):
        raise ValueError(f"{name} must have shape (3,) [m], got shape {translation.shape}")
    return translation


def _validated_vectors(name: str, value: Any) -> np.ndarray:
    vectors = float_array(name, value, "(3,) or (N, 3)")
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
