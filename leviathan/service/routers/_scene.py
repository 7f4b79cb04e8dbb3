"""``GET /worlds/{world_id}/scene``: a World's geometry for the Viewport, in LEVIATHAN's frames.

The Viewport draws what this returns and poses it from the World's state (the
``/state`` endpoint and the ``/stream`` WebSocket); it converts NED to its display
axes itself, in one place. Everything here is in LEVIATHAN's frames: world NED
(x north, y east, z down, origin at the sea surface), body and sensor FRD, metres,
mount poses as ``T_body_sensor``.

* **Environment objects**, in the environment's order (their instance indices):
  the object-local mesh, the pose at t = 0 and at the World's committed time
  (objects with a constant velocity move as ``t(t) = t(0) + v t``), label and
  material name.
* **Vehicles**, in name order: the hull mesh in body FRD
  (:func:`leviathan.world.hull_triangle_mesh` of the vehicle's current document, the
  same mesh the other vehicles' sensors see) or none, and each sensor's mount and
  the field of view its kind declares (:meth:`leviathan.sensors.SensorKind.footprint`:
  line segments and triangles in sensor FRD, drawn as given).
* The sea surface is the plane z = 0 (an analytic interface, no mesh).

Meshes come as exact float64 lists by default; ``encoding=base64`` gives
little-endian float32 vertices and uint32 indices, a third of the size, for display.
Nothing is computed here that a Python user could not read from
:attr:`World.environment` and :meth:`World.vehicle_spec`.
"""

from __future__ import annotations

import base64
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query

from leviathan.frames import Transform
from leviathan.identity import content_hash
from leviathan.scene import TriangleMesh
from leviathan.sensors import sensor_declarations
from leviathan.service import _models as m
from leviathan.service._deps import get_host
from leviathan.service._errors import errors
from leviathan.service._hosting import WorldHost
from leviathan.service._params import WorldId
from leviathan.specs import VehicleSpec
from leviathan.world import World, hull_triangle_mesh

__all__ = ["router", "scene_geometry"]

router = APIRouter(prefix="/worlds", tags=["scene"])

Host = Annotated[WorldHost, Depends(get_host)]
Encoding = Literal["lists", "base64"]


def _pose(T: Transform) -> m.PoseDocument:
    data = T.to_dict()
    return m.PoseDocument(rotation=data["rotation"], translation=data["translation"])


def _mesh(mesh: TriangleMesh, encoding: Encoding) -> m.SceneMeshGeometry:
    vertices, faces = mesh.vertices, mesh.faces
    if encoding == "lists":
        v: Any = vertices.tolist()
        f: Any = faces.tolist()
    else:
        # Display only: float32 is what the renderer draws with; local coordinates
        # (object or body frame) keep the rounding below a millimetre for any
        # mesh under ~8 km across.
        v = base64.b64encode(vertices.astype("<f4").tobytes()).decode("ascii")
        f = base64.b64encode(faces.astype("<u4").tobytes()).decode("ascii")
    return m.SceneMeshGeometry(
        encoding=encoding,
        vertex_count=int(vertices.shape[0]),
        triangle_count=int(faces.shape[0]),
        vertices=v,
        indices=f,
    )


def _footprint(sensor: Any) -> m.SensorFootprint | None:
    """The field of view the sensor's kind declares (leviathan.sensors.SensorKind.footprint)."""
    footprint = sensor_declarations(sensor.kind).footprint(sensor)
    if footprint is None:
        return None
    return m.SensorFootprint(
        legend=footprint.legend,
        parts=[
            m.FootprintPartGeometry(
                name=part.name,
                style=part.style,
                points_sensor_m=part.points.ravel().tolist(),
                colour=part.colour,
                opacity=float(part.opacity),
            )
            for part in footprint.parts
        ],
    )


def _sensors(vehicle: str, spec: VehicleSpec) -> list[m.SensorGeometry]:
    return [
        m.SensorGeometry(
            sensor_id=f"{vehicle}/{sensor.name}",
            name=sensor.name,
            kind=sensor.kind,
            T_body_sensor=_pose(sensor.mount.transform()),
            footprint=_footprint(sensor),
        )
        for sensor in spec.sensors
    ]


def scene_geometry(world_id: str, world: World, *, encoding: Encoding = "lists") -> m.SceneResponse:
    """The Viewport's geometry of ``world`` at its committed time (see the module docstring).

    Args:
        world_id: The World's id in the service.
        world: The World (read under its lock by the caller).
        encoding: ``"lists"`` (exact float64) or ``"base64"`` (float32/uint32, display).

    Returns:
        Environment objects in their order, vehicles in name order, with their sensors.
    """
    env = world.environment
    scene_now = env.scene_at(world.time_ns)
    objects = []
    for obj, instance in zip(env.objects, scene_now.instances, strict=True):
        objects.append(
            m.SceneObjectGeometry(
                object_id=obj.object_id,
                semantic_label=obj.semantic_label,
                material=None if obj.material is None else obj.material.name,
                moving=obj.moving,
                velocity_ned_m_per_s=obj.velocity_ned_m_per_s,
                T_world_object_t0=_pose(obj.T_world_object),
                T_world_object=_pose(instance.T_world_object),
                mesh=_mesh(obj.mesh, encoding),
            )
        )
    vehicles = []
    for name in world.vehicle_names:
        spec = world.vehicle_spec(name)
        hull = spec.hull
        vehicles.append(
            m.VehicleGeometry(
                name=name,
                spec_name=spec.name,
                spec_hash=content_hash(spec),
                hull_shape=None if hull is None else hull.shape,
                hull_label=None if hull is None else hull.semantic_label,
                hull=None if hull is None else _mesh(hull_triangle_mesh(hull), encoding),
                sensors=_sensors(name, spec),
            )
        )
    return m.SceneResponse(
        world_id=world_id,
        tick=world.tick,
        time_ns=world.time_ns,
        environment_name=env.name,
        environment_hash=env.content_hash,
        sea_surface_down_m=0.0,
        objects=objects,
        vehicles=vehicles,
    )


@router.get(
    "/{world_id}/scene",
    response_model=m.SceneResponse,
    summary="Scene geometry",
    responses=errors(404, 410),
)
async def get_scene(
    world_id: WorldId,
    host: Host,
    encoding: Annotated[
        Encoding, Query(description="'lists' (exact float64) or 'base64' (float32, display)")
    ] = "lists",
) -> m.SceneResponse:
    """Environment meshes and poses, vehicle hulls and sensor mounts, in world NED / FRD."""
    return await host.run(
        world_id, lambda w: scene_geometry(world_id, w, encoding=encoding), changes=False
    )
