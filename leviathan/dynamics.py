"""Six-degree-of-freedom rigid-body vehicle dynamics (Fossen 2011), float64.

Frames and state:

* world NED, body FRD with its origin at the centre of gravity (CG), so the
  CG offset ``r_g`` is zero and the rigid-body mass matrix is diagonal;
* pose ``η``: NED position [m] and the unit quaternion ``q_world_body``
  ``(w, x, y, z)`` (Hamilton, scalar first, ``R_world_body = R(q)``);
* generalised velocity ``ν = (u, v, w, p, q, r)`` [m/s, rad/s]: the velocity of
  the body relative to the world (inertial), expressed in body FRD;
* actual thruster forces [N] after their first-order response.

Equations of motion (Fossen 2011, eq. 10.1 with an irrotational current)::

    M_RB ν̇ + C_RB(ν) ν + M_A ν̇_r + C_A(ν_r) ν_r + D(ν_r) ν_r + g(η) = τ
    ν_r = ν − ν_c,   ν_c = (R^T v_c, 0, 0, 0)

with ``M_RB = diag(m, m, m, Ixx, Iyy, Izz)`` (eq. 3.44, ``r_g = 0``), diagonal
added mass ``M_A``, ``C_RB`` in its linear-velocity-independent form (eq. 3.57,
``C_RB ν = (m ω×v, ω×(I_g ω))``), ``C_A`` for diagonal ``M_A`` (eq. 6.43,
``C_A ν_r = (ω×a, v_r×a + ω×b)`` with ``a = M_A11 v_r``, ``b = M_A22 ω``),
``D(ν_r) = D_l + D_q |ν_r|`` (diagonal) and the restoring vector of eq. 4.6
written without Euler angles: the weight ``W = m g`` at the CG and the buoyancy
``B = ρ g ∇`` at the centre of buoyancy (CB) ``r_b`` give the body force
``R^T (0, 0, W) + R^T (0, 0, −B)`` and the moment ``r_b × R^T (0, 0, −B)``.

The current ``v_c`` is given in NED. For a current that is constant in NED the
body-frame current changes only because the body turns:
``d/dt (R^T v_c) = −ω × (R^T v_c)``, so ``ν̇_r = ν̇ − (−ω × R^T v_c, 0)`` exactly
(the kinematics behind Fossen 2011, eq. 10.12). The solved form is::

    (M_RB + M_A) ν̇ = τ − g(η) − C_RB(ν) ν − C_A(ν_r) ν_r − D(ν_r) ν_r + M_A ν̇_c

Approximation: for a depth-dependent current (a profile) the term
``(∂v_c/∂z) ż`` is neglected in ``ν̇_c``; the current itself is evaluated at the
depth of every integrator stage. The vehicle is taken as fully submerged
(buoyancy does not change near the surface).

Thrusters: ``τ_thrust = T f`` with column i of the 6×n configuration matrix
``T`` equal to ``(d_i, r_i × d_i)``. Commands are saturated to
``[min_thrust_n, max_thrust_n]``; the actual force follows
``ḟ = (f_cmd − f) / time_constant`` (``time_constant = 0``: ``f = f_cmd``).

Integration (:func:`step`): classic fixed-step RK4 over position, quaternion
(``q̇ = ½ q ⊗ (0, ω)``, no Euler angles) and ``ν``; the quaternion is
renormalised once after each full step. The command is held constant over the
step, so the first-order thruster equation is integrated with its exact
solution ``f(t) = f_cmd + (f_0 − f_cmd) exp(−t / time_constant)`` evaluated at
the RK4 stage times, which is unconditionally stable for any step.

Arithmetic order is part of the contract: the derivative is written out on
Python floats (IEEE binary64, no fused multiply-add, no reordering), so a call
with the same inputs returns bit-identical output; no BLAS call sits on the
integration path.
"""

from __future__ import annotations

import math
import numbers
import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from leviathan._frozen import frozen_array
from leviathan._rational import exact_pseudo_inverse
from leviathan.frames import (
    Transform,
    euler_from_rotation,
    quaternion_from_rotation,
    rotation_from_euler,
)
from leviathan.specs import VehicleSpec
from leviathan.time import NS_PER_SECOND

