"""The lossless HDF5 dataset: round trip of every record, documentation, integrity, atomicity."""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
import struct
from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import h5py
import numpy as np
import pytest
from world_cases import inspector_setup, seabed_scene, seabed_world, small_survey_spec, survey_setup

from leviathan import __version__
from leviathan.datasets import DatasetError, DatasetIntegrityError, typed_json
from leviathan.datasets._hdf5_layout import _chunks, _read_array, _write_array
from leviathan.datasets.channels import CHANNEL_DOCS, sample_channel_doc
from leviathan.datasets.hdf5 import (
    COMPRESS_MIN_BYTES,
    FORMAT_NAME,
    FORMAT_VERSION,
    Hdf5Writer,
    read_hdf5,
)
from leviathan.identity import content_hash
from leviathan.materials import TEST_LAMBERT_MEDIUM
from leviathan.sensors import SensorSample, sensor_declarations
from leviathan.sonar import CHANNEL_NAMES, SonarFrame
from leviathan.world import CaptureGroup, World

HALF = 15  # ticks per write() call; two calls


def _world() -> World:
    survey = small_survey_spec(
        bearing_count=16,
        elevation_sample_count=4,
        range_bin_count=32,
        top_k=4,
        speckle=True,  # so that speckle_return is written too
    )
    return seabed_world(
        survey_setup(survey),
        inspector_setup(
            focal_px=8.0, speed_m_per_s=0.2, depth_m=27.5, position_ned_m=(4.0, 4.0, 27.0)
        ),
        environment=seabed_scene(seabed_divisions=10, mover=False),
        tracing_backend="reference",
    )


def _vehicles(world: World) -> dict[str, Any]:
    return {name: world.vehicle_spec(name) for name in world.vehicle_names}


class Recorded:
    """A small World's run, written in two write() calls, and what was written."""

    def __init__(self, folder: Path) -> None:
        self.world = world = _world()
        self.path = folder / "run.h5"
        self.manifest = {"job": "test", "seed": 11, "notes": ["two", "calls"]}
        self.groups: list[CaptureGroup] = []
        with Hdf5Writer(self.path, vehicles=_vehicles(world), manifest=self.manifest) as writer:
            first_tick = 0
            for _ in range(2):
                groups = world.step(HALF)
                tracks = [world.track_states(n, from_tick=first_tick) for n in world.vehicle_names]
                writer.write(groups, tracks)
                self.groups.extend(groups)
                first_tick = world.tick + 1


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    return Recorded(tmp_path_factory.mktemp("hdf5"))


@pytest.fixture(scope="module")
def read_back(recorded: Recorded) -> list[CaptureGroup]:
    return list(read_hdf5(recorded.path).groups())


def _kind(sample: Any) -> str:
    """The sensor kind a sample comes from, as the file and CHANNEL_DOCS name it."""
    return "imaging_sonar" if isinstance(sample, SonarFrame) else sample.kind


def _pairs(recorded: Recorded, read_back: list[CaptureGroup]):
    for original, rebuilt in zip(recorded.groups, read_back, strict=True):
        assert list(rebuilt.samples) == list(original.samples)
        for sensor_id, sample in original.samples.items():
            yield sensor_id, sample, rebuilt.samples[sensor_id]


def _assert_identical(a: Any, b: Any, where: str = "$") -> None:
    """Same value and the same kind of value: arrays by dtype, shape and bytes, floats by bits."""
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray), where
        assert (a.dtype, a.shape) == (b.dtype, b.shape), where
        assert a.tobytes() == b.tobytes(), where
    elif isinstance(a, Mapping):
        assert isinstance(b, Mapping), where
        assert list(a) == list(b), where
        for key in a:
            _assert_identical(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, list | tuple):
        assert isinstance(b, tuple) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _assert_identical(x, y, f"{where}[{i}]")
    else:
        assert type(a) is type(b), where
        if isinstance(a, float):
            assert struct.pack("<d", a) == struct.pack("<d", b) or (math.isnan(a) and math.isnan(b))
        else:
            assert a == b, where


# --------------------------------------------------------------------------- round trip


def test_the_run_covers_every_sensor_kind(recorded: Recorded) -> None:
    kinds = {_kind(s) for g in recorded.groups for s in g.samples.values()}
    assert kinds == {"imaging_sonar", "dvl", "imu", "camera", "pressure"}
    sonar = next(g.samples["survey/sonar"] for g in recorded.groups if "survey/sonar" in g.samples)
    assert "speckle_return" in sonar.channels and sonar["topk_range_m"].shape == (32, 16, 4)


