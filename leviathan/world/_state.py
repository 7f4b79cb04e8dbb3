"""A World's state in one explicit object, and the few functions every part of it shares.

:class:`WorldState` holds everything a World is between calls: how it was created
(to :func:`restart` from), its clock, environment and live vehicles, the sampling
position, the off-tick log, the edit log, and the limits a registry sets. The
World (:mod:`leviathan.world._world`) is a thin face over one of these; stepping
(:mod:`~leviathan.world._stepping`), editing (:mod:`~leviathan.world._edits`),
history (:mod:`~leviathan.world._history`), sampling
(:mod:`~leviathan.world._sampling`) and the checkpoint and rollback
(:mod:`~leviathan.world._transactions`) are plain functions that take it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from leviathan.dynamics import RigidBodyModel
from leviathan.time import Clock
from leviathan.world._environment import Environment
from leviathan.world._errors import MAX_STEPS_PER_WORLD
from leviathan.world._off_tick import OffTickLog
from leviathan.world._setup import VehicleSetup
from leviathan.world._vehicles import LiveVehicle

__all__ = ["WorldState", "live_vehicle", "record_track", "restart"]


@dataclass(eq=False)
class WorldState:
    """Everything a World holds between calls (mutable; never hashed itself).

    Attributes:
        setups: The vehicles as created, sorted by name (:func:`restart` starts from them).
        initial_environment: The environment as created.
        initial_step_ns: The tick length as created [ns].
        root_seed: Root seed of every keyed random effect.
        tracing: The resolved ``(backend, device)`` of every ray trace.
        clock: Committed tick, time and epochs (restored in place: callers may hold it).
        environment: The current environment (water, current, scene objects).
        vehicles: The live vehicles by name, in name order.
        sampled_through_tick: Last tick whose due samples were taken (-1: none yet).
        off_tick: Scheduled samples refused as off-tick, as runs.
        edits: The edit log, one dict per committed edit.
        step_limit: Most ticks the World may reach (lowered while a registry holds it).
        owner: The registry holding the World, or ``None``.
    """

    setups: tuple[VehicleSetup, ...]
    initial_environment: Environment
    initial_step_ns: int
    root_seed: int
    tracing: tuple[str, str]
    clock: Clock
    environment: Environment
    vehicles: dict[str, LiveVehicle] = field(default_factory=dict)
    sampled_through_tick: int = -1
    off_tick: OffTickLog = field(default_factory=OffTickLog)
    edits: list[dict] = field(default_factory=list)
    step_limit: int = MAX_STEPS_PER_WORLD
    owner: object | None = None


def restart(state: WorldState) -> None:
    """Puts ``state`` at tick 0: initial vehicles, controllers, environment; empty logs.

    Everything is built before anything is assigned, so a failure while building
    (a vehicle document that no longer builds a model) changes nothing.
    """
    vehicles: dict[str, LiveVehicle] = {}
    for s in state.setups:
        vehicles[s.name] = LiveVehicle(
            setup=s,
            model=RigidBodyModel.from_spec(s.spec),
            state=s.initial_state(),
            controller=s.controller,
            controller_state=s.controller.initial_state(),
            command_n=np.zeros(len(s.spec.thrusters), dtype=np.float64),
        )
    state.clock.restore(Clock(state.initial_step_ns))
    state.environment = state.initial_environment
    state.vehicles = vehicles
    state.sampled_through_tick = -1
    state.off_tick = OffTickLog()
    state.edits = []
    record_track(state)


def record_track(state: WorldState) -> None:
    """Appends every vehicle's committed state at the committed tick to its track."""
    tick, time_ns = state.clock.tick, state.clock.time_ns
    for v in state.vehicles.values():
        v.track.append(tick, time_ns, v.state)


def live_vehicle(state: WorldState, name: str) -> LiveVehicle:
    """The live vehicle called ``name``, refusing anything else with the names there are."""
    if not isinstance(name, str):
        raise TypeError(f"vehicle: expected a vehicle name (str), got {type(name).__name__}")
    try:
        return state.vehicles[name]
    except KeyError:
        raise KeyError(
            f"vehicle: no vehicle {name!r}; vehicles: {', '.join(state.vehicles)}"
        ) from None
