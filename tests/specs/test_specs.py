"""Tests for leviathan.specs: validation, schedules, mounts, water and file I/O."""

from __future__ import annotations

import json
import math
import os
import re
import tomllib
from pathlib import Path

import numpy as np
import pytest

from leviathan.catalogue import catalogue, get_vehicle
from leviathan.specs import (
    BeamPatternSpec,
    CameraSpec,
    MountSpec,
    ScheduleSpec,
    SpecError,
    VehicleSpec,
    WaterSpec,
    load_spec,
    save_spec,
    spec_from_dict,
)

VEHICLE_NAMES = tuple(catalogue())


def _reference_dict() -> dict:
    return get_vehicle("reference_survey_vehicle").model_dump(mode="json")


def _sonar_dict() -> dict:
    return _reference_dict()["sensors"][0]


# ----------------------------------------------------------------- round trips


@pytest.mark.parametrize("name", VEHICLE_NAMES)
@pytest.mark.parametrize("suffix", [".json", ".toml"])
def test_catalogue_vehicle_round_trips(tmp_path: Path, name: str, suffix: str) -> None:
    spec = get_vehicle(name)
    path = save_spec(spec, tmp_path / f"{name}{suffix}")
    assert load_spec(path, VehicleSpec) == spec


def test_toml_round_trip_restores_none_fields(tmp_path: Path) -> None:
    sonar = get_vehicle("reference_survey_vehicle").sensor("sonar")
    uniform = sonar.model_copy(update={"beam_pattern": BeamPatternSpec(kind="uniform")})
    uniform = type(sonar).model_validate(uniform.model_dump())
    path = save_spec(uniform, tmp_path / "sonar.toml")
    assert "3db" not in path.read_text()
    loaded = load_spec(path, type(sonar))
    assert loaded == uniform
    assert loaded.beam_pattern.azimuth_3db_full_width_deg is None


def test_json_is_sorted_and_indented(tmp_path: Path) -> None:
    spec = get_vehicle("torpedo_auv")
    text = save_spec(spec, tmp_path / "v.json").read_text()
    assert text == json.dumps(spec.model_dump(mode="json"), sort_keys=True, indent=2) + "\n"


def test_toml_is_valid_toml(tmp_path: Path) -> None:
    path = save_spec(get_vehicle("inspection_rov"), tmp_path / "v.toml")
    assert tomllib.loads(path.read_text())["name"] == "inspection_rov"


# ------------------------------------------------------------------ validation


def test_extra_field_refused_with_path() -> None:
    data = _reference_dict()
    data["mass"]["colour"] = "yellow"
    with pytest.raises(SpecError, match=r"mass\.colour: Extra inputs are not permitted"):
        spec_from_dict(data, VehicleSpec)


def test_negative_mass_refused_naming_field() -> None:
    data = _reference_dict()
    data["mass"]["mass_kg"] = -1.0
    with pytest.raises(SpecError, match=r"mass\.mass_kg: .*greater than 0 \(got -1\.0\)"):
        spec_from_dict(data, VehicleSpec)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_float_refused(bad: float) -> None:
    data = _reference_dict()
    data["sensors"][0]["frequency_hz"] = bad
    # The path is the document's: the union tag pydantic adds ("imaging_sonar") is left out.
    expected = rf"sensors\[0\]\.frequency_hz: .*finite number \(got {re.escape(repr(bad))}\)"
    with pytest.raises(SpecError, match=expected):
        spec_from_dict(data, VehicleSpec)


def test_non_finite_tuple_element_refused() -> None:
    with pytest.raises(SpecError, match=r"translation_m\[1\]: .*finite"):
        spec_from_dict({"translation_m": [0.0, math.nan, 0.0]}, MountSpec)


def test_gaussian_without_widths_refused() -> None:
    with pytest.raises(SpecError, match="gaussian beam needs elevation_3db_full_width_deg"):
        spec_from_dict({"kind": "gaussian", "azimuth_3db_full_width_deg": 10.0}, BeamPatternSpec)


def test_uniform_with_widths_refused() -> None:
    with pytest.raises(SpecError, match="uniform beam has no widths"):
        spec_from_dict({"kind": "uniform", "azimuth_3db_full_width_deg": 10.0}, BeamPatternSpec)


def test_duplicate_sensor_names_refused() -> None:
    data = _reference_dict()
    data["sensors"][1]["name"] = "sonar"
    with pytest.raises(SpecError, match=r"sensors: .*duplicate name 'sonar'"):
        spec_from_dict(data, VehicleSpec)


@pytest.mark.parametrize("range_max_m", [0.5, 0.1])
def test_range_max_not_above_min_refused(range_max_m: float) -> None:
    data = _sonar_dict()
    data["range_max_m"] = range_max_m
    with pytest.raises(SpecError, match=r"range_max_m: .*must be greater than range_min_m"):
        spec_from_dict(data, type(get_vehicle("reference_survey_vehicle").sensor("sonar")))


