"""render_track: a straight track's lines are render() at each ping's pose on the schedule."""

from __future__ import annotations

import math

import numpy as np
import pytest
from side_scan_cases import box_on_seabed, seabed, side_scan_spec

from leviathan.frames import Transform
from leviathan.scene import Scene
from leviathan.side_scan import MAX_TRACK_PINGS, render, render_track
from leviathan.specs import MountSpec, ScheduleSpec, WaterSpec

SPEC = side_scan_spec(
    across_track_sample_count=601,
    along_track_sample_count=1,
    range_bin_count=60,
    schedule=ScheduleSpec(period_ns=100_000_000, phase_ns=30_000_000),
    mount=MountSpec(translation_m=(0.5, 0.0, 0.2)),
)
SCENE = Scene([seabed(20.0), box_on_seabed(20.0, y_near=6.0, width=2.0, height=1.0)])


def _track(**over) -> tuple:
    args = dict(position_ned_m=(1.0, -2.0, 10.0), rpy_deg=(0.0, 0.0, 30.0))
    args.update(speed_m_per_s=2.0, ping_count=4, backend="reference")
    args.update(over)
    return render_track(SCENE, SPEC, **args)


def test_pings_follow_the_schedule_and_the_heading_at_the_declared_speed() -> None:
    lines = _track()
    assert [line.sample_index for line in lines] == [0, 1, 2, 3]
    assert [line.time_ns for line in lines] == [30_000_000 + k * 100_000_000 for k in range(4)]
    assert {line.sensor_id for line in lines} == {"track/side_scan"}
    sensors = np.array([line.metadata["T_world_sensor"]["translation"] for line in lines])
    assert sensors.dtype == np.float64 and sensors.shape == (4, 3)
    heading = np.array([math.cos(math.radians(30.0)), math.sin(math.radians(30.0)), 0.0])
    # 2 m/s x 0.1 s between pings along the heading; the mount 0.5 m ahead of the body.
    np.testing.assert_allclose(np.diff(sensors, axis=0), np.tile(0.2 * heading, (3, 1)), atol=1e-12)
    first = np.array([1.0, -2.0, 10.0]) + 2.0 * 0.03 * heading + 0.5 * heading + [0, 0, 0.2]
    np.testing.assert_allclose(sensors[0], first, atol=1e-12)


def test_each_line_is_the_render_at_its_pose_bit_for_bit() -> None:
    for line in _track(ping_count=2):
        pose = Transform.from_dict(line.metadata["T_world_sensor"])
        again = render(
            SCENE,
            SPEC,
            pose,
            sensor_id=line.sensor_id,
            sample_index=line.sample_index,
            time_ns=line.time_ns,
            backend="reference",
        )
        assert again.content_hash == line.content_hash


def test_a_still_vehicle_pings_in_place() -> None:
    lines = _track(speed_m_per_s=0.0, ping_count=3)
    poses = [line.metadata["T_world_sensor"] for line in lines]
    assert poses[0] == poses[1] == poses[2]
    assert len({line.content_hash for line in lines}) == 3  # the ids differ, the pixels not
    np.testing.assert_array_equal(
        lines[0].channels["linear_return"], lines[2].channels["linear_return"], strict=True
    )


@pytest.mark.parametrize(
    ("over", "field"),
    [
        ({"ping_count": 0}, "ping_count"),
        ({"ping_count": MAX_TRACK_PINGS + 1}, "ping_count"),
        ({"ping_count": True}, "ping_count"),
        ({"speed_m_per_s": -1.0}, "speed_m_per_s"),
        ({"speed_m_per_s": math.nan}, "speed_m_per_s"),
        ({"position_ned_m": (0.0, 0.0)}, "position_ned_m"),
        ({"rpy_deg": (0.0, math.inf, 0.0)}, r"rpy_deg\[1\]"),
    ],
)
def test_bad_track_arguments_are_refused_naming_them(over: dict, field: str) -> None:
    with pytest.raises(ValueError, match=rf"^{field}: "):
        _track(**over)


def test_a_period_below_the_two_way_time_is_refused_at_the_first_ping() -> None:
    fast = SPEC.model_copy(update={"schedule": ScheduleSpec(period_ns=30_000_000)})
    with pytest.raises(ValueError, match=r"^track/side_scan\.schedule\.period_ns: expected"):
        render_track(
            SCENE,
            fast,
            position_ned_m=(0.0, 0.0, 10.0),
            rpy_deg=(0.0, 0.0, 0.0),
            speed_m_per_s=1.0,
            ping_count=2,
            water=WaterSpec(),
            backend="reference",
        )
