"""Tasks of the learning tier: targets, rewards, terminations and truncations, on the device.

NOT CANONICAL: float32 Warp kernels, never content-hashed (see :mod:`leviathan.learning`).

A task owns two kernels (in :mod:`leviathan.learning._task_kernels`). Its *reset* kernel
draws, for every masked env, a start pose and the episode's targets from keyed seeds; its
*evaluate* kernel writes the task features at the front of the observation row, copies the
sensing row behind them, and scores the step.
The environment (:mod:`leviathan.learning.env`) decides when each runs (its autoreset mode).

Keyed seeds. Env ``i`` holds a base seed ``b_i`` (uint32, set by ``reset(seed=...)``) and an
episode counter ``e_i``. Each reset of the env takes the episode key
``k = H(b_i, i, e_i)`` and then increments ``e_i``; ``H`` is the keyed hash of
:mod:`leviathan.learning._device_funcs` (MurmurHash3's finaliser, integer arithmetic, identical
on every device). The vehicle draws its parameters from ``(k, i, 0..3)``; the task draws
its start pose and targets from ``(k, i, 64 + j)``, so the two never share a draw. An
episode is therefore a pure function of ``(b_i, i, e_i)`` and the task's parameters.

Observation row of every task: ``[task features (feature_count), sensing row]``; the
sensing layout is :class:`leviathan.learning.sensing.Sensing`'s. Features, per task:

* ``depth_heading_hold``: depth error [m] (depth − target, positive = too deep),
  sin and cos of the heading error (heading − target heading), elapsed fraction of the
  episode (steps / episode_steps).
* ``waypoint_reach``: waypoint in body FRD relative to the CG [m] (3), distance to it [m],
  elapsed fraction.
* ``altitude_survey``: altitude error [m] (measured DVL altitude − target), sin and cos of
  the heading error, surge speed error [m/s] (u − target), elapsed fraction.

Shared definitions: heading ψ = atan2(2(wz + xy), 1 − 2(y² + z²)) of ``q_world_body``;
angle errors are wrapped to (−π, π]; *tilt* is the angle between body down and world
down (``cos tilt = R[2, 2]``); *effort* is the mean over thrusters of
``(f / f_max)²`` with ``f`` the actual thrust and ``f_max = max(|min|, |max|)``.
The truncation of every task is ``steps >= episode_steps`` (steps counted since the
env's reset); it may coincide with a termination.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

import numpy as np
import warp as wp

from leviathan._validation import check_finite, check_integer, check_interval
from leviathan.learning._task_buffers import TaskBuffers, TaskContext
from leviathan.learning._task_kernels import (
    MODE_OBSERVE,
    MODE_SCORE,
    Box,
    Limits,
    ResetInputs,
    _evaluate_altitude_survey,
    _evaluate_depth_heading,
    _evaluate_waypoint,
    _reset_altitude_survey,
    _reset_depth_heading,
    _reset_waypoint,
)

__all__ = [
    "MODE_OBSERVE",
    "MODE_SCORE",
    "AltitudeSurvey",
    "DepthHeadingHold",
    "Task",
    "TaskBuffers",
    "TaskContext",
    "WaypointReach",
]


class Task:
    """A task: its parameters, observation features and the two kernels that run it.

    Subclasses are frozen dataclasses of parameters; :data:`leviathan.learning.TASKS`
    holds one default instance of each. The environment calls :meth:`launch_reset` and
    :meth:`launch_evaluate`; users choose a task by name or pass an instance with their
    own parameters.
    """

    name: ClassVar[str]
    feature_names: ClassVar[tuple[str, ...]]
    feature_low: ClassVar[tuple[float, ...]]
    feature_high: ClassVar[tuple[float, ...]]
    needs_terrain: ClassVar[bool] = False
    _reset_kernel: ClassVar[Any]
    _evaluate_kernel: ClassVar[Any]

    @property
    def feature_count(self) -> int:
        """Number of task features at the front of the observation row."""
        return len(self.feature_names)

    def make_terrain(self, device: str) -> Any:
        """The terrain this task needs when the environment is given none (or ``None``)."""
        return None

    def regions(self, terrain: Any) -> tuple[Any, Any]:
        """``(survey_box, start_region)`` of this task over ``terrain`` (``None`` if unused)."""
        return None, None

    def launch_reset(
        self, buffers: TaskBuffers, context: TaskContext, mask: wp.array, seed: int | None
    ) -> None:
        """Draw start poses and targets for the envs with ``mask[i] != 0`` (one launch).

        Args:
            buffers: The environment's task buffers.
            context: What the kernels read.
            mask: (N,) int32 reset flags.
            seed: New uint32 base seed for the masked envs (their episode counters restart
                at 0), or ``None`` to draw their next episode under the seeds they have.
        """
        head = ResetInputs()
        head.mask = mask
        head.reseed = 0 if seed is None else 1
        head.new_base = wp.uint32(0 if seed is None else seed)
        wp.launch(
            self._reset_kernel,
            dim=context.vehicles.num_envs,
            inputs=[head, buffers.state, *self._reset_parameters(context)],
            device=context.vehicles.device,
        )

    def launch_evaluate(self, buffers: TaskBuffers, context: TaskContext, mode: int) -> None:
        """Write features into ``buffers.observation`` and score the step (one launch).

        Args:
            buffers: The environment's task buffers.
            context: What the kernels read.
            mode: ``MODE_SCORE``: every env with ``buffers.reset_flags == 0`` counts a step
                and is scored; envs with the flag get their reset observation and reward
                0. ``MODE_OBSERVE``: only the flagged envs get their observation row.
        """
        # Every task has effort_weight, min_depth_m and max_tilt_rad fields.
        limits = Limits()
        limits.effort_weight = self.effort_weight  # type: ignore[attr-defined]
        limits.min_depth_m = self.min_depth_m  # type: ignore[attr-defined]
        limits.min_cos_tilt = math.cos(self.max_tilt_rad)  # type: ignore[attr-defined]
        wp.launch(
            self._evaluate_kernel,
            dim=context.vehicles.num_envs,
            inputs=[
                mode,
                buffers.state,
                context.inputs,
                limits,
                *self._evaluate_parameters(context),
            ],
            device=context.vehicles.device,
        )

    def _reset_parameters(self, context: TaskContext) -> tuple[Any, ...]:
        """The reset kernel's own arguments, after the shared ones."""
        raise NotImplementedError

    def _evaluate_parameters(self, context: TaskContext) -> tuple[Any, ...]:
        """The evaluate kernel's own arguments, after the shared ones."""
        raise NotImplementedError

    def __post_init__(self) -> None:
        # The subclasses' dataclass __init__ calls this inherited hook.
        self._check()

    def _check(self) -> None:
        """Validate every field (called by :meth:`__post_init__`)."""
        owner = type(self).__name__
        for item in fields(self):  # type: ignore[arg-type]
            value = getattr(self, item.name)
            kind = item.metadata.get("kind", "real")
            name = f"{owner}.{item.name}"
            low = item.metadata.get("low")
            if kind == "interval":
                checked = check_interval(name, value, at_least=low)
            elif kind == "int":
                checked = check_integer(name, value, low=0)
            elif item.metadata.get("strict", False):
                checked = check_finite(name, value, above=low)
            else:
                checked = check_finite(name, value, at_least=low)
            object.__setattr__(self, item.name, checked)


