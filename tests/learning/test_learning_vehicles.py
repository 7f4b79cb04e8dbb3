"""Batched float32 vehicles of the learning tier against the canonical float64 dynamics.

Every behaviour taking ``device`` runs once per Warp device (CPU always, CUDA when
present; see tests/conftest.py). The agreement tests replay one thrust sequence and
current through :func:`leviathan.dynamics.step` and :class:`BatchedVehicles` and
bound the difference; the randomisation tests pair the kernel's keyed draws with a
plain-Python reference of the same hash.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import warp as wp

from leviathan import dynamics
from leviathan.catalogue import get_vehicle, vehicle_names
from leviathan.learning.vehicles import BatchedVehicles, Randomization, bench_vehicles

VEHICLE = "reference_survey_vehicle"

# Agreement over 10 s at 10 ms steps (n = 1000 RK4 steps). Each step rounds the state to
# float32 (unit roundoff u = 2^-24 ≈ 6e-8, eps = 1.2e-7); the rounding errors of successive
# steps are uncorrelated and the damped dynamics do not amplify them, so they add like a
# random walk: error ≈ eps · |x|max · sqrt(n) ≈ 3.8e-6 · |x|max. Over the catalogue's three
# vehicles (|p| <= 12 m, |ν| <= 3.4 rad/s, unit q) that predicts 4.5e-5 m, 1.3e-5 and 3.8e-6.
# Measured maxima on the CPU device over the three vehicles: position 2.1e-5 m (torpedo,
# down), velocity 2.6e-6 m/s or rad/s, quaternion 2.2e-6, thrust 8.4e-6 N (about 2 ulp of
# 37 N: the exact first-order response contracts errors instead of accumulating them).
# The bounds sit about four times above the measurement: wide enough for a different libm
# exp/sqrt (CUDA) and narrow enough that a missing or wrong model term (whose effect is
# ~1e-3 or more) fails.
POSITION_TOL_M = 1e-4
VELOCITY_TOL = 1e-5  # m/s and rad/s
ATTITUDE_TOL = 1e-5
THRUST_TOL_N = 4e-5

DT_NS = 10_000_000
STEPS = 1000
CURRENT_NED = np.array([0.3, -0.2, 0.05])


def _thrust_sequence(model: dynamics.RigidBodyModel, seed: int) -> np.ndarray:
    """Ten one-second segments of commands, 20 % past the limits so some saturate."""
    rng = np.random.default_rng(seed)
    low, high = 1.2 * model.thrust_min_n, 1.2 * model.thrust_max_n
    return rng.uniform(low, high, size=(10, model.thruster_count))


def _start(vehicles: BatchedVehicles, position: tuple[float, float, float]) -> None:
    n = vehicles.num_envs
    vehicles.reset(
        np.ones(n, dtype=np.int32),
        position_ned=np.tile(np.array(position, dtype=np.float32), (n, 1)),
        yaw_rad=np.zeros(n, dtype=np.float32),
        seeds=np.zeros(n, dtype=np.uint32),
    )


def _max_errors(
    spec, vehicles: BatchedVehicles, steps: int, seed: int, dt_ns: int = DT_NS
) -> dict[str, float]:
    """Replay one command sequence through both tiers; max abs difference per quantity."""
    model = dynamics.RigidBodyModel.from_spec(spec)
    sequence = _thrust_sequence(model, seed)
    _start(vehicles, (0.0, 0.0, 10.0))
    vehicles.set_current(CURRENT_NED[None].astype(np.float32))
    state = dynamics.VehicleState.from_euler([0.0, 0.0, 10.0], thruster_count=model.thruster_count)
    commands = [
        wp.array(row[None].astype(np.float32), dtype=wp.float32, device=vehicles.device)
        for row in sequence
    ]
    errors = {"position": 0.0, "attitude_q": 0.0, "velocity_body": 0.0, "thrust": 0.0}
    per_segment = STEPS // len(sequence)
    for i in range(steps):
        state = dynamics.step(model, state, sequence[i // per_segment], CURRENT_NED, dt_ns=dt_ns)
        vehicles.step(commands[i // per_segment], dt_ns / 1e9)
        if i % 10 == 9:
            batched = vehicles.state_numpy()
            canonical = {
                "position": state.position_ned_m,
                "attitude_q": state.attitude_q,
                "velocity_body": state.velocity_body,
                "thrust": state.thrust_n,
            }
            for key, reference in canonical.items():
                difference = np.abs(batched[key][0].astype(np.float64) - reference).max()
                errors[key] = max(errors[key], float(difference))
    return errors


def _assert_within_tolerance(errors: dict[str, float]) -> None:
    assert errors["position"] <= POSITION_TOL_M, errors
    assert errors["attitude_q"] <= ATTITUDE_TOL, errors
    assert errors["velocity_body"] <= VELOCITY_TOL, errors
    assert errors["thrust"] <= THRUST_TOL_N, errors


def _fmix32(h: int) -> int:
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & 0xFFFFFFFF
    return h ^ (h >> 16)


def _keyed_uniform(seed: int, env: int, parameter: int) -> np.float32:
    """Plain-Python reference of the kernel's keyed draw (same hash, same rounding)."""
    golden = 0x9E3779B9
    h = _fmix32((seed + golden) & 0xFFFFFFFF)
    h = _fmix32((h + env + golden) & 0xFFFFFFFF)
    h = _fmix32((h + parameter + golden) & 0xFFFFFFFF)
    return np.float32(h >> 8) * np.float32(1.0 / 16777216.0)


