"""Request documents to library objects (server side) and back (client side).

``build_*`` turn the pydantic documents of :mod:`leviathan.service._models` into the
objects a Python user passes to :class:`~leviathan.world.World`; ``*_document``
turn those objects into the plain dicts the client sends. Each pair is exact: the
object rebuilt on the server has the content hash of the client's object (floats
travel in shortest round-trip form, arrays as lists of float64/int64).

A vehicle named by a string must be a catalogue vehicle: the service never reads a
document from a path a client chose.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from leviathan.catalogue import get_vehicle, vehicle_names
from leviathan.controllers import Autopilot, Controller, DirectThrust, WaypointFollower
from leviathan.frames import Transform
from leviathan.materials import (
    DeclaredMaterial,
    EvidenceClass,
    LambertMaterial,
    MaterialParameter,
    get_material,
)
from leviathan.scene import TriangleMesh
from leviathan.service import _models as m
from leviathan.specs import SensorSpec, VehicleSpec, WaterSpec, spec_from_dict
from leviathan.world import Environment, SceneObject, VehicleSetup

__all__ = [
    "build_controller",
    "build_environment",
    "build_sensors",
    "build_setup",
    "build_vehicle_spec",
    "controller_document",
    "environment_document",
    "setup_document",
]


# --------------------------------------------------------------------------- server side


def build_vehicle_spec(field: str, spec: str | Mapping[str, Any]) -> VehicleSpec:
    """A catalogue vehicle by name, or an inline document validated strictly."""
    if isinstance(spec, str):
        if spec not in vehicle_names():
            raise ValueError(
                f"{field}: expected a catalogue vehicle ({', '.join(vehicle_names())}) or an "
                f"inline vehicle document, got {spec!r}"
            )
        return get_vehicle(spec)
    return spec_from_dict(dict(spec), VehicleSpec, source=field)


def build_controller(doc: m.DirectThrustDocument | m.AutopilotDocument | Any) -> Controller:
    """The controller a document describes."""
    if isinstance(doc, m.DirectThrustDocument):
        return DirectThrust(doc.commands_n)
    if isinstance(doc, m.AutopilotDocument):
        options = {k: v for k, v in doc.model_dump(exclude={"kind"}).items() if v is not None}
        return Autopilot(**options)
    if isinstance(doc, m.WaypointFollowerDocument):
        return WaypointFollower(
            [tuple(w) for w in doc.waypoints_ned],
            speed_m_per_s=doc.speed_m_per_s,
            acceptance_radius_m=doc.acceptance_radius_m,
            lookahead_m=doc.lookahead_m,
            **doc.autopilot,
        )
    raise TypeError(f"controller: unknown controller document {type(doc).__name__}")


def build_setup(field: str, doc: m.VehicleSetupDocument) -> VehicleSetup:
    """The :class:`VehicleSetup` a document describes."""
    return VehicleSetup(
        name=doc.name,
        spec=build_vehicle_spec(f"{field}.spec", doc.spec),
        controller=build_controller(doc.controller),
        position_ned_m=tuple(doc.position_ned_m),
        rpy_rad=tuple(doc.rpy_rad),
        velocity_body=tuple(doc.velocity_body),
    )


def _parameter(doc: m.ParameterDocument) -> MaterialParameter:
    try:
        evidence = EvidenceClass(doc.evidence_class)
    except ValueError:
        raise ValueError(
            f"evidence_class: expected one of {[e.value for e in EvidenceClass]}, got "
            f"{doc.evidence_class!r}"
        ) from None
    return MaterialParameter(doc.name, doc.value, doc.units, doc.meaning, doc.source, evidence)


def _material(field: str, doc: m.MaterialDocument | None) -> Any:
    if doc is None:
        return None
    if doc.kind == "builtin":
        return get_material(doc.name)
    if doc.kind == "lambert":
        if doc.mu is None or doc.description is None:
            raise ValueError(f"{field}.mu: a lambert material needs mu and description")
        return LambertMaterial(doc.name, _parameter(doc.mu), doc.description)
    if doc.model is None:
        raise ValueError(f"{field}.model: a declared material needs its model name")
    options = {} if doc.description is None else {"description": doc.description}
    return DeclaredMaterial(
        doc.name, doc.model, tuple(_parameter(p) for p in doc.parameters), **options
    )


def build_environment(doc: m.EnvironmentDocument | None) -> Environment | None:
    """The :class:`Environment` a document describes (``None`` stays ``None``)."""
    if doc is None:
        return None
    water = WaterSpec() if doc.water is None else spec_from_dict(doc.water, WaterSpec)
    objects = []
    for i, o in enumerate(doc.objects):
        objects.append(
            SceneObject(
                object_id=o.object_id,
                mesh=TriangleMesh(
                    [list(v) for v in o.mesh.vertices], [list(f) for f in o.mesh.faces]
                ),
                T_world_object=Transform.from_dict(o.T_world_object),
                semantic_label=o.semantic_label,
                material=_material(f"environment.objects[{i}].material", o.material),
                velocity_ned_m_per_s=tuple(o.velocity_ned_m_per_s),
            )
        )
    return Environment(water=water, objects=tuple(objects), name=doc.name)


def build_sensors(docs: Sequence[Mapping[str, Any]]) -> list[Any]:
    """Sensor specs from their documents (each validated as :data:`SensorSpec`)."""
    from pydantic import TypeAdapter

    adapter = TypeAdapter(SensorSpec)
    return [adapter.validate_python(dict(doc)) for doc in docs]


# --------------------------------------------------------------------------- client side


def controller_document(controller: Controller) -> dict[str, Any]:
    """The document of one of the library's controllers.

    Raises:
        TypeError: For any other controller (its code cannot travel to a service).
    """
    if isinstance(controller, DirectThrust):
        return {"kind": "direct_thrust", "commands_n": controller.commands_n.tolist()}
    if isinstance(controller, Autopilot):
        return dict(controller.__content__())
    if isinstance(controller, WaypointFollower):
        content = controller.__content__()
        return {
            "kind": "waypoint_follower",
            "waypoints_ned": [list(w) for w in content["waypoints_ned"]],
            "speed_m_per_s": content["speed_m_per_s"],
            "acceptance_radius_m": content["acceptance_radius_m"],
            "lookahead_m": content["lookahead_m"],
            "autopilot": dict(content["autopilot"]),
        }
    raise TypeError(
        f"controller: a {type(controller).__name__} cannot be sent to a service; expected "
        "DirectThrust, Autopilot or WaypointFollower"
    )


def setup_document(setup: VehicleSetup) -> dict[str, Any]:
    """The document of a :class:`VehicleSetup` (its spec inline)."""
    return {
        "name": setup.name,
        "spec": setup.spec.model_dump(mode="json"),
        "controller": controller_document(setup.controller),
        "position_ned_m": list(setup.position_ned_m),
        "rpy_rad": list(setup.rpy_rad),
        "velocity_body": list(setup.velocity_body),
    }


def _parameter_document(p: MaterialParameter) -> dict[str, Any]:
    return {
        "name": p.name,
        "value": p.value,
        "units": p.units,
        "meaning": p.meaning,
        "source": p.source,
        "evidence_class": p.evidence_class.value,
    }


def _material_document(material: Any) -> dict[str, Any] | None:
    if material is None:
        return None
    if isinstance(material, LambertMaterial):
        return {
            "kind": "lambert",
            "name": material.name,
            "description": material.description,
            "mu": _parameter_document(material.mu),
        }
    if isinstance(material, DeclaredMaterial):
        return {
            "kind": "declared",
            "name": material.name,
            "model": material.model,
            "description": material.description,
            "parameters": [_parameter_document(p) for p in material.parameters],
        }
    raise TypeError(f"material: cannot send a {type(material).__name__}")


def environment_document(environment: Environment | None) -> dict[str, Any] | None:
    """The document of an :class:`Environment` (``None`` stays ``None``)."""
    if environment is None:
        return None
    return {
        "name": environment.name,
        "water": environment.water.model_dump(mode="json"),
        "objects": [
            {
                "object_id": o.object_id,
                "semantic_label": o.semantic_label,
                "mesh": {
                    "vertices": o.mesh.vertices.tolist(),
                    "faces": o.mesh.faces.tolist(),
                },
                "T_world_object": o.T_world_object.to_dict(),
                "material": _material_document(o.material),
                "velocity_ned_m_per_s": list(o.velocity_ned_m_per_s),
            }
            for o in environment.objects
        ],
    }
