"""Documents to World objects and back: the one builder every face uses.

The documents of :mod:`leviathan.specs` (:data:`~leviathan.specs.ControllerDocument`,
:class:`~leviathan.specs.EnvironmentDocument`,
:class:`~leviathan.specs.VehicleSetupDocument`) describe what goes into a
:class:`~leviathan.world.World`; this module builds the objects a Python user
passes to it, for the Python API (``load_*`` from JSON/TOML files), the service
(request bodies) and the analytic scenarios alike:

* :func:`build_controller`, :func:`build_environment`, :func:`build_vehicle_setup`
  — document to object;
* :func:`controller_document`, :func:`environment_document`,
  :func:`vehicle_setup_document` — object to document (what the service client
  sends); each pair is exact: the object rebuilt from the document has the
  content hash of the original (floats travel in shortest round-trip form);
* :func:`load_controller`, :func:`load_environment`, :func:`load_vehicle_setup`
  — a ``.json`` or ``.toml`` document read strictly and built.

Refusals name the field (``vehicles[0].controller: ...``), the value and what
was expected.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import model_validator

from leviathan._validation import refusals_at
from leviathan.specs import (
    AutopilotDocument,
    ControllerDocument,
    DirectThrustDocument,
    EnvironmentDocument,
    LawnmowerDocument,
    SceneObjectDocument,
    SpecModel,
    VehicleSetupDocument,
    WaypointFollowerDocument,
    load_spec,
)

__all__ = [
    "build_controller",
    "build_environment",
    "build_vehicle_setup",
    "controller_document",
    "environment_document",
    "load_controller",
    "load_environment",
    "load_vehicle_setup",
    "vehicle_setup_document",
]


# --------------------------------------------------------------------------- documents -> objects


def build_controller(doc: Any) -> Any:
    """The :class:`~leviathan.controllers.Controller` a controller document describes.

    Args:
        doc: A :data:`~leviathan.specs.ControllerDocument` (a lawnmower becomes a
            :class:`~leviathan.controllers.WaypointFollower` over its waypoints).

    Raises:
        TypeError: If ``doc`` is not a controller document.
    """
    from leviathan.controllers import Autopilot, DirectThrust, WaypointFollower, lawnmower

    if isinstance(doc, DirectThrustDocument):
        return DirectThrust(doc.commands_n)
    # A document's fields (but its kind) are its controller's keyword arguments, gains
    # included: one set of names in Python, TOML and HTTP.
    if isinstance(doc, AutopilotDocument):
        return Autopilot(**doc.model_dump(exclude={"kind"}))
    if isinstance(doc, WaypointFollowerDocument):
        return WaypointFollower(**doc.model_dump(exclude={"kind"}))
    if isinstance(doc, LawnmowerDocument):
        waypoints = lawnmower(**doc.model_dump(include=_LAWNMOWER_PATTERN))
        return WaypointFollower(waypoints, **doc.model_dump(exclude={"kind", *_LAWNMOWER_PATTERN}))
    raise TypeError(f"controller: expected a controller document, got {type(doc).__name__}")


# The fields of a LawnmowerDocument that lay out its waypoints (the rest drive the follower).
_LAWNMOWER_PATTERN = frozenset(
    {"origin_ne_m", "heading_rad", "leg_length_m", "leg_spacing_m", "legs", "depth_m"}
)


def _material(doc: Any) -> Any:
    from leviathan.materials import (
        DeclaredMaterial,
        EvidenceClass,
        LambertMaterial,
        MaterialParameter,
        get_material,
    )

    def parameter(p: Any) -> MaterialParameter:
        return MaterialParameter(
            p.name, p.value, p.units, p.meaning, p.source, EvidenceClass(p.evidence_class)
        )

    if doc is None:
        return None
    if doc.kind == "builtin":
        return get_material(doc.name)
    if doc.kind == "lambert":
        return LambertMaterial(doc.name, parameter(doc.mu), doc.description)
    return DeclaredMaterial(
        doc.name, doc.model, tuple(parameter(p) for p in doc.parameters), doc.description
    )


def _scene_object(doc: SceneObjectDocument) -> Any:
    from leviathan.frames import Transform
    from leviathan.scene import TriangleMesh
    from leviathan.world import SceneObject

    return SceneObject(
        object_id=doc.object_id,
        mesh=TriangleMesh(doc.mesh.vertices, doc.mesh.faces),
        T_world_object=Transform(doc.T_world_object.rotation, doc.T_world_object.translation),
        semantic_label=doc.semantic_label,
        material=_material(doc.material),
        velocity_ned_m_per_s=doc.velocity_ned_m_per_s,
    )


def _preset_scene(doc: EnvironmentDocument, name: str) -> Any:
    from leviathan.world import Environment

    if doc.scene == "survey":
        from leviathan.demo import survey_environment

        return survey_environment(doc.seabed_triangles)
    if doc.scene == "flat_seabed":
        from leviathan.frames import Transform
        from leviathan.geometry import seabed_mesh
        from leviathan.materials import TEST_LAMBERT_MEDIUM
        from leviathan.world import SceneObject

        size = doc.seabed_size_m
        mesh = seabed_mesh(
            triangle_count=2,
            size_m=(size, size),
            mean_depth_m=doc.seabed_depth_m,
            relief_m=0.0,
            seed=0,
            origin=(-size / 2.0, -size / 2.0),
        )
        seabed = SceneObject("seabed", mesh, Transform.identity(), "seabed", TEST_LAMBERT_MEDIUM)
        return Environment(objects=(seabed,), name=name)
    return Environment(name=name)


def build_environment(doc: EnvironmentDocument | None, *, default_name: str = "") -> Any:
    """The :class:`~leviathan.world.Environment` an environment document describes.

    Args:
        doc: The document (``None`` stays ``None``: the World's default environment).
        default_name: The name when the document gives none (a scenario's name).

    Raises:
        ValueError: Naming ``objects[i]`` for an object the scene refuses (face
            indices, rotation, a reserved id).
    """
    if doc is None:
        return None
    from dataclasses import replace

    name = doc.name or default_name
    env = _preset_scene(doc, name)
    if doc.objects:
        objects = []
        for i, obj in enumerate(doc.objects):
            with refusals_at(f"objects[{i}]: "):
                objects.append(_scene_object(obj))
        env = replace(env, objects=(*env.objects, *objects))
    if doc.name and env.name != doc.name:
        env = replace(env, name=doc.name)
    if doc.water is not None:
        env = env.with_water(doc.water)
    return env


def build_vehicle_setup(
    doc: VehicleSetupDocument,
    *,
    base_dir: str | os.PathLike[str] | None = None,
    allow_paths: bool = True,
) -> Any:
    """The :class:`~leviathan.world.VehicleSetup` a vehicle document describes.

    Args:
        doc: The document.
        base_dir: Folder a relative vehicle-document path is read from (default:
            the working directory).
        allow_paths: Whether ``spec`` may name a file; ``False`` (the service)
            accepts catalogue names and inline documents only.

    Raises:
        ValueError, TypeError: Naming the field (``spec``, ``controller``, ...).
    """
    from leviathan.catalogue import vehicle_names
    from leviathan.world import VehicleSetup

    spec: Any = doc.spec
    if isinstance(spec, str) and spec not in vehicle_names():
        if not allow_paths:
            raise ValueError(
                f"spec: expected a catalogue vehicle ({', '.join(vehicle_names())}) or an inline "
                f"vehicle document, got {spec!r}"
            )
        path = Path(spec)
        spec = path if path.is_absolute() else Path(base_dir or Path.cwd()) / path
    return VehicleSetup(
        doc.name,
        spec,
        build_controller(doc.controller),
        position_ned_m=doc.position_ned_m,
        rpy_rad=doc.rpy_rad,
        velocity_body=doc.velocity_body,
    )


# --------------------------------------------------------------------------- objects -> documents


def controller_document(controller: Any) -> dict[str, Any]:
    """The document of one of the library's controllers (a plain JSON-like dict).

    Raises:
        TypeError: For any other controller (its code cannot travel as a document).
    """
    from leviathan.controllers import Autopilot, DirectThrust, WaypointFollower

    if isinstance(controller, DirectThrust):
        return {"kind": "direct_thrust", "commands_n": controller.commands_n.tolist()}
    if isinstance(controller, Autopilot):
        return {"kind": "autopilot", **controller.config()}
    if isinstance(controller, WaypointFollower):
        content = controller.__content__()
        return {
            "kind": "waypoint_follower",
            "waypoints_ned_m": [list(w) for w in controller.waypoints_ned_m],
            "speed_m_per_s": content["speed_m_per_s"],
            "acceptance_radius_m": content["acceptance_radius_m"],
            "lookahead_m": content["lookahead_m"],
            **content["autopilot"],
        }
    raise TypeError(
        f"controller: a {type(controller).__name__} cannot be written as a document; expected "
        "DirectThrust, Autopilot or WaypointFollower"
    )


def vehicle_setup_document(setup: Any) -> dict[str, Any]:
    """The document of a :class:`~leviathan.world.VehicleSetup` (its spec inline)."""
    return {
        "name": setup.name,
        "spec": setup.spec.model_dump(mode="json"),
        "controller": controller_document(setup.controller),
        "position_ned_m": list(setup.position_ned_m),
        "rpy_rad": list(setup.rpy_rad),
        "velocity_body": list(setup.velocity_body),
    }


def _material_document(material: Any) -> dict[str, Any] | None:
    from leviathan.materials import DeclaredMaterial, LambertMaterial, reference_materials

    if material is None:
        return None
    if reference_materials().get(getattr(material, "name", None)) is material:
        return {"kind": "builtin", "name": material.name}
    # A MaterialParameter's document is its identity content (name, value, units,
    # meaning, source, evidence class): one set of fields for both.
    if isinstance(material, LambertMaterial):
        return {
            "kind": "lambert",
            "name": material.name,
            "description": material.description,
            "mu": material.mu.__content__(),
        }
    if isinstance(material, DeclaredMaterial):
        return {
            "kind": "declared",
            "name": material.name,
            "model": material.model,
            "description": material.description,
            "parameters": [p.__content__() for p in material.parameters],
        }
    raise TypeError(f"material: cannot write a {type(material).__name__} as a document")


def environment_document(environment: Any) -> dict[str, Any] | None:
    """The document of an :class:`~leviathan.world.Environment` (``None`` stays ``None``):
    its objects inline, meshes and poses exact."""
    if environment is None:
        return None
    return {
        "name": environment.name,
        "water": environment.water.model_dump(mode="json"),
        "objects": [
            {
                "object_id": o.object_id,
                "semantic_label": o.semantic_label,
                "mesh": {"vertices": o.mesh.vertices.tolist(), "faces": o.mesh.faces.tolist()},
                "T_world_object": o.T_world_object.to_dict(),
                "material": _material_document(o.material),
                "velocity_ned_m_per_s": list(o.velocity_ned_m_per_s),
            }
            for o in environment.objects
        ],
    }


# --------------------------------------------------------------------------- files


class _ControllerFile(SpecModel):
    """A controller document as a file holds it: the controller's table at the top level."""

    controller: ControllerDocument

    @model_validator(mode="before")
    @classmethod
    def _whole_file(cls, data: Any) -> Any:
        return {"controller": data}


def load_controller(path: str | os.PathLike[str]) -> Any:
    """A controller from a ``.json``/``.toml`` controller document (strict).

    Raises:
        SpecError: If the file cannot be parsed or fails validation (names the file
            and field).
    """
    return build_controller(load_spec(path, _ControllerFile).controller)


def load_environment(path: str | os.PathLike[str]) -> Any:
    """An :class:`~leviathan.world.Environment` from a ``.json``/``.toml`` document (strict)."""
    return build_environment(load_spec(path, EnvironmentDocument))


def load_vehicle_setup(path: str | os.PathLike[str]) -> Any:
    """A :class:`~leviathan.world.VehicleSetup` from a ``.json``/``.toml`` document (strict);
    a vehicle ``spec`` path is read relative to the document's folder."""
    doc = load_spec(path, VehicleSetupDocument)
    return build_vehicle_setup(doc, base_dir=Path(path).resolve().parent)