__all__ = [
    "CurrentInput",
    "RigidBodyModel",
    "VehicleState",
    "accelerations",
    "energy",
    "neutral_buoyancy_volume",
    "state_derivative",
    "step",
]

CurrentInput = Callable[[float], Sequence[float]] | Sequence[float] | np.ndarray
"""A water current in world NED [m/s]: a constant (3,) or ``current_ned(depth_m) -> (3,)``,
e.g. ``WaterSpec.current_at_depth``."""

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
        if isinstance(thruster_count, bool) or not isinstance(thruster_count, numbers.Integral):
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

    @property
    def T_world_body(self) -> Transform:
        """Pose ``T_world_body`` (body FRD into world NED)."""
        return Transform(_rotation_rows(*self.attitude_q.tolist()), self.position_ned_m)

    @property
    def euler_rad(self) -> tuple[float, float, float]:
        """``(roll, pitch, yaw)`` [rad] via :func:`leviathan.frames.euler_from_rotation`."""
        return euler_from_rotation(_rotation_rows(*self.attitude_q.tolist()))

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


# --------------------------------------------------------------------------- model


def _diag(values: Sequence[float]) -> np.ndarray:
    return frozen_array(np.diag(np.asarray(values, dtype=np.float64)))


def _frozen(array: np.ndarray) -> np.ndarray:
    return frozen_array(np.array(array, dtype=np.float64))


def _skew(a: Sequence[float]) -> np.ndarray:
    """``S(a)`` with ``S(a) b = a × b``, shape (3, 3)."""
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]], dtype=np.float64)


def neutral_buoyancy_volume(spec: VehicleSpec, *, water_density_kg_m3: float = 1025.0) -> float:
    """Displaced volume that makes buoyancy equal weight, ``∇ = m / ρ`` [m³].

    Args:
        spec: The vehicle.
        water_density_kg_m3: Water density ρ [kg/m³], > 0.

    Returns:
        The volume [m³]. ``ρ g ∇`` equals ``m g`` to within a few ulps.
    """
    density = _positive_float("water_density_kg_m3", water_density_kg_m3, "kg/m³")
    return spec.mass.mass_kg / density


