"""Tests for leviathan.controllers: tracking on catalogue vehicles, state, determinism."""

from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from leviathan.catalogue import get_vehicle
from leviathan.controllers import (
    Autopilot,
    Controller,
    DirectThrust,
    WaypointFollower,
    lawnmower,
)
from leviathan.dynamics import RigidBodyModel, VehicleState, step
from leviathan.frames import wrap_angle
from leviathan.identity import content_hash

DT_NS = 20_000_000  # 20 ms
STILL = (0.0, 0.0, 0.0)


def simulate(
    controller: Controller,
    model: RigidBodyModel,
    state: VehicleState,
    ticks: int,
    *,
    on_tick: object = None,
) -> tuple[VehicleState, dict]:
    controller_state = controller.initial_state()
    for k in range(ticks):
        command, controller_state = controller.command(
            model, state, controller_state, time_ns=k * DT_NS, dt_ns=DT_NS
        )
        state = step(model, state, command, STILL, dt_ns=DT_NS)
        if on_tick is not None:
            on_tick(state, controller_state)
    return state, controller_state


@pytest.mark.parametrize(
    ("vehicle", "speed_m_per_s", "depth_m"),
    [("reference_survey_vehicle", 1.0, 8.0), ("inspection_rov", 0.3, 7.0)],
)
def test_autopilot_reaches_depth_heading_and_speed(
    vehicle: str, speed_m_per_s: float, depth_m: float
) -> None:
    model = RigidBodyModel.from_spec(get_vehicle(vehicle))
    heading_rad = math.radians(60.0)
    autopilot = Autopilot(speed_m_per_s=speed_m_per_s, depth_m=depth_m, heading_rad=heading_rad)
    start = VehicleState.from_euler([0.0, 0.0, 5.0], thruster_count=model.thruster_count)
    final, _ = simulate(autopilot, model, start, 60 * 50)
    assert abs(final.depth_m - depth_m) < 0.2
    assert abs(wrap_angle(final.heading_rad - heading_rad)) < math.radians(2.0)
    assert abs(final.velocity_body[0] - speed_m_per_s) < 0.1


def test_waypoint_follower_visits_a_lawnmower_in_order() -> None:
    model = RigidBodyModel.from_spec(get_vehicle("reference_survey_vehicle"))
    waypoints = lawnmower(
        origin_ne_m=(5.0, 0.0),
        heading_rad=0.0,
        leg_length_m=20.0,
        leg_spacing_m=10.0,
        legs=3,
        depth_m=5.0,
    )
    radius_m = 2.0
    follower = WaypointFollower(waypoints, speed_m_per_s=1.0, acceptance_radius_m=radius_m)
    start = VehicleState.from_euler([0.0, 0.0, 5.0], thruster_count=model.thruster_count)
    closest = [math.inf] * len(waypoints)
    indices = []

    def record(state: VehicleState, controller_state: dict) -> None:
        north, east, _ = state.position_ned_m
        for i, (wn, we, _) in enumerate(waypoints):
            closest[i] = min(closest[i], math.hypot(wn - north, we - east))
        indices.append(controller_state["waypoint_index"])

    final, controller_state = simulate(follower, model, start, 100 * 50, on_tick=record)
    assert controller_state["waypoint_index"] == len(waypoints)
    # The index only ever advances, one waypoint at a time.
    steps = np.diff(indices)
    assert set(steps.tolist()) <= {0, 1}
    assert max(closest) < radius_m
    # Done: holding depth at zero speed.
    assert abs(final.depth_m - 5.0) < 0.2
    assert abs(final.velocity_body[0]) < 0.1


def test_lawnmower_geometry() -> None:
    waypoints = lawnmower(
        origin_ne_m=(1.0, 2.0),
        heading_rad=math.pi / 2,
        leg_length_m=10.0,
        leg_spacing_m=4.0,
        legs=3,
        depth_m=6.0,
    )
    # Heading east: legs run along +east, stepping to starboard (south, -north).
    expected = [
        (1.0, 2.0),
        (1.0, 12.0),
        (-3.0, 12.0),
        (-3.0, 2.0),
        (-7.0, 2.0),
        (-7.0, 12.0),
    ]
    assert len(waypoints) == 6
    assert_allclose([w[:2] for w in waypoints], expected, atol=1e-12)
    assert all(w[2] == 6.0 for w in waypoints)


