"""Tests for leviathan.frames: transforms, attitude conventions and sensor frames."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from leviathan.frames import (
    R_CAMERA_SENSOR,
    R_SENSOR_CAMERA,
    T_SENSOR_CAMERA,
    Transform,
    euler_from_rotation,
    quaternion_from_rotation,
    rotation_from_euler,
    rotation_from_quaternion,
    sensor_pose,
    wrap_angle,
)

# Composition and inversion are a handful of float64 multiply-adds on unit-scale
# rotations and metre-scale translations, so results agree with exact algebra to
# a few ulps of the largest term; 1e-12 leaves a wide margin.
FLOAT_TOL = 1e-12


def random_transform(rng: np.random.Generator) -> Transform:
    roll, yaw = rng.uniform(-math.pi, math.pi, size=2)
    pitch = rng.uniform(-math.pi / 2, math.pi / 2)
    return Transform.from_euler(roll, pitch, yaw, translation=rng.uniform(-50.0, 50.0, size=3))


def assert_transform_close(a: Transform, b: Transform) -> None:
    assert_allclose(a.rotation, b.rotation, rtol=0, atol=FLOAT_TOL)
    assert_allclose(a.translation, b.translation, rtol=0, atol=1e-10)  # 50 m scale


# --------------------------------------------------------------------------- Transform


def test_transform_arrays_are_read_only_float64() -> None:
    transform = Transform(np.eye(3, dtype=np.float32), [1, 2, 3])
    assert transform.rotation.dtype == np.float64
    assert transform.translation.dtype == np.float64
    assert transform.rotation.shape == (3, 3)
    assert transform.translation.shape == (3,)
    with pytest.raises(ValueError, match="read-only"):
        transform.rotation[0, 0] = 2.0
    with pytest.raises(ValueError, match="read-only"):
        transform.translation[0] = 2.0


def test_transform_does_not_alias_caller_array() -> None:
    translation = np.array([1.0, 2.0, 3.0])
    transform = Transform(np.eye(3), translation)
    translation[0] = 99.0
    assert_array_equal(transform.translation, [1.0, 2.0, 3.0])


def test_transform_attributes_cannot_be_rebound() -> None:
    transform = Transform.identity()
    with pytest.raises(AttributeError, match="immutable"):
        transform.translation = np.zeros(3)  # type: ignore[misc]


def test_compose_with_inverse_is_identity() -> None:
    rng = np.random.default_rng(1001)
    identity = Transform.identity()
    for _ in range(50):
        transform = random_transform(rng)
        assert_transform_close(transform @ transform.inverse(), identity)
        assert_transform_close(transform.inverse() @ transform, identity)


def test_composition_is_associative() -> None:
    rng = np.random.default_rng(1002)
    for _ in range(50):
        a, b, c = (random_transform(rng) for _ in range(3))
        assert_transform_close((a @ b) @ c, a @ (b @ c))


def test_composition_matches_homogeneous_matrix_product() -> None:
    rng = np.random.default_rng(1003)
    for _ in range(50):
        a, b = random_transform(rng), random_transform(rng)
        expected = a.matrix @ b.matrix  # reference only; the library never uses @ on arrays
        assert_allclose((a @ b).matrix, expected, rtol=0, atol=1e-10)


def test_composition_chains_point_mapping() -> None:
    rng = np.random.default_rng(1004)
    T_a_b, T_b_c = random_transform(rng), random_transform(rng)
    points_c = rng.uniform(-10.0, 10.0, size=(20, 3))
    assert_allclose(
        (T_a_b @ T_b_c).apply_point(points_c),
        T_a_b.apply_point(T_b_c.apply_point(points_c)),
        rtol=0,
        atol=1e-10,
    )


def test_inverse_of_identity_is_exact_identity() -> None:
    assert Transform.identity().inverse() == Transform.identity()


def test_apply_point_single_point_shape_and_dtype() -> None:
    transform = Transform.from_euler(0.1, 0.2, 0.3, translation=(1.0, 2.0, 3.0))
    result = transform.apply_point([1, 0, 0])
    assert result.shape == (3,)
    assert result.dtype == np.float64


def test_apply_point_batch_shape_and_dtype() -> None:
    transform = Transform.from_euler(0.1, 0.2, 0.3, translation=(1.0, 2.0, 3.0))
    result = transform.apply_point(np.zeros((7, 3), dtype=np.float32))
    assert result.shape == (7, 3)
    assert result.dtype == np.float64


def test_apply_point_empty_batch() -> None:
    result = Transform.identity().apply_point(np.zeros((0, 3)))
    assert result.shape == (0, 3)
    assert result.dtype == np.float64


def test_apply_point_batch_equals_one_by_one() -> None:
    rng = np.random.default_rng(1005)
    transform = random_transform(rng)
    points = rng.uniform(-100.0, 100.0, size=(25, 3))
    batch = transform.apply_point(points)
    singles = np.stack([transform.apply_point(p) for p in points])
    assert_array_equal(batch, singles)


def test_apply_point_equals_written_order_bit_for_bit() -> None:
    rng = np.random.default_rng(1006)
    transform = random_transform(rng)
    points = rng.uniform(-1000.0, 1000.0, size=(64, 3))
    R, t = transform.rotation, transform.translation
    expected = np.empty_like(points)
    for row, (x, y, z) in enumerate(points.tolist()):
        for i in range(3):
            r0, r1, r2, ti = float(R[i, 0]), float(R[i, 1]), float(R[i, 2]), float(t[i])
            expected[row, i] = ((r0 * x + r1 * y) + r2 * z) + ti
    result = transform.apply_point(points)
    assert result.dtype == np.float64
    assert_array_equal(result, expected)


def test_apply_direction_ignores_translation() -> None:
    transform = Transform.from_euler(0.0, 0.0, math.pi / 2, translation=(10.0, 20.0, 30.0))
    result = transform.apply_direction([[1.0, 0.0, 0.0]])
    assert result.shape == (1, 3)
    assert_allclose(result, [[0.0, 1.0, 0.0]], rtol=0, atol=1e-15)


def test_apply_direction_equals_written_order_bit_for_bit() -> None:
    rng = np.random.default_rng(1007)
    transform = random_transform(rng)
    directions = rng.normal(size=(32, 3))
    R = transform.rotation
    expected = np.empty_like(directions)
    for row, (x, y, z) in enumerate(directions.tolist()):
        for i in range(3):
            expected[row, i] = (float(R[i, 0]) * x + float(R[i, 1]) * y) + float(R[i, 2]) * z
    assert_array_equal(transform.apply_direction(directions), expected)


def test_from_matrix_round_trips_matrix() -> None:
    transform = random_transform(np.random.default_rng(1008))
    assert Transform.from_matrix(transform.matrix) == transform


def test_from_matrix_rejects_bad_bottom_row() -> None:
    matrix = np.eye(4)
    matrix[3, 0] = 1.0
    with pytest.raises(ValueError, match=r"matrix must have bottom row \[0, 0, 0, 1\]"):
        Transform.from_matrix(matrix)


def test_matrix_is_a_writable_copy() -> None:
    transform = Transform.identity()
    matrix = transform.matrix
    matrix[0, 3] = 5.0
    assert transform.translation[0] == 0.0


def test_dict_round_trip_through_json_is_exact() -> None:
    transform = random_transform(np.random.default_rng(1009))
    restored = Transform.from_dict(json.loads(json.dumps(transform.to_dict())))
    assert restored == transform
    assert_array_equal(restored.rotation, transform.rotation)


def test_from_dict_rejects_missing_key() -> None:
    with pytest.raises(ValueError, match=r"exactly the keys.*got \['rotation'\]"):
        Transform.from_dict({"rotation": np.eye(3).tolist()})


def test_equality_is_exact() -> None:
    a = Transform(np.eye(3), (1.0, 2.0, 3.0))
    b = Transform(np.eye(3), (1.0, 2.0, 3.0 + 2.0**-50))
    assert a == Transform(np.eye(3), (1.0, 2.0, 3.0))
    assert a != b


def test_equal_transforms_hash_equally_across_signed_zero() -> None:
    a = Transform(np.eye(3), (0.0, 0.0, 0.0))
    b = Transform(np.eye(3), (-0.0, 0.0, 0.0))
    assert a == b
    assert hash(a) == hash(b)


def test_repr_names_the_fields() -> None:
    text = repr(Transform(np.eye(3), (1.5, 0.0, 0.0)))
    assert text.startswith("Transform(rotation=[[1.0, 0.0, 0.0]")
    assert "translation=[1.5, 0.0, 0.0]" in text


# --------------------------------------------------------------------------- validation


def test_rotation_wrong_shape_is_refused() -> None:
    with pytest.raises(ValueError, match=r"rotation must have shape \(3, 3\), got shape \(2, 2\)"):
        Transform(np.eye(2), (0.0, 0.0, 0.0))


def test_translation_wrong_shape_is_refused() -> None:
    with pytest.raises(ValueError, match=r"translation must have shape \(3,\).*got shape \(2,\)"):
        Transform(np.eye(3), (0.0, 0.0))


def test_non_finite_translation_is_refused() -> None:
    with pytest.raises(ValueError, match=r"translation: expected finite numbers.*nan"):
        Transform(np.eye(3), (0.0, float("nan"), 0.0))


def test_non_finite_rotation_is_refused() -> None:
    rotation = np.eye(3)
    rotation[1, 1] = np.inf
    with pytest.raises(ValueError, match="rotation: expected finite numbers"):
        Transform(rotation, (0.0, 0.0, 0.0))


def test_non_orthonormal_rotation_is_refused() -> None:
    rotation = np.eye(3)
    rotation[0, 1] = 1e-6
    with pytest.raises(ValueError, match=r"rotation must be orthonormal.*= 1e-06"):
        Transform(rotation, (0.0, 0.0, 0.0))


def test_reflection_is_refused() -> None:
    with pytest.raises(ValueError, match=r"rotation must be a proper rotation.*determinant -1"):
        Transform(np.diag([1.0, 1.0, -1.0]), (0.0, 0.0, 0.0))


def test_non_numeric_rotation_is_refused() -> None:
    with pytest.raises(ValueError, match="rotation: expected real numbers"):
        Transform([["a", "b", "c"]] * 3, (0.0, 0.0, 0.0))


def test_apply_point_wrong_shape_is_refused() -> None:
    with pytest.raises(ValueError, match=r"points must have shape \(3,\) or \(N, 3\).*\(4, 2\)"):
        Transform.identity().apply_point(np.zeros((4, 2)))


def test_apply_point_non_finite_is_refused() -> None:
    with pytest.raises(ValueError, match="points: expected finite numbers"):
        Transform.identity().apply_point([0.0, np.inf, 0.0])


def test_apply_direction_non_finite_is_refused() -> None:
    with pytest.raises(ValueError, match="directions: expected finite numbers"):
        Transform.identity().apply_direction([[0.0, np.nan, 0.0]])


def test_euler_non_finite_angle_is_refused() -> None:
    with pytest.raises(ValueError, match="pitch: expected a finite number"):
        rotation_from_euler(0.0, float("inf"), 0.0)


def test_euler_bool_angle_is_refused() -> None:
    with pytest.raises(TypeError, match=r"yaw: expected a real number.*bool"):
        rotation_from_euler(0.0, 0.0, True)


def test_sensor_pose_rejects_non_transform() -> None:
    with pytest.raises(TypeError, match="T_body_sensor must be a Transform, got ndarray"):
        sensor_pose(Transform.identity(), np.eye(4))  # type: ignore[arg-type]


# --------------------------------------------------------------------------- attitude


def test_yaw_90_maps_body_forward_to_world_east() -> None:
    rotation = rotation_from_euler(0.0, 0.0, math.pi / 2)
    assert_allclose(rotation[:, 0], [0.0, 1.0, 0.0], rtol=0, atol=1e-15)


def test_pitch_up_90_maps_body_forward_to_world_up() -> None:
    rotation = rotation_from_euler(0.0, math.pi / 2, 0.0)
    assert_allclose(rotation[:, 0], [0.0, 0.0, -1.0], rtol=0, atol=1e-15)


def test_roll_90_maps_body_starboard_to_world_down() -> None:
    rotation = rotation_from_euler(math.pi / 2, 0.0, 0.0)
    assert_allclose(rotation[:, 1], [0.0, 0.0, 1.0], rtol=0, atol=1e-15)


def test_rotation_from_euler_is_zyx_product() -> None:
    roll, pitch, yaw = 0.3, -0.7, 2.1

    def rx(a: float) -> np.ndarray:
        return np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])

    def ry(a: float) -> np.ndarray:
        return np.array([[math.cos(a), 0, math.sin(a)], [0, 1, 0], [-math.sin(a), 0, math.cos(a)]])

    def rz(a: float) -> np.ndarray:
        return np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])

    expected = rz(yaw) @ ry(pitch) @ rx(roll)
    assert_allclose(rotation_from_euler(roll, pitch, yaw), expected, rtol=0, atol=1e-15)


def test_euler_round_trip_on_random_angles() -> None:
    rng = np.random.default_rng(2001)
    for _ in range(200):
        roll, yaw = rng.uniform(-math.pi, math.pi, size=2)
        pitch = rng.uniform(-1.5, 1.5)  # away from gimbal lock, where angles are unique
        recovered = euler_from_rotation(rotation_from_euler(roll, pitch, yaw))
        assert_allclose(recovered, (roll, pitch, yaw), rtol=0, atol=1e-12)


def test_euler_ranges() -> None:
    rng = np.random.default_rng(2002)
    for _ in range(200):
        angles = rng.uniform(-10.0, 10.0, size=3)
        roll, pitch, yaw = euler_from_rotation(rotation_from_euler(*angles))
        assert -math.pi < roll <= math.pi
        assert -math.pi / 2 <= pitch <= math.pi / 2
        assert -math.pi < yaw <= math.pi


def test_euler_returns_pi_not_minus_pi() -> None:
    roll, _, yaw = euler_from_rotation(np.diag([-1.0, -1.0, 1.0]))
    assert yaw == math.pi
    assert roll == 0.0


def test_gimbal_lock_pitch_up_puts_rotation_into_yaw() -> None:
    roll, pitch, yaw = euler_from_rotation(rotation_from_euler(0.3, math.pi / 2, 0.5))
    assert roll == 0.0
    assert pitch == math.pi / 2
    assert yaw == pytest.approx(0.5 - 0.3, abs=1e-12)  # yaw - roll is what is observable


def test_gimbal_lock_pitch_down_puts_rotation_into_yaw() -> None:
    roll, pitch, yaw = euler_from_rotation(rotation_from_euler(0.3, -math.pi / 2, 0.5))
    assert roll == 0.0
    assert pitch == -math.pi / 2
    assert yaw == pytest.approx(0.5 + 0.3, abs=1e-12)  # yaw + roll is what is observable


def test_gimbal_lock_angles_reproduce_rotation() -> None:
    rotation = rotation_from_euler(-2.0, -math.pi / 2, 1.9)
    assert_allclose(rotation_from_euler(*euler_from_rotation(rotation)), rotation, atol=1e-12)


def test_euler_from_rotation_rejects_non_orthonormal() -> None:
    with pytest.raises(ValueError, match="rotation must be orthonormal"):
        euler_from_rotation(np.eye(3) * 2.0)


def test_wrap_angle_interval() -> None:
    assert wrap_angle(math.pi) == math.pi
    assert wrap_angle(-math.pi) == math.pi
    assert wrap_angle(0.0) == 0.0
    assert wrap_angle(3.0 * math.pi / 2) == pytest.approx(-math.pi / 2, abs=1e-15)


def test_wrap_angle_rejects_nan() -> None:
    with pytest.raises(ValueError, match="angle: expected a finite number"):
        wrap_angle(float("nan"))


# --------------------------------------------------------------------------- quaternions


def test_quaternion_round_trip_on_random_rotations() -> None:
    rng = np.random.default_rng(3001)
    for _ in range(200):
        q = rng.normal(size=4)
        q /= math.sqrt(float(q[0] ** 2 + q[1] ** 2 + q[2] ** 2 + q[3] ** 2))
        if q[0] < 0:
            q = -q
        rotation = rotation_from_quaternion(q)
        assert_allclose(quaternion_from_rotation(rotation), q, rtol=0, atol=1e-14)


def test_quaternion_sign_is_canonical() -> None:
    rng = np.random.default_rng(3002)
    for _ in range(100):
        w, *_ = quaternion_from_rotation(rotation_from_quaternion(rng.normal(size=4)))
        assert w >= 0.0


def test_negated_quaternion_gives_same_canonical_quaternion() -> None:
    q = np.array([-0.5, 0.5, -0.5, 0.5])
    assert quaternion_from_rotation(rotation_from_quaternion(q)) == pytest.approx(
        (0.5, -0.5, 0.5, -0.5), abs=1e-15
    )


def test_half_turn_quaternion_has_positive_first_vector_component() -> None:
    # 180° about z: w = 0, so the sign rule falls to the vector part.
    assert quaternion_from_rotation(np.diag([-1.0, -1.0, 1.0])) == (0.0, 0.0, 0.0, 1.0)


def test_quaternion_is_hamilton_scalar_first() -> None:
    half = math.pi / 4  # 90° about world z (yaw)
    rotation = rotation_from_quaternion((math.cos(half), 0.0, 0.0, math.sin(half)))
    assert_allclose(rotation, rotation_from_euler(0.0, 0.0, math.pi / 2), rtol=0, atol=1e-15)


def test_rotation_from_quaternion_normalises() -> None:
    assert_allclose(rotation_from_quaternion((2.0, 0.0, 0.0, 0.0)), np.eye(3), rtol=0, atol=0)


def test_rotation_from_quaternion_rejects_zero_norm() -> None:
    with pytest.raises(ValueError, match="quaternion must have non-zero norm"):
        rotation_from_quaternion((0.0, 0.0, 0.0, 0.0))


def test_rotation_from_quaternion_rejects_non_finite() -> None:
    with pytest.raises(ValueError, match="quaternion: expected finite numbers"):
        rotation_from_quaternion((1.0, float("nan"), 0.0, 0.0))


def test_rotation_from_quaternion_rejects_wrong_shape() -> None:
    with pytest.raises(ValueError, match=r"quaternion must have shape \(4,\).*got shape \(3,\)"):
        rotation_from_quaternion((1.0, 0.0, 0.0))


# --------------------------------------------------------------------------- sensor frames


def test_camera_constant_maps_boresight_to_optical_axis() -> None:
    assert_array_equal(R_CAMERA_SENSOR[:, 0], [0.0, 0.0, 1.0])


def test_camera_constant_maps_starboard_to_right_and_down_to_down() -> None:
    assert_array_equal(R_CAMERA_SENSOR[:, 1], [1.0, 0.0, 0.0])
    assert_array_equal(R_CAMERA_SENSOR[:, 2], [0.0, 1.0, 0.0])


def test_sensor_camera_is_transpose_and_proper() -> None:
    assert_array_equal(R_SENSOR_CAMERA, R_CAMERA_SENSOR.T)
    assert round(float(np.linalg.det(R_CAMERA_SENSOR))) == 1
    assert not R_CAMERA_SENSOR.flags.writeable
    assert not R_SENSOR_CAMERA.flags.writeable


def test_t_sensor_camera_maps_optical_axis_to_boresight() -> None:
    assert_array_equal(T_SENSOR_CAMERA.apply_point([0.0, 0.0, 2.0]), [2.0, 0.0, 0.0])


def test_sensor_pose_is_body_pose_composed_with_mount() -> None:
    rng = np.random.default_rng(4001)
    T_world_body, T_body_sensor = random_transform(rng), random_transform(rng)
    assert sensor_pose(T_world_body, T_body_sensor) == T_world_body @ T_body_sensor


def test_forward_mounted_sensor_on_east_heading_vehicle_looks_east() -> None:
    T_world_body = Transform.from_euler(0.0, 0.0, math.pi / 2, translation=(100.0, 50.0, 10.0))
    T_body_sensor = Transform(np.eye(3), (2.0, 0.0, 0.0))  # 2 m forward of the CG
    T_world_sensor = sensor_pose(T_world_body, T_body_sensor)
    assert_allclose(T_world_sensor.translation, [100.0, 52.0, 10.0], rtol=0, atol=1e-12)
    assert_allclose(
        T_world_sensor.apply_direction([1.0, 0.0, 0.0]), [0.0, 1.0, 0.0], rtol=0, atol=1e-15
    )