def _field(default: Any, *, kind: str = "real", low: float | None = None, strict: bool = False):
    return field(default=default, metadata={"kind": kind, "low": low, "strict": strict})


@dataclass(frozen=True)
class DepthHeadingHold(Task):
    """Hold a target depth and heading in open water (no terrain).

    Reset: start at NED ``(0, 0, d0)``, ``d0 ~ U(start_depth_m)``, level, at rest, heading
    ``~ U(−π, π)``; target depth ``d0 + U(target_depth_offset_m)``, target heading
    ``~ U(−π, π)``.

    Reward per step (at most 1): ``0.5 exp(−(e_d / depth_scale_m)²) + 0.5 exp(−(e_ψ /
    heading_scale_rad)²) − effort_weight · effort`` with ``e_d`` the depth error [m] and
    ``e_ψ`` the wrapped heading error [rad].

    Terminated: ``|e_d| > max_depth_error_m``, or depth ``< min_depth_m`` (broached), or
    tilt ``> max_tilt_rad``. Truncated: ``episode_steps`` steps.

    Features: ``e_d`` [m], ``sin e_ψ``, ``cos e_ψ``, elapsed fraction.
    Targets row: ``(target depth [m], target heading [rad], 0, 0)``.
    """

    name: ClassVar[str] = "depth_heading_hold"
    _reset_kernel: ClassVar[Any] = _reset_depth_heading
    _evaluate_kernel: ClassVar[Any] = _evaluate_depth_heading
    feature_names: ClassVar[tuple[str, ...]] = (
        "depth_error_m",
        "sin_heading_error",
        "cos_heading_error",
        "elapsed_fraction",
    )
    feature_low: ClassVar[tuple[float, ...]] = (-np.inf, -1.0, -1.0, 0.0)
    feature_high: ClassVar[tuple[float, ...]] = (np.inf, 1.0, 1.0, 1.0)

    start_depth_m: tuple[float, float] = _field((5.0, 25.0), kind="interval", low=0.0)
    target_depth_offset_m: tuple[float, float] = _field((-3.0, 3.0), kind="interval")
    depth_scale_m: float = _field(1.0, low=0.0, strict=True)
    heading_scale_rad: float = _field(0.5, low=0.0, strict=True)
    effort_weight: float = _field(0.05, low=0.0)
    max_depth_error_m: float = _field(6.0, low=0.0, strict=True)
    min_depth_m: float = _field(0.5)
    max_tilt_rad: float = _field(math.pi / 3.0, low=0.0, strict=True)

    def _reset_parameters(self, context: TaskContext) -> tuple[Any, ...]:
        return (*self.start_depth_m, *self.target_depth_offset_m)

    def _evaluate_parameters(self, context: TaskContext) -> tuple[Any, ...]:
        return (self.depth_scale_m, self.heading_scale_rad, self.max_depth_error_m)


