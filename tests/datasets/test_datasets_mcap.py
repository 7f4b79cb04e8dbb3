"""MCAP export read back with an independent reader: the plain mcap reader and rosbags' CDR.

Nothing here decodes with mcap-ros2-support (the writer's serialiser): records come
from ``mcap.reader.make_reader`` and payloads are deserialised by a rosbags type
store built only from the schemas stored in the file. Every field of every message
is compared with the samples and tracks it came from.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from mcap.reader import make_reader
from rosbags.typesys import Stores, get_types_from_msg, get_typestore
from world_cases import (
    inspector_setup,
    seabed_scene,
    seabed_world,
    small_survey_spec,
    survey_setup,
    with_sensor,
)

from leviathan import ros as rf
from leviathan.acoustics import sound_speed_m_per_s
from leviathan.datasets import DatasetError
from leviathan.datasets.mcap import McapWriter
from leviathan.frames import R_SENSOR_CAMERA, Transform, rotation_from_quaternion
from leviathan.ros import MESSAGE_DEFINITIONS, message_definition, ros_type_name
from leviathan.sonar import SonarFrame
from leviathan.specs import WaterSpec
from leviathan.world import (
    CaptureGroup,
    VehicleTrackRecord,
    World,
)

FIRST_CALL_TICKS = 14
SECOND_CALL_TICKS = 16
MANIFEST = {"job": "test", "seed": 7}
FINAL_MANIFEST = {"job": "test", "seed": 7, "run_hash": "abc"}


# --------------------------------------------------------------------------- the recorded run


def _world() -> World:
    environment = seabed_scene(
        water=WaterSpec(temperature_c=12.0, salinity_psu=34.0, ph=8.0),
        seabed_divisions=4,
        box_ned_m=(12.0, 0.0, 28.0),
        mover=False,
    )
    return seabed_world(
        survey_setup(
            small_survey_spec(bearing_count=16, elevation_sample_count=4, range_bin_count=32)
        ),
        inspector_setup(
            focal_px=12.0,
            speed_m_per_s=0.2,
            depth_m=28.0,
            heading_rad=0.3,
            position_ned_m=(6.0, -1.0, 28.0),
            rpy_rad=(0.0, 0.0, 0.2),
        ),
        seed=7,
        environment=environment,
    )


@dataclass
class Bag:
    """An exported run: its sources and everything read back from the file."""

    path: Path
    vehicles: dict[str, Any]
    groups: list[CaptureGroup]
    tracks: dict[str, VehicleTrackRecord]
    profile: str
    summary: Any
    channels: dict[str, Any]  # topic -> mcap Channel
    schemas: dict[str, Any]  # topic -> mcap Schema
    messages: dict[str, list[tuple[int, int, Any]]]  # topic -> (log, publish, decoded)
    file_order: list[int]  # log times in the order the messages lie in the file
    metadata: dict[str, dict[str, str]]


def _read(path: Path) -> tuple[Any, ...]:
    """Records with the plain mcap reader; payloads with a rosbags store from the file's schemas."""
    with open(path, "rb") as stream:
        reader = make_reader(stream, validate_crcs=True)
        profile = reader.get_header().profile
        summary = reader.get_summary()
        store = get_typestore(Stores.EMPTY)
        for schema in summary.schemas.values():
            store.register(get_types_from_msg(schema.data.decode(), schema.name))
        channels = {c.topic: c for c in summary.channels.values()}
        schemas = {c.topic: summary.schemas[c.schema_id] for c in summary.channels.values()}
        messages: dict[str, list[tuple[int, int, Any]]] = {topic: [] for topic in channels}
        order = []
        for schema, channel, message in reader.iter_messages(log_time_order=False):
            decoded = store.deserialize_cdr(message.data, schema.name)
            messages[channel.topic].append((message.log_time, message.publish_time, decoded))
            order.append(message.log_time)
        metadata = {m.name: dict(m.metadata) for m in reader.iter_metadata()}
    return profile, summary, channels, schemas, messages, order, metadata


@pytest.fixture(scope="module")
def bag(tmp_path_factory: pytest.TempPathFactory) -> Bag:
    world = _world()
    vehicles = {name: world.vehicle_spec(name) for name in world.vehicle_names}
    path = tmp_path_factory.mktemp("mcap") / "run.mcap"
    first = world.step(FIRST_CALL_TICKS)
    first_tracks = [world.track_states(n, from_tick=0) for n in world.vehicle_names]
    second = world.step(SECOND_CALL_TICKS)
    second_tracks = [
        world.track_states(n, from_tick=FIRST_CALL_TICKS + 1) for n in world.vehicle_names
    ]
    with McapWriter(path, vehicles=vehicles, manifest=MANIFEST) as writer:
        writer.write(first, first_tracks)  # two calls: the second continues the first
        writer.write(second, second_tracks)
        writer.close(manifest=FINAL_MANIFEST)
    tracks = {n: world.track_states(n, from_tick=0) for n in world.vehicle_names}
    return Bag(path, vehicles, first + second, tracks, *_read(path))


