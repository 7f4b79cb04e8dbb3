"""Server-side Play/Pause: steps a World with no client needed to keep it going.

A :class:`Player` is an asyncio task on the service's event loop. Each iteration
commits one step of ``ticks_per_step`` ticks through :meth:`WorldHost.run` (so it
takes the World's lock like any request, and its state is pushed to the World's
WebSocket subscribers), then waits:

* ``realtime``: until the wall clock has caught up with the simulated time played
  so far divided by ``rate`` (the wall clock paces the loop; it never enters
  simulation time, so a played World gives the hashes of the same steps requested
  one by one);
* ``fast``: not at all, beyond yielding to the event loop so requests interleave.

It stops when paused, at ``until_tick``, at the World's step limit, when the World
is deleted or released, or when the service shuts down; :attr:`stopped_reason`
says which.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from leviathan.service._errors import ServiceError
from leviathan.service._hosting import HostedWorld, WorldHost

__all__ = ["Player"]


class Player:
    """Plays one World (see the module docstring).

    Args:
        host: The service's World host.
        hosted: The World.
        mode: ``"realtime"`` or ``"fast"``.
        ticks_per_step: Ticks per committed step.
        rate: Simulated seconds per wall-clock second (``realtime`` only).
        until_tick: Tick to stop at (``None``: the step limit).
    """

    def __init__(
        self,
        host: WorldHost,
        hosted: HostedWorld,
        *,
        mode: str,
        ticks_per_step: int,
        rate: float = 1.0,
        until_tick: int | None = None,
    ) -> None:
        self.host = host
        self.hosted = hosted
        self.mode = mode
        self.ticks_per_step = ticks_per_step
        self.rate = rate
        self.until_tick = until_tick
        self.stopped_reason: str | None = None
        self._stop = False
        self.task: asyncio.Task | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None

    @property
    def playing(self) -> bool:
        """Whether the loop is still running."""
        return self.task is not None and not self.task.done()

    def start(self) -> None:
        """Starts the loop on the running event loop."""
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self.task = self._loop.create_task(self._run())

    def stop(self, reason: str) -> None:
        """Asks the loop to stop after the step in progress (thread-safe); a wait for the
        wall clock ends at once."""
        if self.stopped_reason is None:
            self.stopped_reason = reason
        self._stop = True
        loop, wake = self._loop, self._wake
        if loop is not None and wake is not None and not loop.is_closed():
            loop.call_soon_threadsafe(wake.set)

    async def _wait(self, seconds: float) -> None:
        # Interruptible by stop(): a slow rate may ask to wait for hours. Waits are cut
        # into hours at most (the loop recomputes the deadline), so no timer overflows.
        if seconds <= 0.0 or self._wake is None:
            await asyncio.sleep(0)
            return
        try:
            await asyncio.wait_for(self._wake.wait(), timeout=min(seconds, 3600.0))
        except TimeoutError:
            pass

    def _steps(self, world: Any) -> int:
        n = self.ticks_per_step
        if self.until_tick is not None:
            n = min(n, self.until_tick - world.tick)
        if n <= 0:
            return 0
        groups = world.step(n)
        self.host.keep_samples(self.hosted, groups)
        return world.tick

    async def _run(self) -> None:
        wid = self.hosted.world_id
        start_wall = time.monotonic()
        start_ns: int | None = None
        try:
            while not self._stop:
                if start_ns is None:
                    start_ns = await self.host.run(wid, lambda w: w.time_ns, changes=False)
                tick = await self.host.run(wid, self._steps)
                if tick == 0 or (self.until_tick is not None and tick >= self.until_tick):
                    self.stop("until_tick")
                    break
                if self.mode == "realtime":
                    played_ns = await self.host.run(wid, lambda w: w.time_ns, changes=False)
                    due = start_wall + (played_ns - start_ns) / 1e9 / self.rate
                    await self._wait(due - time.monotonic())
                else:
                    await asyncio.sleep(0)
        except ServiceError as error:
            self.stop("step_limit" if error.code == "limit_reached" else error.code)
        except asyncio.CancelledError:
            self.stop("cancelled")
            raise
        finally:
            self._stop = True
