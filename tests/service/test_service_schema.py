"""The OpenAPI schema is the truth: schemathesis over a real uvicorn finds nothing, and the
schema states the limits, statuses, links and strictness the server enforces.

The schemathesis run is its CLI (every phase: examples, coverage, fuzzing, and the
stateful phase that follows the links from ``POST /worlds``; every check), bounded:
a few examples per operation, a service with small limits (4 Worlds, 3 ticks a
request, 20 steps a World), and a wall-clock limit on the whole run. What JSON
Schema cannot state is brought in by ``schemathesis_hooks.py`` (see its docstring).
"""

from __future__ import annotations

import collections
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import httpx
import jsonschema_rs
import pytest
from service_helpers import ERROR_KEYS, start_service, thrust_setup

from leviathan.catalogue import get_vehicle
from leviathan.client import ServiceClient
from leviathan.controllers import DirectThrust
from leviathan.service import ServiceSettings, create_app
from leviathan.specs import VehicleSpec, spec_from_dict
from leviathan.world import VehicleSetup

HOOKS = Path(__file__).with_name("schemathesis_hooks.py")
EXAMPLES_PER_OPERATION = 3
STATEFUL_SCENARIOS = 25
STATEFUL_STEPS = 12
TIME_LIMIT_S = 600
SETTINGS = ServiceSettings(
    max_worlds=4, max_ticks_per_request=3, max_steps=20, samples_bytes_total=64 * 1024**2
)


def _schemathesis() -> str:
    return str(Path(sys.executable).with_name("schemathesis"))


def _cheap_mapper() -> VehicleSetup:
    """The catalogue mapping AUV with a side-scan and a multibeam of few rays, under zero
    thrust."""
    doc = get_vehicle("reference_mapping_auv").model_dump(mode="json")
    doc["sensors"] = [s for s in doc["sensors"] if s["kind"] in ("side_scan", "multibeam")]
    for sensor in doc["sensors"]:
        if sensor["kind"] == "side_scan":
            sensor.update(
                across_track_sample_count=64, along_track_sample_count=1, range_bin_count=16
            )
        else:
            sensor.update(beam_count=8, range_bin_count=16, top_k=1)
    spec = spec_from_dict(doc, VehicleSpec)
    return VehicleSetup(
        "mapper", spec, DirectThrust([0.0] * len(spec.thrusters)), position_ned_m=(0.0, 30.0, 5.0)
    )


def test_schemathesis_finds_no_failure_of_any_check(tmp_path: Path) -> None:
    service = start_service(SETTINGS)
    log = tmp_path / "calls.log"
    try:
        with ServiceClient(service.url) as client:
            world = client.create_world(vehicles=[thrust_setup(), _cheap_mapper()], step_s="0.01")
        env = {
            **os.environ,
            "SCHEMATHESIS_HOOKS": str(HOOKS),
            "LEVIATHAN_FUZZ_URL": service.url,
            "LEVIATHAN_FUZZ_WORLD": world.id,
            "LEVIATHAN_FUZZ_VEHICLE": "rov",
            "LEVIATHAN_FUZZ_SIDE_SCAN_VEHICLE": "mapper",
            "LEVIATHAN_FUZZ_LOG": str(log),
        }
        config = tmp_path / "schemathesis.toml"
        config.write_text(
            f"[phases.fuzzing.generation]\nmax-examples = {EXAMPLES_PER_OPERATION}\n"
            f"[phases.stateful]\nmax-steps = {STATEFUL_STEPS}\n"
            f"[phases.stateful.generation]\nmax-examples = {STATEFUL_SCENARIOS}\n"
        )
        command = [
            _schemathesis(),
            f"--config-file={config}",
            "run",
            f"{service.url}/openapi.json",
            "--checks=all",
            "--phases=examples,coverage,fuzzing,stateful",
            "--seed=7",
            "--generation-database=none",
            "--request-timeout=120",
            "--max-failures=50",
            # A hang is what this check is for: a fuzzed World of many camera vehicles takes
            # 10-13 s a step on two loaded cores (schemathesis' default limit is 10 s).
            "--max-response-time=60",
            "--no-color",
        ]
        run = subprocess.run(
            command,
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=TIME_LIMIT_S,
            check=False,
        )
    finally:
        service.stop()
    out = run.stdout
    cases = re.search(r"Test cases:\s*\n\s*(.+)", out)
    tested = re.search(r"Tested:\s*(\d+)", out)
    calls = [line.split() for line in log.read_text().splitlines()] if log.exists() else []
    statuses = collections.Counter(status for _, _, status, _ in calls)
    print(f"schemathesis: {tested and tested.group(1)} operations, {cases and cases.group(1)}")
    print(f"requests {len(calls)}, statuses {dict(sorted(statuses.items()))}")
    warned = re.search(r"Warnings:\n(.*?)\n\n", out, re.DOTALL)
    print(f"schemathesis warnings: {warned.group(1).strip() if warned else 'none'}")
    assert run.returncode == 0, out[-8000:] + run.stderr[-2000:]
    assert tested is not None and int(tested.group(1)) == _operation_count()
    for phase in ("Coverage", "Fuzzing", "Stateful"):
        assert re.search(rf"✅ {phase}", out), f"phase {phase} did not pass:\n{out[-3000:]}"
    assert "errored" not in (cases.group(1) if cases else "errored")
    # The run reached past the 404s: Worlds were created and stepped through the links.
    assert statuses["201"] > 0 and "500" not in statuses


