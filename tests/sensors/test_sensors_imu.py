"""Canonical IMU: specific force, lever-arm terms, frames and keyed noise."""

from __future__ import annotations

import math

import numpy as np
import pytest

from leviathan.frames import Transform
from leviathan.sensors import GRAVITY_NED, BodyKinematics, SensorSample, measure_imu
from leviathan.specs import IMUSpec, MountSpec, ScheduleSpec

LEVEL = Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 10.0))


def _spec(
    *,
    translation_m: tuple[float, float, float] = (0.0, 0.0, 0.0),
    rpy_deg: tuple[float, float, float] = (0.0, 0.0, 0.0),
    accel_std: float = 0.0,
    gyro_std: float = 0.0,
) -> IMUSpec:
    return IMUSpec(
        name="imu",
        accel_noise_std_m_per_s2=accel_std,
        gyro_noise_std_rad_per_s=gyro_std,
        schedule=ScheduleSpec(period_ns=10_000_000),
        mount=MountSpec(translation_m=translation_m, rpy_deg=rpy_deg),
        hardware_note="declared test value, not a device specification",
    )


def _measure(spec: IMUSpec, kin: BodyKinematics, **kw: object) -> SensorSample:
    return measure_imu(spec, kin, sensor_id="auv/imu", sample_index=3, time_ns=30, **kw)


def test_channels_have_documented_dtypes_and_shapes() -> None:
    sample = _measure(_spec(), BodyKinematics(LEVEL))
    names = {
        "specific_force_sensor_m_s2",
        "angular_rate_sensor_rad_s",
        "true_specific_force_sensor_m_s2",
        "true_angular_rate_sensor_rad_s",
    }
    assert sample.kind == "imu"
    assert set(sample.channels) == names
    for name in names:
        assert sample[name].dtype == np.float64 and sample[name].shape == (3,), name
        assert not sample[name].flags.writeable, name