def test_every_group_and_sample_hash_is_reproduced(
    recorded: Recorded, read_back: list[CaptureGroup]
) -> None:
    assert len(read_back) == len(recorded.groups) == len(read_hdf5(recorded.path))
    for original, rebuilt in zip(recorded.groups, read_back, strict=True):
        assert type(rebuilt) is CaptureGroup
        assert (rebuilt.tick, rebuilt.time_ns) == (original.tick, original.time_ns)
        assert rebuilt.content_hash == original.content_hash
    for _, sample, rebuilt in _pairs(recorded, read_back):
        assert type(rebuilt) is type(sample)
        assert rebuilt.content_hash == sample.content_hash


def test_every_channel_round_trips_with_dtype_and_shape(
    recorded: Recorded, read_back: list[CaptureGroup]
) -> None:
    for sensor_id, sample, rebuilt in _pairs(recorded, read_back):
        assert list(rebuilt.channels) == list(sample.channels), sensor_id
        for name, array in sample.channels.items():
            got = rebuilt.channels[name]
            assert (got.dtype, got.shape) == (array.dtype, array.shape), (sensor_id, name)
            np.testing.assert_array_equal(got, array, err_msg=f"{sensor_id} {name}")


def test_identifiers_metadata_and_display_round_trip(
    recorded: Recorded, read_back: list[CaptureGroup]
) -> None:
    for sensor_id, sample, rebuilt in _pairs(recorded, read_back):
        assert (rebuilt.sensor_id, rebuilt.sample_index, rebuilt.time_ns) == (
            sample.sensor_id,
            sample.sample_index,
            sample.time_ns,
        )
        _assert_identical(sample.metadata, rebuilt.metadata, f"{sensor_id}.metadata")
        _assert_identical(sample.display, rebuilt.display, f"{sensor_id}.display")
        if isinstance(sample, SensorSample):
            assert rebuilt.kind == sample.kind
            assert rebuilt.display_hashes() == sample.display_hashes()
        else:
            assert (rebuilt.backend, rebuilt.device) == (sample.backend, sample.device)


def test_camera_preview_is_kept_as_a_display_product(
    recorded: Recorded, read_back: list[CaptureGroup]
) -> None:
    cameras = [(s, r) for sid, s, r in _pairs(recorded, read_back) if sid.endswith("front_camera")]
    assert cameras
    for sample, rebuilt in cameras:
        np.testing.assert_array_equal(
            rebuilt.display["preview_srgb"], sample.display["preview_srgb"]
        )
        assert rebuilt.display["preview_srgb"].dtype == np.uint8


def test_tracks_equal_the_worlds_track_states(recorded: Recorded) -> None:
    dataset = read_hdf5(recorded.path)
    assert list(dataset.tracks) == list(recorded.world.vehicle_names)
    for name, track in dataset.tracks.items():
        expected = recorded.world.track_states(name)
        assert len(track) == recorded.world.tick + 1
        for field in ("ticks", "times_ns", "position_ned_m", "attitude_q", "velocity_body"):
            got, want = getattr(track, field), getattr(expected, field)
            assert (got.dtype, got.shape) == (want.dtype, want.shape), field
            np.testing.assert_array_equal(got, want, err_msg=f"{name}.{field}")
        assert content_hash(track) == content_hash(expected)


def test_vehicle_documents_round_trip(recorded: Recorded) -> None:
    dataset = read_hdf5(recorded.path)
    assert list(dataset.vehicles) == list(recorded.world.vehicle_names)
    for name, spec in dataset.vehicles.items():
        original = recorded.world.vehicle_spec(name)
        assert type(spec) is type(original)
        assert content_hash(spec) == content_hash(original)
        assert spec.model_dump(mode="json") == original.model_dump(mode="json")


def test_groups_is_an_iterator_that_reads_one_group_at_a_time(recorded: Recorded) -> None:
    groups = read_hdf5(recorded.path).groups()
    assert iter(groups) is groups
    first = next(groups)
    assert first.content_hash == recorded.groups[0].content_hash
    groups.close()