def _draw(low: float, high: float, u: np.float32) -> np.float32:
    return np.float32(low) + (np.float32(high) - np.float32(low)) * u


# --------------------------------------------------------------------------- shapes


def test_state_arrays_have_the_documented_dtypes_and_shapes(device: str) -> None:
    vehicles = BatchedVehicles(get_vehicle(VEHICLE), 7, device=device)
    t = vehicles.thruster_count
    assert vehicles.num_envs == 7 and t == len(get_vehicle(VEHICLE).thrusters)
    expected = {
        "position_ned": (wp.vec3f, (7,)),
        "attitude_q": (wp.vec4f, (7,)),
        "linear_velocity": (wp.vec3f, (7,)),
        "angular_velocity": (wp.vec3f, (7,)),
        "thrust_n": (wp.float32, (7, t)),
        "current_ned": (wp.vec3f, (7,)),
        "mass_scale": (wp.float32, (7,)),
        "damping_scale": (wp.float32, (7,)),
    }
    for name, (dtype, shape) in expected.items():
        array = getattr(vehicles, name)
        assert (array.dtype, tuple(array.shape), str(array.device)) == (dtype, shape, device)
    host = vehicles.state_numpy()
    assert {k: (v.dtype, v.shape) for k, v in host.items()} == {
        "position": (np.float32, (7, 3)),
        "attitude_q": (np.float32, (7, 4)),
        "velocity_body": (np.float32, (7, 6)),
        "thrust": (np.float32, (7, t)),
    }


def test_a_new_batch_starts_level_at_rest_at_the_origin() -> None:
    host = BatchedVehicles(get_vehicle(VEHICLE), 3).state_numpy()
    np.testing.assert_array_equal(host["position"], np.zeros((3, 3), np.float32))
    np.testing.assert_array_equal(host["attitude_q"], np.tile([1, 0, 0, 0], (3, 1)))
    np.testing.assert_array_equal(host["velocity_body"], np.zeros((3, 6), np.float32))
    np.testing.assert_array_equal(host["thrust"], np.zeros_like(host["thrust"]))


# --------------------------------------------------------------------------- agreement


@pytest.mark.parametrize("name", vehicle_names())
def test_ten_seconds_agree_with_the_canonical_dynamics(name: str, device: str) -> None:
    spec = get_vehicle(name)
    errors = _max_errors(spec, BatchedVehicles(spec, 1, device=device), STEPS, seed=7)
    _assert_within_tolerance(errors)


def test_scaled_parameters_match_the_canonical_model_of_a_scaled_vehicle(device: str) -> None:
    # mass_scale multiplies mass, inertia, added mass, weight and buoyancy (the displaced
    # volume); damping_scale both damping terms. Equal range ends draw the value exactly.
    mass_factor, damping_factor = 1.25, 0.75
    spec = get_vehicle(VEHICLE)
    mass = spec.mass
    scaled_mass = mass.model_copy(
        update={
            "mass_kg": mass.mass_kg * mass_factor,
            "inertia_kg_m2": tuple(i * mass_factor for i in mass.inertia_kg_m2),
            "added_mass": tuple(a * mass_factor for a in mass.added_mass),
            "displaced_volume_m3": mass.displaced_volume_m3 * mass_factor,
            "linear_damping": tuple(d * damping_factor for d in mass.linear_damping),
            "quadratic_damping": tuple(d * damping_factor for d in mass.quadratic_damping),
        }
    )
    scaled_spec = spec.model_copy(update={"mass": scaled_mass})
    randomization = Randomization(
        mass_scale=(mass_factor, mass_factor), damping_scale=(damping_factor, damping_factor)
    )
    vehicles = BatchedVehicles(spec, 1, device=device, randomization=randomization)
    # _max_errors resets (drawing the factors) and then replays against the scaled spec.
    errors = _max_errors(scaled_spec, vehicles, 300, seed=11)
    np.testing.assert_array_equal(vehicles.parameters_numpy()["mass_scale"], [1.25])
    _assert_within_tolerance(errors)


