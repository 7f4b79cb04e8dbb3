"""Device code of the batched vehicles: the float32 model, its RK4 step and the keyed reset.

NOT CANONICAL. The equations, the differences from the canonical tier and the compile
options are documented in :mod:`leviathan.learning.vehicles`, whose
:class:`~leviathan.learning.vehicles.BatchedVehicles` launches these kernels; this module
holds only structs, device functions and kernels.
"""

from __future__ import annotations

import math
from typing import Any

import warp as wp

from leviathan.learning._device_funcs import keyed_uniform, rotation_normalised

wp.set_module_options({"fuse_fp": False, "fast_math": False, "enable_backward": False})

# Parameter indices of the keyed draws (part of the reproducibility contract: never reorder).
_DRAW_MASS = wp.constant(0)
_DRAW_DAMPING = wp.constant(1)
_DRAW_CURRENT_DIRECTION = wp.constant(2)
_DRAW_CURRENT_SPEED = wp.constant(3)

_TWO_PI = wp.constant(wp.float32(2.0 * math.pi))


# --------------------------------------------------------------------------- structs


@wp.struct
class Body:
    """Parameters of one vehicle, float32, body FRD at the CG (nominal, or scaled per env)."""

    mass_kg: wp.float32
    inertia_kg_m2: wp.vec3f  # Ixx, Iyy, Izz
    added_linear: wp.vec3f  # M_A diagonal, surge sway heave [kg]
    added_angular: wp.vec3f  # M_A diagonal, roll pitch yaw [kg m²]
    inv_mass_linear: wp.vec3f  # 1 / (M_RB + M_A), surge sway heave
    inv_mass_angular: wp.vec3f  # 1 / (M_RB + M_A), roll pitch yaw
    damping_linear_v: wp.vec3f  # D_l, surge sway heave
    damping_linear_w: wp.vec3f  # D_l, roll pitch yaw
    damping_quadratic_v: wp.vec3f  # d_q, surge sway heave
    damping_quadratic_w: wp.vec3f  # d_q, roll pitch yaw
    weight_n: wp.float32
    buoyancy_n: wp.float32
    cb_m: wp.vec3f  # centre of buoyancy in body FRD [m]


@wp.struct
class Thrusters:
    """Per-thruster columns of the thrust matrix, limits and time constants, (T,) each."""

    column: wp.array(dtype=wp.spatial_vectorf)  # (direction, moment arm r × d): T's column
    min_n: wp.array(dtype=wp.float32)
    max_n: wp.array(dtype=wp.float32)
    time_constant_s: wp.array(dtype=wp.float32)


@wp.struct
class VehicleArrays:
    """The state and drawn parameters of :class:`~leviathan.learning.vehicles.BatchedVehicles`.

    Built once by the vehicles from arrays that are never rebound, so every kernel that
    reads or writes vehicle state (step, reset, sensing) takes this one struct.
    """

    position_ned: wp.array(dtype=wp.vec3f)
    attitude_q: wp.array(dtype=wp.vec4f)
    linear_velocity: wp.array(dtype=wp.vec3f)
    angular_velocity: wp.array(dtype=wp.vec3f)
    thrust_n: wp.array2d(dtype=wp.float32)
    mass_scale: wp.array(dtype=wp.float32)
    damping_scale: wp.array(dtype=wp.float32)
    current_ned: wp.array(dtype=wp.vec3f)


@wp.struct
class DrawRanges:
    """The :class:`~leviathan.learning.vehicles.Randomization` ranges, ``(low, high)`` each."""

    mass_scale: wp.vec2f
    damping_scale: wp.vec2f
    current_speed_m_s: wp.vec2f


# --------------------------------------------------------------------------- device functions


@wp.func
def _scaled(body: Body, sm: wp.float32, sd: wp.float32) -> Body:
    """``body`` of one env: ``sm`` scales every inertia and both restoring forces (the
    vehicle keeps its trim), ``sd`` scales both damping terms."""
    b = Body()
    b.mass_kg = body.mass_kg * sm
    b.inertia_kg_m2 = body.inertia_kg_m2 * sm
    b.added_linear = body.added_linear * sm
    b.added_angular = body.added_angular * sm
    b.inv_mass_linear = body.inv_mass_linear / sm
    b.inv_mass_angular = body.inv_mass_angular / sm
    b.damping_linear_v = body.damping_linear_v * sd
    b.damping_linear_w = body.damping_linear_w * sd
    b.damping_quadratic_v = body.damping_quadratic_v * sd
    b.damping_quadratic_w = body.damping_quadratic_w * sd
    b.weight_n = body.weight_n * sm
    b.buoyancy_n = body.buoyancy_n * sm
    b.cb_m = body.cb_m
    return b


