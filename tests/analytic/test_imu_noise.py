"""The analytic IMU model reproduces its datasheet figures, measured as datasheets measure them.

The Allan deviation is computed here (overlapping estimator, Allan 1966 / IEEE Std 952):
``σ²(τ) = Σ_k (θ_{k+2m} − 2 θ_{k+m} + θ_k)² / (2 τ² (N − 2m))`` with ``θ`` the
integrated rate and ``τ = m Δt``. Tolerances are statistical: with 10^5 samples
the estimate at τ has about ``(N Δt / τ)`` independent clusters, a few percent
of scatter at the τ checked; 10 % bounds leave a margin of about three sigma.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from leviathan.analytic import sensor_generator
from leviathan.sensors import (
    ALLAN_PEAK_FACTOR,
    IMUNoise,
    IMUNoiseModel,
    gauss_markov_allan_deviation,
)
from leviathan.sensors._imu_noise import ALLAN_PEAK_TAU_OVER_T

DT = 0.1
SAMPLES = 100_000
DEG_PER_H = math.pi / 180.0 / 3600.0


def allan_deviation(rate: np.ndarray, dt: float, m: int) -> float:
    """Overlapping Allan deviation of a rate sequence at τ = m dt."""
    theta = np.concatenate([[0.0], np.cumsum(rate) * dt])
    d = theta[2 * m :] - 2.0 * theta[m:-m] + theta[: -2 * m]
    tau = m * dt
    return math.sqrt(float(np.mean(d * d)) / (2.0 * tau * tau))


def stationary(model: IMUNoiseModel, seed: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Measured rate and force of a stationary, level IMU: errors only (true values zero)."""
    generator, _ = sensor_generator("auv/imu", seed)
    imu = IMUNoise(model, generator, sample_period_s=DT)
    zeros = np.zeros((SAMPLES, 3))
    return imu.apply(zeros, zeros)


def test_angle_and_velocity_random_walk_follow_n_over_sqrt_tau() -> None:
    model = IMUNoiseModel(
        angle_random_walk_deg_per_sqrt_h=0.5, velocity_random_walk_m_per_s_per_sqrt_h=0.1
    )
    rate, force = stationary(model)
    assert rate.dtype == np.float64 and rate.shape == (SAMPLES, 3)
    n_gyro = 0.5 * math.pi / 180.0 / 60.0  # [rad/√s]
    n_accel = 0.1 / 60.0  # [m/s/√s]
    for m in (1, 10, 100):
        tau = m * DT
        for axis in range(3):
            assert allan_deviation(rate[:, axis], DT, m) == pytest.approx(
                n_gyro / math.sqrt(tau), rel=0.10
            )
            assert allan_deviation(force[:, axis], DT, m) == pytest.approx(
                n_accel / math.sqrt(tau), rel=0.10
            )


def test_bias_instability_is_the_allan_floor_at_its_declared_value() -> None:
    correlation = 5.0
    model = IMUNoiseModel(
        gyro_bias_instability_deg_per_h=20.0,
        accel_bias_instability_mg=0.05,
        bias_correlation_time_s=correlation,
    )
    rate, force = stationary(model)
    ms = np.unique(np.geomspace(1, 2000, 40).astype(int))
    gyro = np.array([allan_deviation(rate[:, 0], DT, int(m)) for m in ms])
    accel = np.array([allan_deviation(force[:, 1], DT, int(m)) for m in ms])
    peak = int(np.argmax(gyro))
    # The declared figure is where the Allan curve peaks (no white noise here), at ~1.89 T.
    assert gyro[peak] == pytest.approx(20.0 * DEG_PER_H, rel=0.10)
    assert np.max(accel) == pytest.approx(0.05 * 9.80665e-3, rel=0.10)
    assert ms[peak] * DT == pytest.approx(ALLAN_PEAK_TAU_OVER_T * correlation, rel=0.5)
    # And the curve follows the continuous-time Gauss-Markov closed form from τ = 10 Δt
    # (at τ of a few samples the sampled process reads higher than the continuous one).
    sigma = 20.0 * DEG_PER_H / ALLAN_PEAK_FACTOR
    expected = gauss_markov_allan_deviation(ms * DT, sigma, correlation)
    window = (ms >= 10) & (ms * DT <= 100.0)
    np.testing.assert_allclose(gyro[window], expected[window], rtol=0.10)