def test_direct_thrust_checks_the_thruster_count() -> None:
    model = RigidBodyModel.from_spec(get_vehicle("inspection_rov"))
    state = VehicleState.from_euler([0.0, 0.0, 5.0], thruster_count=model.thruster_count)
    controller = DirectThrust([1.0, 2.0])
    with pytest.raises(ValueError, match="2 commands but vehicle 'inspection_rov' has 6"):
        controller.command(model, state, {}, time_ns=0, dt_ns=DT_NS)
    good = DirectThrust([1.0] * 6)
    command, new_state = good.command(model, state, {}, time_ns=0, dt_ns=DT_NS)
    assert command.dtype == np.float64 and command.shape == (6,)
    assert_array_equal(command, np.ones(6))
    assert new_state == {}


def test_direct_thrust_refuses_non_finite_commands() -> None:
    with pytest.raises(ValueError, match="finite"):
        DirectThrust([1.0, math.nan])


def test_autopilot_refuses_bad_gains() -> None:
    with pytest.raises(
        ValueError, match=r"depth_bandwidth_rad_s: expected a finite number > 0 \[rad/s\]"
    ):
        Autopilot(speed_m_per_s=1.0, depth_m=5.0, heading_rad=0.0, depth_bandwidth_rad_s=-1.0)


def test_controllers_satisfy_the_protocol() -> None:
    autopilot = Autopilot(speed_m_per_s=1.0, depth_m=5.0, heading_rad=0.0)
    follower = WaypointFollower([(10.0, 0.0, 5.0)], speed_m_per_s=1.0, acceptance_radius_m=1.0)
    for controller in (DirectThrust([0.0]), autopilot, follower):
        assert isinstance(controller, Controller)


def test_controller_state_round_trips_through_json_and_hash() -> None:
    model = RigidBodyModel.from_spec(get_vehicle("reference_survey_vehicle"))
    follower = WaypointFollower(
        [(10.0, 0.0, 6.0), (10.0, 10.0, 6.0)], speed_m_per_s=1.0, acceptance_radius_m=2.0
    )
    start = VehicleState.from_euler([0.0, 0.0, 5.0], thruster_count=model.thruster_count)
    _, controller_state = simulate(follower, model, start, 200)
    restored = json.loads(json.dumps(controller_state))
    assert restored == controller_state
    assert content_hash(restored) == content_hash(controller_state)
    assert content_hash(follower) == content_hash(
        WaypointFollower(
            [(10.0, 0.0, 6.0), (10.0, 10.0, 6.0)], speed_m_per_s=1.0, acceptance_radius_m=2.0
        )
    )


def test_command_does_not_mutate_the_given_state() -> None:
    model = RigidBodyModel.from_spec(get_vehicle("torpedo_auv"))
    follower = WaypointFollower([(20.0, 0.0, 6.0)], speed_m_per_s=1.0, acceptance_radius_m=2.0)
    state = VehicleState.from_euler([0.0, 0.0, 5.0], thruster_count=model.thruster_count)
    given = follower.initial_state()
    snapshot = copy.deepcopy(given)
    follower.command(model, state, given, time_ns=0, dt_ns=DT_NS)
    assert given == snapshot


def test_controller_state_keys_are_checked() -> None:
    model = RigidBodyModel.from_spec(get_vehicle("torpedo_auv"))
    state = VehicleState.from_euler([0.0, 0.0, 5.0], thruster_count=model.thruster_count)
    autopilot = Autopilot(speed_m_per_s=1.0, depth_m=5.0, heading_rad=0.0)
    with pytest.raises(ValueError, match="start from initial_state"):
        autopilot.command(model, state, {"depth_integral_m_s": 0.0}, time_ns=0, dt_ns=DT_NS)


def test_closed_loop_runs_are_bit_identical() -> None:
    def one_run() -> tuple[VehicleState, dict]:
        model = RigidBodyModel.from_spec(get_vehicle("reference_survey_vehicle"))
        autopilot = Autopilot(speed_m_per_s=1.0, depth_m=7.0, heading_rad=2.0)
        start = VehicleState.from_euler([0.0, 0.0, 5.0], thruster_count=model.thruster_count)
        return simulate(autopilot, model, start, 500)

    first_state, first_controller = one_run()
    second_state, second_controller = one_run()
    assert first_state == second_state
    assert first_controller == second_controller
    assert content_hash((first_state, first_controller)) == content_hash(
        (second_state, second_controller)
    )
