"""``WorldHost``: the service's live Worlds, their locks, workers and subscribers.

The :class:`~leviathan.world.WorldRegistry` is the only owner of live Worlds; the
host wraps it for concurrent use:

* **One lock per World**: every operation on a World runs while holding that
  World's lock, so requests on one World are serialised in arrival order at the
  lock, and a refused request (the library's operations are transactional)
  changes nothing even while other requests wait.
* **A worker pool for different Worlds**: operations run in a
  ``ThreadPoolExecutor`` (``workers`` threads), so Worlds step side by side and
  the event loop stays free for other requests and WebSocket pushes. Given the
  GIL, what truly runs in parallel is the code that releases it: Warp kernel
  launches and waits (the ray tracing of sonar, camera and DVL on the default
  ``"auto"`` backend; Warp calls its kernels through ctypes, which drops the GIL),
  NumPy's inner loops over large arrays, hashlib over large buffers, and the
  sockets' I/O. Everything else a tick does holds the GIL and interleaves rather
  than overlaps: the dynamics, integrator and controllers (pure Python over small
  arrays), keyed randomness, freezing and hashing the products, and the numpy
  reference tracer, whose wavefront is many small array operations. Measured on
  a 2-core machine, two Worlds stepped on two threads against one after the
  other: 1.2x with a sonar on the Warp CPU backend, 1.0x on the numpy reference,
  0.9x with dynamics only. So the pool buys responsiveness (a long step on one
  World does not hold up requests on another) far more than throughput. A
  World's results never depend on that interleaving: each World is touched only
  under its own lock, and nothing is shared between Worlds.
* **The registry's own bookkeeping** (open, get, close, idle release) runs under
  one short registry lock, never while a World steps.

After every committed change the World's state is pushed, in commit order (it
is taken under the World's lock), to the WebSocket subscribers of that World.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from leviathan.service._errors import ServiceError, error_for
from leviathan.service._samples import SampleStore
from leviathan.world import World, WorldRegistry

__all__ = ["HostedWorld", "ServiceSettings", "WorldHost"]


@dataclass(frozen=True)
class ServiceSettings:
    """Limits and options of one service.

    Args:
        max_worlds: Open Worlds at most (the registry's capacity, default 32).
        max_steps: Steps per World at most (default 2,000,000).
        idle_release_s: Idle time before a World is released [s] (default one hour).
        max_ticks_per_request: Ticks one step request may ask for.
        max_body_bytes: Largest request body [bytes]; larger ones get 413.
        samples_kept: Recent samples each World keeps downloadable by id.
        samples_bytes_per_world: Most bytes of kept samples per World [bytes]
            (default 128 MiB: three catalogue survey sonar frames).
        samples_bytes_total: Most bytes of kept samples over all Worlds [bytes]
            (default 2 GiB). Oldest samples are evicted first; an evicted sample
            answers 404. With these defaults 32 catalogue survey Worlds stepped 500
            ticks each, in requests of 50 ticks by up to ``workers`` at a time, stay
            under 8 GB of resident memory (``tests/service/test_service_memory.py``
            shows it scaled down); a request's own new samples are held until it
            answers, so a request of many ticks holds more.
        workers: Threads of the worker pool that runs World operations.
        sweep_s: How often idle Worlds are looked for [s of the lifecycle clock's
            wall time; the release decision itself uses the lifecycle clock].
        cors_origins: Origins allowed by CORS (none: no CORS headers at all).
        subscriber_queue: Pushed states a slow WebSocket client may lag behind
            before it is disconnected (nothing is dropped silently).
    """

    max_worlds: int = 32
    max_steps: int = 2_000_000
    idle_release_s: float = 3600.0
    max_ticks_per_request: int = 10_000
    max_body_bytes: int = 16 * 1024 * 1024
    samples_kept: int = 512
    samples_bytes_per_world: int = 128 * 1024**2
    samples_bytes_total: int = 2 * 1024**3
    workers: int = 8
    sweep_s: float = 10.0
    cors_origins: tuple[str, ...] = ()
    subscriber_queue: int = 1024


@dataclass(eq=False)
class HostedWorld:
    """One World with its lock, subscribers and player (its samples: the host's store)."""

    world_id: str
    world: World
    lock: threading.Lock = field(default_factory=threading.Lock)
    subscribers: set[asyncio.Queue] = field(default_factory=set)
    seq: int = 0
    player: Any = None
    closed: bool = False


class WorldHost:
    """The live Worlds of one service process (see the module docstring).

    Args:
        settings: The service's limits.
        lifecycle_clock: Monotonic seconds source for idle release (injectable).
    """

    def __init__(self, settings: ServiceSettings, *, lifecycle_clock: Callable[[], float]) -> None:
        self.settings = settings
        self.registry = WorldRegistry(
            max_worlds=settings.max_worlds,
            max_steps=settings.max_steps,
            idle_release_s=settings.idle_release_s,
            lifecycle_clock=lifecycle_clock,
        )
        self._lock = threading.Lock()
        self._hosted: dict[str, HostedWorld] = {}
        self.samples = SampleStore(
            count_per_world=settings.samples_kept,
            bytes_per_world=settings.samples_bytes_per_world,
            bytes_total=settings.samples_bytes_total,
        )
        self.executor = ThreadPoolExecutor(settings.workers, thread_name_prefix="leviathan-world")
        self.loop: asyncio.AbstractEventLoop | None = None
        self.shutting_down = False

    # ------------------------------------------------------------------ registry

    def sweep(self) -> list[str]:
        """Releases idle Worlds (registry rule) and drops what the host kept for them."""
        with self._lock:
            gone = self.registry.release_idle()
            hosted = [self._hosted.pop(wid) for wid in gone if wid in self._hosted]
        for h in hosted:
            self._retire(h, "released")
        return gone

    def open(self, world: World) -> HostedWorld:
        """Opens a World in the registry (409 when full)."""
        self.sweep()
        with self._lock:
            try:
                wid = self.registry.open(world)
            except Exception as error:
                raise error_for(error) from None
            hosted = HostedWorld(wid, world)
            self._hosted[wid] = hosted
        return hosted

    def get(self, world_id: str) -> HostedWorld:
        """An open World, marked used (404 unknown, 410 released after idling)."""
        self.sweep()
        with self._lock:
            try:
                self.registry.get(world_id)
            except KeyError:
                raise self._missing(world_id) from None
            return self._hosted[world_id]

    def _missing(self, world_id: str) -> ServiceError:
        if world_id in self.registry.released:
            return ServiceError(
                410,
                "world_released",
                f"world_id: {world_id!r} was released after being idle for "
                f"{self.registry.idle_release_s:g} s; create a new World",
                field="world_id",
                value=world_id,
                expected="an open World id",
            )
        return ServiceError(
            404,
            "world_not_found",
            f"world_id: {world_id!r} is not open (never opened, or closed); Worlds do not "
            "survive a service restart",
            field="world_id",
            value=world_id,
            expected="an open World id (see GET /worlds)",
        )

    def ids(self) -> tuple[str, ...]:
        """Ids of the open Worlds."""
        self.sweep()
        with self._lock:
            return self.registry.ids()

    def hosted(self, world_id: str) -> HostedWorld | None:
        """The hosted entry without marking it used (``None`` if not open)."""
        with self._lock:
            return self._hosted.get(world_id)

    def close(self, hosted: HostedWorld) -> None:
        """Closes a World (call while holding its lock)."""
        with self._lock:
            try:
                self.registry.close(hosted.world_id)
            except KeyError:
                raise self._missing(hosted.world_id) from None
            self._hosted.pop(hosted.world_id, None)
        self._retire(hosted, "deleted")

    def _retire(self, hosted: HostedWorld, reason: str) -> None:
        hosted.closed = True
        self.samples.clear(hosted.world_id)
        if hosted.player is not None:
            hosted.player.stop(reason)
        self._publish(hosted, {"type": "closed", "world_id": hosted.world_id, "reason": reason})

    # ------------------------------------------------------------------ running

    async def run(
        self, world_id: str, operation: Callable[[World], Any], *, changes: bool = True
    ) -> Any:
        """Runs ``operation(world)`` in the worker pool under the World's lock.

        A client that disconnects meanwhile does not interrupt it: the operation
        commits (or refuses) as a whole, and the lock is released either way.

        Args:
            world_id: The World.
            operation: What to do with it (a library call).
            changes: Whether it may change the World (its state is then pushed).
        """
        if self.loop is None:
            self.loop = asyncio.get_running_loop()
        hosted = self.get(world_id)
        future = self.loop.run_in_executor(self.executor, self._locked, hosted, operation, changes)
        # Shielded: cancelling the request must not leave the caller without the
        # result while the worker still holds the lock.
        return await asyncio.shield(future)

    async def call(self, operation: Callable[[], Any]) -> Any:
        """Runs ``operation()`` (no World lock: e.g. building a new World) in the pool."""
        if self.loop is None:
            self.loop = asyncio.get_running_loop()

        def guarded() -> Any:
            try:
                return operation()
            except ServiceError:
                raise
            except Exception as error:
                raise error_for(error) from error

        return await asyncio.shield(self.loop.run_in_executor(self.executor, guarded))

    def _locked(self, hosted: HostedWorld, operation: Callable[[World], Any], changes: bool) -> Any:
        with hosted.lock:
            if hosted.closed:
                raise self._missing(hosted.world_id)
            try:
                result = operation(hosted.world)
            except ServiceError:
                raise
            except Exception as error:
                raise error_for(error) from error
            if changes and not hosted.closed:
                hosted.seq += 1
                # Subscribing also takes the World's lock, so nobody can attach
                # between this check and the push: with no subscriber there is
                # nobody to build World.state() for.
                if hosted.subscribers:
                    self._publish(hosted, self.state_message(hosted))
            return result

    def state_message(self, hosted: HostedWorld) -> dict[str, Any]:
        """The pushed message: sequence number and :meth:`World.state`."""
        state = hosted.world.state()
        return {
            "type": "state",
            "world_id": hosted.world_id,
            "seq": hosted.seq,
            "tick": state["tick"],
            "time_ns": state["time_ns"],
            "state": state,
        }

    def keep_samples(self, hosted: HostedWorld, groups: list[Any]) -> None:
        """Keeps the newest samples downloadable by id, within the count and byte
        bounds (:mod:`leviathan.service._samples`; call under the World's lock)."""
        self.samples.keep(
            hosted.world_id, [sample for group in groups for sample in group.samples.values()]
        )

    # ------------------------------------------------------------------ subscribers

    def subscribe(self, hosted: HostedWorld) -> asyncio.Queue:
        """A queue that receives every later pushed message of the World."""
        queue: asyncio.Queue = asyncio.Queue(maxsize=self.settings.subscriber_queue)
        with self._lock:
            hosted.subscribers.add(queue)
        return queue

    def unsubscribe(self, hosted: HostedWorld, queue: asyncio.Queue) -> None:
        """Stops pushing to ``queue``."""
        with self._lock:
            hosted.subscribers.discard(queue)

    def _publish(self, hosted: HostedWorld, message: dict[str, Any]) -> None:
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        with self._lock:
            queues = list(hosted.subscribers)
        for queue in queues:
            loop.call_soon_threadsafe(_offer, queue, message)

    # ------------------------------------------------------------------ lifecycle

    def begin_shutdown(self) -> None:
        """From now on every request gets 503; players stop."""
        self.shutting_down = True
        with self._lock:
            hosted = list(self._hosted.values())
        for h in hosted:
            if h.player is not None:
                h.player.stop("shutdown")

    def shutdown(self) -> None:
        """Stops the worker pool (running operations finish first)."""
        self.begin_shutdown()
        self.executor.shutdown(wait=True, cancel_futures=True)


_OVERFLOW = {"type": "overflow"}


def _offer(queue: asyncio.Queue, message: dict[str, Any]) -> None:
    """Queues a message; a subscriber too far behind gets one overflow marker instead."""
    try:
        queue.put_nowait(message)
    except asyncio.QueueFull:
        # The stream closes after the marker: a gap is never silent.
        while not queue.empty():
            queue.get_nowait()
        queue.put_nowait(_OVERFLOW)
