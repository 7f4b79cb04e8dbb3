"""Small vehicles, scenes and Worlds shared by the World, dataset and tracing tests.

Plain functions rather than fixtures: tests call them with different sizes and seeds.
Every builder returns a fresh object, so no test sees another's state. Run as a
script (``python tests/world_cases.py --digest``) it prints :func:`cross_process_digest`,
for the tests that compare hashes across processes.
"""

from __future__ import annotations

import sys
from typing import Any

from leviathan.catalogue import get_vehicle
from leviathan.controllers import Autopilot
from leviathan.frames import Transform
from leviathan.geometry import box_mesh, plane_mesh
from leviathan.materials import TEST_LAMBERT_BRIGHT, TEST_LAMBERT_MEDIUM
from leviathan.specs import VehicleSpec, WaterSpec
from leviathan.world import Environment, SceneObject, VehicleSetup, World

__all__ = [
    "TICK_NS",
    "autopilot_setup",
    "cross_process_digest",
    "inspector_setup",
    "seabed_scene",
    "seabed_world",
    "small_inspector_spec",
    "small_survey_spec",
    "survey_setup",
    "survey_world",
    "with_sensor",
]

TICK_NS = 10_000_000  # the 10 ms World step most tests use [ns]


def with_sensor(spec: VehicleSpec, name: str, **update: Any) -> VehicleSpec:
    """``spec`` with the fields in ``update`` changed on its sensor called ``name``.

    The result is validated again as a whole, so a change that breaks the vehicle
    (e.g. a duplicate sensor name) fails here rather than deep inside a World.
    """
    sensors = [s.model_copy(update=update) if s.name == name else s for s in spec.sensors]
    return type(spec).model_validate(
        {**spec.model_dump(), "sensors": [s.model_dump() for s in sensors]}
    )


def small_survey_spec(
    *,
    bearing_count: int = 24,
    elevation_sample_count: int = 8,
    range_bin_count: int = 64,
    **sonar_update: Any,
) -> VehicleSpec:
    """The catalogue survey vehicle with a sonar small enough to render in milliseconds.

    Args:
        bearing_count: beams across the fan.
        elevation_sample_count: rays per beam across the elevation aperture.
        range_bin_count: range cells per beam.
        **sonar_update: any other sonar field to change (e.g. ``speckle=True``).
    """
    return with_sensor(
        get_vehicle("reference_survey_vehicle"),
        "sonar",
        bearing_count=bearing_count,
        elevation_sample_count=elevation_sample_count,
        range_bin_count=range_bin_count,
        **sonar_update,
    )


def small_inspector_spec(*, focal_px: float) -> VehicleSpec:
    """The catalogue inspection ROV with a 16 x 12 px front camera of focal length ``focal_px``."""
    return with_sensor(
        get_vehicle("inspection_rov"),
        "front_camera",
        width_px=16,
        height_px=12,
        fx_px=focal_px,
        fy_px=focal_px,
        cx_px=7.5,
        cy_px=5.5,
    )


def seabed_plane(size_m: float, divisions: int) -> SceneObject:
    """A flat square seabed ``size_m`` [m] a side at 30 m depth, ``divisions`` quads a side."""
    return SceneObject(
        "seabed",
        plane_mesh(size_m, size_m, divisions_x=divisions, divisions_y=divisions),
        Transform.from_euler(0, 0, 0, translation=(0, 0, 30.0)),
        "seabed",
        TEST_LAMBERT_MEDIUM,
    )


def seabed_scene(
    *,
    water: WaterSpec | None = None,
    seabed_divisions: int = 20,
    box_ned_m: tuple[float, float, float] = (15.0, 0.0, 29.0),
    mover: bool = True,
) -> Environment:
    """A 200 m square flat seabed at 30 m depth, a 2 m box on it and optionally a mover.

    Args:
        water: the water column (default: :class:`WaterSpec`'s defaults).
        seabed_divisions: quads along each side of the seabed plane.
        box_ned_m: centre of the 2 m target box in world NED [m].
        mover: add a 1 m box at (20, -3, 28) m moving east at 1 m/s.
    """
    at = Transform.from_euler
    objects = [
        seabed_plane(200.0, seabed_divisions),
        SceneObject(
            "box",
            box_mesh((2.0, 2.0, 2.0)),
            at(0, 0, 0, translation=box_ned_m),
            "target",
            TEST_LAMBERT_BRIGHT,
        ),
    ]
    if mover:
        objects.append(
            SceneObject(
                "mover",
                box_mesh((1.0, 1.0, 1.0)),
                at(0, 0, 0, translation=(20.0, -3.0, 28.0)),
                "target",
                TEST_LAMBERT_BRIGHT,
                velocity_ned_m_per_s=(0.0, 1.0, 0.0),
            )
        )
    return Environment(water=water if water is not None else WaterSpec(), objects=tuple(objects))


