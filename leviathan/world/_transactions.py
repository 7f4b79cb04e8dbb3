"""All-or-nothing World operations: a checkpoint of everything that may change, and rollback.

Every operation that changes a World runs inside :func:`transaction`: if anything
fails part-way (in any vehicle, controller or sensor, or on ``KeyboardInterrupt``),
the checkpoint taken before it is put back, so the World's snapshot hash is the
one before the call.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from leviathan.time import Clock
from leviathan.world._environment import Environment
from leviathan.world._off_tick import OffTickLog
from leviathan.world._state import WorldState
from leviathan.world._vehicles import LiveVehicle

__all__ = ["Checkpoint", "checkpoint", "rollback", "transaction"]


@dataclass(frozen=True)
class Checkpoint:
    """Everything an operation may change, to put back if it fails.

    It covers the clock (tick, time, epochs), the environment, each vehicle's
    document, model, state, controller, controller state and last command, the
    recorded tracks, the sampling position, the off-tick log and the edit log.
    The vehicle table and the edit log are kept as the objects they were, so an
    operation that replaced them (a reset) is undone as well as one that changed
    them in place.
    """

    clock: Clock
    environment: Environment
    vehicle_table: dict[str, LiveVehicle]
    vehicles: dict[str, tuple]
    track_sizes: dict[str, int]
    sampled_through_tick: int
    off_tick: OffTickLog
    edit_log: list[dict]
    edits: int


def checkpoint(state: WorldState) -> Checkpoint:
    """What :func:`rollback` puts back: a copy of every piece of ``state`` that may change."""
    return Checkpoint(
        clock=state.clock.copy(),
        environment=state.environment,
        vehicle_table=state.vehicles,
        vehicles={
            name: (v.setup, v.model, v.state, v.controller, v.controller_state, v.command_n)
            for name, v in state.vehicles.items()
        },
        track_sizes={name: v.track.size for name, v in state.vehicles.items()},
        sampled_through_tick=state.sampled_through_tick,
        off_tick=state.off_tick.copy(),
        edit_log=state.edits,
        edits=len(state.edits),
    )


def rollback(state: WorldState, saved: Checkpoint) -> None:
    """Puts ``state`` back exactly as it was when ``saved`` was taken."""
    # In place: callers may hold the World's clock object.
    state.clock.restore(saved.clock)
    state.environment = saved.environment
    state.vehicles = saved.vehicle_table
    if set(state.vehicles) != set(saved.vehicles):
        raise AssertionError("a World operation changed the set of vehicles")  # never
    for name, fields in saved.vehicles.items():
        v = state.vehicles[name]
        v.setup, v.model, v.state, v.controller, v.controller_state, v.command_n = fields
        v.track.truncate(saved.track_sizes[name])
    state.sampled_through_tick = saved.sampled_through_tick
    state.off_tick = saved.off_tick
    state.edits = saved.edit_log
    del state.edits[saved.edits :]


@contextmanager
def transaction(state: WorldState) -> Iterator[None]:
    """Runs a change of ``state``; on any failure (``BaseException``) puts all of it back."""
    saved = checkpoint(state)
    try:
        yield
    except BaseException:
        rollback(state, saved)
        raise
