"""Analytic IMU error model with datasheet parameters (not canonical).

Per axis of the sensor frame, for the gyroscope (angular rate ``ω`` [rad/s]) and
likewise for the accelerometer (specific force ``f`` [m/s²])::

    ω_meas = (1 + s) ⊙ ((I + [m]×) ω_true) + b_on + b_gm(t) + b_rw(t) + n(t)

* ``n``: white noise, the **angle / velocity random walk** ``N``: per sample of
  period ``Δt`` a normal draw of std ``N / sqrt(Δt)``, so the Allan deviation of
  the rate is ``N / sqrt(τ)``;
* ``b_gm``: the **bias instability** ``B``, modelled as a first-order Gauss-Markov
  process of correlation time ``T`` (``b_k = φ b_{k-1} + σ sqrt(1 - φ²) w_k``,
  ``φ = exp(-Δt / T)``, started from its stationary distribution). ``B`` is read
  as datasheets quote in-run bias stability, the floor (minimum) of the Allan
  deviation: the process std ``σ = B / ALLAN_PEAK_FACTOR`` makes the
  Gauss-Markov Allan deviation peak at exactly ``B``, at ``τ ≈ 1.89 T``;
* ``b_rw``: the **bias random walk** ``K`` (rate random walk): ``b_k = b_{k-1} +
  K sqrt(Δt) w_k`` from zero, Allan deviation ``K sqrt(τ / 3)``;
* ``b_on``: the **turn-on bias**, one normal draw of the given std per axis when
  the sensor starts, constant over the run;
* ``s``: **scale factor** error per axis [ppm]; ``m``: **misalignment** per axis
  [mrad], a small rotation vector of the sensing axes (``[m]×`` its skew matrix).

Units as datasheets give them: ARW [deg/√h], VRW [m/s/√h], bias instability
[deg/h] and [mg], bias random walk [deg/h/√h] and [mg/√h], turn-on bias [deg/h]
and [mg], 1 mg = 9.80665e-3 m/s².

Draw order (the reproducibility contract): at start, 6 normals for the turn-on
biases (gyro x, y, z, accel x, y, z), then 6 for the stationary start of the
Gauss-Markov biases; then per sample one row of 18 normals: gyro white, accel
white, gyro Gauss-Markov, accel Gauss-Markov, gyro random walk, accel random
walk (3 each). Every sample draws all 18 whatever the parameters, so the draws
of ``n`` samples taken one at a time equal those of one call with ``n`` rows.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ALLAN_PEAK_FACTOR",
    "ALLAN_PEAK_TAU_OVER_T",
    "MG_M_S2",
    "IMUNoise",
    "IMUNoiseModel",
    "gauss_markov_allan_deviation",
    "imu_recorder",
]

MG_M_S2 = 9.80665e-3
"""One milli-g [m/s²] (standard gravity / 1000)."""

_DEG = math.pi / 180.0


def _error_term(description: str) -> Any:
    """A datasheet error term: non-negative, 0 (the term is off) unless declared."""
    return Field(0.0, ge=0.0, description=description)


def _per_axis_error_term(description: str) -> Any:
    """A datasheet error term per axis x, y, z: 0 on every axis unless declared."""
    return Field(
        default_factory=lambda: [0.0, 0.0, 0.0],
        min_length=3,
        max_length=3,
        description=description,
    )


def gauss_markov_allan_deviation(tau_s: np.ndarray, sigma: float, correlation_s: float):
    """Allan deviation of a first-order Gauss-Markov process (continuous time).

    ``σ_A²(τ) = (2 σ² T² / τ) [1 - (T / 2τ)(3 - 4 e^{-τ/T} + e^{-2τ/T})]``
    (driving noise PSD ``q = 2 σ² / T``): ``≈ q τ / 3`` for ``τ << T`` and
    ``q T² / τ`` for ``τ >> T``.

    Args:
        tau_s: Averaging times τ [s], any shape, > 0.
        sigma: Stationary std σ of the process (any unit).
        correlation_s: Correlation time T [s], > 0.

    Returns:
        σ_A(τ) in the unit of ``sigma``, the shape of ``tau_s``.
    """
    x = np.asarray(tau_s, dtype=np.float64) / correlation_s
    shape = 1.0 - (3.0 - 4.0 * np.exp(-x) + np.exp(-2.0 * x)) / (2.0 * x)
    return sigma * np.sqrt(2.0 / x * shape)


def _peak() -> tuple[float, float]:
    """Maximum of the unit Gauss-Markov Allan deviation over x = τ/T, by golden section."""
    lo, hi = 0.5, 5.0
    ratio = (math.sqrt(5.0) - 1.0) / 2.0

    def f(x: float) -> float:
        return float(gauss_markov_allan_deviation(np.array(x), 1.0, 1.0))

    for _ in range(200):
        a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        if f(a) < f(b):
            lo = a
        else:
            hi = b
    x = 0.5 * (lo + hi)
    return x, f(x)


ALLAN_PEAK_TAU_OVER_T, ALLAN_PEAK_FACTOR = _peak()
"""Where (``τ / T``, about 1.893) and how high (about 0.6174 σ) a Gauss-Markov
process's Allan deviation peaks."""


