"""World operations are transactional; work and memory are bounded; the registry holds limits.

Every refused or failing operation is checked the same way: a fingerprint of the
whole World (snapshot hash, ``state()``, edit log, off-tick runs, track lengths)
taken before the call equals the one after it, and the World then goes on
exactly like a twin that never saw the call.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Iterator

import numpy as np
import pytest

from leviathan.catalogue import get_vehicle
from leviathan.controllers import Autopilot, Controller, DirectThrust, WaypointFollower
from leviathan.dynamics import RigidBodyModel
from leviathan.sensors import register_sensor_kind, registered_sensor_kinds
from leviathan.specs import ScheduleSpec, VehicleSpec, WaterSpec
from leviathan.world import (
    MAX_STEPS_PER_WORLD,
    Environment,
    VehicleSetup,
    World,
    WorldLimitError,
    WorldRegistry,
)
from leviathan.world import _queries as world_queries
from leviathan.world._registry import RELEASED_IDS_KEPT
from leviathan.world._vehicles import VehicleTrack
from leviathan.world._world import world_state

TICK_NS = 10_000_000


def _spec(name: str = "reference_survey_vehicle", *, sensors: tuple[str, ...] = ("dvl", "imu")):
    """A catalogue vehicle keeping only the named sensors (cheap ones, no sonar)."""
    spec = get_vehicle(name)
    kept = [s.model_dump() for s in spec.sensors if s.name in sensors]
    return VehicleSpec.model_validate({**spec.model_dump(), "sensors": kept})


def _autopilot() -> Autopilot:
    return Autopilot(speed_m_per_s=1.0, depth_m=20.0, heading_rad=0.3)


def _follower() -> WaypointFollower:
    return WaypointFollower(
        [(30.0, 0.0, 21.0), (30.0, 20.0, 21.0)], speed_m_per_s=0.8, acceptance_radius_m=2.0
    )


def _world(second: Controller | None = None, **kwargs) -> World:
    """Two vehicles with different controllers and sensors.

    Args:
        second: The controller of vehicle ``"second"`` (default :func:`_follower`).
        **kwargs: Further :meth:`World.create` options.
    """
    return World.create(
        vehicles=[
            VehicleSetup("auv", _spec(), _autopilot(), position_ned_m=(0.0, 0.0, 20.0)),
            VehicleSetup(
                "second",
                _spec(sensors=("imu",)),
                second if second is not None else _follower(),
                position_ned_m=(5.0, 5.0, 21.0),
            ),
        ],
        environment=Environment(water=WaterSpec(current_ned_m_per_s=(0.1, 0.0, 0.0))),
        root_seed=7,
        step_ns=TICK_NS,
        tracing_backend="reference",
        **kwargs,
    )


def _fingerprint(world: World) -> tuple:
    return (
        world.snapshot().content_hash,
        json.dumps(world.state(), sort_keys=True),
        json.dumps(world_state(world).edits, sort_keys=True),
        json.dumps([dict(r) for r in world.off_tick_samples], sort_keys=True),
        tuple(len(world.track(name)[0]) for name in world.vehicle_names),
        world_state(world).sampled_through_tick,
    )


def _group_hashes(groups) -> list[str]:
    return [g.content_hash for g in groups]


@contextlib.contextmanager
def _unchanged(world: World) -> Iterator[None]:
    """Asserts that the block leaves the :func:`_fingerprint` of ``world`` as it was."""
    before = _fingerprint(world)
    yield
    assert _fingerprint(world) == before


def _twins(ticks: int) -> tuple[World, World]:
    """A :func:`_world` and its twin, both stepped ``ticks`` ticks."""
    world, twin = _world(), _world()
    world.step(ticks)
    twin.step(ticks)
    return world, twin


def _assert_goes_on_like(world: World, twin: World, ticks: int) -> None:
    """``world`` steps ``ticks`` ticks exactly like ``twin``: groups and fingerprint."""
    assert _group_hashes(world.step(ticks)) == _group_hashes(twin.step(ticks))
    assert _fingerprint(world) == _fingerprint(twin)


class _FailingController:
    """An Autopilot that raises (or is interrupted) from a given simulation time on."""

    kind = "failing_autopilot"

    def __init__(self, fail_at_ns: int, error: BaseException) -> None:
        self._inner = _autopilot()
        self._fail_at_ns = fail_at_ns
        self._error = error

    def initial_state(self) -> dict:
        return self._inner.initial_state()

    def command(self, model, state, controller_state, *, time_ns, dt_ns):
        if time_ns >= self._fail_at_ns:
            raise self._error
        return self._inner.command(model, state, controller_state, time_ns=time_ns, dt_ns=dt_ns)

    def __content__(self) -> dict:
        return {"kind": self.kind, "fail_at_ns": self._fail_at_ns}


def _world_with_failing_second_vehicle(error: BaseException) -> World:
    # "second" sorts after "auv": "auv" has already computed its tick when the failure hits.
    return _world(_FailingController(fail_at_ns=8 * TICK_NS, error=error))


# --------------------------------------------------------------------------- step


@pytest.mark.parametrize(
    "error", [RuntimeError("thruster driver fault"), KeyboardInterrupt()], ids=["error", "ctrl-c"]
)
def test_step_failing_in_one_vehicle_rolls_back_every_vehicle(error: BaseException) -> None:
    world = _world_with_failing_second_vehicle(error)
    world.step(5)
    with _unchanged(world):
        with pytest.raises(type(error)):
            world.step(10)  # ticks 6..8 succeed, tick 9 (t = 80 ms) fails in "second"
    assert world.tick == 5


def test_step_failing_in_a_sensor_rolls_back_the_tick() -> None:
    world, twin = _twins(3)
    real = registered_sensor_kinds()["imu"]

    class FailingIMU:
        """The registered IMU, failing once: a sensor fault mid-step."""

        kind, spec_type, product_type = real.kind, real.spec_type, real.product_type
        channels = real.channels

        def sample(self, spec, context):
            if context.sensor_id == "second/imu" and context.time_ns == 7 * TICK_NS:
                raise ValueError("imu: simulated sensor failure")
            return real.sample(spec, context)

    register_sensor_kind(FailingIMU(), replace=True)
    with _unchanged(world):
        try:
            with pytest.raises(ValueError, match="simulated sensor failure"):
                world.step(6)
        finally:
            register_sensor_kind(real, replace=True)
    # After the rollback the World goes on exactly like its twin.
    _assert_goes_on_like(world, twin, 6)


def test_step_beyond_the_limit_changes_nothing() -> None:
    world = _world()
    world.step(2)
    with _unchanged(world):
        with pytest.raises(WorldLimitError, match=str(MAX_STEPS_PER_WORLD)):
            world.step(MAX_STEPS_PER_WORLD)
        with pytest.raises(ValueError, match="positive integer"):
            world.step(0)


def test_refused_calls_leave_no_trace_in_the_future() -> None:
    world, twin = _twins(4)
    with pytest.raises(TypeError):
        world.set_controller("auv", object())  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        world.set_step("0.0000000001")
    with pytest.raises(ValueError):
        world.set_current((math.nan, 0.0, 0.0))
    _assert_goes_on_like(world, twin, 30)


# --------------------------------------------------------------------------- controllers


def test_set_controller_refuses_a_direct_thrust_of_the_wrong_size() -> None:
    world = _world()
    world.step(3)
    count = len(world.vehicle_spec("auv").thrusters)
    with _unchanged(world):
        with pytest.raises(ValueError, match=rf"DirectThrust has {count + 1} commands .* {count} "):
            world.set_controller("auv", DirectThrust([0.0] * (count + 1)))


def test_set_controller_refuses_commands_outside_the_thruster_limits() -> None:
    world = _world()
    spec = world.vehicle_spec("auv")
    count = len(spec.thrusters)
    too_much = spec.thrusters[0].max_thrust_n * 2.0
    with _unchanged(world):
        with pytest.raises(ValueError, match=r"commands_n\[0\] = .* outside thruster 0's limits"):
            world.set_controller("auv", DirectThrust([too_much] + [0.0] * (count - 1)))


def test_set_controller_refuses_a_controller_that_fails_its_dry_run() -> None:
    world = _world()
    with _unchanged(world):
        with pytest.raises(ValueError, match="does not fit vehicle"):
            world.set_controller(
                "auv", _FailingController(fail_at_ns=0, error=ValueError("needs a rudder"))
            )


def test_set_controller_on_an_unknown_vehicle_changes_nothing() -> None:
    world = _world()
    with _unchanged(world):
        with pytest.raises(KeyError, match="no vehicle 'ghost'"):
            world.set_controller("ghost", _autopilot())


def test_create_refuses_a_controller_that_does_not_fit() -> None:
    spec = _spec()
    with pytest.raises(ValueError, match=r"vehicles\['auv'\].controller: DirectThrust has 1"):
        World.create(vehicles=[VehicleSetup("auv", spec, DirectThrust([0.0]))], step_ns=TICK_NS)


def test_set_controller_commits_when_it_fits() -> None:
    world = _world()
    world.step(2)
    before = world.snapshot().content_hash
    world.set_controller("second", _autopilot())
    assert world.snapshot().content_hash != before
    assert world_state(world).edits[-1]["edit"] == "controller"


# --------------------------------------------------------------------------- edit


def test_edit_with_a_bad_vehicle_part_keeps_the_old_environment() -> None:
    world = _world()
    world.step(2)
    new_environment = Environment(water=WaterSpec(temperature_c=4.0))
    rov = _spec("inspection_rov", sensors=())
    # The kept Autopilot fits the ROV, but the DirectThrust given does not.
    with _unchanged(world):
        with pytest.raises(ValueError, match="DirectThrust has 2 commands"):
            world.edit(
                environment=new_environment,
                vehicle="auv",
                spec=rov,
                controller=DirectThrust([0.0, 0.0]),
            )
    assert world.environment is not new_environment


def test_edit_to_a_document_the_kept_controller_cannot_drive_is_refused() -> None:
    world = World.create(
        vehicles=[VehicleSetup("auv", _spec(), DirectThrust([0.0] * len(_spec().thrusters)))],
        step_ns=TICK_NS,
    )
    rov = _spec("inspection_rov", sensors=())
    assert len(rov.thrusters) != len(_spec().thrusters)
    with _unchanged(world):
        with pytest.raises(ValueError, match=r"does not fit|DirectThrust has"):
            world.edit(vehicle="auv", spec=rov)


def test_edit_with_a_wrong_type_changes_nothing() -> None:
    world = _world()
    with _unchanged(world):
        with pytest.raises(TypeError, match="environment: expected an Environment"):
            world.edit(environment="deep sea")  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="spec: expected a VehicleSpec"):
            world.edit(vehicle="auv", spec={"name": "x"})  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="nothing to change"):
            world.edit()


def test_edit_of_the_document_keeps_pose_and_velocity() -> None:
    world = _world()
    world.step(20)
    state = world.vehicle_state("auv")
    world.edit(vehicle="auv", sensors=())
    after = world.vehicle_state("auv")
    np.testing.assert_array_equal(after.position_ned_m, state.position_ned_m)
    np.testing.assert_array_equal(after.velocity_body, state.velocity_body)
    assert world.sensor_ids() == ("second/imu",)


# --------------------------------------------------------------------------- current, step, reset


def test_set_current_refused_changes_nothing() -> None:
    world = _world()
    world.step(2)
    with _unchanged(world):
        for bad in [(0.1, 0.2), "north", (0.1, True, 0.0), (math.inf, 0.0, 0.0)]:
            with pytest.raises((TypeError, ValueError)):
                world.set_current(bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="not both"):
            world.set_current((0.1, 0.0, 0.0), profile=[])


@pytest.mark.parametrize(
    ("step", "match"),
    [
        ("0.0000000001", "whole number of nanoseconds"),
        (10**18, "between 1 ns and"),
        ("1e30", r"step: a tick must be between .* got '1e30'"),
        (0, "between 1 ns and"),
        (True, "got a bool"),
        ("fast", "step"),
    ],
)
def test_set_step_refused_changes_nothing(step, match: str) -> None:
    world = _world()
    world.step(3)
    with _unchanged(world):
        with pytest.raises((TypeError, ValueError), match=match):
            world.set_step(step)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"step_ns": 10**18}, r"step_ns: a tick must be between"),
        ({"step_s": "1e30"}, r"step_s: a tick must be between .* got '1e30'"),
        ({"step_s": "1e-12"}, r"step_s: .*whole number of nanoseconds"),
        ({"step_ns": 2.5e6}, r"step_ns: expected an int of nanoseconds"),
    ],
)
def test_create_refuses_ticks_outside_the_bounds(kwargs: dict, match: str) -> None:
    with pytest.raises((TypeError, ValueError), match=match):
        World.create(vehicles=[VehicleSetup("auv", _spec(), _autopilot())], **kwargs)


@pytest.mark.parametrize(
    ("root_seed", "error", "match"),
    [
        (-1, ValueError, r"root_seed must satisfy 0 <= root_seed < 2\*\*64, got -1"),
        (2**64, ValueError, r"root_seed must satisfy 0 <= root_seed < 2\*\*64"),
        (True, TypeError, r"root_seed must be an int, got True"),
        (1.0, TypeError, r"root_seed must be an int, got 1\.0"),
        # The seed is kept as given in hashed records, where an np.int64 encodes differently.
        (np.int64(7), TypeError, r"root_seed must be an int, got np\.int64\(7\)"),
    ],
)
def test_create_refuses_a_root_seed_that_is_not_a_python_uint64(
    root_seed: object, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        World.create(
            vehicles=[VehicleSetup("auv", _spec(), _autopilot())],
            step_ns=TICK_NS,
            root_seed=root_seed,
        )


def test_create_keeps_the_largest_root_seed_as_a_python_int() -> None:
    world = World.create(
        vehicles=[VehicleSetup("auv", _spec(), _autopilot())], step_ns=TICK_NS, root_seed=2**64 - 1
    )
    assert type(world.root_seed) is int and world.root_seed == 2**64 - 1


def test_reset_failing_part_way_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    world = _world()
    world.step(12)
    calls = []
    real = RigidBodyModel.from_spec.__func__

    def flaky(cls, spec, **kwargs):
        calls.append(spec.name)
        if len(calls) == 2:
            raise MemoryError("simulated allocation failure")
        return real(cls, spec, **kwargs)

    monkeypatch.setattr(RigidBodyModel, "from_spec", classmethod(flaky))
    with _unchanged(world):
        with pytest.raises(MemoryError):
            world.reset()
    monkeypatch.undo()
    world.reset()
    assert world.tick == 0 and _fingerprint(world) == _fingerprint(_world())


def test_reset_interrupted_after_it_replaced_the_vehicles_changes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The interrupt lands after the new vehicles, edit log and off-tick log are in
    # place (recording tick 0 of the first new track): the old ones must come back.
    world, twin = _twins(12)
    world.set_current((0.0, 0.2, 0.0))
    twin.set_current((0.0, 0.2, 0.0))
    real_append = VehicleTrack.append

    def interrupted(self, tick, time_ns, state):
        if tick == 0:
            raise KeyboardInterrupt
        real_append(self, tick, time_ns, state)

    monkeypatch.setattr(VehicleTrack, "append", interrupted)
    with _unchanged(world):
        with pytest.raises(KeyboardInterrupt):
            world.reset()
    monkeypatch.undo()
    assert world_state(world).edits[-1]["edit"] == "current"
    _assert_goes_on_like(world, twin, 9)


def test_reset_replays_the_same_hashes_after_a_rollback() -> None:
    world = _world_with_failing_second_vehicle(RuntimeError("boom"))
    first = _group_hashes(world.step(7))
    with pytest.raises(RuntimeError):
        world.step(5)
    world.reset()
    assert _group_hashes(world.step(7)) == first


# --------------------------------------------------------------------------- bounded work


def _imu_world(period_ns: int, *, phase_ns: int = 0) -> World:
    spec = _spec(sensors=("imu",))
    imu = spec.sensor("imu").model_copy(
        update={"schedule": ScheduleSpec(period_ns=period_ns, phase_ns=phase_ns)}
    )
    spec = VehicleSpec.model_validate({**spec.model_dump(), "sensors": [imu.model_dump()]})
    return World.create(
        vehicles=[VehicleSetup("auv", spec, _autopilot(), position_ned_m=(0.0, 0.0, 20.0))],
        step_ns=TICK_NS,
    )


def test_a_1_ns_period_on_10_ms_ticks_is_counted_not_listed() -> None:
    world = _imu_world(1)
    groups = world.step(50)
    assert [g.time_ns for g in groups] == [k * TICK_NS for k in range(51)]
    (run,) = world.off_tick_samples
    assert run["refused_count"] == 50 * (TICK_NS - 1)
    assert (run["first_sample_index"], run["last_sample_index"]) == (1, 50 * TICK_NS - 1)
    assert World.refused_sample_indices(run, limit=3) == [1, 2, 3]


def test_off_tick_runs_do_not_grow_per_refused_sample() -> None:
    world = _imu_world(3_000_000, phase_ns=1_000_000)  # 3 ms from 1 ms on 10 ms ticks
    world.step(100)
    runs_after_100 = world.off_tick_samples
    world.step(900)
    (run,) = world.off_tick_samples
    assert len(runs_after_100) == 1
    # Brute force over the schedule: which samples up to t = 10 s miss every tick?
    refused = [
        n
        for n in range((1000 * TICK_NS - 1_000_000) // 3_000_000 + 1)
        if (1_000_000 + n * 3_000_000) % TICK_NS != 0
    ]
    assert run["refused_count"] == len(refused)
    assert World.refused_sample_indices(run, limit=10**6) == refused
    taken = [g.time_ns for g in world.step(10)]
    assert all((t - 1_000_000) % 3_000_000 == 0 for t in taken)


def test_off_tick_runs_restart_with_each_epoch() -> None:
    world = _imu_world(10_000_000)
    world.step(5)
    world.set_step(15_000_000)
    world.step(4)
    world.set_step(10_000_000)
    world.step(4)
    runs = world.off_tick_samples
    assert [(r["epoch_start_tick"], r["step_ns"]) for r in runs] == [(5, 15_000_000)]
    # 15 ms ticks from t = 50 ms: 65, 80, 95, 110 ms; the 10 ms IMU at 60, 70, 90, 100 misses
    assert World.refused_sample_indices(runs[0]) == [6, 7, 9, 10]


# --------------------------------------------------------------------------- registry


def test_a_world_occupies_one_registry_slot_only() -> None:
    world = _world()
    one, other = WorldRegistry(), WorldRegistry()
    one.open(world)
    with pytest.raises(ValueError, match="already open in this registry"):
        one.open(world)
    with pytest.raises(ValueError, match="already open in another registry"):
        other.open(world)
    assert len(one) == 1 and len(other) == 0


def test_registry_step_limit_holds_through_the_world_object() -> None:
    registry = WorldRegistry(max_steps=10)
    world = _world()
    wid = registry.open(world)
    world.step(10)
    with _unchanged(world):
        with pytest.raises(WorldLimitError, match="limit of 10 steps"):
            world.step(1)
    registry.close(wid)
    world.step(1)  # no longer held: the World's own limit applies
    assert world.step_limit == MAX_STEPS_PER_WORLD


def test_registry_ids_are_never_reused_and_released_ids_stay_bounded() -> None:
    now = [0.0]
    registry = WorldRegistry(idle_release_s=1.0, lifecycle_clock=lambda: now[0])
    world = _world()
    seen = set()
    for _ in range(RELEASED_IDS_KEPT + 50):
        wid = registry.open(world)
        assert wid not in seen
        seen.add(wid)
        now[0] += 2.0
        assert registry.release_idle() == [wid]
    assert len(registry.released) == RELEASED_IDS_KEPT
    with pytest.raises(KeyError, match="released after being idle"):
        registry.get(registry.released[-1])
    with pytest.raises(KeyError, match="no longer open"):
        registry.get("world-1")
    with pytest.raises(KeyError, match="is not open"):
        registry.get("world-999999")


def test_closing_twice_is_refused() -> None:
    registry = WorldRegistry()
    wid = registry.open(_world())
    registry.close(wid)
    with pytest.raises(KeyError, match="no longer open"):
        registry.close(wid)


def test_state_speed_is_the_norm_written_in_order() -> None:
    # speed_over_ground is the norm written out in order, equal to math.hypot within 1 ulp
    world = _world()
    world.step(50)
    v = world.state()["vehicles"]["auv"]
    s = world.vehicle_state("auv")
    v_world = s.T_world_body.apply_direction(s.velocity_body[:3]).tolist()
    assert v["speed_over_ground_m_s"] == world_queries.norm3(v_world)
    assert math.isclose(v["speed_over_ground_m_s"], math.hypot(*v_world), rel_tol=1e-15)


def test_a_diverging_vehicle_is_refused_and_the_world_stays_as_it_was() -> None:
    from leviathan.catalogue import get_vehicle
    from leviathan.controllers import DirectThrust
    from leviathan.world import VehicleSetup, World, WorldDivergedError

    spec = get_vehicle("reference_survey_vehicle")
    runaway = VehicleSetup(
        "a",
        spec.replace(sensors=()),
        DirectThrust([0.0] * len(spec.thrusters)),
        velocity_body=(-6.8e15, 0.0, 0.0, 0.0, 0.0, 0.0),
    )
    world = World.create(vehicles=[runaway], step_s="0.01", tracing_backend="reference")
    before = world.snapshot().content_hash
    with pytest.raises(WorldDivergedError, match="vehicle 'a': its dynamics diverged at tick 2"):
        world.step(50)
    assert world.tick == 0 and world.snapshot().content_hash == before


def test_a_state_whose_accelerations_overflow_is_refused_as_diverged() -> None:
    """A finite but run-away velocity makes the accelerations a sensor reads overflow: the
    step is refused as a divergence (not as bad input) and the World stays as it was."""
    from leviathan.catalogue import get_vehicle
    from leviathan.controllers import DirectThrust
    from leviathan.world import VehicleSetup, World, WorldDivergedError

    spec = get_vehicle("reference_survey_vehicle")
    imu_only = spec.replace(sensors=tuple(s for s in spec.sensors if s.kind == "imu"))
    runaway = VehicleSetup(
        "a",
        imu_only,
        DirectThrust([0.0] * len(spec.thrusters)),
        velocity_body=(1e160, 1e160, 0.0, 0.0, 0.0, 0.0),
    )
    world = World.create(vehicles=[runaway], step_s="0.01", tracing_backend="reference")
    before = world.snapshot().content_hash
    with pytest.raises(WorldDivergedError, match=r"'a': its dynamics diverged at tick 0 \("):
        world.step(1)
    assert world.tick == 0 and world.snapshot().content_hash == before
