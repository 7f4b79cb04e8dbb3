"""Vehicle controllers with explicit, hashable state.

A controller is an immutable configuration plus an explicit state: a plain
JSON-like dict of floats and ints that the World commits and hashes with the
vehicle state. :meth:`Controller.command` is a pure function of its arguments;
it never mutates the state it is given and returns a new one::

    commands_n, controller_state = controller.command(
        model, vehicle_state, controller_state, time_ns=t, dt_ns=dt
    )

Controllers:

* :class:`DirectThrust` — constant thruster commands.
* :class:`Autopilot` — surge speed (PI), depth (cascaded PID) and heading (PD),
  plus a roll and pitch hold (PD to level), allocated with ``pinv(T)`` (exact
  rational arithmetic rounded once, so no BLAS/LAPACK kernel can change it).
* :class:`WaypointFollower` — line-of-sight guidance feeding the autopilot.

Gains are placed per vehicle from the model's diagonal mass and damping (the
pole-placement rules of Fossen 2011, §12.2): for an axis with inertia ``m``
(rigid body plus added mass) and linear damping ``d``, natural frequency
``ω_n`` and damping ratio ``ζ``: ``K_p = m ω_n²``, ``K_d = max(0, 2 ζ ω_n m − d)``,
``K_i = K_p ω_n / 10``. One set of frequencies therefore suits vehicles of
very different size.

Measured quantities are the true state (no sensor model): surge speed is ``u``,
the velocity over ground along body x (what a bottom-locked DVL measures), not
the speed through water; depth is the NED z of the CG.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np

from leviathan.dynamics import RigidBodyModel, VehicleState, _rotation_rows
from leviathan.time import NS_PER_SECOND

__all__ = [
    "Autopilot",
    "Controller",
    "DirectThrust",
    "WaypointFollower",
    "lawnmower",
]

_TWO_PI = 2.0 * math.pi


@runtime_checkable
class Controller(Protocol):
    """What the World needs from a controller."""

    kind: str

    def initial_state(self) -> dict:
        """Return the controller state at reset: a JSON-like dict of floats and ints."""
        ...

    def command(
        self,
        model: RigidBodyModel,
        state: VehicleState,
        controller_state: dict,
        *,
        time_ns: int,
        dt_ns: int,
    ) -> tuple[np.ndarray, dict]:
        """Return thruster commands [N], shape (n,), and the new controller state."""
        ...

    def __content__(self) -> dict:
        """Return the configuration for content hashing."""
        ...


# --------------------------------------------------------------------------- validation


def _real(name: str, value: Any, unit: str, *, minimum: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number [{unit}], got {value!r}")
    result = float(value)
    if not math.isfinite(result):
        raise ValueError(f"{name} must be finite [{unit}], got {value!r}")
    if minimum is not None and not result > minimum:
        raise ValueError(f"{name} must be > {minimum:g} [{unit}], got {value!r}")
    return result


def _non_negative(name: str, value: Any, unit: str) -> float:
    result = _real(name, value, unit)
    if result < 0.0:
        raise ValueError(f"{name} must be >= 0 [{unit}], got {value!r}")
    return result


def _dt_seconds(time_ns: Any, dt_ns: Any) -> float:
    for name, value in (("time_ns", time_ns), ("dt_ns", dt_ns)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"{name} must be an int of nanoseconds, got {value!r}")
    if dt_ns <= 0:
        raise ValueError(f"dt_ns must be a positive number of nanoseconds, got {dt_ns}")
    return int(dt_ns) / NS_PER_SECOND


def _require_keys(name: str, state: Any, keys: tuple[str, ...]) -> None:
    if not isinstance(state, Mapping) or set(state) != set(keys):
        given = sorted(state) if isinstance(state, Mapping) else type(state).__name__
        raise ValueError(
            f"{name} must be a dict with exactly the keys {sorted(keys)!r} "
            f"(start from initial_state()), got {given!r}"
        )


def _wrap_pi(angle: float) -> float:
    """Wrap to [-π, π] with ``math.remainder`` (exact)."""
    return math.remainder(angle, _TWO_PI)


# --------------------------------------------------------------------------- direct thrust


class DirectThrust:
    """Constant thruster commands.

    Args:
        commands_n: Commanded force per thruster [N], in the vehicle's thruster
            order. Checked against the thruster count at the first command.
    """

    __content_type__ = "leviathan.controllers.DirectThrust"

    kind = "direct_thrust"

    def __init__(self, commands_n: Sequence[float]) -> None:
        try:
            array = np.array(commands_n, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise ValueError(
                f"commands_n must be a sequence of real numbers [N], got {commands_n!r}"
            ) from error
        if array.ndim != 1 or not np.all(np.isfinite(array)):
            raise ValueError(
                f"commands_n must be a flat sequence of finite forces [N], got {commands_n!r}"
            )
        array.flags.writeable = False
        self._commands = array

    @property
    def commands_n(self) -> np.ndarray:
        """Commanded forces [N], read-only float64, shape (n,)."""
        return self._commands

    def initial_state(self) -> dict:
        """Return ``{}``: direct thrust has no state."""
        return {}

    def command(
        self,
        model: RigidBodyModel,
        state: VehicleState,
        controller_state: dict,
        *,
        time_ns: int,
        dt_ns: int,
    ) -> tuple[np.ndarray, dict]:
        """Return the configured commands [N], shape (n,), and ``{}``.

        Raises:
            ValueError: If the number of commands differs from the vehicle's thrusters.
        """
        _dt_seconds(time_ns, dt_ns)
        if self._commands.shape != (model.thruster_count,):
            raise ValueError(
                f"DirectThrust has {self._commands.shape[0]} commands but vehicle "
                f"{model.name!r} has {model.thruster_count} thrusters; give one force [N] "
                "per thruster in the vehicle's thruster order"
            )
        return self._commands.copy(), {}

    def __content__(self) -> dict:
        """Configuration for content hashing."""
        return {"kind": self.kind, "commands_n": self._commands}

    def __repr__(self) -> str:
        return f"DirectThrust(commands_n={self._commands.tolist()!r})"


# --------------------------------------------------------------------------- autopilot


def _allocate(model: RigidBodyModel, tau: tuple[float, ...]) -> list[float]:
    """Prioritised minimum-norm allocation of ``τ`` [N, N m], shape (6,), to thrusters.

    ``f = pinv(T) τ`` split by axis: the moments (K, M, N) are allocated
    first; then heave (Z), surge (X) and sway (Y) in that order, each scaled
    by the largest factor in [0, 1] that keeps every thruster within its
    limits given what is already allocated. The result is finally clipped, so
    a moment demand beyond the thrusters' authority is saturated. Sums run in
    a fixed order.
    """
    allocation = model.thrust_allocation.tolist()
    limits = model._limits
    forces = []
    for row in allocation:
        force = 0.0
        for axis in (3, 4, 5):
            force += row[axis] * tau[axis]
        forces.append(force)
    for axis in (2, 0, 1):
        demand = tau[axis]
        if demand == 0.0:
            continue
        scale = 1.0
        for row, force, (lo, hi) in zip(allocation, forces, limits, strict=True):
            extra = row[axis] * demand
            if extra > 0.0 and force + extra > hi:
                scale = min(scale, max(0.0, (hi - force) / extra))
            elif extra < 0.0 and force + extra < lo:
                scale = min(scale, max(0.0, (lo - force) / extra))
        forces = [
            force + scale * (row[axis] * demand)
            for row, force in zip(allocation, forces, strict=True)
        ]
    return [min(max(force, lo), hi) for force, (lo, hi) in zip(forces, limits, strict=True)]


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


class Autopilot:
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
            "speed_m_per_s": _real("speed_m_per_s", speed_m_per_s, "m/s"),
            "depth_m": _real("depth_m", depth_m, "m"),
            "heading_rad": _real("heading_rad", heading_rad, "rad"),
        }
        for name, (value, unit) in positive.items():
            config[name] = _real(name, value, unit, minimum=0.0)
        config["level_natural_frequency_rad_s"] = _non_negative(
            "level_natural_frequency_rad_s", level_natural_frequency_rad_s, "rad/s"
        )
        config["integral_limit_fraction"] = _non_negative(
            "integral_limit_fraction", integral_limit_fraction, "-"
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

    def command(
        self,
        model: RigidBodyModel,
        state: VehicleState,
        controller_state: dict,
        *,
        time_ns: int,
        dt_ns: int,
    ) -> tuple[np.ndarray, dict]:
        """Return saturated thruster commands [N], shape (n,), and the new integrals.

        Raises:
            ValueError: If ``controller_state`` does not have the keys of
                :meth:`initial_state`, or ``dt_ns`` is not positive.
        """
        dt_s = _dt_seconds(time_ns, dt_ns)
        _require_keys("controller_state", controller_state, self._STATE_KEYS)
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
        peaks = [max(abs(lo), abs(hi)) for lo, hi in model._limits]
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
        rot = _rotation_rows(*state.attitude_q.tolist())
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
        d_u = model._d_linear[0]
        d_uu = model._d_quadratic[0]
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
        z = ((model.buoyancy_n - model.weight_n) + model._d_linear[2] * rate_demand) + (
            gains.kp_rate * (rate_demand - depth_rate)
        )

        # Munk moment on the hull is −(v × a) with a = M_A11 v; cancel it.
        a0, a1, a2 = model._added[:3]
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


# --------------------------------------------------------------------------- waypoints


def _waypoint_array(waypoints_ned: Any) -> tuple[tuple[float, float, float], ...]:
    try:
        array = np.array(waypoints_ned, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"waypoints_ned must be a sequence of (north, east, depth) [m], got {waypoints_ned!r}"
        ) from error
    if array.ndim != 2 or array.shape[1] != 3 or array.shape[0] == 0:
        raise ValueError(
            "waypoints_ned must be a non-empty sequence of (north, east, depth) [m], "
            f"shape (k, 3), got shape {array.shape}"
        )
    if not np.all(np.isfinite(array)):
        raise ValueError(f"waypoints_ned must be finite, got {array.tolist()!r}")
    return tuple(tuple(row) for row in array.tolist())


class WaypointFollower:
    """Line-of-sight waypoint guidance over an :class:`Autopilot`.

    Waypoint k is active while ``controller_state["waypoint_index"] == k``; it
    is reached when the horizontal distance to it falls below
    ``acceptance_radius_m`` (depth is tracked by the depth loop, not checked).
    Towards the first waypoint the vehicle steers straight at it; towards
    waypoint k > 0 it follows the segment from waypoint k − 1 with
    line-of-sight guidance ``ψ_d = α_k + atan2(−e, Δ)``, where ``α_k`` is the
    segment's azimuth, ``e`` the cross-track error (positive to starboard of the
    path) and ``Δ`` the lookahead distance. The depth setpoint is the active
    waypoint's depth. Heading, not course, is commanded: a cross current is
    rejected only through the cross-track term.

    When the last waypoint is reached (``waypoint_index == len(waypoints)``),
    the follower holds the heading it was commanding at that moment
    (``hold_heading_rad``) and the last waypoint's depth at zero speed.

    Args:
        waypoints_ned: Waypoints ``(north, east, depth)`` [m], shape (k, 3), k >= 1.
        speed_m_per_s: Surge speed over ground while following [m/s].
        acceptance_radius_m: Horizontal acceptance radius [m], > 0.
        lookahead_m: Line-of-sight lookahead distance Δ [m], > 0.
        autopilot_options: Gain options passed to :class:`Autopilot`.
    """

    __content_type__ = "leviathan.controllers.WaypointFollower"

    kind = "waypoint_follower"

    def __init__(
        self,
        waypoints_ned: Sequence[Sequence[float]],
        *,
        speed_m_per_s: float,
        acceptance_radius_m: float,
        lookahead_m: float = 5.0,
        **autopilot_options: float,
    ) -> None:
        self._waypoints = _waypoint_array(waypoints_ned)
        self._speed = _real("speed_m_per_s", speed_m_per_s, "m/s")
        self._radius = _real("acceptance_radius_m", acceptance_radius_m, "m", minimum=0.0)
        self._lookahead = _real("lookahead_m", lookahead_m, "m", minimum=0.0)
        first = self._waypoints[0]
        self._autopilot = Autopilot(
            speed_m_per_s=self._speed, depth_m=first[2], heading_rad=0.0, **autopilot_options
        )

    @property
    def waypoints_ned(self) -> tuple[tuple[float, float, float], ...]:
        """Waypoints ``(north, east, depth)`` [m]."""
        return self._waypoints

    @property
    def acceptance_radius_m(self) -> float:
        """Horizontal acceptance radius [m]."""
        return self._radius

    def __content__(self) -> dict:
        """Configuration for content hashing."""
        gains = self._autopilot.config()
        for key in ("speed_m_per_s", "depth_m", "heading_rad"):
            gains.pop(key)
        return {
            "kind": self.kind,
            "waypoints_ned": [list(w) for w in self._waypoints],
            "speed_m_per_s": self._speed,
            "acceptance_radius_m": self._radius,
            "lookahead_m": self._lookahead,
            "autopilot": gains,
        }

    def __repr__(self) -> str:
        return (
            f"WaypointFollower({len(self._waypoints)} waypoints, speed_m_per_s={self._speed!r}, "
            f"acceptance_radius_m={self._radius!r}, lookahead_m={self._lookahead!r})"
        )

    def initial_state(self) -> dict:
        """Return ``{"waypoint_index": 0, "hold_heading_rad": 0.0, "autopilot": {...}}``."""
        return {
            "waypoint_index": 0,
            "hold_heading_rad": 0.0,
            "autopilot": self._autopilot.initial_state(),
        }

    def _desired_heading(self, index: int, north: float, east: float) -> float:
        target = self._waypoints[index]
        if index == 0:
            return math.atan2(target[1] - east, target[0] - north)
        start = self._waypoints[index - 1]
        azimuth = math.atan2(target[1] - start[1], target[0] - start[0])
        cross_track = -(north - start[0]) * math.sin(azimuth) + (east - start[1]) * math.cos(
            azimuth
        )
        return azimuth + math.atan2(-cross_track, self._lookahead)

    def command(
        self,
        model: RigidBodyModel,
        state: VehicleState,
        controller_state: dict,
        *,
        time_ns: int,
        dt_ns: int,
    ) -> tuple[np.ndarray, dict]:
        """Return thruster commands [N], shape (n,), and the new follower state."""
        dt_s = _dt_seconds(time_ns, dt_ns)
        _require_keys(
            "controller_state",
            controller_state,
            ("autopilot", "hold_heading_rad", "waypoint_index"),
        )
        _require_keys(
            "controller_state['autopilot']", controller_state["autopilot"], Autopilot._STATE_KEYS
        )
        index = controller_state["waypoint_index"]
        count = len(self._waypoints)
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index <= count:
            raise ValueError(
                f"controller_state['waypoint_index'] must be an int in [0, {count}], got {index!r}"
            )
        hold_heading = float(controller_state["hold_heading_rad"])
        north, east = (float(c) for c in state.position_ned_m[:2])
        # Advance past every waypoint already inside the acceptance circle.
        while index < count:
            target = self._waypoints[index]
            if math.hypot(target[0] - north, target[1] - east) >= self._radius:
                break
            hold_heading = self._desired_heading(index, north, east)
            index += 1
        if index < count:
            speed = self._speed
            heading = self._desired_heading(index, north, east)
            depth = self._waypoints[index][2]
        else:
            speed = 0.0
            heading = hold_heading
            depth = self._waypoints[-1][2]
        commands, autopilot_state = self._autopilot._track(
            model,
            state,
            controller_state["autopilot"],
            speed_m_per_s=speed,
            depth_m=depth,
            heading_rad=heading,
            dt_s=dt_s,
        )
        new_state = {
            "waypoint_index": index,
            "hold_heading_rad": hold_heading,
            "autopilot": autopilot_state,
        }
        return commands, new_state


def lawnmower(
    *,
    origin_ne: Sequence[float],
    heading_rad: float,
    leg_length_m: float,
    leg_spacing_m: float,
    legs: int,
    depth_m: float,
) -> list[tuple[float, float, float]]:
    """Waypoints of a lawnmower (boustrophedon) survey.

    Leg i starts ``i * leg_spacing_m`` to starboard of ``origin_ne`` (measured
    perpendicular to ``heading_rad``) and runs ``leg_length_m`` along the
    heading for even i, against it for odd i.

    Args:
        origin_ne: Start of the first leg (north, east) [m].
        heading_rad: Direction of the first leg [rad], clockwise from north.
        leg_length_m: Length of each leg [m], > 0.
        leg_spacing_m: Distance between legs [m], > 0.
        legs: Number of legs, >= 1.
        depth_m: Depth of every waypoint [m].

    Returns:
        ``2 * legs`` waypoints ``(north, east, depth)`` [m]: start and end of each leg.
    """
    if len(origin_ne) != 2:
        raise ValueError(f"origin_ne must be (north, east) [m], got {origin_ne!r}")
    north0 = _real("origin_ne[0]", origin_ne[0], "m")
    east0 = _real("origin_ne[1]", origin_ne[1], "m")
    heading = _real("heading_rad", heading_rad, "rad")
    length = _real("leg_length_m", leg_length_m, "m", minimum=0.0)
    spacing = _real("leg_spacing_m", leg_spacing_m, "m", minimum=0.0)
    depth = _real("depth_m", depth_m, "m")
    if isinstance(legs, bool) or not isinstance(legs, numbers.Integral) or legs < 1:
        raise ValueError(f"legs must be an int >= 1, got {legs!r}")
    forward = (math.cos(heading), math.sin(heading))
    starboard = (-forward[1], forward[0])
    waypoints = []
    for leg in range(int(legs)):
        start_n = north0 + leg * spacing * starboard[0]
        start_e = east0 + leg * spacing * starboard[1]
        end_n = start_n + length * forward[0]
        end_e = start_e + length * forward[1]
        ends = [(start_n, start_e, depth), (end_n, end_e, depth)]
        waypoints.extend(ends if leg % 2 == 0 else ends[::-1])
    return waypoints
