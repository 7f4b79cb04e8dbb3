"""How a vehicle enters a World: its document, controller and initial state."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from leviathan.controllers import Controller
from leviathan.dynamics import VehicleState
from leviathan.frames import quaternion_from_rotation, rotation_from_euler
from leviathan.specs import VehicleSpec

__all__ = ["VehicleSetup"]


@dataclass(frozen=True, eq=False)
class VehicleSetup:
    """A vehicle placed in the World.

    Args:
        name: Vehicle name in this World (sensor ids are ``"<name>/<sensor>"``).
        spec: The vehicle document: a ``VehicleSpec``, a catalogue name (e.g.
            ``"reference_survey_vehicle"``) or the path of a ``.json``/``.toml`` document.
        controller: Its controller.
        position_ned_m: Initial CG position in world NED [m].
        rpy_rad: Initial roll, pitch, yaw [rad] (ZYX).
        velocity_body: Initial body velocities (u, v, w, p, q, r) [m/s, rad/s].
    """

    __content_type__ = "leviathan.world.setup.VehicleSetup"

    name: str
    spec: VehicleSpec | str | Path
    controller: Controller
    position_ned_m: tuple[float, float, float] = (0.0, 0.0, 0.0)
    rpy_rad: tuple[float, float, float] = (0.0, 0.0, 0.0)
    velocity_body: tuple[float, ...] = (0.0,) * 6

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name or "/" in self.name:
            raise ValueError(
                f"name: expected a non-empty vehicle name without '/', got {self.name!r}"
            )
        object.__setattr__(self, "spec", _vehicle_document(self.spec))
        for fname, n in (("position_ned_m", 3), ("rpy_rad", 3), ("velocity_body", 6)):
            value = tuple(float(x) for x in getattr(self, fname))
            if len(value) != n or not all(math.isfinite(x) for x in value):
                raise ValueError(
                    f"{fname}: expected {n} finite values, got {getattr(self, fname)!r}"
                )
            object.__setattr__(self, fname, value)

    def initial_state(self) -> VehicleState:
        """The vehicle state at tick 0."""
        q = quaternion_from_rotation(rotation_from_euler(*self.rpy_rad))
        return VehicleState(
            position_ned_m=np.array(self.position_ned_m, dtype=np.float64),
            attitude_q=np.array(q, dtype=np.float64),
            velocity_body=np.array(self.velocity_body, dtype=np.float64),
            thrust_n=np.zeros(len(self.spec.thrusters), dtype=np.float64),
        )


def _vehicle_document(spec: VehicleSpec | str | Path) -> VehicleSpec:
    """A vehicle document from a spec, a catalogue name or a JSON/TOML file."""
    if isinstance(spec, VehicleSpec):
        return spec
    if isinstance(spec, str | Path):
        from leviathan.catalogue import get_vehicle, vehicle_names
        from leviathan.specs import load_spec

        if isinstance(spec, str) and spec in vehicle_names():
            return get_vehicle(spec)
        path = Path(spec)
        if path.suffix.lower() in (".json", ".toml") and path.is_file():
            return load_spec(path, VehicleSpec)
        raise ValueError(
            f"spec: {str(spec)!r} is neither a catalogue vehicle ({', '.join(vehicle_names())}) "
            "nor an existing .json/.toml vehicle document"
        )
    raise TypeError(
        f"spec: expected a VehicleSpec, catalogue name or path, got {type(spec).__name__}"
    )