def _operation_count() -> int:
    paths = create_app(SETTINGS).openapi()["paths"]
    return sum(len(item) for item in paths.values())


# --------------------------------------------------------------------------- the schema


@pytest.fixture(scope="module")
def schema() -> dict:
    return create_app(SETTINGS, token="t").openapi()


def test_every_schema_object_is_valid_json_schema(schema: dict) -> None:
    for name, component in schema["components"]["schemas"].items():
        assert jsonschema_rs.meta.is_valid(component), name
    current = schema["components"]["schemas"]["CurrentResponse"]["properties"]
    vector = current["current_ned_m_per_s"]
    assert vector["prefixItems"] == [{"type": "number"}] * 3 and "items" not in vector


def test_limits_that_are_settings_are_in_the_schema(schema: dict) -> None:
    components = schema["components"]["schemas"]
    assert components["StepRequest"]["properties"]["n"]["maximum"] == 3
    assert components["PlayRequest"]["properties"]["ticks_per_step"]["maximum"] == 3
    create = components["CreateWorldRequest"]
    assert create["oneOf"] == [{"required": ["step_ns"]}, {"required": ["step_s"]}]
    names = create["properties"]["vehicles"]["items"]["$ref"].split("/")[-1]
    spec = components[names]["properties"]["spec"]
    catalogue = [
        "inspection_rov",
        "reference_mapping_auv",
        "reference_survey_vehicle",
        "torpedo_auv",
    ]
    assert {"enum": catalogue}.items() <= (next(b for b in spec["oneOf"] if "enum" in b).items())
    kinds = components["AutopilotDocument"]["properties"]
    assert kinds["integral_limit_fraction"] == {**kinds["integral_limit_fraction"], "minimum": 0}


def test_every_operation_documents_its_statuses_in_the_one_shape(schema: dict) -> None:
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            responses = operation["responses"]
            expected = {"401", "500", "503"}
            if "requestBody" in operation:
                expected |= {"400", "413", "422"}
            if "{world_id}" in path:
                expected |= {"404", "410"}
            assert expected <= set(responses), (method, path, sorted(responses))
            for status, response in responses.items():
                if int(status) >= 400:
                    ref = response["content"]["application/json"]["schema"]["$ref"]
                    assert ref.endswith("/ErrorBody"), (method, path, status)


def test_post_worlds_links_to_every_operation_that_takes_its_id(schema: dict) -> None:
    links = schema["paths"]["/worlds"]["post"]["responses"]["201"]["links"]
    taking_id = {
        operation["operationId"]
        for path, item in schema["paths"].items()
        if "{world_id}" in path
        and not {"{thruster}", "{sample_id}", "{sensor}"} & set(re.findall(r"\{\w+\}", path))
        for operation in item.values()
    }
    assert set(links) == taking_id and len(taking_id) > 20
    assert all(link["parameters"]["world_id"] == "$response.body#/id" for link in links.values())


@pytest.fixture(scope="module")
def live():
    service = start_service(SETTINGS)
    with ServiceClient(service.url) as client:
        world = client.create_world(vehicles=[thrust_setup()], step_s="0.01")
    yield service, world.id
    service.stop()


@pytest.mark.parametrize(
    ("method", "suffix", "body", "field"),
    [
        ("POST", "/play", {"until_tick": False}, "until_tick"),
        ("POST", "/play", {"rate": True}, "rate"),
        ("POST", "/step", {"n": True}, "n"),
        ("POST", "/step", {"n": 2.0}, "n"),
        ("PUT", "/vehicles/rov/controller", None, "integral_limit_fraction"),
        ("PUT", "/step-length", {"step_ns": 10_000_000.0}, "step_ns"),
        ("PUT", "/current", {"current_ned_m_per_s": [0, False, 0]}, "current_ned_m_per_s"),
    ],
)
def test_a_bool_or_a_float_is_never_taken_for_a_number_it_is_not(
    live, method: str, suffix: str, body: dict | None, field: str
) -> None:
    service, world_id = live
    if body is None:
        body = {
            "kind": "autopilot",
            "speed_m_per_s": 1.0,
            "depth_m": 5.0,
            "heading_rad": 0.0,
            "integral_limit_fraction": False,
        }
    response = httpx.request(method, f"{service.url}/worlds/{world_id}{suffix}", json=body)
    assert response.status_code == 422, response.text
    error = response.json()
    assert set(error) == ERROR_KEYS and error["code"] == "invalid"
    assert error["field"].startswith(field), error
    info = httpx.get(f"{service.url}/worlds/{world_id}").json()
    assert info["tick"] == 0 and info["playing"] is False


def test_a_405_names_every_method_of_the_path(live) -> None:
    service, world_id = live
    response = httpx.request("TRACE", f"{service.url}/worlds/{world_id}/play")
    assert response.status_code == 405 and response.headers["allow"] == "GET, POST"
    assert set(response.json()) == ERROR_KEYS and response.json()["code"] == "method_not_allowed"


def test_the_served_schema_is_the_one_checked_here(live) -> None:
    service, _ = live
    served = httpx.get(f"{service.url}/openapi.json").json()
    assert served == json.loads(json.dumps(create_app(SETTINGS).openapi()))
