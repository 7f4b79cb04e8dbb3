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

Composition: the World's state is one explicit object,
:class:`~leviathan.world._state.WorldState`, and the World is a thin face over
it whose methods call plain functions of that state, one module per concern:
stepping in :mod:`leviathan.world._stepping`, edits in
:mod:`leviathan.world._edits`, records (tracks, snapshots, USD) in
:mod:`leviathan.world._history`, read-only queries in
:mod:`leviathan.world._queries`, sampling through the sensor protocol in
:mod:`leviathan.world._sampling`, and the checkpoint and rollback that make
every change all-or-nothing in :mod:`leviathan.world._transactions`.
:class:`leviathan.world.World` is the one public path.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from leviathan._validation import check_root_seed
from leviathan.controllers import Controller
from leviathan.dynamics import RigidBodyModel, VehicleState
from leviathan.raycast import resolve_backend
from leviathan.sensors import BodyKinematics
from leviathan.specs import SensorSpec, VehicleSpec
from leviathan.time import Clock
from leviathan.world import _edits as edits
from leviathan.world import _history as history
from leviathan.world import _queries as queries
from leviathan.world._environment import Environment
from leviathan.world._hulls import check_hulls
from leviathan.world._off_tick import refused_sample_indices
from leviathan.world._records import CaptureGroup, VehicleTrackRecord, WorldSnapshot
from leviathan.world._setup import VehicleSetup
from leviathan.world._state import WorldState, live_vehicle, restart
from leviathan.world._stepping import step as step_state
from leviathan.world._transactions import transaction
from leviathan.world._vehicles import check_controller_fits, check_sensors_in_water, tick_length_ns