@wp.func
def _derivative(
    q: wp.vec4f,
    v: wp.vec3f,
    w: wp.vec3f,
    tau: wp.spatial_vectorf,
    current_ned: wp.vec3f,
    b: Body,
):
    """``(ṗ_ned, q̇, v̇, ω̇)`` of :func:`leviathan.dynamics._equations._derivative`, in float32.

    ``tau`` is the thrusters' generalised force ``T f``: force (3) then moment (3).
    """
    tau_v = wp.spatial_top(tau)
    tau_w = wp.spatial_bottom(tau)
    # R_world_body from the normalised q, as leviathan.dynamics.rotation_rows_from_quaternion.
    rot = rotation_normalised(q)
    rot_t = wp.transpose(rot)
    current_body = rot_t @ current_ned
    v_rel = v - current_body

    # Restoring: net weight along R^T e_down, buoyancy moment about the CG.
    down_body = wp.vec3f(rot[2, 0], rot[2, 1], rot[2, 2])
    restoring_v = (b.weight_n - b.buoyancy_n) * down_body
    restoring_w = wp.cross(b.cb_m, (-b.buoyancy_n) * down_body)

    # C_RB(ν) ν = (m ω×v, ω×(I ω)).
    crb_v = b.mass_kg * wp.cross(w, v)
    crb_w = wp.cross(w, wp.cw_mul(b.inertia_kg_m2, w))
    # C_A(ν_r) ν_r = (ω×a, v_r×a + ω×b), a = M_A11 v_r, b = M_A22 ω.
    added_v = b.added_linear
    a = wp.cw_mul(added_v, v_rel)
    bw = wp.cw_mul(b.added_angular, w)
    ca_v = wp.cross(w, a)
    ca_w = wp.cross(v_rel, a) + wp.cross(w, bw)
    # D(ν_r) ν_r, diagonal linear plus quadratic.
    drag_v = wp.cw_mul(b.damping_linear_v + wp.cw_mul(b.damping_quadratic_v, wp.abs(v_rel)), v_rel)
    drag_w = wp.cw_mul(b.damping_linear_w + wp.cw_mul(b.damping_quadratic_w, wp.abs(w)), w)
    # M_A ν̇_c with ν̇_c = (−ω × v_c,body, 0) for a current constant in NED.
    mac = wp.cw_mul(added_v, -wp.cross(w, current_body))

    v_dot = wp.cw_mul((((tau_v + restoring_v) - crb_v) - ca_v) - drag_v + mac, b.inv_mass_linear)
    w_dot = wp.cw_mul((((tau_w + restoring_w) - crb_w) - ca_w) - drag_w, b.inv_mass_angular)

    position_dot = rot @ v
    half = wp.float32(0.5)
    # q̇ = ½ q ⊗ (0, ω), Hamilton product, on the unnormalised stage quaternion.
    quaternion_dot = wp.vec4f(
        half * -((q[1] * w[0] + q[2] * w[1]) + q[3] * w[2]),
        half * ((q[0] * w[0] + q[2] * w[2]) - q[3] * w[1]),
        half * ((q[0] * w[1] + q[3] * w[0]) - q[1] * w[2]),
        half * ((q[0] * w[2] + q[1] * w[1]) - q[2] * w[0]),
    )
    return position_dot, quaternion_dot, v_dot, w_dot


@wp.func
def _rk4_sum(h: wp.float32, k1: Any, k2: Any, k3: Any, k4: Any):
    """``h / 6 · ((k1 + 2 k2) + 2 k3) + k4)``, the RK4 increment in the written order."""
    two = wp.float32(2.0)
    return (h / wp.float32(6.0)) * (((k1 + two * k2) + two * k3) + k4)


@wp.func
def _uniform_in(seed: wp.uint32, env: wp.uint32, parameter: int, bounds: wp.vec2f):
    """Uniform in [low, high) = ``bounds`` from the vehicle's keyed draw ``parameter``."""
    low = bounds[0]
    return low + (bounds[1] - low) * keyed_uniform(seed, env, wp.uint32(parameter))


# --------------------------------------------------------------------------- kernels