def _samples(bag: Bag, sensor_id: str) -> list[Any]:
    return [g.samples[sensor_id] for g in bag.groups if sensor_id in g.samples]


def _stamp_ns(header: Any) -> int:
    return int(header.stamp.sec) * 1_000_000_000 + int(header.stamp.nanosec)


def _decoded(bag: Bag, topic: str) -> list[Any]:
    return [m for _, _, m in bag.messages[topic]]


def _xyz(v: Any) -> list[float]:
    return [v.x, v.y, v.z]


def _xyzw(q: Any) -> list[float]:
    return [q.x, q.y, q.z, q.w]


def _f32(values: Any) -> np.ndarray:
    return np.asarray(values, dtype=np.float64).astype(np.float32)


def _expected_topics(vehicles: dict[str, Any]) -> dict[str, str]:
    topics = {"/tf_static": "tf2_msgs/msg/TFMessage", "/tf": "tf2_msgs/msg/TFMessage"}
    per_kind = {
        "imaging_sonar": {"": "marine_acoustic_msgs/msg/ProjectedSonarImage"},
        "dvl": {"": "marine_acoustic_msgs/msg/Dvl"},
        "imu": {"": "sensor_msgs/msg/Imu"},
        "pressure": {"": "sensor_msgs/msg/FluidPressure"},
        "camera": {
            "/image": "sensor_msgs/msg/Image",
            "/depth": "sensor_msgs/msg/Image",
            "/camera_info": "sensor_msgs/msg/CameraInfo",
        },
    }
    for name, spec in vehicles.items():
        topics[f"/{name}/odometry"] = "nav_msgs/msg/Odometry"
        topics[f"/{name}/odometry_ned"] = "nav_msgs/msg/Odometry"
        for sensor in spec.sensors:
            for suffix, type_name in per_kind[sensor.kind].items():
                topics[f"/{name}/{sensor.name}{suffix}"] = type_name
    return topics


# --------------------------------------------------------------------------- container


def test_file_uses_the_ros2_profile(bag: Bag) -> None:
    assert bag.profile == "ros2"


def test_every_topic_is_present_with_its_message_type(bag: Bag) -> None:
    expected = _expected_topics(bag.vehicles)
    assert {topic: s.name for topic, s in bag.schemas.items()} == expected


def test_schemas_are_ros2msg_and_messages_cdr(bag: Bag) -> None:
    for topic, channel in bag.channels.items():
        assert channel.message_encoding == "cdr", topic
        assert bag.schemas[topic].encoding == "ros2msg", topic


def test_schema_text_is_the_complete_definition(bag: Bag) -> None:
    for schema in bag.schemas.values():
        assert schema.data.decode() == message_definition(schema.name)


def test_chunks_are_zstd_compressed(bag: Bag) -> None:
    compressions = {index.compression for index in bag.summary.chunk_indexes}
    assert compressions == {"zstd"}


def test_every_channel_offers_its_qos_as_ros2_bag_records_it(bag: Bag) -> None:
    for topic, channel in bag.channels.items():
        qos = channel.metadata["offered_qos_profiles"]
        assert "reliability: 1\n" in qos, topic
        durability = "durability: 1\n" if topic == "/tf_static" else "durability: 2\n"
        assert durability in qos, topic  # 1 transient local (latched), 2 volatile


def test_message_counts_match_the_sources(bag: Bag) -> None:
    expected = {"/tf_static": 1, "/tf": len(bag.tracks["survey"])}
    for name, track in bag.tracks.items():
        expected[f"/{name}/odometry"] = expected[f"/{name}/odometry_ned"] = len(track)
    for topic in _expected_topics(bag.vehicles):
        parts = topic.split("/")
        if len(parts) >= 3 and parts[2] not in ("odometry", "odometry_ned"):
            expected[topic] = len(_samples(bag, f"{parts[1]}/{parts[2]}"))
    assert {t: len(m) for t, m in bag.messages.items()} == expected
    assert all(count > 0 for count in expected.values())


def test_log_and_publish_times_are_the_header_stamps(bag: Bag) -> None:
    for topic, messages in bag.messages.items():
        for log_time, publish_time, message in messages:
            assert publish_time == log_time, topic
            header = (
                message.transforms[0].header if hasattr(message, "transforms") else (message.header)
            )
            assert _stamp_ns(header) == log_time, topic


def test_messages_lie_in_time_order(bag: Bag) -> None:
    assert bag.file_order == sorted(bag.file_order)


