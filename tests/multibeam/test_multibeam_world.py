"""A multibeam on a World vehicle: samples, MCAP (independent decoder), HDF5, and bathymetry."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from mcap_helpers import decoded_messages
from multibeam_cases import multibeam_spec
from world_cases import autopilot_setup, seabed_scene, seabed_world

from leviathan.bathymetry import SEABED_FILE, bathymetry_run, run_soundings, write_true_seabed
from leviathan.catalogue import get_vehicle
from leviathan.cli import main
from leviathan.datasets import export_world, read_hdf5
from leviathan.reference_cpu.multibeam import DETECTION_FLAGS as F
from leviathan.ros import frd_to_flu
from leviathan.specs import MountSpec, VehicleSpec
from leviathan.world import World

MULTIBEAM = multibeam_spec(
    swath_deg=120.0,
    beam_count=32,
    beam_spacing="equidistant",
    across_track_sample_count=5,
    range_max_m=40.0,
    range_bin_count=800,
    mount=MountSpec(translation_m=(0.2, 0.0, 0.1)),
)


def _vehicle() -> VehicleSpec:
    base = get_vehicle("reference_survey_vehicle").model_dump()
    base["name"] = "multibeam_test_vehicle"
    base["sensors"] = [MULTIBEAM.model_dump()]
    return VehicleSpec.model_validate(base)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, World, list]:
    world = seabed_world(
        autopilot_setup("auv", _vehicle(), heading_rad=0.3, rpy_rad=(0.0, 0.0, 0.3)),
        seed=3,
        environment=seabed_scene(mover=False, seabed_divisions=4, box_ned_m=(40.0, 40.0, 29.0)),
        tracing_backend="reference",
    )
    groups = world.step(100)
    folder = tmp_path_factory.mktemp("mapping")
    export_world(world, groups, mcap=folder / "dataset.mcap", hdf5=folder / "dataset.h5")
    write_true_seabed(folder / SEABED_FILE, world.environment.scene_at(0))
    return folder, world, groups


def _pings(groups: list) -> list:
    return [g.samples["auv/multibeam"] for g in groups if "auv/multibeam" in g.samples]


def test_world_pings_on_its_schedule_with_soundings_on_the_seabed(run) -> None:
    _, _, groups = run
    pings = _pings(groups)
    assert [p.time_ns for p in pings] == [200_000_000 * k for k in range(len(pings))]
    assert len(pings) == 6  # t = 0 .. 1 s inclusive
    for p in pings:
        q = p.channels["quality"]
        assert np.all(q & F["DETECTED"])
        z = p.channels["sounding_ned_m"][:, 2]
        assert np.all(np.abs(z - 30.0) < 0.1)
        assert p.metadata["refraction"].startswith("none")


def test_hdf5_round_trip_keeps_every_ping_bit_for_bit(run) -> None:
    folder, _, groups = run
    read = [g.samples["auv/multibeam"] for g in read_hdf5(folder / "dataset.h5").groups()
            if "auv/multibeam" in g.samples]  # fmt: skip
    assert [p.content_hash for p in read] == [p.content_hash for p in _pings(groups)]
    assert set(read[0].channels) >= {"truth_point_ned_m", "topk_instance", "linear_return"}


def test_mcap_messages_decode_with_an_independent_reader(run) -> None:
    folder, _, groups = run
    decoded = decoded_messages(folder / "dataset.mcap")
    pings = _pings(groups)
    det = decoded["/auv/multibeam/detections"]
    assert det[0][0] == "marine_acoustic_msgs/msg/SonarDetections"
    for (_, m), p in zip(det, pings, strict=True):
        assert np.array_equal(
            m.two_way_travel_times, p.channels["two_way_travel_time_s"].astype(np.float32)
        )
        assert np.array_equal(m.rx_angles, p.channels["beam_angle_rad"].astype(np.float32))
        assert [f.flag for f in m.flags] == [0] * MULTIBEAM.beam_count
        assert m.ping_info.sound_speed == np.float32(p.metadata["sound_speed_m_per_s"])
    cloud = decoded["/auv/multibeam/soundings"]
    assert cloud[0][0] == "sensor_msgs/msg/PointCloud2"
    m, p = cloud[0][1], pings[0]
    xyzi = np.frombuffer(bytes(m.data), dtype="<f4").reshape(m.width, 4)
    expected = frd_to_flu(p.channels["sounding_sensor_m"]).astype(np.float32)
    assert np.array_equal(xyzi[:, :3], expected)
    wc = decoded["/auv/multibeam/water_column"][0][1]
    image = np.frombuffer(bytes(wc.image.data), dtype="<f4").reshape(-1, wc.image.beam_count)
    assert np.array_equal(image, p.channels["linear_return"].astype(np.float32))


def test_bathymetry_of_the_run_meets_special_order(run) -> None:
    folder = run[0]
    assert run_soundings(folder / "dataset.h5").shape == (6 * MULTIBEAM.beam_count, 3)
    report, paths = bathymetry_run(folder, cell_m=1.0, backend="reference")
    assert report.special_order_share == 1.0
    assert report.max_abs_error_m < 0.1
    assert all(path.is_file() for path in paths.values())
    figures = json.loads(paths["figures"].read_text())
    assert figures["sounding_count"] == 6 * MULTIBEAM.beam_count
    assert math.isclose(figures["rms_error_m"], report.rms_error_m)
    assert paths["depth_png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bathymetry_command_reports_and_refuses(run, tmp_path: Path, capsys) -> None:
    folder, _, _ = run
    out = tmp_path / "grids"
    assert main(["bathymetry", str(folder), "--cell", "0.5", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "within IHO S-44 Special Order TVU" in text and "100.00 %" in text
    assert (out / "bathymetry.h5").is_file()
    assert main(["bathymetry", str(tmp_path / "missing")]) == 2
    assert main(["bathymetry", str(folder), "--cell", "0"]) == 2


def test_a_ping_period_below_the_two_way_time_is_refused_naming_the_field() -> None:
    spec = _vehicle().model_dump()
    spec["sensors"][0]["range_max_m"] = 200.0  # 2 x 200 m / ~1490 m/s = 0.268 s > 0.2 s
    with pytest.raises(ValueError, match=r"auv/multibeam\.schedule\.period_ns: expected a ping"):
        seabed_world(
            autopilot_setup("auv", VehicleSpec.model_validate(spec)),
            seed=3,
            environment=seabed_scene(mover=False, seabed_divisions=4),
            tracing_backend="reference",
        )


def test_preview_is_the_water_column_with_the_detections_in_red(run) -> None:
    import io

    from PIL import Image

    from leviathan.sensors import sensor_declarations

    ping = _pings(run[2])[0]
    png = sensor_declarations("multibeam").preview(ping)
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    assert pixels.shape == (MULTIBEAM.range_bin_count, MULTIBEAM.beam_count, 3)
    first = ping.channels["window_first_bin"]
    for beam in (0, MULTIBEAM.beam_count // 2, MULTIBEAM.beam_count - 1):
        assert tuple(pixels[first[beam], beam]) == (230, 40, 40)
    assert tuple(pixels[0, 0]) == (0, 0, 0)  # no return before the seabed: black
