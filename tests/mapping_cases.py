"""Shared builders of the tests that put the mapping AUV's fan sonars in a World (service,
Dashboard, Viewport): the vehicle cut down to cheap sensors, a flat seabed with a crate
to map, and its placement."""

from __future__ import annotations

from typing import Any

from leviathan.catalogue import get_vehicle
from leviathan.controllers import Autopilot
from leviathan.frames import Transform
from leviathan.geometry import box_mesh, plane_mesh
from leviathan.materials import get_material
from leviathan.specs import VehicleSpec, spec_from_dict
from leviathan.world import Environment, SceneObject, VehicleSetup

COARSE_MULTIBEAM = {"beam_count": 16, "range_bin_count": 120, "top_k": 1}
"""A multibeam of 16 beams and 120 bins with one contributor: a World steps it cheaply."""


def mapper_spec(**changes_by_kind: dict[str, Any]) -> VehicleSpec:
    """The catalogue ``reference_mapping_auv`` keeping only the sensor kinds named, each
    with its changes, e.g. ``mapper_spec(multibeam=COARSE_MULTIBEAM)``."""
    doc = get_vehicle("reference_mapping_auv").model_dump(mode="json")
    doc["sensors"] = [s for s in doc["sensors"] if s["kind"] in changes_by_kind]
    for sensor in doc["sensors"]:
        sensor.update(changes_by_kind[sensor["kind"]])
    return spec_from_dict(doc, VehicleSpec)


def seabed_object(*, depth_m: float = 30.0, pitch_rad: float = 0.0) -> SceneObject:
    """A 120 m square flat seabed under the origin at ``depth_m``, tilted by ``pitch_rad``."""
    return SceneObject(
        "seabed",
        plane_mesh(120.0, 120.0),
        Transform.from_euler(0.0, pitch_rad, 0.0, translation=(0.0, 0.0, depth_m)),
        "seabed",
        get_material("test_lambert_medium"),
    )


def crate_object(size_m: tuple[float, float, float], centre_ned_m: tuple[float, float, float]):
    """A bright box called ``crate`` of ``size_m`` centred at ``centre_ned_m``."""
    return SceneObject(
        "crate",
        box_mesh(size_m),
        Transform.from_euler(0.0, 0.0, 0.0, translation=centre_ned_m),
        "crate",
        get_material("test_lambert_bright"),
    )


def seabed_environment(name: str, *objects: SceneObject, **seabed: Any) -> Environment:
    """:func:`seabed_object` (with ``seabed``'s options) and ``objects``, named ``name``."""
    return Environment(objects=(seabed_object(**seabed), *objects), name=name)


def mapper_setup(
    spec: VehicleSpec, position_ned_m: tuple[float, float, float] = (0.0, 0.0, 20.0)
) -> VehicleSetup:
    """The vehicle ``mapper`` holding 20 m depth heading north at 1 m/s from ``position_ned_m``."""
    return VehicleSetup(
        "mapper",
        spec,
        Autopilot(speed_m_per_s=1.0, depth_m=20.0, heading_rad=0.0),
        position_ned_m=position_ned_m,
    )
