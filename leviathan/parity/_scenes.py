"""The 28 canonical sonar scenes of the frozen parity fixture.

Each scene is defined here in code, by name, and rendered by the reference to
produce the frozen fixture (``fixtures/sonar_v1``). These definitions are
frozen together with the data: changing a mesh generator, a pose or a spec
below changes the scene, and the parity suite will say so.

Specs are written out here rather than taken from the vehicle catalogue so
that catalogue edits can never move the fixture.

Coverage (the seeds' list): flat and tilted surfaces; known, unknown and
unsupported materials; an unsupported medium (two ways); static and moving
targets; three kinds of occlusion (target over seabed, target behind target,
self-occlusion of a concave structure); shadowing behind a pipeline; an exact
coincident-surface tie; K = 1, 2, 4 and 16; near and far range windows; the
sea-surface interface; 1 to 8 elevation samples; speckle; uniform and Gaussian
beams; rays aimed exactly at shared vertices and edges.
"""

from __future__ import annotations

import math

from leviathan.frames import Transform
from leviathan.geometry import box_mesh, cylinder_mesh, merge_meshes, plane_mesh, uv_sphere_mesh
from leviathan.materials import (
    TEST_LAMBERT_BRIGHT,
    TEST_LAMBERT_DARK,
    TEST_LAMBERT_MEDIUM,
)
from leviathan.parity._scene_parts import (
    _PERIOD_NS,
    _UNSUPPORTED,
    FIXTURE_SEED,
    Entry,
    SceneCase,
    _at,
    _gauss,
    _moving_vehicle,
    _pose,
    _seabed,
    _spec,
    _target,
    build_case,
    case_register,
)
from leviathan.scene import Instance, Scene
from leviathan.specs import BeamPatternSpec, WaterSpec