def _positive_float(name: str, value: Any, unit: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number [{unit}], got {value!r}")
    result = float(value)
    if not (math.isfinite(result) and result > 0.0):
        raise ValueError(f"{name} must be finite and > 0 [{unit}], got {value!r}")
    return result


class RigidBodyModel:
    """Constant matrices and parameters of one vehicle's equations of motion.

    Build it with :meth:`from_spec`. All arrays are read-only float64.

    Attributes:
        name: Vehicle name.
        thruster_count: Number of thrusters n.
        M_RB: Rigid-body mass matrix ``diag(m, m, m, Ixx, Iyy, Izz)``, shape (6, 6).
        M_A: Added-mass matrix (diagonal), shape (6, 6).
        M: ``M_RB + M_A``, shape (6, 6).
        M_inv: Inverse of ``M`` (diagonal), shape (6, 6).
        D_linear: Linear damping ``D_l`` (diagonal), shape (6, 6).
        D_quadratic: Quadratic damping coefficients, shape (6,); ``D_q = diag(d_q |ν_r|)``.
        weight_n: ``W = m g`` [N].
        buoyancy_n: ``B = ρ g ∇`` [N].
        cb_m: Centre of buoyancy in body FRD [m], shape (3,).
        thruster_matrix: Configuration matrix ``T``, shape (6, n).
        thrust_allocation: Minimum-norm allocation ``pinv(T)``, shape (n, 6), computed
            in exact rational arithmetic and rounded once (:mod:`leviathan._rational`).
        thrust_min_n, thrust_max_n: Saturation limits [N], shape (n,).
        time_constants_s: First-order thruster time constants [s], shape (n,).
    """

    name: str
    thruster_count: int
    mass_kg: float
    gravity_m_s2: float
    water_density_kg_m3: float

    def __init__(self) -> None:
        raise TypeError("build a RigidBodyModel with RigidBodyModel.from_spec(spec)")

    @classmethod
    def from_spec(
        cls,
        spec: VehicleSpec,
        *,
        water_density_kg_m3: float = 1025.0,
        gravity_m_s2: float = 9.81,
    ) -> RigidBodyModel:
        """Build the model of a vehicle.

        Args:
            spec: The vehicle (mass properties and thrusters).
            water_density_kg_m3: Water density ρ [kg/m³], > 0.
            gravity_m_s2: Gravitational acceleration g [m/s²], > 0.

        Returns:
            The model.
        """
        if not isinstance(spec, VehicleSpec):
            raise TypeError(f"spec must be a VehicleSpec, got {type(spec).__name__}")
        rho = _positive_float("water_density_kg_m3", water_density_kg_m3, "kg/m³")
        g = _positive_float("gravity_m_s2", gravity_m_s2, "m/s²")
        mass = spec.mass
        model = object.__new__(cls)
        model.name = spec.name
        model.mass_kg = float(mass.mass_kg)
        model.gravity_m_s2 = g
        model.water_density_kg_m3 = rho
        rigid = (mass.mass_kg,) * 3 + tuple(mass.inertia_kg_m2)
        added = tuple(float(a) for a in mass.added_mass)
        total = tuple(float(r) + a for r, a in zip(rigid, added, strict=True))
        model.M_RB = _diag(rigid)
        model.M_A = _diag(added)
        model.M = _diag(total)
        model.M_inv = _diag([1.0 / m for m in total])
        model.D_linear = _diag(mass.linear_damping)
        model.D_quadratic = _frozen(mass.quadratic_damping)
        model.weight_n = mass.mass_kg * g
        model.buoyancy_n = rho * g * mass.displaced_volume_m3
        model.cb_m = _frozen(mass.cb_m)

        thrusters = spec.thrusters
        model.thruster_count = len(thrusters)
        columns = []
        for thruster in thrusters:
            d = thruster.direction
            r = thruster.position_m
            moment = (
                r[1] * d[2] - r[2] * d[1],
                r[2] * d[0] - r[0] * d[2],
                r[0] * d[1] - r[1] * d[0],
            )
            columns.append((*d, *moment))
        t_matrix = np.array(columns, dtype=np.float64).T.reshape(6, len(thrusters))
        model.thruster_matrix = _frozen(t_matrix)
        # Exact rational pseudo-inverse rounded once: independent of the BLAS/LAPACK
        # kernel (an SVD-based np.linalg.pinv differs in its last bits between CPUs).
        model.thrust_allocation = _frozen(
            np.array(exact_pseudo_inverse(t_matrix.tolist()), dtype=np.float64).reshape(
                len(thrusters), 6
            )
            if thrusters
            else np.zeros((0, 6))
        )
        model.thrust_min_n = _frozen([t.min_thrust_n for t in thrusters])
        model.thrust_max_n = _frozen([t.max_thrust_n for t in thrusters])
        model.time_constants_s = _frozen([t.time_constant_s for t in thrusters])

        # Python-float copies for the integrator's scalar arithmetic.
        model._rigid = rigid
        model._added = added
        model._inv_mass = tuple(1.0 / m for m in total)
        model._d_linear = tuple(float(d) for d in mass.linear_damping)
        model._d_quadratic = tuple(float(d) for d in mass.quadratic_damping)
        model._net_weight = model.weight_n - model.buoyancy_n
        model._cb = tuple(float(c) for c in mass.cb_m)
        model._columns = tuple(tuple(float(c) for c in column) for column in columns)
        model._limits = tuple((t.min_thrust_n, t.max_thrust_n) for t in thrusters)
        model._time_constants = tuple(float(t.time_constant_s) for t in thrusters)
        return model

    def __repr__(self) -> str:
        return f"RigidBodyModel(name={self.name!r}, thruster_count={self.thruster_count})"

    # Matrix forms of Fossen's terms: the readable reference for the scalar
    # arithmetic in _derivative (tests compare the two).

    def coriolis_rigid_body(self, velocity_body: Sequence[float]) -> np.ndarray:
        """``C_RB(ν)`` (Fossen 2011 eq. 3.57, ``r_g = 0``), shape (6, 6)."""
        nu = np.asarray(velocity_body, dtype=np.float64)
        c = np.zeros((6, 6))
        c[:3, :3] = self.mass_kg * _skew(nu[3:])
        c[3:, 3:] = -_skew(np.diag(self.M_RB)[3:] * nu[3:])
        return c

    def coriolis_added_mass(self, relative_velocity_body: Sequence[float]) -> np.ndarray:
        """``C_A(ν_r)`` for diagonal ``M_A`` (Fossen 2011 eq. 6.43), shape (6, 6)."""
        nu_r = np.asarray(relative_velocity_body, dtype=np.float64)
        a = np.diag(self.M_A)[:3] * nu_r[:3]
        b = np.diag(self.M_A)[3:] * nu_r[3:]
        c = np.zeros((6, 6))
        c[:3, 3:] = -_skew(a)
        c[3:, :3] = -_skew(a)
        c[3:, 3:] = -_skew(b)
        return c

    def damping(self, relative_velocity_body: Sequence[float]) -> np.ndarray:
        """``D(ν_r) = D_l + diag(d_q |ν_r|)``, shape (6, 6)."""
        nu_r = np.asarray(relative_velocity_body, dtype=np.float64)
        return self.D_linear + np.diag(self.D_quadratic * np.abs(nu_r))

    def restoring(self, attitude_q: Sequence[float]) -> np.ndarray:
        """``g(η)`` (Fossen 2011 eq. 4.6 in rotation-matrix form), shape (6,).

        ``g = −(f_W + f_B, r_b × f_B)`` with ``f_W = R^T (0, 0, W)`` and
        ``f_B = R^T (0, 0, −B)``; it enters the equations as ``... + g = τ``.
        """
        rows = _rotation_rows(*[float(v) for v in attitude_q])
        # R^T (0, 0, s) is s times the third row of R, written out (no BLAS call).
        f_w = np.array([self.weight_n * c for c in rows[2]], dtype=np.float64)
        f_b = np.array([-self.buoyancy_n * c for c in rows[2]], dtype=np.float64)
        return -np.concatenate([f_w + f_b, np.cross(self.cb_m, f_b)])


# --------------------------------------------------------------------------- core


def _rotation_rows(w: float, x: float, y: float, z: float) -> list[list[float]]:
    """``R(q)`` as nested lists, with the arithmetic of ``frames.rotation_from_quaternion``."""
    norm = math.sqrt(((w * w + x * x) + y * y) + z * z)
    w, x, y, z = w / norm, x / norm, y / norm, z / norm
    return [
        [1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - z * w), 2.0 * (x * z + y * w)],
        [2.0 * (x * y + z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - x * w)],
        [2.0 * (x * z - y * w), 2.0 * (y * z + x * w), 1.0 - 2.0 * (x * x + y * y)],
    ]