def test_a_changed_step_length_takes_effect(device: str) -> None:
    spec = get_vehicle(VEHICLE)
    vehicles = BatchedVehicles(spec, 1, device=device)
    vehicles.step(np.zeros((1, vehicles.thruster_count), np.float32), 0.01)
    # 25 ms steps after a 10 ms one: the recorded launch must pick up the new length.
    errors = _max_errors(spec, vehicles, 200, seed=5, dt_ns=25_000_000)
    _assert_within_tolerance(errors)


def test_commands_beyond_the_limits_act_as_the_limits(device: str) -> None:
    spec = get_vehicle(VEHICLE)
    over = BatchedVehicles(spec, 2, device=device)
    at = BatchedVehicles(spec, 2, device=device)
    low, high = over.thrust_min_n, over.thrust_max_n
    beyond = np.stack([high * 1000.0, low * 1000.0]).astype(np.float32)
    limits = np.stack([high, low]).astype(np.float32)
    for _ in range(50):
        over.step(beyond, 0.01)
        at.step(limits, 0.01)
    for key, value in over.state_numpy().items():
        np.testing.assert_array_equal(value, at.state_numpy()[key], err_msg=key)
    assert np.all(over.state_numpy()["thrust"][0] <= high)


def test_an_instantaneous_thruster_delivers_its_saturated_command(device: str) -> None:
    spec = get_vehicle(VEHICLE)
    thrusters = tuple(t.model_copy(update={"time_constant_s": 0.0}) for t in spec.thrusters)
    vehicles = BatchedVehicles(spec.model_copy(update={"thrusters": thrusters}), 1, device=device)
    command = (vehicles.thrust_min_n + 0.3 * (vehicles.thrust_max_n - vehicles.thrust_min_n))[
        None
    ].astype(np.float32)
    vehicles.step(command, 0.01)
    np.testing.assert_array_equal(vehicles.state_numpy()["thrust"], command)


# --------------------------------------------------------------------------- determinism


def _rollout(device: str) -> dict[str, np.ndarray]:
    randomization = Randomization(
        mass_scale=(0.8, 1.2), damping_scale=(0.7, 1.3), current_speed_m_s=(0.0, 0.5)
    )
    vehicles = BatchedVehicles(get_vehicle(VEHICLE), 16, device=device, randomization=randomization)
    rng = np.random.default_rng(3)
    _start(vehicles, (1.0, 2.0, 5.0))
    vehicles.reset(
        np.ones(16, np.int32),
        position_ned=rng.uniform(-5, 5, (16, 3)).astype(np.float32),
        yaw_rad=rng.uniform(-3, 3, 16).astype(np.float32),
        seeds=np.arange(100, 116, dtype=np.uint32),
    )
    commands = rng.uniform(-20.0, 20.0, (40, 16, vehicles.thruster_count)).astype(np.float32)
    for row in commands:
        vehicles.step(row, 0.02)
    return {**vehicles.state_numpy(), **vehicles.parameters_numpy()}


def test_two_rollouts_on_one_device_are_bit_identical(device: str) -> None:
    first, second = _rollout(device), _rollout(device)
    for key, value in first.items():
        np.testing.assert_array_equal(value, second[key], err_msg=key)


# --------------------------------------------------------------------------- reset


def test_reset_changes_only_the_masked_envs(device: str) -> None:
    randomization = Randomization(mass_scale=(0.5, 2.0), current_speed_m_s=(0.1, 1.0))
    vehicles = BatchedVehicles(get_vehicle(VEHICLE), 6, device=device, randomization=randomization)
    _start(vehicles, (0.0, 0.0, 3.0))
    for _ in range(20):
        vehicles.step(np.full((6, vehicles.thruster_count), 5.0, np.float32), 0.05)
    before = {**vehicles.state_numpy(), **vehicles.parameters_numpy()}
    mask = np.array([0, 1, 0, 0, 1, 1], np.int32)
    positions = np.arange(18, dtype=np.float32).reshape(6, 3)
    yaw = np.linspace(-1.0, 1.0, 6).astype(np.float32)
    vehicles.reset(mask, position_ned=positions, yaw_rad=yaw, seeds=np.full(6, 9, np.uint32))
    after = {**vehicles.state_numpy(), **vehicles.parameters_numpy()}
    kept = mask == 0
    for key, value in before.items():
        np.testing.assert_array_equal(after[key][kept], value[kept], err_msg=key)
    reset = ~kept
    np.testing.assert_array_equal(after["position"][reset], positions[reset])
    np.testing.assert_array_equal(after["velocity_body"][reset], 0.0)
    np.testing.assert_array_equal(after["thrust"][reset], 0.0)
    half = np.float32(0.5) * yaw[reset]
    np.testing.assert_allclose(
        after["attitude_q"][reset],
        np.stack([np.cos(half), 0 * half, 0 * half, np.sin(half)], axis=1),
        rtol=0,
        atol=2e-7,  # Warp's and NumPy's float32 cos/sin may differ by an ulp
    )


