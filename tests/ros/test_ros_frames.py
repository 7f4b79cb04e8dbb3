"""NED/FRD <-> ENU/FLU conversions: exact permutations and sign flips, quaternions to 2**-52."""

from __future__ import annotations

import math
from decimal import Decimal, getcontext

import numpy as np
import pytest

from leviathan import ros as rf
from leviathan.frames import (
    Transform,
    quaternion_from_rotation,
    rotation_from_euler,
    rotation_from_quaternion,
)

P = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]])  # REP 103: ENU <- NED
D = np.diag([1.0, -1.0, -1.0])  # FLU <- FRD


def _vectors(seed: int, n: int = 200) -> np.ndarray:
    v = np.random.default_rng(seed).normal(scale=50.0, size=(n, 3))
    v[0] = (0.0, -0.0, np.nan)  # signed zeros and NaN must pass through bit for bit
    v[1] = (np.inf, -np.inf, 1e-310)
    return v


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float64).view(np.int64)


def _unit_quaternions(seed: int, n: int = 500) -> np.ndarray:
    q = np.random.default_rng(seed).normal(size=(n, 4))
    q /= np.sqrt((q * q).sum(axis=1))[:, None]
    return q


def test_ned_to_enu_swaps_north_east_and_negates_down() -> None:
    v = _vectors(1)
    enu = rf.ned_to_enu(v)
    assert enu.dtype == np.float64 and enu.shape == v.shape
    np.testing.assert_array_equal(_bits(enu[:, 0]), _bits(v[:, 1]))
    np.testing.assert_array_equal(_bits(enu[:, 1]), _bits(v[:, 0]))
    np.testing.assert_array_equal(_bits(enu[:, 2]), _bits(-v[:, 2]))


def test_ned_enu_round_trip_is_bitwise() -> None:
    v = _vectors(2)
    np.testing.assert_array_equal(_bits(rf.enu_to_ned(rf.ned_to_enu(v))), _bits(v))


def test_frd_to_flu_negates_y_and_z() -> None:
    v = _vectors(3)
    flu = rf.frd_to_flu(v)
    np.testing.assert_array_equal(_bits(flu[:, 0]), _bits(v[:, 0]))
    np.testing.assert_array_equal(_bits(flu[:, 1:]), _bits(-v[:, 1:]))
    np.testing.assert_array_equal(_bits(rf.flu_to_frd(flu)), _bits(v))


