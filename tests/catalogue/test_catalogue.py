"""Tests for leviathan.catalogue: the vehicle documents, their contents and the table."""

from __future__ import annotations

import math
import shutil
import tomllib
from importlib.resources import as_file, files
from pathlib import Path

import pytest

from leviathan.catalogue import _vehicles, catalogue, format_catalogue, get_vehicle, vehicle_names
from leviathan.identity import content_hash
from leviathan.specs import (
    CameraSpec,
    DVLSpec,
    ImagingSonarSpec,
    IMUSpec,
    SideScanSonarSpec,
    SpecError,
    VehicleSpec,
    load_spec,
    save_spec,
)

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = files("leviathan.catalogue").joinpath("vehicles")


def _document(name: str) -> str:
    return DOCUMENTS.joinpath(f"{name}.toml").read_text(encoding="utf-8")


@pytest.fixture
def fresh_catalogue():
    """Let a test rebuild the catalogue, and rebuild the real one afterwards."""
    _vehicles._build.cache_clear()
    yield
    _vehicles._build.cache_clear()


# ------------------------------------------------------------------- documents


def test_every_document_is_one_vehicle_named_like_its_file() -> None:
    documents = sorted(entry.name for entry in DOCUMENTS.iterdir() if entry.name.endswith(".toml"))
    assert documents == [f"{name}.toml" for name in vehicle_names()]
    assert len(documents) == 4


@pytest.mark.parametrize("name", vehicle_names())
def test_vehicle_is_its_document_read_with_the_public_loader(name: str) -> None:
    with as_file(DOCUMENTS.joinpath(f"{name}.toml")) as path:
        loaded = load_spec(path, VehicleSpec)
    assert loaded == get_vehicle(name)
    assert content_hash(loaded) == content_hash(get_vehicle(name))


@pytest.mark.parametrize("name", vehicle_names())
def test_document_states_every_field_as_it_is_saved(tmp_path: Path, name: str) -> None:
    # Nothing is left to a default and every number is written as the value it
    # holds: the document parses to exactly what saving its spec writes.
    saved = save_spec(get_vehicle(name), tmp_path / f"{name}.toml")
    assert tomllib.loads(_document(name)) == tomllib.loads(saved.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", vehicle_names())
def test_document_round_trip_is_stable(tmp_path: Path, name: str) -> None:
    first = save_spec(get_vehicle(name), tmp_path / "first.toml")
    again = load_spec(first, VehicleSpec)
    second = save_spec(again, tmp_path / "second.toml")
    assert second.read_bytes() == first.read_bytes()
    assert again == get_vehicle(name)
    assert content_hash(again) == content_hash(get_vehicle(name))


def test_get_vehicle_returns_the_one_loaded_spec() -> None:
    # Documents are read once; every call hands out the same frozen spec.
    for name in vehicle_names():
        assert get_vehicle(name) is get_vehicle(name)
        assert catalogue()[name] is get_vehicle(name)


def test_every_document_is_declared_package_data() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = config["package-data"]["leviathan.catalogue"]
    package = ROOT / "leviathan" / "catalogue"
    shipped = {path for pattern in patterns for path in package.glob(pattern)}
    assert {package / "vehicles" / f"{name}.toml" for name in vehicle_names()} <= shipped


def test_misnamed_document_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_catalogue: None
) -> None:
    folder = tmp_path / "vehicles"
    folder.mkdir()
    shutil.copyfile(Path(str(DOCUMENTS.joinpath("torpedo_auv.toml"))), folder / "torpedo.toml")
    monkeypatch.setattr(_vehicles, "files", lambda package: tmp_path)
    with pytest.raises(ValueError, match=r"vehicles/torpedo\.toml declares name='torpedo_auv'"):
        vehicle_names()


