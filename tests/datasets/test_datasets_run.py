"""Recording Worlds into datasets, re-exporting a run folder, the CLI and the demo's files."""

from __future__ import annotations

import numpy as np
import pytest
from mcap.reader import make_reader
from world_cases import TICK_NS, small_survey_spec, survey_setup

from leviathan.cli import main
from leviathan.datasets import (
    RUN_DATASET_NAME,
    DatasetRecorder,
    export_dataset,
    export_world,
    read_hdf5,
)
from leviathan.identity import content_hash
from leviathan.world import World


def _world() -> World:
    from leviathan.demo import survey_environment

    return World.create(
        vehicles=[
            survey_setup(
                small_survey_spec(bearing_count=12, elevation_sample_count=4, range_bin_count=24)
            )
        ],
        environment=survey_environment(seabed_triangles=2000),
        root_seed=3,
        step_ns=TICK_NS,
        tracing_backend="reference",
    )


def _topics(path) -> dict[str, int]:
    counts: dict[str, int] = {}
    with open(path, "rb") as f:
        for _, channel, _ in make_reader(f).iter_messages():
            counts[channel.topic] = counts.get(channel.topic, 0) + 1
    return counts


def test_recording_while_stepping_equals_exporting_at_once(tmp_path) -> None:
    streamed, whole = _world(), _world()
    groups = []
    with DatasetRecorder(streamed, hdf5=tmp_path / "a.h5", mcap=tmp_path / "a.mcap") as recorder:
        for n in (1, 7, 12):
            step = streamed.step(n)
            recorder.record(step)
            groups.extend(step)
        written = recorder.close()
    assert set(written) == {"hdf5", "mcap"}
    export_world(whole, whole.step(20), hdf5=tmp_path / "b.h5", mcap=tmp_path / "b.mcap")
    a, b = read_hdf5(tmp_path / "a.h5"), read_hdf5(tmp_path / "b.h5")
    assert [g.content_hash for g in a.groups()] == [g.content_hash for g in groups]
    assert [g.content_hash for g in a.groups()] == [g.content_hash for g in b.groups()]
    for name, track in a.tracks.items():
        expected = whole.track_states(name)
        np.testing.assert_array_equal(track.ticks, expected.ticks)
        np.testing.assert_array_equal(track.velocity_body, expected.velocity_body)
        np.testing.assert_array_equal(b.tracks[name].position_ned_m, expected.position_ned_m)
    assert a.manifest["run_hash"] == b.manifest["run_hash"]
    assert _topics(tmp_path / "a.mcap") == _topics(tmp_path / "b.mcap")


def test_writing_behind_the_steps_equals_recording_each_step(tmp_path) -> None:
    """prepare() on the stepping thread, write() on another one step behind: same files."""
    import threading

    serial, behind = _world(), _world()
    with DatasetRecorder(serial, hdf5=tmp_path / "a.h5", mcap=tmp_path / "a.mcap") as recorder:
        for n in (3, 9, 8):
            recorder.record(serial.step(n))
        serial_hashes = recorder.group_hashes
        recorder.close()
    with DatasetRecorder(behind, hdf5=tmp_path / "b.h5", mcap=tmp_path / "b.mcap") as recorder:
        writer: threading.Thread | None = None
        for n in (3, 9, 8):
            batch = recorder.prepare(behind.step(n))
            if writer is not None:
                writer.join()
            writer = threading.Thread(target=recorder.write, args=(batch,))
            writer.start()  # the next step runs while this batch is written
        assert writer is not None
        writer.join()
        assert recorder.group_hashes == serial_hashes
        recorder.close()
    a, b = read_hdf5(tmp_path / "a.h5"), read_hdf5(tmp_path / "b.h5")
    assert [g.content_hash for g in a.groups()] == [g.content_hash for g in b.groups()]
    for name, track in a.tracks.items():
        assert content_hash(track) == content_hash(b.tracks[name])
    assert a.manifest["run_hash"] == b.manifest["run_hash"]
    assert _topics(tmp_path / "a.mcap") == _topics(tmp_path / "b.mcap")