def test_stationary_level_imu_reads_minus_gravity() -> None:
    sample = _measure(_spec(), BodyKinematics(LEVEL))
    np.testing.assert_array_equal(sample["specific_force_sensor_m_s2"], [0.0, 0.0, -9.81])
    np.testing.assert_array_equal(sample["angular_rate_sensor_rad_s"], [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(GRAVITY_NED, [0.0, 0.0, 9.81])


def test_rolled_90_degrees_reads_gravity_on_y() -> None:
    # Starboard down: body +y points down, so the support force is along -y.
    kin = BodyKinematics(Transform.from_euler(math.pi / 2, 0.0, 0.0))
    sample = _measure(_spec(), kin)
    # cos(π/2) ≈ 6e-17 leaves a rounding-level z component.
    np.testing.assert_allclose(sample["specific_force_sensor_m_s2"], [0.0, -9.81, 0.0], atol=1e-14)


def test_pitched_imu_reads_rotated_gravity() -> None:
    pitch = math.radians(20.0)
    kin = BodyKinematics(Transform.from_euler(0.0, pitch, 0.0))
    sample = _measure(_spec(), kin)
    # Nose up by θ: f_body = -R_body_world g = (g sin θ, 0, -g cos θ).
    expected = [9.81 * math.sin(pitch), 0.0, -9.81 * math.cos(pitch)]
    np.testing.assert_allclose(sample["specific_force_sensor_m_s2"], expected, atol=1e-14)


def test_mount_rotation_maps_into_sensor_axes() -> None:
    # Mount yawed 90°: sensor x = body y, sensor y = -body x.
    kin = BodyKinematics(LEVEL, angular_velocity_body_rad_s=(0.3, 0.0, 0.0))
    sample = _measure(_spec(rpy_deg=(0.0, 0.0, 90.0)), kin)
    np.testing.assert_allclose(sample["angular_rate_sensor_rad_s"], [0.0, -0.3, 0.0], atol=1e-16)
    np.testing.assert_allclose(sample["specific_force_sensor_m_s2"], [0.0, 0.0, -9.81], atol=1e-15)


def test_lever_arm_centripetal_acceleration() -> None:
    # ω about z, r along x: ω × (ω × r) = -ω² r (exact in binary for these values).
    omega, r = 2.0, 0.5
    kin = BodyKinematics(LEVEL, angular_velocity_body_rad_s=(0.0, 0.0, omega))
    sample = _measure(_spec(translation_m=(r, 0.0, 0.0)), kin)
    np.testing.assert_array_equal(
        sample["specific_force_sensor_m_s2"], [-(omega**2) * r, 0.0, -9.81]
    )


def test_lever_arm_tangential_acceleration() -> None:
    # ω̇ about z, r along x: ω̇ × r = (0, ω̇ r, 0).
    kin = BodyKinematics(LEVEL, angular_acceleration_body_rad_s2=(0.0, 0.0, 4.0))
    sample = _measure(_spec(translation_m=(0.25, 0.0, 0.0)), kin)
    np.testing.assert_array_equal(sample["specific_force_sensor_m_s2"], [0.0, 1.0, -9.81])


def test_custom_gravity() -> None:
    sample = _measure(_spec(), BodyKinematics(LEVEL), gravity_ned=(0.0, 0.0, 9.80665))
    np.testing.assert_array_equal(sample["specific_force_sensor_m_s2"], [0.0, 0.0, -9.80665])


def test_noise_is_keyed_by_seed() -> None:
    spec = _spec(accel_std=0.01, gyro_std=0.001)
    kin = BodyKinematics(LEVEL)
    a, b, c = (_measure(spec, kin, seed=s) for s in (5, 5, 6))
    for name in ("specific_force_sensor_m_s2", "angular_rate_sensor_rad_s"):
        np.testing.assert_array_equal(a[name], b[name])
        assert not np.array_equal(a[name], c[name])
        assert not np.array_equal(a[name], a[f"true_{name}"])
    assert a.content_hash == b.content_hash != c.content_hash


def test_noise_without_seed_is_refused() -> None:
    with pytest.raises(ValueError, match="seed"):
        _measure(_spec(gyro_std=0.001), BodyKinematics(LEVEL))


def test_only_drawn_effects_carry_the_seed() -> None:
    sample = _measure(_spec(accel_std=0.01), BodyKinematics(LEVEL), seed=9)
    accel, gyro = sample.metadata["noise"]
    assert accel["effect"] == "imu_accel" and accel["drawn"] and accel["root_seed"] == 9
    assert gyro["effect"] == "imu_gyro" and not gyro["drawn"] and gyro["root_seed"] is None
    np.testing.assert_array_equal(
        sample["angular_rate_sensor_rad_s"], sample["true_angular_rate_sensor_rad_s"]
    )


def test_kinematics_are_validated() -> None:
    with pytest.raises(ValueError, match="velocity_body_m_s"):
        BodyKinematics(LEVEL, velocity_body_m_s=(1.0, 2.0))
    with pytest.raises(TypeError, match="T_world_body"):
        BodyKinematics(np.eye(4))  # type: ignore[arg-type]


def test_sample_canonicalises_missing_values_and_negative_zero() -> None:
    payload_nan = np.array([0x7FF8_0000_DEAD_BEEF], dtype=np.uint64).view(np.float64)[0]
    sample = SensorSample(
        kind="imu",
        sensor_id="auv/imu",
        sample_index=0,
        time_ns=0,
        channels={"x": np.array([-payload_nan, -0.0, 1.0])},
        metadata={"nested": {"values": [1.0, 2.0]}},
    )
    bits = sample["x"].view(np.uint64)
    assert bits[0] == 0x7FF8_0000_0000_0000
    assert bits[1] == 0
    with pytest.raises(TypeError):
        sample.metadata["nested"]["values"] = []  # type: ignore[index]


def test_sample_refuses_unknown_kind() -> None:
    with pytest.raises(ValueError, match="kind"):
        SensorSample(
            kind="lidar", sensor_id="a/b", sample_index=0, time_ns=0, channels={}, metadata={}
        )
