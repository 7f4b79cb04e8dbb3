"""Shared builders of the sonar tests: test specs, a look-down pose, random poses, flat seabeds."""

from __future__ import annotations

import math
from typing import TypeVar

import numpy as np

from leviathan.frames import Transform
from leviathan.materials import TEST_LAMBERT_MEDIUM
from leviathan.scene import Instance, TriangleMesh
from leviathan.specs import BeamPatternSpec, ImagingSonarSpec, MountSpec, ScheduleSpec

_Spec = TypeVar("_Spec")

LOOK_DOWN = Transform.from_euler(0.0, -math.pi / 2, 0.0)  # sensor x (boresight) -> world +z


def quad_mesh(z: float, half: float = 50.0, tilt_rad: float = 0.0) -> TriangleMesh:
    """Two triangles spanning [-half, half]^2 at depth z, optionally tilted about world y."""
    xy = np.array([[-half, -half], [half, -half], [half, half], [-half, half]], dtype=np.float64)
    zz = z + np.tan(tilt_rad) * xy[:, 0]
    v = np.column_stack([xy, zz])
    return TriangleMesh(v, np.array([[0, 1, 2], [0, 2, 3]]))


def seabed(z: float = 30.0, material=TEST_LAMBERT_MEDIUM, tilt_rad: float = 0.0) -> Instance:
    """The :func:`quad_mesh` seabed as the scene instance ``"seabed"``."""
    return Instance(
        "seabed", quad_mesh(z, tilt_rad=tilt_rad), Transform.identity(), "seabed", material
    )


def imaging_sonar_spec(**over: object) -> ImagingSonarSpec:
    """A test imaging sonar: one uniform beam over 90 degrees, one elevation, 64 bins to 60 m."""
    base: dict[str, object] = dict(
        name="sonar",
        frequency_hz=900e3,
        azimuth_fov_deg=90.0,
        elevation_aperture_deg=20.0,
        bearing_count=1,
        elevation_sample_count=1,
        range_min_m=0.5,
        range_max_m=60.0,
        range_bin_count=64,
        beam_pattern=BeamPatternSpec(kind="uniform"),
    )
    return sonar_test_spec(ImagingSonarSpec, base, period_ns=200_000_000, over=over)


def sonar_test_spec(
    spec_type: type[_Spec], fields: dict[str, object], *, period_ns: int, over: dict[str, object]
) -> _Spec:
    """A test sonar spec: its ``fields``, what every test sonar shares (top-K 4, ``period_ns``,
    mounted at the body origin, the hardware note), then ``over``."""
    shared: dict[str, object] = dict(
        top_k=4,
        schedule=ScheduleSpec(period_ns=period_ns),
        mount=MountSpec(translation_m=(0.0, 0.0, 0.0)),
        hardware_note="test value",
    )
    return spec_type(**{**fields, **shared, **over})


def random_sensor_pose(
    rng: np.random.Generator, *, roll_rad: float, pitch_rad: float, depth_m: float
) -> Transform:
    """T_world_sensor drawn from ``rng``: roll and pitch within +-``roll_rad``/``pitch_rad``,
    any heading, north and east within +-5 m, at ``depth_m`` (draws in that order)."""
    return Transform.from_euler(
        float(rng.uniform(-roll_rad, roll_rad)),
        float(rng.uniform(-pitch_rad, pitch_rad)),
        float(rng.uniform(-math.pi, math.pi)),
        translation=(float(rng.uniform(-5, 5)), float(rng.uniform(-5, 5)), depth_m),
    )