def test_a_rejected_reset_changes_nothing() -> None:
    vehicles = BatchedVehicles(get_vehicle(VEHICLE), 4)
    _start(vehicles, (1.0, 1.0, 1.0))
    before = vehicles.state_numpy()
    with pytest.raises(ValueError, match="seeds"):
        vehicles.reset(
            np.ones(4, np.int32),
            position_ned=np.zeros((4, 3), np.float32),
            yaw_rad=np.zeros(4, np.float32),
            seeds=wp.zeros(4, dtype=wp.float32),
        )
    for key, value in vehicles.state_numpy().items():
        np.testing.assert_array_equal(value, before[key], err_msg=key)


# --------------------------------------------------------------------------- randomisation


def test_drawn_parameters_lie_in_their_ranges(device: str) -> None:
    randomization = Randomization(
        mass_scale=(0.9, 1.1), damping_scale=(0.5, 1.5), current_speed_m_s=(0.2, 0.6)
    )
    vehicles = BatchedVehicles(
        get_vehicle(VEHICLE), 512, device=device, randomization=randomization
    )
    _start(vehicles, (0.0, 0.0, 0.0))
    drawn = vehicles.parameters_numpy()
    assert drawn["mass_scale"].min() >= np.float32(0.9)
    assert drawn["mass_scale"].max() <= np.float32(1.1)
    assert drawn["damping_scale"].min() >= np.float32(0.5)
    assert drawn["damping_scale"].max() <= np.float32(1.5)
    speed = np.hypot(drawn["current_ned"][:, 0], drawn["current_ned"][:, 1])
    assert speed.min() >= 0.2 - 1e-6 and speed.max() <= 0.6 + 1e-6
    np.testing.assert_array_equal(drawn["current_ned"][:, 2], 0.0)
    # 512 draws from a uniform spread over the range, not one repeated value.
    assert np.unique(drawn["mass_scale"]).size > 500
    assert drawn["damping_scale"].max() - drawn["damping_scale"].min() > 0.9


def test_draws_equal_the_keyed_hash_reference(device: str) -> None:
    randomization = Randomization(
        mass_scale=(0.8, 1.3), damping_scale=(0.6, 1.4), current_speed_m_s=(0.1, 0.9)
    )
    seeds = np.array([0, 1, 7, 2**31, 2**32 - 1, 12345], dtype=np.uint32)
    vehicles = BatchedVehicles(get_vehicle(VEHICLE), 6, device=device, randomization=randomization)
    vehicles.reset(
        np.ones(6, np.int32),
        position_ned=np.zeros((6, 3), np.float32),
        yaw_rad=np.zeros(6, np.float32),
        seeds=seeds,
    )
    drawn = vehicles.parameters_numpy()
    mass = [_draw(0.8, 1.3, _keyed_uniform(int(s), i, 0)) for i, s in enumerate(seeds)]
    damping = [_draw(0.6, 1.4, _keyed_uniform(int(s), i, 1)) for i, s in enumerate(seeds)]
    # Integer hashing and IEEE float32 multiply-add: identical on every device.
    np.testing.assert_array_equal(drawn["mass_scale"], np.array(mass, np.float32))
    np.testing.assert_array_equal(drawn["damping_scale"], np.array(damping, np.float32))
    direction = [
        np.float32(2.0 * math.pi) * _keyed_uniform(int(s), i, 2) for i, s in enumerate(seeds)
    ]
    speed = [_draw(0.1, 0.9, _keyed_uniform(int(s), i, 3)) for i, s in enumerate(seeds)]
    expected = np.stack(
        [np.multiply(speed, np.cos(direction)), np.multiply(speed, np.sin(direction))], 1
    )
    # cos/sin come from different float32 libm implementations: agreement to an ulp or two.
    np.testing.assert_allclose(drawn["current_ned"][:, :2], expected, rtol=0, atol=3e-7)


