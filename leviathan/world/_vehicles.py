"""A World's live vehicles: committed state, controller, recorded track, and their checks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from leviathan._validation import refusals_at
from leviathan.controllers import Controller, DirectThrust
from leviathan.dynamics import RigidBodyModel, VehicleState
from leviathan.frames import Transform
from leviathan.sensors import sensor_declarations, sensor_kind_for
from leviathan.specs import VehicleSpec, WaterSpec
from leviathan.time import MAX_STEP_NS, MIN_STEP_NS, seconds_to_ns
from leviathan.world._setup import VehicleSetup

__all__ = [
    "LiveVehicle",
    "VehicleTrack",
    "check_controller_fits",
    "check_sensors_in_water",
    "tick_length_ns",
]


class VehicleTrack:
    """A vehicle's committed-tick track in growable arrays.

    Per tick: the tick index, its time [ns], the pose as NED position and
    attitude quaternion, and the body velocities ``(u, v, w, p, q, r)``
    (13 float64), from which ``T_world_body`` is rebuilt exactly as
    :attr:`VehicleState.T_world_body` builds it. 120 bytes a tick, so a World
    at its 2,000,000-step limit holds ~240 MB per vehicle.
    """

    def __init__(self, capacity: int = 1024) -> None:
        self._ticks = np.empty(capacity, dtype=np.int64)
        self._times = np.empty(capacity, dtype=np.int64)
        self._states = np.empty((capacity, 13), dtype=np.float64)
        self.size = 0

    def append(self, tick: int, time_ns: int, state: VehicleState) -> None:
        """Record the committed ``state`` of tick ``tick`` at ``time_ns``."""
        if self.size == self._ticks.shape[0]:
            grow = 2 * self.size
            self._ticks = np.resize(self._ticks, grow)
            self._times = np.resize(self._times, grow)
            self._states = np.resize(self._states, (grow, 13))
        k = self.size
        self._ticks[k] = tick
        self._times[k] = time_ns
        self._states[k, :3] = state.position_ned_m
        self._states[k, 3:7] = state.attitude_q
        self._states[k, 7:] = state.velocity_body
        self.size = k + 1

    def truncate(self, size: int) -> None:
        """Forget every row from ``size`` on (rolling back a failed step)."""
        self.size = min(self.size, size)

    def rows(self, start: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Copies of ``(ticks, times_ns, states)`` from row ``start`` on."""
        return (
            self._ticks[start : self.size].copy(),
            self._times[start : self.size].copy(),
            self._states[start : self.size].copy(),
        )

    @property
    def ticks(self) -> np.ndarray:
        """A copy of the recorded tick indices, int64 [n]."""
        return self._ticks[: self.size].copy()

    @property
    def times_ns(self) -> np.ndarray:
        """A copy of the recorded tick times [ns], int64 [n]."""
        return self._times[: self.size].copy()

    def transforms(self) -> list[Transform]:
        """``T_world_body`` of every recorded tick, rebuilt as :class:`VehicleState` builds it."""
        thrust = np.zeros(0)
        return [
            VehicleState(
                position_ned_m=row[:3],
                attitude_q=row[3:7],
                velocity_body=np.zeros(6),
                thrust_n=thrust,
            ).T_world_body
            for row in self._states[: self.size]
        ]


@dataclass
class LiveVehicle:
    """One vehicle as a World holds it between ticks (mutable; never hashed itself)."""

    setup: VehicleSetup
    model: RigidBodyModel
    state: VehicleState
    controller: Controller
    controller_state: dict
    command_n: np.ndarray
    track: VehicleTrack = field(default_factory=VehicleTrack)

    @property
    def name(self) -> str:
        """Vehicle name in its World."""
        return self.setup.name

    @property
    def spec(self) -> VehicleSpec:
        """Current vehicle document."""
        return self.setup.spec