def _current_source(current: Any) -> Callable[[float], tuple[float, float, float]]:
    """Return ``depth_m -> (north, east, down)`` [m/s] as Python floats, validated."""
    if callable(current):

        def evaluate(depth_m: float) -> tuple[float, float, float]:
            value = current(depth_m)
            try:
                c0, c1, c2 = (float(c) for c in value)
            except (TypeError, ValueError) as error:
                raise ValueError(
                    f"current_ned_m_per_s({depth_m!r}) must return 3 real numbers "
                    f"(north, east, down) [m/s], got {value!r}"
                ) from error
            if not math.isfinite((c0 + c1) + c2):
                raise ValueError(f"current_ned_m_per_s({depth_m!r}) must be finite, got {value!r}")
            return c0, c1, c2

        return evaluate
    array = _state_array("current_ned_m_per_s", current, (3,), "(3,) [m/s] or a callable")
    constant = (float(array[0]), float(array[1]), float(array[2]))
    return lambda depth_m: constant


def _saturated_command(model: RigidBodyModel, command: Any) -> list[float]:
    n = model.thruster_count
    array = _state_array("thrust_command_n", command, None, f"({n},) [N]")
    if array.shape != (n,):
        raise ValueError(
            f"thrust_command_n must have shape ({n},), one force [N] per thruster of "
            f"{model.name!r}, got shape {array.shape}"
        )
    return [min(max(f, lo), hi) for f, (lo, hi) in zip(array.tolist(), model._limits, strict=True)]