def test_write_takes_only_a_prepared_batch(tmp_path) -> None:
    world = _world()
    with DatasetRecorder(world, hdf5=tmp_path / "a.h5") as recorder:
        groups = world.step(2)
        with pytest.raises(TypeError, match="batch: expected a RecordBatch from prepare"):
            recorder.write(groups)
        recorder.write(recorder.prepare(groups))
        assert len(recorder.group_hashes) == len(groups)


def test_export_dataset_from_a_run_folder_round_trips(tmp_path) -> None:
    world = _world()
    run = tmp_path / "run"
    run.mkdir()
    export_world(world, world.step(15), hdf5=run / RUN_DATASET_NAME)
    seen = []
    written = export_dataset(
        run,
        hdf5=tmp_path / "again.h5",
        mcap=tmp_path / "again.mcap",
        progress=lambda done, total: seen.append((done, total)),
    )
    assert set(written) == {"hdf5", "mcap"}
    original, again = read_hdf5(run / RUN_DATASET_NAME), read_hdf5(tmp_path / "again.h5")
    assert [g.content_hash for g in again.groups()] == [g.content_hash for g in original.groups()]
    assert seen and seen[-1] == (len(original), len(original))
    topics = _topics(tmp_path / "again.mcap")
    assert {"/survey/sonar", "/survey/dvl", "/survey/imu", "/tf", "/tf_static"} <= set(topics)
    assert topics["/survey/odometry"] == len(original.tracks["survey"])


def test_recorder_refuses_a_reset_and_leaves_no_file(tmp_path) -> None:
    world = _world()
    with pytest.raises(ValueError, match="reset"):
        with DatasetRecorder(world, hdf5=tmp_path / "a.h5", mcap=tmp_path / "a.mcap") as rec:
            rec.record(world.step(5))
            world.reset()
            rec.record(world.step(1))
    assert list(tmp_path.iterdir()) == []


def test_recorder_refuses_an_edit_of_a_vehicle(tmp_path) -> None:
    world = _world()
    with pytest.raises(ValueError, match="edited while recording"):
        with DatasetRecorder(world, hdf5=tmp_path / "a.h5") as rec:
            rec.record(world.step(2))
            world.edit(vehicle="survey", sensors=())
            rec.record(world.step(2))
    assert list(tmp_path.iterdir()) == []


def test_export_needs_an_output_with_the_right_suffix(tmp_path) -> None:
    world = _world()
    with pytest.raises(ValueError, match="at least one output"):
        export_world(world, world.step(1))
    with pytest.raises(ValueError, match=r"mcap: expected a file ending in \.mcap"):
        export_world(world, [], mcap=tmp_path / "run.bag")
    assert list(tmp_path.iterdir()) == []


