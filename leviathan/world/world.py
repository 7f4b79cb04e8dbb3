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
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from leviathan.controllers import Controller
from leviathan.dynamics import RigidBodyModel, VehicleState
from leviathan.dynamics import step as dynamics_step
from leviathan.frames import Transform
from leviathan.identity import content_hash
from leviathan.specs import SensorSpec, VehicleSpec, WaterSpec
from leviathan.time import Clock, seconds_to_ns
from leviathan.tracing import resolve_backend
from leviathan.world.environment import Environment
from leviathan.world.records import CaptureGroup, WorldSnapshot
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


class _Track:
    """A vehicle's committed-tick track in growable arrays.

    Per tick: the tick index, its time [ns] and the pose as NED position and
    attitude quaternion (7 float64), from which ``T_world_body`` is rebuilt
    exactly as :attr:`VehicleState.T_world_body` builds it. About 72 bytes a
    tick, so a World at its 2,000,000-step limit holds ~144 MB per vehicle.
    """

    def __init__(self, capacity: int = 1024) -> None:
        self._ticks = np.empty(capacity, dtype=np.int64)
        self._times = np.empty(capacity, dtype=np.int64)
        self._poses = np.empty((capacity, 7), dtype=np.float64)
        self.size = 0

    def append(self, tick: int, time_ns: int, state: VehicleState) -> None:
        if self.size == self._ticks.shape[0]:
            grow = 2 * self.size
            self._ticks = np.resize(self._ticks, grow)
            self._times = np.resize(self._times, grow)
            self._poses = np.resize(self._poses, (grow, 7))
        k = self.size
        self._ticks[k] = tick
        self._times[k] = time_ns
        self._poses[k, :3] = state.position_ned_m
        self._poses[k, 3:] = state.attitude_q
        self.size = k + 1

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
                attitude_q=row[3:],
                velocity_body=np.zeros(6),
                thrust_n=thrust,
            ).T_world_body
            for row in self._poses[: self.size]
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


def _step_ns(step: int | str | float) -> int:
    if isinstance(step, bool):
        raise TypeError("step: expected nanoseconds (int) or seconds (str/float), got a bool")
    if isinstance(step, int):
        return step
    return seconds_to_ns(step)


