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

The class is assembled from one part per concern, each in its own module:
creation, queries and stepping here; edits in :mod:`leviathan.world._edits`;
records (tracks, snapshots, USD) in :mod:`leviathan.world._history`; the
checkpoint and rollback in :mod:`leviathan.world._transactions`; sampling
through the sensor protocol in :mod:`leviathan.world._sampling`.
:class:`leviathan.world.World` is the one public path.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from leviathan._validation import check_root_seed
from leviathan.dynamics import RigidBodyModel, VehicleState, accelerations
from leviathan.dynamics import step as dynamics_step
from leviathan.raycast import resolve_backend
from leviathan.schedule import SensorSchedule
from leviathan.sensors import BodyKinematics
from leviathan.time import Clock
from leviathan.world import _sampling as sampling
from leviathan.world._edits import WorldEdits
from leviathan.world._environment import Environment
from leviathan.world._errors import MAX_STEPS_PER_WORLD, WorldLimitError
from leviathan.world._history import WorldHistory
from leviathan.world._hulls import check_hulls
from leviathan.world._records import CaptureGroup
from leviathan.world._sampling import OffTickLog
from leviathan.world._setup import VehicleSetup
from leviathan.world._vehicles import LiveVehicle, check_controller_fits, tick_length_ns

__all__ = ["World"]


# Runtime schedules by schedule spec object: specs are frozen, and each tick asks every
# sensor for its schedule. The entry holds the spec, so its id cannot be reused.
_SCHEDULES: dict[int, tuple[Any, SensorSchedule]] = {}


def _schedule_of(schedule_spec: Any) -> SensorSchedule:
    """``schedule_spec.schedule()``, built once per spec object."""
    entry = _SCHEDULES.get(id(schedule_spec))
    if entry is not None and entry[0] is schedule_spec:
        return entry[1]
    schedule = schedule_spec.schedule()
    if len(_SCHEDULES) >= 1024:
        _SCHEDULES.clear()
    _SCHEDULES[id(schedule_spec)] = (schedule_spec, schedule)
    return schedule


def _norm3(v: Sequence[float]) -> float:
    """Euclidean norm of a 3-vector, ``sqrt((x² + y²) + z²)`` in this order."""
    x, y, z = v
    return math.sqrt((x * x + y * y) + z * z)


class World(WorldEdits, WorldHistory):
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
                (:data:`leviathan.raycast.BACKENDS`; default ``"auto"``). Every backend
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
            tick_ns = tick_length_ns("step_ns", step_ns)
        else:
            tick_ns = tick_length_ns("step_s", step_s)
        # A Python int: the seed is kept as given in records that are hashed and written.
        root_seed = check_root_seed("root_seed", root_seed, python_int_only=True)
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
        check_hulls({s.name: s.spec for s in setups}, env)
        for setup in setups:
            check_controller_fits(
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
        vehicles: dict[str, LiveVehicle] = {}
        for s in setups:
            vehicles[s.name] = LiveVehicle(
                setup=s,
                model=RigidBodyModel.from_spec(s.spec),
                state=s.initial_state(),
                controller=s.controller,
                controller_state=s.controller.initial_state(),
                command_n=np.zeros(len(s.spec.thrusters), dtype=np.float64),
            )
        # Everything is built before anything is assigned.
        self.clock.restore(Clock(tick_ns))
        self.environment = env
        self._vehicles = vehicles
        self._sampled_through_tick = -1
        self._off_tick = OffTickLog()
        self._edits: list[dict] = []
        self._record_track()

    def reset(self) -> None:
        """Returns to the start (tick 0, initial states and controllers). No partial rewind."""
        with self._transaction():
            self._init_state()

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

    def body_kinematics(self, vehicle: str) -> BodyKinematics:
        """Committed kinematics of a vehicle, with its accelerations under its last command.

        This is what every sensor of the vehicle reads at the committed tick
        (:attr:`leviathan.sensors.SampleContext.kinematics`).

        Args:
            vehicle: Vehicle name.

        Returns:
            Pose ``T_world_body``, body FRD velocities [m/s, rad/s] and the CG's
            inertial and angular accelerations [m/s², rad/s²] in the current.
        """
        v = self._vehicle(vehicle)
        state = v.state
        acc = accelerations(v.model, state, v.command_n, self.environment.current_ned)
        return BodyKinematics(
            T_world_body=state.T_world_body,
            velocity_body_m_s=np.asarray(state.velocity_body[:3]),
            angular_velocity_body_rad_s=np.asarray(state.velocity_body[3:]),
            linear_acceleration_body_m_s2=np.asarray(acc["linear_acceleration_body"]),
            angular_acceleration_body_rad_s2=np.asarray(acc["angular_acceleration_body"]),
        )

    def _vehicle(self, name: str) -> LiveVehicle:
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
        due: list[sampling.DueSample] = []
        for v in self._vehicles.values():
            for spec in v.spec.sensors:
                schedule = _schedule_of(spec.schedule)
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
                    due.append((v.name, spec, window.on_tick_index))
        self._sampled_through_tick = tick
        if not due:
            return []
        samples = sampling.take_samples(self, due, time_ns=t_ns)
        return [CaptureGroup(tick=tick, time_ns=t_ns, samples=samples)]