def test_manifest_and_root_attributes(recorded: Recorded) -> None:
    dataset = read_hdf5(recorded.path)
    assert dataset.manifest == recorded.manifest
    assert dataset.provenance["capture_group_count"] == len(recorded.groups)
    assert dataset.provenance["h5py_version"] == h5py.__version__
    with h5py.File(recorded.path, "r") as f:
        assert f.attrs["format"] == FORMAT_NAME
        assert f.attrs["format_version"] == FORMAT_VERSION
        assert f.attrs["tier"] == "canonical"
        assert f.attrs["leviathan_version"] == __version__
        assert f.attrs["metadata_encoding"] == typed_json.TYPED_JSON_VERSION
        assert json.loads(f.attrs["manifest"]) == recorded.manifest
        assert f.attrs["sample_count"] == sum(len(g.samples) for g in recorded.groups)


# --------------------------------------------------------------------------- structure


def _sample_path(sensor_id: str, sample_index: int) -> str:
    return f"samples/{sensor_id}/{sample_index:08d}"


ROW_SENSORS = ("survey/imu", "survey/pressure")
"""The test World's sensors whose samples are rows of a table (three-element and scalar
channels, typed JSON without arrays); the DVL's metadata and the sonar's and camera's
channels keep theirs in groups."""


def test_the_file_holds_exactly_the_expected_groups_and_datasets(recorded: Recorded) -> None:
    expected_samples = {
        _sample_path(sid, s.sample_index): s
        for g in recorded.groups
        for sid, s in g.samples.items()
        if sid not in ROW_SENSORS
    }
    with h5py.File(recorded.path, "r") as f:
        assert set(f) == {"vehicles", "tracks", "capture_groups", "samples"}
        found = set()
        for vehicle, sensors in f["samples"].items():
            for sensor, samples in sensors.items():
                found |= {f"samples/{vehicle}/{sensor}/{n}" for n in samples}
        assert found == set(expected_samples) | {f"samples/{sid}/rows" for sid in ROW_SENSORS}
        for path, sample in expected_samples.items():
            assert set(f[path]["channels"]) == set(sample.channels), path
            assert set(f[path]["display"]) == {
                k for k, v in sample.display.items() if isinstance(v, np.ndarray)
            }, path
            arrays = {k for k, v in sample.metadata.items() if isinstance(v, np.ndarray)}
            assert set(f[path].get("metadata_arrays", {})) == arrays, path
        for sid in ROW_SENSORS:
            samples = [g.samples[sid] for g in recorded.groups if sid in g.samples]
            table = f[f"samples/{sid}/rows"]
            assert dict(table.attrs) == {
                "storage": "rows",
                "record_type": type(samples[0]).__content_type__,
                "kind": samples[0].kind,
                "sensor_id": sid,
            }
            assert set(table) == {
                "sample_index",
                "time_ns",
                "tick",
                "content_hash",
                "metadata",
                "display",
                "attributes",
                "channels",
            }
            assert table["sample_index"][...].tolist() == [s.sample_index for s in samples]
            assert table["time_ns"][...].tolist() == [s.time_ns for s in samples]
            assert [h.decode() for h in table["content_hash"][...]] == [
                s.content_hash for s in samples
            ]
            for name, channel in table["channels"].items():
                stacked = np.stack([s.channels[name] for s in samples])
                assert channel.shape == stacked.shape and channel.dtype == stacked.dtype
                assert channel[...].tobytes() == stacked.tobytes(), (sid, name)
            assert list(table["channels"]) == list(samples[0].channels)
        for name in recorded.world.vehicle_names:
            spec = recorded.world.vehicle_spec(name)
            assert set(f[f"vehicles/{name}/sensors"]) == {s.name for s in spec.sensors}
            assert set(f[f"tracks/{name}"]) == {
                "ticks",
                "times_ns",
                "position_ned_m",
                "attitude_q",
                "velocity_body",
            }
        assert set(f["capture_groups"]) == {
            "tick",
            "time_ns",
            "content_hash",
            "member_start",
            "member_count",
            "members",
        }
        assert set(f["capture_groups/members"]) == {"sensor_id", "sample_index", "content_hash"}