def test_int32_and_uint32_seeds_with_the_same_bits_draw_alike() -> None:
    randomization = Randomization(mass_scale=(0.5, 1.5))
    draws = []
    for seeds in (np.array([-1, -7], np.int32), np.array([2**32 - 1, 2**32 - 7], np.uint32)):
        vehicles = BatchedVehicles(get_vehicle(VEHICLE), 2, randomization=randomization)
        vehicles.reset(
            wp.array(np.ones(2, np.int32), dtype=wp.int32),
            position_ned=wp.zeros(2, dtype=wp.vec3f),
            yaw_rad=wp.zeros(2, dtype=wp.float32),
            seeds=wp.array(seeds, dtype=wp.int32 if seeds.dtype == np.int32 else wp.uint32),
        )
        draws.append(vehicles.parameters_numpy()["mass_scale"])
    np.testing.assert_array_equal(draws[0], draws[1])


def test_different_seeds_draw_different_parameters() -> None:
    randomization = Randomization(mass_scale=(0.5, 1.5))
    vehicles = BatchedVehicles(get_vehicle(VEHICLE), 3, randomization=randomization)
    drawn = []
    for seed in (1, 2):
        vehicles.reset(
            np.ones(3, np.int32),
            position_ned=np.zeros((3, 3), np.float32),
            yaw_rad=np.zeros(3, np.float32),
            seeds=np.full(3, seed, np.uint32),
        )
        drawn.append(vehicles.parameters_numpy()["mass_scale"])
    assert np.all(drawn[0] != drawn[1])
    # The env index is part of the key: one seed for every env still gives distinct envs.
    assert np.unique(drawn[0]).size == 3


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("mass_scale", (1.2, 1.1)),
        ("mass_scale", (0.0, 1.0)),
        ("damping_scale", (float("nan"), 1.0)),
        ("current_speed_m_s", (-0.1, 0.2)),
        ("current_speed_m_s", (0.1,)),
    ],
)
def test_malformed_randomization_ranges_are_refused_by_name(field: str, value: tuple) -> None:
    with pytest.raises(ValueError, match=rf"Randomization\.{field}"):
        Randomization(**{field: value})


def test_a_non_number_range_end_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"Randomization\.mass_scale"):
        Randomization(mass_scale=("1", 2.0))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"num_envs": 0}, ValueError, "num_envs"),
        ({"num_envs": 2.0}, TypeError, "num_envs"),
        ({"num_envs": 2, "device": "cuda:7"}, ValueError, "cuda:7"),
        ({"num_envs": 2, "randomization": (1.0, 1.0)}, TypeError, "randomization"),
    ],
)
def test_bad_constructor_arguments_are_refused_by_name(
    kwargs: dict, error: type, match: str, devices: tuple[str, ...]
) -> None:
    if kwargs.get("device") == "cuda:7" and "cuda:7" in devices:
        pytest.skip("cuda:7 is present on this machine")
    with pytest.raises(error, match=match):
        BatchedVehicles(get_vehicle(VEHICLE), **kwargs)


def test_a_vehicle_without_thrusters_is_refused() -> None:
    spec = get_vehicle(VEHICLE).model_copy(update={"thrusters": ()})
    with pytest.raises(ValueError, match="no thrusters"):
        BatchedVehicles(spec, 1)


@pytest.mark.parametrize(
    ("commands", "match"),
    [
        (np.zeros((3, 4), np.float32), "commands_n"),
        (wp.zeros((3, 5), dtype=wp.float64), "commands_n"),
        ([[0.0] * 5] * 3, "commands_n"),
    ],
)
def test_bad_commands_are_refused_and_change_nothing(commands, match: str) -> None:
    vehicles = BatchedVehicles(get_vehicle(VEHICLE), 3)
    before = vehicles.state_numpy()
    with pytest.raises((TypeError, ValueError), match=match):
        vehicles.step(commands, 0.01)
    for key, value in vehicles.state_numpy().items():
        np.testing.assert_array_equal(value, before[key], err_msg=key)


@pytest.mark.parametrize("dt_s", [0.0, -0.01, float("inf"), float("nan")])
def test_a_non_positive_or_non_finite_step_is_refused(dt_s: float) -> None:
    vehicles = BatchedVehicles(get_vehicle(VEHICLE), 1)
    with pytest.raises(ValueError, match="dt_s"):
        vehicles.step(np.zeros((1, vehicles.thruster_count), np.float32), dt_s)


def test_bench_reports_a_positive_rate() -> None:
    rate = bench_vehicles(4, 3, "cpu")
    assert math.isfinite(rate) and rate > 0.0
