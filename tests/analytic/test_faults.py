"""Thruster faults: every kind, when each takes effect and clears, and what is refused."""

from __future__ import annotations

import numpy as np
import pytest

from leviathan.analytic import run_scenario, scenario_from_dict
from leviathan.specs import SpecError
from leviathan.world import ThrusterFaultRefusedError
from tests.analytic.scenario_cases import scenario, survey_spec

STEP_NS = 10_000_000
H = STEP_NS / 1e9
STERN = 0  # the survey vehicle's first thruster
T = np.arange(101) * H  # row times of a 100-tick run [s]
TC = 0.15  # the stern thruster's time constant [s] (checked below against the catalogue)


def first_order(command_n: float, t: np.ndarray) -> np.ndarray:
    """Force of a thruster from rest under a command held from t = 0 (exact solution)."""
    return command_n * (1.0 - np.exp(-t / TC))


def test_stern_time_constant_is_the_catalogue_one() -> None:
    assert survey_spec()["thrusters"][STERN]["time_constant_s"] == TC


def direct(stern_n: float, *faults: dict, ticks: int = 100, moving: bool = True):
    vehicle = {
        "name": "auv",
        "spec": survey_spec(),
        "position_ned_m": [0.0, 0.0, 20.0],
        "velocity_body": [1.0 if moving else 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        "controller": {"kind": "direct_thrust", "commands_n": [stern_n, 0.0, 0.0, 0.0, 0.0]},
    }
    faults = [{"vehicle": "auv", "thruster": "stern", **f} for f in faults]
    doc = scenario(vehicles=[vehicle], faults=faults, duration_ticks=ticks)
    return run_scenario(scenario_from_dict(doc))


def test_a_fault_takes_effect_on_the_first_tick_at_or_after_its_time() -> None:
    for time_ns, tick in ((300_000_000, 30), (300_000_001, 31), (305_000_000, 31), (0, 0)):
        result = direct(20.0, {"kind": "dead", "time_ns": time_ns})
        record = result.faults[0]
        assert (record["effective_tick"], record["effective_time_ns"]) == (tick, tick * STEP_NS)
        active = result.vehicles["auv"].fault_active[:, STERN]
        assert active.dtype == np.bool_ and active.shape == (100,)
        assert int(np.argmax(active)) == tick and active[tick:].all() and not active[:tick].any()


def test_dead_thruster_gives_no_force_from_its_effective_tick() -> None:
    run = direct(20.0, {"kind": "dead", "time_ns": 500_000_000}).vehicles["auv"]
    np.testing.assert_allclose(run.thrust_n[:51, STERN], first_order(20.0, T[:51]), rtol=1e-9)
    np.testing.assert_array_equal(run.applied_command_n[50:, STERN], 0.0)
    np.testing.assert_array_equal(run.thrust_n[51:, STERN], 0.0)  # row k + 1: after tick k
    np.testing.assert_array_equal(run.command_n[:, STERN], 20.0)  # the controller still asks


def test_stuck_thruster_holds_its_command() -> None:
    run = direct(20.0, {"kind": "stuck", "command_n": -5.0, "time_ns": 0}).vehicles["auv"]
    np.testing.assert_array_equal(run.applied_command_n[:, STERN], -5.0)
    np.testing.assert_allclose(run.thrust_n[:, STERN], first_order(-5.0, T), rtol=1e-9)


def test_loss_of_effectiveness_scales_the_saturated_command() -> None:
    run = direct(40.0, {"kind": "loss_of_effectiveness", "gain": 0.25, "time_ns": 0})
    np.testing.assert_array_equal(run.vehicles["auv"].applied_command_n[:, STERN], 10.0)
    run = direct(60.0 - 10.0, {"kind": "loss_of_effectiveness", "gain": 0.5, "time_ns": 0})
    np.testing.assert_array_equal(run.vehicles["auv"].applied_command_n[:, STERN], 25.0)


def test_reversed_thruster_pushes_the_other_way_within_its_reverse_limit() -> None:
    run = direct(40.0, {"kind": "reversed", "time_ns": 0}).vehicles["auv"]
    np.testing.assert_array_equal(run.applied_command_n[:, STERN], -40.0)
    # The stern thruster's reverse limit is -25 N: the dynamics saturate there.
    np.testing.assert_allclose(run.thrust_n[:, STERN], first_order(-25.0, T), rtol=1e-9)


def test_reduced_limit_caps_the_force_at_the_fraction_of_the_limits() -> None:
    run = direct(50.0, {"kind": "reduced_limit", "fraction": 0.4, "time_ns": 0}).vehicles["auv"]
    np.testing.assert_array_equal(run.applied_command_n[:, STERN], 50.0)
    np.testing.assert_allclose(run.thrust_n[:, STERN], first_order(0.4 * 50.0, T), rtol=1e-9)


def test_slowed_response_follows_the_new_time_constant() -> None:
    tau = 2.0
    result = direct(20.0, {"kind": "slowed_response", "time_constant_s": tau, "time_ns": 0})
    thrust = result.vehicles["auv"].thrust_n[:, STERN]
    t = T
    # From rest, f(t) = c (1 - exp(-t / τ)) for a command c held from t = 0.
    np.testing.assert_allclose(thrust, 20.0 * (1.0 - np.exp(-t / tau)), rtol=1e-9, atol=1e-12)
    nominal = direct(20.0).vehicles["auv"].thrust_n[:, STERN]
    np.testing.assert_allclose(nominal, first_order(20.0, t), rtol=1e-9, atol=1e-12)


def test_a_cleared_fault_gives_the_command_back() -> None:
    fault = {"kind": "dead", "time_ns": 200_000_000, "clear_time_ns": 500_000_000}
    result = direct(20.0, fault)
    run = result.vehicles["auv"]
    active = run.fault_active[:, STERN]
    assert active[20:50].all() and not active[:20].any() and not active[50:].any()
    np.testing.assert_array_equal(run.applied_command_n[50:, STERN], 20.0)
    assert (result.faults[0]["cleared_tick"], result.faults[0]["cleared_time_ns"]) == (
        50,
        5 * 10**8,
    )
    # Dead from tick 20: the force restarts from zero when the fault clears at tick 50.
    np.testing.assert_array_equal(run.thrust_n[21:51, STERN], 0.0)
    np.testing.assert_allclose(run.thrust_n[50:, STERN], first_order(20.0, T[:51]), rtol=1e-9)


def test_no_fault_no_change_and_other_thrusters_untouched() -> None:
    run = direct(20.0, {"kind": "reversed", "time_ns": 0}).vehicles["auv"]
    np.testing.assert_array_equal(run.applied_command_n[:, 1:], run.command_n[:, 1:])
    assert not run.fault_active[:, 1:].any()


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ({"thruster": "propeller", "kind": "dead", "time_ns": 0}, r"faults\[0\]\.thruster"),
        ({"thruster": "stern", "kind": "stuck", "command_n": 80.0, "time_ns": 0}, "command_n"),
        (
            {"thruster": "stern", "kind": "dead", "time_ns": 5, "clear_time_ns": 9},
            "clear it at least one tick later",
        ),
    ],
)
def test_faults_that_do_not_fit_the_vehicle_are_refused(fault: dict, message: str) -> None:
    doc = scenario(faults=[{"vehicle": "auv", **fault}])
    with pytest.raises(ValueError, match=message):
        run_scenario(scenario_from_dict(doc))