def test_every_channel_dataset_carries_its_documentation(recorded: Recorded) -> None:
    with h5py.File(recorded.path, "r") as f:
        for g in recorded.groups:
            for sid, sample in g.samples.items():
                kind = _kind(sample)
                if sid in ROW_SENSORS:
                    stored = f[f"samples/{sid}/rows"]
                    row = stored["sample_index"][...].tolist().index(sample.sample_index)
                    assert stored["content_hash"][row].decode() == sample.content_hash
                else:
                    stored = f[_sample_path(sid, sample.sample_index)]
                    assert stored.attrs["content_hash"] == sample.content_hash
                assert stored.attrs["kind"] == kind
                for name, array in sample.channels.items():
                    attrs = stored["channels"][name].attrs
                    doc = sample_channel_doc(kind, name)
                    assert attrs["dtype"] == array.dtype.str
                    for key in ("units", "frame", "axes", "description", "sentinel"):
                        assert attrs[key] == getattr(doc, key), (sid, name, key)
        for name in recorded.world.vehicle_names:
            for field, dataset in f[f"tracks/{name}"].items():
                assert dataset.attrs["units"] == CHANNEL_DOCS[("track", field)].units


def test_channel_docs_cover_every_channel_that_occurs(recorded: Recorded) -> None:
    occurring, documented = set(), set()
    for g in recorded.groups:
        for sample in g.samples.values():
            kind = _kind(sample)
            declared = sensor_declarations(kind)
            occurring |= {(kind, name) for name in sample.channels}
            documented |= {(kind, name) for name in declared.channels}
            arrays = [n for n, v in sample.display.items() if isinstance(v, np.ndarray)]
            occurring |= {(f"{kind}/display", n) for n in arrays}
            documented |= {(f"{kind}/display", n) for n in declared.display_channels}
    assert occurring - documented == set()
    # Every channel a sonar frame can carry, produced here or not.
    assert set(CHANNEL_NAMES) <= set(sensor_declarations("imaging_sonar").channels)


def test_chunks_are_whole_rows_of_about_one_mebibyte() -> None:
    # A survey sonar frame's top-K channel: 512 x 256 x 4 float64 = 4 MiB, in 4 chunks.
    assert _chunks((512, 256, 4), 8) == (128, 256, 4)
    assert _chunks((512, 256), 8) == (512, 256)
    assert _chunks((3, 1 << 20), 8) == (1, 1 << 20)  # never less than one row


def test_large_channels_are_chunked_and_compressed(recorded: Recorded, tmp_path: Path) -> None:
    sonar = next(g.samples["survey/sonar"] for g in recorded.groups if "survey/sonar" in g.samples)
    with h5py.File(tmp_path / "a.h5", "w") as f:
        # A top-K channel of 32 x 16 x 4 float64 = 16 KiB, as version 1 stored it.
        big = _write_array(f, "topk_range_m", sonar["topk_range_m"])
        assert (big.compression, big.compression_opts, big.shuffle) == ("gzip", 1, True)
        assert big.chunks == (32, 16, 4)
        small = _write_array(f, "validity", sonar["validity"])
        assert small.compression is None  # 1 KiB: stored contiguously
    with h5py.File(recorded.path, "r") as f:
        for dataset in f[_sample_path("survey/sonar", sonar.sample_index)]["channels"].values():
            large = dataset.size * dataset.dtype.itemsize >= COMPRESS_MIN_BYTES
            assert (dataset.compression == "gzip") == large, dataset.name


# --------------------------------------------------------------------------- integrity


def _copy(recorded: Recorded, tmp_path: Path) -> Path:
    copy = tmp_path / "copy.h5"
    shutil.copyfile(recorded.path, copy)
    return copy


def test_verify_detects_a_tampered_channel(recorded: Recorded, tmp_path: Path) -> None:
    copy = _copy(recorded, tmp_path)
    sonar = next(g.samples["survey/sonar"] for g in recorded.groups if "survey/sonar" in g.samples)
    path = _sample_path("survey/sonar", sonar.sample_index)
    with h5py.File(copy, "r+") as f:
        f[path]["channels"]["validity"][0, 0] = 777  # a dense channel (1 KiB)
    with pytest.raises(DatasetIntegrityError, match="survey/sonar") as caught:
        list(read_hdf5(copy).groups())
    assert caught.value.where == "/" + path
    assert caught.value.expected == sonar.content_hash
    # Unverified, the changed value is what comes back: verification is what caught it.
    unverified = list(read_hdf5(copy, verify=False).groups())
    frame = next(g.samples["survey/sonar"] for g in unverified if "survey/sonar" in g.samples)
    assert frame["validity"][0, 0] == 777


