"""Immutable records a World returns: capture groups and snapshots."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType
from typing import Any

from leviathan.identity import content_hash

__all__ = ["CaptureGroup", "WorldSnapshot"]


@dataclass(frozen=True, eq=False)
class CaptureGroup:
    """Every sensor sample taken at one instant, from one committed state.

    Attributes:
        tick: Committed tick index of the state the samples were taken from.
        time_ns: Sample instant [ns].
        samples: Samples keyed by sensor id, iterated in sensor-id order.
    """

    tick: int
    time_ns: int
    samples: Mapping[str, Any]

    def __post_init__(self) -> None:
        ordered = {k: self.samples[k] for k in sorted(self.samples)}
        object.__setattr__(self, "samples", MappingProxyType(ordered))

    @property
    def sensor_ids(self) -> tuple[str, ...]:
        """Member sensor ids, sorted."""
        return tuple(self.samples)

    def __content__(self) -> dict:
        return {
            "tick": self.tick,
            "time_ns": self.time_ns,
            "samples": {k: s.content_hash for k, s in self.samples.items()},
        }

    @cached_property
    def content_hash(self) -> str:
        """SHA-256 over the tick, time and members' content hashes."""
        return content_hash(self)


@dataclass(frozen=True, eq=False)
class WorldSnapshot:
    """An immutable record of a World's committed state at one tick."""

    tick: int
    time_ns: int
    epochs: tuple[dict, ...]
    root_seed: int
    vehicles: Mapping[str, dict]
    environment_hash: str
    off_tick: tuple[dict, ...]

    def __content__(self) -> dict:
        return {
            "tick": self.tick,
            "time_ns": self.time_ns,
            "epochs": list(self.epochs),
            "root_seed": self.root_seed,
            "vehicles": dict(self.vehicles),
            "environment_hash": self.environment_hash,
            "off_tick": list(self.off_tick),
        }

    @cached_property
    def content_hash(self) -> str:
        """SHA-256 of the snapshot's canonical content."""
        return content_hash(self)
