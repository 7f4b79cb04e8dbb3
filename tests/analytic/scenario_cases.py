"""Shared builders of small scenario documents for the analytic tests."""

from __future__ import annotations

import copy
from typing import Any

from leviathan.catalogue import get_vehicle


def survey_spec(*sensors: str) -> dict[str, Any]:
    """The reference survey vehicle's document, keeping only the named sensors."""
    doc = get_vehicle("reference_survey_vehicle").model_dump(mode="json")
    doc["sensors"] = [s for s in doc["sensors"] if s["name"] in sensors]
    return doc


def scenario(**overrides: Any) -> dict[str, Any]:
    """A one-vehicle scenario: the survey vehicle under an autopilot, 1 s of 10 ms ticks."""
    doc: dict[str, Any] = {
        "name": "case",
        "step_ns": 10_000_000,
        "duration_ticks": 100,
        # The reference tracer: no Warp load in the child processes the tests start.
        "tracing_backend": "reference",
        "environment": {"scene": "flat_seabed", "seabed_depth_m": 30.0},
        "vehicles": [
            {
                "name": "auv",
                "spec": survey_spec("imu", "dvl"),
                "position_ned_m": [0.0, 0.0, 20.0],
                "velocity_body": [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                "controller": {
                    "kind": "autopilot",
                    "speed_m_per_s": 1.5,
                    "depth_m": 20.0,
                    "heading_rad": 0.0,
                },
            }
        ],
    }
    for key, value in overrides.items():
        doc[key] = copy.deepcopy(value)
    return doc


IMU_NOISE = {
    "kind": "imu",
    "angle_random_walk_deg_per_sqrt_h": 0.15,
    "velocity_random_walk_m_per_s_per_sqrt_h": 0.03,
    "gyro_bias_instability_deg_per_h": 2.0,
    "accel_bias_instability_mg": 0.02,
    "gyro_turn_on_bias_deg_per_h": 10.0,
}

DVL_NOISE = {
    "kind": "dvl",
    "beam_velocity_noise_m_s": 0.003,
    "dropout_probability": 0.05,
    "outlier_probability": 0.01,
    "outlier_std_m_s": 0.2,
}