def test_verify_detects_a_tampered_track(recorded: Recorded, tmp_path: Path) -> None:
    copy = _copy(recorded, tmp_path)
    with h5py.File(copy, "r+") as f:
        f["tracks/survey/position_ned_m"][3, 0] += 1.0
    with pytest.raises(DatasetIntegrityError, match="/tracks/survey"):
        read_hdf5(copy)


def test_a_missing_sample_group_is_a_dataset_error(recorded: Recorded, tmp_path: Path) -> None:
    copy = _copy(recorded, tmp_path)
    with h5py.File(copy, "r+") as f:
        del f["samples/survey/dvl/00000002"]
    with pytest.raises(DatasetError, match="samples/survey/dvl/00000002: missing"):
        list(read_hdf5(copy).groups())


def test_a_sample_missing_from_its_table_is_a_dataset_error(
    recorded: Recorded, tmp_path: Path
) -> None:
    copy = _copy(recorded, tmp_path)
    with h5py.File(copy, "r+") as f:
        f["samples/survey/imu/rows/sample_index"][2] = 10**6
    with pytest.raises(DatasetError, match="samples/survey/imu/00000002: missing"):
        list(read_hdf5(copy).groups())


def test_verify_detects_a_tampered_row(recorded: Recorded, tmp_path: Path) -> None:
    copy = _copy(recorded, tmp_path)
    with h5py.File(copy, "r+") as f:
        f["samples/survey/imu/rows/channels/specific_force_sensor_m_s2"][3, 1] += 1e-9
    list(read_hdf5(copy, verify=False).groups())
    with pytest.raises(DatasetIntegrityError, match=r"/samples/survey/imu/rows\[3\]"):
        list(read_hdf5(copy).groups())


def test_a_sample_off_its_tables_layout_is_a_group_of_its_own(tmp_path: Path) -> None:
    world = _world()
    groups = [g for g in world.step(6) if "survey/imu" in g.samples][:3]
    imu = groups[1].samples["survey/imu"]
    wider = {**imu.channels, "specific_force_sensor_m_s2": np.zeros(4)}  # another shape
    odd = dataclasses.replace(imu, channels=wider)
    groups[1] = CaptureGroup(
        tick=groups[1].tick,
        time_ns=groups[1].time_ns,
        samples={**groups[1].samples, "survey/imu": odd},
    )
    path = tmp_path / "odd.h5"
    with Hdf5Writer(path, vehicles=_vehicles(world), manifest={}) as writer:
        writer.write(groups, [])
    with h5py.File(path, "r") as f:
        indices = f["samples/survey/imu/rows/sample_index"][...].tolist()
        assert odd.sample_index not in indices and len(indices) == 2
        assert f[_sample_path("survey/imu", odd.sample_index)].attrs["content_hash"] == (
            odd.content_hash
        )
    back = list(read_hdf5(path).groups())
    assert [g.content_hash for g in back] == [g.content_hash for g in groups]


def test_version_4_stores_every_sample_as_a_group(recorded: Recorded, tmp_path: Path) -> None:
    path = tmp_path / "v4.h5"
    with Hdf5Writer(
        path, vehicles=_vehicles(recorded.world), manifest={}, format_version=4
    ) as writer:
        writer.write(recorded.groups, [])
    with h5py.File(path, "r") as f:
        assert f.attrs["format_version"] == 4
        for sid in ROW_SENSORS:
            assert "rows" not in f[f"samples/{sid}"]
            assert len(f[f"samples/{sid}"]) == sum(sid in g.samples for g in recorded.groups)
    back = list(read_hdf5(path).groups())
    assert [g.content_hash for g in back] == [g.content_hash for g in recorded.groups]


def test_dataset_errors_are_value_errors() -> None:
    assert issubclass(DatasetIntegrityError, DatasetError)
    assert issubclass(DatasetError, ValueError)


def test_a_file_that_is_not_hdf5_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "text.h5"
    path.write_text("not hdf5")
    with pytest.raises(DatasetError, match="not an HDF5 file"):
        read_hdf5(path)


def test_an_hdf5_file_of_another_kind_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=[1, 2])
    with pytest.raises(DatasetError, match="not a LEVIATHAN dataset"):
        read_hdf5(path)


def test_another_format_version_is_refused(recorded: Recorded, tmp_path: Path) -> None:
    copy = _copy(recorded, tmp_path)
    with h5py.File(copy, "r+") as f:
        f.attrs["format_version"] = FORMAT_VERSION + 1
    with pytest.raises(DatasetError, match=f"format_version is {FORMAT_VERSION + 1}"):
        read_hdf5(copy)


