"""Scenario documents are read strictly; refusals name the field, the value and the expectation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from leviathan.analytic import load_scenario, run_scenario, scenario_from_dict
from leviathan.specs import SpecError
from tests.analytic.scenario_cases import IMU_NOISE, scenario


def test_a_valid_document_reads_back_from_toml_and_json(tmp_path: Path) -> None:
    import tomli_w

    doc = scenario(sensors=[{"id": "auv/imu", "seed": 3, "noise": IMU_NOISE}])
    (tmp_path / "s.json").write_text(json.dumps(doc))
    (tmp_path / "s.toml").write_bytes(tomli_w.dumps(doc).encode())
    a, b = load_scenario(tmp_path / "s.json"), load_scenario(tmp_path / "s.toml")
    assert a == b and a.tick_count == 100
    assert a.sensors[0].noise_model().angle_random_walk_deg_per_sqrt_h == 0.15


@pytest.mark.parametrize(
    ("change", "field", "expected"),
    [
        ({"step_ns": "10"}, "step_ns", "valid integer"),
        ({"step_ns": 10_000_000.0}, "step_ns", "valid integer"),
        ({"duration_ticks": True}, "duration_ticks", "valid integer"),
        ({"speed": 1.0}, "speed", "Extra inputs are not permitted"),
        ({"duration_ns": 1_000_000_000}, "duration_ns/duration_ticks", "exactly one"),
        ({"duration_ticks": None, "duration_ns": 15_000_000}, "duration_ns", "whole number"),
        ({"environment": {"scene": "reef"}}, "environment.scene", "none"),
        ({"sensors": [{"id": "imu"}]}, r"sensors\[0\]\.id", "pattern"),
        ({"sensors": [{"id": "rov/imu"}]}, r"sensors\[0\]\.id", "names no vehicle"),
        ({"sensors": [{"id": "auv/imu", "seed": -1}]}, r"sensors\[0\]\.seed", "greater than"),
        (
            {"sensors": [{"id": "auv/imu", "noise": {"kind": "lidar"}}]},
            r"noise\.kind",
            "expected one of dvl, imaging_sonar, imu, pressure",
        ),
        (
            {"sensors": [{"id": "auv/imu", "noise": {"kind": "imu", "arw": 1.0}}]},
            "arw",
            "Extra inputs",
        ),
        (
            {"faults": [{"vehicle": "rov", "thruster": "stern", "kind": "dead", "time_ns": 0}]},
            r"faults\[0\]\.vehicle",
            "no vehicle 'rov'",
        ),
    ],
)
def test_bad_documents_are_refused_naming_field_and_value(
    change: dict, field: str, expected: str
) -> None:
    doc = scenario()
    doc.update(change)
    if doc.get("duration_ticks") is None:
        doc.pop("duration_ticks", None)
    with pytest.raises(SpecError, match=field) as caught:
        scenario_from_dict(doc)
    assert expected in str(caught.value)


def test_bad_vehicle_parts_are_refused_before_anything_runs(tmp_path: Path) -> None:
    doc = scenario()
    doc["vehicles"][0]["position_ned_m"] = [0.0, 0.0]
    with pytest.raises(SpecError, match=r"vehicles\[0\]\.position_ned_m"):
        scenario_from_dict(doc)
    doc = scenario()
    doc["vehicles"][0]["controller"] = {"kind": "direct_thrust", "commands_n": [1.0, 2.0]}
    with pytest.raises(ValueError, match="DirectThrust has 2 commands but vehicle"):
        run_scenario(scenario_from_dict(doc), out=tmp_path / "never")
    assert not (tmp_path / "never").exists()
    doc = scenario(sensors=[{"id": "auv/sonar"}])
    with pytest.raises(ValueError, match=r"sensors\[0\]\.id: vehicle 'auv' has no sensor 'sonar'"):
        run_scenario(scenario_from_dict(doc))
    doc = scenario(sensors=[{"id": "auv/dvl", "noise": IMU_NOISE}])
    with pytest.raises(ValueError, match="noise model must be kind 'dvl'"):
        run_scenario(scenario_from_dict(doc))


def test_vehicle_documents_by_path_are_read_relative_to_the_scenario(tmp_path: Path) -> None:
    from leviathan.catalogue import get_vehicle
    from leviathan.specs import save_spec

    save_spec(get_vehicle("reference_survey_vehicle"), tmp_path / "vehicle.toml")
    doc = scenario(duration_ticks=5)
    doc["vehicles"][0]["spec"] = "vehicle.toml"
    (tmp_path / "s.json").write_text(json.dumps(doc))
    result = run_scenario(load_scenario(tmp_path / "s.json"))
    assert result.vehicles["auv"].spec == get_vehicle("reference_survey_vehicle")


def test_a_fan_sonar_pinging_faster_than_its_two_way_time_is_refused_before_anything_runs(
    tmp_path: Path,
) -> None:
    from leviathan.catalogue import get_vehicle

    vehicle = get_vehicle("reference_mapping_auv").model_dump(mode="json")
    for sensor in vehicle["sensors"]:
        if sensor["name"] == "side_scan":
            sensor["schedule"]["period_ns"] = 50_000_000  # 2 x 40 m / ~1490 m/s = 53.7 ms
    doc = scenario(duration_ticks=5)
    doc["vehicles"][0]["spec"] = vehicle
    loaded = scenario_from_dict(doc)
    with pytest.raises(ValueError, match=r"^auv/side_scan\.schedule\.period_ns: expected a ping"):
        run_scenario(loaded, out=tmp_path / "never")
    assert not (tmp_path / "never").exists()