@dataclass(frozen=True)
class WaypointReach(Task):
    """Reach a waypoint in open water (no terrain).

    Reset: start at NED ``(0, 0, d0)``, ``d0 ~ U(start_depth_m)``, level, at rest, heading
    ``~ U(−π, π)``; the waypoint lies at a horizontal distance ``~ U(distance_m)`` on a
    bearing ``~ U(−π, π)`` and depth ``max(d0 + U(depth_offset_m), min_target_depth_m)``.

    Reward per step: progress ``(previous distance − distance)`` [m] ``− time_penalty −
    effort_weight · effort``, plus ``reach_bonus`` on the step that reaches it.

    Terminated: distance ``< reach_radius_m`` (success), or distance ``> max_distance_m``
    (left the box), or depth ``< min_depth_m``, or tilt ``> max_tilt_rad``.
    Truncated: ``episode_steps`` steps.

    Features: waypoint in body FRD [m] (3), distance [m], elapsed fraction.
    Targets row: ``(north, east, down [m] of the waypoint, 0)``.
    """

    name: ClassVar[str] = "waypoint_reach"
    _reset_kernel: ClassVar[Any] = _reset_waypoint
    _evaluate_kernel: ClassVar[Any] = _evaluate_waypoint
    feature_names: ClassVar[tuple[str, ...]] = (
        "waypoint_x_body_m",
        "waypoint_y_body_m",
        "waypoint_z_body_m",
        "distance_m",
        "elapsed_fraction",
    )
    feature_low: ClassVar[tuple[float, ...]] = (-np.inf, -np.inf, -np.inf, 0.0, 0.0)
    feature_high: ClassVar[tuple[float, ...]] = (np.inf, np.inf, np.inf, np.inf, 1.0)

    start_depth_m: tuple[float, float] = _field((5.0, 25.0), kind="interval", low=0.0)
    distance_m: tuple[float, float] = _field((10.0, 25.0), kind="interval", low=0.0)
    depth_offset_m: tuple[float, float] = _field((-3.0, 3.0), kind="interval")
    min_target_depth_m: float = _field(2.0, low=0.0)
    reach_radius_m: float = _field(1.5, low=0.0, strict=True)
    reach_bonus: float = _field(10.0, low=0.0)
    time_penalty: float = _field(0.01, low=0.0)
    effort_weight: float = _field(0.01, low=0.0)
    max_distance_m: float = _field(60.0, low=0.0, strict=True)
    min_depth_m: float = _field(0.5)
    max_tilt_rad: float = _field(math.pi / 3.0, low=0.0, strict=True)

    def _reset_parameters(self, context: TaskContext) -> tuple[Any, ...]:
        return (
            *self.start_depth_m,
            *self.distance_m,
            *self.depth_offset_m,
            self.min_target_depth_m,
        )

    def _evaluate_parameters(self, context: TaskContext) -> tuple[Any, ...]:
        return (self.reach_radius_m, self.reach_bonus, self.time_penalty, self.max_distance_m)


