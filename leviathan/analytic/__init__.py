"""The analytic tier: engineering tools that are explicitly not canonical.

Scenario runs with thruster faults and per-sensor noise generators, and the
analytic imaging-sonar image with its report. Every product here carries
``tier = "analytic"`` and hashes in its own identity domain, so it can never be
mistaken for a canonical product; the canonical tier's behaviour and hashes
are unchanged by anything in this package.

Scenario runs (:func:`run_scenario`, ``leviathan scenario run FILE --out DIR``):
a :class:`ScenarioDocument` (JSON or TOML, :func:`load_scenario`) declares
vehicles, controllers, environment, duration, thruster faults and the sensors
to record with their noise models (each sensor kind declares its own through
:class:`leviathan.sensors.AnalyticTier`: ``leviathan.sensors.IMUNoiseModel``,
``DVLNoiseModel``, the imaging sonar's ``SonarNoiseModel``, ``PressureNoiseModel``)
and seeds; a kind without one is recorded as its canonical sensor gives it. The vehicles move
under the canonical dynamics and their sensors are the canonical ones; faults
act between each controller and the dynamics, noise on the sensors' noise-free
channels, each sensor from its own generator (:func:`sensor_generator`).
"""

from __future__ import annotations

from leviathan.analytic._fan import sonar_image_png
from leviathan.analytic._faults import (
    FAULT_KINDS,
    DeadFault,
    LossOfEffectivenessFault,
    ReducedLimitFault,
    ReversedFault,
    SlowedResponseFault,
    StuckFault,
    ThrusterFault,
    effective_tick,
)
from leviathan.analytic._generators import BIT_GENERATORS, GeneratorRecord, sensor_generator

# The controller, environment and vehicle documents are leviathan.specs' one schema
# (AutopilotDocument, ..., VehicleSetupDocument); their old names stay importable
# from here for now (not in __all__: one public path per name).
from leviathan.analytic._scenario import (  # noqa: F401
    AutopilotDocument,
    DirectThrustDocument,
    EnvironmentDocument,
    LawnmowerDocument,
    ScenarioDocument,
    SensorDocument,
    VehicleDocument,
    WaypointFollowerDocument,
    load_scenario,
    scenario_from_dict,
)
from leviathan.analytic._scenario_build import (
    build_environment,
    build_vehicle_setups,
    canonical_world,
)
from leviathan.analytic._scenario_outputs import write_scenario_outputs
from leviathan.analytic._scenario_records import (
    ANALYTIC_DOMAIN,
    SCENARIO_JOB,
    ScenarioResult,
    SensorStream,
    VehicleRun,
    analytic_hash,
)
from leviathan.analytic._scenario_run import UnrecordedSensorWarning, run_scenario
from leviathan.analytic._sonar_image import (
    DEFAULT_MAX_RAY_COUNT,
    FILL_BIN_FRACTION,
    SonarImage,
    elevation_samples_for_fill,
    sonar_image,
)
from leviathan.analytic._sonar_image_files import write_sonar_image
from leviathan.analytic._sonar_report import Figure, SonarImageReport

__all__ = [
    "ANALYTIC_DOMAIN",
    "BIT_GENERATORS",
    "DEFAULT_MAX_RAY_COUNT",
    "FAULT_KINDS",
    "FILL_BIN_FRACTION",
    "SCENARIO_JOB",
    "DeadFault",
    "Figure",
    "GeneratorRecord",
    "LossOfEffectivenessFault",
    "ReducedLimitFault",
    "ReversedFault",
    "ScenarioDocument",
    "ScenarioResult",
    "SensorDocument",
    "SensorStream",
    "SlowedResponseFault",
    "SonarImage",
    "SonarImageReport",
    "StuckFault",
    "ThrusterFault",
    "UnrecordedSensorWarning",
    "VehicleRun",
    "analytic_hash",
    "build_environment",
    "build_vehicle_setups",
    "canonical_world",
    "effective_tick",
    "elevation_samples_for_fill",
    "load_scenario",
    "run_scenario",
    "scenario_from_dict",
    "sensor_generator",
    "sonar_image",
    "sonar_image_png",
    "write_scenario_outputs",
    "write_sonar_image",
]
