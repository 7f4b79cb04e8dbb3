"""Side-scan lines in the datasets: HDF5 with the complete truth, MCAP read by rosbags."""

from __future__ import annotations

import math

import numpy as np
import pytest
from mcap_helpers import decoded_messages
from world_cases import autopilot_setup, seabed_scene, seabed_world, with_sensor

from leviathan.catalogue import get_vehicle
from leviathan.datasets.hdf5 import Hdf5Writer, read_hdf5
from leviathan.datasets.mcap import McapWriter
from leviathan.ros import frd_to_acoustic
from leviathan.side_scan import SIDE_SCAN_CHANNEL_NAMES, SideScanLine
from leviathan.specs import ScheduleSpec
from leviathan.world import World

TICKS = 24


def _world(period_ns: int = 50_000_000) -> World:
    spec = with_sensor(
        get_vehicle("reference_mapping_auv"),
        "side_scan",
        across_track_sample_count=1601,
        range_max_m=30.0,
        range_bin_count=120,
        schedule=ScheduleSpec(period_ns=period_ns),
    )
    return seabed_world(
        autopilot_setup("mapper", spec, position_ned_m=(15.0, -6.0, 20.0)),
        seed=5,
        environment=seabed_scene(mover=False),
        tracing_backend="reference",
    )


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory):
    world = _world()
    groups = world.step(TICKS)
    tracks = [world.track_states(n, from_tick=0) for n in world.vehicle_names]
    vehicles = {n: world.vehicle_spec(n) for n in world.vehicle_names}
    folder = tmp_path_factory.mktemp("side_scan")
    with Hdf5Writer(folder / "run.h5", vehicles=vehicles, manifest={"job": "t"}) as writer:
        writer.write(groups, tracks)
    with McapWriter(folder / "run.mcap", vehicles=vehicles, manifest={"job": "t"}) as writer:
        writer.write(groups, tracks)
    lines = [g.samples["mapper/side_scan"] for g in groups if "mapper/side_scan" in g.samples]
    return folder, groups, lines


def test_the_world_samples_side_scan_lines_on_schedule(run) -> None:
    _, _, lines = run
    assert len(lines) >= 4
    assert all(isinstance(line, SideScanLine) for line in lines)
    assert [line.time_ns for line in lines] == [k * 50_000_000 for k in range(len(lines))]
    assert lines[0].shape == (2, 120)
    # The box of the scene (15, 0, 29) lies 6 m to starboard of the track.
    labels = lines[0].metadata["semantic_labels"]
    seen = {labels[i] for line in lines for i in line["primary_semantic"].ravel() if i >= 0}
    assert {"seabed", "target"} <= seen


def test_hdf5_keeps_every_line_with_its_complete_truth(run) -> None:
    folder, _groups, lines = run
    back = [
        g.samples["mapper/side_scan"]
        for g in read_hdf5(folder / "run.h5").groups()
        if "mapper/side_scan" in g.samples
    ]
    assert len(back) == len(lines)
    for original, rebuilt in zip(lines, back, strict=True):
        assert isinstance(rebuilt, SideScanLine)
        assert set(rebuilt.channels) == set(original.channels)
        assert set(original.channels) == set(SIDE_SCAN_CHANNEL_NAMES) - {"speckle_return"}
        for name, a in original.channels.items():
            assert rebuilt[name].dtype == a.dtype and rebuilt[name].tobytes() == a.tobytes(), name
        assert rebuilt.content_hash == original.content_hash
        assert rebuilt.metadata["altitude_m"] == original.metadata["altitude_m"]


def test_mcap_projected_sonar_image_with_two_beams_read_by_rosbags(run) -> None:
    folder, _, lines = run
    decoded = [
        message
        for topic, messages in decoded_messages(folder / "run.mcap").items()
        if topic.endswith("side_scan")
        for message in messages
    ]
    assert [name for name, _ in decoded] == ["marine_acoustic_msgs/msg/ProjectedSonarImage"] * len(
        lines
    )
    for line, (_, msg) in zip(lines, decoded, strict=True):
        assert msg.header.stamp.sec * 10**9 + msg.header.stamp.nanosec == line.time_ns
        assert msg.image.beam_count == 2 and msg.image.dtype == 8
        image = np.frombuffer(bytes(msg.image.data), dtype="<f4").reshape(120, 2)
        want = line["linear_return"].T.astype("<f4")
        assert image.tobytes() == want.tobytes()
        edges = np.asarray(line.metadata["range_bin_edges_m"])
        np.testing.assert_array_equal(
            np.asarray(msg.ranges), ((edges[:-1] + edges[1:]) * 0.5).astype(np.float32)
        )
        dep = math.radians(20.0)
        axes = frd_to_acoustic(
            np.array([[0.0, -math.cos(dep), math.sin(dep)], [0.0, math.cos(dep), math.sin(dep)]])
        )
        got = np.array([[d.x, d.y, d.z] for d in msg.beam_directions])
        np.testing.assert_allclose(got, axes, atol=1e-15)
        assert msg.ping_info.frequency == pytest.approx(400e3)


def test_a_ping_period_shorter_than_the_two_way_time_is_refused_naming_the_field() -> None:
    # 2 * 30 m / ~1500 m/s is about 40 ms: refused when the World is created.
    with pytest.raises(ValueError, match=r"mapper/side_scan\.schedule\.period_ns.*ns"):
        _world(period_ns=30_000_000)