class IMUNoiseModel(BaseModel):
    """Datasheet error parameters of one IMU (analytic tier)."""

    __content_type__ = "leviathan.analytic.IMUNoiseModel"

    model_config = ConfigDict(strict=True, frozen=True, extra="forbid", allow_inf_nan=False)

    kind: Literal["imu"] = "imu"
    angle_random_walk_deg_per_sqrt_h: float = _error_term(
        "Gyro white noise, angle random walk [deg/√h]"
    )
    velocity_random_walk_m_per_s_per_sqrt_h: float = _error_term(
        "Accelerometer white noise, velocity random walk [m/s/√h]"
    )
    gyro_bias_instability_deg_per_h: float = _error_term(
        "Gyro in-run bias stability, the Allan deviation floor [deg/h]"
    )
    accel_bias_instability_mg: float = _error_term(
        "Accelerometer in-run bias stability, Allan floor [mg]"
    )
    bias_correlation_time_s: float = Field(
        100.0, gt=0.0, le=1e7, description="Correlation time T of the bias instability [s]"
    )
    gyro_bias_random_walk_deg_per_h_per_sqrt_h: float = _error_term(
        "Gyro rate random walk [deg/h/√h]"
    )
    accel_bias_random_walk_mg_per_sqrt_h: float = _error_term(
        "Accelerometer bias random walk [mg/√h]"
    )
    gyro_turn_on_bias_deg_per_h: float = _error_term(
        "Gyro turn-on (run-to-run) bias, 1σ per axis [deg/h]"
    )
    accel_turn_on_bias_mg: float = _error_term("Accelerometer turn-on bias, 1σ per axis [mg]")
    gyro_scale_factor_ppm: list[float] = _per_axis_error_term(
        "Gyro scale-factor error per axis x, y, z [ppm]"
    )
    accel_scale_factor_ppm: list[float] = _per_axis_error_term(
        "Accelerometer scale-factor error per axis [ppm]"
    )
    gyro_misalignment_mrad: list[float] = _per_axis_error_term(
        "Gyro axes' misalignment, a small rotation vector [mrad]"
    )
    accel_misalignment_mrad: list[float] = _per_axis_error_term(
        "Accelerometer axes' misalignment, a small rotation vector [mrad]"
    )

    def si(self) -> dict[str, float]:
        """The white-noise, bias-instability and random-walk figures in SI per second.

        ``arw`` [rad/√s], ``vrw`` [m/s/√s], ``gyro_bi`` [rad/s], ``accel_bi``
        [m/s²], ``gyro_rw`` [rad/s/√s], ``accel_rw`` [m/s²/√s], ``gyro_on``
        [rad/s], ``accel_on`` [m/s²].
        """
        return {
            "arw": self.angle_random_walk_deg_per_sqrt_h * _DEG / 60.0,
            "vrw": self.velocity_random_walk_m_per_s_per_sqrt_h / 60.0,
            "gyro_bi": self.gyro_bias_instability_deg_per_h * _DEG / 3600.0,
            "accel_bi": self.accel_bias_instability_mg * MG_M_S2,
            "gyro_rw": self.gyro_bias_random_walk_deg_per_h_per_sqrt_h * _DEG / 3600.0 / 60.0,
            "accel_rw": self.accel_bias_random_walk_mg_per_sqrt_h * MG_M_S2 / 60.0,
            "gyro_on": self.gyro_turn_on_bias_deg_per_h * _DEG / 3600.0,
            "accel_on": self.accel_turn_on_bias_mg * MG_M_S2,
        }


def _distortion(scale_ppm: list[float], misalignment_mrad: list[float]) -> np.ndarray:
    """``diag(1 + s) (I + [m]×)``, shape (3, 3)."""
    mx, my, mz = (m * 1e-3 for m in misalignment_mrad)
    skew = np.array([[1.0, -mz, my], [mz, 1.0, -mx], [-my, mx, 1.0]])
    return (1.0 + np.asarray(scale_ppm, dtype=np.float64) * 1e-6)[:, None] * skew