def test_named_directions_map_as_rep_103_says() -> None:
    north, east, down = np.eye(3)
    np.testing.assert_array_equal(rf.ned_to_enu(north), [0.0, 1.0, 0.0])  # north is ENU y
    np.testing.assert_array_equal(rf.ned_to_enu(east), [1.0, 0.0, 0.0])  # east is ENU x
    np.testing.assert_array_equal(rf.ned_to_enu(down), [0.0, 0.0, -1.0])  # down is -up
    forward, starboard, body_down = np.eye(3)
    np.testing.assert_array_equal(rf.frd_to_flu(forward), [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(rf.frd_to_flu(starboard), [0.0, -1.0, 0.0])  # right is -left
    np.testing.assert_array_equal(rf.frd_to_flu(body_down), [0.0, 0.0, -1.0])


def test_twist_converts_linear_and_angular_parts_exactly() -> None:
    t = np.random.default_rng(4).normal(size=(50, 6))
    flu = rf.twist_frd_to_flu(t)
    np.testing.assert_array_equal(_bits(flu[:, :3]), _bits(rf.frd_to_flu(t[:, :3])))
    np.testing.assert_array_equal(_bits(flu[:, 3:]), _bits(rf.frd_to_flu(t[:, 3:])))
    np.testing.assert_array_equal(_bits(rf.twist_frd_to_flu(flu)), _bits(t))


def test_acoustic_frame_puts_the_boresight_on_z_and_up_on_x() -> None:
    forward, starboard, down = np.eye(3)
    np.testing.assert_array_equal(rf.frd_to_acoustic(forward), [0.0, 0.0, 1.0])
    np.testing.assert_array_equal(rf.frd_to_acoustic(starboard), [0.0, 1.0, 0.0])
    np.testing.assert_array_equal(rf.frd_to_acoustic(down), [-1.0, 0.0, 0.0])
    assert float(np.linalg.det(rf.R_FRD_ACOUSTIC)) == 1.0


def test_acoustic_conversion_is_the_constant_rotation_and_inverts_exactly() -> None:
    v = _vectors(5)[2:]
    np.testing.assert_array_equal(rf.frd_to_acoustic(v), v @ rf.R_FRD_ACOUSTIC)  # R^T v per row
    np.testing.assert_array_equal(_bits(rf.acoustic_to_frd(rf.frd_to_acoustic(v))), _bits(v))


def test_constants_are_read_only_proper_rotations() -> None:
    for r in (rf.R_ENU_NED, rf.R_FLU_FRD, rf.R_FRD_ACOUSTIC):
        assert r.dtype == np.float64 and r.shape == (3, 3)
        assert not r.flags.writeable
        np.testing.assert_array_equal(r @ r.T, np.eye(3))
        assert float(np.linalg.det(r)) == 1.0
    np.testing.assert_array_equal(rf.R_ENU_NED, P)
    np.testing.assert_array_equal(rf.R_FLU_FRD, D)


def test_rotation_conversion_is_p_r_d_exactly() -> None:
    rng = np.random.default_rng(6)
    rotations = np.stack([rotation_from_euler(*rng.uniform(-3.0, 3.0, 3)) for _ in range(100)])
    converted = rf.rotation_ned_frd_to_enu_flu(rotations)
    # P and D are signed permutations, so the matrix product involves no rounding.
    np.testing.assert_array_equal(converted, P @ rotations @ D)
    np.testing.assert_array_equal(
        _bits(rf.rotation_enu_flu_to_ned_frd(converted)), _bits(rotations)
    )


def test_pose_maps_body_points_to_the_same_place() -> None:
    T_world_body = Transform.from_euler(0.3, -0.2, 2.1, translation=(12.5, -3.25, 20.0))
    T_map_base = rf.pose_ned_frd_to_enu_flu(T_world_body)
    np.testing.assert_array_equal(T_map_base.translation, [-3.25, 12.5, -20.0])
    points_frd = _vectors(7)[2:]
    np.testing.assert_allclose(
        T_map_base.apply_point(rf.frd_to_flu(points_frd)),
        rf.ned_to_enu(T_world_body.apply_point(points_frd)),
        rtol=0.0,
        atol=1e-12,
    )


def test_pose_round_trip_is_exact() -> None:
    T_world_body = Transform.from_euler(-1.1, 0.7, -2.9, translation=(-4.0, 8.5, 31.0))
    back = rf.pose_enu_flu_to_ned_frd(rf.pose_ned_frd_to_enu_flu(T_world_body))
    assert back == T_world_body


def test_pose_composes_with_the_static_frames() -> None:
    T_world_body = Transform.from_euler(0.1, 0.2, 0.3, translation=(1.0, 2.0, 3.0))
    composed = rf.T_MAP_WORLD_NED @ T_world_body @ rf.T_BASE_LINK_FRD.inverse()
    assert composed == rf.pose_ned_frd_to_enu_flu(T_world_body)


def test_quaternion_to_ros_reorders_scalar_last() -> None:
    q = _unit_quaternions(8, 20)
    ros = rf.quaternion_to_ros(q)
    np.testing.assert_array_equal(ros, q[:, [1, 2, 3, 0]])


def test_enu_quaternion_is_the_converted_rotation() -> None:
    for q in _unit_quaternions(9, 200):
        x, y, z, w = rf.quaternion_ned_frd_to_enu_flu(q)
        expected = rf.rotation_ned_frd_to_enu_flu(rotation_from_quaternion(q))
        np.testing.assert_allclose(
            rotation_from_quaternion((w, x, y, z)), expected, rtol=0.0, atol=1e-15
        )


def test_enu_quaternion_is_within_2_to_the_minus_52_of_exact() -> None:
    getcontext().prec = 40
    s = Decimal(1) / Decimal(2).sqrt()
    worst = Decimal(0)
    for q in _unit_quaternions(10, 2000):
        w, x, y, z = (Decimal(float(c)) for c in q)
        exact = (s * (x + y), s * (x - y), s * (w - z), s * (w + z))
        got = rf.quaternion_ned_frd_to_enu_flu(q)
        worst = max(worst, *(abs(Decimal(float(g)) - e) for g, e in zip(got, exact, strict=True)))
    assert worst <= Decimal(2) ** -52


def test_quaternion_round_trip_is_within_2_to_the_minus_51() -> None:
    q = _unit_quaternions(11, 2000)
    back = rf.quaternion_enu_flu_to_ned_frd(rf.quaternion_ned_frd_to_enu_flu(q))
    assert float(np.max(np.abs(back - q))) <= 2.0**-51


def test_identity_attitude_gives_the_map_to_world_ned_quaternion() -> None:
    # Body FRD aligned with NED: base_link (FLU) seen from map (ENU) is the turn P D.
    x, y, z, w = rf.quaternion_ned_frd_to_enu_flu(np.array([1.0, 0.0, 0.0, 0.0]))
    expected = quaternion_from_rotation(P @ D)
    assert (w, x, y, z) == pytest.approx(expected, rel=0.0, abs=2.0**-52)


def test_ros_stamp_splits_integer_nanoseconds_exactly() -> None:
    assert rf.ros_stamp(0) == (0, 0)
    assert rf.ros_stamp(1_999_999_999) == (1, 999_999_999)
    assert rf.ros_stamp(np.int64(10_000_000_123)) == (10, 123)
    last = 2**31 * 1_000_000_000 - 1
    assert rf.ros_stamp(last) == (2**31 - 1, 999_999_999)


@pytest.mark.parametrize("bad", [1.5, 1e9, True, "1"])
def test_ros_stamp_refuses_non_integers(bad: object) -> None:
    with pytest.raises(TypeError, match="time_ns"):
        rf.ros_stamp(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [-1, 2**31 * 1_000_000_000])
def test_ros_stamp_refuses_times_an_int32_second_cannot_hold(bad: int) -> None:
    with pytest.raises(ValueError, match="time_ns"):
        rf.ros_stamp(bad)


def test_vector_functions_refuse_wrong_shapes() -> None:
    with pytest.raises(ValueError, match=r"shape \(\.\.\., 3\)"):
        rf.ned_to_enu(np.zeros(4))
    with pytest.raises(ValueError, match=r"shape \(\.\.\., 4\)"):
        rf.quaternion_ned_frd_to_enu_flu(np.zeros(3))
    with pytest.raises(ValueError, match=r"shape \(\.\.\., 3, 3\)"):
        rf.rotation_ned_frd_to_enu_flu(np.zeros((2, 3)))
    with pytest.raises(TypeError, match="T_world_body"):
        rf.pose_ned_frd_to_enu_flu(np.eye(4))  # type: ignore[arg-type]
    assert math.isnan(rf.frd_to_flu([math.nan, 0.0, 0.0])[0])
