"""The frozen multibeam scenes of ``fixtures/multibeam_v1``: never edited, added to or regenerated.

Each scene is one multibeam ping (:func:`leviathan.multibeam.multibeam_ping`) wrapped in
its :class:`~leviathan.sensors.SensorSample`, whose every channel (water column and its
complete truth, detections, soundings, per-beam truth) and content hash are frozen.
The scenes cover flat, tilted, stepped and relief seabeds, a pipeline across the
swath, a target in the water column, unknown material, unsupported water, the sea
surface, beams past the window's end, both beam spacings, both patterns and speckle.
They sample coarsely (a few hundred rays per ping): bits, not pictures.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from leviathan.frames import Transform
from leviathan.geometry import cylinder_mesh, heightfield_mesh, uv_sphere_mesh
from leviathan.materials import TEST_LAMBERT_BRIGHT, TEST_LAMBERT_MEDIUM
from leviathan.parity._scene_parts import (
    _UNSUPPORTED,
    FIXTURE_SEED,
    Entry,
    FixtureCase,
    _at,
    _target,
    build_case,
    case_register,
    fixture_spec,
)
from leviathan.parity._scene_parts import _seabed as seabed
from leviathan.scene import Instance, Scene, TriangleMesh
from leviathan.specs import MultibeamSpec, WaterSpec

__all__ = [
    "MULTIBEAM_SCENE_NAMES",
    "MULTIBEAM_SENSOR_ID",
    "MultibeamCase",
    "build_multibeam_scene",
    "multibeam_scene_cases",
]

MULTIBEAM_SENSOR_ID = "fixture/multibeam"
_PERIOD_NS = 200_000_000


@dataclass(frozen=True, eq=False)
class MultibeamCase(FixtureCase):
    """One frozen multibeam scene: everything ``leviathan.multibeam.multibeam_ping`` needs."""

    __content_type__ = "leviathan.parity.multibeam_scenes.MultibeamCase"

    spec: MultibeamSpec
    sensor_id: str = MULTIBEAM_SENSOR_ID

    def render(self, *, backend: str = "reference", device: str | None = None):
        """The ping as a :class:`~leviathan.sensors.SensorSample` (channels, content hash)."""
        from leviathan.multibeam import multibeam_ping
        from leviathan.sensors import multibeam_sample

        ping = self._render_with(multibeam_ping, backend, device)
        return multibeam_sample(
            ping, sensor_id=self.sensor_id, sample_index=self.sample_index, time_ns=self.time_ns
        )


# What the fixture's multibeam declares before :func:`fixture_spec` adds what every fixture's
# sensor shares; the tests' multibeam (``tests/multibeam_cases.py``) starts from it too.
MULTIBEAM_FIELDS: Mapping[str, object] = MappingProxyType(
    dict(
        name="multibeam",
        frequency_hz=400e3,
        swath_deg=120.0,
        beam_count=24,
        beam_spacing="equiangular",
        along_track_width_deg=1.5,
        across_track_width_deg=2.0,
        beam_pattern="gaussian",
        along_track_sample_count=3,
        across_track_sample_count=5,
        range_min_m=0.5,
        range_max_m=60.0,
        range_bin_count=238,
    )
)


def _spec(**over: object) -> MultibeamSpec:
    return fixture_spec(MultibeamSpec, MULTIBEAM_FIELDS, period_ns=_PERIOD_NS, over=over)


def _pose(depth: float, *, x: float = 0.0, y: float = 0.0, roll: float = 0.0) -> Transform:
    return Transform.from_euler(math.radians(roll), 0.0, 0.3, translation=(x, y, depth))


def _seabed(depth: float, *, tilt_deg: float = 0.0, material=TEST_LAMBERT_MEDIUM) -> Instance:
    return seabed(depth, tilt_deg=tilt_deg, size=300.0, divisions=10, material=material)


def _step(shallow: float, deep: float, east: float) -> Instance:
    y = [-150.0, east, east, 150.0]
    z = [shallow, shallow, deep, deep]
    v = np.array([[x, y[j], z[j]] for j in range(4) for x in (-150.0, 150.0)])
    base = heightfield_mesh([[0.0, 0.0]] * 4, spacing_m=(300.0, 1.0), origin=(-150.0, 0.0))
    return Instance(
        "seabed", TriangleMesh(v, base.faces), Transform.identity(), "seabed", TEST_LAMBERT_MEDIUM
    )


def _relief(depth: float) -> Instance:
    n = 41
    depths = [
        [
            depth
            + 1.5 * math.sin(2.0 * math.pi * i / 13.0) * math.cos(2.0 * math.pi * j / 17.0)
            + 0.4 * math.sin(2.0 * math.pi * (i + 2 * j) / 7.0)
            for i in range(n)
        ]
        for j in range(n)
    ]
    mesh = heightfield_mesh(depths, spacing_m=(2.0, 2.0), origin=(-40.0, -40.0))
    return Instance("seabed", mesh, Transform.identity(), "seabed", TEST_LAMBERT_MEDIUM)


def _cases() -> list[Entry]:
    cases: list[Entry] = []
    case = case_register(cases)

    @case("flat seabed 20 m below a level sensor")
    def flat_seabed() -> dict:
        return dict(scene=Scene([_seabed(25.0)]), spec=_spec(), sensor_pose=_pose(5.0))

    @case("seabed tilted 12 degrees across-track, sensor rolled 8 degrees")
    def tilted_seabed() -> dict:
        return dict(
            scene=Scene([_seabed(25.0, tilt_deg=12.0)]),
            spec=_spec(),
            sensor_pose=_pose(5.0, roll=8.0),
        )

    @case("a 3 m step in the seabed across the swath, equidistant beams")
    def stepped_seabed() -> dict:
        return dict(
            scene=Scene([_step(20.0, 23.0, 1.2)]),
            spec=_spec(beam_spacing="equidistant"),
            sensor_pose=Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 4.0)),
        )

    @case("a seabed with sinusoidal relief")
    def relief_seabed() -> dict:
        return dict(scene=Scene([_relief(22.0)]), spec=_spec(), sensor_pose=_pose(4.0))

    @case("a 0.6 m pipeline on the seabed along-track, 3 m to starboard: crossed by the swath")
    def pipeline_across_swath() -> dict:
        mesh = cylinder_mesh(0.3, 80.0, segments=24, axis="x")
        pipe = _target("pipeline", mesh, _at(0.0, 3.0, 24.7), TEST_LAMBERT_BRIGHT)
        scene = Scene([_seabed(25.0), pipe])
        pose = Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 5.0))
        spec = _spec(beam_count=64, swath_deg=60.0, across_track_width_deg=1.0)
        return dict(scene=scene, spec=spec, sensor_pose=pose)

    @case("a 1.5 m sphere in the water column under the sensor")
    def target_in_water_column() -> dict:
        target = _target("target", uv_sphere_mesh(1.5), _at(0.0, 3.0, 14.0), TEST_LAMBERT_BRIGHT)
        return dict(scene=Scene([_seabed(25.0), target]), spec=_spec(), sensor_pose=_pose(5.0))

    @case("a seabed of unknown material (missing returns)")
    def material_unknown() -> dict:
        return dict(
            scene=Scene([_seabed(25.0, material=None)]), spec=_spec(), sensor_pose=_pose(5.0)
        )

    @case("a seabed of a declared but unsupported material")
    def material_unsupported() -> dict:
        return dict(
            scene=Scene([_seabed(25.0, material=_UNSUPPORTED)]),
            spec=_spec(),
            sensor_pose=_pose(5.0),
        )

    @case("fresh water outside the absorption model")
    def water_unsupported() -> dict:
        return dict(
            scene=Scene([_seabed(25.0)]),
            spec=_spec(),
            sensor_pose=_pose(5.0),
            water=WaterSpec(salinity_psu=0.2, temperature_c=12.0, ph=7.5),
        )

    @case("sensor rolled 100 degrees: port beams meet the sea surface")
    def sea_surface() -> dict:
        return dict(scene=Scene([_seabed(25.0)]), spec=_spec(), sensor_pose=_pose(6.0, roll=100.0))

    @case("a 30 m window: the outer beams run off its end")
    def beams_off_window_end() -> dict:
        spec = _spec(range_max_m=30.0, range_bin_count=118)
        return dict(scene=Scene([_seabed(25.0)]), spec=spec, sensor_pose=_pose(5.0))

    @case("uniform beam pattern")
    def uniform_pattern() -> dict:
        return dict(
            scene=Scene([_seabed(25.0)]), spec=_spec(beam_pattern="uniform"), sensor_pose=_pose(5.0)
        )

    @case("speckle on the water column, detection on the speckled return")
    def speckle() -> dict:
        return dict(
            scene=Scene([_relief(22.0)]),
            spec=_spec(speckle=True),
            sensor_pose=_pose(4.0),
            seed=FIXTURE_SEED,
        )

    @case("a detection threshold above every peak")
    def below_threshold() -> dict:
        return dict(
            scene=Scene([_seabed(25.0)]),
            spec=_spec(detection_threshold_db=-40.0),
            sensor_pose=_pose(5.0),
        )

    return cases


MULTIBEAM_SCENE_NAMES: tuple[str, ...] = tuple(name for name, _, _ in _cases())


def build_multibeam_scene(name: str) -> MultibeamCase:
    """Builds one named multibeam fixture scene."""
    return build_case(
        MultibeamCase, _cases(), name, period_ns=_PERIOD_NS, what="multibeam fixture scene"
    )


def multibeam_scene_cases() -> list[MultibeamCase]:
    """All multibeam fixture scenes, in fixture order."""
    return [build_multibeam_scene(name) for name in MULTIBEAM_SCENE_NAMES]
