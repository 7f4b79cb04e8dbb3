"""The immutable vehicle state record and the checks on its arrays.

See :mod:`leviathan.dynamics` for the frames and units of each field.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from leviathan._frozen import frozen_array
from leviathan._validation import is_integer
from leviathan.dynamics._rotation import rotation_rows_from_quaternion
from leviathan.frames import (
    Transform,
    euler_from_rotation,
    quaternion_from_rotation,
    rotation_from_euler,
)

# A user-built attitude quaternion must be unit within this tolerance; the
# integrator itself keeps the norm within a few ulps of 1.
_QUATERNION_NORM_TOLERANCE = 1e-6
_STATE_KEYS = ("position_ned_m", "attitude_q", "velocity_body", "thrust_n")


# --------------------------------------------------------------------------- state


def _state_array(name: str, value: Any, shape: tuple[int, ...] | None, what: str) -> np.ndarray:
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"{name} must be an array of real numbers {what}, got {value!r}"
        ) from error
    if raw.dtype.kind not in "iuf":
        raise ValueError(f"{name} must hold real numbers {what}, got dtype {raw.dtype}")
    array = raw.astype(np.float64, copy=True)
    if (shape is not None and array.shape != shape) or (shape is None and array.ndim != 1):
        raise ValueError(f"{name} must have shape {what}, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite, got {array.tolist()!r}")
    return frozen_array(array)


def _read_only_array(values: list[float]) -> np.ndarray:
    # Memory is an immutable bytes object: the array can never be made writable again.
    return np.frombuffer(struct.pack(f"{len(values)}d", *values), dtype=np.float64)


@dataclass(frozen=True, eq=False)
class VehicleState:
    """Immutable kinematic state of one vehicle.

    Args:
        position_ned_m: CG position in world NED [m], shape (3,).
        attitude_q: ``q_world_body`` as ``(w, x, y, z)``, shape (4,), unit
            norm within 1e-6.
        velocity_body: ``ν = (u, v, w, p, q, r)`` [m/s, rad/s], shape (6,): the
            velocity of the body relative to the world, in body FRD.
        thrust_n: Actual thruster forces [N], shape (n_thrusters,).

    All four are stored as read-only float64 copies. Equality is bitwise.

    Raises:
        ValueError: On a wrong shape, non-finite values or a non-unit quaternion.
    """

    __content_type__ = "leviathan.dynamics.VehicleState"

    position_ned_m: np.ndarray
    attitude_q: np.ndarray
    velocity_body: np.ndarray
    thrust_n: np.ndarray

    def __post_init__(self) -> None:
        set_field = object.__setattr__
        set_field(
            self,
            "position_ned_m",
            _state_array("position_ned_m", self.position_ned_m, (3,), "(3,) [m]"),
        )
        q = _state_array("attitude_q", self.attitude_q, (4,), "(4,) as (w, x, y, z)")
        norm = math.sqrt(float(((q[0] * q[0] + q[1] * q[1]) + q[2] * q[2]) + q[3] * q[3]))
        if not abs(norm - 1.0) <= _QUATERNION_NORM_TOLERANCE:
            raise ValueError(
                f"attitude_q must be a unit quaternion (norm 1 within "
                f"{_QUATERNION_NORM_TOLERANCE:g}), got {q.tolist()!r} with norm {norm!r}; "
                "divide it by its norm or build it with frames.quaternion_from_rotation"
            )
        set_field(self, "attitude_q", q)
        set_field(
            self,
            "velocity_body",
            _state_array("velocity_body", self.velocity_body, (6,), "(6,) [m/s, rad/s]"),
        )
        set_field(self, "thrust_n", _state_array("thrust_n", self.thrust_n, None, "(n,) [N]"))

    @classmethod
    def _trusted(
        cls,
        position: list[float],
        quaternion: list[float],
        velocity: list[float],
        thrust: list[float],
    ) -> VehicleState:
        """Build from lists produced by the integrator, skipping validation."""
        state = object.__new__(cls)
        set_field = object.__setattr__
        set_field(state, "position_ned_m", _read_only_array(position))
        set_field(state, "attitude_q", _read_only_array(quaternion))
        set_field(state, "velocity_body", _read_only_array(velocity))
        set_field(state, "thrust_n", _read_only_array(thrust))
        return state

    @classmethod
    def from_euler(
        cls,
        position_ned_m: Sequence[float],
        *,
        roll_rad: float = 0.0,
        pitch_rad: float = 0.0,
        yaw_rad: float = 0.0,
        velocity_body: Sequence[float] | None = None,
        thruster_count: int = 0,
    ) -> VehicleState:
        """Build a state from a position and ZYX Euler angles.

        Args:
            position_ned_m: CG position in world NED [m], shape (3,).
            roll_rad: Roll φ [rad].
            pitch_rad: Pitch θ [rad].
            yaw_rad: Yaw ψ [rad] from north towards east.
            velocity_body: ``ν`` [m/s, rad/s], shape (6,); zero by default.
            thruster_count: Number of thrusters; their forces start at zero.

        Returns:
            The state, with ``attitude_q = quaternion_from_rotation(R(φ, θ, ψ))``.
        """
        if not is_integer(thruster_count):
            raise TypeError(f"thruster_count must be an int >= 0, got {thruster_count!r}")
        if thruster_count < 0:
            raise ValueError(f"thruster_count must be >= 0, got {thruster_count}")
        quaternion = quaternion_from_rotation(rotation_from_euler(roll_rad, pitch_rad, yaw_rad))
        return cls(
            position_ned_m=position_ned_m,
            attitude_q=quaternion,
            velocity_body=np.zeros(6) if velocity_body is None else velocity_body,
            thrust_n=np.zeros(int(thruster_count)),
        )

    @cached_property
    def T_world_body(self) -> Transform:
        """Pose ``T_world_body`` (body FRD into world NED).

        Built (and validated) once per state: the state and the transform are both
        immutable, and the World asks for it several times per tick.
        """
        return Transform.from_quaternion(self.attitude_q, translation=self.position_ned_m)

    @property
    def euler_rad(self) -> tuple[float, float, float]:
        """``(roll, pitch, yaw)`` [rad] via :func:`leviathan.frames.euler_from_rotation`."""
        return euler_from_rotation(rotation_rows_from_quaternion(*self.attitude_q.tolist()))

    @property
    def depth_m(self) -> float:
        """Depth of the CG below the surface [m] (the NED z coordinate)."""
        return float(self.position_ned_m[2])

    @property
    def heading_rad(self) -> float:
        """Yaw ψ wrapped to [0, 2π) [rad], clockwise from north seen from above."""
        yaw = self.euler_rad[2]
        if yaw < 0.0:
            yaw += 2.0 * math.pi
            # A tiny negative yaw rounds to exactly 2π, which is outside the range.
            if yaw >= 2.0 * math.pi:
                yaw = 0.0
        return yaw

    def __content__(self) -> dict[str, np.ndarray]:
        """Scientific content for :func:`leviathan.identity.content_hash`."""
        return {key: getattr(self, key) for key in _STATE_KEYS}

    def to_dict(self) -> dict[str, list[float]]:
        """Return the arrays as lists of Python floats (exact through JSON)."""
        return {key: getattr(self, key).tolist() for key in _STATE_KEYS}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> VehicleState:
        """Inverse of :meth:`to_dict`; validates like the constructor.

        Raises:
            ValueError: If ``data`` does not have exactly the four state keys.
        """
        if not isinstance(data, Mapping) or set(data) != set(_STATE_KEYS):
            given = sorted(data) if isinstance(data, Mapping) else type(data).__name__
            raise ValueError(
                f"data must be a mapping with exactly the keys {sorted(_STATE_KEYS)!r}, "
                f"got {given!r}"
            )
        return cls(**{key: data[key] for key in _STATE_KEYS})

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, VehicleState):
            return NotImplemented
        return all(np.array_equal(getattr(self, key), getattr(other, key)) for key in _STATE_KEYS)

    def __hash__(self) -> int:
        # Adding 0.0 maps -0.0 to 0.0 so that equal states hash equally.
        return hash(tuple((getattr(self, key) + 0.0).tobytes() for key in _STATE_KEYS))