def test_allan_curve_of_white_noise_plus_bias_instability_is_their_sum() -> None:
    model = IMUNoiseModel(
        angle_random_walk_deg_per_sqrt_h=0.5,
        gyro_bias_instability_deg_per_h=20.0,
        bias_correlation_time_s=5.0,
    )
    rate, _ = stationary(model, seed=9)
    n_gyro = 0.5 * math.pi / 180.0 / 60.0
    sigma = 20.0 * DEG_PER_H / ALLAN_PEAK_FACTOR
    for m in (1, 10, 95, 300):
        tau = m * DT
        expected = math.sqrt(
            n_gyro**2 / tau + float(gauss_markov_allan_deviation(np.array(tau), sigma, 5.0)) ** 2
        )
        assert allan_deviation(rate[:, 2], DT, m) == pytest.approx(expected, rel=0.10)


def test_bias_random_walk_grows_as_k_sqrt_tau_over_3() -> None:
    model = IMUNoiseModel(gyro_bias_random_walk_deg_per_h_per_sqrt_h=50.0)
    rate, _ = stationary(model)
    k = 50.0 * DEG_PER_H / 60.0  # [rad/s/√s]
    for m in (100, 300):
        tau = m * DT
        assert allan_deviation(rate[:, 0], DT, m) == pytest.approx(
            k * math.sqrt(tau / 3.0), rel=0.15
        )


def test_turn_on_bias_is_constant_in_a_run_with_the_declared_spread_across_runs() -> None:
    model = IMUNoiseModel(gyro_turn_on_bias_deg_per_h=10.0, accel_turn_on_bias_mg=2.0)
    biases = []
    for seed in range(300):
        generator, _ = sensor_generator("auv/imu", seed)
        imu = IMUNoise(model, generator, sample_period_s=DT)
        rate, force = imu.apply(np.zeros((5, 3)), np.zeros((5, 3)))
        assert np.all(rate == rate[0]) and np.all(force == force[0])
        biases.append(np.concatenate([rate[0], force[0]]))
    spread = np.std(np.array(biases), axis=0)
    np.testing.assert_allclose(spread[:3], 10.0 * DEG_PER_H, rtol=0.15)
    np.testing.assert_allclose(spread[3:], 2.0 * 9.80665e-3, rtol=0.15)


def test_scale_factor_and_misalignment_distort_the_true_values_as_declared() -> None:
    model = IMUNoiseModel(
        gyro_scale_factor_ppm=[1000.0, -500.0, 200.0],
        gyro_misalignment_mrad=[1.0, 2.0, 3.0],
        accel_scale_factor_ppm=[100.0, 0.0, 0.0],
    )
    generator, _ = sensor_generator("auv/imu", 1)
    imu = IMUNoise(model, generator, sample_period_s=DT)
    rate, force = imu.apply(np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, -9.81]))
    # diag(1 + s) (I + [m]x) e_x = ((1 + s_x), (1 + s_y) m_z, -(1 + s_z) m_y).
    np.testing.assert_allclose(rate, [1.001, (1.0 - 5e-4) * 3e-3, -(1.0 + 2e-4) * 2e-3], rtol=1e-12)
    np.testing.assert_array_equal(force, [0.0, 0.0, -9.81])


def test_samples_one_at_a_time_equal_one_batch() -> None:
    model = IMUNoiseModel(
        angle_random_walk_deg_per_sqrt_h=0.3,
        gyro_bias_instability_deg_per_h=5.0,
        accel_bias_random_walk_mg_per_sqrt_h=0.1,
        gyro_scale_factor_ppm=[10.0, 20.0, 30.0],
    )
    truth = np.random.default_rng(0).normal(size=(50, 3))
    batch = IMUNoise(model, sensor_generator("a/imu", 3)[0], sample_period_s=DT)
    single = IMUNoise(model, sensor_generator("a/imu", 3)[0], sample_period_s=DT)
    rate, force = batch.apply(truth, truth)
    for k in range(50):
        r, f = single.apply(truth[k], truth[k])
        np.testing.assert_array_equal(r, rate[k])
        np.testing.assert_array_equal(f, force[k])


def test_model_refuses_negative_figures_and_wrong_lengths() -> None:
    with pytest.raises(ValueError, match="angle_random_walk_deg_per_sqrt_h"):
        IMUNoiseModel(angle_random_walk_deg_per_sqrt_h=-1.0)
    with pytest.raises(ValueError, match="gyro_scale_factor_ppm"):
        IMUNoiseModel(gyro_scale_factor_ppm=[1.0, 2.0])
    with pytest.raises(ValueError, match="extra"):
        IMUNoiseModel(arw=1.0)  # type: ignore[call-arg]
