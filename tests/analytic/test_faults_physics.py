"""Physics checks of thruster faults against closed forms from the vehicle's own document."""

from __future__ import annotations

import math

import numpy as np
import pytest

from leviathan.analytic import run_scenario, scenario_from_dict
from leviathan.catalogue import get_vehicle
from leviathan.dynamics import RigidBodyModel
from tests.analytic.scenario_cases import scenario, survey_spec

STEP_NS = 10_000_000


def autopilot(speed: float, *, yaw_rad: float = 0.0, u0: float = 0.0, faults=(), seconds=20):
    vehicle = {
        "name": "auv",
        "spec": survey_spec(),
        "position_ned_m": [0.0, 0.0, 20.0],
        "rpy_rad": [0.0, 0.0, yaw_rad],
        "velocity_body": [u0, 0.0, 0.0, 0.0, 0.0, 0.0],
        "controller": {
            "kind": "autopilot",
            "speed_m_per_s": speed,
            "depth_m": 20.0,
            "heading_rad": 0.0,
        },
    }
    doc = scenario(
        vehicles=[vehicle],
        faults=[{"vehicle": "auv", **f} for f in faults],
        duration_ticks=seconds * 100,
    )
    return run_scenario(scenario_from_dict(doc)).vehicles["auv"]


def test_dead_stern_thruster_coasts_to_rest_at_the_rate_its_damping_predicts() -> None:
    spec = get_vehicle("reference_survey_vehicle")
    mass = spec.mass
    inertia = mass.mass_kg + mass.added_mass[0]  # m + X_u̇ [kg]
    a = mass.linear_damping[0] / inertia  # [1/s]
    b = mass.quadratic_damping[0] / inertia  # [1/m]
    fault_tick = 500
    run = autopilot(
        1.5,
        u0=1.5,
        faults=[{"thruster": "stern", "kind": "dead", "time_ns": fault_tick * STEP_NS}],
        seconds=25,
    )
    # Forward thrust stops: no thruster but the stern one has a surge component.
    model = RigidBodyModel.from_spec(spec)
    surge_force = run.thrust_n @ model.thruster_matrix[0]
    np.testing.assert_array_equal(surge_force[fault_tick + 1 :], 0.0)
    assert surge_force[fault_tick] > 10.0
    # (m + X_u̇) u̇ = -(X_u u + X_uu u|u|)  =>  u(t) = a u0 e^{-at} / (a + b u0 (1 - e^{-at})).
    u = run.states[fault_tick:, 7]
    t = np.arange(u.shape[0]) * STEP_NS / 1e9
    u0 = u[0]
    decay = np.exp(-a * t)
    expected = a * u0 * decay / (a + b * u0 * (1.0 - decay))
    # 10 µm/s bounds what the autopilot's heave and pitch corrections couple into
    # surge (Coriolis and added-mass terms) while it holds depth with the tunnel
    # thrusters; the RK4 error at 10 ms ticks is far below it.
    np.testing.assert_allclose(u, expected, atol=1e-5)
    assert u[-1] < 0.2 * u0
    initial_rate = (u[1] - u[0]) / (t[1] - t[0])
    assert initial_rate == pytest.approx(-(a * u0 + b * u0 * u0), rel=0.02)


def test_reversed_yaw_thrusters_make_the_heading_autopilot_diverge_then_saturate() -> None:
    spec = get_vehicle("reference_survey_vehicle")
    model = RigidBodyModel.from_spec(spec)
    m = model.M[5, 5]  # I_z + N_ṙ [kg m²]
    d = model.linear_damping_diagonal[5]  # [N m s]
    omega, zeta = 1.0, 1.0  # the Autopilot's default heading loop
    kp, kd = m * omega**2, max(0.0, 2.0 * zeta * omega * m - d)
    tau = spec.thrusters[2].time_constant_s  # the lateral thrusters' lag [s]
    # Reversed yaw moment, through the thrusters' lag, on x = ψ - ψ_d:
    # τ m s³ + (m + τ d) s² + (d - K_d) s - K_p = 0; its positive real root is the growth rate.
    roots = np.roots([tau * m, m + tau * d, d - kd, -kp])
    growth = max(r.real for r in roots if abs(r.imag) < 1e-12)
    assert growth > 0.0

    reversed_faults = [
        {"thruster": "bow_lateral", "kind": "reversed", "time_ns": 0},
        {"thruster": "stern_lateral", "kind": "reversed", "time_ns": 0},
    ]
    run = autopilot(0.0, yaw_rad=1e-4, faults=reversed_faults, seconds=12)
    q = run.states[:, 3:7]
    yaw = np.arctan2(
        2.0 * (q[:, 0] * q[:, 3] + q[:, 1] * q[:, 2]), 1.0 - 2.0 * (q[:, 2] ** 2 + q[:, 3] ** 2)
    )
    t = run.time_ns / 1e9
    error = np.abs(yaw)
    # Exponential growth while linear: fit log|x| between 1e-3 and 3e-2 rad.
    window = (error > 1e-3) & (error < 3e-2) & (t > 1.0)
    assert np.count_nonzero(window) > 20
    slope = np.polyfit(t[window], np.log(error[window]), 1)[0]
    assert slope == pytest.approx(growth, rel=0.05)
    # Then the lateral thrusters saturate at their limits and the heading is lost.
    lateral = run.thrust_n[:, [2, 4]]
    assert np.max(np.abs(lateral)) == pytest.approx(10.0, abs=0.05)
    assert np.max(error) > 1.0

    nominal = autopilot(0.0, yaw_rad=1e-4, seconds=12)
    qn = nominal.states[:, 3:7]
    yaw_n = np.arctan2(
        2.0 * (qn[:, 0] * qn[:, 3] + qn[:, 1] * qn[:, 2]),
        1.0 - 2.0 * (qn[:, 2] ** 2 + qn[:, 3] ** 2),
    )
    assert np.max(np.abs(yaw_n)) <= 1e-4 + 1e-12
    assert math.isclose(float(np.abs(yaw_n[-1])), 0.0, abs_tol=1e-5)
