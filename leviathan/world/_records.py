"""Immutable records a World returns: capture groups, snapshots and track records.

Both are immutable all the way down and share nothing mutable with the live
World or with the caller: their constructors deep-copy what they are given into
read-only mappings, tuples and arrays over immutable memory
(:func:`leviathan._frozen.freeze`), so changing the World afterwards, or trying
to change a record, never alters a record or its cached ``content_hash``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from leviathan._frozen import FrozenMapping, freeze, frozen_array
from leviathan._validation import check_integer
from leviathan.identity import content_hash, content_hash_property
from leviathan.sensors import SensorProduct, product_types

__all__ = ["CaptureGroup", "VehicleTrackRecord", "WorldSnapshot", "run_summary"]


def _records(name: str, value: Any) -> tuple[Any, ...]:
    """A deep-frozen tuple of the mappings in ``value`` (a list or tuple of mappings)."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise TypeError(f"{name}: expected a list or tuple of mappings, got {type(value).__name__}")
    for i, record in enumerate(value):
        if not isinstance(record, Mapping):
            raise TypeError(f"{name}[{i}]: expected a mapping, got {type(record).__name__}")
    return freeze(tuple(value))


@dataclass(frozen=True, eq=False)
class CaptureGroup:
    """Every sensor sample taken at one instant, from one committed state.

    Attributes:
        tick: Committed tick index of the state the samples were taken from.
        time_ns: Sample instant [ns].
        samples: Read-only mapping of sensor products keyed by sensor id, iterated in
            sensor-id order. Each is an instance of the ``product_type`` of a
            registered sensor kind (:func:`leviathan.sensors.product_types`: a
            :class:`~leviathan.sensors.SensorSample` or a
            :class:`~leviathan.sonar.SonarFrame` for the built-in kinds), immutable
            all the way down.
    """

    __content_type__ = "leviathan.world.records.CaptureGroup"

    tick: int
    time_ns: int
    samples: Mapping[str, SensorProduct]

    def __post_init__(self) -> None:
        tick = check_integer("tick", self.tick)
        time_ns = check_integer("time_ns", self.time_ns)
        if not isinstance(self.samples, Mapping):
            raise TypeError(f"samples: expected a mapping, got {type(self.samples).__name__}")
        # Only registered products: each freezes its own contents, so holding one
        # keeps the group immutable all the way down.
        sample_types = product_types()
        for key, sample in self.samples.items():
            if not isinstance(key, str):
                raise TypeError(f"samples: keys must be sensor-id strings, got {key!r}")
            if not isinstance(sample, sample_types):
                names = " or ".join(cls.__name__ for cls in sample_types)
                raise TypeError(
                    f"samples[{key!r}]: expected a {names} (the product of a registered "
                    f"sensor kind), got {type(sample).__name__}"
                )
        # A private, read-only copy: the caller's dict may change after construction.
        ordered = {k: self.samples[k] for k in sorted(self.samples)}
        object.__setattr__(self, "tick", tick)
        object.__setattr__(self, "time_ns", time_ns)
        object.__setattr__(self, "samples", FrozenMapping._adopt(ordered))

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

    content_hash = content_hash_property("SHA-256 over the tick, time and members' content hashes.")

    def manifest_entry(self) -> dict[str, Any]:
        """The group as a run manifest lists it: ``tick``, ``time_ns``, ``content_hash``
        and ``members`` (sensor id -> the sample's content hash)."""
        return {
            "tick": self.tick,
            "time_ns": self.time_ns,
            "content_hash": self.content_hash,
            "members": {k: s.content_hash for k, s in self.samples.items()},
        }


@dataclass(frozen=True, eq=False)
class WorldSnapshot:
    """An immutable record of a World's committed state at one tick.

    The constructor deep-freezes copies of everything it is given, so a snapshot
    never shares a dict or an array with the World (whose controller states and
    off-tick log keep changing) and its ``content_hash`` cannot go stale.

    Attributes:
        tick: Committed tick index.
        time_ns: Time of that tick [ns].
        epochs: Clock epochs, a tuple of read-only mappings
            (:meth:`leviathan.time.Epoch.to_dict` form).
        root_seed: The World's root seed.
        vehicles: Read-only mapping by vehicle name of read-only mappings: spec and
            controller hashes, ``state`` (arrays over immutable memory) and
            ``controller_state``.
        environment_hash: Content hash of the environment.
        off_tick: Refused (off-tick) sample records, a tuple of read-only mappings.
    """

    __content_type__ = "leviathan.world.records.WorldSnapshot"

    tick: int
    time_ns: int
    epochs: tuple[Mapping[str, Any], ...]
    root_seed: int
    vehicles: Mapping[str, Mapping[str, Any]]
    environment_hash: str
    off_tick: tuple[Mapping[str, Any], ...]

    def __post_init__(self) -> None:
        tick = check_integer("tick", self.tick)
        time_ns = check_integer("time_ns", self.time_ns)
        root_seed = check_integer("root_seed", self.root_seed)
        if not isinstance(self.environment_hash, str):
            raise TypeError(
                f"environment_hash: expected a hex digest string, got {self.environment_hash!r}"
            )
        epochs = _records("epochs", self.epochs)
        if not isinstance(self.vehicles, Mapping):
            raise TypeError(f"vehicles: expected a mapping, got {type(self.vehicles).__name__}")
        for name, record in self.vehicles.items():
            if not isinstance(record, Mapping):
                raise TypeError(
                    f"vehicles[{name!r}]: expected a mapping, got {type(record).__name__}"
                )
        vehicles = freeze(self.vehicles)
        off_tick = _records("off_tick", self.off_tick)
        object.__setattr__(self, "tick", tick)
        object.__setattr__(self, "time_ns", time_ns)
        object.__setattr__(self, "root_seed", root_seed)
        object.__setattr__(self, "epochs", epochs)
        object.__setattr__(self, "vehicles", vehicles)
        object.__setattr__(self, "off_tick", off_tick)

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

    content_hash = content_hash_property("SHA-256 of the snapshot's canonical content.")


