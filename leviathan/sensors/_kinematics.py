"""The committed kinematic state a sensor reads: :class:`BodyKinematics`, and gravity.

The DVL, IMU and camera are pure functions of the committed vehicle state,
given as a :class:`BodyKinematics`, so a sample is bitwise the same whether it
is taken alone, in a batch or after a World reset. This module imports nothing
else from :mod:`leviathan.sensors`, so the sensor protocol (which checks a
context's kinematics) and the sample record (which checks its kind against the
protocol's registry) can both build on it without an import cycle.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from leviathan._frozen import frozen_array
from leviathan.frames import Transform

__all__ = ["GRAVITY_NED", "BodyKinematics"]

_FLOAT64 = np.dtype("<f8")
_PACK3 = struct.Struct("<3d")

GRAVITY_NED: np.ndarray = frozen_array(np.array([0.0, 0.0, 9.81], dtype=np.float64))
"""Default gravitational acceleration in world NED [m/s²], shape (3,), read-only (down is +z)."""


# --------------------------------------------------------------------------- helpers


def _vector3(name: str, value: Any) -> np.ndarray:
    """Return ``value`` as a read-only float64 (3,) array, refusing bad shapes and non-finite."""
    if type(value) is np.ndarray and value.dtype == _FLOAT64 and value.shape == (3,):
        # The common case (a World's kinematics): the same bytes, checked on Python floats.
        x, y, z = value.tolist()
        if math.isfinite(x) and math.isfinite(y) and math.isfinite(z):
            return np.ndarray((3,), dtype=_FLOAT64, buffer=_PACK3.pack(x, y, z))
    try:
        array = np.array(value, dtype=np.float64, copy=True)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name}: expected 3 real numbers, got {value!r}") from error
    if array.shape != (3,):
        raise ValueError(f"{name}: expected shape (3,), got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name}: every component must be finite, got {array.tolist()!r}")
    return frozen_array(array)


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cross product ``a x b`` of two (3,) vectors, written out in a fixed order."""
    return np.array(
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ],
        dtype=np.float64,
    )


def _cross3(a: list[float], b: list[float]) -> list[float]:
    """:func:`_cross` on Python floats: the same products and differences in the same order."""
    a0, a1, a2 = a
    b0, b1, b2 = b
    return [a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0]


def _rotate3(rows: list[list[float]], v: list[float]) -> list[float]:
    """``R v`` for one vector on Python floats, ``(R_i0 x + R_i1 y) + R_i2 z``.

    The order of :meth:`leviathan.frames.Transform.apply_direction` (the frames
    contract), so the result is bitwise the same; ``rows`` is ``R.tolist()``.
    """
    x, y, z = v
    return [(row[0] * x + row[1] * y) + row[2] * z for row in rows]


def _rotate3_transposed(rows: list[list[float]], v: list[float]) -> list[float]:
    """``R^T v`` in the contract order: what ``T.inverse().apply_direction(v)`` computes."""
    x, y, z = v
    r0, r1, r2 = rows
    return [(r0[i] * x + r1[i] * y) + r2[i] * z for i in range(3)]


def _float_vector(values: list[float]) -> np.ndarray:
    """A float64 array of ``values`` (a sample channel; the sample freezes its own copy)."""
    return np.array(values, dtype=np.float64)


# --------------------------------------------------------------------------- kinematics


@dataclass(frozen=True, eq=False)
class BodyKinematics:
    """Committed kinematic state of a rigid vehicle at one sample instant.

    Every vector is expressed in the body FRD frame, whose origin is the centre
    of gravity (CG). Inputs are copied into read-only float64 arrays.

    Attributes:
        T_world_body: Body pose in world NED.
        velocity_body_m_s: Inertial (ground-relative) velocity of the CG, expressed
            in body FRD [m/s], shape (3,).
        angular_velocity_body_rad_s: Angular velocity ω of the body relative to the
            world, expressed in body FRD [rad/s], shape (3,).
        linear_acceleration_body_m_s2: Inertial acceleration of the CG (the time
            derivative of its world velocity, *not* the derivative of
            ``velocity_body_m_s``), expressed in body FRD [m/s²], shape (3,).
        angular_acceleration_body_rad_s2: Angular acceleration ω̇, expressed in body
            FRD [rad/s²], shape (3,).
    """

    __content_type__ = "leviathan.sensors.sample.BodyKinematics"

    T_world_body: Transform
    velocity_body_m_s: np.ndarray = field(default_factory=lambda: np.zeros(3))
    angular_velocity_body_rad_s: np.ndarray = field(default_factory=lambda: np.zeros(3))
    linear_acceleration_body_m_s2: np.ndarray = field(default_factory=lambda: np.zeros(3))
    angular_acceleration_body_rad_s2: np.ndarray = field(default_factory=lambda: np.zeros(3))

    def __post_init__(self) -> None:
        if not isinstance(self.T_world_body, Transform):
            raise TypeError(
                f"T_world_body: expected a leviathan.frames.Transform, got "
                f"{type(self.T_world_body).__name__}; build one with Transform.from_euler(...)"
            )
        for name in (
            "velocity_body_m_s",
            "angular_velocity_body_rad_s",
            "linear_acceleration_body_m_s2",
            "angular_acceleration_body_rad_s2",
        ):
            object.__setattr__(self, name, _vector3(name, getattr(self, name)))

    @classmethod
    def of_state(cls, state: Any, accelerations: Mapping[str, Any]) -> BodyKinematics:
        """What a vehicle's sensors read at a dynamics state.

        Args:
            state: A :class:`leviathan.dynamics.VehicleState` (its pose and the
                6-vector ``velocity_body``, linear then angular).
            accelerations: :func:`leviathan.dynamics.accelerations` at that state, under
                the command and current the state was integrated with.
        """
        return cls(
            T_world_body=state.T_world_body,
            velocity_body_m_s=np.asarray(state.velocity_body[:3]),
            angular_velocity_body_rad_s=np.asarray(state.velocity_body[3:]),
            linear_acceleration_body_m_s2=np.asarray(accelerations["linear_acceleration_body"]),
            angular_acceleration_body_rad_s2=np.asarray(accelerations["angular_acceleration_body"]),
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-like form: the pose as :meth:`Transform.to_dict`, vectors as lists."""
        return {
            "T_world_body": self.T_world_body.to_dict(),
            "velocity_body_m_s": self.velocity_body_m_s.tolist(),
            "angular_velocity_body_rad_s": self.angular_velocity_body_rad_s.tolist(),
            "linear_acceleration_body_m_s2": self.linear_acceleration_body_m_s2.tolist(),
            "angular_acceleration_body_rad_s2": self.angular_acceleration_body_rad_s2.tolist(),
        }

    def __content__(self) -> dict[str, Any]:
        return self.to_dict()
