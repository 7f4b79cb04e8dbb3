"""Vehicles as geometry: each vehicle's hull posed in the scene the other vehicles' sensors see.

At a sample instant, the scene a sensor of vehicle ``A`` sees is the
environment's scene at that instant plus the hull of every *other* vehicle that
declares one (:attr:`leviathan.specs.VehicleSpec.hull`), posed at its committed
``T_world_body`` of that tick; ``A``'s own hull is added only when its document
sets ``hull.visible_to_own_sensors`` (sensors sit on or inside their own hull,
which would otherwise occlude them). Hull instances follow the environment's
instances, in vehicle-name order, before the sea surface, so every environment
instance keeps its instance index. A hull instance has ``object_id`` and
``vehicle`` equal to the vehicle's World name (ground truth names the vehicle),
the hull's semantic label and acoustic material (or none: "acoustic property
unknown"), and ``moving = True``.

A vehicle without a hull adds nothing, so a World in which no other vehicle
declares one samples exactly the environment's scene, with the identity it had
before hulls existed.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from leviathan.frames import Transform
from leviathan.geometry import hull_mesh
from leviathan.materials import get_material
from leviathan.scene import SEA_SURFACE_OBJECT_ID, Instance, Scene, TriangleMesh
from leviathan.specs import HullSpec, VehicleSpec
from leviathan.world._environment import Environment

__all__ = ["check_hulls", "hull_instance", "hull_triangle_mesh", "scenes_seen"]


@lru_cache(maxsize=64)
def hull_triangle_mesh(hull: HullSpec) -> TriangleMesh:
    """The hull's mesh, built once per hull spec (frozen specs are hashable values)."""
    return hull_mesh(hull)


def hull_instance(name: str, hull: HullSpec, T_world_body: Transform) -> Instance:
    """The scene instance of vehicle ``name``'s hull at pose ``T_world_body``."""
    material = None if hull.material is None else get_material(hull.material)
    return Instance(
        name,
        hull_triangle_mesh(hull),
        T_world_body,
        hull.semantic_label,
        material,
        moving=True,
        vehicle=name,
    )


def check_hulls(specs: Mapping[str, VehicleSpec], environment: Environment) -> None:
    """Refuses hulls that cannot enter a scene; builds each hull mesh once.

    Args:
        specs: Vehicle World name -> its document.
        environment: The World's environment.

    Raises:
        ValueError: If a vehicle with a hull is named like an environment object or
            the sea surface (a hull's object id is its vehicle's name, and ground
            truth must tell them apart), or its mesh file fails (wrong SHA-256, no mesh).
        OSError: If a hull's mesh file cannot be read.
    """
    object_ids = {o.object_id for o in environment.objects}
    for name, spec in specs.items():
        if spec.hull is None:
            continue
        if name in object_ids or name == SEA_SURFACE_OBJECT_ID:
            raise ValueError(
                f"vehicles[{name!r}].hull: a hull's object id is its vehicle's name, and "
                f"{name!r} is already an object of the environment; rename the vehicle or "
                "the object"
            )
        try:
            hull_triangle_mesh(spec.hull)
        except OSError as exc:
            # The same OSError, with the field named and its errno and file name kept.
            raise OSError(
                exc.errno, f"vehicles[{name!r}].hull: {exc.strerror}", exc.filename
            ) from exc
        except ValueError as exc:
            raise ValueError(f"vehicles[{name!r}].hull: {exc}") from exc


def scenes_seen(
    base: Scene,
    specs: Mapping[str, VehicleSpec],
    poses: Mapping[str, Transform],
    observers: frozenset[str] | set[str],
) -> dict[str, Scene]:
    """The scene each observing vehicle's sensors see at one instant.

    Args:
        base: The environment's scene at the instant.
        specs: Every vehicle's document, by World name.
        poses: Every vehicle's committed ``T_world_body`` at the instant, by name.
        observers: The vehicles whose sensors sample now.

    Returns:
        Observer name -> scene: ``base`` itself when no hull is visible to it,
        else ``base``'s instances followed by the visible hulls in name order.
    """
    hulls = {
        name: hull_instance(name, spec.hull, poses[name])
        for name, spec in sorted(specs.items())
        if spec.hull is not None
    }
    scenes: dict[str, Scene] = {}
    for observer in sorted(observers):
        own = specs[observer].hull
        seen = [
            inst
            for name, inst in hulls.items()
            if name != observer or (own is not None and own.visible_to_own_sensors)
        ]
        scenes[observer] = base if not seen else Scene([*base.instances, *seen], name=base.name)
    return scenes
