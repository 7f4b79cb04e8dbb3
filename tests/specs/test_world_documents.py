"""The one World document schema (leviathan.specs) and its one builder (leviathan.documents):
strict fields, units in names matching the Python keywords, exact round trips, file loaders."""

from __future__ import annotations

import inspect
import json
import warnings
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from pydantic import TypeAdapter, ValidationError

from leviathan.controllers import Autopilot, DirectThrust, WaypointFollower, lawnmower
from leviathan.documents import (
    build_controller,
    build_environment,
    build_vehicle_setup,
    controller_document,
    environment_document,
    load_controller,
    load_environment,
    load_vehicle_setup,
    vehicle_setup_document,
)
from leviathan.frames import Transform
from leviathan.geometry import plane_mesh
from leviathan.identity import content_hash
from leviathan.materials import DeclaredMaterial, EvidenceClass, MaterialParameter, get_material
from leviathan.specs import (
    AUTOPILOT_GAIN_DEFAULTS,
    ControllerDocument,
    CurrentLayer,
    EnvironmentDocument,
    SpecError,
    VehicleSetupDocument,
    WaterSpec,
)
from leviathan.world import Environment, SceneObject, VehicleSetup

CONTROLLER = TypeAdapter(ControllerDocument)


def _follower() -> WaypointFollower:
    return WaypointFollower(
        [(10.0, 5.0, 4.0), (20.0, 0.0, 6.0)],
        speed_m_per_s=1.2,
        acceptance_radius_m=2.0,
        heading_damping_ratio=0.8,
    )


def test_the_gain_defaults_are_the_autopilots() -> None:
    signature = inspect.signature(Autopilot)
    defaults = {
        name: p.default
        for name, p in signature.parameters.items()
        if p.default is not inspect.Parameter.empty
    }
    assert defaults == AUTOPILOT_GAIN_DEFAULTS


@pytest.mark.parametrize(
    "controller",
    [
        DirectThrust([1.0, -2.5, 0.0]),
        Autopilot(speed_m_per_s=1.0, depth_m=5.0, heading_rad=0.1, level_damping_ratio=0.7),
        _follower(),
    ],
    ids=["direct_thrust", "autopilot", "waypoint_follower"],
)
def test_a_controller_travels_as_a_document_and_keeps_its_hash(controller: Any) -> None:
    document = json.loads(json.dumps(controller_document(controller)))
    rebuilt = build_controller(CONTROLLER.validate_python(document))
    assert type(rebuilt) is type(controller)
    assert content_hash(rebuilt) == content_hash(controller)


def test_a_lawnmower_document_builds_the_follower_python_builds() -> None:
    # The document's pattern fields are lawnmower()'s keywords, so one mapping feeds both.
    pattern = {
        "origin_ne_m": (-12.0, -8.0),
        "heading_rad": 0.0,
        "leg_length_m": 30.0,
        "leg_spacing_m": 8.0,
        "legs": 2,
        "depth_m": 20.0,
    }
    following = {"speed_m_per_s": 1.5, "acceptance_radius_m": 2.0}
    doc = CONTROLLER.validate_python({"kind": "lawnmower", **pattern, **following})
    python = WaypointFollower(lawnmower(**pattern), **following)
    assert content_hash(build_controller(doc)) == content_hash(python)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"integral_limit_fraction": False}, "integral_limit_fraction"),
        ({"depth_m": "5"}, "depth_m"),
        ({"heading_damping_ratio": 0.0}, "heading_damping_ratio"),
        ({"level_natural_frequency_rad_s": -1.0}, "level_natural_frequency_rad_s"),
        ({"depth_m": float("nan")}, "depth_m"),
        ({"options": {}}, "options"),
    ],
)
def test_controller_documents_are_strict(change: dict, field: str) -> None:
    doc = {"kind": "autopilot", "speed_m_per_s": 1.0, "depth_m": 5.0, "heading_rad": 0.0}
    with pytest.raises(ValidationError, match=field):
        CONTROLLER.validate_python({**doc, **change})


def test_legs_are_an_integer_and_the_origin_a_pair() -> None:
    base = {
        "kind": "lawnmower",
        "origin_ne_m": [0.0, 0.0],
        "heading_rad": 0.0,
        "leg_length_m": 10.0,
        "leg_spacing_m": 2.0,
        "legs": 2,
        "depth_m": 5.0,
        "speed_m_per_s": 1.0,
        "acceptance_radius_m": 1.0,
    }
    for bad in ({"legs": 2.0}, {"legs": True}, {"origin_ne_m": [0.0, 0.0, 0.0]}):
        with pytest.raises(ValidationError):
            CONTROLLER.validate_python({**base, **bad})


def test_the_json_schema_states_every_bound_in_json_schema_keywords() -> None:
    text = json.dumps(TypeAdapter(VehicleSetupDocument).json_schema())
    schema = TypeAdapter(ControllerDocument).json_schema()
    gains = schema["$defs"]["AutopilotDocument"]["properties"]
    assert gains["heading_damping_ratio"]["exclusiveMinimum"] == 0
    assert gains["integral_limit_fraction"]["minimum"] == 0
    for keyword in ('"gt"', '"ge"'):
        assert keyword not in json.dumps(schema)
    assert "waypoints_ned_m" in text and "origin_ne_m" in text