class World:
    """A live, deterministic simulation of vehicles in an environment.

    Create it with :meth:`World.create`; advance it with :meth:`step`.
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
            step_s: Tick length [s], e.g. ``"0.02"``.
            tracing_backend: Ray-tracing backend for the sonar, camera and DVL
                (:data:`leviathan.tracing.BACKENDS`; default ``"auto"``). Every backend
                gives the same samples, bit for bit, so it is not part of any identity.
            tracing_device: Device for that backend (``None``: its default).
        """
        if (step_ns is None) == (step_s is None):
            raise ValueError(
                "step_ns/step_s: give exactly one tick length (e.g. step_ns=20_000_000)"
            )
        tick_ns = step_ns if step_ns is not None else seconds_to_ns(step_s)  # type: ignore[arg-type]
        if (
            isinstance(root_seed, bool)
            or not isinstance(root_seed, int)
            or not 0 <= root_seed < 2**64
        ):
            raise ValueError(f"root_seed: expected an integer in [0, 2**64), got {root_seed!r}")
        setups = tuple(vehicles)
        if not setups:
            raise ValueError("vehicles: a World needs at least one vehicle")
        names = [v.name for v in setups]
        if len(set(names)) != len(names):
            raise ValueError(f"vehicles: names must be unique, got {names}")
        env = Environment() if environment is None else environment
        if not isinstance(env, Environment):
            raise TypeError(f"environment: expected an Environment, got {type(env).__name__}")
        self = object.__new__(cls)
        self._initial = (tuple(sorted(setups, key=lambda s: s.name)), env, tick_ns)
        self.root_seed = root_seed
        self.tracing = resolve_backend(tracing_backend, tracing_device)
        self._init_state()
        return self

    # ------------------------------------------------------------------ lifecycle

    def _init_state(self) -> None:
        setups, env, tick_ns = self._initial
        self.clock = Clock(tick_ns)
        self.environment = env
        self._vehicles: dict[str, _Vehicle] = {}
        for s in setups:
            model = RigidBodyModel.from_spec(s.spec)
            state = s.initial_state()
            self._vehicles[s.name] = _Vehicle(
                setup=s,
                model=model,
                state=state,
                controller=s.controller,
                controller_state=s.controller.initial_state(),
                command_n=np.zeros(len(s.spec.thrusters), dtype=np.float64),
            )
        self._sampled_through_tick = -1
        self._off_tick: list[dict] = []
        self._edits: list[dict] = []
        self._record_track()

    def reset(self) -> None:
        """Returns to the start (tick 0, initial states and controllers). No partial rewind."""
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
            R = s.T_world_body.rotation
            vb = s.velocity_body[:3]
            v_world = R @ vb
            current = self.environment.current_ned(float(s.position_ned_m[2]))
            through_water = v_world - current
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
                "speed_over_ground_m_s": float(math.sqrt(float(v_world @ v_world))),
                "speed_through_water_m_s": float(math.sqrt(float(through_water @ through_water))),
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
            water = water.model_copy(update={"current_ned_m_per_s": (0.0, 0.0, 0.0)})
            water = WaterSpec.model_validate(
                {**water.model_dump(), "current_profile": list(profile)}
            )
        else:
            if current_ned_m_per_s is None:
                raise ValueError("current_ned_m_per_s: give a 3-vector [m/s] or profile=...")
            water = WaterSpec.model_validate(
                {
                    **water.model_dump(),
                    "current_ned_m_per_s": tuple(current_ned_m_per_s),
                    "current_profile": (),
                }
            )
        self.environment = self.environment.with_water(water)
        self._edits.append(
            {"tick": self.tick, "edit": "current", "water": water.model_dump(mode="json")}
        )

    def set_controller(self, vehicle: str, controller: Controller) -> None:
        """Replaces a vehicle's controller (its state starts fresh)."""
        v = self._vehicle(vehicle)
        v.controller = controller
        v.controller_state = controller.initial_state()
        self._edits.append(
            {
                "tick": self.tick,
                "edit": "controller",
                "vehicle": vehicle,
                "controller": content_hash(controller),
            }
        )

    def set_step(self, step: int | str | float) -> None:
        """Changes the tick length (ns as int, or seconds); a new epoch starts at this tick."""
        self.clock.set_step(_step_ns(step))

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
        different thruster count, thruster states restart at zero.
        """
        if environment is not None:
            if not isinstance(environment, Environment):
                raise TypeError(
                    f"environment: expected an Environment, got {type(environment).__name__}"
                )
            self.environment = environment
            self._edits.append(
                {"tick": self.tick, "edit": "environment", "hash": environment.content_hash}
            )
        if vehicle is None:
            if spec is not None or sensors is not None or controller is not None:
                raise ValueError(
                    "vehicle: name the vehicle whose spec, sensors or controller you replace"
                )
            return
        v = self._vehicle(vehicle)
        if sensors is not None:
            spec = (spec or v.spec).model_copy(update={"sensors": tuple(sensors)})
            spec = VehicleSpec.model_validate(spec.model_dump())
        if spec is not None:
            if not isinstance(spec, VehicleSpec):
                raise TypeError(f"spec: expected a VehicleSpec, got {type(spec).__name__}")
            s = v.state
            thrust = (
                s.thrust_n
                if len(spec.thrusters) == s.thrust_n.shape[0]
                else np.zeros(len(spec.thrusters))
            )
            v.state = VehicleState(
                position_ned_m=s.position_ned_m,
                attitude_q=s.attitude_q,
                velocity_body=s.velocity_body,
                thrust_n=thrust,
            )
            v.setup = VehicleSetup(
                v.name,
                spec,
                v.controller,
                v.setup.position_ned_m,
                v.setup.rpy_rad,
                v.setup.velocity_body,
            )
            v.model = RigidBodyModel.from_spec(spec)
            v.command_n = np.zeros(len(spec.thrusters), dtype=np.float64)
            self._edits.append(
                {"tick": self.tick, "edit": "spec", "vehicle": vehicle, "spec": content_hash(spec)}
            )
        if controller is not None:
            self.set_controller(vehicle, controller)

    def inject_thruster_fault(self, vehicle: str, thruster: str, **_: Any) -> None:
        """Always refused: thruster faults belong to analytic scenario runs, not live Worlds."""
        raise ThrusterFaultRefusedError(
            f"thruster fault on {vehicle!r}/{thruster!r} refused: thruster faults are not "
            "available on a live World; they belong to analytic scenario runs"
        )

    # ------------------------------------------------------------------ stepping

    def step(self, n: int = 1) -> list[CaptureGroup]:
        """Advances ``n`` ticks; returns only the new samples, as capture groups in time order."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"n: expected a positive integer number of ticks, got {n!r}")
        if self.tick + n > MAX_STEPS_PER_WORLD:
            raise WorldLimitError(
                f"n: stepping {n} ticks from tick {self.tick} would exceed the limit of "
                f"{MAX_STEPS_PER_WORLD} steps per World; reset() or create a new World"
            )
        groups: list[CaptureGroup] = []
        if self._sampled_through_tick < 0:
            groups.extend(self._sample_tick(after_ns=None))
        for _ in range(n):
            self._advance_one()
            groups.extend(self._sample_tick(after_ns=self.clock.time_ns_at(self.tick - 1)))
        return groups

    def _advance_one(self) -> None:
        dt_ns = self.clock.step_ns
        t_ns = self.time_ns
        for v in self._vehicles.values():
            command, v.controller_state = v.controller.command(
                v.model, v.state, v.controller_state, time_ns=t_ns, dt_ns=dt_ns
            )
            v.command_n = np.asarray(command, dtype=np.float64)
            v.state = dynamics_step(
                v.model, v.state, v.command_n, self.environment.current_ned, dt_ns=dt_ns
            )
        self.clock.advance(1)
        self._record_track()

    def _record_track(self) -> None:
        for v in self._vehicles.values():
            v.track.append(self.tick, self.time_ns, v.state)

    def _sample_tick(self, *, after_ns: int | None) -> list[CaptureGroup]:
        tick, t_ns = self.tick, self.time_ns
        self._sampled_through_tick = tick
        due: list[tuple[_Vehicle, Any, int]] = []
        for v in self._vehicles.values():
            for spec in v.spec.sensors:
                on, off = spec.schedule.schedule().samples_in_window(
                    [t_ns], start_tick=tick, after_ns=after_ns
                )
                for rec in off:
                    self._off_tick.append(
                        {
                            "sensor_id": f"{v.name}/{spec.name}",
                            "sample_index": rec.sample_index,
                            "time_ns": rec.time_ns,
                        }
                    )
                for rec in on:
                    due.append((v, spec, rec.sample_index))
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

    def vehicle_spec(self, vehicle: str) -> VehicleSpec:
        """The current document of a vehicle."""
        return self._vehicle(vehicle).spec

    @property
    def off_tick_samples(self) -> tuple[dict, ...]:
        """Scheduled samples refused because they fell between committed ticks."""
        return tuple(self._off_tick)

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
            off_tick=tuple(self._off_tick),
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