def test_camera_far_not_above_near_refused() -> None:
    data = get_vehicle("torpedo_auv").sensors[0].model_dump()
    data["far_m"] = data["near_m"]
    with pytest.raises(SpecError, match=r"far_m: .*greater than near_m"):
        spec_from_dict(data, CameraSpec)


def test_unknown_sensor_kind_refused() -> None:
    data = _reference_dict()
    data["sensors"][0]["kind"] = "lidar"
    with pytest.raises(SpecError, match=r"sensors\[0\]: .*tag 'lidar'"):
        spec_from_dict(data, VehicleSpec)


def test_test_reference_needs_note() -> None:
    data = _reference_dict()
    data["reference_note"] = ""
    with pytest.raises(SpecError, match="reference_note"):
        spec_from_dict(data, VehicleSpec)


def test_thruster_direction_must_be_unit() -> None:
    data = _reference_dict()
    data["thrusters"][0]["direction"] = [2.0, 0.0, 0.0]
    with pytest.raises(SpecError, match=r"thrusters\[0\]\.direction: .*normalise"):
        spec_from_dict(data, VehicleSpec)


def test_cg_must_be_origin() -> None:
    data = _reference_dict()
    data["mass"]["cg_m"] = [0.0, 0.0, 0.01]
    with pytest.raises(SpecError, match=r"mass\.cg_m: .*centre of gravity"):
        spec_from_dict(data, VehicleSpec)


def test_specs_are_frozen() -> None:
    spec = get_vehicle("torpedo_auv")
    with pytest.raises(ValueError, match="frozen"):
        spec.name = "other"  # type: ignore[misc]


def test_error_lists_every_problem() -> None:
    data = _reference_dict()
    data["mass"]["mass_kg"] = 0.0
    data["mass"]["displaced_volume_m3"] = -1.0
    with pytest.raises(SpecError) as info:
        spec_from_dict(data, VehicleSpec)
    assert len(info.value.errors) == 2


# ------------------------------------------------------------------- schedules


def test_schedule_from_rate_5_hz() -> None:
    schedule = ScheduleSpec.from_rate_hz(5)
    assert schedule.period_ns == 200_000_000
    assert schedule.phase_ns == 0
    assert schedule.rate_hz == 5.0


def test_schedule_from_rate_decimal() -> None:
    assert ScheduleSpec.from_rate_hz(2.5).period_ns == 400_000_000


def test_schedule_from_rate_3_hz_refused() -> None:
    with pytest.raises(ValueError, match="not a whole number of nanoseconds"):
        ScheduleSpec.from_rate_hz(3)


@pytest.mark.parametrize("rate", [0, -5, math.nan, math.inf])
def test_schedule_from_bad_rate_refused(rate: float) -> None:
    with pytest.raises(ValueError, match="finite and > 0"):
        ScheduleSpec.from_rate_hz(rate)


def test_schedule_period_must_be_positive() -> None:
    # The lower bound is MIN_PERIOD_NS (1 ns); 0 lies below it.
    with pytest.raises(SpecError, match=r"period_ns: .*greater than or equal to 1 \(got 0\)"):
        spec_from_dict({"period_ns": 0}, ScheduleSpec)


def test_schedule_runtime_object() -> None:
    from leviathan.schedule import SensorSchedule

    runtime = ScheduleSpec(period_ns=10, phase_ns=3).schedule()
    assert runtime == SensorSchedule(period_ns=10, phase_ns=3)


# ---------------------------------------------------------------------- mounts


def test_sonar_mount_tilts_boresight_down() -> None:
    mount = get_vehicle("reference_survey_vehicle").sensor("sonar").mount
    T_body_sonar = mount.transform()
    boresight_body = T_body_sonar.rotation @ np.array([1.0, 0.0, 0.0])
    assert boresight_body.shape == (3,)
    assert boresight_body[0] > 0.0
    assert boresight_body[2] > 0.0  # FRD: +z is down
    np.testing.assert_allclose(
        boresight_body, [math.cos(math.radians(15)), 0.0, math.sin(math.radians(15))], atol=1e-15
    )
    np.testing.assert_array_equal(T_body_sonar.translation, np.array(mount.translation_m))


def test_dvl_boresight_points_down() -> None:
    mount = get_vehicle("reference_survey_vehicle").sensor("dvl").mount
    boresight_body = mount.transform().rotation @ np.array([1.0, 0.0, 0.0])
    np.testing.assert_allclose(boresight_body, [0.0, 0.0, 1.0], atol=1e-15)


def test_default_mount_is_identity_rotation() -> None:
    T = MountSpec(translation_m=(1.0, 2.0, 3.0)).transform()
    np.testing.assert_array_equal(T.rotation, np.eye(3))
    np.testing.assert_array_equal(T.translation, np.array([1.0, 2.0, 3.0]))


