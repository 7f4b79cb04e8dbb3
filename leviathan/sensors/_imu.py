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

import math
from types import MappingProxyType
from typing import Any

import numpy as np

from leviathan._frozen import frozen_array
from leviathan._validation import check_seed
from leviathan.frames import sensor_pose
from leviathan.random import normal
from leviathan.ros import (
    UNKNOWN_COVARIANCE_3X3,
    diagonal_covariance,
    frd_to_flu,
    header,
    vector3,
)
from leviathan.sensors._context import SampleContext
from leviathan.sensors._declarations import (
    AnalyticTier,
    RosEncoding,
    RosTopic,
    channel_doc,
    true_channel_errors,
)
from leviathan.sensors._imu_noise import MG_M_S2, IMUNoiseModel, imu_recorder
from leviathan.sensors._kinematics import (
    GRAVITY_NED,
    BodyKinematics,
    _cross3,
    _float_vector,
    _rotate3,
    _rotate3_transposed,
    _vector3,
)
from leviathan.sensors._protocol import register_sensor_kind
from leviathan.sensors._sample import (
    SensorSample,
    _check_sample_inputs,
    _mount_constants,
    _noise_record,
    _spec_derived,
)
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

_AXES = frozen_array(np.arange(3))


def _mount_and_spec(spec: IMUSpec) -> tuple[Any, ...]:
    """Per-spec constants (:func:`~leviathan.sensors._sample._mount_constants`)."""
    return _mount_constants(spec, ("accel_noise_std_m_per_s2", "gyro_noise_std_rad_per_s"))


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
    ids = _check_sample_inputs(spec, IMUSpec, (sensor_id, sample_index, time_ns), kin=kin)
    accel_std = float(spec.accel_noise_std_m_per_s2)
    gyro_std = float(spec.gyro_noise_std_rad_per_s)
    needed = [
        what
        for what, std in (("accelerometer noise", accel_std), ("gyroscope noise", gyro_std))
        if std > 0.0
    ]
    check_seed(seed, needed_by=f"IMU {' and '.join(needed)} (std > 0)" if needed else None)
    # The default gravity is already a checked, read-only (3,) array.
    g_ned = GRAVITY_NED if gravity_ned is GRAVITY_NED else _vector3("gravity_ned", gravity_ned)

    T_body_sensor, R_sensor_body, r, mount_record, spec_record = _spec_derived(
        spec, _mount_and_spec
    )
    T_world_sensor = sensor_pose(kin.T_world_body, T_body_sensor)
    # Python floats in the frames contract order (see _kinematics): the same IEEE
    # operations as Transform.apply_direction and element-wise numpy, a tenth the cost.
    omega = kin.angular_velocity_body_rad_s.tolist()
    linear = kin.linear_acceleration_body_m_s2.tolist()
    angular = kin.angular_acceleration_body_rad_s2.tolist()

    # Rigid-body acceleration of the sensor point: tangential, then centripetal.
    tangential = _cross3(angular, r)
    centripetal = _cross3(omega, _cross3(omega, r))
    a_sensor_body = [(a + t) + c for a, t, c in zip(linear, tangential, centripetal, strict=True)]
    g_body = _rotate3_transposed(kin.T_world_body.rotation.tolist(), g_ned.tolist())
    true_force = _rotate3(
        R_sensor_body, [a - g for a, g in zip(a_sensor_body, g_body, strict=True)]
    )
    true_rate = _rotate3(R_sensor_body, omega)

    index = _AXES
    force, rate = true_force, true_rate
    if accel_std > 0.0:
        noise = normal(seed, sensor_id, sample_index, IMU_ACCEL_EFFECT, index).tolist()
        force = [f + n * accel_std for f, n in zip(true_force, noise, strict=True)]
    if gyro_std > 0.0:
        noise = normal(seed, sensor_id, sample_index, IMU_GYRO_EFFECT, index).tolist()
        rate = [w + n * gyro_std for w, n in zip(true_rate, noise, strict=True)]

    channels = MappingProxyType(
        {
            "specific_force_sensor_m_s2": _float_vector(force),
            "angular_rate_sensor_rad_s": _float_vector(rate),
            "true_specific_force_sensor_m_s2": _float_vector(true_force),
            "true_angular_rate_sensor_rad_s": _float_vector(true_rate),
        }
    )
    metadata = {
        "model": IMU_MODEL_VERSION,
        "spec": spec_record,
        "T_world_sensor": T_world_sensor.to_dict(),
        "T_body_sensor": mount_record,
        "gravity_ned_m_s2": g_ned.tolist(),
        # Only the inputs the model uses (the CG velocity does not enter an IMU).
        "kinematics": {
            "angular_velocity_body_rad_s": omega,
            "linear_acceleration_body_m_s2": linear,
            "angular_acceleration_body_rad_s2": angular,
        },
        "noise": [
            _noise_record(IMU_ACCEL_EFFECT, drawn=accel_std > 0.0, seed=seed),
            _noise_record(IMU_GYRO_EFFECT, drawn=gyro_std > 0.0, seed=seed),
        ],
    }
    return SensorSample(
        kind="imu",
        **ids,
        channels=channels,
        metadata=metadata,
    )


