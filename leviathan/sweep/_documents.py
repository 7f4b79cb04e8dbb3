"""A sweep run's documents: validation, the canonical form, and building what it declares.

This is the one module of :mod:`leviathan.sweep` that uses the scenario documents
and their builders (:class:`leviathan.analytic.ScenarioDocument`, its vehicle,
controller and environment documents, :func:`~leviathan.analytic.build_environment`,
:func:`~leviathan.analytic.build_vehicle_setups`, :func:`~leviathan.analytic.run_scenario`):
the sweep declares no controller, environment or vehicle-placement schema of its
own, only the scene changes the environment document cannot state
(:class:`~leviathan.sweep.SceneDocument`).

The canonical form of a run (:func:`canonical_run`) is self-contained: every
vehicle's document is inlined (a catalogue name or a file is read once, on the
driver), the sensor overrides are folded into it and, for a world run, the
sensors that are not recorded are left out of it. A worker on any node builds
the run from that form alone, and the run key hashes it.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from leviathan.analytic import (
    ScenarioDocument,
    build_environment,
    build_vehicle_setups,
    run_scenario,
    scenario_from_dict,
)
from leviathan.specs import SpecError, VehicleSpec, load_spec, spec_from_dict
from leviathan.sweep._schema import RunDocument, SceneDocument

__all__ = [
    "build_world",
    "canonical_run",
    "inline_scenario_file",
    "run_analytic",
    "tick_count",
]


def _prefixed(error: SpecError, prefix: str) -> SpecError:
    """``error`` with every problem line placed under ``prefix`` (``scenario.``...)."""
    lines = tuple(
        f"{prefix}{line}" if not line.startswith("<root>") else f"{prefix.rstrip('.')}: {line}"
        for line in error.errors
    )
    if not lines:
        return SpecError(f"{prefix.rstrip('.')}: {error}", source=error.source)
    return SpecError("; ".join(lines), errors=lines, source=error.source)


def _validated(data: Any, model: Any, prefix: str) -> Any:
    try:
        return spec_from_dict(data, model)
    except SpecError as error:
        raise _prefixed(error, prefix) from None


def inline_scenario_file(run: Mapping[str, Any], *, base_dir: Path) -> tuple[dict, Path]:
    """The run table with ``scenario_file`` read into ``scenario``, and its folder.

    The file is read as it is (JSON or TOML, at most the spec size limits) so that
    axis paths address the document as written; relative vehicle paths in it are
    then resolved against the file's folder.

    Raises:
        SpecError: The file cannot be parsed (names ``run.scenario_file``).
        FileNotFoundError: It does not exist.
    """
    run = dict(run)
    name = run.get("scenario_file")
    if not isinstance(name, str):
        return run, base_dir
    path = Path(name) if Path(name).is_absolute() else base_dir / name
    if path.suffix.lower() not in (".json", ".toml"):
        raise SpecError(f"run.scenario_file: expected a .toml or .json file, got {name!r}")
    # load_scenario applies the size, depth and strictness checks; the raw table is kept.
    load_spec(path, ScenarioDocument)
    text = path.read_text(encoding="utf-8")
    run["scenario"] = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
    del run["scenario_file"]
    return run, path.resolve().parent


def _resolve_spec(spec: str | dict, *, base_dir: Path, where: str) -> VehicleSpec:
    from leviathan.catalogue import get_vehicle, vehicle_names

    if isinstance(spec, dict):
        return _validated(spec, VehicleSpec, f"{where}.")
    if spec in vehicle_names():
        return get_vehicle(spec)
    path = Path(spec) if Path(spec).is_absolute() else base_dir / spec
    if path.suffix.lower() not in (".json", ".toml") or not path.is_file():
        raise ValueError(
            f"{where}: {spec!r} is neither a catalogue vehicle ({', '.join(vehicle_names())}) "
            f"nor an existing .json/.toml vehicle document (looked for {path})"
        )
    try:
        return load_spec(path, VehicleSpec)
    except SpecError as error:
        raise _prefixed(error, f"{where} ({path}): ") from None


def _merged(base: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with ``changes`` applied; nested tables merge, everything else is replaced."""
    out = copy.deepcopy(dict(base))
    for key, value in changes.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = _merged(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _vehicle_document(
    spec: VehicleSpec,
    name: str,
    *,
    overrides: Mapping[str, Mapping[str, Any]],
    recorded: set[str] | None,
    where: str,
) -> dict[str, Any]:
    """The inline vehicle document: overrides applied, unrecorded sensors left out (world)."""
    data = spec.model_dump(mode="json")
    sensors = []
    for model, sensor in zip(spec.sensors, data["sensors"], strict=True):
        sid = f"{name}/{sensor['name']}"
        if sid in overrides:
            sensor = _merged(sensor, overrides[sid])
            _validated(sensor, type(model), f"sensor_overrides[{sid!r}].")
        if recorded is None or sid in recorded:
            sensors.append(sensor)
    data["sensors"] = sensors
    return _validated(data, VehicleSpec, f"{where}.").model_dump(mode="json")


def canonical_run(run_data: Mapping[str, Any], *, base_dir: Path) -> dict[str, Any]:
    """Validate one run's document (the base run with its axis values set); its canonical form.

    Args:
        run_data: The ``[run]`` table with ``scenario`` inline.
        base_dir: Folder relative vehicle document paths are read from.

    Returns:
        ``{"kind", "scenario", ...}``: for ``"world"`` also ``"scene"``, ``"outputs"``
        and ``"tracing_device"``; the scenario holds every vehicle document inline.

    Raises:
        SpecError, ValueError: The document is refused; the message names the field
            (``scenario.vehicles[0].spec...``, ``sensor_overrides['a/b']``...).
    """
    run: RunDocument = _validated(dict(run_data), RunDocument, "")
    scenario = _validated(run.scenario, ScenarioDocument, "scenario.")
    world = run.kind == "world"
    if world:
        if scenario.faults:
            raise ValueError(
                "scenario.faults: a canonical World run has no thruster faults (they are "
                "analytic); use run.kind = 'analytic'"
            )
        for i, sensor in enumerate(scenario.sensors):
            if sensor.noise is not None or sensor.seed is not None:
                raise ValueError(
                    f"scenario.sensors[{i}]: a canonical World run records noise-free channels "
                    "with keyed noise from root_seed; a noise model or seed is analytic (use "
                    "run.kind = 'analytic')"
                )
    recorded = {s.id for s in scenario.sensors} if world else None
    specs: dict[str, VehicleSpec] = {}
    for i, vehicle in enumerate(scenario.vehicles):
        where = f"scenario.vehicles[{i}].spec"
        specs[vehicle.name] = _resolve_spec(vehicle.spec, base_dir=base_dir, where=where)
    for sid in list(run.sensor_overrides) + sorted(recorded or ()):
        vehicle, _, sensor = sid.partition("/")
        where = f"sensor_overrides[{sid!r}]" if sid in run.sensor_overrides else "scenario.sensors"
        if vehicle not in specs:
            raise ValueError(f"{where}: {sid!r} names no vehicle ({', '.join(specs)})")
        names = [s.name for s in specs[vehicle].sensors]
        if sensor not in names:
            raise ValueError(
                f"{where}: vehicle {vehicle!r} has no sensor {sensor!r}; its sensors: "
                f"{', '.join(names) or 'none'}"
            )
    data = scenario.model_dump(mode="json")
    for i, vehicle in enumerate(scenario.vehicles):
        data["vehicles"][i]["spec"] = _vehicle_document(
            specs[vehicle.name],
            vehicle.name,
            overrides=run.sensor_overrides,
            recorded=recorded,
            where=f"scenario.vehicles[{i}].spec",
        )
    _validated(data, ScenarioDocument, "scenario.")  # the inlined form is valid as well
    canonical: dict[str, Any] = {"kind": run.kind, "scenario": data}
    if world:
        canonical["scene"] = run.scene.model_dump(mode="json")
        canonical["outputs"] = run.outputs.model_dump(mode="json")
        canonical["tracing_device"] = run.tracing_device
    return canonical


def tick_count(canonical: Mapping[str, Any]) -> int:
    """Ticks a canonical run advances."""
    return scenario_from_dict(canonical["scenario"]).tick_count


def _scene_changed(env: Any, scenario: ScenarioDocument, scene: SceneDocument) -> Any:
    """The environment with the run's seabed seed and placements applied."""
    from leviathan.demo import survey_environment
    from leviathan.frames import Transform
    from leviathan.world import Environment

    objects = list(env.objects)
    if scene.seabed_seed is not None:
        if scenario.environment.scene != "survey":
            raise ValueError(
                f"scene.seabed_seed: only the 'survey' scene has a generated seabed; this "
                f"scenario's scene is {scenario.environment.scene!r}"
            )
        seeded = survey_environment(
            scenario.environment.seabed_triangles, seabed_seed=scene.seabed_seed
        )
        fresh = {o.object_id: o for o in seeded.objects}
        objects = [fresh["seabed"] if o.object_id == "seabed" else o for o in objects]
    ids = [o.object_id for o in objects]
    for object_id, placement in scene.placements.items():
        if object_id not in ids:
            raise ValueError(
                f"scene.placements.{object_id}: the {scenario.environment.scene!r} scene has no "
                f"object {object_id!r}; its objects: {', '.join(ids) or 'none'}"
            )
        i = ids.index(object_id)
        old = objects[i].T_world_object
        position = old.translation if placement.position_ned_m is None else placement.position_ned_m
        if placement.rpy_deg is None:
            pose = Transform(old.rotation, position)
        else:
            roll, pitch, yaw = (math.radians(a) for a in placement.rpy_deg)
            pose = Transform.from_euler(roll, pitch, yaw, translation=position)
        objects[i] = dataclasses.replace(objects[i], T_world_object=pose)
    if scene.seabed_seed is None and not scene.placements:
        return env
    return Environment(water=env.water, objects=tuple(objects), name=env.name)


def build_world(canonical: Mapping[str, Any]):
    """The canonical World of a world run's canonical form, at tick 0.

    Raises:
        ValueError, TypeError: What the World refuses (a controller that does not
            fit its vehicle, a hull in the seabed...), naming the field.
    """
    from leviathan.world import World

    scenario = scenario_from_dict(canonical["scenario"], base_dir=Path(os.sep))
    environment = _scene_changed(
        build_environment(scenario), scenario, SceneDocument(**canonical["scene"])
    )
    device = canonical.get("tracing_device")
    return World.create(
        vehicles=build_vehicle_setups(scenario),
        environment=environment,
        root_seed=scenario.root_seed,
        step_ns=scenario.step_ns,
        tracing_backend=scenario.tracing_backend,
        tracing_device="cuda:0" if device == "cuda" else device,
    )


def run_analytic(canonical: Mapping[str, Any], out: Path):
    """Runs an analytic run's scenario and writes its outputs to the new folder ``out``.

    Returns:
        The :class:`leviathan.analytic.ScenarioResult`.
    """
    scenario = scenario_from_dict(canonical["scenario"], base_dir=Path(os.sep))
    return run_scenario(scenario, out=out)