def test_invalid_document_is_refused_naming_file_and_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_catalogue: None
) -> None:
    folder = tmp_path / "vehicles"
    folder.mkdir()
    text = _document("torpedo_auv").replace("mass_kg = 30.0", "mass_kg = -30.0")
    (folder / "torpedo_auv.toml").write_text(text, encoding="utf-8")
    monkeypatch.setattr(_vehicles, "files", lambda package: tmp_path)
    with pytest.raises(SpecError, match=r"torpedo_auv\.toml(.|\n)*mass\.mass_kg"):
        get_vehicle("torpedo_auv")


# -------------------------------------------------------------------- contents


def test_vehicle_names_sorted_and_complete() -> None:
    names = vehicle_names()
    assert names == tuple(sorted(names))
    assert {
        "torpedo_auv",
        "inspection_rov",
        "reference_survey_vehicle",
        "reference_mapping_auv",
    } <= set(names)
    assert tuple(catalogue()) == names


def test_get_vehicle_unknown_lists_names() -> None:
    with pytest.raises(KeyError, match=r"available: .*torpedo_auv"):
        get_vehicle("submarine")


def test_catalogue_returns_fresh_dict() -> None:
    first = catalogue()
    first.clear()
    second = catalogue()
    assert second is not first
    assert tuple(second) == vehicle_names()


@pytest.mark.parametrize("name", ["torpedo_auv", "inspection_rov"])
def test_production_vehicles_declare_camera_only(name: str) -> None:
    vehicle = get_vehicle(name)
    assert vehicle.role == "production"
    assert len(vehicle.sensors) == 1
    assert isinstance(vehicle.sensors[0], CameraSpec)
    assert vehicle.thrusters


@pytest.mark.parametrize("name", ["reference_survey_vehicle", "reference_mapping_auv"])
def test_reference_vehicle_is_labelled(name: str) -> None:
    vehicle = get_vehicle(name)
    assert vehicle.role == "test_reference"
    assert "test" in vehicle.reference_note.lower()
    assert "not a device specification" in vehicle.reference_note


def test_reference_sonar_values() -> None:
    sonar = get_vehicle("reference_survey_vehicle").sensor("sonar")
    assert isinstance(sonar, ImagingSonarSpec)
    assert sonar.frequency_hz == 900_000.0
    assert sonar.azimuth_fov_deg == 90.0
    assert sonar.elevation_aperture_deg == 20.0
    assert sonar.beam_pattern.kind == "gaussian"
    assert sonar.beam_pattern.azimuth_3db_full_width_deg == 90.0
    assert sonar.beam_pattern.elevation_3db_full_width_deg == 20.0
    assert sonar.schedule.period_ns == 200_000_000
    assert sonar.schedule.rate_hz == 5.0
    assert (sonar.bearing_count, sonar.elevation_sample_count) == (256, 2177)
    assert (sonar.range_min_m, sonar.range_max_m, sonar.range_bin_count) == (0.5, 60.0, 512)
    assert (sonar.top_k, sonar.speckle) == (4, False)
    assert sonar.mount.rpy_deg == (0.0, -15.0, 0.0)
    assert sonar.range_bin_width_m == (60.0 - 0.5) / 512
    assert "not a device specification" in sonar.hardware_note


def test_reference_mapping_auv_carries_side_scan_dvl_and_imu_meeting_the_fill_rule() -> None:
    vehicle = get_vehicle("reference_mapping_auv")
    assert [s.kind for s in vehicle.sensors] == ["side_scan", "multibeam", "dvl", "imu"]
    side_scan = vehicle.sensor("side_scan")
    assert isinstance(side_scan, SideScanSonarSpec)
    assert side_scan.aperture_max_depression_deg == 90.0  # nadir sampled
    # The sampling rule at the design altitude of 8 m: dpsi <= 0.5 dr h / R_max^2.
    bound = 0.5 * side_scan.range_bin_width_m * 8.0 / side_scan.range_max_m**2
    assert side_scan.across_track_spacing_rad <= bound
    assert side_scan.fill_altitude_m <= 8.0
    assert vehicle.hull is not None and vehicle.hull.visible_to_own_sensors is False
    assert "not a device specification" in side_scan.hardware_note


