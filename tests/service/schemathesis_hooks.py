"""Schemathesis hooks of the suite's run (``SCHEMATHESIS_HOOKS``): what JSON Schema cannot say.

Loaded by the schemathesis CLI that ``test_service_schema.py`` starts. Every rule
the server enforces that a JSON Schema *can* state is in the served schema, and
nothing here touches those. A *positive* case (one the generator means to be
valid) is brought in line, just before it is sent, with the rules a JSON Schema
cannot state — each is also written in the schema's descriptions:

* cross-field rules inside the library's own documents: a vehicle document
  (unit thruster directions, the inertia triangle inequality, a sensor's range
  window, beam widths by pattern kind, array-size bounds, unique names), a
  sensor, water (layer depths strictly increasing, no uniform current with a
  profile), scene objects (face indices below the vertex count, a proper
  rotation matrix, unique ids); an embedded document that breaks one is replaced
  by a valid one (a catalogue name, the default water) or dropped;
* rules between a request and its vehicles or the World: vehicle names unique
  (also against the environment's object ids, which hulls share), and a
  controller the World's own fit check accepts for its vehicle (one command per
  thruster within its limits, a finite dry-run command from the vehicle's state;
  for a World's vehicle, its document and state are asked from the service) —
  one that does not is replaced by zero thrust, which always fits;
* JSON Schema's ``integer`` admits ``5.0``; every LEVIATHAN document refuses a
  decimal point in a whole number (as TOML and Python do), so ``5.0`` goes as ``5``;
* the generator rounds integer bounds past 2**53 through a float (``2**64 - 1``
  becomes ``2**64``), so such values are clamped to the bound the schema states;
* a fan sonar (side-scan, multibeam) must ping no faster than the two-way time
  ``2 R_max / c`` in the World's water at its depth; its period is raised to that
  time in the slowest water the schema admits (−5 °C, 0 PSU, at the surface), or, when
  that is beyond the schedule's bound, the vehicle document is replaced.

Every case, positive or negative, also has its *cost* bounded (analytic pings of
at most 4,096 rays over at most 2,000 seabed triangles, sonars of at most 64
bearings and 512 range bins, posed side-scan tracks of at most 4 pings), which keeps
the run within its time limit; the ranges the schema states are unchanged.
"""

from __future__ import annotations

import functools
import os
from typing import Any

import httpx
import schemathesis
from pydantic import TypeAdapter, ValidationError

from leviathan.catalogue import get_vehicle, vehicle_names
from leviathan.documents import build_controller, build_environment
from leviathan.sonar.beams import minimum_ping_period_ns
from leviathan.specs import (
    ControllerDocument,
    EnvironmentDocument,
    ImagingSonarSpec,
    SensorSpec,
    VehicleSpec,
    WaterSpec,
)
from leviathan.time import MAX_PERIOD_NS
from leviathan.wire import decode_record

BASE_URL = os.environ.get("LEVIATHAN_FUZZ_URL", "http://127.0.0.1")
# A World the test opened, so that cases before the stateful phase reach past 404.
WORLD = os.environ.get("LEVIATHAN_FUZZ_WORLD")
VEHICLE = os.environ.get("LEVIATHAN_FUZZ_VEHICLE")
# The World's vehicle with a side-scan (named "side_scan") and a multibeam (named
# "multibeam"), for the waterfall and the multibeam endpoints.
SIDE_SCAN_VEHICLE = os.environ.get("LEVIATHAN_FUZZ_SIDE_SCAN_VEHICLE")
LOG = os.environ.get("LEVIATHAN_FUZZ_LOG")
_calls = [0]
_SENSOR = TypeAdapter(SensorSpec)
_CONTROLLER = TypeAdapter(ControllerDocument)
_BOUNDS = {"root_seed": 2**64 - 1, "seed": 2**128 - 1, "from_tick": 2**63 - 1}
_RAYS = 1 << 12
_TRIANGLES = 2_000
_AUTOPILOT = {"kind": "autopilot", "speed_m_per_s": 1.0, "depth_m": 5.0, "heading_rad": 0.0}


