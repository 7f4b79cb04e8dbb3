"""The sweep document: strict reading, axes and their combination, subsets, run keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tomli_w

from leviathan.specs import SpecError
from leviathan.sweep import (
    RangeDocument,
    load_sweep,
    parse_path,
    plan_sweep,
    sweep_from_dict,
)
from leviathan.sweep import _plan as plan_module
from tests.sweep.sweep_cases import sweep, world_run


def _plan(doc: dict, **kwargs):
    return plan_sweep(sweep_from_dict(doc), **kwargs)


def test_unknown_key_is_refused_naming_the_field() -> None:
    doc = sweep()
    doc["run"]["outputs"]["mcpa"] = True
    with pytest.raises(SpecError, match=r"run\.outputs\.mcpa"):
        sweep_from_dict(doc)


def test_number_written_as_a_string_is_refused() -> None:
    doc = sweep(limit="3")
    with pytest.raises(SpecError, match=r"limit: .*without quotes"):
        sweep_from_dict(doc)


def test_toml_file_is_read_and_its_folder_anchors_relative_paths(tmp_path: Path) -> None:
    scenario = world_run()["scenario"]
    (tmp_path / "scenario.toml").write_text(tomli_w.dumps(scenario))
    run = {"kind": "world", "scenario_file": "scenario.toml"}
    doc = sweep(run=run, axes=[{"path": "scenario.root_seed", "values": [3, 4]}])
    (tmp_path / "sweep.toml").write_text(tomli_w.dumps(doc))
    plan = plan_sweep(load_sweep(tmp_path / "sweep.toml"))
    assert [r.params for r in plan.runs] == [{"scenario.root_seed": 3}, {"scenario.root_seed": 4}]
    assert all(r.error is None for r in plan.runs)


def test_toml_date_is_refused_naming_where(tmp_path: Path) -> None:
    doc = sweep()
    del doc["axes"]
    text = tomli_w.dumps(doc) + '\n[[axes]]\npath = "scenario.name"\nvalues = [1979-05-27]\n'
    (tmp_path / "s.toml").write_text(text)
    with pytest.raises(SpecError, match=r"axes\[0\].*date or time"):
        load_sweep(tmp_path / "s.toml")


def test_paths_parse_keys_items_and_quoted_keys() -> None:
    assert parse_path('sensor_overrides["auv/dvl"].range_max_m') == (
        "sensor_overrides",
        "auv/dvl",
        "range_max_m",
    )
    assert parse_path("scenario.vehicles[0].position_ned_m") == (
        "scenario",
        "vehicles",
        0,
        "position_ned_m",
    )
    with pytest.raises(ValueError, match="at character 8"):
        parse_path("scenario..x")


def test_axis_path_into_nothing_is_refused_naming_the_axis() -> None:
    doc = sweep(axes=[{"path": "scenario.vehicles[3].position_ned_m", "values": [[0, 0, 1]]}])
    with pytest.raises(SpecError, match=r"axes\[0\]\.path: .*a list of 1; no item \[3\]"):
        _plan(doc)


def test_overlapping_axes_are_refused() -> None:
    axes = [
        {"path": "scenario.vehicles[0].controller", "values": [{}]},
        {"path": "scenario.vehicles[0].controller.depth_m", "values": [1.0]},
    ]
    with pytest.raises(SpecError, match=r"axes\[1\]\.path: .* overlaps axes\[0\]"):
        sweep_from_dict(sweep(axes=axes))


def test_zipped_group_of_unequal_lengths_is_refused() -> None:
    axes = [
        {"path": "scenario.root_seed", "values": [1, 2, 3], "group": "g"},
        {"path": "scenario.vehicles[0].controller.depth_m", "values": [10.0, 12.0], "group": "g"},
    ]
    with pytest.raises(SpecError, match=r"group 'g' must have equal lengths"):
        sweep_from_dict(sweep(axes=axes))


def test_decimal_step_range_is_exact_and_reaches_stop() -> None:
    values = RangeDocument(start=0.1, stop=0.3, step=0.1).values()
    assert values == [0.1, 0.2, 0.3]
    assert RangeDocument(start=1, stop=10, step=4).values() == [1, 5, 9]
    assert RangeDocument(start=0, stop=1, count=3).values() == [0.0, 0.5, 1.0]
    assert RangeDocument(start=0, stop=10, count=3).values() == [0, 5, 10]


def test_range_step_away_from_stop_is_refused() -> None:
    with pytest.raises(ValueError, match="leads away from stop"):
        RangeDocument(start=0, stop=1, step=-0.5)


def test_product_varies_the_last_axis_fastest_and_groups_zip() -> None:
    axes = [
        {"name": "a", "path": "scenario.root_seed", "values": [1, 2]},
        {
            "name": "b",
            "path": "scenario.vehicles[0].controller.depth_m",
            "values": [5.0, 6.0],
            "group": "z",
        },
        {
            "name": "c",
            "path": "scenario.vehicles[0].controller.speed_m_per_s",
            "values": [0.5, 0.7],
            "group": "z",
        },
    ]
    params = [r.params for r in _plan(sweep(axes=axes)).runs]
    assert params == [
        {"a": 1, "b": 5.0, "c": 0.5},
        {"a": 1, "b": 6.0, "c": 0.7},
        {"a": 2, "b": 5.0, "c": 0.5},
        {"a": 2, "b": 6.0, "c": 0.7},
    ]
    zipped = [r.params for r in _plan(sweep(axes=axes[1:], combine="zip")).runs]
    assert zipped == [{"b": 5.0, "c": 0.5}, {"b": 6.0, "c": 0.7}]


def test_sample_is_a_keyed_subset_in_sweep_order_and_limit_takes_the_first() -> None:
    axes = [
        {"name": "seed", "path": "scenario.root_seed", "range": {"start": 0, "stop": 29, "step": 1}}
    ]
    first = [r.index for r in _plan(sweep(axes=axes, sample={"count": 5, "seed": 3})).runs]
    again = [r.index for r in _plan(sweep(axes=axes, sample={"count": 5, "seed": 3})).runs]
    other = [r.index for r in _plan(sweep(axes=axes, sample={"count": 5, "seed": 4})).runs]
    assert first == again and first == sorted(first) and len(set(first)) == 5
    assert other != first
    limited = _plan(sweep(axes=axes, sample={"count": 5, "seed": 3}), limit=2).runs
    assert [r.index for r in limited] == first[:2]


def test_key_ignores_layout_defaults_and_axis_names() -> None:
    base = _plan(sweep(axes=[{"path": "scenario.root_seed", "values": [7]}])).runs[0]
    explicit = world_run()
    explicit["scenario"]["root_seed"] = 7
    explicit["scenario"]["faults"] = []  # a default written out
    explicit["outputs"]["preview_every"] = 1
    same = _plan(
        sweep(run=explicit, axes=[{"name": "x", "path": "scenario.name", "values": ["tiny"]}])
    ).runs[0]
    assert base.key == same.key
    assert base.params != same.params


def test_key_changes_with_the_document_the_version_and_the_fixture(monkeypatch) -> None:
    doc = sweep(axes=[{"path": "scenario.root_seed", "values": [1, 2]}])
    one, two = (r.key for r in _plan(doc).runs)
    assert one != two
    monkeypatch.setattr(
        plan_module,
        "key_inputs",
        lambda: {"leviathan_version": "9.9.9", "fixtures": plan_module.fixture_hashes()},
    )
    assert _plan(doc).runs[0].key != one
    monkeypatch.setattr(
        plan_module,
        "key_inputs",
        lambda: {"leviathan_version": "0.1.0", "fixtures": {"sonar_v1": "0" * 64}},
    )
    assert _plan(doc).runs[0].key != one


def test_vehicle_documents_are_inlined_and_unrecorded_sensors_left_out() -> None:
    run = _plan(sweep()).runs[0]
    spec = run.document["scenario"]["vehicles"][0]["spec"]
    assert isinstance(spec, dict)
    assert sorted(s["name"] for s in spec["sensors"]) == ["dvl", "imu"]


def test_sensor_override_reaches_the_inlined_document() -> None:
    run = world_run()
    run["sensor_overrides"] = {"auv/dvl": {"max_range_m": 50.0}}
    doc = _plan(sweep(run=run)).runs[0].document
    dvl = next(s for s in doc["scenario"]["vehicles"][0]["spec"]["sensors"] if s["name"] == "dvl")
    assert dvl["max_range_m"] == 50.0


def test_bad_override_value_is_refused_naming_the_override() -> None:
    run = world_run()
    run["sensor_overrides"] = {"auv/dvl": {"max_range_m": "far"}}
    with pytest.raises(SpecError, match=r"sensor_overrides\['auv/dvl'\]\.max_range_m"):
        _plan(sweep(run=run))


def test_override_of_a_sensor_the_vehicle_lacks_is_refused() -> None:
    run = world_run()
    run["sensor_overrides"] = {"auv/camera": {"width_px": 10}}
    with pytest.raises(SpecError, match=r"sensor_overrides\['auv/camera'\].*has no sensor"):
        _plan(sweep(run=run))


def test_refused_run_is_planned_with_its_error_and_the_others_are_not() -> None:
    doc = sweep(axes=[{"path": "scenario.step_ns", "values": [10_000_000, 7]}])
    good, bad = _plan(doc).runs
    assert good.error is None and good.document is not None
    assert bad.document is None
    assert bad.error.startswith("scenario.step_ns: ") and "(got 7)" in bad.error


def test_base_refused_in_a_field_no_axis_sets_refuses_the_sweep() -> None:
    run = world_run()
    run["scenario"]["duration_ticks"] = 0
    with pytest.raises(SpecError, match=r"base run is refused .*scenario\.duration_ticks"):
        _plan(sweep(run=run, axes=[{"path": "scenario.root_seed", "values": [1]}]))


def test_base_missing_a_field_an_axis_sets_is_accepted() -> None:
    run = world_run()
    del run["scenario"]["duration_ticks"]
    doc = sweep(run=run, axes=[{"path": "scenario.duration_ticks", "values": [5, 6]}])
    assert [r.error for r in _plan(doc).runs] == [None, None]


def test_world_run_with_faults_is_refused_pointing_to_analytic() -> None:
    run = world_run()
    run["scenario"]["faults"] = [
        {"vehicle": "auv", "thruster": "stern", "kind": "dead", "time_ns": 0}
    ]
    with pytest.raises(SpecError, match=r"scenario\.faults: .*kind = 'analytic'"):
        _plan(sweep(run=run))


def test_duplicate_combinations_are_planned_once() -> None:
    plan = _plan(sweep(axes=[{"path": "scenario.root_seed", "values": [1, 1, 2]}]))
    assert len(plan.runs) == 2 and plan.duplicates == 1


def test_json_document_with_a_repeated_key_is_refused(tmp_path: Path) -> None:
    text = json.dumps(sweep())[:-1] + ', "name": "again"}'
    (tmp_path / "s.json").write_text(text)
    with pytest.raises(SpecError, match="duplicate key 'name'"):
        load_sweep(tmp_path / "s.json")


def test_axis_path_may_create_a_table_the_base_leaves_out() -> None:
    path = "scenario.environment.water.temperature_c"  # the base declares no water table
    runs = _plan(sweep(axes=[{"path": path, "values": [4.0, 12.0]}])).runs
    assert [r.error for r in runs] == [None, None]
    water = [r.document["scenario"]["environment"]["water"] for r in runs]
    assert [w["temperature_c"] for w in water] == [4.0, 12.0]


def test_axis_path_through_a_misspelt_key_is_refused_naming_it() -> None:
    path = "scenario.vehicles[0].controller.optons.depth_bandwidth_rad_s"
    with pytest.raises(SpecError, match=r"axes\[0\]\.path: .*names no field.*optons"):
        _plan(sweep(axes=[{"path": path, "values": [0.4]}]))
