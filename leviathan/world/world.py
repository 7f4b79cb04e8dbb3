"""The canonical World: vehicles, dynamics, controllers, sensors on schedules.

A World holds a scenario live between requests. Time is an integer-nanosecond
:class:`~leviathan.time.Clock` with epochs; each tick advances every vehicle
(in name order) by one RK4 step of its 6-DOF model under its controller's
thruster commands, then takes every scheduled sensor sample that falls
exactly on the new tick. Samples at one instant form a :class:`CaptureGroup`:
all members come from the same committed state, ordered by sensor id.

Determinism: a World's outputs are a pure function of its creation arguments
and the sequence of edits; ``step(100)`` equals one hundred ``step(1)`` and a
``reset()`` replays the same hashes. Noise comes from keyed randomness
(root seed, sensor id, sample index, effect, index).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from leviathan.controllers import Controller, DirectThrust
from leviathan.dynamics import RigidBodyModel, VehicleState
from leviathan.dynamics import step as dynamics_step
from leviathan.frames import Transform
from leviathan.identity import content_hash
from leviathan.schedule import SensorSchedule
from leviathan.specs import SensorSpec, VehicleSpec, WaterSpec
from leviathan.time import MAX_STEP_NS, MIN_STEP_NS, Clock, Epoch, seconds_to_ns
from leviathan.tracing import resolve_backend
from leviathan.world.environment import Environment
from leviathan.world.records import CaptureGroup, VehicleTrackRecord, WorldSnapshot
from leviathan.world.setup import VehicleSetup

__all__ = [
    "MAX_STEPS_PER_WORLD",
    "ThrusterFaultRefusedError",
    "World",
    "WorldLimitError",
]

MAX_STEPS_PER_WORLD = 2_000_000


class WorldLimitError(RuntimeError):
    """A World limit (steps, registry capacity) would be exceeded."""


class ThrusterFaultRefusedError(RuntimeError):
    """Thruster faults are refused on a live World."""


def _norm3(v: Sequence[float]) -> float:
    """Euclidean norm of a 3-vector, ``sqrt((x² + y²) + z²)`` in this order."""
    x, y, z = v
    return math.sqrt((x * x + y * y) + z * z)


class _Track:
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
        return self._ticks[: self.size].copy()

    @property
    def times_ns(self) -> np.ndarray:
        return self._times[: self.size].copy()

    def transforms(self) -> list[Transform]:
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
class _Vehicle:
    setup: VehicleSetup
    model: RigidBodyModel
    state: VehicleState
    controller: Controller
    controller_state: dict
    command_n: np.ndarray
    track: _Track = field(default_factory=_Track)

    @property
    def name(self) -> str:
        return self.setup.name

    @property
    def spec(self) -> VehicleSpec:
        return self.setup.spec


def _step_ns(name: str, step: Any) -> int:
    """A tick length [ns] from an int of ns or seconds (str/float/Decimal/Fraction), bounded."""
    if isinstance(step, bool):
        raise TypeError(f"{name}: expected nanoseconds (int) or seconds (str/float), got a bool")
    try:
        step_ns = step if isinstance(step, int) else seconds_to_ns(step)
    except (TypeError, ValueError) as error:
        raise type(error)(f"{name}: {error}") from None
    if not MIN_STEP_NS <= step_ns <= MAX_STEP_NS:
        raise ValueError(
            f"{name}: a tick must be between {MIN_STEP_NS} ns and {MAX_STEP_NS} ns "
            f"({MAX_STEP_NS // 1_000_000_000} s), got {step!r} ({step_ns} ns)"
        )
    return step_ns


def _check_controller_fits(
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
        for i, (force, (lo, hi)) in enumerate(zip(commands, model._limits, strict=True)):
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


class _OffTickLog:
    """Refused (off-tick) samples stored as arithmetic runs, not one record each.

    One run covers a sensor over consecutive ticks ``from_tick..through_tick``
    of one epoch with one schedule: every scheduled sample whose time lies in
    ``(t(from_tick - 1), t(through_tick)]`` and is not the time of a tick was
    refused; there are ``refused_count`` of them, with sample indices from
    ``first_sample_index`` to ``last_sample_index``. Samples at ``t_n = phase_ns
    + n * period_ns`` are refused exactly when ``t_n`` is not a tick time of that
    epoch, so the run determines each refused sample, and memory and hashing
    time grow with runs (a sensor, an epoch, an edit), never per refused sample.
    """

    def __init__(self) -> None:
        self.runs: list[dict[str, Any]] = []
        self._open: dict[str, dict[str, Any]] = {}

    def copy(self) -> _OffTickLog:
        clone = _OffTickLog()
        clone.runs = [dict(run) for run in self.runs]
        index = {id(run): i for i, run in enumerate(self.runs)}
        clone._open = {k: clone.runs[index[id(run)]] for k, run in self._open.items()}
        return clone

    def record(
        self,
        sensor_id: str,
        schedule: SensorSchedule,
        *,
        tick: int,
        epoch: Epoch,
        first_index: int,
        count: int,
    ) -> None:
        run = self._open.get(sensor_id)
        if run is not None and (
            run["through_tick"] != tick - 1
            or run["epoch_start_tick"] != epoch.start_tick
            or run["step_ns"] != epoch.step_ns
            or run["period_ns"] != schedule.period_ns
            or run["phase_ns"] != schedule.phase_ns
        ):
            del self._open[sensor_id]
            run = None
        if run is not None:
            run["through_tick"] = tick
            if count:
                if not run["refused_count"]:
                    run["first_sample_index"] = first_index
                run["last_sample_index"] = first_index + count - 1
                run["refused_count"] += count
            return
        if not count:
            return
        run = {
            "sensor_id": sensor_id,
            "period_ns": schedule.period_ns,
            "phase_ns": schedule.phase_ns,
            "epoch_start_tick": epoch.start_tick,
            "epoch_start_time_ns": epoch.start_time_ns,
            "step_ns": epoch.step_ns,
            "from_tick": tick,
            "through_tick": tick,
            "first_sample_index": first_index,
            "last_sample_index": first_index + count - 1,
            "refused_count": count,
        }
        self.runs.append(run)
        self._open[sensor_id] = run

    def records(self) -> tuple[dict[str, Any], ...]:
        return tuple(
            {
                **run,
                "first_time_ns": run["phase_ns"] + run["first_sample_index"] * run["period_ns"],
                "last_time_ns": run["phase_ns"] + run["last_sample_index"] * run["period_ns"],
            }
            for run in self.runs
        )


@dataclass(frozen=True)
class _Checkpoint:
    """Everything an operation may change, to put back if it fails."""

    clock: Clock
    environment: Environment
    vehicles: dict[str, tuple]
    track_sizes: dict[str, int]
    sampled_through_tick: int
    off_tick: _OffTickLog
    edits: int


class World:
    """A live, deterministic simulation of vehicles in an environment.

    Create it with :meth:`World.create`; advance it with :meth:`step`.

    Every operation that changes a World (:meth:`step`, :meth:`edit`,
    :meth:`set_controller`, :meth:`set_current`, :meth:`set_step`,
    :meth:`reset`) is transactional: it validates its arguments fully before
    committing and, if anything fails part-way (in any vehicle, controller or
    sensor, or on ``KeyboardInterrupt``), puts back the tick, time, epochs,
    every vehicle's state, controller and controller state, the environment,
    the edit log, the sampling position and the off-tick record, so the
    snapshot hash is the one before the call.
    """

    def __init__(self) -> None:
        raise TypeError("World: use World.create(...)")

    @classmethod
    def create(
        cls,
        *,
        vehicles: Sequence[VehicleSetup],
        environment: Environment | None = None,
        root_seed: int = 0,
        step_ns: int | None = None,
        step_s: str | float | None = None,
        tracing_backend: str = "auto",
        tracing_device: str | None = None,
    ) -> World:
        """Creates a World.

        Args:
            vehicles: The vehicles with their documents, controllers and initial states.
            environment: Water, current and scene objects (default: empty, still water).
            root_seed: Root seed for every keyed random effect (int in [0, 2**64)).
            step_ns: Tick length [ns]; or give ``step_s`` in seconds (a whole number of ns).
                Between :data:`~leviathan.time.MIN_STEP_NS` and
                :data:`~leviathan.time.MAX_STEP_NS`.
            step_s: Tick length [s], e.g. ``"0.02"``.
            tracing_backend: Ray-tracing backend for the sonar, camera and DVL
                (:data:`leviathan.tracing.BACKENDS`; default ``"auto"``). Every backend
                gives the same samples, bit for bit, so it is not part of any identity.
            tracing_device: Device for that backend (``None``: its default).

        Raises:
            ValueError, TypeError: For any invalid argument, naming it; a controller
                that does not fit its vehicle (thruster count, limits) is refused here.
        """
        if (step_ns is None) == (step_s is None):
            raise ValueError(
                "step_ns/step_s: give exactly one tick length (e.g. step_ns=20_000_000)"
            )
        if step_ns is not None:
            if isinstance(step_ns, bool) or not isinstance(step_ns, int):
                raise TypeError(
                    f"step_ns: expected an int of nanoseconds, got {type(step_ns).__name__} "
                    f"{step_ns!r}; give seconds as step_s"
                )
            tick_ns = _step_ns("step_ns", step_ns)
        else:
            tick_ns = _step_ns("step_s", step_s)
        if (
            isinstance(root_seed, bool)
            or not isinstance(root_seed, int)
            or not 0 <= root_seed < 2**64
        ):
            raise ValueError(f"root_seed: expected an integer in [0, 2**64), got {root_seed!r}")
        if isinstance(vehicles, VehicleSetup | str | bytes):
            raise TypeError("vehicles: expected a sequence of VehicleSetup")
        setups = tuple(vehicles)
        if not setups:
            raise ValueError("vehicles: a World needs at least one vehicle")
        for i, setup in enumerate(setups):
            if not isinstance(setup, VehicleSetup):
                raise TypeError(
                    f"vehicles[{i}]: expected a VehicleSetup, got {type(setup).__name__}"
                )
        names = [v.name for v in setups]
        if len(set(names)) != len(names):
            raise ValueError(f"vehicles: names must be unique, got {names}")
        env = Environment() if environment is None else environment
        if not isinstance(env, Environment):
            raise TypeError(f"environment: expected an Environment, got {type(env).__name__}")
        for setup in setups:
            _check_controller_fits(
                f"vehicles[{setup.name!r}].controller",
                setup.controller,
                RigidBodyModel.from_spec(setup.spec),
                setup.initial_state(),
                time_ns=0,
                dt_ns=tick_ns,
            )
        self = object.__new__(cls)
        self._initial = (tuple(sorted(setups, key=lambda s: s.name)), env, tick_ns)
        self.root_seed = root_seed
        self.tracing = resolve_backend(tracing_backend, tracing_device)
        self._step_limit = MAX_STEPS_PER_WORLD
        self._owner: object | None = None
        self.clock = Clock(tick_ns)
        self._init_state()
        return self

    # ------------------------------------------------------------------ lifecycle

    def _init_state(self) -> None:
        setups, env, tick_ns = self._initial
        vehicles: dict[str, _Vehicle] = {}
        for s in setups:
            vehicles[s.name] = _Vehicle(
                setup=s,
                model=RigidBodyModel.from_spec(s.spec),
                state=s.initial_state(),
                controller=s.controller,
                controller_state=s.controller.initial_state(),
                command_n=np.zeros(len(s.spec.thrusters), dtype=np.float64),
            )
        # Everything is built before anything is assigned.
        self.clock._restore(Clock(tick_ns))
        self.environment = env
        self._vehicles = vehicles
        self._sampled_through_tick = -1
        self._off_tick = _OffTickLog()
        self._edits: list[dict] = []
        self._record_track()

    def reset(self) -> None:
        """Returns to the start (tick 0, initial states and controllers). No partial rewind."""
        with self._transaction():
            self._init_state()

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """Run a change; on any failure put every piece of World state back."""
        saved = self._checkpoint()
        try:
            yield
        except BaseException:
            self._rollback(saved)
            raise

    def _checkpoint(self) -> _Checkpoint:
        return _Checkpoint(
            clock=self.clock.copy(),
            environment=self.environment,
            vehicles={
                name: (v.setup, v.model, v.state, v.controller, v.controller_state, v.command_n)
                for name, v in self._vehicles.items()
            },
            track_sizes={name: v.track.size for name, v in self._vehicles.items()},
            sampled_through_tick=self._sampled_through_tick,
            off_tick=self._off_tick.copy(),
            edits=len(self._edits),
        )

    def _rollback(self, saved: _Checkpoint) -> None:
        self.clock._restore(saved.clock)
        self.environment = saved.environment
        if set(self._vehicles) != set(saved.vehicles):
            raise AssertionError("a World operation changed the set of vehicles")  # never
        for name, fields in saved.vehicles.items():
            v = self._vehicles[name]
            v.setup, v.model, v.state, v.controller, v.controller_state, v.command_n = fields
            v.track.truncate(saved.track_sizes[name])
        self._sampled_through_tick = saved.sampled_through_tick
        self._off_tick = saved.off_tick
        del self._edits[saved.edits :]

    # ------------------------------------------------------------------ queries

    @property
    def tick(self) -> int:
        """Committed tick index."""
        return self.clock.tick

    @property
    def time_ns(self) -> int:
        """Committed simulation time [ns]."""
        return self.clock.time_ns

    @property
    def step_limit(self) -> int:
        """Most ticks this World may reach (lowered by a registry that holds it)."""
        return self._step_limit

    @property
    def vehicle_names(self) -> tuple[str, ...]:
        """Vehicle names, sorted."""
        return tuple(self._vehicles)

    def sensor_ids(self) -> tuple[str, ...]:
        """Every sensor id (``vehicle/sensor``), sorted."""
        return tuple(
            sorted(f"{v.name}/{s.name}" for v in self._vehicles.values() for s in v.spec.sensors)
        )

    def vehicle_state(self, name: str) -> VehicleState:
        """The committed state of one vehicle."""
        return self._vehicle(name).state

    def _vehicle(self, name: str) -> _Vehicle:
        if not isinstance(name, str):
            raise TypeError(f"vehicle: expected a vehicle name (str), got {type(name).__name__}")
        try:
            return self._vehicles[name]
        except KeyError:
            raise KeyError(
                f"vehicle: no vehicle {name!r}; vehicles: {', '.join(self._vehicles)}"
            ) from None

    def state(self) -> dict[str, Any]:
        """Committed tick, time, epochs and per-vehicle kinematics (JSON-friendly)."""
        vehicles = {}
        for v in self._vehicles.values():
            s = v.state
            roll, pitch, yaw = s.euler_rad
            # R v written element-wise in the frames contract order (no BLAS call).
            v_world = s.T_world_body.apply_direction(s.velocity_body[:3]).tolist()
            current = self.environment.current_ned(float(s.position_ned_m[2])).tolist()
            through_water = [a - b for a, b in zip(v_world, current, strict=True)]
            vehicles[v.name] = {
                "position_ned_m": s.position_ned_m.tolist(),
                "depth_m": float(s.position_ned_m[2]),
                "roll_rad": roll,
                "pitch_rad": pitch,
                "yaw_rad": yaw,
                "heading_rad": s.heading_rad,
                "velocity_body": dict(
                    zip(("u", "v", "w", "p", "q", "r"), s.velocity_body.tolist(), strict=True)
                ),
                "speed_over_ground_m_s": _norm3(v_world),
                "speed_through_water_m_s": _norm3(through_water),
                "thrust_n": s.thrust_n.tolist(),
            }
        return {
            "tick": self.tick,
            "time_ns": self.time_ns,
            "epochs": self.clock.provenance()["epochs"],
            "vehicles": vehicles,
        }

    # ------------------------------------------------------------------ edits

    def set_current(
        self,
        current_ned_m_per_s: Sequence[float] | None = None,
        *,
        profile: Sequence[Any] | None = None,
    ) -> None:
        """Sets a uniform NED current [m/s] or a depth profile of ``CurrentLayer``s."""
        water = self.environment.water
        if profile is not None:
            if current_ned_m_per_s is not None:
                raise ValueError(
                    "current_ned_m_per_s/profile: give a uniform current or a profile, not both"
                )
            water = water.model_copy(update={"current_ned_m_per_s": (0.0, 0.0, 0.0)})
            water = WaterSpec.model_validate(
                {**water.model_dump(), "current_profile": list(profile)}
            )
        else:
            if current_ned_m_per_s is None:
                raise ValueError("current_ned_m_per_s: give a 3-vector [m/s] or profile=...")
            if isinstance(current_ned_m_per_s, str | bytes):
                raise TypeError(
                    f"current_ned_m_per_s: expected 3 numbers [m/s], got {current_ned_m_per_s!r}"
                )
            water = WaterSpec.model_validate(
                {
                    **water.model_dump(),
                    "current_ned_m_per_s": tuple(current_ned_m_per_s),
                    "current_profile": (),
                }
            )
        environment = self.environment.with_water(water)
        with self._transaction():
            self.environment = environment
            self._edits.append(
                {"tick": self.tick, "edit": "current", "water": water.model_dump(mode="json")}
            )

    def set_controller(self, vehicle: str, controller: Controller) -> None:
        """Replaces a vehicle's controller (its state starts fresh).

        Raises:
            KeyError: If there is no such vehicle.
            TypeError, ValueError: If the controller does not fit the vehicle (see
                :meth:`create`); the World is unchanged.
        """
        v = self._vehicle(vehicle)
        initial = _check_controller_fits(
            "controller",
            controller,
            v.model,
            v.state,
            time_ns=self.time_ns,
            dt_ns=self.clock.step_ns,
        )
        with self._transaction():
            self._commit_controller(v, controller, initial)

    def _commit_controller(self, v: _Vehicle, controller: Controller, initial: dict) -> None:
        v.controller = controller
        v.controller_state = initial
        self._edits.append(
            {
                "tick": self.tick,
                "edit": "controller",
                "vehicle": v.name,
                "controller": content_hash(controller),
            }
        )

    def set_step(self, step: int | str | float) -> None:
        """Changes the tick length (ns as int, or seconds); a new epoch starts at this tick.

        Raises:
            ValueError, TypeError: If the step is not a whole number of nanoseconds
                within the tick bounds, or the vehicles' controllers refuse it.
        """
        step_ns = _step_ns("step", step)
        for v in self._vehicles.values():
            _check_controller_fits(
                f"vehicle {v.name!r} controller",
                v.controller,
                v.model,
                v.state,
                time_ns=self.time_ns,
                dt_ns=step_ns,
            )
        with self._transaction():
            self.clock.set_step(step_ns)

    def edit(
        self,
        *,
        vehicle: str | None = None,
        spec: VehicleSpec | None = None,
        sensors: Sequence[SensorSpec] | None = None,
        controller: Controller | None = None,
        environment: Environment | None = None,
    ) -> None:
        """Replaces a vehicle's document or sensors, its controller, or the environment.

        The vehicle keeps its current pose and velocity; if the new document has a
        different thruster count, thruster states restart at zero. Everything is
        validated before anything is changed: the (new or kept) controller must fit
        the (new or kept) document, or the whole edit is refused.
        """
        if environment is not None and not isinstance(environment, Environment):
            raise TypeError(
                f"environment: expected an Environment, got {type(environment).__name__}"
            )
        if vehicle is None:
            if spec is not None or sensors is not None or controller is not None:
                raise ValueError(
                    "vehicle: name the vehicle whose spec, sensors or controller you replace"
                )
            if environment is None:
                raise ValueError(
                    "edit: nothing to change; give environment, or a vehicle and "
                    "its spec, sensors or controller"
                )
            with self._transaction():
                self._commit_environment(environment)
            return
        v = self._vehicle(vehicle)
        if spec is not None and not isinstance(spec, VehicleSpec):
            raise TypeError(f"spec: expected a VehicleSpec, got {type(spec).__name__}")
        if spec is None and sensors is None and controller is None and environment is None:
            raise ValueError(f"edit: nothing to change for vehicle {vehicle!r}")
        new_spec = spec
        if sensors is not None:
            if isinstance(sensors, str | bytes) or not isinstance(sensors, Sequence):
                raise TypeError(f"sensors: expected a sequence of sensor specs, got {sensors!r}")
            new_spec = (spec or v.spec).model_copy(update={"sensors": tuple(sensors)})
            new_spec = VehicleSpec.model_validate(new_spec.model_dump())
        state, model = v.state, v.model
        if new_spec is not None:
            thrust = (
                state.thrust_n
                if len(new_spec.thrusters) == state.thrust_n.shape[0]
                else np.zeros(len(new_spec.thrusters))
            )
            state = VehicleState(
                position_ned_m=state.position_ned_m,
                attitude_q=state.attitude_q,
                velocity_body=state.velocity_body,
                thrust_n=thrust,
            )
            model = RigidBodyModel.from_spec(new_spec)
        new_controller = v.controller if controller is None else controller
        initial = _check_controller_fits(
            "controller" if controller is not None else f"vehicle {vehicle!r} controller",
            new_controller,
            model,
            state,
            time_ns=self.time_ns,
            dt_ns=self.clock.step_ns,
        )
        with self._transaction():
            if environment is not None:
                self._commit_environment(environment)
            if new_spec is not None:
                v.state = state
                v.setup = replace(v.setup, spec=new_spec)
                v.model = model
                v.command_n = np.zeros(len(new_spec.thrusters), dtype=np.float64)
                self._edits.append(
                    {
                        "tick": self.tick,
                        "edit": "spec",
                        "vehicle": vehicle,
                        "spec": content_hash(new_spec),
                    }
                )
            if controller is not None:
                self._commit_controller(v, controller, initial)

    def _commit_environment(self, environment: Environment) -> None:
        self.environment = environment
        self._edits.append(
            {"tick": self.tick, "edit": "environment", "hash": environment.content_hash}
        )

    def inject_thruster_fault(self, vehicle: str, thruster: str, **_: Any) -> None:
        """Always refused: thruster faults belong to analytic scenario runs, not live Worlds."""
        raise ThrusterFaultRefusedError(
            f"thruster fault on {vehicle!r}/{thruster!r} refused: thruster faults are not "
            "available on a live World; they belong to analytic scenario runs"
        )

    # ------------------------------------------------------------------ stepping

    def step(self, n: int = 1) -> list[CaptureGroup]:
        """Advances ``n`` ticks; returns only the new samples, as capture groups in time order.

        All or nothing: if any tick fails (a controller, the dynamics, a sensor, or
        ``KeyboardInterrupt``), the World is put back exactly as it was before the call.

        Raises:
            ValueError: If ``n`` is not a positive int.
            WorldLimitError: If the World would pass its step limit
                (:attr:`step_limit`, 2,000,000 or a registry's lower limit).
        """
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"n: expected a positive integer number of ticks, got {n!r}")
        if self.tick + n > self._step_limit:
            raise WorldLimitError(
                f"n: stepping {n} ticks from tick {self.tick} would exceed the limit of "
                f"{self._step_limit} steps for this World; reset() or create a new World"
            )
        groups: list[CaptureGroup] = []
        with self._transaction():
            if self._sampled_through_tick < 0:
                groups.extend(self._sample_tick(after_ns=None))
            for _ in range(n):
                after_ns = self.time_ns
                self._advance_one()
                groups.extend(self._sample_tick(after_ns=after_ns))
        return groups

    def _advance_one(self) -> None:
        dt_ns = self.clock.step_ns
        t_ns = self.time_ns
        # Compute every vehicle's next state first, then commit them together.
        updates = []
        for v in self._vehicles.values():
            command, controller_state = v.controller.command(
                v.model, v.state, v.controller_state, time_ns=t_ns, dt_ns=dt_ns
            )
            command_n = np.asarray(command, dtype=np.float64)
            state = dynamics_step(
                v.model, v.state, command_n, self.environment.current_ned, dt_ns=dt_ns
            )
            updates.append((v, controller_state, command_n, state))
        for v, controller_state, command_n, state in updates:
            v.controller_state, v.command_n, v.state = controller_state, command_n, state
        self.clock.advance(1)
        self._record_track()

    def _record_track(self) -> None:
        for v in self._vehicles.values():
            v.track.append(self.tick, self.time_ns, v.state)

    def _sample_tick(self, *, after_ns: int | None) -> list[CaptureGroup]:
        tick, t_ns = self.tick, self.time_ns
        epoch = self.clock.epochs[-1]
        due: list[tuple[_Vehicle, Any, int]] = []
        for v in self._vehicles.values():
            for spec in v.spec.sensors:
                schedule = spec.schedule.schedule()
                window = schedule.tick_window(t_ns, after_ns=after_ns)
                self._off_tick.record(
                    f"{v.name}/{spec.name}",
                    schedule,
                    tick=tick,
                    epoch=epoch,
                    first_index=window.first_off_tick_index,
                    count=window.off_tick_count,
                )
                if window.on_tick_index is not None:
                    due.append((v, spec, window.on_tick_index))
        self._sampled_through_tick = tick
        if not due:
            return []
        from leviathan.world.sampling import take_sample

        scene = self.environment.scene_at(t_ns)
        samples = {}
        for v, spec, index in due:
            sensor_id = f"{v.name}/{spec.name}"
            samples[sensor_id] = take_sample(
                self, v, spec, scene, sensor_id=sensor_id, sample_index=index, time_ns=t_ns
            )
        return [CaptureGroup(tick=tick, time_ns=t_ns, samples=samples)]

    # ------------------------------------------------------------------ records

    def track(self, vehicle: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The recorded track of a vehicle over every committed tick.

        Returns:
            ``(ticks, times_ns, T_world_body)``: int64 [n], int64 [n] and float64
            [n, 4, 4] homogeneous matrices of ``T_world_body``.
        """
        v = self._vehicle(vehicle)
        matrices = [T.matrix for T in v.track.transforms()]
        return (
            v.track.ticks,
            v.track.times_ns,
            np.array(matrices, dtype=np.float64).reshape(-1, 4, 4),
        )

    def track_states(self, vehicle: str, *, from_tick: int = 0) -> VehicleTrackRecord:
        """The committed ground-truth states of a vehicle at every tick from ``from_tick``.

        Cost is O(ticks returned), so a recorder can take each new stretch of the
        track after every ``step`` without copying the whole history again.

        Args:
            vehicle: Vehicle name.
            from_tick: First tick wanted (0 .. :attr:`tick`); ticks before it are left out.

        Returns:
            A :class:`~leviathan.world.records.VehicleTrackRecord` with ticks, times
            [ns], NED positions [m], attitude quaternions ``q_world_body`` ``(w, x, y,
            z)`` and body velocities ``(u, v, w, p, q, r)`` [m/s, rad/s].
        """
        v = self._vehicle(vehicle)
        if isinstance(from_tick, bool) or not isinstance(from_tick, int):
            raise TypeError(f"from_tick: expected an int tick index, got {from_tick!r}")
        if not 0 <= from_tick <= self.tick:
            raise ValueError(f"from_tick: expected a tick in [0, {self.tick}], got {from_tick}")
        # Every committed tick from 0 has one row, in order, so the row index is the tick.
        tick_rows, time_rows, states = v.track.rows(from_tick)
        return VehicleTrackRecord(
            name=v.name,
            ticks=tick_rows,
            times_ns=time_rows,
            position_ned_m=states[:, :3],
            attitude_q=states[:, 3:7],
            velocity_body=states[:, 7:],
        )

    def vehicle_spec(self, vehicle: str) -> VehicleSpec:
        """The current document of a vehicle."""
        return self._vehicle(vehicle).spec

    @property
    def off_tick_samples(self) -> tuple[dict, ...]:
        """Scheduled samples refused because they fell between committed ticks.

        Stored compactly as runs, one per sensor, epoch and schedule (and restarted
        after an edit that removed the sensor): each run is a dict with
        ``sensor_id``, ``period_ns``, ``phase_ns``, ``epoch_start_tick``,
        ``epoch_start_time_ns``, ``step_ns``, ``from_tick``, ``through_tick``,
        ``first_sample_index``, ``last_sample_index``, ``first_time_ns``,
        ``last_time_ns`` and ``refused_count``. Every sample ``n`` in ``first_sample_index..
        last_sample_index`` whose time ``phase_ns + n * period_ns`` is not a tick
        time was refused (the others were taken); see :meth:`refused_sample_indices`.
        """
        return self._off_tick.records()  # fresh dicts: changing them cannot reach the World

    @staticmethod
    def refused_sample_indices(run: Mapping[str, Any], *, limit: int = 10_000) -> list[int]:
        """The sample indices of one off-tick run, expanded (at most ``limit`` of them).

        Sample ``n`` of the run was refused exactly when its time ``phase_ns + n *
        period_ns`` is not a tick time of the run's epoch, i.e. when
        ``(t_n - epoch_start_time_ns) % step_ns != 0``.

        Args:
            run: One of :attr:`off_tick_samples`.
            limit: Largest number of indices returned (a run may hold billions).
        """
        period, phase = run["period_ns"], run["phase_ns"]
        origin, step = run["epoch_start_time_ns"], run["step_ns"]
        out: list[int] = []
        n = run["first_sample_index"]
        while n <= run["last_sample_index"] and len(out) < limit:
            if (phase + n * period - origin) % step:
                out.append(n)
            n += 1
        return out

    def snapshot(self) -> WorldSnapshot:
        """Freezes the committed state at the current tick into an immutable, hashed record."""
        vehicles = {}
        for v in self._vehicles.values():
            vehicles[v.name] = {
                "spec": content_hash(v.spec),
                "state": v.state.__content__(),
                "controller": content_hash(v.controller),
                "controller_state": v.controller_state,
            }
        return WorldSnapshot(
            tick=self.tick,
            time_ns=self.time_ns,
            epochs=tuple(self.clock.provenance()["epochs"]),
            root_seed=self.root_seed,
            vehicles=MappingProxyType(vehicles),
            environment_hash=self.environment.content_hash,
            off_tick=self._off_tick.records(),
        )

    def export_usd(self, path: str | Path) -> Path:
        """Writes the World (scene, vehicles with their track over every committed tick,
        sensors, provenance) as an OpenUSD stage (``.usda`` or ``.usdc``)."""
        from leviathan import __version__
        from leviathan.usd import VehicleTrack, export_stage

        tracks = [
            VehicleTrack(
                name=v.name,
                spec=v.spec,
                times_ns=v.track.times_ns.tolist(),
                poses=v.track.transforms(),
            )
            for v in self._vehicles.values()
        ]
        first = next(iter(self._vehicles.values()))
        snap = self.snapshot()
        return export_stage(
            path,
            scene=self.environment.scene_at(self.time_ns),
            vehicles=tracks,
            ticks=first.track.ticks.tolist(),
            epochs=list(self.clock.provenance()["epochs"]),
            provenance={
                "snapshot_hash": snap.content_hash,
                "root_seed": self.root_seed,
                "leviathan_version": __version__,
            },
        )
