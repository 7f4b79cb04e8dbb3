"""``WorldRegistry``: the open Worlds a service holds, with capacity and idle limits.

Worlds live in memory only. The registry's lifecycle clock is monotonic
(``time.monotonic`` by default, injectable for tests) and never touches
simulation time: it only decides when an idle World is released.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from leviathan.world.world import MAX_STEPS_PER_WORLD, CaptureGroup, World, WorldLimitError

__all__ = ["IDLE_RELEASE_S", "MAX_OPEN_WORLDS", "WorldRegistry"]

MAX_OPEN_WORLDS = 32
IDLE_RELEASE_S = 3600.0


@dataclass
class _Entry:
    world: World
    last_used_s: float


class WorldRegistry:
    """Holds up to ``max_worlds`` open Worlds; releases those idle for ``idle_release_s``.

    Args:
        max_worlds: Capacity (default 32).
        max_steps: Steps allowed per World (default 2,000,000; checked by ``World.step`` too).
        idle_release_s: Idle time after which a World is released [s] (default one hour).
        lifecycle_clock: Monotonic seconds source (never simulation time).
    """

    def __init__(
        self,
        *,
        max_worlds: int = MAX_OPEN_WORLDS,
        max_steps: int = MAX_STEPS_PER_WORLD,
        idle_release_s: float = IDLE_RELEASE_S,
        lifecycle_clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_worlds < 1:
            raise ValueError(f"max_worlds: expected >= 1, got {max_worlds}")
        if not 1 <= max_steps <= MAX_STEPS_PER_WORLD:
            raise ValueError(f"max_steps: expected 1..{MAX_STEPS_PER_WORLD}, got {max_steps}")
        if not idle_release_s > 0:
            raise ValueError(f"idle_release_s: expected > 0 seconds, got {idle_release_s}")
        self.max_worlds = max_worlds
        self.max_steps = max_steps
        self.idle_release_s = float(idle_release_s)
        self._clock = lifecycle_clock
        self._worlds: dict[str, _Entry] = {}
        self._next_id = 1
        self.released: list[str] = []

    def __len__(self) -> int:
        self.release_idle()
        return len(self._worlds)

    def release_idle(self) -> list[str]:
        """Releases every World idle for at least ``idle_release_s``; returns their ids."""
        now = self._clock()
        gone = [
            wid for wid, e in self._worlds.items() if now - e.last_used_s >= self.idle_release_s
        ]
        for wid in gone:
            del self._worlds[wid]
        self.released.extend(gone)
        return gone

    def open(self, world: World) -> str:
        """Registers a World and returns its id (``"world-<n>"``)."""
        if not isinstance(world, World):
            raise TypeError(f"world: expected a World, got {type(world).__name__}")
        self.release_idle()
        if len(self._worlds) >= self.max_worlds:
            raise WorldLimitError(
                f"registry: {len(self._worlds)} Worlds are open, the limit is {self.max_worlds}; "
                "close one first"
            )
        wid = f"world-{self._next_id}"
        self._next_id += 1
        self._worlds[wid] = _Entry(world, self._clock())
        return wid

    def get(self, world_id: str) -> World:
        """Returns an open World and marks it used."""
        self.release_idle()
        entry = self._worlds.get(world_id)
        if entry is None:
            state = "was released after being idle" if world_id in self.released else "is not open"
            raise KeyError(f"world_id: {world_id!r} {state}")
        entry.last_used_s = self._clock()
        return entry.world

    def step(self, world_id: str, n: int = 1) -> list[CaptureGroup]:
        """Steps an open World, enforcing the registry's step limit."""
        world = self.get(world_id)
        if world.tick + n > self.max_steps:
            raise WorldLimitError(
                f"n: stepping {n} ticks from tick {world.tick} would exceed this registry's "
                f"limit of {self.max_steps} steps per World"
            )
        return world.step(n)

    def close(self, world_id: str) -> None:
        """Closes an open World."""
        if self._worlds.pop(world_id, None) is None:
            raise KeyError(f"world_id: {world_id!r} is not open")

    def ids(self) -> tuple[str, ...]:
        """Ids of the open Worlds."""
        self.release_idle()
        return tuple(self._worlds)
