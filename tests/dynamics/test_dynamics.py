"""Tests for leviathan.dynamics: physics sanity, integrator properties and determinism."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from leviathan.catalogue import get_vehicle
from leviathan.dynamics import (
    RigidBodyModel,
    VehicleState,
    accelerations,
    energy,
    neutral_buoyancy_volume,
    rotation_rows_from_quaternion,
    state_derivative,
    step,
)
from leviathan.frames import rotation_from_quaternion
from leviathan.identity import content_hash
from leviathan.specs import VehicleSpec, WaterSpec

DT_NS = 20_000_000  # 20 ms
TICKS_PER_SECOND = 50
STILL = (0.0, 0.0, 0.0)


def with_mass(spec: VehicleSpec, **update: object) -> VehicleSpec:
    return spec.model_copy(update={"mass": spec.mass.model_copy(update=update)})


def neutral_spec() -> VehicleSpec:
    """Reference vehicle with B = W and the CB 1 cm above the CG."""
    base = get_vehicle("reference_survey_vehicle")
    return with_mass(base, displaced_volume_m3=neutral_buoyancy_volume(base))


def run(
    model: RigidBodyModel,
    state: VehicleState,
    command: np.ndarray,
    current: object,
    ticks: int,
) -> VehicleState:
    for _ in range(ticks):
        state = step(model, state, command, current, dt_ns=DT_NS)
    return state


def at_depth(model: RigidBodyModel, depth_m: float = 10.0, **kwargs: object) -> VehicleState:
    return VehicleState.from_euler(
        [0.0, 0.0, depth_m], thruster_count=model.thruster_count, **kwargs
    )


# --------------------------------------------------------------------------- state


def test_state_arrays_are_read_only_float64_with_shapes() -> None:
    state = VehicleState.from_euler([1, 2, 3], yaw_rad=0.5, thruster_count=5)
    for name, shape in (
        ("position_ned_m", (3,)),
        ("attitude_q", (4,)),
        ("velocity_body", (6,)),
        ("thrust_n", (5,)),
    ):
        array = getattr(state, name)
        assert array.dtype == np.float64
        assert array.shape == shape
        assert not array.flags.writeable


def test_state_round_trips_through_json_and_hash() -> None:
    state = VehicleState.from_euler(
        [1.5, -2.25, 7.0],
        roll_rad=0.1,
        pitch_rad=-0.2,
        yaw_rad=2.9,
        velocity_body=[0.1, 0.2, 0.3, 0.01, 0.02, 0.03],
        thruster_count=3,
    )
    restored = VehicleState.from_dict(json.loads(json.dumps(state.to_dict())))
    assert restored == state
    assert content_hash(restored) == content_hash(state)


def test_state_refuses_non_unit_quaternion() -> None:
    with pytest.raises(ValueError, match="attitude_q must be a unit quaternion"):
        VehicleState(
            position_ned_m=[0, 0, 0],
            attitude_q=[1.0, 0.1, 0.0, 0.0],
            velocity_body=[0] * 6,
            thrust_n=[],
        )


def test_state_pose_properties() -> None:
    state = VehicleState.from_euler([1, 2, 3], roll_rad=0.1, pitch_rad=0.2, yaw_rad=-0.5)
    roll, pitch, yaw = state.euler_rad
    assert_allclose([roll, pitch, yaw], [0.1, 0.2, -0.5], atol=1e-12)
    assert state.depth_m == 3.0
    assert state.heading_rad == pytest.approx(2 * math.pi - 0.5, abs=1e-12)
    assert 0.0 <= state.heading_rad < 2 * math.pi
    assert_array_equal(state.T_world_body.translation, [1.0, 2.0, 3.0])


def test_rotation_rows_are_bitwise_the_frames_rotation() -> None:
    # The scalar rows feed the integrator and the controllers; they must round like
    # frames.rotation_from_quaternion, the canonical conversion, for any scale of q.
    rng = np.random.default_rng(11)
    for q in rng.normal(size=(64, 4)).tolist():
        rows = rotation_rows_from_quaternion(*q)
        expected = rotation_from_quaternion(q)
        assert expected.dtype == np.float64 and expected.shape == (3, 3)
        assert_array_equal(np.array(rows, dtype=np.float64), expected)


# --------------------------------------------------------------------------- equations


def test_scalar_parameter_views_are_the_matrices_values_as_float_tuples() -> None:
    model = RigidBodyModel.from_spec(get_vehicle("reference_survey_vehicle"))
    views = {
        "added_mass_diagonal": np.diag(model.M_A),
        "linear_damping_diagonal": np.diag(model.D_linear),
        "quadratic_damping_diagonal": model.D_quadratic,
    }
    for name, want in views.items():
        got = getattr(model, name)
        assert type(got) is tuple and len(got) == 6
        assert all(type(v) is float for v in got), name
        assert list(got) == want.tolist(), name
    limits = model.thrust_limits_n
    assert type(limits) is tuple and len(limits) == model.thruster_count
    assert [lo for lo, _ in limits] == model.thrust_min_n.tolist()
    assert [hi for _, hi in limits] == model.thrust_max_n.tolist()
    with pytest.raises(AttributeError):
        model.thrust_limits_n = ()  # type: ignore[misc]


def test_derivative_matches_fossen_matrix_form() -> None:
    # The scalar arithmetic must equal M^-1 (τ − g − C_RB ν − C_A ν_r − D ν_r + M_A ν̇_c)
    # written with the model's matrices; only rounding differs (1e-12).
    model = RigidBodyModel.from_spec(get_vehicle("reference_survey_vehicle"))
    rng = np.random.default_rng(7)
    quaternion = rng.normal(size=4)
    state = VehicleState(
        position_ned_m=[1.0, 2.0, 3.0],
        attitude_q=quaternion / np.linalg.norm(quaternion),
        velocity_body=rng.normal(size=6),
        thrust_n=rng.uniform(-5, 5, size=5),
    )
    current = np.array([0.3, -0.2, 0.1])
    _, _, velocity_dot, _ = state_derivative(model, state, state.thrust_n, current)
    rotation = state.T_world_body.rotation
    nu = state.velocity_body
    nu_r = nu - np.r_[rotation.T @ current, 0.0, 0.0, 0.0]
    nu_c_dot = np.r_[-np.cross(nu[3:], rotation.T @ current), 0.0, 0.0, 0.0]
    rhs = (
        model.thruster_matrix @ state.thrust_n
        - model.restoring(state.attitude_q)
        - model.coriolis_rigid_body(nu) @ nu
        - model.coriolis_added_mass(nu_r) @ nu_r
        - model.damping(nu_r) @ nu_r
        + model.M_A @ nu_c_dot
    )
    assert velocity_dot.dtype == np.float64 and velocity_dot.shape == (6,)
    assert_allclose(velocity_dot, model.M_inv @ rhs, rtol=0, atol=1e-12)


def test_accelerations_of_a_buoyant_vehicle_at_rest() -> None:
    model = RigidBodyModel.from_spec(get_vehicle("reference_survey_vehicle"))
    result = accelerations(model, at_depth(model), np.zeros(5), STILL)
    expected_z = (model.weight_n - model.buoyancy_n) / model.M[2, 2]
    assert_allclose(result["linear_acceleration_body"], [0.0, 0.0, expected_z], atol=1e-15)
    assert_allclose(result["angular_acceleration_body"], [0.0, 0.0, 0.0], atol=1e-15)


# --------------------------------------------------------------------------- physics


def test_neutral_vehicle_holds_depth() -> None:
    model = RigidBodyModel.from_spec(neutral_spec())
    final = run(model, at_depth(model), np.zeros(5), STILL, 60 * TICKS_PER_SECOND)
    assert abs(final.depth_m - 10.0) < 1e-9


@pytest.mark.parametrize(("volume_factor", "rises"), [(1.01, True), (0.99, False)])
def test_buoyant_rises_and_heavy_sinks(volume_factor: float, rises: bool) -> None:
    base = neutral_spec()
    spec = with_mass(base, displaced_volume_m3=base.mass.displaced_volume_m3 * volume_factor)
    model = RigidBodyModel.from_spec(spec)
    final = run(model, at_depth(model), np.zeros(5), STILL, 10 * TICKS_PER_SECOND)
    moved_m = final.depth_m - 10.0
    assert abs(moved_m) > 0.1
    assert (moved_m < 0.0) == rises


def test_terminal_surge_speed_balances_thrust_and_damping() -> None:
    # Equal linear added masses remove the Munk moment, which makes the bare
    # slender hull unstable in pitch and yaw at speed (rounding-level
    # perturbations would grow into a tumble over 60 s).
    spec = with_mass(neutral_spec(), added_mass=(4.5, 4.5, 4.5, 0.0, 11.0, 11.0))
    model = RigidBodyModel.from_spec(spec)
    thrust_n = 30.0
    # X = d_l u + d_q u |u| for u > 0: positive root of d_q u² + d_l u − X = 0.
    d_l, d_q = model.D_linear[0, 0], model.D_quadratic[0]
    expected = (-d_l + math.sqrt(d_l * d_l + 4.0 * d_q * thrust_n)) / (2.0 * d_q)
    command = np.array([thrust_n, 0.0, 0.0, 0.0, 0.0])
    final = run(model, at_depth(model), command, STILL, 60 * TICKS_PER_SECOND)
    assert abs(final.velocity_body[0] - expected) < 1e-6
    assert abs(final.depth_m - 10.0) < 1e-9


def test_passive_vehicle_drifts_with_the_current() -> None:
    model = RigidBodyModel.from_spec(neutral_spec())
    current = np.array([0.3, -0.2, 0.0])
    final = run(model, at_depth(model), np.zeros(5), current, 200 * TICKS_PER_SECOND)
    rotation = final.T_world_body.rotation
    velocity_ned = rotation @ final.velocity_body[:3]
    assert_allclose(velocity_ned, current, rtol=0, atol=1e-6)
    water_relative = final.velocity_body[:3] - rotation.T @ current
    assert_allclose(water_relative, [0.0, 0.0, 0.0], rtol=0, atol=1e-6)


def test_current_profile_is_accepted_as_a_callable() -> None:
    model = RigidBodyModel.from_spec(neutral_spec())
    water = WaterSpec(current_ned_m_per_s=(0.2, 0.0, 0.0))
    by_callable = run(model, at_depth(model), np.zeros(5), water.current_at_depth, 50)
    by_constant = run(model, at_depth(model), np.zeros(5), (0.2, 0.0, 0.0), 50)
    assert by_callable == by_constant


def test_free_rotation_conserves_kinetic_energy() -> None:
    # No damping, no restoring (B = W, CB at the CG), no thrust, no current:
    # C_RB and C_A are skew-symmetric, so ½ νᵀ M ν is a constant of motion and
    # only RK4's truncation error (dissipative here) remains.
    free = with_mass(
        neutral_spec(),
        linear_damping=(0.0,) * 6,
        quadratic_damping=(0.0,) * 6,
        cb_m=(0.0, 0.0, 0.0),
    )
    model = RigidBodyModel.from_spec(free)
    state = at_depth(model, velocity_body=[0.5, 0.1, 0.0, 0.3, 0.2, -0.4])
    initial = energy(model, state)["kinetic_j"]
    worst = 0.0
    for _ in range(10_000):
        state = step(model, state, np.zeros(5), STILL, dt_ns=DT_NS)
        worst = max(worst, abs(energy(model, state)["kinetic_j"] - initial) / initial)
    assert worst < 1e-9


def test_damped_motion_never_gains_kinetic_energy() -> None:
    spec = with_mass(neutral_spec(), cb_m=(0.0, 0.0, 0.0))
    model = RigidBodyModel.from_spec(spec)
    state = at_depth(model, velocity_body=[1.0, 0.3, -0.2, 0.5, 0.2, -0.4])
    previous = energy(model, state)["kinetic_j"]
    for _ in range(10_000):
        state = step(model, state, np.zeros(5), STILL, dt_ns=DT_NS)
        current = energy(model, state)["kinetic_j"]
        assert current <= previous
        previous = current


def test_metacentric_restoring_levels_a_rolled_vehicle() -> None:
    model = RigidBodyModel.from_spec(neutral_spec())
    state = at_depth(model, roll_rad=math.radians(10.0))
    rolls = []
    for _ in range(30 * TICKS_PER_SECOND):
        state = step(model, state, np.zeros(5), STILL, dt_ns=DT_NS)
        rolls.append(abs(state.euler_rad[0]))
    assert max(rolls) <= math.radians(10.0) + 1e-12
    assert rolls[-1] < 0.5 * math.radians(10.0)


def test_quaternion_stays_unit() -> None:
    model = RigidBodyModel.from_spec(get_vehicle("inspection_rov"))
    state = at_depth(model, velocity_body=[0.2, 0.1, 0.0, 1.5, -2.0, 3.0])
    command = np.array([10.0, -5.0, 3.0, 8.0, 12.0, -7.0])
    state = run(model, state, command, (0.1, 0.2, 0.0), 2_000)
    assert abs(float(np.linalg.norm(state.attitude_q)) - 1.0) < 4e-16


def test_thruster_first_order_response_and_saturation() -> None:
    spec = neutral_spec()
    model = RigidBodyModel.from_spec(spec)
    stern = spec.thrusters[0]
    # 1000 N is above the stern thruster's limit, so it is saturated to max_thrust_n.
    state = run(model, at_depth(model), np.array([1000.0, 0, 0, 0, 0]), STILL, 15)
    elapsed_s = 15 * DT_NS / 1e9
    expected = stern.max_thrust_n * (1.0 - math.exp(-elapsed_s / stern.time_constant_s))
    assert state.thrust_n[0] == pytest.approx(expected, rel=1e-12)


def test_instant_thrusters_follow_the_command() -> None:
    base = neutral_spec()
    instant = tuple(t.model_copy(update={"time_constant_s": 0.0}) for t in base.thrusters)
    model = RigidBodyModel.from_spec(base.model_copy(update={"thrusters": instant}))
    state = step(model, at_depth(model), [5.0, -1.0, 2.0, 99.0, 0.0], STILL, dt_ns=DT_NS)
    assert_array_equal(state.thrust_n, [5.0, -1.0, 2.0, 10.0, 0.0])


# --------------------------------------------------------------------------- determinism


def test_step_is_bit_identical_across_calls_and_runs() -> None:
    model = RigidBodyModel.from_spec(get_vehicle("reference_survey_vehicle"))
    start = at_depth(model, yaw_rad=0.3, velocity_body=[0.5, 0.0, 0.1, 0.0, 0.05, 0.1])
    command = np.array([20.0, 3.0, -2.0, 1.0, 4.0])
    assert step(model, start, command, (0.1, 0.0, 0.0), dt_ns=DT_NS) == step(
        model, start, command, (0.1, 0.0, 0.0), dt_ns=DT_NS
    )
    first = run(model, start, command, (0.1, 0.05, 0.0), 500)
    second = run(
        RigidBodyModel.from_spec(get_vehicle("reference_survey_vehicle")),
        start,
        command,
        (0.1, 0.05, 0.0),
        500,
    )
    for name in ("position_ned_m", "attitude_q", "velocity_body", "thrust_n"):
        assert_array_equal(getattr(first, name), getattr(second, name))
    assert content_hash(first) == content_hash(second)


@pytest.mark.parametrize(
    ("dt_ns", "error"), [(0.02, TypeError), (True, TypeError), (0, ValueError), (-5, ValueError)]
)
def test_dt_ns_must_be_a_positive_int(dt_ns: object, error: type[Exception]) -> None:
    model = RigidBodyModel.from_spec(get_vehicle("torpedo_auv"))
    with pytest.raises(error, match="dt_ns"):
        step(model, at_depth(model), np.zeros(5), STILL, dt_ns=dt_ns)  # type: ignore[arg-type]


def test_thrust_command_shape_is_checked() -> None:
    model = RigidBodyModel.from_spec(get_vehicle("torpedo_auv"))
    with pytest.raises(ValueError, match=r"thrust_command_n must have shape \(5,\)"):
        step(model, at_depth(model), np.zeros(3), STILL, dt_ns=DT_NS)


def test_a_quaternion_without_a_norm_is_refused_naming_attitude_q() -> None:
    """Components so small that their squares underflow leave no attitude to normalise: a
    ValueError naming ``attitude_q`` (the World refuses the step as a divergence), never a
    ZeroDivisionError."""
    from leviathan.dynamics._rotation import rotation_rows_from_quaternion

    with pytest.raises(ValueError, match=r"attitude_q: .* has norm 0\.0"):
        rotation_rows_from_quaternion(1e-170, 0.0, -1e-170, 0.0)
    with pytest.raises(ValueError, match=r"attitude_q: .* has norm inf"):
        rotation_rows_from_quaternion(1e200, 1e200, 0.0, 0.0)
    rows = rotation_rows_from_quaternion(2.0, 0.0, 0.0, 0.0)  # normalised first, as before
    assert rows == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
