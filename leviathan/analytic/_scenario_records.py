"""The records of an analytic run: per-vehicle tracks, per-sensor streams, the result.

Analytic tier (not canonical): a :class:`ScenarioResult` says ``tier = "analytic"``
and hashes behind :data:`ANALYTIC_DOMAIN`, so it can never be taken for a
canonical product.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from leviathan.analytic._generators import GeneratorRecord
from leviathan.analytic._scenario import ScenarioDocument
from leviathan.identity import CONTENT_DOMAIN, canonical_encode
from leviathan.sensors import sensor_declarations as _declarations
from leviathan.sensors import true_channel_errors
from leviathan.specs import VehicleSpec

__all__ = [
    "ANALYTIC_DOMAIN",
    "SCENARIO_JOB",
    "ScenarioResult",
    "SensorStream",
    "VehicleRun",
    "analytic_hash",
    "file_stem",
]

ANALYTIC_DOMAIN = b"LEVIATHAN-ANALYTIC-v1\0"
"""Prefix of every analytic-tier hash: never equal to a canonical content hash."""

SCENARIO_JOB = "leviathan analytic scenario run"
"""The manifest's ``job``: marks a folder as a scenario output, which a rerun may replace."""


def analytic_hash(obj: Any) -> str:
    """SHA-256 of ``obj``'s canonical encoding behind :data:`ANALYTIC_DOMAIN`."""
    body = canonical_encode(obj)[len(CONTENT_DOMAIN) :]
    return hashlib.sha256(ANALYTIC_DOMAIN + body).hexdigest()


@dataclass(frozen=True, eq=False)
class VehicleRun:
    """One vehicle's run, every array float64 unless stated.

    Attributes:
        name: Vehicle name.
        spec: Its document.
        ticks: Tick index per row, int64 [n + 1] (tick 0 is the initial state).
        time_ns: Time per row [ns], int64 [n + 1].
        states: Committed state per row [n + 1, 13]: NED position [m], attitude
            quaternion (w, x, y, z), body velocities (u, v, w, p, q, r) [m/s, rad/s].
        thrust_n: Actual thruster forces per row [n + 1, thrusters] [N].
        command_n: The controller's command held over tick k [n, thrusters] [N].
        applied_command_n: The command the dynamics got after the faults [n, thrusters] [N].
        fault_active: Whether a fault acted on thruster j over tick k, bool [n, thrusters].
    """

    __content_type__ = "leviathan.analytic.VehicleRun"

    name: str
    spec: VehicleSpec
    ticks: np.ndarray
    time_ns: np.ndarray
    states: np.ndarray
    thrust_n: np.ndarray
    command_n: np.ndarray
    applied_command_n: np.ndarray
    fault_active: np.ndarray

    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays by name (what the npz file holds): every array field, in order."""
        named = ((f.name, getattr(self, f.name)) for f in fields(self))
        return {name: value for name, value in named if isinstance(value, np.ndarray)}


@dataclass(frozen=True, eq=False)
class SensorStream:
    """One recorded sensor: its samples' arrays, generator and noise model.

    Attributes:
        sensor_id: ``"vehicle/sensor"``.
        kind: The sensor's kind (any registered kind).
        arrays: ``time_ns`` and ``sample_index`` (int64 [m]) and the rows its kind's
            analytic tier records (:class:`leviathan.sensors.AnalyticTier`; the canonical
            channels for a kind without one), stacked over samples.
        generator: How the sensor's generator was made (seed or ``"unseeded"``).
        noise: The noise model, or ``None`` (noise-free channels).
    """

    __content_type__ = "leviathan.analytic.SensorStream"

    sensor_id: str
    kind: str
    arrays: Mapping[str, np.ndarray]
    generator: GeneratorRecord
    noise: Any

    def errors(self) -> dict[str, np.ndarray]:
        """Measured minus true, per channel pair (NaN where a measurement is missing), as the
        sensor's kind defines them (every ``X`` beside a ``true_X`` by default)."""
        analytic = _declarations(self.kind).analytic
        errors = true_channel_errors if analytic is None else analytic.errors
        return errors(self.arrays)

    def error_units(self, name: str) -> tuple[str, float]:
        """The plots' axis label and scale of error series ``name`` (see :meth:`errors`)."""
        declared = _declarations(self.kind)
        if declared.analytic is not None and name in declared.analytic.plot_units:
            return declared.analytic.plot_units[name]
        doc = declared.channels.get(name)
        return (f"{name} error [{doc.units if doc is not None else '-'}]", 1.0)


@dataclass(frozen=True, eq=False)
class ScenarioResult:
    """A finished analytic run (not canonical: ``tier == "analytic"``).

    Attributes:
        scenario: The document that was run.
        step_ns: Tick length [ns].
        tick_count: Ticks advanced.
        vehicles: Per vehicle name, its :class:`VehicleRun`.
        faults: Per fault, in document order, its record with the effective tick.
        sensors: Per sensor id, its :class:`SensorStream`.
        backend: ``(backend, device)`` the canonical sensors traced with.
        tier: Always ``"analytic"``.
    """

    __content_type__ = "leviathan.analytic.ScenarioResult"

    scenario: ScenarioDocument
    step_ns: int
    tick_count: int
    vehicles: Mapping[str, VehicleRun]
    faults: tuple[dict[str, Any], ...]
    sensors: Mapping[str, SensorStream]
    backend: tuple[str, str]
    tier: str = field(default="analytic")

    def __content__(self) -> dict[str, Any]:
        return {
            "tier": self.tier,
            "scenario": self.scenario.model_dump(mode="json"),
            "step_ns": self.step_ns,
            "tick_count": self.tick_count,
            "vehicles": {name: run.arrays() for name, run in self.vehicles.items()},
            "faults": list(self.faults),
            "sensors": {
                sid: {
                    "kind": s.kind,
                    "arrays": dict(s.arrays),
                    "generator": s.generator.to_json(),
                }
                for sid, s in self.sensors.items()
            },
        }

    @property
    def analytic_hash(self) -> str:
        """Identity of the run in the analytic domain (never a canonical content hash)."""
        return analytic_hash(self)

    def manifest(self) -> dict[str, Any]:
        """The JSON manifest: scenario, faults with effective ticks, seeds, files."""
        return {
            "job": SCENARIO_JOB,
            "tier": self.tier,
            "note": "analytic tier: not canonical, not citable; canonical dynamics and sensors "
            "underneath, thruster faults and per-sensor noise generators on top",
            "scenario": self.scenario.model_dump(mode="json"),
            "step_ns": self.step_ns,
            "tick_count": self.tick_count,
            "duration_ns": self.tick_count * self.step_ns,
            "tracing": {"backend": self.backend[0], "device": self.backend[1]},
            "faults": list(self.faults),
            "vehicles": {
                name: {"spec": run.spec.name, "file": f"tracks/{name}.npz"}
                for name, run in self.vehicles.items()
            },
            "sensors": {
                sid: {
                    "kind": s.kind,
                    "samples": int(s.arrays["time_ns"].shape[0]),
                    "generator": s.generator.to_json(),
                    "noise": None if s.noise is None else s.noise.model_dump(mode="json"),
                    "file": f"streams/{file_stem(sid)}.npz",
                }
                for sid, s in self.sensors.items()
            },
            "analytic_hash": self.analytic_hash,
        }


def file_stem(sensor_id: str) -> str:
    return sensor_id.replace("/", "__")