def _valid(model: Any, data: Any) -> bool:
    try:
        (model.validate_python if isinstance(model, TypeAdapter) else model.model_validate)(data)
    except (ValidationError, ValueError, TypeError):
        return False
    return True


def _whole_numbers(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return int(value)
    if isinstance(value, list):
        return [_whole_numbers(v) for v in value]
    if isinstance(value, dict):
        return {k: _whole_numbers(v) for k, v in value.items()}
    return value


def _clamp_bounds(body: dict[str, Any]) -> None:
    for key, bound in _BOUNDS.items():
        if isinstance(body.get(key), int) and body[key] > bound:
            body[key] = bound


@functools.lru_cache(maxsize=64)
def _model(spec_json: str) -> Any:
    from leviathan.dynamics import RigidBodyModel

    return RigidBodyModel.from_spec(VehicleSpec.model_validate_json(spec_json))


def _fits(document: Any, spec: VehicleSpec, state: Any, *, time_ns: int, dt_ns: int) -> bool:
    """Whether the World would take this controller for this vehicle (its own check)."""
    from leviathan.world._vehicles import check_controller_fits

    try:
        controller = build_controller(_CONTROLLER.validate_python(document))
        model = _model(spec.model_dump_json())
        check_controller_fits("controller", controller, model, state, time_ns=time_ns, dt_ns=dt_ns)
    except (ValidationError, ValueError, TypeError, ArithmeticError):
        return False
    return True


def _fit_controller(
    controller: Any, spec: VehicleSpec, state: Any, *, time_ns: int = 0, dt_ns: int = 10**7
) -> Any:
    """The controller if it fits the vehicle; else zero thrust (which always fits)."""
    thrusters = len(spec.thrusters)
    if isinstance(controller, dict) and controller.get("kind") == "direct_thrust":
        commands = list(controller.get("commands_n") or [0.0])
        controller["commands_n"] = (commands * thrusters)[:thrusters]
    if _fits(controller, spec, state, time_ns=time_ns, dt_ns=dt_ns):
        return controller
    return {"kind": "direct_thrust", "commands_n": [0.0] * thrusters}


def _water(water: Any) -> Any:
    return water if water is None or _valid(WaterSpec, water) else None


def _environment(env: Any) -> Any:
    if not isinstance(env, dict):
        return env
    env["water"] = _water(env.get("water"))
    kept, ids = [], set()
    for obj in env.get("objects") or []:
        trial = {**env, "objects": [obj], "scene": "none", "water": None}
        ok = obj.get("object_id") not in ids and obj.get("object_id") != "sea_surface"
        try:
            ok = ok and build_environment(EnvironmentDocument.model_validate(trial)) is not None
        except (ValidationError, ValueError, TypeError):
            ok = False
        if ok:
            kept.append(obj)
            ids.add(obj["object_id"])
    env["objects"] = kept
    return env


def _fan_period(sensor: Any) -> bool:
    """Raises a fan sonar's period to its two-way time in the slowest water; False when
    that is beyond the schedule's bound."""
    if not isinstance(sensor, dict) or sensor.get("kind") not in ("side_scan", "multibeam"):
        return True
    slowest = minimum_ping_period_ns(
        sensor["range_max_m"], temperature_c=-5.0, salinity_psu=0.0, depth_m=0.0
    )
    if slowest > MAX_PERIOD_NS:
        return False
    sensor["schedule"]["period_ns"] = max(sensor["schedule"]["period_ns"], slowest)
    return True


def _vehicle_document(spec: Any) -> Any:
    if isinstance(spec, str):
        return spec
    if _valid(VehicleSpec, spec) and all(_fan_period(s) for s in spec.get("sensors") or []):
        return spec
    return sorted(vehicle_names())[0]


# One connection for the hook's own reads (a client per call would build a TLS context
# each time: 40 ms apiece).
_HTTP = httpx.Client(base_url=BASE_URL, timeout=60)
# What the service said about a World, until a request changes that World (after_call).
_SEEN: dict[str, dict[str, Any]] = {}


def _get(case: Any, suffix: str) -> Any:
    world_id = (case.path_parameters or {}).get("world_id")
    seen = _SEEN.setdefault(str(world_id), {})
    if suffix not in seen:
        response = _HTTP.get(f"/worlds/{world_id}{suffix}")
        seen[suffix] = response.json() if response.status_code == 200 else None
    return seen[suffix]


def _world_vehicle(case: Any, vehicle: str) -> tuple[VehicleSpec, Any, int, int] | None:
    """The World's vehicle: its document, committed state, time and tick length."""
    spec = _get(case, f"/vehicles/{vehicle}/spec")
    state = _get(case, f"/vehicles/{vehicle}/state")
    info = _get(case, "")
    if spec is None or state is None or info is None:
        return None
    return VehicleSpec.model_validate(spec), decode_record(state), info["time_ns"], info["step_ns"]


def _object_ids(env: Any) -> set[str]:
    return {o["object_id"] for o in (env or {}).get("objects") or [] if isinstance(o, dict)}


def _spec_of(spec: Any) -> VehicleSpec:
    return get_vehicle(spec) if isinstance(spec, str) else VehicleSpec.model_validate(spec)


def _create(body: dict[str, Any]) -> None:
    from leviathan.world import VehicleSetup

    env = _environment(body.get("environment"))
    names: set[str] = set()
    step = body.get("step_ns") or 10**7
    for vehicle in body.get("vehicles") or []:
        vehicle["spec"] = _vehicle_document(vehicle.get("spec"))
        name, k = vehicle.get("name", "v"), 0
        while name in names or name in _object_ids(env) or name == "sea_surface":
            k += 1
            name = f"{vehicle.get('name', 'v')}_{k}"
        vehicle["name"] = name
        names.add(name)
        spec = _spec_of(vehicle["spec"])
        zero = {"kind": "direct_thrust", "commands_n": [0.0] * len(spec.thrusters)}
        placed = {k: v for k, v in vehicle.items() if k in ("position_ned_m", "rpy_rad")}
        try:
            state = VehicleSetup(
                name,
                spec,
                build_controller(_CONTROLLER.validate_python(zero)),
                velocity_body=vehicle.get("velocity_body", (0.0,) * 6),
                **placed,
            ).initial_state()
        except (ValueError, TypeError):
            # No state to fit a controller to (the server refuses the placement itself,
            # naming it); zero thrust at least keeps the controller from being the reason.
            vehicle["controller"] = zero
            continue
        vehicle["controller"] = _fit_controller(vehicle.get("controller"), spec, state, dt_ns=step)


def _edit(case: Any, body: dict[str, Any]) -> None:
    _environment(body.get("environment"))
    if "spec" in body:
        body["spec"] = _vehicle_document(body["spec"])
    if "sensors" in body:
        seen: set[str] = set()
        sensors = []
        for sensor in body["sensors"] or []:
            if _valid(_SENSOR, sensor) and sensor["name"] not in seen and _fan_period(sensor):
                sensors.append(sensor)
                seen.add(sensor["name"])
        body["sensors"] = sensors
    vehicles = (_get(case, "") or {}).get("vehicles", [])
    if body.get("environment") is not None:
        env = body["environment"]
        env["objects"] = [o for o in env["objects"] if o["object_id"] not in vehicles]
    if "vehicle" not in body:
        return
    if _from_link(case.meta) and vehicles and body["vehicle"] not in vehicles:
        # Reached through a link from POST /worlds: the link gives the World's id, not a
        # name of one of its vehicles, and an edit of a vehicle the World lacks is a 404
        # that schemathesis would read as the created World missing (ST302).
        body["vehicle"] = sorted(vehicles)[0]
    found = _world_vehicle(case, body["vehicle"])
    if found is None:
        return  # an unknown vehicle: the answer is 404
    spec, state, time_ns, dt_ns = found
    if "spec" in body:
        spec = _spec_of(body["spec"])
        body.setdefault("controller", dict(_AUTOPILOT))  # the kept one may not fit the new hull
    if "controller" in body:
        body["controller"] = _fit_controller(
            body["controller"], spec, state, time_ns=time_ns, dt_ns=dt_ns
        )


def _current(body: dict[str, Any]) -> None:
    layers, depths = [], set()
    for layer in sorted(body.get("profile") or [], key=lambda x: x["depth_m"]):
        if layer["depth_m"] not in depths:
            layers.append(layer)
            depths.add(layer["depth_m"])
    if "profile" in body:
        body["profile"] = layers


def _analytic(body: dict[str, Any]) -> None:
    if body.get("sonar") is not None and not _valid(ImagingSonarSpec, body["sonar"]):
        body["sonar"] = None
    if body.get("water") is not None:
        body["water"] = _water(body["water"])


def _from_link(meta: Any) -> bool:
    return type(meta.phase.data).__name__.startswith("Stateful")


@schemathesis.hook
def after_call(context: Any, case: Any, response: Any) -> None:
    """Forgets what it knew of a World a request may have changed; logs each call's status
    and time (``LEVIATHAN_FUZZ_LOG``), for the test's report."""
    if case.method.upper() != "GET":
        _SEEN.pop(str((case.path_parameters or {}).get("world_id")), None)
        if (case.operation.path, case.method.upper()) == ("/worlds", "POST"):
            _SEEN.clear()
    if LOG:
        with open(LOG, "a", encoding="utf-8") as log:
            log.write(
                f"{case.method} {case.operation.path} {response.status_code} "
                f"{response.elapsed:.3f}\n"
            )


def _bound_cost(case: Any) -> None:
    body = case.body
    if not isinstance(body, dict):
        return
    if isinstance(body.get("max_ray_count"), int) and body["max_ray_count"] > _RAYS:
        body["max_ray_count"] = _RAYS
    if isinstance(body.get("ping_count"), int) and body["ping_count"] > 4:
        body["ping_count"] = 4
    count = body.get("elevation_sample_count")
    if isinstance(count, int) and count > 64:
        body["elevation_sample_count"] = 64
    for holder in (body.get("scene"), body.get("environment")):
        if isinstance(holder, dict) and isinstance(holder.get("seabed_triangles"), int):
            holder["seabed_triangles"] = min(holder["seabed_triangles"], _TRIANGLES)
    sonar = body.get("sonar")
    if isinstance(sonar, dict):
        for key, top in (("bearing_count", 64), ("elevation_sample_count", 64)):
            if isinstance(sonar.get(key), int) and sonar[key] > top:
                sonar[key] = top
        for key in ("range_bin_count",):
            if isinstance(sonar.get(key), int) and sonar[key] > 512:
                sonar[key] = 512


@schemathesis.hook
def before_call(context: Any, case: Any, kwargs: dict[str, Any]) -> None:
    """Bounds every case's cost; brings a positive case in line with the unstated rules."""
    _bound_cost(case)
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return
    parameters = case.path_parameters or {}
    _calls[0] += 1
    if WORLD and "world_id" in parameters and _calls[0] % 2 and not _from_link(meta):
        parameters["world_id"] = WORLD
        if "vehicle" in parameters and VEHICLE:
            parameters["vehicle"] = VEHICLE
        if "sensor" in parameters and SIDE_SCAN_VEHICLE:
            parameters["vehicle"] = SIDE_SCAN_VEHICLE
            multibeam = "/multibeam/" in case.operation.path
            parameters["sensor"] = "multibeam" if multibeam else "side_scan"
    if case.query:
        case.query = _whole_numbers(case.query)
        _clamp_bounds(case.query)
    if not isinstance(case.body, dict):
        return
    body = _whole_numbers(case.body)
    _clamp_bounds(body)
    path, method = case.operation.path, case.operation.method.upper()
    try:
        if (path, method) == ("/worlds", "POST"):
            _create(body)
        elif path.endswith("/edit"):
            _edit(case, body)
        elif path.endswith("/controller"):
            found = _world_vehicle(case, (case.path_parameters or {}).get("vehicle"))
            if found is not None:
                spec, state, time_ns, dt_ns = found
                body = _fit_controller(body, spec, state, time_ns=time_ns, dt_ns=dt_ns)
        elif path.endswith("/current") and method == "PUT":
            _current(body)
        elif path.startswith("/analytic/") or path == "/side-scan/waterfall":
            _analytic(body)
    except (KeyError, TypeError, ValidationError):
        pass  # a body this hook cannot read is sent as generated
    case.body = body
