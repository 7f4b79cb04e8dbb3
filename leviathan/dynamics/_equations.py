"""The equations of motion on Python floats: the state derivative and accelerations.

``_derivative`` is the right-hand side every RK4 stage of
:func:`leviathan.dynamics.step` evaluates; its arithmetic order is part of the
contract (see :mod:`leviathan.dynamics`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from leviathan.dynamics._model import RigidBodyModel
from leviathan.dynamics._rotation import rotation_rows_from_quaternion
from leviathan.dynamics._state import VehicleState, _state_array

CurrentInput = Callable[[float], Sequence[float]] | Sequence[float] | np.ndarray
"""A water current in world NED [m/s]: a constant (3,) or ``current_ned(depth_m) -> (3,)``,
e.g. ``WaterSpec.current_at_depth``."""


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
    rot = rotation_rows_from_quaternion(qw, qx, qy, qz)
    r0, r1, r2 = rot

    # Current in body: R^T v_c.
    cn, ce, cd = current(position[2])
    cu = (r0[0] * cn + r1[0] * ce) + r2[0] * cd
    cv = (r0[1] * cn + r1[1] * ce) + r2[1] * cd
    cw = (r0[2] * cn + r1[2] * ce) + r2[2] * cd
    ur, vr, wr = u - cu, v - cv, w - cw

    # Thruster generalised force τ = T f, summed in thruster order.
    t0 = t1 = t2 = t3 = t4 = t5 = 0.0
    for (m0, m1, m2, m3, m4, m5), force in zip(model._columns, forces, strict=True):
        # Unrolled over the six components: the same products and sums, in order.
        t0 += m0 * force
        t1 += m1 * force
        t2 += m2 * force
        t3 += m3 * force
        t4 += m4 * force
        t5 += m5 * force
    tau = (t0, t1, t2, t3, t4, t5)

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
