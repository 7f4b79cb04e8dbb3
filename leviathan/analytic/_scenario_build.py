"""Building a scenario's canonical parts: environment, vehicles, controllers, the reference World.

Analytic tier (not canonical): these turn a :class:`ScenarioDocument` into the
same library objects a Python user passes to :class:`~leviathan.world.World`,
so :func:`canonical_world` is the canonical World a fault-free run must equal.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from leviathan.analytic._scenario import ScenarioDocument
from leviathan.specs import VehicleSpec, WaterSpec, spec_from_dict

__all__ = ["build_environment", "build_vehicle_setups", "canonical_world"]


def build_environment(doc: ScenarioDocument):
    """The :class:`~leviathan.world.Environment` the document's ``environment`` declares."""
    from leviathan.demo import survey_environment
    from leviathan.geometry import seabed_mesh
    from leviathan.materials import TEST_LAMBERT_MEDIUM
    from leviathan.world import Environment, SceneObject

    env_doc = doc.environment
    if env_doc.scene == "survey":
        env = survey_environment(env_doc.seabed_triangles)
    elif env_doc.scene == "flat_seabed":
        from leviathan.frames import Transform

        size = env_doc.seabed_size_m
        mesh = seabed_mesh(
            triangle_count=2,
            size_m=(size, size),
            mean_depth_m=env_doc.seabed_depth_m,
            relief_m=0.0,
            seed=0,
            origin=(-size / 2.0, -size / 2.0),
        )
        seabed = SceneObject("seabed", mesh, Transform.identity(), "seabed", TEST_LAMBERT_MEDIUM)
        env = Environment(objects=(seabed,), name=doc.name)
    else:
        env = Environment(name=doc.name)
    if env_doc.water is not None:
        env = env.with_water(
            spec_from_dict(dict(env_doc.water), WaterSpec, source="environment.water")
        )
    return env


def _controller(doc: Any):
    from leviathan.controllers import Autopilot, DirectThrust, WaypointFollower, lawnmower

    if doc.kind == "direct_thrust":
        return DirectThrust(doc.commands_n)
    if doc.kind == "autopilot":
        return Autopilot(
            speed_m_per_s=doc.speed_m_per_s,
            depth_m=doc.depth_m,
            heading_rad=doc.heading_rad,
            **doc.options,
        )
    if doc.kind == "waypoint_follower":
        waypoints = [tuple(w) for w in doc.waypoints_ned_m]
    else:
        waypoints = lawnmower(
            origin_ne=tuple(doc.origin_ne_m),
            heading_rad=doc.heading_rad,
            leg_length_m=doc.leg_length_m,
            leg_spacing_m=doc.leg_spacing_m,
            legs=doc.legs,
            depth_m=doc.depth_m,
        )
    return WaypointFollower(
        waypoints,
        speed_m_per_s=doc.speed_m_per_s,
        acceptance_radius_m=doc.acceptance_radius_m,
        lookahead_m=doc.lookahead_m,
        **doc.options,
    )


def build_vehicle_setups(doc: ScenarioDocument) -> list[Any]:
    """The :class:`~leviathan.world.VehicleSetup` of every vehicle, sorted by name.

    Raises:
        ValueError, TypeError: Naming ``vehicles[i].<field>`` for a bad spec or controller.
    """
    from leviathan.catalogue import vehicle_names
    from leviathan.world import VehicleSetup

    base = getattr(doc, "_base_dir", None) or Path.cwd()
    setups = []
    for i, v in enumerate(doc.vehicles):
        where = f"vehicles[{i}]"
        spec: Any = v.spec
        if isinstance(spec, dict):
            spec = spec_from_dict(spec, VehicleSpec, source=f"{where}.spec")
        elif spec not in vehicle_names():
            path = Path(spec)
            spec = path if path.is_absolute() else base / path
        try:
            controller = _controller(v.controller)
            setup = VehicleSetup(
                v.name,
                spec,
                controller,
                position_ned_m=tuple(v.position_ned_m),
                rpy_rad=tuple(v.rpy_rad),
                velocity_body=tuple(v.velocity_body),
            )
        except (TypeError, ValueError) as error:
            raise type(error)(f"{where}: {error}") from None
        setups.append(setup)
    return sorted(setups, key=lambda s: s.name)


def canonical_world(doc: ScenarioDocument):
    """The canonical World with the document's vehicles, controllers and environment.

    No faults and no analytic noise: the reference a fault-free run must equal.
    """
    from leviathan.world import World

    return World.create(
        vehicles=build_vehicle_setups(doc),
        environment=build_environment(doc),
        root_seed=doc.root_seed,
        step_ns=doc.step_ns,
        tracing_backend=doc.tracing_backend,
    )
