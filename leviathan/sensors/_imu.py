"""Canonical inertial measurement unit: specific force and angular rate.

The IMU's sensor frame is FRD (x along the boresight) placed by its mount
``T_body_sensor = spec.mount.transform()``; ``r = T_body_sensor.translation`` is
the lever arm from the centre of gravity (CG) in body FRD [m].

Specific force (what an accelerometer measures: inertial acceleration minus
gravity) at the sensor, in body FRD then sensor axes::

    a_sensor_body = (a_cg + ω̇ × r) + ω × (ω × r)
    f_body        = a_sensor_body − R_body_world g_ned
    f_sensor      = R_sensor_body f_body

Angular rate: ``ω_sensor = R_sensor_body ω``. A stationary, level IMU therefore
reads ``f = (0, 0, −9.81)`` m/s² (the support force points up, −z in FRD).

Noise is keyed: ``std_accel · normal(seed, sensor_id, sample_index, "imu_accel",
[0, 1, 2])`` and ``std_gyro · normal(..., "imu_gyro", [0, 1, 2])`` in sensor
axes, each drawn only when its std is positive.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from leviathan._validation import check_sample_identifiers, check_seed
from leviathan.frames import sensor_pose
from leviathan.random import normal
from leviathan.sensors._kinematics import GRAVITY_NED, BodyKinematics, _cross, _vector3
from leviathan.sensors._protocol import SampleContext, register_sensor_kind
from leviathan.sensors._sample import SensorSample, _noise_record
from leviathan.specs import IMUSpec

__all__ = [
    "IMU_ACCEL_EFFECT",
    "IMU_GYRO_EFFECT",
    "IMU_MODEL_VERSION",
    "IMUSensor",
    "measure_imu",
]

IMU_MODEL_VERSION = "leviathan.imu.v1"
"""Name and version of the IMU model; part of every IMU sample's identity."""

IMU_ACCEL_EFFECT = "imu_accel"
"""Keyed-randomness effect of the accelerometer noise (indices 0, 1, 2 = sensor x, y, z)."""

IMU_GYRO_EFFECT = "imu_gyro"
"""Keyed-randomness effect of the gyroscope noise (indices 0, 1, 2 = sensor x, y, z)."""


def _physics_spec(spec: IMUSpec) -> dict[str, Any]:
    """The spec fields that define the output (the mount enters through the pose)."""
    return {
        "accel_noise_std_m_per_s2": float(spec.accel_noise_std_m_per_s2),
        "gyro_noise_std_rad_per_s": float(spec.gyro_noise_std_rad_per_s),
    }


