"""The canonical side-scan scenes of the frozen fixture ``fixtures/sidescan_v1``.

Defined here in code, by name, and rendered once by the reference to freeze the
fixture; frozen together with it (a change to a scene below moves it, and the
parity suite says so). Specs are written out here, not taken from the catalogue.

Coverage (the issue's list): flat seabed at three altitudes (the nadir gap),
tilted seabed both ways (port/starboard asymmetry), a box and a cylinder casting
shadows, a target in the water column (its shadow detached from it), unknown
material, unsupported material, unsupported water, a moving target, the sea
surface in the aperture, K = 1 and 4 (a rough seabed crowding cells), speckle,
coarse and fine bins, rays exactly on shared edges and a shared vertex, and the
uniform and sinc² beam patterns besides the Gaussian.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from leviathan.frames import Transform
from leviathan.geometry import box_mesh, cylinder_mesh, uv_sphere_mesh
from leviathan.materials import TEST_LAMBERT_BRIGHT, TEST_LAMBERT_DARK, TEST_LAMBERT_MEDIUM
from leviathan.parity._scene_parts import (
    _UNSUPPORTED,
    FIXTURE_SEED,
    Entry,
    FixtureCase,
    _at,
    _moving_vehicle,
    _seabed,
    _target,
    build_case,
    case_register,
    fixture_spec,
)
from leviathan.scene import Instance, Scene, TriangleMesh
from leviathan.side_scan import SideScanLine
from leviathan.specs import (
    SideScanBeamPatternSpec,
    SideScanSonarSpec,
    WaterSpec,
)

__all__ = [
    "SIDE_SCAN_SCENE_NAMES",
    "SideScanCase",
    "build_side_scan_scene",
    "side_scan_scene_cases",
]

SIDE_SCAN_SENSOR_ID = "fixture/side_scan"
_PERIOD_NS = 100_000_000


@dataclass(frozen=True, eq=False)
class SideScanCase(FixtureCase):
    """One frozen side-scan scene: everything ``leviathan.side_scan.render`` needs."""

    __content_type__ = "leviathan.parity.side_scan_scenes.SideScanCase"

    spec: SideScanSonarSpec
    sensor_id: str = SIDE_SCAN_SENSOR_ID

    def render(self, *, backend: str = "reference", device: str | None = None) -> SideScanLine:
        """Renders this scene with the given backend."""
        from leviathan.side_scan import render

        # Coarse on purpose (a few hundred rays per fan): bits, not pictures.
        return self._render_with(render, backend, device, sampling_warnings=False)


# What the fixture's side-scan declares before :func:`fixture_spec` adds what every fixture's
# sensor shares; the tests' side-scan (``tests/side_scan_cases.py``) starts from it too.
SIDE_SCAN_FIELDS: Mapping[str, object] = MappingProxyType(
    dict(
        name="side_scan",
        frequency_hz=400e3,
        depression_deg=20.0,
        aperture_min_depression_deg=0.0,
        aperture_max_depression_deg=90.0,
        across_track_sample_count=601,
        along_track_aperture_deg=1.0,
        along_track_sample_count=3,
        range_min_m=0.0,
        range_max_m=40.0,
        range_bin_count=160,
        beam_pattern=SideScanBeamPatternSpec(
            kind="gaussian",
            along_track_3db_full_width_deg=0.5,
            across_track_3db_full_width_deg=50.0,
        ),
    )
)


def _spec(**over: object) -> SideScanSonarSpec:
    return fixture_spec(SideScanSonarSpec, SIDE_SCAN_FIELDS, period_ns=_PERIOD_NS, over=over)


def _pose(
    depth: float, *, x: float = 0.0, y: float = 0.0, roll: float = 0.0, yaw: float = 0.0
) -> Transform:
    return Transform.from_euler(
        math.radians(roll), 0.0, math.radians(yaw), translation=(x, y, depth)
    )


def _seen_from_10m(
    *instances: Instance, spec: SideScanSonarSpec | None = None, **inputs: object
) -> dict:
    """A case's inputs: ``instances`` seen by ``spec`` (default :func:`_spec`) from a level
    sensor 10 m deep, plus any other render ``inputs``."""
    return dict(
        scene=Scene(list(instances)),
        spec=_spec() if spec is None else spec,
        sensor_pose=_pose(10.0),
        **inputs,
    )


def _rough_seabed(depth: float) -> Instance:
    """A ridged seabed: many small facets in each cell (crowds the top-K)."""
    n = 120
    xs = [-60.0 + 120.0 * i / n for i in range(n + 1)]
    vertices = []
    for j, y in enumerate(xs):
        for i, x in enumerate(xs):
            vertices.append((x, y, depth + 0.15 * (((i * 7 + j * 13) % 5) - 2)))
    faces = []
    for j in range(n):
        for i in range(n):
            a = j * (n + 1) + i
            faces.append((a, a + 1, a + n + 2))
            faces.append((a, a + n + 2, a + n + 1))
    mesh = TriangleMesh(np.array(vertices, dtype=np.float64), np.array(faces, dtype=np.int64))
    return Instance("seabed", mesh, Transform.identity(), "seabed", TEST_LAMBERT_MEDIUM)


def _cases() -> list[Entry]:
    """The scenes as ``(name, description, builder)``, in fixture order (gives index and time)."""
    cases: list[Entry] = []
    case = case_register(cases)

    @case("flat seabed 6 m below: a wide nadir gap, steep returns")
    def flat_altitude_6() -> dict:
        return _seen_from_10m(_seabed(16.0))

    @case("flat seabed 12 m below")
    def flat_altitude_12() -> dict:
        return _seen_from_10m(_seabed(22.0))

    @case("flat seabed 25 m below, yawed track")
    def flat_altitude_25() -> dict:
        return dict(scene=Scene([_seabed(35.0)]), spec=_spec(), sensor_pose=_pose(10.0, yaw=30.0))

    @case("seabed rolled 8 deg: port nearer, starboard farther")
    def tilted_seabed_port_up() -> dict:
        return _seen_from_10m(_seabed(22.0, tilt_deg=8.0))

    @case("seabed rolled -5 deg under a vehicle rolled 3 deg")
    def tilted_seabed_starboard_up() -> dict:
        return dict(
            scene=Scene([_seabed(22.0, tilt_deg=-5.0)]),
            spec=_spec(),
            sensor_pose=_pose(10.0, roll=3.0),
        )

    @case("box on the seabed to starboard casts a shadow")
    def box_shadow() -> dict:
        box = _target(
            "crate", box_mesh((20.0, 2.0, 2.0)), _at(0.0, 14.0, 21.0), TEST_LAMBERT_BRIGHT
        )
        return _seen_from_10m(_seabed(22.0), box)

    @case("pipeline (cylinder along-track) to port casts a shadow")
    def cylinder_shadow() -> dict:
        mesh = cylinder_mesh(0.6, 40.0, segments=16, axis="x")
        pipe = _target("pipeline", mesh, _at(0.0, -11.0, 21.4), TEST_LAMBERT_BRIGHT)
        return _seen_from_10m(_seabed(22.0), pipe)

    @case("ball in the water column: its shadow detached from it")
    def target_in_water_column() -> dict:
        ball = _target("ball", uv_sphere_mesh(1.0), _at(0.0, 9.0, 16.0), TEST_LAMBERT_BRIGHT)
        return _seen_from_10m(_seabed(22.0), ball)

    @case("target without an acoustic material (unknown)")
    def material_unknown() -> dict:
        box = _target("crate", box_mesh((6.0, 3.0, 1.5)), _at(0.0, 10.0, 21.25), None)
        return _seen_from_10m(_seabed(22.0), box)

    @case("target with a declared, unimplemented model (unsupported)")
    def material_unsupported() -> dict:
        mesh = cylinder_mesh(1.0, 3.0, segments=12, axis="x")
        drum = _target("drum", mesh, _at(0.0, -9.0, 21.0), _UNSUPPORTED)
        return _seen_from_10m(_seabed(22.0), drum)

    @case("fresh water: outside Francois-Garrison (unsupported water)")
    def water_unsupported() -> dict:
        return _seen_from_10m(
            _seabed(22.0), water=WaterSpec(salinity_psu=0.2, temperature_c=12.0, ph=7.5)
        )

    @case("moving sphere near the seabed to starboard")
    def moving_target() -> dict:
        sphere = _moving_vehicle(1.2, _at(0.0, 12.0, 19.0), TEST_LAMBERT_DARK)
        return _seen_from_10m(_seabed(22.0), sphere)

    @case("shallow sensor sampling above the horizontal: the sea surface in the aperture")
    def sea_surface_in_aperture() -> dict:
        spec = _spec(aperture_min_depression_deg=-30.0, depression_deg=10.0)
        return dict(scene=Scene([_seabed(20.0)]), spec=spec, sensor_pose=_pose(3.0))

    @case("K = 1 over a rough seabed")
    def top_k_1() -> dict:
        return _seen_from_10m(_rough_seabed(18.0), spec=_spec(top_k=1))

    @case("K = 4 over a rough seabed: truncated cells")
    def top_k_4() -> dict:
        spec = _spec(top_k=4, range_bin_count=60, across_track_sample_count=1201)
        return _seen_from_10m(_rough_seabed(18.0), spec=spec)

    @case("speckle drawn from keyed randomness")
    def speckle() -> dict:
        return _seen_from_10m(_seabed(22.0), spec=_spec(speckle=True), seed=FIXTURE_SEED)

    @case("coarse bins: 24 per side")
    def coarse_bins() -> dict:
        return _seen_from_10m(_seabed(22.0), spec=_spec(range_bin_count=24))

    @case("fine bins: 1000 per side over 30 m")
    def fine_bins() -> dict:
        spec = _spec(range_bin_count=1000, range_max_m=30.0, across_track_sample_count=2001)
        return _seen_from_10m(_seabed(22.0), spec=spec)

    @case("rays on shared edges: the fans' plane on a grid line, nadir on a grid vertex")
    def shared_edge() -> dict:
        # The seabed grid has lines at x = 0 and y = 0: every along-track-0 ray runs in
        # the plane x = 0 (on shared edges) and the nadir ray hits the vertex (0, 0).
        spec = _spec(along_track_sample_count=1)
        return _seen_from_10m(_seabed(22.0, size=40.0, divisions=8), spec=spec)

    @case("uniform beam")
    def uniform_beam() -> dict:
        spec = _spec(beam_pattern=SideScanBeamPatternSpec(kind="uniform"))
        return _seen_from_10m(_seabed(22.0), spec=spec)

    @case("sinc2 beam from 0.5 m x 0.02 m arrays")
    def sinc2_beam() -> dict:
        bp = SideScanBeamPatternSpec(
            kind="sinc2", along_track_array_length_m=0.5, across_track_array_length_m=0.02
        )
        return _seen_from_10m(_seabed(22.0), spec=_spec(beam_pattern=bp))

    return cases


SIDE_SCAN_SCENE_NAMES: tuple[str, ...] = tuple(name for name, _, _ in _cases())


def build_side_scan_scene(name: str) -> SideScanCase:
    """Builds one named side-scan fixture scene."""
    return build_case(
        SideScanCase, _cases(), name, period_ns=_PERIOD_NS, what="side-scan fixture scene"
    )


def side_scan_scene_cases() -> list[SideScanCase]:
    """All side-scan fixture scenes, in fixture order."""
    return [build_side_scan_scene(name) for name in SIDE_SCAN_SCENE_NAMES]
