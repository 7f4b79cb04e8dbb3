"""Speed, depth and heading autopilot with a level-attitude hold."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np

from leviathan._validation import check_finite, check_keys
from leviathan.controllers._allocation import _allocate
from leviathan.controllers._protocol import _ControllerBase
from leviathan.dynamics import RigidBodyModel, VehicleState, rotation_rows_from_quaternion

_TWO_PI = 2.0 * math.pi


def _wrap_pi(angle: float) -> float:
    """Wrap to [-π, π] with ``math.remainder`` (exact)."""
    return math.remainder(angle, _TWO_PI)


class _Gains(NamedTuple):
    """Per-model autopilot gains (see :class:`Autopilot`)."""

    kp_u: float
    ki_u: float
    limit_u: float
    kp_rate: float
    limit_z: float
    kp_phi: float
    kd_phi: float
    kp_theta: float
    kd_theta: float
    kp_psi: float
    kd_psi: float


class Autopilot(_ControllerBase):
    """Speed, depth and heading autopilot with a level-attitude hold.

    Control laws (errors are setpoint minus measurement; the heading error is
    wrapped to [−π, π]; ``m_i`` and ``d_i`` are the model's diagonal inertia
    ``M_RB + M_A`` and linear damping):

    * surge, PI with the model's steady drag as feedforward:
      ``X = d_lu u_d + d_qu u_d |u_d| + K_p e_u + K_i ∫e_u``,
      ``K_p = m_u λ_u``, ``K_i = K_p λ_u / 4``;
    * depth, PI on depth giving a rate demand, P on the rate (a cascaded PID
      with the derivative on the measured rate):
      ``ż_d = clamp(λ_z e_z + (λ_z² / 4) ∫e_z, ±max_depth_rate)``,
      ``Z = (B − W) + d_w ż_d + 4 λ_z m_w (ż_d − ż)``. Limiting the rate keeps the
      heave velocity, and with it the Munk pitch moment, within what the
      thrusters can hold;
    * roll and pitch, PD to level, ``K = −K_p φ − K_d p``, ``M = −K_p θ − K_d q``;
    * heading, PD, ``N = K_p e_ψ − K_d r``;
    * ``Y = 0``.

    Roll, pitch and heading gains are placed from ``ω_n`` and ``ζ``
    (``K_p = m ω_n²``, ``K_d = max(0, 2 ζ ω_n m − d)``), and K, M, N also cancel
    the modelled added-mass (Munk) moment ``−(v × M_A11 v)`` computed with the
    velocity over ground. The level hold is needed because a bare hull is
    unstable in pitch and yaw at speed: the Munk moment outgrows the metacentric
    restoring moment. Set ``level_natural_frequency_rad_s=0`` to leave roll and
    pitch to the restoring moment alone.

    ``τ = (X, 0, Z, K, M, N)`` is allocated with the minimum-norm inverse
    ``pinv(T)`` of the thruster configuration matrix, moments first (see
    :func:`_allocate`), then saturated. Anti-windup: ``∫e_u`` is clamped so that
    ``|K_i ∫e_u|`` stays within ``integral_limit_fraction`` of the surge force
    authority, and ``∫e_z`` so that its rate demand stays within
    ``max_depth_rate_m_per_s``.

    Args:
        speed_m_per_s: Commanded surge speed over ground [m/s].
        depth_m: Commanded depth [m].
        heading_rad: Commanded heading [rad], any value (wrapped).
        speed_bandwidth_rad_s: Surge loop bandwidth λ_u [rad/s], > 0.
        depth_bandwidth_rad_s: Depth loop bandwidth λ_z [rad/s], > 0.
        max_depth_rate_m_per_s: Largest commanded depth rate [m/s], > 0.
        heading_natural_frequency_rad_s: Heading loop ω_n [rad/s], > 0.
        heading_damping_ratio: Heading loop ζ [-], > 0.
        level_natural_frequency_rad_s: Roll and pitch hold ω_n [rad/s], >= 0 (0 = off).
        level_damping_ratio: Roll and pitch hold ζ [-], > 0.
        integral_limit_fraction: Surge anti-windup limit as a fraction of the
            surge force authority [-], >= 0.
    """

    __content_type__ = "leviathan.controllers.Autopilot"

    kind = "autopilot"
    _STATE_KEYS = ("depth_integral_m_s", "speed_integral_m")

    def __init__(
        self,
        *,
        speed_m_per_s: float,
        depth_m: float,
        heading_rad: float,
        speed_bandwidth_rad_s: float = 0.5,
        depth_bandwidth_rad_s: float = 0.5,
        max_depth_rate_m_per_s: float = 0.25,
        heading_natural_frequency_rad_s: float = 1.0,
        heading_damping_ratio: float = 1.0,
        level_natural_frequency_rad_s: float = 1.5,
        level_damping_ratio: float = 1.0,
        integral_limit_fraction: float = 0.5,
    ) -> None:
        positive = {
            "speed_bandwidth_rad_s": (speed_bandwidth_rad_s, "rad/s"),
            "depth_bandwidth_rad_s": (depth_bandwidth_rad_s, "rad/s"),
            "max_depth_rate_m_per_s": (max_depth_rate_m_per_s, "m/s"),
            "heading_natural_frequency_rad_s": (heading_natural_frequency_rad_s, "rad/s"),
            "heading_damping_ratio": (heading_damping_ratio, "-"),
            "level_damping_ratio": (level_damping_ratio, "-"),
        }
        config = {
            "speed_m_per_s": check_finite("speed_m_per_s", speed_m_per_s, unit="m/s"),
            "depth_m": check_finite("depth_m", depth_m, unit="m"),
            "heading_rad": check_finite("heading_rad", heading_rad, unit="rad"),
        }
        for name, (value, unit) in positive.items():
            config[name] = check_finite(name, value, unit=unit, above=0.0)
        config["level_natural_frequency_rad_s"] = check_finite(
            "level_natural_frequency_rad_s",
            level_natural_frequency_rad_s,
            unit="rad/s",
            at_least=0.0,
        )
        config["integral_limit_fraction"] = check_finite(
            "integral_limit_fraction", integral_limit_fraction, unit="-", at_least=0.0
        )
        self._config = dict(sorted(config.items()))
        self._gain_cache: dict[int, tuple[RigidBodyModel, _Gains]] = {}

    def __getattr__(self, name: str) -> float:
        config = self.__dict__.get("_config", {})
        if name in config:
            return config[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def config(self) -> dict[str, float]:
        """Return the configuration: setpoints and gain options, keyed by argument name."""
        return dict(self._config)

    def __content__(self) -> dict:
        """Configuration for content hashing."""
        return {"kind": self.kind, **self._config}

    def __repr__(self) -> str:
        fields = ", ".join(f"{key}={value!r}" for key, value in self._config.items())
        return f"Autopilot({fields})"

    def initial_state(self) -> dict:
        """Return zeroed integrals: ``{"depth_integral_m_s": 0.0, "speed_integral_m": 0.0}``."""
        return {"depth_integral_m_s": 0.0, "speed_integral_m": 0.0}

    def _command(
        self, model: RigidBodyModel, state: VehicleState, controller_state: dict, dt_s: float
    ) -> tuple[np.ndarray, dict]:
        """Saturated thruster commands [N], shape (n,), and the new integrals.

        Raises:
            ValueError: If ``controller_state`` does not have the keys of :meth:`initial_state`.
        """
        check_keys("controller_state", controller_state, self._STATE_KEYS)
        config = self._config
        return self._track(
            model,
            state,
            controller_state,
            speed_m_per_s=config["speed_m_per_s"],
            depth_m=config["depth_m"],
            heading_rad=config["heading_rad"],
            dt_s=dt_s,
        )

    def _gains(self, model: RigidBodyModel) -> _Gains:
        """Per-model gains, computed once per model object."""
        cached = self._gain_cache.get(id(model))
        if cached is not None and cached[0] is model:
            return cached[1]
        config = self._config
        inertia = np.diag(model.M).tolist()
        damping = np.diag(model.D_linear).tolist()
        # Force authority per axis, sum_j |T_ij| max(|min_j|, |max_j|), summed over the
        # thrusters in their declared order (no BLAS call on a canonical path).
        peaks = [max(abs(lo), abs(hi)) for lo, hi in model.thrust_limits_n]
        authority = []
        for row in model.thruster_matrix.tolist():
            total = 0.0
            for entry, peak in zip(row, peaks, strict=True):
                total += abs(entry) * peak
            authority.append(total)

        def pd(axis: int, omega: float, zeta: float) -> tuple[float, float]:
            if omega == 0.0:
                return 0.0, 0.0
            kp = inertia[axis] * omega * omega
            return kp, max(0.0, 2.0 * zeta * omega * inertia[axis] - damping[axis])

        speed_bw = config["speed_bandwidth_rad_s"]
        kp_u = inertia[0] * speed_bw
        ki_u = kp_u * speed_bw / 4.0
        depth_bw = config["depth_bandwidth_rad_s"]
        level = (config["level_natural_frequency_rad_s"], config["level_damping_ratio"])
        heading = (config["heading_natural_frequency_rad_s"], config["heading_damping_ratio"])
        gains = _Gains(
            kp_u,
            ki_u,
            config["integral_limit_fraction"] * authority[0] / ki_u,
            4.0 * depth_bw * inertia[2],
            config["max_depth_rate_m_per_s"] / (depth_bw * depth_bw / 4.0),
            *pd(3, *level),
            *pd(4, *level),
            *pd(5, *heading),
        )
        self._gain_cache[id(model)] = (model, gains)
        return gains

    def _track(
        self,
        model: RigidBodyModel,
        state: VehicleState,
        controller_state: Mapping[str, Any],
        *,
        speed_m_per_s: float,
        depth_m: float,
        heading_rad: float,
        dt_s: float,
    ) -> tuple[np.ndarray, dict]:
        """Control law for given setpoints; shared with :class:`WaypointFollower`."""
        gains = self._gains(model)
        config = self._config
        u, v, w, p, q, r = state.velocity_body.tolist()
        rot = rotation_rows_from_quaternion(*state.attitude_q.tolist())
        roll = math.atan2(rot[2][1], rot[2][2])
        pitch = math.atan2(-rot[2][0], math.hypot(rot[0][0], rot[1][0]))
        yaw = math.atan2(rot[1][0], rot[0][0])
        depth_rate = (rot[2][0] * u + rot[2][1] * v) + rot[2][2] * w
        depth = float(state.position_ned_m[2])

        error_u = speed_m_per_s - u
        limit_u = gains.limit_u
        integral_u = min(
            max(float(controller_state["speed_integral_m"]) + error_u * dt_s, -limit_u), limit_u
        )
        d_u = model.linear_damping_diagonal[0]
        d_uu = model.quadratic_damping_diagonal[0]
        x = (
            (d_u * speed_m_per_s + d_uu * speed_m_per_s * abs(speed_m_per_s)) + gains.kp_u * error_u
        ) + gains.ki_u * integral_u

        depth_bw = config["depth_bandwidth_rad_s"]
        max_rate = config["max_depth_rate_m_per_s"]
        error_z = depth_m - depth
        limit_z = gains.limit_z
        integral_z = min(
            max(float(controller_state["depth_integral_m_s"]) + error_z * dt_s, -limit_z), limit_z
        )
        rate_demand = depth_bw * error_z + (depth_bw * depth_bw / 4.0) * integral_z
        rate_demand = min(max(rate_demand, -max_rate), max_rate)
        z = (
            (model.buoyancy_n - model.weight_n) + model.linear_damping_diagonal[2] * rate_demand
        ) + (gains.kp_rate * (rate_demand - depth_rate))

        # Munk moment on the hull is −(v × a) with a = M_A11 v; cancel it.
        a0, a1, a2 = model.added_mass_diagonal[:3]
        ax, ay, az = a0 * u, a1 * v, a2 * w
        munk_k = v * az - w * ay
        munk_m = w * ax - u * az
        munk_n = u * ay - v * ax
        k = (munk_k - gains.kp_phi * roll) - gains.kd_phi * p
        m = (munk_m - gains.kp_theta * pitch) - gains.kd_theta * q
        n = (munk_n + gains.kp_psi * _wrap_pi(heading_rad - yaw)) - gains.kd_psi * r

        commands = _allocate(model, (x, 0.0, z, k, m, n))
        new_state = {"depth_integral_m_s": integral_z, "speed_integral_m": integral_u}
        return np.array(commands, dtype=np.float64), new_state