def test_overlapping_faults_on_one_thruster_are_refused() -> None:
    faults = [
        {"vehicle": "auv", "thruster": "stern", "kind": "dead", "time_ns": 0},
        {"vehicle": "auv", "thruster": "stern", "kind": "reversed", "time_ns": 100_000_000},
    ]
    with pytest.raises(ValueError, match=r"faults\[1\]: overlaps faults\[0\]"):
        run_scenario(scenario_from_dict(scenario(faults=faults)))
    faults[0]["clear_time_ns"] = 100_000_000  # one after the other is fine
    assert len(run_scenario(scenario_from_dict(scenario(faults=faults))).faults) == 2


@pytest.mark.parametrize(
    ("fault", "field"),
    [
        ({"kind": "loss_of_effectiveness", "gain": 1.5}, "gain"),
        ({"kind": "reduced_limit", "fraction": 0.0}, "fraction"),
        ({"kind": "slowed_response", "time_constant_s": -1.0}, "time_constant_s"),
        ({"kind": "melted"}, "faults.0"),
        ({"kind": "dead", "clear_time_ns": 0}, "clear_time_ns"),
        ({"kind": "dead", "time_ns": 1.5}, "time_ns"),
    ],
)
def test_fault_documents_are_validated_naming_the_field(fault: dict, field: str) -> None:
    doc = {"vehicle": "auv", "thruster": "stern", "time_ns": 10, **fault}
    with pytest.raises(SpecError, match=field.replace(".", r"[.\[]")):
        scenario_from_dict(scenario(faults=[doc]))


def test_a_live_world_still_refuses_thruster_faults() -> None:
    from leviathan.analytic import canonical_world

    world = canonical_world(scenario_from_dict(scenario()))
    with pytest.raises(ThrusterFaultRefusedError, match="analytic scenario runs"):
        world.inject_thruster_fault("auv", "stern", kind="dead")