def measure_imu(
    spec: IMUSpec,
    kin: BodyKinematics,
    *,
    sensor_id: str,
    sample_index: int,
    time_ns: int,
    seed: int | None = None,
    gravity_ned: Any = GRAVITY_NED,
) -> SensorSample:
    """Take one IMU sample from the committed kinematics.

    Args:
        spec: IMU spec (noise stds, mount).
        kin: Committed body kinematics; uses the pose, ω, ω̇ and the CG's inertial
            acceleration.
        sensor_id: Stable sensor id, ``"vehicle/sensor"``; part of the noise key.
        sample_index: Index n of the sample in the sensor's schedule, >= 0.
        time_ns: Sample time [ns].
        seed: Root seed for keyed noise; required when either noise std is > 0.
            The seed enters the identity only through a drawn effect.
        gravity_ned: Gravitational acceleration in world NED [m/s²], shape (3,);
            default :data:`GRAVITY_NED` = (0, 0, 9.81).

    Returns:
        A ``kind="imu"`` :class:`SensorSample` with float64 (3,) channels
        ``specific_force_sensor_m_s2`` [m/s²], ``angular_rate_sensor_rad_s``
        [rad/s] (noisy when the stds are positive) and their noise-free
        ``true_specific_force_sensor_m_s2`` and ``true_angular_rate_sensor_rad_s``,
        all in the sensor FRD frame.

    Raises:
        TypeError: If an argument has the wrong type.
        ValueError: If an identifier or ``gravity_ned`` is malformed, or noise is
            enabled without a ``seed``.
    """
    if not isinstance(spec, IMUSpec):
        raise TypeError(f"spec: expected an IMUSpec, got {type(spec).__name__}")
    if not isinstance(kin, BodyKinematics):
        raise TypeError(f"kin: expected a BodyKinematics, got {type(kin).__name__}")
    check_sample_identifiers(sensor_id, sample_index, time_ns)
    accel_std = float(spec.accel_noise_std_m_per_s2)
    gyro_std = float(spec.gyro_noise_std_rad_per_s)
    needed = [
        what
        for what, std in (("accelerometer noise", accel_std), ("gyroscope noise", gyro_std))
        if std > 0.0
    ]
    check_seed(seed, needed_by=f"IMU {' and '.join(needed)} (std > 0)" if needed else None)
    g_ned = _vector3("gravity_ned", gravity_ned)

    T_body_sensor = spec.mount.transform()
    T_sensor_body = T_body_sensor.inverse()
    T_world_sensor = sensor_pose(kin.T_world_body, T_body_sensor)
    r = T_body_sensor.translation
    omega = kin.angular_velocity_body_rad_s

    # Rigid-body acceleration of the sensor point: tangential, then centripetal.
    a_sensor_body = (
        kin.linear_acceleration_body_m_s2 + _cross(kin.angular_acceleration_body_rad_s2, r)
    ) + _cross(omega, _cross(omega, r))
    g_body = kin.T_world_body.inverse().apply_direction(g_ned)
    true_force = T_sensor_body.apply_direction(a_sensor_body - g_body)
    true_rate = T_sensor_body.apply_direction(omega)

    index = np.arange(3)
    force, rate = true_force.copy(), true_rate.copy()
    if accel_std > 0.0:
        force = true_force + normal(seed, sensor_id, sample_index, IMU_ACCEL_EFFECT, index) * (
            accel_std
        )
    if gyro_std > 0.0:
        rate = true_rate + normal(seed, sensor_id, sample_index, IMU_GYRO_EFFECT, index) * gyro_std

    channels = {
        "specific_force_sensor_m_s2": force,
        "angular_rate_sensor_rad_s": rate,
        "true_specific_force_sensor_m_s2": true_force,
        "true_angular_rate_sensor_rad_s": true_rate,
    }
    metadata = {
        "model": IMU_MODEL_VERSION,
        "spec": _physics_spec(spec),
        "T_world_sensor": T_world_sensor.to_dict(),
        "T_body_sensor": T_body_sensor.to_dict(),
        "gravity_ned_m_s2": g_ned.tolist(),
        # Only the inputs the model uses (the CG velocity does not enter an IMU).
        "kinematics": {
            "angular_velocity_body_rad_s": omega.tolist(),
            "linear_acceleration_body_m_s2": kin.linear_acceleration_body_m_s2.tolist(),
            "angular_acceleration_body_rad_s2": kin.angular_acceleration_body_rad_s2.tolist(),
        },
        "noise": [
            _noise_record(IMU_ACCEL_EFFECT, drawn=accel_std > 0.0, seed=seed),
            _noise_record(IMU_GYRO_EFFECT, drawn=gyro_std > 0.0, seed=seed),
        ],
    }
    return SensorSample(
        kind="imu",
        sensor_id=sensor_id,
        sample_index=sample_index,
        time_ns=time_ns,
        channels=channels,
        metadata=metadata,
    )


class IMUSensor:
    """IMU samples: :func:`measure_imu` on a sample context (standard gravity)."""

    kind = "imu"
    spec_type = IMUSpec
    product_type = SensorSample

    def sample(self, spec: IMUSpec, context: SampleContext) -> SensorSample:
        """One IMU sample of ``spec`` from the committed kinematics of ``context``."""
        return measure_imu(spec, context.kinematics, **context.ids(), seed=context.root_seed)


register_sensor_kind(IMUSensor())
