"""The analytic DVL model: per-beam noise through the least-squares fit, dropout, outliers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from leviathan.analytic import scenario_from_dict, sensor_generator
from leviathan.analytic._scenario_build import build_environment
from leviathan.catalogue import get_vehicle
from leviathan.frames import Transform
from leviathan.sensors import BodyKinematics, DVLNoiseModel, apply_dvl_noise, measure_dvl
from leviathan.sensors._dvl_noise import logistic
from tests.analytic.scenario_cases import scenario

PINGS = 3000
BEAM_ANGLE = math.radians(30.0)  # the survey vehicle's DVL


def dvl_sample(*, depth_m: float = 20.0, pitch_rad: float = 0.0):
    """A canonical DVL sample of the survey vehicle over a flat seabed 30 m deep."""
    env = build_environment(scenario_from_dict(scenario()))
    spec = get_vehicle("reference_survey_vehicle").sensor("dvl")
    kin = BodyKinematics(
        T_world_body=Transform.from_euler(0.0, pitch_rad, 0.0, translation=(0.0, 0.0, depth_m)),
        velocity_body_m_s=np.array([1.2, 0.1, 0.05]),
    )
    return measure_dvl(
        env.scene_at(0),
        spec,
        kin,
        sensor_id="auv/dvl",
        sample_index=0,
        time_ns=0,
        seed=0,
        backend="reference",
    )


def pings(model: DVLNoiseModel, sample, seed: int = 3) -> dict[str, np.ndarray]:
    generator, _ = sensor_generator("auv/dvl", seed)
    rows = [apply_dvl_noise(sample, model, generator) for _ in range(PINGS)]
    return {key: np.array([r[key] for r in rows]) for key in rows[0]}


def test_beam_noise_propagates_through_the_janus_least_squares_fit() -> None:
    sigma = 0.01
    out = pings(DVLNoiseModel(beam_velocity_noise_m_s=sigma), dvl_sample())
    assert out["velocity_sensor_m_s"].dtype == np.float64
    assert out["velocity_sensor_m_s"].shape == (PINGS, 3)
    assert np.all(out["lock"] == 1)
    error = out["velocity_sensor_m_s"] - out["true_velocity_sensor_m_s"]
    # Four beams at angle a about the boresight: (DᵀD) = diag(4 cos²a, 2 sin²a, 2 sin²a).
    expected = [
        sigma / (2.0 * math.cos(BEAM_ANGLE)),
        sigma / (math.sqrt(2.0) * math.sin(BEAM_ANGLE)),
        sigma / (math.sqrt(2.0) * math.sin(BEAM_ANGLE)),
    ]
    np.testing.assert_allclose(np.std(error, axis=0), expected, rtol=0.08)
    np.testing.assert_allclose(np.mean(error, axis=0), 0.0, atol=4 * sigma / math.sqrt(PINGS))


def test_bottom_lock_is_lost_as_altitude_reaches_the_rated_limit() -> None:
    sample = dvl_sample()  # level, the CG 10 m above the seabed
    altitude = float(np.nanmean(np.asarray(sample.channels["beam_range_m"]))) * math.cos(BEAM_ANGLE)
    mount_down_m = get_vehicle("reference_survey_vehicle").sensor("dvl").mount.translation_m[2]
    assert altitude == pytest.approx(10.0 - mount_down_m, abs=1e-6)
    at_limit = pings(DVLNoiseModel(max_altitude_m=altitude, altitude_rolloff_m=2.0), sample)
    np.testing.assert_allclose(at_limit["beam_dropout_probability"], 0.5, atol=1e-6)
    # Lock needs 3 of 4 beams, each kept with probability 1/2: P = (4 + 1) / 16.
    assert np.mean(at_limit["lock"]) == pytest.approx(5.0 / 16.0, abs=0.03)
    assert np.all(np.isnan(at_limit["velocity_sensor_m_s"][at_limit["lock"] == 0]))
    rated = pings(DVLNoiseModel(max_altitude_m=20.0, altitude_rolloff_m=2.0), sample)
    expected = float(logistic(np.array(altitude), 20.0, 2.0))
    np.testing.assert_allclose(rated["beam_dropout_probability"], expected, rtol=1e-9)
    assert np.mean(rated["lock"]) > 0.99


def test_dropout_rises_with_incidence_on_the_bottom() -> None:
    sample = dvl_sample(pitch_rad=math.radians(12.0))
    model = DVLNoiseModel(max_incidence_deg=35.0, incidence_rolloff_deg=3.0)
    out = apply_dvl_noise(sample, model, sensor_generator("auv/dvl", 1)[0])
    # Flat seabed: the incidence is the angle between each beam and the vertical.
    rotation = np.asarray(sample.metadata["T_world_sensor"]["rotation"])
    world = np.asarray(sample.metadata["beam_directions_sensor"]) @ rotation.T
    incidence = np.degrees(np.arccos(np.abs(world[:, 2])))
    np.testing.assert_allclose(out["beam_incidence_deg"], incidence, atol=1e-6)
    assert incidence.max() - incidence.min() > 10.0
    np.testing.assert_allclose(
        out["beam_dropout_probability"], logistic(incidence, 35.0, 3.0), rtol=1e-6
    )


def test_outliers_hit_the_declared_share_of_beams() -> None:
    out = pings(DVLNoiseModel(outlier_probability=0.1, outlier_std_m_s=0.5), dvl_sample())
    assert np.mean(out["beam_outlier"]) == pytest.approx(0.1, abs=0.01)
    error = out["velocity_sensor_m_s"] - out["true_velocity_sensor_m_s"]
    clean = out["beam_outlier"].sum(axis=1) == 0
    assert np.all(np.abs(error[clean]) < 1e-12)
    assert np.median(np.abs(error[~clean]).max(axis=1)) > 0.1


def test_every_ping_draws_the_same_count_whatever_the_model() -> None:
    sample = dvl_sample()
    for model in (DVLNoiseModel(), DVLNoiseModel(beam_velocity_noise_m_s=0.1, max_altitude_m=3.0)):
        generator, _ = sensor_generator("auv/dvl", 11)
        apply_dvl_noise(sample, model, generator)
        reference, _ = sensor_generator("auv/dvl", 11)
        reference.random((4, 2))
        reference.standard_normal((4, 2))
        assert generator.random() == reference.random()
