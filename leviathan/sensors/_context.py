"""The immutable sample context every sensor kind samples from: :class:`SampleContext`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from leviathan._validation import SEED_LIMIT, check_sample_identifiers, is_integer
from leviathan.frames import Transform
from leviathan.scene import Scene
from leviathan.sensors._kinematics import BodyKinematics
from leviathan.specs import WaterSpec

__all__ = ["SampleContext"]


@dataclass(frozen=True, eq=False, kw_only=True)
class SampleContext:
    """Everything a sensor may read at one sample instant; immutable.

    Every field is itself immutable (read-only arrays, frozen records, pydantic
    specs), so a sensor cannot change what the next sensor of the same capture
    group reads, and the context shares nothing that a World later changes.

    Attributes:
        sensor_id: Stable sensor id, ``"vehicle/sensor"``; part of every noise key.
        sample_index: Index n of the sample in the sensor's schedule, >= 0.
        time_ns: Sample instant [ns].
        kinematics: Committed kinematics of the carrying vehicle at ``time_ns``:
            pose ``T_world_body``, body velocities and the accelerations under
            its last thruster command.
        scene: The canonical scene at the sample instant.
        root_seed: Root seed of keyed randomness, an int in [0, 2**64). A sensor
            draws noise only through :mod:`leviathan.random` keyed by it, the
            sensor id and the sample index.
        water: Water properties (sound speed, absorption, current).
        backend: Tracing backend the sample is traced with, as chosen by
            ``resolve_backend`` (``"reference"`` or ``"warp"``); every backend
            gives the same product, bit for bit.
        device: Device of that backend (``"cpu"``, ``"cuda:0"``, ...).
        surface_kinematics: Committed kinematics of the moving surfaces of
            ``scene`` at the instant, by ``object_id``: each hull's vehicle's
            kinematics, and each moving environment object's pose with its
            translation velocity in its own frame (ω = 0). A read-only mapping;
            empty (the default) when nothing moves. Only sensors whose physics
            depends on the motion of what they see read it (the DVL's Doppler).
    """

    sensor_id: str
    sample_index: int
    time_ns: int
    kinematics: BodyKinematics
    scene: Scene
    root_seed: int
    water: WaterSpec
    backend: str
    device: str
    surface_kinematics: Mapping[str, BodyKinematics] = field(
        default_factory=lambda: MappingProxyType({})
    )

    def __post_init__(self) -> None:
        check_sample_identifiers(self.sensor_id, self.sample_index, self.time_ns)
        # Unlike a sensor's optional seed, a context always carries one (None is refused).
        if not is_integer(self.root_seed) or not 0 <= self.root_seed < SEED_LIMIT:
            raise ValueError(
                f"root_seed: expected an integer in [0, 2**64), got {self.root_seed!r}"
            )
        for name, value, expected in (
            ("kinematics", self.kinematics, BodyKinematics),
            ("scene", self.scene, Scene),
            ("water", self.water, WaterSpec),
        ):
            if not isinstance(value, expected):
                raise TypeError(
                    f"{name}: expected a {expected.__module__}.{expected.__name__}, got "
                    f"{type(value).__name__}"
                )
        for name in ("backend", "device"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise TypeError(
                    f"{name}: expected the concrete name resolve_backend(...) returns "
                    f"(e.g. 'reference', 'cpu'), got {value!r}"
                )
        object.__setattr__(self, "sample_index", int(self.sample_index))
        object.__setattr__(self, "time_ns", int(self.time_ns))
        surfaces = self.surface_kinematics
        if not isinstance(surfaces, Mapping):
            raise TypeError(
                "surface_kinematics: expected a mapping of object_id -> BodyKinematics, got "
                f"{type(surfaces).__name__}"
            )
        for key, value in surfaces.items():
            if not isinstance(key, str) or not key or not isinstance(value, BodyKinematics):
                raise TypeError(
                    "surface_kinematics: expected non-empty object_id strings mapped to "
                    f"BodyKinematics, got {key!r} -> {type(value).__name__}"
                )
        # A private copy: the caller's mapping may change after the context is built.
        object.__setattr__(self, "surface_kinematics", MappingProxyType(dict(surfaces)))
        object.__setattr__(self, "root_seed", int(self.root_seed))

    @property
    def T_world_body(self) -> Transform:
        """Committed body pose of the carrying vehicle in world NED."""
        return self.kinematics.T_world_body

    def ids(self) -> dict[str, Any]:
        """The ids as the keywords every sensor function takes: sensor_id, sample_index, time_ns."""
        return {
            "sensor_id": self.sensor_id,
            "sample_index": self.sample_index,
            "time_ns": self.time_ns,
        }

    def tracing(self) -> dict[str, str]:
        """The tracing keywords every ray-casting sensor function takes: backend, device."""
        return {"backend": self.backend, "device": self.device}

    def ping_keywords(self, *, speckle: bool) -> dict[str, Any]:
        """The keywords every acoustic ping function takes from the context: the ids, the
        root seed (only where the spec draws ``speckle``), the water, backend and device."""
        return {
            **self.ids(),
            "seed": self.root_seed if speckle else None,
            "water": self.water,
            **self.tracing(),
        }