@dataclass(frozen=True, eq=False)
class VehicleTrackRecord:
    """A vehicle's committed ground-truth states over consecutive ticks (read-only arrays).

    Attributes:
        name: Vehicle name in its World.
        ticks: Tick indices, int64 [n].
        times_ns: Tick times [ns], int64 [n].
        position_ned_m: CG position in world NED [m], float64 [n, 3].
        attitude_q: Attitude ``q_world_body`` ``(w, x, y, z)``, float64 [n, 4].
        velocity_body: Body velocities ``(u, v, w, p, q, r)`` relative to the world,
            in body FRD [m/s, rad/s], float64 [n, 6].
    """

    __content_type__ = "leviathan.world.records.VehicleTrackRecord"

    name: str
    ticks: np.ndarray
    times_ns: np.ndarray
    position_ned_m: np.ndarray
    attitude_q: np.ndarray
    velocity_body: np.ndarray

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name: expected a vehicle name, got {self.name!r}")
        expected = {
            "ticks": (np.int64, (-1,)),
            "times_ns": (np.int64, (-1,)),
            "position_ned_m": (np.float64, (-1, 3)),
            "attitude_q": (np.float64, (-1, 4)),
            "velocity_body": (np.float64, (-1, 6)),
        }
        count = None
        for field_name, (dtype, shape) in expected.items():
            array = np.asarray(getattr(self, field_name))
            if array.dtype != dtype or array.ndim != len(shape) or array.shape[1:] != shape[1:]:
                raise ValueError(
                    f"{field_name}: expected {np.dtype(dtype).name} of shape "
                    f"{tuple('n' if d < 0 else d for d in shape)}, got {array.dtype.name} "
                    f"{array.shape}"
                )
            if count is None:
                count = array.shape[0]
            elif array.shape[0] != count:
                raise ValueError(f"{field_name}: expected {count} rows, got {array.shape[0]}")
            object.__setattr__(self, field_name, frozen_array(np.ascontiguousarray(array)))

    def __len__(self) -> int:
        return int(self.ticks.shape[0])

    def rows(self, start: int, stop: int) -> VehicleTrackRecord:
        """The rows ``start:stop`` (Python slice rules) as a record of the same vehicle."""
        return VehicleTrackRecord(
            name=self.name,
            ticks=self.ticks[start:stop],
            times_ns=self.times_ns[start:stop],
            position_ned_m=self.position_ned_m[start:stop],
            attitude_q=self.attitude_q[start:stop],
            velocity_body=self.velocity_body[start:stop],
        )


def run_summary(
    world: Any, snapshot: WorldSnapshot, capture_groups: list[dict[str, Any]]
) -> dict[str, Any]:
    """What a recorded run's manifest says of its World (the survey demo's, a sweep run's).

    Args:
        world: The World after its last step.
        snapshot: ``world.snapshot()`` taken then.
        capture_groups: The run's capture groups as the manifest lists them, each with
            its ``content_hash``, in step order.

    Returns:
        In this order: ``simulated_ns``, ``tick_ns``, ``root_seed``, ``vehicles`` (name ->
        vehicle spec name), ``environment_hash``, ``snapshot_hash``, ``off_tick_samples``,
        ``capture_groups`` and ``run_hash``, the content hash of the groups' content hashes
        in order (as the dataset files define it).
    """
    return {
        "simulated_ns": world.time_ns,
        "tick_ns": world.clock.step_ns,
        "root_seed": world.root_seed,
        "vehicles": {name: world.vehicle_spec(name).name for name in world.vehicle_names},
        "environment_hash": world.environment.content_hash,
        "snapshot_hash": snapshot.content_hash,
        "off_tick_samples": list(world.off_tick_samples),
        "capture_groups": capture_groups,
        "run_hash": content_hash([g["content_hash"] for g in capture_groups]),
    }
