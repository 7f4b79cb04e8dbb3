"""The imaging sonar's channel rules: the primary hit point rebuilt exactly from the
frame's range, elevation, bearing tables and pose, on every backend's frames."""

from __future__ import annotations

import numpy as np
import pytest
from sonar_cases import imaging_sonar_spec, seabed

from leviathan.frames import Transform
from leviathan.geometry import box_mesh
from leviathan.materials import TEST_LAMBERT_BRIGHT
from leviathan.scene import Instance, Scene
from leviathan.sensors import sensor_declarations
from leviathan.sonar import render
from leviathan.sonar._rebuild import rebuild_primary_hit_point


def _frame(backend: str, *, roll_pitch_yaw: tuple[float, float, float]) -> object:
    crate_pose = Transform.from_euler(0.0, 0.0, 0.3, translation=(9.0, 2.0, 27.0))
    box = Instance("crate", box_mesh((2.0, 1.5, 1.0)), crate_pose, "crate", TEST_LAMBERT_BRIGHT)
    scene = Scene([seabed(z=30.0, tilt_rad=0.05), box])
    spec = imaging_sonar_spec(bearing_count=24, elevation_sample_count=96, range_bin_count=64)
    pose = Transform.from_euler(*roll_pitch_yaw, translation=(1.5, -0.5, 20.0))
    return render(
        scene, spec, pose, sensor_id="v/sonar", sample_index=3, time_ns=0, backend=backend
    )


def _channels(frame: object) -> dict[str, np.ndarray]:
    return {name: np.asarray(frame[name]) for name in frame.channels}


@pytest.mark.parametrize("backend", ["reference", "warp"])
@pytest.mark.parametrize("attitude", [(0.0, -0.5, 0.1), (0.2, -0.9, -2.5)])
def test_the_hit_point_is_rebuilt_bit_for_bit(backend: str, attitude: tuple) -> None:
    frame = _frame(backend, roll_pitch_yaw=attitude)
    channels = _channels(frame)
    assert np.count_nonzero(channels["sample_count"]) > 100  # the seabed and the crate
    rebuilt = rebuild_primary_hit_point(channels, frame.metadata)
    assert rebuilt is not None
    assert rebuilt.tobytes() == channels["primary_hit_point_world"].tobytes()


def test_the_imaging_sonar_declares_the_rule() -> None:
    rules = sensor_declarations("imaging_sonar").channel_rules
    assert dict(rules) == {"primary_hit_point_world": rebuild_primary_hit_point}


def test_an_elevation_off_the_table_or_a_missing_input_gives_no_rebuild() -> None:
    frame = _frame("reference", roll_pitch_yaw=(0.0, -0.5, 0.1))
    channels = _channels(frame)
    r, b = np.argwhere(channels["sample_count"] > 0)[0]
    off = dict(channels, primary_elevation_rad=channels["primary_elevation_rad"].copy())
    off["primary_elevation_rad"][r, b] = np.nextafter(off["primary_elevation_rad"][r, b], 1.0)
    assert rebuild_primary_hit_point(off, frame.metadata) is None
    missing = {k: v for k, v in channels.items() if k != "primary_range_m"}
    assert rebuild_primary_hit_point(missing, frame.metadata) is None
    no_pose = {k: v for k, v in frame.metadata.items() if k != "T_world_sensor"}
    assert rebuild_primary_hit_point(channels, no_pose) is None
    narrow = dict(frame.metadata, bearing_rad=list(frame.metadata["bearing_rad"])[:-1])
    assert rebuild_primary_hit_point(channels, narrow) is None