# --------------------------------------------------------------------------- refused input


def _siblings(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_out_of_order_groups_are_refused_leaving_no_file(
    recorded: Recorded, tmp_path: Path
) -> None:
    target = tmp_path / "out.h5"
    writer = Hdf5Writer(target, vehicles=_vehicles(recorded.world), manifest={})
    writer.write(recorded.groups[5:6], [])
    with pytest.raises(DatasetError, match=r"groups\[0\]: capture group at tick .* is not after"):
        writer.write(recorded.groups[2:3], [])
    assert _siblings(tmp_path) == []
    with pytest.raises(DatasetError, match="closed"):
        writer.close()
    assert _siblings(tmp_path) == []


def test_an_unknown_sensor_is_refused_leaving_no_file(recorded: Recorded, tmp_path: Path) -> None:
    vehicles = {"survey": recorded.world.vehicle_spec("survey")}  # no inspector declared
    with_camera = next(g for g in recorded.groups if "inspector/front_camera" in g.samples)
    writer = Hdf5Writer(tmp_path / "out.h5", vehicles=vehicles, manifest={})
    with pytest.raises(DatasetError, match="unknown sensor id 'inspector/front_camera'"):
        writer.write([with_camera], [])
    assert _siblings(tmp_path) == []


def test_an_undeclared_vehicles_track_is_refused(recorded: Recorded, tmp_path: Path) -> None:
    vehicles = {"survey": recorded.world.vehicle_spec("survey")}
    writer = Hdf5Writer(tmp_path / "out.h5", vehicles=vehicles, manifest={})
    with pytest.raises(DatasetError, match=r"tracks\[0\].name: vehicle 'inspector'"):
        writer.write([], [recorded.world.track_states("inspector")])
    assert _siblings(tmp_path) == []


def test_a_track_that_does_not_continue_is_refused(recorded: Recorded, tmp_path: Path) -> None:
    world = recorded.world
    writer = Hdf5Writer(tmp_path / "out.h5", vehicles=_vehicles(world), manifest={})
    writer.write([], [world.track_states("survey", from_tick=0)])
    with pytest.raises(
        DatasetError, match=r"tracks\[0\]\.ticks\[0\]: expected tick \d+ \(the rows continue.*got 5"
    ):
        writer.write([], [world.track_states("survey", from_tick=5)])
    assert _siblings(tmp_path) == []


def test_a_track_row_not_after_the_last_time_written_is_refused(
    recorded: Recorded, tmp_path: Path
) -> None:
    track = recorded.world.track_states("survey")
    writer = Hdf5Writer(tmp_path / "out.h5", vehicles=_vehicles(recorded.world), manifest={})
    writer.write([], [track.rows(0, 5)])
    next_rows = track.rows(5, 9)
    times_ns = next_rows.times_ns.copy()
    times_ns[0] = track.times_ns[4]  # the next tick, stamped at the last time written
    with pytest.raises(
        DatasetError, match=r"tracks\[0\]\.times_ns\[0\]: \d+ ns is not after the previous row"
    ):
        writer.write([], [dataclasses.replace(next_rows, times_ns=times_ns)])
    assert _siblings(tmp_path) == []


def test_a_sample_written_twice_is_refused(recorded: Recorded, tmp_path: Path) -> None:
    group = recorded.groups[3]
    again = CaptureGroup(tick=group.tick + 1, time_ns=group.time_ns + 1, samples=group.samples)
    writer = Hdf5Writer(tmp_path / "out.h5", vehicles=_vehicles(recorded.world), manifest={})
    with pytest.raises(DatasetError, match="is already written"):
        writer.write([group, again], [])
    assert _siblings(tmp_path) == []


def test_a_wrong_suffix_is_refused(recorded: Recorded, tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match=r"path: expected a file ending in \.h5 or \.hdf5"):
        Hdf5Writer(tmp_path / "out.mcap", vehicles=_vehicles(recorded.world), manifest={})
    assert _siblings(tmp_path) == []


def test_a_manifest_that_is_not_json_data_is_refused(recorded: Recorded, tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match=r"manifest\['ratio'\]: nan cannot be written"):
        Hdf5Writer(
            tmp_path / "o.h5", vehicles=_vehicles(recorded.world), manifest={"ratio": math.nan}
        )
    assert _siblings(tmp_path) == []


def test_an_exception_inside_the_block_keeps_the_previous_file(
    recorded: Recorded, tmp_path: Path
) -> None:
    target = tmp_path / "kept.h5"
    shutil.copyfile(recorded.path, target)
    before = target.read_bytes()
    with pytest.raises(RuntimeError, match="interrupted"):
        with Hdf5Writer(target, vehicles=_vehicles(recorded.world), manifest={}) as writer:
            writer.write(recorded.groups[:2], [])
            raise RuntimeError("interrupted")
    assert target.read_bytes() == before
    assert _siblings(tmp_path) == ["kept.h5"]


def test_an_exception_inside_the_block_leaves_no_file(recorded: Recorded, tmp_path: Path) -> None:
    with pytest.raises(KeyboardInterrupt):
        with Hdf5Writer(tmp_path / "new.h5", vehicles=_vehicles(recorded.world), manifest={}):
            raise KeyboardInterrupt
    assert _siblings(tmp_path) == []


def test_close_replaces_the_manifest(recorded: Recorded, tmp_path: Path) -> None:
    writer = Hdf5Writer(tmp_path / "m.h5", vehicles=_vehicles(recorded.world), manifest={"a": 1})
    writer.write(recorded.groups[:1], [])
    assert writer.close(manifest={"a": 1, "run_hash": "abc"}) == tmp_path / "m.h5"
    assert read_hdf5(tmp_path / "m.h5").manifest == {"a": 1, "run_hash": "abc"}
    assert _siblings(tmp_path) == ["m.h5"]


# --------------------------------------------------------------------------- typed JSON


def _round_trip(value: Any) -> Any:
    arrays: dict[str, np.ndarray] = {}

    def store(array: np.ndarray, keys: tuple[Any, ...]) -> str:
        name = f"a{len(arrays)}"
        arrays[name] = array.copy()
        return name

    return typed_json.decode(typed_json.encode(value, store), arrays.__getitem__)


@pytest.mark.parametrize(
    "value",
    [
        0,
        -7,
        2**80,
        1.0,
        0.1,
        -0.0,
        math.inf,
        -math.inf,
        5e-324,
        True,
        False,
        None,
        "héllo ∑ 🌊",
        "",
        b"\x00\xff",
        1.5 - 2j,
        Fraction(1, 3),
        Decimal("1.10"),
    ],
    ids=repr,
)
def test_typed_json_keeps_each_scalar_and_its_type(value: Any) -> None:
    _assert_identical(value, _round_trip(value))


def test_typed_json_keeps_nan() -> None:
    back = _round_trip(math.nan)
    assert type(back) is float and math.isnan(back)


def test_typed_json_tells_int_from_float_from_bool() -> None:
    assert [type(x) for x in _round_trip([1, 1.0, True])] == [int, float, bool]


def test_typed_json_keeps_nested_mappings_sequences_and_key_order() -> None:
    value = {"z": {"b": (1, [2.5, None]), "a": ()}, "a": [{"$float": "x"}], "$$": {"$": 1}}
    back = _round_trip(value)
    assert list(back) == ["z", "a", "$$"] and list(back["z"]) == ["b", "a"]
    assert back["a"][0] == {"$float": "x"}  # a key that looks like a tag stays a key
    _assert_identical(value, back)


def test_typed_json_keeps_sets_and_numpy_scalars() -> None:
    back = _round_trip({"s": frozenset({"b", "a"}), "f": np.float32(0.1), "i": np.int16(-3)})
    assert back["s"] == frozenset({"a", "b"})
    assert type(back["f"]) is np.float32 and back["f"] == np.float32(0.1)
    assert type(back["i"]) is np.int16 and back["i"] == -3


def test_typed_json_content_hash_survives(recorded: Recorded) -> None:
    sonar = next(g.samples["survey/sonar"] for g in recorded.groups if "survey/sonar" in g.samples)
    assert content_hash(_round_trip(sonar.metadata)) == content_hash(sonar.metadata)


@pytest.mark.parametrize(
    "bad", [TEST_LAMBERT_MEDIUM, {1: "int key"}, object()], ids=["material", "int_key", "object"]
)
def test_typed_json_refuses_what_it_cannot_rebuild(bad: Any) -> None:
    with pytest.raises(TypeError, match=r"^\$"):
        typed_json.encode({"x": bad} if not isinstance(bad, dict) else bad)


def test_typed_json_refuses_an_enum_member() -> None:
    from leviathan.materials import AcousticStatus

    with pytest.raises(TypeError, match=r"\$\['s'\]: enum member"):
        typed_json.encode({"s": AcousticStatus.KNOWN})


def test_typed_json_refuses_a_bare_float_in_the_text() -> None:
    with pytest.raises(ValueError, match="bare number"):
        typed_json.decode("[1.5]")


ARRAYS = {
    "bool": np.array([[True, False], [False, True]]),
    "uint8": np.arange(6, dtype=np.uint8).reshape(2, 3),
    "int32": np.array([-1, 0, 2**31 - 1], dtype=np.int32),
    "uint16": np.array([0, 65535], dtype=np.uint16),
    "int64": np.array([-(2**63), 2**63 - 1], dtype=np.int64),
    "float64": np.array([0.1, -0.0, np.nan, np.inf, -np.inf, 5e-324]),
    "float32": np.array([1.5, np.nan], dtype=np.float32),
    "float16": np.array([0.5, -2.0], dtype=np.float16),
    "big_endian": np.array([1.25, 3.0], dtype=">f8"),
    "complex128": np.array([1 + 2j, -0.5j]),
    "unicode": np.array([["héllo", "∑"], ["", "🌊a"]]),
    "bytes": np.array([b"ab", b"\x00c"]),
    "scalar": np.array(2.5),
    "empty": np.zeros((0, 3), dtype=np.int32),
    "large": np.arange(4096, dtype=np.float64).reshape(64, 64),  # chunked and compressed
}


@pytest.mark.parametrize("name", sorted(ARRAYS))
def test_arrays_round_trip_through_hdf5_exactly(name: str, tmp_path: Path) -> None:
    array = ARRAYS[name]
    with h5py.File(tmp_path / "a.h5", "w") as f:
        _write_array(f, name, array)
    with h5py.File(tmp_path / "a.h5", "r") as f:
        back = _read_array(f[name])
    assert (back.dtype, back.shape) == (array.dtype, array.shape)
    assert back.tobytes() == array.tobytes()
    assert content_hash(back) == content_hash(array)


def test_metadata_arrays_are_referenced_out_to_datasets(recorded: Recorded) -> None:
    sonar = next(g.samples["survey/sonar"] for g in recorded.groups if "survey/sonar" in g.samples)
    with h5py.File(recorded.path, "r") as f:
        stored = f[_sample_path("survey/sonar", sonar.sample_index)]
        text = json.loads(stored.attrs["metadata"])
        assert text["bearing_rad"] == {"$array": "bearing_rad"}
        dataset = stored["metadata_arrays/bearing_rad"]
        assert dataset.attrs["dtype"] == "<f8" and dataset.attrs["json_path"] == "$['bearing_rad']"
        np.testing.assert_array_equal(dataset[...], sonar.metadata["bearing_rad"])


def test_a_channel_without_documentation_is_refused(recorded: Recorded, tmp_path: Path) -> None:
    imu = next(g.samples["survey/imu"] for g in recorded.groups)
    odd = dataclasses.replace(imu, channels={**imu.channels, "temperature_c": np.array(4.0)})
    group = CaptureGroup(tick=0, time_ns=imu.time_ns, samples={"survey/imu": odd})
    writer = Hdf5Writer(tmp_path / "out.h5", vehicles=_vehicles(recorded.world), manifest={})
    with pytest.raises(
        DatasetError, match="channel 'temperature_c' of sensor kind 'imu' is not documented"
    ):
        writer.write([group], [])
    assert _siblings(tmp_path) == []


def test_a_record_that_cannot_be_rebuilt_is_a_dataset_error(
    recorded: Recorded, tmp_path: Path
) -> None:
    copy = _copy(recorded, tmp_path)
    with h5py.File(copy, "r+") as f:
        f["samples/survey/dvl/00000001"].attrs["kind"] = "barometer"
    with pytest.raises(DatasetError, match="dvl/00000001: the stored record cannot be rebuilt"):
        list(read_hdf5(copy).groups())
    copy = _copy(recorded, tmp_path)
    with h5py.File(copy, "r+") as f:
        f["samples/survey/imu/rows"].attrs["kind"] = "barometer"
    with pytest.raises(DatasetError, match=r"imu/rows\[0\]: the stored record cannot be rebuilt"):
        list(read_hdf5(copy).groups())