def _cases() -> list[Entry]:
    """The 28 scenes as ``(name, description, builder)``, in fixture order (see
    :func:`~leviathan.parity._scene_parts.case_register`)."""
    cases: list[Entry] = []
    case = case_register(cases)
    survey = dict(spec=_spec(), sensor_pose=_pose(0.0, 0.0, 20.0, pitch=-30.0))

    def _on_seabed(*targets: Instance, **inputs: object) -> dict:
        """A case's inputs: ``targets`` on a seabed 30 m deep, seen by the survey's spec from
        its pose unless ``inputs`` give others, plus any other render ``inputs``."""
        return dict(scene=Scene([_seabed(30.0), *targets]), **{**survey, **inputs})

    @case("flat seabed at normal incidence; centre ray on a shared vertex")
    def flat_normal_incidence() -> dict:
        # Looking straight down at a grid whose vertex (0, 0) lies on the centre ray:
        # the centre bearing hits a vertex shared by several triangles.
        scene = Scene([_seabed(25.0, size=80.0, divisions=8)])
        body = Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 5.0))
        down = Transform.from_euler(0.0, -math.pi / 2, 0.0)
        spec = _spec(bearing_count=17, elevation_sample_count=3, range_bin_count=40)
        return dict(scene=scene, spec=spec, sensor_pose=body @ down)

    @case("flat seabed, survey geometry (mount tilted 30 deg down)")
    def flat_survey() -> dict:
        return _on_seabed()

    @case("plane pitched 30 deg on the seabed")
    def tilted_plane_30() -> dict:
        mesh = plane_mesh(12.0, 12.0, divisions_x=4, divisions_y=4)
        plane = _target("ramp", mesh, _at(18.0, 0.0, 27.0, pitch=30.0), TEST_LAMBERT_MEDIUM)
        return dict(scene=Scene([_seabed(35.0), plane]), **survey)

    @case("plane rolled 60 deg and yawed, standing in the beam")
    def tilted_plane_60() -> dict:
        mesh = plane_mesh(30.0, 30.0, divisions_x=3, divisions_y=3)
        plane = _target(
            "wall", mesh, _at(18.0, 0.0, 20.0, roll=60.0, yaw=15.0), TEST_LAMBERT_BRIGHT
        )
        return dict(scene=Scene([_seabed(35.0), plane]), **survey)

    @case("three Lambert test surfaces side by side")
    def material_known_patches() -> dict:
        mats = (TEST_LAMBERT_BRIGHT, TEST_LAMBERT_MEDIUM, TEST_LAMBERT_DARK)
        patches = [
            Instance(
                f"patch_{k}",
                plane_mesh(60.0, 20.0, divisions_x=6, divisions_y=2),
                _at(30.0, -20.0 + 20.0 * k, 30.0),
                "seabed",
                m,
            )
            for k, m in enumerate(mats)
        ]
        return dict(scene=Scene(patches), **survey)

    @case("target without an acoustic material (unknown)")
    def material_unknown_target() -> dict:
        box = _target("crate", box_mesh((2.0, 3.0, 1.5)), _at(18.0, 2.0, 29.25, yaw=20.0), None)
        return _on_seabed(box)

    @case("target with a declared, unimplemented model")
    def material_unsupported_target() -> dict:
        mesh = cylinder_mesh(1.0, 3.0, segments=12, axis="y")
        return _on_seabed(_target("drum", mesh, _at(16.0, -3.0, 29.0), _UNSUPPORTED))

    @case("fresh water: outside Francois-Garrison")
    def medium_unsupported_fresh_water() -> dict:
        return _on_seabed(water=WaterSpec(salinity_psu=0.2, temperature_c=12.0, ph=7.5))

    @case("sensor at 4020 m: deeper than the absorption model")
    def medium_unsupported_deep() -> dict:
        scene = Scene([_seabed(4030.0)])
        return dict(scene=scene, spec=_spec(), sensor_pose=_pose(0.0, 0.0, 4020.0, pitch=-30.0))

    @case("static box on the seabed")
    def target_static_box() -> dict:
        box = _target(
            "block", box_mesh((3.0, 3.0, 3.0)), _at(20.0, 0.0, 28.5, yaw=45.0), TEST_LAMBERT_BRIGHT
        )
        return _on_seabed(box)

    @case("moving sphere in the water column")
    def target_moving_sphere() -> dict:
        return _on_seabed(_moving_vehicle(1.5, _at(14.0, 3.0, 27.0), TEST_LAMBERT_BRIGHT))

    @case("slab in the water column occludes the seabed")
    def occlusion_target_over_seabed() -> dict:
        slab = Instance(
            "slab", box_mesh((4.0, 8.0, 0.5)), _at(8.0, 0.0, 25.0), "debris", TEST_LAMBERT_DARK
        )
        return _on_seabed(slab)

    @case("near sphere occludes part of a far sphere")
    def occlusion_target_behind_target() -> dict:
        near_mesh = uv_sphere_mesh(1.2, segments=12, rings=6)
        near = _target(
            "near_ball", near_mesh, _at(9.0, 0.5, 25.0), TEST_LAMBERT_BRIGHT, label="buoy"
        )
        far_mesh = uv_sphere_mesh(2.5, segments=16, rings=8)
        far = _target("far_ball", far_mesh, _at(17.0, 1.5, 28.5), TEST_LAMBERT_MEDIUM, label="buoy")
        return _on_seabed(near, far)

    @case("U-shaped frame occludes its own floor and far wall")
    def occlusion_self_concave() -> dict:
        # A U-shaped frame: its near wall hides its own floor and far wall.
        u = merge_meshes(
            [
                box_mesh((0.4, 8.0, 4.0), center=(-3.0, 0.0, 0.0)),
                box_mesh((0.4, 8.0, 4.0), center=(3.0, 0.0, 0.0)),
                box_mesh((6.4, 8.0, 0.4), center=(0.0, 0.0, 2.0)),
            ]
        )
        frame_ = Instance(
            "u_frame", u, _at(20.0, 0.0, 27.8, yaw=10.0), "structure", TEST_LAMBERT_BRIGHT
        )
        return _on_seabed(frame_)

    @case("acoustic shadow behind a pipeline at grazing angle")
    def shadow_behind_pipeline() -> dict:
        mesh = cylinder_mesh(0.6, 80.0, segments=16, axis="y")
        pipe = _target("pipeline", mesh, _at(14.0, 0.0, 29.4), TEST_LAMBERT_BRIGHT)
        return _on_seabed(pipe, spec=_spec(), sensor_pose=_pose(0.0, 0.0, 26.0, pitch=-12.0))

    @case("two coincident instances: exact range ties")
    def coincident_surface_tie() -> dict:
        # Two instances with identical triangles: every hit ties exactly in range and
        # the lower instance index wins.
        pair = [
            Instance(
                f"coincident_{side}",
                plane_mesh(60.0, 60.0, divisions_x=6, divisions_y=6),
                _at(25.0, 0.0, 30.0),
                "seabed",
                material,
            )
            for side, material in (("a", TEST_LAMBERT_DARK), ("b", TEST_LAMBERT_BRIGHT))
        ]
        return dict(scene=Scene(pair), **survey)

    def _wall(
        x: float,
        depth: float,
        height: float,
        width: float,
        material,
        object_id: str = "wall",
        *,
        divisions_x: int = 2,
    ) -> Instance:
        # A vertical wall facing the sensor (its plane normal along world x): every
        # elevation sample of a bearing lands at nearly the same range, so cells
        # collect many contributors and top-K truncation is exercised.
        mesh = plane_mesh(height, width, divisions_x=divisions_x, divisions_y=4)
        return Instance(object_id, mesh, _at(x, 0.0, depth, pitch=90.0), "wall", material)

    level = _pose(0.0, 0.0, 20.0, pitch=-3.0)

    @case("K = 1 on a wall: truncation")
    def topk_1() -> dict:
        wall = _wall(12.0, 20.0, 8.0, 30.0, TEST_LAMBERT_BRIGHT)
        return _on_seabed(wall, spec=_spec(top_k=1, elevation_sample_count=6), sensor_pose=level)

    @case("K = 2 on a wall, uniform beam")
    def topk_2() -> dict:
        wall = _wall(12.0, 20.0, 8.0, 30.0, TEST_LAMBERT_MEDIUM)
        spec = _spec(
            top_k=2, elevation_sample_count=5, beam_pattern=BeamPatternSpec(kind="uniform")
        )
        return _on_seabed(wall, spec=spec, sensor_pose=level)

    @case("K = 4, half-known half-unknown wall (mixtures)")
    def topk_4_mixed() -> dict:
        # Upper half of the wall is a known surface, lower half has no acoustic material:
        # cells mix KNOWN and UNKNOWN contributors from two instances.
        upper = _wall(12.0, 18.0, 4.0, 30.0, TEST_LAMBERT_BRIGHT, "wall_upper", divisions_x=1)
        lower = _wall(12.0, 22.0, 4.0, 30.0, None, "wall_lower", divisions_x=1)
        spec = _spec(top_k=4, elevation_sample_count=7)
        return _on_seabed(upper, lower, spec=spec, sensor_pose=level)

    @case("K = 16, eight elevation samples on a wall and a block")
    def topk_16() -> dict:
        wall = _wall(12.0, 20.0, 8.0, 30.0, TEST_LAMBERT_BRIGHT)
        box = _target(
            "block", box_mesh((1.0, 2.0, 2.0)), _at(9.0, 2.0, 20.0, yaw=30.0), TEST_LAMBERT_DARK
        )
        spec = _spec(top_k=16, elevation_sample_count=8, range_bin_count=24, bearing_count=24)
        return dict(scene=Scene([wall, box]), spec=spec, sensor_pose=level)

    @case("near range window 0.2-4 m")
    def range_window_near() -> dict:
        mesh = cylinder_mesh(0.15, 6.0, segments=10, axis="z")
        post = _target("post", mesh, _at(2.5, 0.3, 12.0), TEST_LAMBERT_BRIGHT)
        spec = _spec(range_min_m=0.2, range_max_m=4.0, range_bin_count=32, elevation_sample_count=3)
        return _on_seabed(post, spec=spec, sensor_pose=_pose(0.0, 0.0, 12.0, pitch=-5.0))

    @case("far range window 60-150 m")
    def range_window_far() -> dict:
        spec = _spec(
            range_min_m=60.0, range_max_m=150.0, range_bin_count=45, elevation_sample_count=2
        )
        return dict(
            scene=Scene([_seabed(40.0, size=400.0, divisions=16)]),
            spec=spec,
            sensor_pose=_pose(0.0, 0.0, 10.0, pitch=-8.0),
        )

    @case("looking up at the sea-surface interface")
    def sea_surface_interface() -> dict:
        spec = _spec(elevation_sample_count=4, range_max_m=30.0, range_bin_count=30)
        return dict(
            scene=Scene([_seabed(30.0)]), spec=spec, sensor_pose=_pose(0.0, 0.0, 8.0, pitch=35.0)
        )

    @case("buoy under the surface: interface and target mix")
    def sea_surface_mixed_with_target() -> dict:
        mesh = uv_sphere_mesh(1.0, segments=12, rings=6)
        buoy = _target("buoy", mesh, _at(9.0, 0.0, 1.5), TEST_LAMBERT_BRIGHT, moving=True)
        spec = _spec(elevation_sample_count=5, range_max_m=30.0, range_bin_count=30)
        return _on_seabed(buoy, spec=spec, sensor_pose=_pose(0.0, 0.0, 8.0, pitch=30.0))

    @case("one elevation sample (weight = aperture)")
    def elevation_samples_1() -> dict:
        return _on_seabed(spec=_spec(elevation_sample_count=1, bearing_count=33))

    @case("two elevation samples")
    def elevation_samples_2() -> dict:
        box = _target("block", box_mesh((2.0, 2.0, 2.0)), _at(12.0, 0.0, 29.0), TEST_LAMBERT_BRIGHT)
        return _on_seabed(box, spec=_spec(elevation_sample_count=2))

    @case("eight elevation samples, narrow Gaussian beam, yawed")
    def elevation_samples_8() -> dict:
        spec = _spec(elevation_sample_count=8, beam_pattern=_gauss(40.0, 10.0))
        return _on_seabed(spec=spec, sensor_pose=_pose(3.0, -2.0, 12.0, pitch=-35.0, yaw=25.0))

    @case("speckle drawn from keyed randomness")
    def speckle() -> dict:
        sphere = _target("ball", uv_sphere_mesh(1.5), _at(18.0, -2.0, 28.0), TEST_LAMBERT_BRIGHT)
        return _on_seabed(sphere, spec=_spec(speckle=True), seed=FIXTURE_SEED)

    return cases


SCENE_NAMES: tuple[str, ...] = tuple(name for name, _, _ in _cases())


def build_scene(name: str) -> SceneCase:
    """Builds one named fixture scene."""
    return build_case(SceneCase, _cases(), name, period_ns=_PERIOD_NS, what="fixture scene")


def scene_cases() -> list[SceneCase]:
    """All 28 fixture scenes, in fixture order."""
    return [build_scene(name) for name in SCENE_NAMES]