@dataclass(frozen=True)
class AltitudeSurvey(Task):
    """Fly a survey line at a target altitude over the seabed (terrain in the loop).

    Terrain: :meth:`leviathan.learning.sensing.Terrain.generated` with ``terrain_size_m``,
    ``terrain_depth_m``, ``terrain_relief_m`` and ``terrain_seed`` unless the environment
    is given one. The survey box is the terrain's north-east extent shrunk by
    ``edge_margin_m``; starts are drawn inside the box shrunk by ``start_margin_m`` more.

    Reset: start north/east uniform in the start region, target altitude ``~
    U(altitude_m)``, survey heading ``~ U(−π, π)``; start altitude target ``+
    U(±start_altitude_offset_m)`` above the seabed straight below (a ray cast), start
    heading the survey heading ``+ U(±start_heading_offset_rad)``, level, at rest.

    Reward per step (at most 1): ``0.4 exp(−(e_h / altitude_scale_m)²) + 0.3 exp(−(e_ψ /
    heading_scale_rad)²) + 0.3 exp(−(e_u / speed_scale_m_s)²) − effort_weight · effort``
    with ``e_h`` the true vertical clearance under the CG minus the target altitude, ``e_ψ``
    the heading error and ``e_u`` the surge speed error.

    Terminated: clearance ``< min_clearance_m`` (seabed strike), or outside the survey box
    (or no seabed below), or depth ``< min_depth_m``, or tilt ``> max_tilt_rad``.
    Truncated: ``episode_steps`` steps.

    Features: measured (DVL) altitude − target [m], ``sin e_ψ``, ``cos e_ψ``, ``e_u``
    [m/s], elapsed fraction. Targets row: ``(altitude [m], heading [rad], speed [m/s], 0)``.
    """

    name: ClassVar[str] = "altitude_survey"
    _reset_kernel: ClassVar[Any] = _reset_altitude_survey
    _evaluate_kernel: ClassVar[Any] = _evaluate_altitude_survey
    feature_names: ClassVar[tuple[str, ...]] = (
        "altitude_error_m",
        "sin_heading_error",
        "cos_heading_error",
        "speed_error_m_s",
        "elapsed_fraction",
    )
    feature_low: ClassVar[tuple[float, ...]] = (-np.inf, -1.0, -1.0, -np.inf, 0.0)
    feature_high: ClassVar[tuple[float, ...]] = (np.inf, 1.0, 1.0, np.inf, 1.0)
    needs_terrain: ClassVar[bool] = True

    altitude_m: tuple[float, float] = _field((3.0, 8.0), kind="interval", low=0.0)
    start_altitude_offset_m: float = _field(1.0, low=0.0)
    start_heading_offset_rad: float = _field(0.5, low=0.0)
    speed_m_s: float = _field(1.0, low=0.0)
    altitude_scale_m: float = _field(1.0, low=0.0, strict=True)
    heading_scale_rad: float = _field(0.5, low=0.0, strict=True)
    speed_scale_m_s: float = _field(0.5, low=0.0, strict=True)
    effort_weight: float = _field(0.05, low=0.0)
    min_clearance_m: float = _field(0.5, low=0.0)
    min_depth_m: float = _field(0.5)
    max_tilt_rad: float = _field(math.pi / 3.0, low=0.0, strict=True)
    edge_margin_m: float = _field(5.0, low=0.0)
    start_margin_m: float = _field(50.0, low=0.0)
    terrain_size_m: tuple[float, float] = _field((400.0, 400.0), kind="interval", low=0.0)
    terrain_depth_m: float = _field(30.0, low=0.0, strict=True)
    terrain_relief_m: float = _field(4.0, low=0.0)
    terrain_seed: int = _field(0, kind="int")

    def make_terrain(self, device: str) -> Any:
        """See :meth:`Task.make_terrain`."""
        from leviathan.learning.sensing import Terrain

        return Terrain.generated(
            size_m=self.terrain_size_m,
            depth_m=self.terrain_depth_m,
            relief_m=self.terrain_relief_m,
            seed=self.terrain_seed,
            device=device,
        )

    def regions(self, terrain: Any) -> tuple[Any, Any]:
        """The survey box and the start region over ``terrain``'s north-east extent [m].

        Raises:
            ValueError: If the margins leave no start region.
        """
        points = terrain.vertices_ned
        margin = self.edge_margin_m
        n0, n1 = float(points[:, 0].min()) + margin, float(points[:, 0].max()) - margin
        e0, e1 = float(points[:, 1].min()) + margin, float(points[:, 1].max()) - margin
        m = self.start_margin_m
        if n1 - n0 <= 2.0 * m or e1 - e0 <= 2.0 * m:
            raise ValueError(
                f"AltitudeSurvey: the terrain's survey box north {n0:g}..{n1:g} m, east "
                f"{e0:g}..{e1:g} m leaves no start region with start_margin_m={m:g}; use a "
                "larger terrain or a smaller start_margin_m"
            )
        return ((n0, n1), (e0, e1)), ((n0 + m, n1 - m), (e0 + m, e1 - m))

    def _reset_parameters(self, context: TaskContext) -> tuple[Any, ...]:
        return (
            context.seabed_ray,
            _box(context.start_region),
            *self.altitude_m,
            self.start_altitude_offset_m,
            self.start_heading_offset_rad,
            self.speed_m_s,
        )

    def _evaluate_parameters(self, context: TaskContext) -> tuple[Any, ...]:
        return (
            context.seabed_ray,
            context.altitude_column,
            _box(context.survey_box),
            self.altitude_scale_m,
            self.heading_scale_rad,
            self.speed_scale_m_s,
            self.min_clearance_m,
        )


def _box(region: tuple[tuple[float, float], tuple[float, float]]) -> Box:
    """``((north_low, north_high), (east_low, east_high))`` [m] as the kernels' struct."""
    box = Box()
    (box.north_low, box.north_high), (box.east_low, box.east_high) = region
    return box