# ----------------------------------------------------------------------- water


def test_water_defaults() -> None:
    water = WaterSpec()
    assert (water.temperature_c, water.salinity_psu, water.ph) == (10.0, 35.0, 8.0)
    assert water.current_at_depth(100.0) == (0.0, 0.0, 0.0)


def test_water_out_of_absorption_validity_is_still_valid() -> None:
    # Validity of the absorption model is the acoustics module's concern: a medium
    # outside it is a valid spec (constructed and read from a document alike) that
    # keeps its values, not one clamped into the model's range.
    from leviathan.acoustics import medium_support

    declared = {"temperature_c": 35.0, "salinity_psu": 0.0, "ph": 6.0}
    support = medium_support(900_000.0, depth_m=10.0, **declared)
    assert not support.supported
    assert [reason.split("=")[0] for reason in support.reasons] == [
        "temperature_c",
        "salinity_psu",
        "ph",
    ]
    for water in (WaterSpec(**declared), spec_from_dict(declared, WaterSpec)):
        assert (water.temperature_c, water.salinity_psu, water.ph) == (35.0, 0.0, 6.0)


@pytest.mark.parametrize(
    ("field", "value"),
    [("salinity_psu", -0.1), ("ph", 14.5), ("temperature_c", -6.0), ("temperature_c", 41.0)],
)
def test_water_impossible_values_refused(field: str, value: float) -> None:
    with pytest.raises(SpecError, match=field):
        spec_from_dict({field: value}, WaterSpec)


def test_current_profile_interpolates_and_clamps() -> None:
    water = WaterSpec(
        current_profile=(
            {"depth_m": 0.0, "current_ned_m_per_s": (1.0, 0.0, 0.0)},
            {"depth_m": 10.0, "current_ned_m_per_s": (0.0, 1.0, 0.0)},
        )
    )
    assert water.current_at_depth(-3.0) == (1.0, 0.0, 0.0)
    assert water.current_at_depth(5.0) == (0.5, 0.5, 0.0)
    assert water.current_at_depth(10.0) == (0.0, 1.0, 0.0)
    assert water.current_at_depth(50.0) == (0.0, 1.0, 0.0)


def test_current_profile_depths_must_increase() -> None:
    layer = {"depth_m": 5.0, "current_ned_m_per_s": (0.0, 0.0, 0.0)}
    with pytest.raises(SpecError, match=r"current_profile: .*strictly increasing"):
        spec_from_dict({"current_profile": [layer, layer]}, WaterSpec)


def test_uniform_current_and_profile_conflict() -> None:
    layer = {"depth_m": 5.0, "current_ned_m_per_s": (0.0, 0.0, 0.0)}
    with pytest.raises(SpecError, match="not both"):
        spec_from_dict(
            {"current_ned_m_per_s": (0.1, 0.0, 0.0), "current_profile": [layer]}, WaterSpec
        )


# -------------------------------------------------------------------- file I/O


def test_save_refuses_overwrite(tmp_path: Path) -> None:
    spec = get_vehicle("torpedo_auv")
    path = save_spec(spec, tmp_path / "v.json")
    before = path.read_bytes()
    with pytest.raises(FileExistsError, match="overwrite=True"):
        save_spec(get_vehicle("inspection_rov"), path)
    assert path.read_bytes() == before
    save_spec(get_vehicle("inspection_rov"), path, overwrite=True)
    assert load_spec(path, VehicleSpec) == get_vehicle("inspection_rov")


@pytest.mark.parametrize("overwrite", [False, True])
def test_save_leaves_no_temp_file_on_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, overwrite: bool
) -> None:
    def fail(*args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    # Both ways the atomic writer can move the finished file into place fail.
    monkeypatch.setattr(os, "replace", fail)
    monkeypatch.setattr(os, "link", fail)
    with pytest.raises(OSError, match="disk full"):
        save_spec(get_vehicle("torpedo_auv"), tmp_path / "v.toml", overwrite=overwrite)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("suffix", [".yaml", ".txt", ""])
def test_unsupported_extension_refused(tmp_path: Path, suffix: str) -> None:
    with pytest.raises(ValueError, match=r"unsupported spec file extension.*\.json, \.toml"):
        save_spec(get_vehicle("torpedo_auv"), tmp_path / f"v{suffix}")
    with pytest.raises(ValueError, match="unsupported spec file extension"):
        load_spec(tmp_path / f"v{suffix}", VehicleSpec)


def test_load_error_names_file(tmp_path: Path) -> None:
    data = _reference_dict()
    data["mass"]["mass_kg"] = -2.0
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data))
    with pytest.raises(SpecError, match=r"broken\.json(.|\n)*mass\.mass_kg"):
        load_spec(path, VehicleSpec)


def test_load_unparsable_file_names_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text("name = \n")
    with pytest.raises(SpecError, match=r"broken\.toml"):
        load_spec(path, VehicleSpec)
