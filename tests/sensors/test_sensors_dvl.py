"""Canonical DVL: beam geometry, bottom lock, altitude, velocity and keyed noise."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from leviathan.catalogue import get_vehicle
from leviathan.frames import Transform
from leviathan.geometry import plane_mesh
from leviathan.identity import content_hash
from leviathan.materials import TEST_LAMBERT_MEDIUM
from leviathan.scene import Instance, Scene
from leviathan.sensors import BodyKinematics, SensorSample, measure_dvl
from leviathan.sensors._dvl import dvl_beam_directions
from leviathan.specs import DVLSpec

SEABED_Z_M = 30.0
VEHICLE_Z_M = 10.0


def _seabed(z: float = SEABED_Z_M, *, size_y_m: float = 1000.0, center_y_m: float = 0.0) -> Scene:
    mesh = plane_mesh(1000.0, size_y_m, center=(0.0, center_y_m, z))
    return Scene([Instance("seabed", mesh, Transform.identity(), "seabed", TEST_LAMBERT_MEDIUM)])


def _reference_dvl(**over: object) -> DVLSpec:
    spec = get_vehicle("reference_survey_vehicle").sensor("dvl")
    assert isinstance(spec, DVLSpec)
    return DVLSpec.model_validate({**spec.model_dump(), **over})


def _kin(**over: object) -> BodyKinematics:
    base: dict[str, object] = {
        "T_world_body": Transform.from_euler(0.0, 0.0, 0.3, translation=(5.0, 2.0, VEHICLE_Z_M)),
        "velocity_body_m_s": (1.5, 0.1, 0.05),
    }
    base.update(over)
    return BodyKinematics(**base)  # type: ignore[arg-type]


def _measure(scene: Scene, spec: DVLSpec, kin: BodyKinematics, **kw: object) -> SensorSample:
    return measure_dvl(scene, spec, kin, sensor_id="auv/dvl", sample_index=7, time_ns=700, **kw)


def test_beam_directions_are_unit_and_at_the_beam_angle() -> None:
    spec = _reference_dvl()
    d = dvl_beam_directions(spec)
    assert d.dtype == np.float64 and d.shape == (4, 3)
    np.testing.assert_allclose(np.linalg.norm(d, axis=1), 1.0, rtol=0, atol=1e-15)
    np.testing.assert_allclose(d[:, 0], math.cos(math.radians(30.0)), rtol=0, atol=0)
    # φ_0 = 45°: the first beam lies between sensor +y and +z.
    assert d[0, 1] > 0 and d[0, 2] > 0


def test_channels_have_documented_dtypes_and_shapes() -> None:
    sample = _measure(_seabed(), _reference_dvl(velocity_noise_std_m_per_s=0.0), _kin())
    expected = {
        "velocity_sensor_m_s": (np.float64, (3,)),
        "true_velocity_sensor_m_s": (np.float64, (3,)),
        "beam_range_m": (np.float64, (4,)),
        "beam_valid": (np.uint8, (4,)),
        "beam_instance": (np.int32, (4,)),
        "altitude_m": (np.float64, ()),
        "lock": (np.uint8, ()),
    }
    assert set(sample.channels) == set(expected)
    for name, (dtype, shape) in expected.items():
        assert sample[name].dtype == dtype, name
        assert sample[name].shape == shape, name
        assert not sample[name].flags.writeable, name
    assert sample.kind == "dvl"


def test_altitude_over_flat_seabed_is_geometric_altitude() -> None:
    spec = _reference_dvl(velocity_noise_std_m_per_s=0.0)
    sample = _measure(_seabed(), spec, _kin())
    # Level vehicle, boresight pitched onto body +z: the sensor sits mount z below the CG.
    geometric = SEABED_Z_M - (VEHICLE_Z_M + spec.mount.translation_m[2])
    assert sample["lock"] == 1
    np.testing.assert_array_equal(sample["beam_valid"], [1, 1, 1, 1])
    np.testing.assert_array_equal(sample["beam_instance"], [0, 0, 0, 0])
    assert abs(float(sample["altitude_m"]) - geometric) <= 1e-9
    slant = geometric / math.cos(math.radians(spec.beam_angle_deg))
    np.testing.assert_allclose(sample["beam_range_m"], slant, rtol=0, atol=1e-9)


def test_velocity_equals_truth_without_noise() -> None:
    spec = _reference_dvl(velocity_noise_std_m_per_s=0.0)
    sample = _measure(_seabed(), spec, _kin())
    np.testing.assert_array_equal(sample["velocity_sensor_m_s"], sample["true_velocity_sensor_m_s"])
    # Mount pitch -90°: sensor x = body z, sensor y = body y, sensor z = -body x.
    np.testing.assert_allclose(sample["velocity_sensor_m_s"], [0.05, 0.1, -1.5], atol=1e-15)
    record = sample.metadata["noise"][0]
    assert record["drawn"] is False and record["root_seed"] is None


def test_rotation_adds_lever_arm_velocity() -> None:
    spec = _reference_dvl(velocity_noise_std_m_per_s=0.0)
    omega = np.array([0.1, -0.2, 0.5])
    sample = _measure(_seabed(), spec, _kin(angular_velocity_body_rad_s=omega))
    T_body_sensor = spec.mount.transform()
    v_origin_body = np.array([1.5, 0.1, 0.05]) + np.cross(omega, T_body_sensor.translation)
    # The reference here uses @ (BLAS order), hence a rounding-level tolerance.
    expected = T_body_sensor.rotation.T @ v_origin_body
    np.testing.assert_allclose(sample["true_velocity_sensor_m_s"], expected, rtol=0, atol=1e-14)


def test_beams_beyond_max_range_give_no_lock() -> None:
    spec = _reference_dvl(velocity_noise_std_m_per_s=0.0, max_range_m=15.0)
    sample = _measure(_seabed(), spec, _kin())
    np.testing.assert_array_equal(sample["beam_valid"], [0, 0, 0, 0])
    np.testing.assert_array_equal(sample["beam_instance"], [-1, -1, -1, -1])
    assert np.all(np.isnan(sample["beam_range_m"]))
    assert sample["lock"] == 0
    assert np.all(np.isnan(sample["velocity_sensor_m_s"]))
    assert np.isnan(sample["altitude_m"])
    # Ground truth stays available without a lock.
    assert np.all(np.isfinite(sample["true_velocity_sensor_m_s"]))


def test_two_valid_beams_give_altitude_but_no_lock() -> None:
    spec = _reference_dvl(velocity_noise_std_m_per_s=0.0)
    # Seabed only on the starboard side (world y > 2 at zero yaw). With the mount's
    # pitch of -90°, sensor y is body y, so beams 0 (φ = 45°) and 3 (φ = 315°) look starboard.
    scene = _seabed(size_y_m=500.0, center_y_m=252.0)
    kin = _kin(T_world_body=Transform.from_euler(0.0, 0.0, 0.0, translation=(5.0, 2.0, 10.0)))
    sample = _measure(scene, spec, kin)
    np.testing.assert_array_equal(sample["beam_valid"], [1, 0, 0, 1])
    assert sample["lock"] == 0
    assert np.all(np.isnan(sample["velocity_sensor_m_s"]))
    assert abs(float(sample["altitude_m"]) - (SEABED_Z_M - 10.09)) <= 1e-9


def test_sea_surface_hits_are_invalid() -> None:
    # Boresight pitched up (+90°): every beam reaches the sea surface 10 m above.
    spec = _reference_dvl(
        velocity_noise_std_m_per_s=0.0,
        mount={"translation_m": (0.0, 0.0, 0.0), "rpy_deg": (0.0, 90.0, 0.0)},
    )
    scene = _seabed()
    sample = _measure(scene, spec, _kin())
    np.testing.assert_array_equal(sample["beam_instance"], [scene.sea_surface_instance] * 4)
    np.testing.assert_array_equal(sample["beam_valid"], [0, 0, 0, 0])
    assert sample["lock"] == 0


def test_noise_is_keyed_by_seed() -> None:
    spec = _reference_dvl()
    assert spec.velocity_noise_std_m_per_s > 0
    scene, kin = _seabed(), _kin()
    a = _measure(scene, spec, kin, seed=11)
    b = _measure(scene, spec, kin, seed=11)
    c = _measure(scene, spec, kin, seed=12)
    np.testing.assert_array_equal(a["velocity_sensor_m_s"], b["velocity_sensor_m_s"])
    assert a.content_hash == b.content_hash
    assert not np.array_equal(a["velocity_sensor_m_s"], c["velocity_sensor_m_s"])
    assert a.content_hash != c.content_hash
    assert not np.array_equal(a["velocity_sensor_m_s"], a["true_velocity_sensor_m_s"])
    record = a.metadata["noise"][0]
    assert record["drawn"] is True and record["root_seed"] == 11


def test_noise_without_seed_is_refused() -> None:
    with pytest.raises(ValueError, match="seed"):
        _measure(_seabed(), _reference_dvl(), _kin())


def test_seed_stays_out_of_identity_without_noise() -> None:
    spec = _reference_dvl(velocity_noise_std_m_per_s=0.0)
    scene, kin = _seabed(), _kin()
    assert (
        _measure(scene, spec, kin, seed=1).content_hash == _measure(scene, spec, kin).content_hash
    )


def test_prepared_scene_of_another_scene_is_refused() -> None:
    from leviathan.raycast import prepare_scene

    other = prepare_scene(_seabed(z=40.0))
    with pytest.raises(ValueError, match="prepared"):
        _measure(_seabed(), _reference_dvl(velocity_noise_std_m_per_s=0.0), _kin(), prepared=other)


def test_content_hash_is_the_same_in_another_process() -> None:
    import os
    import subprocess
    import sys

    worker = [sys.executable, os.path.abspath(__file__), "--worker"]  # see the end of this file
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(worker, env=env, capture_output=True, text=True, check=True)
    there = json.loads(out.stdout)
    here = _part_hashes(_measure(_seabed(), _reference_dvl(), _kin(), seed=3))
    # Part by part first, so that a difference is named (a field, not just two digests).
    assert {k: v for k, v in here.items() if there.get(k) != v} == {}
    assert there == here


def _part_hashes(sample: SensorSample) -> dict[str, str]:
    """The sample's content hash and that of each metadata entry and channel."""
    return {
        "content_hash": sample.content_hash,
        **{f"metadata.{k}": content_hash(v) for k, v in sample.metadata.items()},
        **{f"channels.{k}": content_hash(v) for k, v in sample.channels.items()},
    }


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--worker"]:  # the other process of the cross-process test
        print(json.dumps(_part_hashes(_measure(_seabed(), _reference_dvl(), _kin(), seed=3))))
