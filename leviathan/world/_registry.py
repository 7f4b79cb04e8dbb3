"""``WorldRegistry``: the open Worlds a service holds, with capacity and idle limits.

Worlds live in memory only. The registry's lifecycle clock is monotonic
(``time.monotonic`` by default, injectable for tests) and never touches
simulation time: it only decides when an idle World is released.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from leviathan.world._errors import MAX_STEPS_PER_WORLD, WorldLimitError
from leviathan.world._records import CaptureGroup
from leviathan.world._world import World, world_state

__all__ = ["IDLE_RELEASE_S", "MAX_OPEN_WORLDS", "RELEASED_IDS_KEPT", "WorldRegistry"]

MAX_OPEN_WORLDS = 32
IDLE_RELEASE_S = 3600.0


@dataclass
class _Entry:
    world: World
    last_used_s: float


RELEASED_IDS_KEPT = 1024
"""How many released ids a registry remembers, to say "released after being idle" rather
than "not open"; older ones are still known never to be reused."""


class WorldRegistry:
    """Holds up to ``max_worlds`` open Worlds; releases those idle for ``idle_release_s``.

    A World occupies at most one registry slot (opening it twice, here or in another
    registry, is refused). While it is held, the World's own :meth:`World.step`
    enforces the registry's step limit, so holding a reference to the World does
    not bypass it. Ids (``"world-<n>"``) are never reused; the record of released
    ids is bounded (the last :data:`RELEASED_IDS_KEPT`).

    Args:
        max_worlds: Capacity (default 32).
        max_steps: Steps allowed per World (default 2,000,000).
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
        if isinstance(max_worlds, bool) or not isinstance(max_worlds, int) or max_worlds < 1:
            raise ValueError(f"max_worlds: expected an int >= 1, got {max_worlds!r}")
        if (
            isinstance(max_steps, bool)
            or not isinstance(max_steps, int)
            or not 1 <= max_steps <= MAX_STEPS_PER_WORLD
        ):
            raise ValueError(f"max_steps: expected 1..{MAX_STEPS_PER_WORLD}, got {max_steps!r}")
        if (
            isinstance(idle_release_s, bool)
            or not isinstance(idle_release_s, int | float)
            or not idle_release_s > 0
            or not math.isfinite(idle_release_s)
        ):
            raise ValueError(f"idle_release_s: expected > 0 seconds, got {idle_release_s!r}")
        self.max_worlds = max_worlds
        self.max_steps = max_steps
        self.idle_release_s = float(idle_release_s)
        self._clock = lifecycle_clock
        self._worlds: dict[str, _Entry] = {}
        self._next_id = 1
        self._released: deque[str] = deque(maxlen=RELEASED_IDS_KEPT)

    def __len__(self) -> int:
        self.release_idle()
        return len(self._worlds)

    @property
    def released(self) -> tuple[str, ...]:
        """The most recently released ids (at most :data:`RELEASED_IDS_KEPT`), oldest first."""
        return tuple(self._released)

    def release_idle(self) -> list[str]:
        """Releases every World idle for at least ``idle_release_s``; returns their ids."""
        now = self._clock()
        gone = [
            wid for wid, e in self._worlds.items() if now - e.last_used_s >= self.idle_release_s
        ]
        for wid in gone:
            self._detach(self._worlds.pop(wid).world)
            self._released.append(wid)
        return gone

    def open(self, world: World) -> str:
        """Registers a World and returns its id (``"world-<n>"``).

        Raises:
            TypeError: If ``world`` is not a World.
            ValueError: If the World is already held by a registry.
            WorldLimitError: If the registry is full, or the World is already past
                this registry's step limit.
        """
        if not isinstance(world, World):
            raise TypeError(f"world: expected a World, got {type(world).__name__}")
        state = world_state(world)
        if state.owner is not None:
            held = "this registry" if state.owner is self else "another registry"
            raise ValueError(
                f"world: this World is already open in {held}; a World "
                "occupies one registry slot only"
            )
        self.release_idle()
        if len(self._worlds) >= self.max_worlds:
            raise WorldLimitError(
                f"registry: {len(self._worlds)} Worlds are open, the limit is {self.max_worlds}; "
                "close one first"
            )
        if world.tick > self.max_steps:
            raise WorldLimitError(
                f"world: it is at tick {world.tick}, past this registry's limit of "
                f"{self.max_steps} steps per World; reset() it first"
            )
        wid = f"world-{self._next_id}"
        self._next_id += 1
        state.owner = self
        state.step_limit = min(state.step_limit, self.max_steps)
        self._worlds[wid] = _Entry(world, self._clock())
        return wid

    def _detach(self, world: World) -> None:
        state = world_state(world)
        state.owner = None
        state.step_limit = MAX_STEPS_PER_WORLD

    def get(self, world_id: str) -> World:
        """Returns an open World and marks it used."""
        self.release_idle()
        entry = self._worlds.get(world_id) if isinstance(world_id, str) else None
        if entry is None:
            raise KeyError(f"world_id: {world_id!r} {self._why_not_open(world_id)}")
        entry.last_used_s = self._clock()
        return entry.world

    def _why_not_open(self, world_id: object) -> str:
        if world_id in self._released:
            return "was released after being idle"
        if isinstance(world_id, str) and world_id.startswith("world-"):
            number = world_id[len("world-") :]
            if number.isdigit() and str(int(number)) == number and 1 <= int(number) < self._next_id:
                return "is no longer open (closed, or released after being idle)"
        return "is not open"

    def step(self, world_id: str, n: int = 1) -> list[CaptureGroup]:
        """Steps an open World, enforcing the registry's step limit."""
        return self.get(world_id).step(n)

    def close(self, world_id: str) -> None:
        """Closes an open World (it leaves the registry and is no longer limited by it)."""
        entry = self._worlds.pop(world_id, None) if isinstance(world_id, str) else None
        if entry is None:
            raise KeyError(f"world_id: {world_id!r} {self._why_not_open(world_id)}")
        self._detach(entry.world)

    def ids(self) -> tuple[str, ...]:
        """Ids of the open Worlds."""
        self.release_idle()
        return tuple(self._worlds)