def _rows_times(matrix: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``rows @ matrix.T`` written element-wise, so a row's result is the same in any batch."""
    out = np.empty_like(rows)
    for i in range(3):
        out[:, i] = (matrix[i, 0] * rows[:, 0] + matrix[i, 1] * rows[:, 1]) + matrix[i, 2] * rows[
            :, 2
        ]
    return out


class IMUNoise:
    """The running error state of one IMU: biases and the generator they draw from.

    Args:
        model: The datasheet parameters.
        generator: The sensor's own generator (draws as in the module docstring).
        sample_period_s: The IMU's sample period Δt [s], > 0.
    """

    def __init__(
        self, model: IMUNoiseModel, generator: np.random.Generator, *, sample_period_s: float
    ) -> None:
        if not isinstance(model, IMUNoiseModel):
            raise TypeError(f"model: expected an IMUNoiseModel, got {type(model).__name__}")
        if not isinstance(generator, np.random.Generator):
            raise TypeError(
                f"generator: expected a numpy Generator, got {type(generator).__name__}"
            )
        if not (math.isfinite(sample_period_s) and sample_period_s > 0.0):
            raise ValueError(f"sample_period_s: expected a period > 0 [s], got {sample_period_s!r}")
        self.model = model
        self.generator = generator
        self.dt = float(sample_period_s)
        si = model.si()
        self._white = np.array([si["arw"]] * 3 + [si["vrw"]] * 3) / math.sqrt(self.dt)
        gm_sigma = np.array([si["gyro_bi"]] * 3 + [si["accel_bi"]] * 3) / ALLAN_PEAK_FACTOR
        self._phi = math.exp(-self.dt / model.bias_correlation_time_s)
        self._gm_drive = gm_sigma * math.sqrt(1.0 - self._phi * self._phi)
        self._rw_step = np.array([si["gyro_rw"]] * 3 + [si["accel_rw"]] * 3) * math.sqrt(self.dt)
        on_sigma = np.array([si["gyro_on"]] * 3 + [si["accel_on"]] * 3)
        self.turn_on_bias = on_sigma * generator.standard_normal(6)
        self._gm = gm_sigma * generator.standard_normal(6)
        self._rw = np.zeros(6)
        self._gyro_matrix = _distortion(model.gyro_scale_factor_ppm, model.gyro_misalignment_mrad)
        self._accel_matrix = _distortion(
            model.accel_scale_factor_ppm, model.accel_misalignment_mrad
        )

    def apply(
        self, true_rate_rad_s: np.ndarray, true_force_m_s2: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Measured rate and specific force for ``n`` consecutive samples.

        Args:
            true_rate_rad_s: True angular rate in sensor axes [rad/s], shape (n, 3) or (3,).
            true_force_m_s2: True specific force in sensor axes [m/s²], same shape.

        Returns:
            ``(rate [rad/s], force [m/s²])`` in the input's shape, float64.
        """
        rate = np.asarray(true_rate_rad_s, dtype=np.float64)
        force = np.asarray(true_force_m_s2, dtype=np.float64)
        single = rate.ndim == 1
        rate, force = np.atleast_2d(rate), np.atleast_2d(force)
        if rate.shape != force.shape or rate.shape[1] != 3:
            raise ValueError(
                f"true_rate_rad_s and true_force_m_s2: expected equal shapes (n, 3), got "
                f"{rate.shape} and {force.shape}"
            )
        n = rate.shape[0]
        draws = self.generator.standard_normal((n, 18))
        bias = np.empty((n, 6))
        gm, rw, phi = self._gm, self._rw, self._phi
        gm_drive, rw_step = self._gm_drive, self._rw_step
        gm_draws = draws[:, 6:12] * gm_drive
        rw_draws = draws[:, 12:18] * rw_step
        for k in range(n):
            gm = phi * gm + gm_draws[k]
            rw = rw + rw_draws[k]
            bias[k] = gm + rw
        self._gm, self._rw = gm, rw
        errors = bias + self.turn_on_bias + draws[:, 0:6] * self._white
        measured_rate = _rows_times(self._gyro_matrix, rate) + errors[:, 0:3]
        measured_force = _rows_times(self._accel_matrix, force) + errors[:, 3:6]
        if single:
            return measured_rate[0], measured_force[0]
        return measured_rate, measured_force


def imu_recorder(noise: IMUNoiseModel | None, generator: Any, period_ns: int) -> Any:
    """The scenario recorder of an IMU (:class:`leviathan.sensors.AnalyticTier`): rows of the
    true and measured channels, the datasheet model applied when one is declared."""
    model = None if noise is None else IMUNoise(noise, generator, sample_period_s=period_ns / 1e9)

    def record(sample: Any) -> dict[str, Any]:
        ch = sample.channels
        rate = np.array(ch["true_angular_rate_sensor_rad_s"])
        force = np.array(ch["true_specific_force_sensor_m_s2"])
        row = {"true_angular_rate_sensor_rad_s": rate, "true_specific_force_sensor_m_s2": force}
        if model is not None:
            rate, force = model.apply(rate, force)
        row["angular_rate_sensor_rad_s"] = rate
        row["specific_force_sensor_m_s2"] = force
        return row

    return record