def tick_length_ns(name: str, step: Any) -> int:
    """A tick length [ns] from an int of ns or seconds (str/float/Decimal/Fraction), bounded."""
    if isinstance(step, bool):
        raise TypeError(f"{name}: expected nanoseconds (int) or seconds (str/float), got a bool")
    with refusals_at(f"{name}: "):
        step_ns = step if isinstance(step, int) else seconds_to_ns(step)
    if not MIN_STEP_NS <= step_ns <= MAX_STEP_NS:
        raise ValueError(
            f"{name}: a tick must be between {MIN_STEP_NS} ns and {MAX_STEP_NS} ns "
            f"({MAX_STEP_NS // 1_000_000_000} s), got {step!r} ({step_ns} ns)"
        )
    return step_ns


def check_controller_fits(
    where: str,
    controller: Any,
    model: RigidBodyModel,
    state: VehicleState,
    *,
    time_ns: int,
    dt_ns: int,
) -> dict:
    """Validate that ``controller`` can drive ``model``; return its initial state.

    A controller is checked before it is committed: it must implement the
    :class:`~leviathan.controllers.Controller` protocol, a :class:`DirectThrust`
    must give one command per thruster, each within that thruster's limits,
    and one dry-run command from the vehicle's current state must succeed and
    return one finite force per thruster (the dry run changes nothing).
    """
    if not isinstance(controller, Controller):
        raise TypeError(
            f"{where}: expected a controller (DirectThrust, Autopilot, WaypointFollower or an "
            f"object with kind, initial_state(), command() and __content__()), got "
            f"{type(controller).__name__}"
        )
    n = model.thruster_count
    if isinstance(controller, DirectThrust):
        commands = controller.commands_n.tolist()
        if len(commands) != n:
            raise ValueError(
                f"{where}: DirectThrust has {len(commands)} commands but vehicle {model.name!r} "
                f"has {n} thrusters; give one force [N] per thruster in the vehicle's order"
            )
        limits = zip(model.thrust_min_n.tolist(), model.thrust_max_n.tolist(), strict=True)
        for i, (force, (lo, hi)) in enumerate(zip(commands, limits, strict=True)):
            if not lo <= force <= hi:
                raise ValueError(
                    f"{where}: commands_n[{i}] = {force!r} N is outside thruster {i}'s limits "
                    f"[{lo!r}, {hi!r}] N of vehicle {model.name!r}"
                )
    try:
        initial = controller.initial_state()
        commands, _ = controller.command(model, state, initial, time_ns=time_ns, dt_ns=dt_ns)
        forces = np.asarray(commands, dtype=np.float64)
    except (TypeError, ValueError, ArithmeticError, KeyError, IndexError) as error:
        raise ValueError(
            f"{where}: {type(controller).__name__} does not fit vehicle {model.name!r}: {error}"
        ) from None
    if forces.shape != (n,) or not np.all(np.isfinite(forces)):
        raise ValueError(
            f"{where}: {type(controller).__name__} must command {n} finite forces [N] for "
            f"vehicle {model.name!r}, got shape {forces.shape}"
        )
    return initial


def check_sensors_in_water(
    vehicles: Mapping[str, tuple[VehicleSpec, Transform]], water: WaterSpec
) -> None:
    """Refuses a sensor that cannot work in ``water`` where its vehicle is.

    Each kind says what it needs of the water (its declared ``check_water``, e.g. a
    fan sonar's ping period against the two-way time ``2 R_max / c``); a kind that
    declares nothing works in every water. The World calls this on creation and on
    every edit of a vehicle document or of the environment, before anything changes
    (``set_current`` changes only the current, which no kind's rule reads).

    Args:
        vehicles: Vehicle World name -> (its document, its pose ``T_world_body`` now).
        water: The World's water (after the edit, for an edit).

    Raises:
        ValueError: Naming the sensor id (``"vehicle/sensor"``) and its field.
    """
    for name, (spec, T_world_body) in sorted(vehicles.items()):
        for sensor in spec.sensors:
            try:
                sensor_kind_for(sensor)
            except (LookupError, TypeError):
                continue  # no kind samples it: sampling refuses it, naming the kind
            check = sensor_declarations(sensor.kind).check_water
            if check is not None:
                check(sensor, water, T_world_body, f"{name}/{sensor.name}")
