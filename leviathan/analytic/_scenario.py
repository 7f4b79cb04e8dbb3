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
    [environment]               scene ("none", "flat_seabed", "survey"), its size, water
    [[vehicles]]                name, spec (catalogue name or inline document),
                                position_ned_m, rpy_rad, velocity_body, controller
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
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from leviathan.analytic._faults import ThrusterFault
from leviathan.analytic._generators import BIT_GENERATORS, SEED_LIMIT
from leviathan.sensors import registered_sensor_kinds, sensor_declarations
from leviathan.specs import load_spec, spec_from_dict

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
]

_STRICT = ConfigDict(strict=True, frozen=True, extra="forbid", allow_inf_nan=False)
_NAME = r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$"


def _vector(n: int, what: str, default: tuple[float, ...] | None = None) -> Any:
    if default is None:
        return Field(min_length=n, max_length=n, description=what)
    return Field(
        default_factory=lambda: list(default), min_length=n, max_length=n, description=what
    )


class _Doc(BaseModel):
    model_config = _STRICT


class DirectThrustDocument(_Doc):
    """:class:`leviathan.controllers.DirectThrust`: constant thruster commands."""

    __content_type__ = "leviathan.analytic.DirectThrustDocument"
    kind: Literal["direct_thrust"]
    commands_n: list[float] = Field(
        min_length=1, max_length=64, description="Force per thruster, vehicle order [N]"
    )


class AutopilotDocument(_Doc):
    """:class:`leviathan.controllers.Autopilot`: surge speed, depth and heading."""

    __content_type__ = "leviathan.analytic.AutopilotDocument"
    kind: Literal["autopilot"]
    speed_m_per_s: float = Field(description="Commanded surge speed over ground [m/s]")
    depth_m: float = Field(description="Commanded depth [m]")
    heading_rad: float = Field(description="Commanded heading [rad]")
    options: dict[str, float] = Field(
        default_factory=dict, description="Autopilot gain options by argument name"
    )


class WaypointFollowerDocument(_Doc):
    """:class:`leviathan.controllers.WaypointFollower` over given waypoints."""

    __content_type__ = "leviathan.analytic.WaypointFollowerDocument"
    kind: Literal["waypoint_follower"]
    waypoints_ned_m: list[list[float]] = Field(
        min_length=1, max_length=10_000, description="Waypoints (north, east, depth) [m]"
    )
    speed_m_per_s: float = Field(description="Surge speed over ground [m/s]")
    acceptance_radius_m: float = Field(description="Horizontal acceptance radius [m]")
    lookahead_m: float = Field(5.0, description="Line-of-sight lookahead [m]")
    options: dict[str, float] = Field(default_factory=dict, description="Autopilot options")


class LawnmowerDocument(_Doc):
    """A :class:`WaypointFollower` over :func:`leviathan.controllers.lawnmower` waypoints."""

    __content_type__ = "leviathan.analytic.LawnmowerDocument"
    kind: Literal["lawnmower"]
    origin_ne_m: list[float] = _vector(2, "Start of the first leg (north, east) [m]")
    heading_rad: float = Field(description="Heading of the first leg [rad]")
    leg_length_m: float = Field(gt=0.0, description="Leg length [m]")
    leg_spacing_m: float = Field(gt=0.0, description="Spacing between legs [m]")
    legs: int = Field(ge=1, le=1000, description="Number of legs")
    depth_m: float = Field(description="Survey depth [m]")
    speed_m_per_s: float = Field(description="Surge speed over ground [m/s]")
    acceptance_radius_m: float = Field(description="Horizontal acceptance radius [m]")
    lookahead_m: float = Field(5.0, description="Line-of-sight lookahead [m]")
    options: dict[str, float] = Field(default_factory=dict, description="Autopilot options")


ControllerDocument = Annotated[
    DirectThrustDocument | AutopilotDocument | WaypointFollowerDocument | LawnmowerDocument,
    Field(discriminator="kind"),
]


class EnvironmentDocument(_Doc):
    """The scene and the water.

    ``scene``: ``"none"`` (open water), ``"flat_seabed"`` (a level Lambert seabed
    ``seabed_size_m`` square at ``seabed_depth_m``) or ``"survey"`` (the survey
    demo's generated seabed with targets, ``seabed_triangles`` triangles, and its
    water). ``water`` is a :class:`~leviathan.specs.WaterSpec` document replacing
    the scene's water (current included).
    """

    __content_type__ = "leviathan.analytic.EnvironmentDocument"
    scene: Literal["none", "flat_seabed", "survey"] = "none"
    seabed_depth_m: float = Field(30.0, gt=0.0, le=11_000.0, description="Flat seabed depth [m]")
    seabed_size_m: float = Field(400.0, gt=0.0, le=100_000.0, description="Flat seabed side [m]")
    seabed_triangles: int = Field(
        20_000, ge=2, le=1_000_000, description="Triangles of the survey seabed"
    )
    water: dict[str, Any] | None = Field(None, description="A WaterSpec document")


class VehicleDocument(_Doc):
    """A vehicle placed in the scenario."""

    __content_type__ = "leviathan.analytic.VehicleDocument"
    name: str = Field(pattern=_NAME, description="Vehicle name (no '/')")
    spec: str | dict[str, Any] = Field(
        description="A catalogue vehicle name, a .json/.toml vehicle document path, or an "
        "inline vehicle document"
    )
    position_ned_m: list[float] = _vector(3, "Initial CG position, world NED [m]", (0.0,) * 3)
    rpy_rad: list[float] = _vector(3, "Initial roll, pitch, yaw [rad]", (0.0,) * 3)
    velocity_body: list[float] = _vector(6, "Initial (u, v, w, p, q, r) [m/s, rad/s]", (0.0,) * 6)
    controller: ControllerDocument


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
    vehicles: list[VehicleDocument] = Field(min_length=1, max_length=16)
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