def autopilot_setup(
    name: str,
    spec: VehicleSpec,
    *,
    speed_m_per_s: float = 1.0,
    depth_m: float = 20.0,
    heading_rad: float = 0.0,
    position_ned_m: tuple[float, float, float] = (0.0, 0.0, 20.0),
    rpy_rad: tuple[float, float, float] = (0.0, 0.0, 0.0),
) -> VehicleSetup:
    """Vehicle ``name`` on an Autopilot; by default it starts level at the origin at 20 m
    depth and holds 20 m, heading north at 1 m/s (a test states only what it changes).

    Args:
        name: the vehicle's name in the World (its sensor ids are ``"<name>/<sensor>"``).
        spec: the vehicle.
        speed_m_per_s, depth_m, heading_rad: the Autopilot's commands [m/s, m, rad].
        position_ned_m, rpy_rad: the initial pose, world NED [m] and ZYX [rad].
    """
    return VehicleSetup(
        name,
        spec,
        Autopilot(speed_m_per_s=speed_m_per_s, depth_m=depth_m, heading_rad=heading_rad),
        position_ned_m=position_ned_m,
        rpy_rad=rpy_rad,
    )


def inspector_setup(name: str = "inspector", *, focal_px: float, **placement: Any) -> VehicleSetup:
    """Vehicle ``name``: :func:`small_inspector_spec` on :func:`autopilot_setup`.

    Args:
        name: the vehicle's name in the World.
        focal_px: the camera's focal length [px].
        **placement: the Autopilot's commands and the initial pose (:func:`autopilot_setup`).
    """
    return autopilot_setup(name, small_inspector_spec(focal_px=focal_px), **placement)


def survey_setup(spec: VehicleSpec | None = None) -> VehicleSetup:
    """Vehicle ``"survey"`` from the origin at 20 m depth, heading north at 1 m/s on an Autopilot.

    Args:
        spec: the vehicle (default :func:`small_survey_spec`).
    """
    return autopilot_setup("survey", spec if spec is not None else small_survey_spec())


def seabed_world(
    *vehicles: VehicleSetup, seed: int = 11, environment: Environment | None = None, **world: Any
) -> World:
    """``vehicles`` over ``environment`` (default :func:`seabed_scene`), in 10 ms ticks.

    Args:
        *vehicles: the vehicles, in their order.
        seed: the World's root seed (keys every noise draw).
        environment: the scene and water (default: :func:`seabed_scene`'s defaults).
        **world: further :meth:`World.create` options (e.g. ``tracing_backend``).
    """
    return World.create(
        vehicles=list(vehicles),
        environment=environment if environment is not None else seabed_scene(),
        root_seed=seed,
        step_ns=TICK_NS,
        **world,
    )


def survey_world(seed: int = 11, *, water: WaterSpec | None = None, **world: Any) -> World:
    """The :func:`survey_setup` vehicle alone over :func:`seabed_scene`.

    Args:
        seed: the World's root seed (keys every noise draw).
        water: the water column (default: :class:`WaterSpec`'s defaults).
        **world: further :meth:`World.create` options (e.g. ``tracing_backend``).
    """
    return seabed_world(survey_setup(), seed=seed, environment=seabed_scene(water=water), **world)


def cross_process_digest() -> str:
    """The snapshot hash after 30 ticks of :func:`survey_world` and the last group's of 5 more."""
    world = survey_world()
    world.step(30)
    return f"{world.snapshot().content_hash} {world.step(5)[-1].content_hash}"


if __name__ == "__main__" and sys.argv[1:] == ["--digest"]:
    print(cross_process_digest())