# --------------------------------------------------------------------------- declarations

_S_FRD = "sensor FRD (x along the boresight)"


def _imu_message(sample: SensorSample, frame_id: str) -> list[tuple[str, dict[str, Any]]]:
    """``sensor_msgs/Imu`` of one sample, in the sensor's FLU frame.

    Angular rate and specific force (as ``linear_acceleration``, REP 145: a level
    IMU at rest reads +9.81 m/s² up) of the noisy measurement; no orientation
    (identity, ``orientation_covariance[0] = -1``: "no estimate" per sensor_msgs/Imu);
    the other covariances hold the noise variances on the diagonal, all zero for a
    noise-free IMU (which the message reads as "unknown": it has no way to say
    "exactly zero").
    """
    ch = sample.channels
    spec = sample.metadata["spec"]
    gyro = float(spec["gyro_noise_std_rad_per_s"])
    accel = float(spec["accel_noise_std_m_per_s2"])
    message = {
        "header": header(sample.time_ns, frame_id),
        "orientation": {"x": 0.0, "y": 0.0, "z": 0.0, "w": 1.0},
        "orientation_covariance": list(UNKNOWN_COVARIANCE_3X3),
        "angular_velocity": vector3(frd_to_flu(ch["angular_rate_sensor_rad_s"])),
        "angular_velocity_covariance": diagonal_covariance(gyro * gyro),
        "linear_acceleration": vector3(frd_to_flu(ch["specific_force_sensor_m_s2"])),
        "linear_acceleration_covariance": diagonal_covariance(accel * accel),
    }
    return [("", message)]


class IMUSensor:
    """IMU samples: :func:`measure_imu` on a sample context (standard gravity)."""

    kind = "imu"
    spec_type = IMUSpec
    product_type = SensorSample
    # Kinematics only: no scene, no surfaces.
    reads_scene = False
    reads_surfaces = False
    channels = MappingProxyType(
        {
            "specific_force_sensor_m_s2": channel_doc(
                "m/s^2",
                _S_FRD,
                "xyz",
                "measured specific force (inertial acceleration minus gravity)",
            ),
            "angular_rate_sensor_rad_s": channel_doc(
                "rad/s", _S_FRD, "xyz", "measured angular rate"
            ),
            "true_specific_force_sensor_m_s2": channel_doc(
                "m/s^2", _S_FRD, "xyz", "noise-free specific force"
            ),
            "true_angular_rate_sensor_rad_s": channel_doc(
                "rad/s", _S_FRD, "xyz", "noise-free angular rate"
            ),
        }
    )
    # REP 145: a level IMU at rest reads +9.81 m/s² up; the sensor frame in FLU.
    ros = RosEncoding(
        frame="sensor", topics=(RosTopic("", "sensor_msgs/msg/Imu"),), encode=_imu_message
    )
    analytic = AnalyticTier(
        noise_model=IMUNoiseModel,
        start=imu_recorder,
        errors=true_channel_errors,
        plot_units={
            "angular_rate_sensor_rad_s": ("gyro error [deg/h]", 180.0 / math.pi * 3600.0),
            "specific_force_sensor_m_s2": ("accel error [mg]", 1.0 / MG_M_S2),
        },
    )

    def summary(self, spec: IMUSpec) -> str:
        """The noise stds, in one line."""
        return (
            f"accel noise {spec.accel_noise_std_m_per_s2:g} m/s², "
            f"gyro noise {spec.gyro_noise_std_rad_per_s:g} rad/s"
        )

    def sample(self, spec: IMUSpec, context: SampleContext) -> SensorSample:
        """One IMU sample of ``spec`` from the committed kinematics of ``context``."""
        return measure_imu(spec, context.kinematics, **context.ids(), seed=context.root_seed)


register_sensor_kind(IMUSensor())