def _check_thrust_state(model: RigidBodyModel, state: VehicleState) -> None:
    if not isinstance(state, VehicleState):
        raise TypeError(f"state must be a VehicleState, got {type(state).__name__}")
    if state.thrust_n.shape != (model.thruster_count,):
        raise ValueError(
            f"state.thrust_n has shape {state.thrust_n.shape} but {model.name!r} has "
            f"{model.thruster_count} thrusters; build the state with "
            f"thruster_count={model.thruster_count}"
        )


def _derivative(
    model: RigidBodyModel,
    position: list[float],
    quaternion: list[float],
    velocity: list[float],
    forces: list[float],
    current: Callable[[float], tuple[float, float, float]],
) -> tuple[list[float], list[float], list[float]]:
    """Return ``(ṗ_ned, q̇, ν̇)`` for thruster forces ``forces`` [N]."""
    qw, qx, qy, qz = quaternion
    u, v, w, p, q, r = velocity
    rot = _rotation_rows(qw, qx, qy, qz)
    r0, r1, r2 = rot

    # Current in body: R^T v_c.
    cn, ce, cd = current(position[2])
    cu = (r0[0] * cn + r1[0] * ce) + r2[0] * cd
    cv = (r0[1] * cn + r1[1] * ce) + r2[1] * cd
    cw = (r0[2] * cn + r1[2] * ce) + r2[2] * cd
    ur, vr, wr = u - cu, v - cv, w - cw

    # Thruster generalised force τ = T f, summed in thruster order.
    tau = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    for column, force in zip(model._columns, forces, strict=True):
        for j in range(6):
            tau[j] += column[j] * force

    # Restoring force −g(η): net weight along body "down of the world", buoyancy moment.
    gx, gy, gz = r2  # R^T (0, 0, 1)
    net = model._net_weight
    bx, by, bz = model._cb
    buoy = -model.buoyancy_n
    fbx, fby, fbz = buoy * gx, buoy * gy, buoy * gz
    restoring = (
        net * gx,
        net * gy,
        net * gz,
        by * fbz - bz * fby,
        bz * fbx - bx * fbz,
        bx * fby - by * fbx,
    )

    m, _, _, ixx, iyy, izz = model._rigid
    # C_RB(ν) ν = (m ω×v, ω×(I ω)).
    crb = (
        m * (q * w - r * v),
        m * (r * u - p * w),
        m * (p * v - q * u),
        q * (izz * r) - r * (iyy * q),
        r * (ixx * p) - p * (izz * r),
        p * (iyy * q) - q * (ixx * p),
    )
    a0, a1, a2, a3, a4, a5 = model._added
    ax, ay, az = a0 * ur, a1 * vr, a2 * wr
    bpx, bpy, bpz = a3 * p, a4 * q, a5 * r
    # C_A(ν_r) ν_r = (ω×a, v_r×a + ω×b).
    ca = (
        q * az - r * ay,
        r * ax - p * az,
        p * ay - q * ax,
        (vr * az - wr * ay) + (q * bpz - r * bpy),
        (wr * ax - ur * az) + (r * bpx - p * bpz),
        (ur * ay - vr * ax) + (p * bpy - q * bpx),
    )
    dl = model._d_linear
    dq = model._d_quadratic
    rel = (ur, vr, wr, p, q, r)
    # M_A ν̇_c with ν̇_c = (−ω × v_c,body, 0).
    mac = (
        a0 * -(q * cw - r * cv),
        a1 * -(r * cu - p * cw),
        a2 * -(p * cv - q * cu),
    )
    inv = model._inv_mass
    velocity_dot = [0.0] * 6
    for i in range(6):
        drag = (dl[i] + dq[i] * abs(rel[i])) * rel[i]
        rhs = (((tau[i] + restoring[i]) - crb[i]) - ca[i]) - drag
        if i < 3:
            rhs = rhs + mac[i]
        velocity_dot[i] = rhs * inv[i]

    position_dot = [(row[0] * u + row[1] * v) + row[2] * w for row in rot]
    # q̇ = ½ q ⊗ (0, ω), Hamilton product.
    quaternion_dot = [
        0.5 * -((qx * p + qy * q) + qz * r),
        0.5 * ((qw * p + qy * r) - qz * q),
        0.5 * ((qw * q + qz * p) - qx * r),
        0.5 * ((qw * r + qx * q) - qy * p),
    ]
    return position_dot, quaternion_dot, velocity_dot