def test_sample_stamps_are_exact_to_the_nanosecond(bag: Bag) -> None:
    for topic, sensor_id in (("/survey/imu", "survey/imu"), ("/survey/sonar", "survey/sonar")):
        stamps = [(m.header.stamp.sec, m.header.stamp.nanosec) for m in _decoded(bag, topic)]
        times = [s.time_ns for s in _samples(bag, sensor_id)]
        assert stamps == [(t // 1_000_000_000, t % 1_000_000_000) for t in times]


def test_manifest_record_holds_the_final_manifest(bag: Bag) -> None:
    assert json.loads(bag.metadata["leviathan.manifest"]["json"]) == FINAL_MANIFEST


def test_vehicle_documents_are_stored(bag: Bag) -> None:
    stored = bag.metadata["leviathan.vehicles"]
    assert {n: json.loads(t) for n, t in stored.items()} == {
        n: spec.model_dump(mode="json") for n, spec in bag.vehicles.items()
    }


# --------------------------------------------------------------------------- definitions


STANDARD = [t for t in MESSAGE_DEFINITIONS if not t.startswith("marine_acoustic_msgs/")]


@pytest.mark.parametrize("store_name", [Stores.ROS2_HUMBLE, Stores.ROS2_JAZZY])
@pytest.mark.parametrize("type_name", STANDARD)
def test_standard_definitions_match_the_released_packages(type_name: str, store_name: Any) -> None:
    released = get_typestore(store_name).fielddefs
    ours = get_types_from_msg(message_definition(type_name), ros_type_name(type_name))
    for name, definition in ours.items():
        assert definition == released[name], name


# Field lists of the ROS 2 marine_acoustic_msgs package (apl-ocean-engineering/marine_msgs,
# marine_acoustic_msgs/msg/*.msg), transcribed from the .msg files as (type, name).
MARINE = {
    "marine_acoustic_msgs/msg/ProjectedSonarImage": [
        ("std_msgs/msg/Header", "header"),
        ("marine_acoustic_msgs/msg/PingInfo", "ping_info"),
        ("geometry_msgs/msg/Vector3[]", "beam_directions"),
        ("float32[]", "ranges"),
        ("marine_acoustic_msgs/msg/SonarImageData", "image"),
    ],
    "marine_acoustic_msgs/msg/PingInfo": [
        ("float32", "frequency"),
        ("float32", "sound_speed"),
        ("float32[]", "tx_beamwidths"),
        ("float32[]", "rx_beamwidths"),
    ],
    "marine_acoustic_msgs/msg/SonarImageData": [
        ("bool", "is_bigendian"),
        ("uint32", "dtype"),
        ("uint32", "beam_count"),
        ("uint8[]", "data"),
    ],
    "marine_acoustic_msgs/msg/Dvl": [
        ("std_msgs/msg/Header", "header"),
        ("uint8", "velocity_mode"),
        ("uint8", "dvl_type"),
        ("geometry_msgs/msg/Vector3", "velocity"),
        ("float64[9]", "velocity_covar"),
        ("float64", "altitude"),
        ("float64", "course_gnd"),
        ("float64", "speed_gnd"),
        ("uint8", "num_good_beams"),
        ("float32", "sound_speed"),
        ("bool", "beam_ranges_valid"),
        ("bool", "beam_velocities_valid"),
        ("geometry_msgs/msg/Vector3[4]", "beam_unit_vec"),
        ("float64[4]", "range"),
        ("float32[4]", "range_covar"),
        ("float32[4]", "beam_quality"),
        ("float32[4]", "beam_velocity"),
        ("float32[4]", "beam_velocity_covar"),
    ],
}
MARINE_CONSTANTS = {
    "marine_acoustic_msgs/msg/SonarImageData": [
        (f"DTYPE_{name}", "uint32", value)
        for value, name in enumerate(
            ("UINT8 INT8 UINT16 INT16 UINT32 INT32 UINT64 INT64 FLOAT32 FLOAT64").split()
        )
    ],
    "marine_acoustic_msgs/msg/Dvl": [
        ("DVL_MODE_BOTTOM", "uint8", 1),
        ("DVL_MODE_WATER", "uint8", 2),
        ("DVL_TYPE_PISTON", "uint8", 0),
        ("DVL_TYPE_PHASED_ARRAY", "uint8", 1),
    ],
}


def _field_type(desc: Any) -> str:
    kind, detail = desc
    if kind == 1:  # base type
        return detail[0]
    if kind == 2:  # message
        return detail
    (inner_kind, inner), count = detail
    inner_name = inner[0] if inner_kind == 1 else inner
    return f"{inner_name}[{count if kind == 3 else ''}]"


@pytest.mark.parametrize("type_name", sorted(MARINE))
def test_marine_acoustic_definitions_have_the_published_fields(type_name: str) -> None:
    top = "marine_acoustic_msgs/msg/ProjectedSonarImage"
    if type_name == "marine_acoustic_msgs/msg/Dvl":
        top = type_name
    constants, fields = get_types_from_msg(message_definition(top), top)[type_name]
    assert [(_field_type(desc), name) for name, desc in fields] == MARINE[type_name]
    assert constants == MARINE_CONSTANTS.get(type_name, [])


# --------------------------------------------------------------------------- sonar


def test_sonar_messages_match_the_frames(bag: Bag) -> None:
    frames = _samples(bag, "survey/sonar")
    for frame, message in zip(frames, _decoded(bag, "/survey/sonar"), strict=True):
        meta = frame.metadata
        spec = meta["spec"]
        assert message.header.frame_id == "survey/sonar_acoustic"
        bearings = np.asarray(meta["bearing_rad"]).tolist()
        directions = [_xyz(d) for d in message.beam_directions]
        assert directions == [[0.0, math.sin(b), math.cos(b)] for b in bearings]
        edges = np.asarray(meta["range_bin_edges_m"])
        np.testing.assert_array_equal(message.ranges, _f32((edges[:-1] + edges[1:]) / 2.0))
        assert message.ranges.dtype == np.float32
        ping = message.ping_info
        assert ping.frequency == np.float32(spec["frequency_hz"])
        water = meta["water"]
        speed = sound_speed_m_per_s(
            temperature_c=water["temperature_c"],
            salinity_psu=water["salinity_psu"],
            depth_m=meta["T_world_sensor"]["translation"][2],
        )
        assert ping.sound_speed == np.float32(speed)
        vertical = min(
            spec["beam_pattern"]["elevation_3db_full_width_deg"], spec["elevation_aperture_deg"]
        )
        np.testing.assert_array_equal(
            ping.tx_beamwidths, _f32([math.radians(vertical)] * len(bearings))
        )
        assert len(ping.rx_beamwidths) == 0
        image = message.image
        assert (image.dtype, image.beam_count, image.is_bigendian) == (8, len(bearings), False)
        assert bytes(image.data) == frame["linear_return"].astype("<f4").tobytes()
        rows = np.frombuffer(bytes(image.data), dtype="<f4").reshape(frame.shape)
        np.testing.assert_array_equal(rows, frame["linear_return"].astype(np.float32))


def test_sonar_missing_cells_are_written_as_nan(bag: Bag, tmp_path: Path) -> None:
    frame = _samples(bag, "survey/sonar")[0]
    linear = np.array(frame["linear_return"])
    linear[3, 5] = linear[0, 0] = np.nan
    gappy = SonarFrame(
        channels={**frame.channels, "linear_return": linear}, metadata=frame.metadata
    )
    group = CaptureGroup(tick=0, time_ns=frame.time_ns, samples={"survey/sonar": gappy})
    path = tmp_path / "gappy.mcap"
    with McapWriter(path, vehicles=bag.vehicles, manifest={}) as writer:
        writer.write([group], [])
    message = _read(path)[4]["/survey/sonar"][0][2]
    rows = np.frombuffer(bytes(message.image.data), dtype="<f4").reshape(frame.shape)
    np.testing.assert_array_equal(np.isnan(rows), np.isnan(linear))


# --------------------------------------------------------------------------- DVL


def test_dvl_messages_match_the_samples(bag: Bag) -> None:
    samples = _samples(bag, "survey/dvl")
    for sample, message in zip(samples, _decoded(bag, "/survey/dvl"), strict=True):
        ch = sample.channels
        assert int(ch["lock"]) == 1  # the case this test covers; no lock is tested below
        assert message.header.frame_id == "survey/dvl_acoustic"
        assert (message.velocity_mode, message.dvl_type) == (1, 0)  # bottom track, piston
        vx, vy, vz = ch["velocity_sensor_m_s"].tolist()
        assert _xyz(message.velocity) == [-vz, vy, vx]  # z = boresight, x = -z_frd
        std = sample.metadata["spec"]["velocity_noise_std_m_per_s"]
        np.testing.assert_array_equal(message.velocity_covar, (np.eye(3) * std * std).ravel())
        assert message.altitude == float(ch["altitude_m"])
        assert message.course_gnd == math.atan2(vy, -vz)
        assert message.speed_gnd == math.sqrt(-vz * -vz + vy * vy)
        valid = ch["beam_valid"].astype(bool)
        assert message.num_good_beams == int(valid.sum())
        assert message.sound_speed == 0.0
        assert (message.beam_ranges_valid, message.beam_velocities_valid) == (True, False)
        beams = np.asarray(sample.metadata["beam_directions_sensor"])
        assert [_xyz(v) for v in message.beam_unit_vec] == [[-z, y, x] for x, y, z in beams]
        np.testing.assert_array_equal(message.range, ch["beam_range_m"])
        np.testing.assert_array_equal(message.range_covar, np.where(valid, 0.0, -1.0))
        np.testing.assert_array_equal(message.beam_quality, valid.astype(np.float32))
        assert np.isnan(message.beam_velocity).all()
        np.testing.assert_array_equal(message.beam_velocity_covar, [-1.0] * 4)


def test_dvl_without_lock_writes_unknown_velocity(bag: Bag, tmp_path: Path) -> None:
    real = _samples(bag, "survey/dvl")[0]
    channels = dict(real.channels)
    ranges = np.array(real["beam_range_m"])
    ranges[2:] = np.nan
    channels.update(
        velocity_sensor_m_s=np.full(3, np.nan),
        beam_range_m=ranges,
        beam_valid=np.array([1, 1, 0, 0], dtype=np.uint8),
        lock=np.array(0, dtype=np.uint8),
    )
    lost = replace(real, channels=channels)
    path = tmp_path / "lost.mcap"
    with McapWriter(path, vehicles=bag.vehicles, manifest={}) as writer:
        writer.write([CaptureGroup(tick=0, time_ns=real.time_ns, samples={"survey/dvl": lost})], [])
    message = _read(path)[4]["/survey/dvl"][0][2]
    assert np.isnan(_xyz(message.velocity)).all()
    np.testing.assert_array_equal(message.velocity_covar, [-1.0] * 9)  # "not known"
    assert math.isnan(message.course_gnd) and math.isnan(message.speed_gnd)
    assert message.num_good_beams == 2
    np.testing.assert_array_equal(message.range_covar, [0.0, 0.0, -1.0, -1.0])


# --------------------------------------------------------------------------- IMU


def test_imu_messages_match_the_samples_in_flu(bag: Bag) -> None:
    samples = _samples(bag, "survey/imu")
    for sample, message in zip(samples, _decoded(bag, "/survey/imu"), strict=True):
        assert message.header.frame_id == "survey/imu"
        gx, gy, gz = sample["angular_rate_sensor_rad_s"].tolist()
        fx, fy, fz = sample["specific_force_sensor_m_s2"].tolist()
        assert _xyz(message.angular_velocity) == [gx, -gy, -gz]
        assert _xyz(message.linear_acceleration) == [fx, -fy, -fz]
        assert _xyzw(message.orientation) == [0.0, 0.0, 0.0, 1.0]
        np.testing.assert_array_equal(message.orientation_covariance, [-1.0] + [0.0] * 8)
        spec = sample.metadata["spec"]
        gyro, accel = spec["gyro_noise_std_rad_per_s"], spec["accel_noise_std_m_per_s2"]
        np.testing.assert_array_equal(
            message.angular_velocity_covariance, (np.eye(3) * gyro * gyro).ravel()
        )
        np.testing.assert_array_equal(
            message.linear_acceleration_covariance, (np.eye(3) * accel * accel).ravel()
        )


def test_imu_at_rest_reads_gravity_up(bag: Bag) -> None:
    # REP 145: specific force, so a (nearly) level, slow vehicle reads about +9.81 on z (up).
    first = _decoded(bag, "/survey/imu")[0]
    assert first.linear_acceleration.z == pytest.approx(9.81, abs=0.1)


# --------------------------------------------------------------------------- camera


def test_camera_preview_is_rgb8(bag: Bag) -> None:
    samples = _samples(bag, "inspector/front_camera")
    for sample, message in zip(
        samples, _decoded(bag, "/inspector/front_camera/image"), strict=True
    ):
        rgb = sample.display["preview_srgb"]
        assert message.header.frame_id == "inspector/front_camera_optical"
        assert (message.height, message.width) == rgb.shape[:2]
        assert (message.encoding, message.is_bigendian, message.step) == ("rgb8", 0, 3 * 16)
        assert bytes(message.data) == rgb.tobytes()


def test_camera_depth_is_32fc1_with_inf_where_nothing_is_in_range(bag: Bag) -> None:
    samples = _samples(bag, "inspector/front_camera")
    for sample, message in zip(
        samples, _decoded(bag, "/inspector/front_camera/depth"), strict=True
    ):
        depth = sample["depth_z_m"]
        assert np.isnan(depth).any() and not np.isnan(depth).all()  # both cases are covered
        assert message.header.frame_id == "inspector/front_camera_optical"
        assert (message.encoding, message.is_bigendian, message.step) == ("32FC1", 0, 4 * 16)
        assert (message.height, message.width) == depth.shape
        expected = depth.astype(np.float32)
        expected[np.isnan(depth)] = np.inf  # REP 117: no object within range
        written = np.frombuffer(bytes(message.data), dtype="<f4").reshape(depth.shape)
        np.testing.assert_array_equal(written, expected)


def test_camera_info_holds_the_intrinsics(bag: Bag) -> None:
    samples = _samples(bag, "inspector/front_camera")
    topic = "/inspector/front_camera/camera_info"
    for sample, message in zip(samples, _decoded(bag, topic), strict=True):
        i = sample.metadata["intrinsics"]
        fx, fy, cx, cy = i["fx_px"], i["fy_px"], i["cx_px"], i["cy_px"]
        assert message.header.frame_id == "inspector/front_camera_optical"
        assert _stamp_ns(message.header) == sample.time_ns
        assert (message.height, message.width) == (i["height_px"], i["width_px"])
        assert message.distortion_model == "plumb_bob"
        np.testing.assert_array_equal(message.d, np.zeros(5))
        np.testing.assert_array_equal(message.k, [fx, 0, cx, 0, fy, cy, 0, 0, 1])
        np.testing.assert_array_equal(message.r, np.eye(3).ravel())
        np.testing.assert_array_equal(message.p, [fx, 0, cx, 0, 0, fy, cy, 0, 0, 0, 1, 0])
        assert (message.binning_x, message.binning_y) == (0, 0)
        roi = message.roi
        assert (roi.x_offset, roi.y_offset, roi.height, roi.width, roi.do_rectify) == (
            0,
            0,
            0,
            0,
            False,
        )


# --------------------------------------------------------------------------- ground truth


def _odometry(
    bag: Bag, vehicle: str, topic: str, frames: tuple[str, str]
) -> Iterator[tuple[int, Any]]:
    """``(track row, message)`` of each odometry message on ``/<vehicle>/<topic>``.

    Checks first what both odometry topics share: the ``(frame_id, child_frame_id)``
    given, the stamp of the track row and zero covariances.
    """
    times_ns = bag.tracks[vehicle].times_ns
    for k, message in enumerate(_decoded(bag, f"/{vehicle}/{topic}")):
        assert (message.header.frame_id, message.child_frame_id) == frames
        assert _stamp_ns(message.header) == int(times_ns[k])
        np.testing.assert_array_equal(message.pose.covariance, np.zeros(36))
        np.testing.assert_array_equal(message.twist.covariance, np.zeros(36))
        yield k, message


@pytest.mark.parametrize("vehicle", ["survey", "inspector"])
def test_ned_odometry_is_the_track_exactly(bag: Bag, vehicle: str) -> None:
    track = bag.tracks[vehicle]
    frames = ("world_ned", f"{vehicle}/base_link_frd")
    for k, message in _odometry(bag, vehicle, "odometry_ned", frames):
        assert _xyz(message.pose.pose.position) == track.position_ned_m[k].tolist()
        w, x, y, z = track.attitude_q[k].tolist()
        assert _xyzw(message.pose.pose.orientation) == [x, y, z, w]
        u = track.velocity_body[k].tolist()
        assert _xyz(message.twist.twist.linear) + _xyz(message.twist.twist.angular) == u


@pytest.mark.parametrize("vehicle", ["survey", "inspector"])
def test_enu_odometry_is_the_track_in_rep_103_frames(bag: Bag, vehicle: str) -> None:
    track = bag.tracks[vehicle]
    for k, message in _odometry(bag, vehicle, "odometry", ("map", f"{vehicle}/base_link")):
        n, e, d = track.position_ned_m[k].tolist()
        assert _xyz(message.pose.pose.position) == [e, n, -d]
        q = _xyzw(message.pose.pose.orientation)
        assert q == rf.quaternion_ned_frd_to_enu_flu(track.attitude_q[k]).tolist()
        np.testing.assert_allclose(
            rotation_from_quaternion([q[3], q[0], q[1], q[2]]),
            rf.R_ENU_NED @ rotation_from_quaternion(track.attitude_q[k]) @ rf.R_FLU_FRD,
            rtol=0.0,
            atol=1e-15,
        )
        u, v, w, p, qq, r = track.velocity_body[k].tolist()
        assert _xyz(message.twist.twist.linear) == [u, -v, -w]
        assert _xyz(message.twist.twist.angular) == [p, -qq, -r]


def test_tf_carries_every_vehicle_at_every_tick(bag: Bag) -> None:
    odometry = {n: _decoded(bag, f"/{n}/odometry") for n in bag.tracks}
    for k, message in enumerate(_decoded(bag, "/tf")):
        children = [t.child_frame_id for t in message.transforms]
        assert children == ["inspector/base_link", "survey/base_link"]
        for t in message.transforms:
            name = t.child_frame_id.split("/")[0]
            assert t.header.frame_id == "map"
            assert _stamp_ns(t.header) == int(bag.tracks[name].times_ns[k])
            pose = odometry[name][k].pose.pose
            assert _xyz(t.transform.translation) == _xyz(pose.position)
            assert _xyzw(t.transform.rotation) == _xyzw(pose.orientation)


def _static(bag: Bag) -> dict[str, tuple[str, Transform]]:
    """child -> (parent, T_parent_child) from the one /tf_static message."""
    (message,) = _decoded(bag, "/tf_static")
    out = {}
    for t in message.transforms:
        q = t.transform.rotation
        rotation = rotation_from_quaternion([q.w, q.x, q.y, q.z])
        out[t.child_frame_id] = (
            t.header.frame_id,
            Transform(rotation, _xyz(t.transform.translation)),
        )
    return out


def test_tf_static_edges_form_the_documented_tree(bag: Bag) -> None:
    expected = {"world_ned": "map"}
    for name, spec in bag.vehicles.items():
        expected[f"{name}/base_link_frd"] = f"{name}/base_link"
        for sensor in spec.sensors:
            sid = f"{name}/{sensor.name}"
            expected[f"{sid}_frd"] = f"{name}/base_link_frd"
            expected[sid] = f"{sid}_frd"
            if sensor.kind == "camera":
                expected[f"{sid}_optical"] = f"{sid}_frd"
            if sensor.kind in ("imaging_sonar", "dvl"):
                expected[f"{sid}_acoustic"] = f"{sid}_frd"
    static = _static(bag)
    (message,) = _decoded(bag, "/tf_static")
    assert len(message.transforms) == len(static)  # one parent per frame
    assert {child: parent for child, (parent, _) in static.items()} == expected


def test_tf_static_holds_the_mounts_and_axis_turns(bag: Bag) -> None:
    static = _static(bag)
    close = {"rtol": 0.0, "atol": 1e-15}
    np.testing.assert_allclose(static["world_ned"][1].rotation, rf.R_ENU_NED, **close)
    for name, spec in bag.vehicles.items():
        np.testing.assert_allclose(
            static[f"{name}/base_link_frd"][1].rotation, rf.R_FLU_FRD, **close
        )
        for sensor in spec.sensors:
            sid = f"{name}/{sensor.name}"
            mount = sensor.mount.transform()
            np.testing.assert_array_equal(static[f"{sid}_frd"][1].translation, mount.translation)
            np.testing.assert_allclose(static[f"{sid}_frd"][1].rotation, mount.rotation, **close)
            np.testing.assert_allclose(static[sid][1].rotation, rf.R_FLU_FRD, **close)
            if sensor.kind == "camera":
                np.testing.assert_allclose(
                    static[f"{sid}_optical"][1].rotation, R_SENSOR_CAMERA, **close
                )
            if sensor.kind in ("imaging_sonar", "dvl"):
                np.testing.assert_allclose(
                    static[f"{sid}_acoustic"][1].rotation, rf.R_FRD_ACOUSTIC, **close
                )


def _chain(bag: Bag, frame: str, time_ns: int) -> Transform:
    """T_map_frame at a time, composed from /tf and /tf_static."""
    static = _static(bag)
    vehicle = frame.split("/")[0]
    T = Transform.identity()
    while frame in static:
        parent, T_parent_frame = static[frame]
        T = T_parent_frame @ T
        frame = parent
    assert frame == f"{vehicle}/base_link"
    times = bag.tracks[vehicle].times_ns.tolist()
    message = _decoded(bag, "/tf")[times.index(time_ns)]
    (t,) = [t for t in message.transforms if t.child_frame_id == frame]
    q = t.transform.rotation
    T_map_base = Transform(
        rotation_from_quaternion([q.w, q.x, q.y, q.z]), _xyz(t.transform.translation)
    )
    return T_map_base @ T


@pytest.mark.parametrize(
    ("sensor_id", "frame_suffix", "T_sensor_frame"),
    [
        ("inspector/front_camera", "_optical", Transform(R_SENSOR_CAMERA)),
        ("survey/sonar", "_acoustic", Transform(rf.R_FRD_ACOUSTIC)),
        ("survey/dvl", "_acoustic", Transform(rf.R_FRD_ACOUSTIC)),
        ("survey/imu", "", Transform(rf.R_FLU_FRD.T)),
    ],
)
def test_header_frames_sit_where_the_samples_were_taken(
    bag: Bag, sensor_id: str, frame_suffix: str, T_sensor_frame: Transform
) -> None:
    for sample in _samples(bag, sensor_id):
        T_world_sensor = Transform.from_dict(sample.metadata["T_world_sensor"])
        expected = rf.T_MAP_WORLD_NED @ T_world_sensor @ T_sensor_frame
        got = _chain(bag, sensor_id + frame_suffix, sample.time_ns)
        np.testing.assert_allclose(got.rotation, expected.rotation, rtol=0.0, atol=1e-12)
        np.testing.assert_allclose(got.translation, expected.translation, rtol=0.0, atol=1e-9)


# --------------------------------------------------------------------------- refusals


def test_out_of_order_groups_abort_and_leave_no_file(bag: Bag, tmp_path: Path) -> None:
    path = tmp_path / "run.mcap"
    writer = McapWriter(path, vehicles=bag.vehicles, manifest={})
    writer.write(bag.groups[5:6], [])
    with pytest.raises(DatasetError, match=r"groups\[0\]\.time_ns.*not after"):
        writer.write(bag.groups[2:3], [])
    assert list(tmp_path.iterdir()) == []


def test_undeclared_vehicle_track_is_refused(bag: Bag, tmp_path: Path) -> None:
    path = tmp_path / "run.mcap"
    only_survey = {"survey": bag.vehicles["survey"]}
    with pytest.raises(DatasetError, match=r"tracks\[0\]\.name.*'inspector'.*not declared"):
        with McapWriter(path, vehicles=only_survey, manifest={}) as writer:
            writer.write([], [bag.tracks["inspector"]])
    assert list(tmp_path.iterdir()) == []


def test_a_track_entry_that_is_no_track_record_is_refused(bag: Bag, tmp_path: Path) -> None:
    writer = McapWriter(tmp_path / "run.mcap", vehicles=bag.vehicles, manifest={})
    with pytest.raises(TypeError, match=r"tracks\[0\]: expected a VehicleTrackRecord, got str"):
        writer.write([], ["survey"])
    assert list(tmp_path.iterdir()) == []


def test_undeclared_sensor_sample_is_refused(bag: Bag, tmp_path: Path) -> None:
    path = tmp_path / "run.mcap"
    only_survey = {"survey": bag.vehicles["survey"]}
    writer = McapWriter(path, vehicles=only_survey, manifest={})
    with pytest.raises(DatasetError, match=r"'inspector/front_camera'.*not declared"):
        writer.write(bag.groups[:1], [])
    assert list(tmp_path.iterdir()) == []


def test_track_rows_must_continue_the_last_call(bag: Bag, tmp_path: Path) -> None:
    track = bag.tracks["survey"]
    writer = McapWriter(tmp_path / "run.mcap", vehicles=bag.vehicles, manifest={})
    writer.write([], [track.rows(0, 5)])
    with pytest.raises(DatasetError, match=r"tracks\[0\]\.ticks\[0\]: expected tick 5"):
        writer.write([], [track.rows(6, 9)])
    assert list(tmp_path.iterdir()) == []


def test_a_refused_writer_stays_closed(bag: Bag, tmp_path: Path) -> None:
    writer = McapWriter(tmp_path / "run.mcap", vehicles=bag.vehicles, manifest={})
    writer.write(bag.groups[5:6], [])
    with pytest.raises(DatasetError):
        writer.write(bag.groups[2:3], [])
    with pytest.raises(DatasetError, match="closed"):
        writer.write(bag.groups[6:7], [])
    with pytest.raises(DatasetError, match="closed"):
        writer.close()


def test_exception_inside_with_keeps_the_previous_file(bag: Bag, tmp_path: Path) -> None:
    path = tmp_path / "run.mcap"
    path.write_bytes(b"previous export")
    with pytest.raises(RuntimeError, match="interrupted"):
        with McapWriter(path, vehicles=bag.vehicles, manifest={}) as writer:
            writer.write(bag.groups[:3], [])
            raise RuntimeError("interrupted")
    assert path.read_bytes() == b"previous export"
    assert list(tmp_path.iterdir()) == [path]


def test_wrong_suffix_is_refused_before_anything_is_created(bag: Bag, tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match=r"path: expected a file ending in \.mcap"):
        McapWriter(tmp_path / "run.bag", vehicles=bag.vehicles, manifest={})
    assert list(tmp_path.iterdir()) == []


def test_names_that_cannot_be_ros_topics_are_refused(bag: Bag, tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="'rov-1' cannot name ROS 2 topics"):
        McapWriter(tmp_path / "run.mcap", vehicles={"rov-1": bag.vehicles["survey"]}, manifest={})
    assert list(tmp_path.iterdir()) == []


def test_dvl_with_other_than_four_beams_is_refused(bag: Bag, tmp_path: Path) -> None:
    survey = with_sensor(bag.vehicles["survey"], "dvl", beam_count=3)
    with pytest.raises(DatasetError, match=r"sensors\['dvl'\]\.beam_count.*exactly 4.*got 3"):
        McapWriter(tmp_path / "run.mcap", vehicles={"survey": survey}, manifest={})
    assert list(tmp_path.iterdir()) == []


def test_a_manifest_that_is_not_json_is_refused(bag: Bag, tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="manifest"):
        McapWriter(tmp_path / "run.mcap", vehicles=bag.vehicles, manifest={"x": object()})
    assert list(tmp_path.iterdir()) == []
