"""Strict documents and bounded specs: no coercion, size limits, array bounds, schedule bounds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tomli_w
from pydantic import ValidationError

from leviathan.catalogue import catalogue, get_vehicle
from leviathan.identity import content_hash
from leviathan.parity import scene_cases
from leviathan.specs import (
    MAX_CAMERA_PIXEL_COUNT,
    MAX_DOCUMENT_BYTES,
    MAX_DOCUMENT_DEPTH,
    MAX_DOCUMENT_ELEMENTS,
    MAX_DVL_BEAM_COUNT,
    MAX_SONAR_CELL_COUNT,
    MAX_SONAR_RAY_COUNT,
    MAX_SONAR_TOPK_SLOT_COUNT,
    CameraSpec,
    DVLSpec,
    ImagingSonarSpec,
    MassPropertiesSpec,
    MountSpec,
    ScheduleSpec,
    SpecError,
    VehicleSpec,
    format_validation_error,
    load_spec,
    spec_from_dict,
)
from leviathan.specs._documents import _document_problems as document_problems
from leviathan.time import MAX_PERIOD_NS, MIN_PERIOD_NS

DEEP = 100_000
NOT_A_NUMBER = {
    "bool": (True, "not bool; a boolean is not a number"),
    "str": ("45", "not str; write the number without quotes"),
}


def _vehicle_dict() -> dict[str, Any]:
    return get_vehicle("reference_survey_vehicle").model_dump(mode="json")


def _sonar_dict(**over: Any) -> dict[str, Any]:
    return {**get_vehicle("reference_survey_vehicle").sensor("sonar").model_dump(), **over}


def _camera_dict(**over: Any) -> dict[str, Any]:
    return {**get_vehicle("torpedo_auv").sensor("front_camera").model_dump(), **over}


def _mass_fields() -> dict[str, Any]:
    return get_vehicle("reference_survey_vehicle").mass.model_dump()


def _without_none(value: Any) -> Any:
    """TOML has no null: a None-valued key is left out (its field's default restores it),
    as ``save_spec`` writes TOML."""
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_none(v) for v in value]
    return value


def _write(tmp_path: Path, data: dict[str, Any], suffix: str) -> Path:
    path = tmp_path / f"vehicle{suffix}"
    path.write_text(json.dumps(data) if suffix == ".json" else tomli_w.dumps(_without_none(data)))
    return path


def _errors(call: Any) -> tuple[str, ...]:
    with pytest.raises(SpecError) as info:
        call()
    return info.value.errors


# ----------------------------------------------------------- no coercion: documents


@pytest.mark.parametrize("suffix", [".json", ".toml"])
@pytest.mark.parametrize("given", sorted(NOT_A_NUMBER))
def test_document_refuses_non_number_for_float(tmp_path: Path, suffix: str, given: str) -> None:
    value, why = NOT_A_NUMBER[given]
    data = _vehicle_dict()
    data["mass"]["mass_kg"] = value
    path = _write(tmp_path, data, suffix)
    with pytest.raises(SpecError) as info:
        load_spec(path, VehicleSpec)
    assert info.value.errors == (
        f"mass.mass_kg: expected a number (int or float), {why} (got {value!r})",
    )
    assert str(path) in str(info.value)
    assert info.value.source == str(path)


@pytest.mark.parametrize("suffix", [".json", ".toml"])
def test_document_refuses_float_for_int(tmp_path: Path, suffix: str) -> None:
    data = _vehicle_dict()
    data["sensors"][2]["schedule"]["period_ns"] = 10_000_000.0
    errors = _errors(lambda: load_spec(_write(tmp_path, data, suffix), VehicleSpec))
    assert errors == (
        "sensors[2].schedule.period_ns: expected a whole number (int), not float; a whole "
        "number is written without a decimal point or exponent (got 10000000.0)",
    )


@pytest.mark.parametrize("value", [True, "4"])
def test_document_refuses_bool_and_str_for_int(value: Any) -> None:
    data = _vehicle_dict()
    data["sensors"][0]["top_k"] = value
    (error,) = _errors(lambda: spec_from_dict(data, VehicleSpec))
    assert error.startswith("sensors[0].top_k: expected a whole number (int), not ")
    assert error.endswith(f"(got {value!r})")


@pytest.mark.parametrize("value", [1, "yes", "true"])
def test_document_refuses_non_bool_for_bool(value: Any) -> None:
    data = _vehicle_dict()
    data["sensors"][0]["speckle"] = value
    errors = _errors(lambda: spec_from_dict(data, VehicleSpec))
    assert errors == (f"sensors[0].speckle: Input should be a valid boolean (got {value!r})",)


def test_document_refuses_number_for_text() -> None:
    data = _vehicle_dict()
    data["name"] = 7
    assert _errors(lambda: spec_from_dict(data, VehicleSpec)) == (
        "name: Input should be a valid string (got 7)",
    )


@pytest.mark.parametrize("suffix", [".json", ".toml"])
def test_document_accepts_int_for_float(tmp_path: Path, suffix: str) -> None:
    data = _vehicle_dict()
    data["mass"]["mass_kg"] = 45
    loaded = load_spec(_write(tmp_path, data, suffix), VehicleSpec)
    assert type(loaded.mass.mass_kg) is float
    assert loaded.mass.mass_kg == 45.0
    assert loaded == get_vehicle("reference_survey_vehicle")


@pytest.mark.parametrize("suffix", [".json", ".toml"])
def test_document_arrays_become_tuples(tmp_path: Path, suffix: str) -> None:
    loaded = load_spec(_write(tmp_path, _vehicle_dict(), suffix), VehicleSpec)
    assert type(loaded.sensors) is tuple
    assert type(loaded.sensors[0].mount.rpy_deg) is tuple
    assert loaded.sensors[0].mount.rpy_deg == (0.0, -15.0, 0.0)


# ----------------------------------------------------- no coercion: Python construction


@pytest.mark.parametrize("given", sorted(NOT_A_NUMBER))
def test_construction_refuses_non_number_for_float(given: str) -> None:
    value, why = NOT_A_NUMBER[given]
    with pytest.raises(ValidationError) as info:
        MassPropertiesSpec(**{**_mass_fields(), "mass_kg": value})
    (error,) = info.value.errors()
    assert error["loc"] == ("mass_kg",)
    assert error["msg"] == f"expected a number (int or float), {why}"
    assert error["input"] == value
    text = str(info.value)
    assert "mass_kg" in text
    assert f"input_value={value!r}" in text


def test_construction_refuses_numpy_bool_for_float() -> None:
    with pytest.raises(ValidationError, match=r"translation_m\.0\n.*not bool; a boolean"):
        MountSpec(translation_m=(np.True_, 0.0, 0.0))


def test_construction_refuses_float_for_int() -> None:
    with pytest.raises(ValidationError) as info:
        ScheduleSpec(period_ns=200_000_000.0)
    (error,) = info.value.errors()
    assert (error["loc"], error["type"], error["input"]) == (
        ("period_ns",),
        "integer_expected",
        200_000_000.0,
    )


def test_construction_refuses_bool_for_int() -> None:
    with pytest.raises(ValidationError, match=r"period_ns\n  expected a whole number \(int\)"):
        ScheduleSpec(period_ns=True)


def test_construction_accepts_int_for_float() -> None:
    spec = MassPropertiesSpec(**{**_mass_fields(), "mass_kg": 45})
    assert type(spec.mass_kg) is float
    assert spec == get_vehicle("reference_survey_vehicle").mass


def test_construction_accepts_numpy_numbers() -> None:
    schedule = ScheduleSpec(period_ns=np.int64(200_000_000), phase_ns=np.uint8(3))
    assert (type(schedule.period_ns), type(schedule.phase_ns)) == (int, int)
    assert schedule == ScheduleSpec(period_ns=200_000_000, phase_ns=3)
    mount = MountSpec(translation_m=np.array([0.5, 2.0, -1.0]))
    assert mount.translation_m == (0.5, 2.0, -1.0)
    assert all(type(c) is float for c in mount.translation_m)


def test_construction_accepts_lists_for_tuples() -> None:
    mount = MountSpec(translation_m=[1, 2.5, 0], rpy_deg=[0, -15, 0])
    assert mount.translation_m == (1.0, 2.5, 0.0)
    assert type(mount.translation_m) is tuple
    vehicle = get_vehicle("reference_survey_vehicle")
    rebuilt = VehicleSpec.model_validate(
        {**vehicle.model_dump(), "thrusters": list(vehicle.thrusters), "sensors": []}
    )
    assert rebuilt.thrusters == vehicle.thrusters
    assert rebuilt.sensors == ()


def test_int_beyond_float_range_refused() -> None:
    with pytest.raises(ValidationError, match="float64 range"):
        MountSpec(translation_m=(10**400, 0.0, 0.0))


# ------------------------------------------------------------------- error messages


def test_error_path_leaves_out_union_tag() -> None:
    data = _vehicle_dict()
    data["sensors"][0]["schedule"]["period_ns"] = -5
    assert _errors(lambda: spec_from_dict(data, VehicleSpec)) == (
        f"sensors[0].schedule.period_ns: Input should be greater than or equal to "
        f"{MIN_PERIOD_NS} (got -5)",
    )


def test_format_validation_error_without_model_keeps_tag() -> None:
    data = _vehicle_dict()
    data["sensors"][0]["schedule"]["period_ns"] = -5
    with pytest.raises(ValidationError) as info:
        VehicleSpec.model_validate(data)
    (line,) = format_validation_error(info.value)
    assert line.startswith("sensors[0].imaging_sonar.schedule.period_ns: ")
    (line,) = format_validation_error(info.value, VehicleSpec)
    assert line.startswith("sensors[0].schedule.period_ns: ")


def test_missing_field_is_described() -> None:
    data = _vehicle_dict()
    del data["mass"]["mass_kg"]
    assert _errors(lambda: spec_from_dict(data, VehicleSpec)) == (
        "mass.mass_kg: Field required: Dry mass [kg] (not given)",
    )


def test_misspelt_field_gets_a_suggestion() -> None:
    data = _vehicle_dict()
    data["sensors"][1]["beam_cuont"] = 4
    assert _errors(lambda: spec_from_dict(data, VehicleSpec)) == (
        "sensors[1].beam_cuont: Extra inputs are not permitted; did you mean 'beam_count'? (got 4)",
    )


def test_extra_key_named_like_a_tag_keeps_its_path() -> None:
    data = _vehicle_dict()
    data["sensors"][0]["beam_pattern"]["gaussian"] = 1
    assert _errors(lambda: spec_from_dict(data, VehicleSpec)) == (
        "sensors[0].beam_pattern.gaussian: Extra inputs are not permitted (got 1)",
    )


def test_huge_value_is_shortened_in_message() -> None:
    data = _vehicle_dict()
    data["mass"]["cb_m"] = ["x" * 1000, 0.0, 0.0]
    (error,) = _errors(lambda: spec_from_dict(data, VehicleSpec))
    assert error.startswith("mass.cb_m[0]: expected a number (int or float), not str")
    assert len(error) < 200


# ---------------------------------------------------------------- document limits


def _nested_json(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("suffix", [".json", ".toml"])
def test_deep_document_refused_before_parsing(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"deep{suffix}"
    nested = _nested_json(DEEP)
    path.write_text(nested if suffix == ".json" else f"a = {nested}\n")
    # TOML's root table is one level more than the arrays inside it.
    depth = DEEP if suffix == ".json" else DEEP + 1
    errors = _errors(lambda: load_spec(path, VehicleSpec))
    assert errors == (
        f"<root>: nesting depth {depth:,} exceeds MAX_DOCUMENT_DEPTH = {MAX_DOCUMENT_DEPTH} "
        "(objects/tables and arrays inside each other)",
    )


def test_deep_toml_tables_refused(tmp_path: Path) -> None:
    # Dotted table names nest without any brackets; the parsed document is measured.
    path = tmp_path / "deep.toml"
    path.write_text("[" + ".".join(["a"] * (MAX_DOCUMENT_DEPTH + 1)) + "]\n")
    (error,) = _errors(lambda: load_spec(path, VehicleSpec))
    path_to_deep = ".".join(["a"] * MAX_DOCUMENT_DEPTH)
    assert error == (
        f"{path_to_deep}: nesting depth {MAX_DOCUMENT_DEPTH + 2} exceeds MAX_DOCUMENT_DEPTH = "
        f"{MAX_DOCUMENT_DEPTH} (objects/tables and arrays inside each other)"
    )


def test_deep_mapping_refused_without_recursion() -> None:
    data: Any = 0.0
    for _ in range(DEEP):
        data = {"a": data}
    # DEEP mappings and the innermost float: DEEP + 1 values, nested DEEP deep.
    path_to_deep = ".".join(["a"] * MAX_DOCUMENT_DEPTH)
    assert _errors(lambda: spec_from_dict(data, VehicleSpec)) == (
        f"{path_to_deep}: nesting depth {DEEP:,} exceeds MAX_DOCUMENT_DEPTH = "
        f"{MAX_DOCUMENT_DEPTH} (objects/tables and arrays inside each other)",
        f"<root>: {DEEP + 1:,} values, more than MAX_DOCUMENT_ELEMENTS = {MAX_DOCUMENT_ELEMENTS:,}",
    )


def test_cyclic_mapping_refused() -> None:
    data: dict[str, Any] = {}
    data["a"] = data
    errors = _errors(lambda: spec_from_dict(data, VehicleSpec))
    assert any("exceeds MAX_DOCUMENT_DEPTH" in line for line in errors)
    assert any("more than MAX_DOCUMENT_ELEMENTS" in line for line in errors)


def test_depth_at_limit_is_not_a_size_problem() -> None:
    data: Any = 0
    for _ in range(MAX_DOCUMENT_DEPTH):
        data = [data]
    assert document_problems(data) == []
    assert len(document_problems([data])) == 1


def test_element_count_limit() -> None:
    # The root object and the list count as two values besides the list's items.
    at_limit = {"a": [0] * (MAX_DOCUMENT_ELEMENTS - 2)}
    assert document_problems(at_limit) == []
    over = {"a": [0] * (MAX_DOCUMENT_ELEMENTS - 1)}
    assert document_problems(over) == [
        f"<root>: {MAX_DOCUMENT_ELEMENTS + 1:,} values, more than MAX_DOCUMENT_ELEMENTS = "
        f"{MAX_DOCUMENT_ELEMENTS:,}"
    ]


def test_large_document_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(b" " * (MAX_DOCUMENT_BYTES + 1))
    assert _errors(lambda: load_spec(path, VehicleSpec)) == (
        f"<root>: the file holds {MAX_DOCUMENT_BYTES + 1:,} bytes, more than "
        f"MAX_DOCUMENT_BYTES = {MAX_DOCUMENT_BYTES:,} bytes",
    )


def test_many_elements_in_file_refused(tmp_path: Path) -> None:
    path = tmp_path / "many.json"
    path.write_text(json.dumps({"translation_m": [0] * MAX_DOCUMENT_ELEMENTS}))
    assert _errors(lambda: load_spec(path, MountSpec)) == (
        f"<root>: {MAX_DOCUMENT_ELEMENTS + 2:,} values, more than MAX_DOCUMENT_ELEMENTS = "
        f"{MAX_DOCUMENT_ELEMENTS:,}",
    )


def test_json_duplicate_key_refused(tmp_path: Path) -> None:
    path = tmp_path / "dup.json"
    path.write_text('{"translation_m": [0, 0, 0], "translation_m": [1, 1, 1]}')
    with pytest.raises(SpecError, match=r"dup\.json as JSON: duplicate key 'translation_m'"):
        load_spec(path, MountSpec)


def test_json_integer_beyond_digit_limit_refused(tmp_path: Path) -> None:
    path = tmp_path / "long.json"
    path.write_text('{"translation_m": [' + "9" * 5000 + ", 0, 0]}")
    with pytest.raises(SpecError, match=r"cannot parse .*long\.json as JSON"):
        load_spec(path, MountSpec)


def test_brackets_inside_strings_do_not_count(tmp_path: Path) -> None:
    data = _vehicle_dict()
    data["description"] = "[" * (2 * MAX_DOCUMENT_DEPTH) + '"\\[{'
    for suffix in (".json", ".toml"):
        loaded = load_spec(_write(tmp_path, data, suffix), VehicleSpec)
        assert loaded.description == data["description"]


# ---------------------------------------------------------------- bounded arrays


def test_sonar_ray_bound() -> None:
    elevation = 4096
    at_bound = MAX_SONAR_RAY_COUNT // elevation
    spec = ImagingSonarSpec.model_validate(
        _sonar_dict(bearing_count=at_bound, elevation_sample_count=elevation, range_bin_count=1)
    )
    assert spec.bearing_count * spec.elevation_sample_count == MAX_SONAR_RAY_COUNT
    over = _sonar_dict(bearing_count=at_bound + 1, elevation_sample_count=4096, range_bin_count=1)
    rays = (at_bound + 1) * elevation
    assert _errors(lambda: spec_from_dict(over, ImagingSonarSpec)) == (
        f"<root>: bearing_count x elevation_sample_count = {at_bound + 1:,} x 4,096 = {rays:,} "
        f"rays per ping, more than MAX_SONAR_RAY_COUNT = {MAX_SONAR_RAY_COUNT:,}; reduce "
        "bearing_count, elevation_sample_count, range_bin_count or top_k",
    )


def test_sonar_cell_bound() -> None:
    bearings = 1024
    bins = MAX_SONAR_CELL_COUNT // bearings
    base = {"bearing_count": bearings, "elevation_sample_count": 1, "top_k": 1}
    ImagingSonarSpec.model_validate(_sonar_dict(**base, range_bin_count=bins))
    with pytest.raises(ValidationError) as info:
        ImagingSonarSpec.model_validate(_sonar_dict(**base, range_bin_count=bins + 1))
    cells = (bins + 1) * bearings
    assert (
        f"range_bin_count x bearing_count = {bins + 1:,} x 1,024 = {cells:,} cells, more than "
        f"MAX_SONAR_CELL_COUNT = {MAX_SONAR_CELL_COUNT:,}"
    ) in str(info.value)


def test_sonar_topk_slot_bound() -> None:
    cells = {"bearing_count": 1024, "range_bin_count": 1024, "elevation_sample_count": 1}
    slots_per_k = 1024 * 1024
    top_k = MAX_SONAR_TOPK_SLOT_COUNT // slots_per_k
    ImagingSonarSpec.model_validate(_sonar_dict(**cells, top_k=top_k))
    data = {"sensors": [_sonar_dict(**cells, top_k=top_k + 1)]}
    data = {**_vehicle_dict(), **data}
    (error,) = _errors(lambda: spec_from_dict(data, VehicleSpec))
    assert error == (
        f"sensors[0]: range_bin_count x bearing_count x top_k = 1,024 x 1,024 x {top_k + 1} = "
        f"{slots_per_k * (top_k + 1):,} top-K slots, more than MAX_SONAR_TOPK_SLOT_COUNT = "
        f"{MAX_SONAR_TOPK_SLOT_COUNT:,}; reduce bearing_count, elevation_sample_count, "
        "range_bin_count or top_k"
    )


def test_camera_pixel_bound() -> None:
    width = 8192
    height = MAX_CAMERA_PIXEL_COUNT // width
    CameraSpec.model_validate(_camera_dict(width_px=width, height_px=height))
    with pytest.raises(ValidationError) as info:
        CameraSpec.model_validate(_camera_dict(width_px=width, height_px=height + 1))
    pixels = width * (height + 1)
    assert (
        f"width_px x height_px = 8,192 x {height + 1:,} = {pixels:,} pixels, more than "
        f"MAX_CAMERA_PIXEL_COUNT = {MAX_CAMERA_PIXEL_COUNT:,}; reduce width_px or height_px"
    ) in str(info.value)


def test_dvl_beam_bound() -> None:
    dvl = get_vehicle("reference_survey_vehicle").sensor("dvl").model_dump()
    assert DVLSpec.model_validate({**dvl, "beam_count": MAX_DVL_BEAM_COUNT}).beam_count == 256
    over = {**dvl, "beam_count": MAX_DVL_BEAM_COUNT + 1}
    assert _errors(lambda: spec_from_dict(over, DVLSpec)) == (
        f"beam_count: Input should be less than or equal to {MAX_DVL_BEAM_COUNT} "
        f"(got {MAX_DVL_BEAM_COUNT + 1})",
    )


def test_absurd_sonar_refused_without_allocating() -> None:
    # 10^12 bearings would need terabytes; validation must refuse it at once.
    data = _sonar_dict(bearing_count=10**12)
    (error,) = _errors(lambda: spec_from_dict(data, ImagingSonarSpec))
    assert "1,000,000,000,000 x 2,177 = 2,177,000,000,000,000 rays per ping" in error


# --------------------------------------------------------------- schedule bounds


@pytest.mark.parametrize("period_ns", [MIN_PERIOD_NS, MAX_PERIOD_NS])
def test_schedule_period_bounds_accepted(period_ns: int) -> None:
    assert ScheduleSpec(period_ns=period_ns).period_ns == period_ns


@pytest.mark.parametrize(
    ("period_ns", "expected"),
    [
        (MIN_PERIOD_NS - 1, f"greater than or equal to {MIN_PERIOD_NS}"),
        (MAX_PERIOD_NS + 1, f"less than or equal to {MAX_PERIOD_NS}"),
    ],
)
def test_schedule_period_outside_bounds_refused(period_ns: int, expected: str) -> None:
    assert _errors(lambda: spec_from_dict({"period_ns": period_ns}, ScheduleSpec)) == (
        f"period_ns: Input should be {expected} (got {period_ns})",
    )


def test_schedule_phase_bounds() -> None:
    assert ScheduleSpec(period_ns=10, phase_ns=MAX_PERIOD_NS).phase_ns == MAX_PERIOD_NS
    for phase_ns in (-1, MAX_PERIOD_NS + 1):
        (error,) = _errors(
            lambda p=phase_ns: spec_from_dict({"period_ns": 10, "phase_ns": p}, ScheduleSpec)
        )
        assert error.startswith("phase_ns: Input should be ")
        assert error.endswith(f"(got {phase_ns})")


def test_schedule_from_tiny_rate_refused() -> None:
    # 1e-6 Hz is a period of 1e15 ns, beyond MAX_PERIOD_NS (one day).
    with pytest.raises(ValidationError, match=f"less than or equal to {MAX_PERIOD_NS}"):
        ScheduleSpec.from_rate_hz(1e-6)


# ------------------------------------------- catalogue and fixture specs unchanged


@pytest.mark.parametrize("name", tuple(catalogue()))
@pytest.mark.parametrize("suffix", [".json", ".toml"])
def test_catalogue_vehicle_document_validates_and_hashes_the_same(
    tmp_path: Path, name: str, suffix: str
) -> None:
    vehicle = get_vehicle(name)
    path = _write(tmp_path, vehicle.model_dump(mode="json"), suffix)
    loaded = load_spec(path, VehicleSpec)
    assert loaded == vehicle
    assert content_hash(loaded) == content_hash(vehicle)


@pytest.mark.parametrize("case", scene_cases(), ids=lambda case: case.name)
def test_fixture_scene_spec_validates_and_hashes_the_same(case: Any) -> None:
    document = json.loads(json.dumps(case.spec.model_dump(mode="json")))
    loaded = spec_from_dict(document, ImagingSonarSpec)
    assert loaded == case.spec
    assert content_hash(loaded) == content_hash(case.spec)
    water_document = json.loads(json.dumps(case.water.model_dump(mode="json")))
    water = spec_from_dict(water_document, type(case.water))
    assert content_hash(water) == content_hash(case.water)