def test_the_old_python_names_still_work_and_warn() -> None:
    # Everything but the renamed argument is shared, so only the name differs.
    pattern = {
        "heading_rad": 0.0,
        "leg_length_m": 3.0,
        "leg_spacing_m": 1.0,
        "legs": 1,
        "depth_m": 1.0,
    }
    with pytest.warns(DeprecationWarning, match="origin_ne= is renamed origin_ne_m="):
        old = lawnmower(origin_ne=(1.0, 2.0), **pattern)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = lawnmower(origin_ne_m=(1.0, 2.0), **pattern)
    assert old == new
    with pytest.warns(DeprecationWarning, match="waypoints_ned= is renamed"):
        follower = WaypointFollower(waypoints_ned=new, speed_m_per_s=1.0, acceptance_radius_m=1.0)
    assert follower.waypoints_ned_m == tuple(new)
    with pytest.raises(TypeError, match="give waypoints_ned_m only"):
        WaypointFollower(new, waypoints_ned=new, speed_m_per_s=1.0, acceptance_radius_m=1.0)


def _environment() -> Environment:
    mesh = plane_mesh(40.0, 40.0, divisions_x=2, divisions_y=2)
    declared = DeclaredMaterial(
        "mud",
        "jackson_apl94",
        (MaterialParameter("k", 0.5, "1", "a factor", "a paper", EvidenceClass.ASSUMED),),
    )
    objects = (
        SceneObject(
            "seabed",
            mesh,
            Transform.from_euler(0.0, 0.0, 0.3, translation=(0.0, 0.0, 20.0)),
            "seabed",
            get_material("test_lambert_medium"),
        ),
        SceneObject("patch", mesh, Transform.identity(), "target", declared, (0.1, 0.0, 0.0)),
    )
    water = WaterSpec(current_profile=(CurrentLayer(depth_m=1.0, current_ned_m_per_s=(0.1, 0, 0)),))
    return Environment(water=water, objects=objects, name="bay")


def test_an_environment_travels_as_a_document_and_keeps_its_hash() -> None:
    env = _environment()
    document = json.loads(json.dumps(environment_document(env)))
    rebuilt = build_environment(EnvironmentDocument.model_validate(document))
    assert rebuilt.content_hash == env.content_hash


def test_a_vehicle_setup_travels_as_a_document_and_keeps_its_hash() -> None:
    setup = VehicleSetup(
        "auv",
        "torpedo_auv",
        _follower(),
        position_ned_m=(1.0, 2.0, 3.0),
        rpy_rad=(0.0, 0.1, 0.2),
        velocity_body=(0.5, 0, 0, 0, 0, 0.01),
    )
    document = json.loads(json.dumps(vehicle_setup_document(setup)))
    rebuilt = build_vehicle_setup(VehicleSetupDocument.model_validate(document))
    assert content_hash(rebuilt.spec) == content_hash(setup.spec)
    assert content_hash(rebuilt.controller) == content_hash(setup.controller)
    assert rebuilt.initial_state().position_ned_m.tobytes() == (
        setup.initial_state().position_ned_m.tobytes()
    )


def test_objects_a_schema_cannot_check_are_refused_naming_them() -> None:
    doc = EnvironmentDocument.model_validate(
        {
            "objects": [
                {
                    "object_id": "plate",
                    "semantic_label": "target",
                    "mesh": {"vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0]], "faces": [[0, 1, 3]]},
                }
            ]
        }
    )
    with pytest.raises(ValueError, match=r"objects\[0\]: faces"):
        build_environment(doc)


def _write(path: Path, document: dict) -> Path:
    path.write_bytes(tomli_w.dumps(document).encode())
    return path


def test_the_loaders_read_documents_from_files(tmp_path: Path) -> None:
    controller = load_controller(
        _write(
            tmp_path / "c.toml",
            {"kind": "autopilot", "speed_m_per_s": 1.0, "depth_m": 5.0, "heading_rad": 0.0},
        )
    )
    assert content_hash(controller) == content_hash(
        Autopilot(speed_m_per_s=1.0, depth_m=5.0, heading_rad=0.0)
    )
    env = load_environment(_write(tmp_path / "e.toml", {"scene": "flat_seabed", "name": "pool"}))
    assert env.name == "pool" and [o.object_id for o in env.objects] == ["seabed"]
    from leviathan.catalogue import get_vehicle
    from leviathan.specs import save_spec

    save_spec(get_vehicle("inspection_rov"), tmp_path / "rov.toml")
    setup = load_vehicle_setup(
        _write(
            tmp_path / "v.toml",
            {
                "name": "rov",
                "spec": "rov.toml",
                "controller": {"kind": "direct_thrust", "commands_n": [0.0] * 6},
            },
        )
    )
    assert setup.spec == get_vehicle("inspection_rov")
    with pytest.raises(SpecError, match="commands_n"):
        load_controller(_write(tmp_path / "bad.toml", {"kind": "direct_thrust", "commands_n": []}))