def test_cli_export_dataset(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    world = _world()
    export_world(world, world.step(6), hdf5=tmp_path / RUN_DATASET_NAME)
    out = tmp_path / "bag.mcap"
    assert main(["export-dataset", str(tmp_path), "--mcap", str(out), "--quiet"]) == 0
    assert f"wrote {out} (mcap" in capsys.readouterr().out
    assert _topics(out)["/survey/imu"] == 7


def test_cli_export_dataset_errors(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    # A folder holding no recorded run is bad input (exit 2), like a missing one.
    assert main(["export-dataset", str(tmp_path), "--mcap", str(tmp_path / "x.mcap")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and RUN_DATASET_NAME in err[0]
    assert main(["export-dataset", str(tmp_path)]) == 2
    assert "--mcap FILE and/or --hdf5 FILE" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_demo_writes_both_datasets_matching_its_manifest(tmp_path, tiny_demo) -> None:
    import json

    out = tmp_path / "out"
    assert main(["demo", "--out", str(out), "--seconds", "0.3", "--quiet"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    dataset = read_hdf5(out / RUN_DATASET_NAME)
    assert [g.content_hash for g in dataset.groups()] == [
        g["content_hash"] for g in manifest["capture_groups"]
    ]
    assert dataset.manifest["run_hash"] == manifest["run_hash"]
    assert dataset.manifest["snapshot_hash"] == manifest["snapshot_hash"]
    topics = _topics(out / "dataset.mcap")
    for sensor in ("survey/sonar", "survey/dvl", "survey/imu"):
        members = [g for g in manifest["capture_groups"] if sensor in g["members"]]
        assert topics[f"/{sensor}"] == len(members)
    camera = [g for g in manifest["capture_groups"] if "inspector/front_camera" in g["members"]]
    assert topics["/inspector/front_camera/image"] == len(camera)
    assert topics["/inspector/front_camera/depth"] == len(camera)
    assert topics["/inspector/front_camera/camera_info"] == len(camera)
    assert topics["/survey/odometry"] == topics["/inspector/odometry_ned"] == 31

    # The mapping AUV's multibeam soundings gridded: the same figures from the files.
    bathymetry = manifest["bathymetry"]
    assert bathymetry["sensor"] == "mapper/multibeam"
    assert topics["/mapper/multibeam/detections"] == topics["/mapper/multibeam/soundings"] > 0
    from leviathan.bathymetry import bathymetry_run

    again, paths = bathymetry_run(out, cell_m=0.5, out=tmp_path / "again")
    assert again.figures() == bathymetry["figures"]
    assert (out / bathymetry["files"]["error_png"]).read_bytes() == paths["error_png"].read_bytes()


# --------------------------------------------------------------------------- any run folder


def _scenario_run(folder):
    """A short analytic scenario run (IMU and DVL recorded) into ``folder / "run"``."""
    from pathlib import Path

    from leviathan.analytic import run_scenario

    root = Path(__file__).resolve().parents[2]
    text = (root / "examples" / "survey_stern_failure.toml").read_text()
    for old, new in (
        ("duration_ns = 50_000_000_000", "duration_ns = 500_000_000"),
        ("seabed_triangles = 20_000", "seabed_triangles = 2_000"),
        ("time_ns = 25_000_000_000", "time_ns = 200_000_000"),
    ):
        text = text.replace(old, new)
    document = folder / "scenario.toml"
    document.write_text(text)
    return run_scenario(document, out=folder / "run"), folder / "run"


def test_export_dataset_from_a_scenario_run_folder(tmp_path, capsys) -> None:
    result, run = _scenario_run(tmp_path)
    mcap, h5 = tmp_path / "run.mcap", tmp_path / "run.h5"
    with pytest.warns(UserWarning, match=r"analytic scenario run.*survey/dvl, survey/imu"):
        written = export_dataset(run, mcap=mcap, hdf5=h5)
    assert written == {"hdf5": h5, "mcap": mcap}
    dataset = read_hdf5(h5)
    assert len(dataset) == 0 and set(dataset.vehicles) == {"survey"}
    assert dataset.vehicles["survey"] == result.vehicles["survey"].spec
    track, states = dataset.tracks["survey"], result.vehicles["survey"].states
    np.testing.assert_array_equal(track.times_ns, result.vehicles["survey"].time_ns)
    np.testing.assert_array_equal(track.position_ned_m, states[:, 0:3])
    np.testing.assert_array_equal(track.attitude_q, states[:, 3:7])
    np.testing.assert_array_equal(track.velocity_body, states[:, 7:13])
    assert dataset.manifest["job"] == "leviathan analytic scenario run"
    assert _topics(mcap)["/survey/odometry"] == result.tick_count + 1
    # The command line says the same in one warning line, and exits 0.
    assert main(["export-dataset", str(run), "--mcap", str(tmp_path / "b.mcap"), "--quiet"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("warning: export-dataset: ") and "streams" in err[0]


def test_both_outputs_appear_together_or_not_at_all(tmp_path, monkeypatch) -> None:
    from leviathan.datasets.mcap import McapWriter

    world = _world()
    groups = world.step(4)
    (tmp_path / "run.h5").write_bytes(b"previous")

    def fail(self, *, manifest=None):
        raise OSError("disk full")

    # The MCAP fails on closing, after the HDF5 file is complete: neither appears, and
    # the file that was at the HDF5 target is kept.
    monkeypatch.setattr(McapWriter, "close", fail)
    with pytest.raises(OSError, match="disk full"):
        export_world(world, groups, mcap=tmp_path / "run.mcap", hdf5=tmp_path / "run.h5")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.h5"]
    assert (tmp_path / "run.h5").read_bytes() == b"previous"
