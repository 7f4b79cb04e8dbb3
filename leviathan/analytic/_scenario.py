"""The scenario document of an analytic run: vehicles, environment, controllers, faults, noise.

A scenario is a JSON or TOML document read strictly (pydantic, unknown keys
refused, numbers never coerced from strings or bools, NaN and infinities
refused); every refusal names the field, the value and what was expected. See
``examples/survey_stern_failure.toml`` for a complete one. Top level::

    name, description           text
    step_ns                     tick length [ns] (int)
    duration_ns | duration_ticks  how long to run: exactly one of them (ints)
    root_seed                   keyed-randomness root of the canonical sensors (int)
    tracing_backend             ray tracer of the DVL and sonar ("auto", "reference", "warp")
    [environment]               scene ("none", "flat_seabed", "survey"), its size, objects,
                                water (:class:`leviathan.specs.EnvironmentDocument`)
    [[vehicles]]                name, spec (catalogue name, file or inline document),
                                position_ned_m, rpy_rad, velocity_body, controller
                                (:class:`leviathan.specs.VehicleSetupDocument`)
    [[faults]]                  thruster faults (see :mod:`leviathan.analytic._faults`)
    [[sensors]]                 the sensors to record: id "vehicle/sensor", optional
                                seed, bit_generator and noise model

Only the sensors listed are sampled; a listed sensor without ``noise`` records
its canonical, noise-free channels. Relative paths (a vehicle ``spec`` file)
are resolved against the document's folder.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from leviathan.analytic._faults import ThrusterFault
from leviathan.analytic._generators import BIT_GENERATORS, SEED_LIMIT
from leviathan.sensors import registered_sensor_kinds, sensor_declarations
from leviathan.specs import (
    AutopilotDocument,
    DirectThrustDocument,
    EnvironmentDocument,
    LawnmowerDocument,
    VehicleSetupDocument,
    WaypointFollowerDocument,
    load_spec,
    spec_from_dict,
)

__all__ = [
    "AutopilotDocument",
    "DirectThrustDocument",
    "EnvironmentDocument",
    "LawnmowerDocument",
    "ScenarioDocument",
    "SensorDocument",
    "VehicleDocument",
    "WaypointFollowerDocument",
    "load_scenario",
    "scenario_from_dict",
]  # (the *Document names but Scenario/Sensor are leviathan.specs', kept importable here)

_STRICT = ConfigDict(strict=True, frozen=True, extra="forbid", allow_inf_nan=False)
_NAME = r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$"

# The controller, environment and vehicle documents are the one schema of
# leviathan.specs (shared with the Python API and the service); the old names stay
# importable from here: AutopilotDocument, DirectThrustDocument, EnvironmentDocument,
# LawnmowerDocument, WaypointFollowerDocument, and VehicleDocument (now
# leviathan.specs.VehicleSetupDocument).
VehicleDocument = VehicleSetupDocument


class _Doc(BaseModel):
    model_config = _STRICT


class SensorDocument(_Doc):
    """One sensor to record, with its noise generator and model."""

    __content_type__ = "leviathan.analytic.SensorDocument"
    id: str = Field(pattern=r"^[^/]+/[^/]+$", description="Sensor id, 'vehicle/sensor'")
    seed: int | None = Field(
        None, ge=0, lt=SEED_LIMIT, description="Seed of the sensor's generator; None: unseeded"
    )
    bit_generator: str = Field("PCG64", description=f"One of {', '.join(BIT_GENERATORS)}")
    noise: dict[str, Any] | None = Field(
        None,
        description="Noise model: {kind = <the sensor's kind>, parameters...}; the kinds with "
        "an analytic noise model: imu, dvl, imaging_sonar, pressure",
    )

    @model_validator(mode="after")
    def _known_generator(self) -> SensorDocument:
        if self.bit_generator not in BIT_GENERATORS:
            raise ValueError(
                f"bit_generator: expected one of {', '.join(BIT_GENERATORS)}, got "
                f"{self.bit_generator!r}"
            )
        self.noise_model()
        return self

    def noise_model(self, sensor_kind: str | None = None) -> Any:
        """The noise model the ``noise`` table declares (validated strictly), or None.

        The table's ``kind`` names the sensor kind; its model is the one that kind's
        analytic tier declares (:attr:`leviathan.sensors.AnalyticTier.noise_model`).

        Args:
            sensor_kind: The kind of the sensor ``id`` names, when known: the table's
                ``kind`` must equal it.
        """
        if self.noise is None:
            return None
        data = dict(self.noise)
        kind = data.pop("kind", None)
        registered = registered_sensor_kinds()
        models = {
            name: decl.analytic.noise_model
            for name in registered
            if (decl := sensor_declarations(name)).analytic is not None
            and decl.analytic.noise_model is not None
        }
        if kind not in models:
            raise ValueError(
                f"sensors[{self.id!r}].noise.kind: expected one of {', '.join(models)} (the sensor "
                f"kinds with an analytic noise model), got {kind!r}"
            )
        if sensor_kind is not None and kind != sensor_kind:
            raise ValueError(
                f"noise.kind: sensor {self.id!r} is a {sensor_kind}, so its noise model must be "
                f"kind {sensor_kind!r}, got {kind!r}"
            )
        model = models[kind]
        if "kind" in model.model_fields:
            data["kind"] = kind
        return spec_from_dict(data, model, source=f"sensors[{self.id!r}].noise")


class ScenarioDocument(_Doc):
    """An analytic scenario run (see the module docstring)."""

    __content_type__ = "leviathan.analytic.ScenarioDocument"
    name: str = Field(pattern=_NAME, description="Scenario name")
    description: str = ""
    step_ns: int = Field(ge=1_000, le=1_000_000_000, description="Tick length [ns]")
    duration_ns: int | None = Field(None, ge=1, description="Run length [ns], whole ticks")
    duration_ticks: int | None = Field(None, ge=1, le=2_000_000, description="Run length [ticks]")
    root_seed: int = Field(0, ge=0, lt=1 << 64, description="Root seed of keyed randomness")
    tracing_backend: Literal["auto", "reference", "warp"] = "auto"
    environment: EnvironmentDocument = Field(default_factory=EnvironmentDocument)
    vehicles: list[VehicleSetupDocument] = Field(min_length=1, max_length=16)
    faults: list[ThrusterFault] = Field(default_factory=list, max_length=256)
    sensors: list[SensorDocument] = Field(default_factory=list, max_length=64)
    _base_dir: Path | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _consistent(self) -> ScenarioDocument:
        if (self.duration_ns is None) == (self.duration_ticks is None):
            raise ValueError(
                "duration_ns/duration_ticks: give exactly one run length (e.g. duration_ns = "
                "30_000_000_000 or duration_ticks = 3000)"
            )
        if self.duration_ns is not None and self.duration_ns % self.step_ns:
            raise ValueError(
                f"duration_ns: {self.duration_ns} ns is not a whole number of {self.step_ns} ns "
                f"ticks; give a multiple of step_ns or use duration_ticks"
            )
        if self.tick_count > 2_000_000:
            raise ValueError(
                f"duration_ns: {self.tick_count} ticks exceed the 2,000,000-tick limit of a run"
            )
        names = [v.name for v in self.vehicles]
        if len(set(names)) != len(names):
            raise ValueError(f"vehicles: names must be unique, got {names}")
        for i, fault in enumerate(self.faults):
            if fault.vehicle not in names:
                raise ValueError(
                    f"faults[{i}].vehicle: no vehicle {fault.vehicle!r}; vehicles: "
                    f"{', '.join(names)}"
                )
        ids = [s.id for s in self.sensors]
        if len(set(ids)) != len(ids):
            raise ValueError(f"sensors: ids must be unique, got {ids}")
        for i, sensor in enumerate(self.sensors):
            if sensor.id.split("/")[0] not in names:
                raise ValueError(
                    f"sensors[{i}].id: {sensor.id!r} names no vehicle of this scenario "
                    f"({', '.join(names)}); write 'vehicle/sensor'"
                )
        return self

    @property
    def tick_count(self) -> int:
        """Ticks the run advances."""
        if self.duration_ticks is not None:
            return self.duration_ticks
        return self.duration_ns // self.step_ns


def scenario_from_dict(data: Any, *, base_dir: str | os.PathLike[str] | None = None):
    """Validate a parsed scenario document.

    Args:
        data: The parsed document (a mapping).
        base_dir: Folder that relative vehicle-document paths are read from
            (default: the working directory).

    Returns:
        The :class:`ScenarioDocument`, with ``base_dir`` kept for path resolution.

    Raises:
        SpecError: One line per problem, ``field.path: message (got value)``.
    """
    doc = spec_from_dict(data, ScenarioDocument, source="scenario")
    doc._base_dir = Path(base_dir) if base_dir is not None else Path.cwd()
    return doc


def load_scenario(path: str | os.PathLike[str]) -> ScenarioDocument:
    """Read a ``.json`` or ``.toml`` scenario document strictly.

    Raises:
        SpecError: If it cannot be parsed or fails validation (names the file and field).
        FileNotFoundError: If the file does not exist.
    """
    path = Path(path)
    doc = load_spec(path, ScenarioDocument)
    doc._base_dir = path.resolve().parent
    return doc
