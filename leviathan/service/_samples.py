"""The samples a service keeps downloadable by id, bounded by count and by bytes.

Each World keeps its newest samples (``GET /worlds/{id}/samples/{sample_id}``,
the id being the sample's content hash) under three bounds, all settings of
:class:`~leviathan.service.ServiceSettings` and reported by ``/health``:

* at most ``samples_kept`` samples per World;
* at most ``samples_bytes_per_world`` bytes of them per World;
* at most ``samples_bytes_total`` bytes over all Worlds of the service.

A new sample is kept and the oldest are evicted until every bound holds: a
World's own oldest for its own bounds, the service's oldest (whichever World
holds it) for the total. A sample larger than the per-World bound is not kept
at all. An evicted sample, like one from before a reset, answers 404.

A sample's bytes (:func:`sample_nbytes`) are those of its arrays' data and its
byte strings, everywhere in the record (channels, metadata, display products):
what dominates its memory by far (a catalogue survey sonar frame holds ~40 MB
of arrays against a few kB of Python objects). Views of one buffer count once
per view, so the figure never undercounts.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

import numpy as np

from leviathan._frozen import FrozenMapping

__all__ = ["SampleStore", "sample_nbytes"]

_MAX_DEPTH = 64


_LEAVES = frozenset({str, int, float, bool, type(None)})
_SEQUENCES = frozenset({list, tuple})


def sample_nbytes(record: Any) -> int:
    """Bytes of a record's array data and byte strings, however nested [bytes]."""
    total = 0
    pending: list[tuple[Any, int]] = [(record, 0)]
    while pending:
        value, depth = pending.pop()
        kind = type(value)
        # Exact types first (the leaves and containers a record is made of), then
        # the general checks for subclasses and other containers.
        if kind in _LEAVES:
            continue
        if kind is np.ndarray:
            total += int(value.nbytes)
        elif (kind is FrozenMapping or kind in _SEQUENCES) and depth < _MAX_DEPTH:
            # Leaves and arrays are counted here, without a trip through ``pending``:
            # a record's metadata is mostly small tuples of floats.
            for item in value.stored_values() if kind is FrozenMapping else value:
                item_kind = type(item)
                if item_kind is np.ndarray:
                    total += int(item.nbytes)
                elif item_kind not in _LEAVES:
                    pending.append((item, depth + 1))
        elif isinstance(value, np.ndarray):
            total += int(value.nbytes)
        elif isinstance(value, bytes | bytearray | memoryview):
            total += len(value)
        elif depth >= _MAX_DEPTH or isinstance(value, str | int | float):
            continue
        elif isinstance(value, Mapping):
            pending.extend((item, depth + 1) for item in value.values())
        elif isinstance(value, list | tuple | set | frozenset):
            pending.extend((item, depth + 1) for item in value)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            pending.extend((getattr(value, f.name), depth + 1) for f in dataclasses.fields(value))
    return total


class SampleStore:
    """Every World's kept samples, under one lock (see the module docstring).

    Args:
        count_per_world: Most samples per World.
        bytes_per_world: Most bytes of samples per World.
        bytes_total: Most bytes of samples over all Worlds.
    """

    def __init__(self, *, count_per_world: int, bytes_per_world: int, bytes_total: int) -> None:
        self.count_per_world = count_per_world
        self.bytes_per_world = bytes_per_world
        self.bytes_total = bytes_total
        self._lock = threading.Lock()
        # Per World: sample id -> (sample, bytes), oldest first.
        self._worlds: dict[str, OrderedDict[str, tuple[Any, int]]] = {}
        self._world_bytes: dict[str, int] = {}
        # Every kept sample, oldest first, for the service-wide bound.
        self._order: OrderedDict[tuple[str, str], None] = OrderedDict()
        self._held = 0

    @property
    def bytes_held(self) -> int:
        """Bytes of the samples kept now, all Worlds [bytes]."""
        return self._held

    def world_bytes(self, world_id: str) -> int:
        """Bytes of the samples one World keeps now [bytes]."""
        return self._world_bytes.get(world_id, 0)

    def count(self, world_id: str) -> int:
        """Samples one World keeps now."""
        return len(self._worlds.get(world_id, ()))

    def keep(self, world_id: str, samples: list[Any]) -> None:
        """Keeps ``samples`` (in time order) as the World's newest, evicting the oldest."""
        sized = [(s.content_hash, s, sample_nbytes(s)) for s in samples]
        with self._lock:
            kept = self._worlds.setdefault(world_id, OrderedDict())
            for sample_id, sample, size in sized:
                self._drop(world_id, sample_id)
                if size > self.bytes_per_world:
                    continue  # never storable; its id answers 404 like an evicted one
                kept[sample_id] = (sample, size)
                self._order[(world_id, sample_id)] = None
                self._world_bytes[world_id] = self._world_bytes.get(world_id, 0) + size
                self._held += size
                while len(kept) > self.count_per_world or (
                    self._world_bytes[world_id] > self.bytes_per_world
                ):
                    self._drop(world_id, next(iter(kept)))
                while self._held > self.bytes_total:
                    oldest_world, oldest = next(iter(self._order))
                    self._drop(oldest_world, oldest)

    def get(self, world_id: str, sample_id: str) -> Any | None:
        """A kept sample, or ``None``."""
        with self._lock:
            entry = self._worlds.get(world_id, {}).get(sample_id)
            return None if entry is None else entry[0]

    def of_sensor(self, world_id: str, sensor_id: str) -> list[Any]:
        """The kept samples of one sensor of one World, oldest first."""
        with self._lock:
            kept = self._worlds.get(world_id, {})
            return [
                sample
                for sample, _ in kept.values()
                if getattr(sample, "sensor_id", None) == sensor_id
            ]

    def clear(self, world_id: str) -> None:
        """Forgets every sample of one World (a reset, a close)."""
        with self._lock:
            for sample_id in list(self._worlds.get(world_id, ())):
                self._drop(world_id, sample_id)
            self._worlds.pop(world_id, None)
            self._world_bytes.pop(world_id, None)

    def _drop(self, world_id: str, sample_id: str) -> None:
        kept = self._worlds.get(world_id)
        entry = None if kept is None else kept.pop(sample_id, None)
        if entry is None:
            return
        self._order.pop((world_id, sample_id), None)
        self._world_bytes[world_id] -= entry[1]
        self._held -= entry[1]
