"""The acoustic fan render: the imaging sonar's pipeline for rays grouped in any columns."""

from __future__ import annotations

import numpy as np
import pytest
from sonar_cases import imaging_sonar_spec, seabed

from leviathan.acoustics import absorption_db_per_m
from leviathan.frames import Transform
from leviathan.materials import TEST_LAMBERT_MEDIUM
from leviathan.scene import Scene
from leviathan.sonar import render
from leviathan.sonar._fan import fan_rays, render_fan
from leviathan.sonar._render import _fan_rays_for
from leviathan.specs import BeamPatternSpec, ImagingSonarSpec, WaterSpec


def _seabed(z: float) -> Scene:
    return Scene([seabed(z)])


def _imaging() -> ImagingSonarSpec:
    return imaging_sonar_spec(
        azimuth_fov_deg=60.0,
        bearing_count=9,
        elevation_sample_count=33,
        range_max_m=40.0,
        beam_pattern=BeamPatternSpec(
            kind="gaussian", azimuth_3db_full_width_deg=40.0, elevation_3db_full_width_deg=12.0
        ),
    )


def test_the_ray_order_does_not_matter_only_columns_and_rows() -> None:
    spec = _imaging()
    pose = Transform.from_euler(0.0, -0.6, 0.0, translation=(0.0, 0.0, 10.0))
    scene = _seabed(25.0)
    frame = render(
        scene,
        spec,
        pose,
        sensor_id="v/s",
        sample_index=0,
        time_ns=0,
        backend="reference",
        sampling_warnings=False,
    )
    rays = _fan_rays_for(spec)
    perm = np.random.default_rng(3).permutation(rays.ray_count)
    shuffled = fan_rays(
        directions=rays.directions[perm],
        two_way_gain=rays.two_way_gain[perm],
        solid_angle_sr=rays.solid_angle_sr[perm],
        column=rays.column[perm],
        row=rays.row[perm],
        column_count=rays.column_count,
        angles={k: v[perm] for k, v in rays.angles.items()},
    )
    fan = render_fan(
        scene,
        shuffled,
        pose,
        range_min_m=0.5,
        range_max_m=40.0,
        range_bin_count=64,
        top_k=4,
        frequency_hz=900e3,
        water=WaterSpec(),
        backend="reference",
        device=None,
    )
    assert set(fan.channels) == set(frame.channels)
    assert int(frame.channels["sample_count"].sum()) > 100
    for name, a in frame.channels.items():
        assert fan.channels[name].tobytes() == a.tobytes(), name


def test_one_ray_per_column_straight_down_matches_the_closed_form() -> None:
    h, mu, f = 12.0, TEST_LAMBERT_MEDIUM.mu.value, 400e3
    water = WaterSpec()
    pose = Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 3.0))
    down = np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    rays = fan_rays(
        directions=down,
        two_way_gain=np.array([1.0, 0.25]),
        solid_angle_sr=np.array([1e-4, 2e-4]),
        column=[1, 0],
        row=[0, 0],
        column_count=2,
        angles={"across_track_rad": np.array([0.5, -0.5])},
    )
    fan = render_fan(
        _seabed(3.0 + h),
        rays,
        pose,
        range_min_m=0.0,
        range_max_m=20.0,
        range_bin_count=20,
        top_k=1,
        frequency_hz=f,
        water=water,
        backend="reference",
        device=None,
    )
    alpha = absorption_db_per_m(
        f,
        temperature_c=water.temperature_c,
        salinity_psu=water.salinity_psu,
        depth_m=3.0,
        ph=water.ph,
    )
    k = int(h)  # bin of R = h with 1 m bins
    for column, g2, domega, angle in ((1, 1.0, 1e-4, 0.5), (0, 0.25, 2e-4, -0.5)):
        expected = mu * g2 * domega / (h * h) * 10.0 ** (-alpha * 2 * h / 10.0)
        got = fan.channels["linear_return"][k, column]
        assert got == pytest.approx(expected, rel=1e-12)
        assert fan.channels["primary_across_track_rad"][k, column] == angle
        assert fan.channels["primary_range_m"][k, column] == h
    assert int(fan.channels["sample_count"].sum()) == 2


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"directions": np.array([[0.0, 0.0, 2.0]])}, "directions"),
        ({"two_way_gain": np.array([-1.0])}, "two_way_gain"),
        ({"solid_angle_sr": np.array([np.nan])}, "solid_angle_sr"),
        ({"column": [2]}, "column"),
        ({"row": [-1]}, "row"),
        ({"column_count": 0}, "column_count"),
        ({"angles": {"Bad": np.array([0.0])}}, "angles"),
    ],
)
def test_bad_rays_are_refused_naming_the_argument(change: dict, field: str) -> None:
    args = dict(
        directions=np.array([[0.0, 0.0, 1.0]]),
        two_way_gain=np.array([1.0]),
        solid_angle_sr=np.array([1.0]),
        column=[0],
        row=[0],
        column_count=1,
        angles={"a": np.array([0.0])},
    )
    args.update(change)
    with pytest.raises(ValueError, match=field):
        fan_rays(**args)


def test_two_rays_of_one_column_with_the_same_row_are_refused() -> None:
    with pytest.raises(ValueError, match="row"):
        fan_rays(
            directions=np.array([[0.0, 0.0, 1.0]] * 2),
            two_way_gain=np.ones(2),
            solid_angle_sr=np.ones(2),
            column=[0, 0],
            row=[1, 1],
            column_count=1,
            angles={},
        )
