"""All-or-nothing World operations: a checkpoint of everything that may change, and rollback.

Every operation that changes a World runs inside :meth:`Transactional._transaction`:
if anything fails part-way (in any vehicle, controller or sensor, or on
``KeyboardInterrupt``), the checkpoint taken before it is put back, so the
World's snapshot hash is the one before the call.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from leviathan.time import Clock
from leviathan.world._environment import Environment
from leviathan.world._sampling import OffTickLog
from leviathan.world._vehicles import LiveVehicle

__all__ = ["Checkpoint", "Transactional"]


@dataclass(frozen=True)
class Checkpoint:
    """Everything an operation may change, to put back if it fails."""

    clock: Clock
    environment: Environment
    vehicles: dict[str, tuple]
    track_sizes: dict[str, int]
    sampled_through_tick: int
    off_tick: OffTickLog
    edits: int


class Transactional:
    """The checkpoint and rollback half of a World (mixed into :class:`~leviathan.world.World`).

    It covers the clock (tick, time, epochs), the environment, each vehicle's
    document, model, state, controller, controller state and last command, the
    recorded tracks, the sampling position, the off-tick log and the edit log.
    """

    # The World state a checkpoint covers (assigned by World._init_state).
    clock: Clock
    environment: Environment
    _vehicles: dict[str, LiveVehicle]
    _sampled_through_tick: int
    _off_tick: OffTickLog
    _edits: list[dict]

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """Run a change; on any failure put every piece of World state back."""
        saved = self._checkpoint()
        try:
            yield
        except BaseException:
            self._rollback(saved)
            raise

    def _checkpoint(self) -> Checkpoint:
        return Checkpoint(
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

    def _rollback(self, saved: Checkpoint) -> None:
        # In place: callers may hold the World's clock object.
        self.clock.restore(saved.clock)
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