def _forces_now(
    model: RigidBodyModel, thrust: list[float], command: list[float]
) -> tuple[list[float], list[float]]:
    """Forces acting now and ``ḟ``; instantaneous thrusters use the command directly."""
    forces, thrust_dot = [], []
    for f, c, tc in zip(thrust, command, model._time_constants, strict=True):
        if tc > 0.0:
            forces.append(f)
            thrust_dot.append((c - f) / tc)
        else:
            forces.append(c)
            thrust_dot.append(0.0)
    return forces, thrust_dot


# --------------------------------------------------------------------------- public


def state_derivative(
    model: RigidBodyModel,
    state: VehicleState,
    thrust_command_n: Sequence[float] | np.ndarray,
    current_ned_m_per_s: CurrentInput,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Time derivative of the state.

    Args:
        model: The vehicle model.
        state: The state.
        thrust_command_n: Commanded thruster forces [N], shape (n,); saturated
            to each thruster's limits.
        current_ned_m_per_s: Water current in world NED [m/s]: a constant
            (3,) or a callable of depth [m].

    Returns:
        ``(d_position [m/s] (3,), d_quaternion [1/s] (4,), d_velocity
        [m/s², rad/s²] (6,), d_thrust [N/s] (n,))``, float64. Instantaneous
        thrusters (time constant 0) have ``d_thrust = 0`` and act with the
        saturated command.
    """
    _check_thrust_state(model, state)
    command = _saturated_command(model, thrust_command_n)
    forces, thrust_dot = _forces_now(model, state.thrust_n.tolist(), command)
    dp, dq, dv = _derivative(
        model,
        state.position_ned_m.tolist(),
        state.attitude_q.tolist(),
        state.velocity_body.tolist(),
        forces,
        _current_source(current_ned_m_per_s),
    )
    return (
        np.array(dp, dtype=np.float64),
        np.array(dq, dtype=np.float64),
        np.array(dv, dtype=np.float64),
        np.array(thrust_dot, dtype=np.float64),
    )


def accelerations(
    model: RigidBodyModel,
    state: VehicleState,
    thrust_command_n: Sequence[float] | np.ndarray,
    current_ned_m_per_s: CurrentInput,
) -> dict[str, np.ndarray]:
    """Accelerations of the body at ``state`` (for inertial sensors).

    Args:
        model: The vehicle model.
        state: The state.
        thrust_command_n: Commanded thruster forces [N], shape (n,).
        current_ned_m_per_s: Water current in world NED [m/s], constant (3,) or callable.

    Returns:
        ``linear_acceleration_body``: inertial acceleration of the CG expressed
        in body FRD, ``v̇ + ω × v`` [m/s²], shape (3,); gravity not included.
        ``angular_acceleration_body``: ``ω̇`` [rad/s²], shape (3,).
    """
    _, _, velocity_dot, _ = state_derivative(model, state, thrust_command_n, current_ned_m_per_s)
    u, v, w, p, q, r = state.velocity_body.tolist()
    linear = [
        velocity_dot[0] + (q * w - r * v),
        velocity_dot[1] + (r * u - p * w),
        velocity_dot[2] + (p * v - q * u),
    ]
    return {
        "linear_acceleration_body": np.array(linear, dtype=np.float64),
        "angular_acceleration_body": velocity_dot[3:].copy(),
    }


def step(
    model: RigidBodyModel,
    state: VehicleState,
    thrust_command_n: Sequence[float] | np.ndarray,
    current_ned_m_per_s: CurrentInput,
    *,
    dt_ns: int,
) -> VehicleState:
    """Advance one fixed RK4 step with the command held constant.

    A pure function: the same inputs give a bit-identical result.

    Args:
        model: The vehicle model.
        state: The state at the start of the step.
        thrust_command_n: Commanded thruster forces [N], shape (n,); saturated.
        current_ned_m_per_s: Water current in world NED [m/s]: a constant (3,)
            or ``current_ned(depth_m) -> (3,)``, evaluated at each stage's depth.
        dt_ns: Step length [ns], a positive int; ``dt = dt_ns / 1e9`` s.

    Returns:
        The state at the end of the step, quaternion renormalised to unit norm.

    Raises:
        TypeError: If ``dt_ns`` is not an int (bool refused).
        ValueError: If ``dt_ns <= 0`` or an array has the wrong shape.
    """
    if isinstance(dt_ns, bool) or not isinstance(dt_ns, numbers.Integral):
        raise TypeError(
            f"dt_ns must be an int of nanoseconds, got {type(dt_ns).__name__} {dt_ns!r}; "
            "convert seconds with leviathan.time.seconds_to_ns"
        )
    if dt_ns <= 0:
        raise ValueError(f"dt_ns must be a positive number of nanoseconds, got {dt_ns}")
    _check_thrust_state(model, state)
    h = int(dt_ns) / NS_PER_SECOND
    half = 0.5 * h
    command = _saturated_command(model, thrust_command_n)
    current = _current_source(current_ned_m_per_s)

    # Exact first-order response at the stage times 0, h/2, h.
    f_start, f_half, f_end = [], [], []
    for f0, c, tc in zip(state.thrust_n.tolist(), command, model._time_constants, strict=True):
        if tc > 0.0:
            offset = f0 - c
            f_start.append(f0)
            f_half.append(c + offset * math.exp(-half / tc))
            f_end.append(c + offset * math.exp(-h / tc))
        else:
            f_start.append(c)
            f_half.append(c)
            f_end.append(c)

    p0 = state.position_ned_m.tolist()
    q0 = state.attitude_q.tolist()
    v0 = state.velocity_body.tolist()

    def advance(k: tuple[list[float], list[float], list[float]], scale: float) -> tuple:
        kp, kq, kv = k
        return (
            [a + scale * b for a, b in zip(p0, kp, strict=True)],
            [a + scale * b for a, b in zip(q0, kq, strict=True)],
            [a + scale * b for a, b in zip(v0, kv, strict=True)],
        )

    k1 = _derivative(model, p0, q0, v0, f_start, current)
    k2 = _derivative(model, *advance(k1, half), f_half, current)
    k3 = _derivative(model, *advance(k2, half), f_half, current)
    k4 = _derivative(model, *advance(k3, h), f_end, current)

    sixth = h / 6.0
    combined = []
    for y0, a, b, c, d in zip((p0, q0, v0), k1, k2, k3, k4, strict=True):
        combined.append(
            [
                y + sixth * (((ka + 2.0 * kb) + 2.0 * kc) + kd)
                for y, ka, kb, kc, kd in zip(y0, a, b, c, d, strict=True)
            ]
        )
    position, quaternion, velocity = combined
    qw, qx, qy, qz = quaternion
    norm = math.sqrt(((qw * qw + qx * qx) + qy * qy) + qz * qz)
    quaternion = [qw / norm, qx / norm, qy / norm, qz / norm]
    return VehicleState._trusted(position, quaternion, velocity, f_end)


def energy(model: RigidBodyModel, state: VehicleState) -> dict[str, float]:
    """Mechanical energy of the vehicle in still water.

    Args:
        model: The vehicle model.
        state: The state.

    Returns:
        ``kinetic_j``: ``½ νᵀ M ν`` [J] including added mass;
        ``potential_j``: ``(B − W) z + B (R r_b)_z`` [J], zero for a neutral
        vehicle at the surface with CB at the CG;
        ``total_j``: their sum [J]. Both are conserved without damping,
        thrust and current.
    """
    nu = state.velocity_body.tolist()
    diag = [r + a for r, a in zip(model._rigid, model._added, strict=True)]
    kinetic = 0.0
    for m_i, n_i in zip(diag, nu, strict=True):
        kinetic += m_i * n_i * n_i
    kinetic *= 0.5
    row = _rotation_rows(*state.attitude_q.tolist())[2]
    bx, by, bz = model._cb
    cb_down = (row[0] * bx + row[1] * by) + row[2] * bz
    potential = -model._net_weight * float(state.position_ned_m[2]) + model.buoyancy_n * cb_down
    return {"kinetic_j": kinetic, "potential_j": potential, "total_j": kinetic + potential}