@wp.kernel
def step_kernel(
    commands_n: wp.array2d(dtype=wp.float32),
    body: Body,
    thrusters: Thrusters,
    dt_s: wp.float32,
    s: VehicleArrays,
):
    i = wp.tid()
    h = dt_s
    half = wp.float32(0.5) * h
    b = _scaled(body, s.mass_scale[i], s.damping_scale[i])
    current = s.current_ned[i]

    # Saturated command held over the step; exact first-order response at 0, h/2, h.
    tau_0 = wp.spatial_vectorf(0.0)
    tau_h = wp.spatial_vectorf(0.0)
    tau_1 = wp.spatial_vectorf(0.0)
    for j in range(s.thrust_n.shape[1]):
        command = wp.min(wp.max(commands_n[i, j], thrusters.min_n[j]), thrusters.max_n[j])
        f_start = command
        f_half = command
        f_end = command
        tc = thrusters.time_constant_s[j]
        if tc > wp.float32(0.0):
            f0 = s.thrust_n[i, j]
            offset = f0 - command
            f_start = f0
            f_half = command + offset * wp.exp(-half / tc)
            f_end = command + offset * wp.exp(-h / tc)
        column = thrusters.column[j]
        tau_0 += column * f_start
        tau_h += column * f_half
        tau_1 += column * f_end
        s.thrust_n[i, j] = f_end

    p0 = s.position_ned[i]
    q0 = s.attitude_q[i]
    v0 = s.linear_velocity[i]
    w0 = s.angular_velocity[i]

    kp1, kq1, kv1, kw1 = _derivative(q0, v0, w0, tau_0, current, b)
    kp2, kq2, kv2, kw2 = _derivative(
        q0 + half * kq1, v0 + half * kv1, w0 + half * kw1, tau_h, current, b
    )
    kp3, kq3, kv3, kw3 = _derivative(
        q0 + half * kq2, v0 + half * kv2, w0 + half * kw2, tau_h, current, b
    )
    kp4, kq4, kv4, kw4 = _derivative(q0 + h * kq3, v0 + h * kv3, w0 + h * kw3, tau_1, current, b)

    s.position_ned[i] = p0 + _rk4_sum(h, kp1, kp2, kp3, kp4)
    q = q0 + _rk4_sum(h, kq1, kq2, kq3, kq4)
    norm = wp.sqrt(((q[0] * q[0] + q[1] * q[1]) + q[2] * q[2]) + q[3] * q[3])
    s.attitude_q[i] = q / norm
    s.linear_velocity[i] = v0 + _rk4_sum(h, kv1, kv2, kv3, kv4)
    s.angular_velocity[i] = w0 + _rk4_sum(h, kw1, kw2, kw3, kw4)


@wp.kernel
def reset_kernel(
    env_mask: wp.array(dtype=wp.int32),
    new_position_ned: wp.array(dtype=wp.vec3f),
    new_yaw_rad: wp.array(dtype=wp.float32),
    seeds: wp.array(dtype=wp.uint32),
    ranges: DrawRanges,
    s: VehicleArrays,
):
    i = wp.tid()
    if env_mask[i] == 0:
        return
    s.position_ned[i] = new_position_ned[i]
    half_yaw = wp.float32(0.5) * new_yaw_rad[i]
    # Level attitude with heading ψ: a rotation about body down, q = (cos ψ/2, 0, 0, sin ψ/2).
    s.attitude_q[i] = wp.vec4f(wp.cos(half_yaw), wp.float32(0.0), wp.float32(0.0), wp.sin(half_yaw))
    s.linear_velocity[i] = wp.vec3f(0.0)
    s.angular_velocity[i] = wp.vec3f(0.0)
    for j in range(s.thrust_n.shape[1]):
        s.thrust_n[i, j] = wp.float32(0.0)

    seed = seeds[i]
    env = wp.uint32(i)
    s.mass_scale[i] = _uniform_in(seed, env, _DRAW_MASS, ranges.mass_scale)
    s.damping_scale[i] = _uniform_in(seed, env, _DRAW_DAMPING, ranges.damping_scale)
    direction = _TWO_PI * keyed_uniform(seed, env, wp.uint32(_DRAW_CURRENT_DIRECTION))
    speed = _uniform_in(seed, env, _DRAW_CURRENT_SPEED, ranges.current_speed_m_s)
    s.current_ned[i] = wp.vec3f(speed * wp.cos(direction), speed * wp.sin(direction), 0.0)