__all__ = ["World", "world_state"]


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

    # The one state object; nothing else lives on a World.
    __slots__ = ("__weakref__", "_state")
    _state: WorldState

    # State a World shows as read-only attributes, as it always has (instance attributes,
    # not properties of the class): ``root_seed`` (root seed of every keyed effect),
    # ``tracing`` (the resolved ``(backend, device)`` of every ray trace), ``clock`` (the
    # committed tick, time [ns] and epochs) and ``environment`` (the current water,
    # current and scene objects).
    _STATE_ATTRIBUTES = frozenset({"clock", "environment", "root_seed", "tracing"})

    def __init__(self) -> None:
        raise TypeError("World: use World.create(...)")

    def __getattr__(self, name: str) -> Any:
        if name in World._STATE_ATTRIBUTES:
            return getattr(self._state, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

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
                that does not fit its vehicle (thruster count, limits) is refused here,
                and so is a sensor that cannot work in the environment's water at its
                vehicle's initial pose (a fan sonar whose ping period is below the
                two-way time ``2 R_max / c``, named ``"<vehicle>/<sensor>.schedule.period_ns"``).
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
        check_sensors_in_water(
            {s.name: (s.spec, s.initial_state().T_world_body) for s in setups}, env.water
        )
        for setup in setups:
            check_controller_fits(
                f"vehicles[{setup.name!r}].controller",
                setup.controller,
                RigidBodyModel.from_spec(setup.spec),
                setup.initial_state(),
                time_ns=0,
                dt_ns=tick_ns,
            )
        state = WorldState(
            setups=tuple(sorted(setups, key=lambda s: s.name)),
            initial_environment=env,
            initial_step_ns=tick_ns,
            root_seed=root_seed,
            tracing=resolve_backend(tracing_backend, tracing_device),
            clock=Clock(tick_ns),
            environment=env,
        )
        restart(state)
        self = object.__new__(cls)
        self._state = state
        return self

    # ------------------------------------------------------------------ lifecycle

    def reset(self) -> None:
        """Returns to the start (tick 0, initial states and controllers). No partial rewind."""
        with transaction(self._state):
            restart(self._state)

    # ------------------------------------------------------------------ queries

    @property
    def tick(self) -> int:
        """Committed tick index."""
        return self._state.clock.tick

    @property
    def time_ns(self) -> int:
        """Committed simulation time [ns]."""
        return self._state.clock.time_ns

    @property
    def step_limit(self) -> int:
        """Most ticks this World may reach (lowered by a registry that holds it)."""
        return self._state.step_limit

    @property
    def vehicle_names(self) -> tuple[str, ...]:
        """Vehicle names, sorted."""
        return tuple(self._state.vehicles)

    def sensor_ids(self) -> tuple[str, ...]:
        """Every sensor id (``vehicle/sensor``), sorted."""
        return queries.sensor_ids(self._state)

    def vehicle_state(self, name: str) -> VehicleState:
        """The committed state of one vehicle."""
        return live_vehicle(self._state, name).state

    def vehicle_spec(self, vehicle: str) -> VehicleSpec:
        """The current document of a vehicle."""
        return live_vehicle(self._state, vehicle).spec

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
        return queries.body_kinematics(self._state, vehicle)

    def state(self) -> dict[str, Any]:
        """Committed tick, time, epochs and per-vehicle kinematics (JSON-friendly)."""
        return queries.summary(self._state)

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
        return step_state(self._state, n)

    # ------------------------------------------------------------------ edits

    def set_current(
        self,
        current_ned_m_per_s: Sequence[float] | None = None,
        *,
        profile: Sequence[Any] | None = None,
    ) -> None:
        """Sets a uniform NED current [m/s] or a depth profile of ``CurrentLayer``s."""
        edits.set_current(self._state, current_ned_m_per_s, profile=profile)

    def set_controller(self, vehicle: str, controller: Controller) -> None:
        """Replaces a vehicle's controller (its state starts fresh).

        Raises:
            KeyError: If there is no such vehicle.
            TypeError, ValueError: If the controller does not fit the vehicle (see
                :meth:`create`); the World is unchanged.
        """
        edits.set_controller(self._state, vehicle, controller)

    def set_step(self, step: int | str | float) -> None:
        """Changes the tick length (ns as int, or seconds); a new epoch starts at this tick.

        Raises:
            ValueError, TypeError: If the step is not a whole number of nanoseconds
                within the tick bounds, or the vehicles' controllers refuse it.
        """
        edits.set_step(self._state, step)

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
        the (new or kept) document, and every sensor must work in the (new or kept)
        water at its vehicle's committed pose (see :meth:`create`), or the whole edit
        is refused.
        """
        edits.edit(
            self._state,
            vehicle=vehicle,
            spec=spec,
            sensors=sensors,
            controller=controller,
            environment=environment,
        )

    def inject_thruster_fault(self, vehicle: str, thruster: str, **_: Any) -> None:
        """Always refused: thruster faults belong to analytic scenario runs, not live Worlds."""
        edits.refuse_thruster_fault(vehicle, thruster)

    # ------------------------------------------------------------------ records

    def track(self, vehicle: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The recorded track of a vehicle over every committed tick.

        Returns:
            ``(ticks, times_ns, T_world_body)``: int64 [n], int64 [n] and float64
            [n, 4, 4] homogeneous matrices of ``T_world_body``.
        """
        return history.track(self._state, vehicle)

    def track_states(self, vehicle: str, *, from_tick: int = 0) -> VehicleTrackRecord:
        """The committed ground-truth states of a vehicle at every tick from ``from_tick``.

        Cost is O(ticks returned), so a recorder can take each new stretch of the
        track after every ``step`` without copying the whole history again.

        Args:
            vehicle: Vehicle name.
            from_tick: First tick wanted (0 .. :attr:`tick`); ticks before it are left out.

        Returns:
            A :class:`~leviathan.world.VehicleTrackRecord` with ticks, times
            [ns], NED positions [m], attitude quaternions ``q_world_body`` ``(w, x, y,
            z)`` and body velocities ``(u, v, w, p, q, r)`` [m/s, rad/s].
        """
        return history.track_states(self._state, vehicle, from_tick=from_tick)

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
        return self._state.off_tick.records()  # fresh dicts: changing them cannot reach it

    # One definition, with its docstring, for the method and the module function.
    refused_sample_indices = staticmethod(refused_sample_indices)

    def snapshot(self) -> WorldSnapshot:
        """Freezes the committed state at the current tick into an immutable, hashed record."""
        return history.snapshot(self._state)

    def export_usd(self, path: str | Path) -> Path:
        """Writes the World (scene, vehicles with their track over every committed tick,
        sensors, provenance) as an OpenUSD stage (``.usda`` or ``.usdc``)."""
        return history.export_usd(self._state, path)


def world_state(world: World) -> WorldState:
    """The one state object behind ``world`` (for the registry that holds it, and tests)."""
    return world._state