def test_reference_mapping_auv_multibeam_sees_its_whole_swath_at_20_m() -> None:
    from multibeam_cases import flat_seabed

    from leviathan.frames import Transform
    from leviathan.multibeam import multibeam_ping
    from leviathan.reference_cpu.multibeam import DETECTION_FLAGS
    from leviathan.sonar.beams import minimum_ping_period_ns

    mb = get_vehicle("reference_mapping_auv").sensor("multibeam")
    assert (mb.beam_count, mb.swath_deg, mb.beam_spacing) == (256, 130.0, "equidistant")
    assert mb.range_bin_width_m == 0.05
    # The period exceeds the two-way time to the far range in cold, fresh-ish water.
    slowest = minimum_ping_period_ns(
        mb.range_max_m, temperature_c=0.0, salinity_psu=25.0, depth_m=0
    )
    assert mb.schedule.period_ns >= slowest
    ping = multibeam_ping(
        flat_seabed(40.0),
        mb,
        Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 20.0)),
        sensor_id="auv/multibeam",
        sample_index=0,
        time_ns=0,
        backend="reference",
    )
    assert (ping.channels["quality"] == DETECTION_FLAGS["DETECTED"]).all()
    east = ping.channels["sounding_ned_m"][:, 1]
    swath = 2.0 * 20.0 * math.tan(math.radians(65.0))
    assert abs((east[-1] - east[0]) - swath) < 0.05 * swath


def test_reference_dvl_and_imu() -> None:
    vehicle = get_vehicle("reference_survey_vehicle")
    dvl = vehicle.sensor("dvl")
    imu = vehicle.sensor("imu")
    assert isinstance(dvl, DVLSpec)
    assert (dvl.beam_count, dvl.beam_angle_deg, dvl.schedule.period_ns) == (4, 30.0, 100_000_000)
    assert isinstance(imu, IMUSpec)
    assert imu.schedule.period_ns == 10_000_000
    assert imu.mount.translation_m == (0.0, 0.0, 0.0)


def test_reference_vehicle_can_fly() -> None:
    directions = {t.direction for t in get_vehicle("reference_survey_vehicle").thrusters}
    # Surge, sway and heave each have an actuator.
    assert {(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)} <= directions


def test_sensor_ids_sorted() -> None:
    assert get_vehicle("reference_survey_vehicle").sensor_ids == (
        "reference_survey_vehicle/dvl",
        "reference_survey_vehicle/imu",
        "reference_survey_vehicle/pressure",
        "reference_survey_vehicle/sonar",
    )


def test_sensor_lookup_unknown_lists_names() -> None:
    with pytest.raises(KeyError, match="available: dvl, imu, pressure, sonar"):
        get_vehicle("reference_survey_vehicle").sensor("camera")


def test_format_catalogue_mentions_every_vehicle_and_rate() -> None:
    text = format_catalogue()
    for vehicle in catalogue().values():
        assert vehicle.name in text
        for sensor in vehicle.sensors:
            assert sensor.name in text
            assert f"{sensor.schedule.rate_hz:g} Hz" in text
    for expected in ("5 Hz", "10 Hz", "100 Hz", "900 kHz", "90°", "1280×720", "[TEST/REFERENCE]"):
        assert expected in text


def test_format_catalogue_marks_only_reference_as_test() -> None:
    for line in format_catalogue().splitlines():
        if line.startswith(("torpedo_auv", "inspection_rov")):
            assert "TEST" not in line
        if line.startswith("reference_survey_vehicle"):
            assert "[TEST/REFERENCE]" in line


def test_catalogue_specs_revalidate() -> None:
    for vehicle in catalogue().values():
        assert VehicleSpec.model_validate(vehicle.model_dump()) == vehicle
