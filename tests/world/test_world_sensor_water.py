"""A World refuses a fan sonar whose ping period is below the two-way time 2 R_max / c.

The rule is the sensor kind's (``check_water``); the World applies it when it is
created and on every edit of a document or of the environment, with ``c`` the
water's Mackenzie sound speed at the sensor's depth, and the sensor again at every
ping (the depth changes as the vehicle moves).
"""

from __future__ import annotations

import math
import re

import pytest
from world_cases import TICK_NS, with_sensor

from leviathan.acoustics import sound_speed_m_per_s
from leviathan.catalogue import get_vehicle
from leviathan.controllers import Autopilot
from leviathan.frames import Transform, sensor_pose
from leviathan.scene import Scene
from leviathan.sensors import BodyKinematics, SampleContext, sample_sensor, sensor_declarations
from leviathan.specs import VehicleSpec, WaterSpec
from leviathan.world import Environment, VehicleSetup, World

DEPTH_M = 20.0
# Below the two-way time of both catalogue fans (side-scan 40 m: ~53.7 ms; multibeam
# 60 m: ~80.5 ms at 10 °C, 35 PSU, 20 m).
SHORT_PERIOD_NS = 50_000_000


def _mapping_vehicle(sensor: str | None = None, **update) -> VehicleSpec:
    spec = get_vehicle("reference_mapping_auv")
    return spec if sensor is None else with_sensor(spec, sensor, **update)


def _setup(spec: VehicleSpec) -> VehicleSetup:
    return VehicleSetup(
        "auv",
        spec,
        Autopilot(speed_m_per_s=1.0, depth_m=DEPTH_M, heading_rad=0.0),
        position_ned_m=(0.0, 0.0, DEPTH_M),
    )


def _world(spec: VehicleSpec, water: WaterSpec | None = None) -> World:
    return World.create(
        vehicles=[_setup(spec)],
        environment=Environment(water=water or WaterSpec()),
        step_ns=TICK_NS,
        tracing_backend="reference",
    )


def _minimum_ns(spec: VehicleSpec, sensor: str, water: WaterSpec) -> tuple[int, float]:
    """The expected minimum period [ns] and the sound speed at the sensor's initial depth."""
    fan = next(s for s in spec.sensors if s.name == sensor)
    pose = sensor_pose(_setup(spec).initial_state().T_world_body, fan.mount.transform())
    c = sound_speed_m_per_s(
        temperature_c=water.temperature_c,
        salinity_psu=water.salinity_psu,
        depth_m=float(pose.translation[2]),
    )
    return math.ceil(2.0 * fan.range_max_m / c * 1e9), c


@pytest.mark.parametrize("sensor", ["side_scan", "multibeam"])
def test_world_creation_refuses_a_ping_period_below_the_two_way_time(sensor: str) -> None:
    spec = _mapping_vehicle(sensor, schedule={"period_ns": SHORT_PERIOD_NS, "phase_ns": 0})
    minimum, c = _minimum_ns(spec, sensor, WaterSpec())
    assert minimum > SHORT_PERIOD_NS
    with pytest.raises(ValueError) as refused:
        _world(spec)
    message = str(refused.value)
    assert message.startswith(f"auv/{sensor}.schedule.period_ns: expected a ping period >= ")
    assert f">= {minimum} ns" in message
    assert f"c = {c:.3f} m/s" in message
    assert message.endswith(f"got {SHORT_PERIOD_NS} ns")


@pytest.mark.parametrize("sensor", ["side_scan", "multibeam"])
def test_world_creation_accepts_the_two_way_time_itself(sensor: str) -> None:
    minimum, _ = _minimum_ns(_mapping_vehicle(), sensor, WaterSpec())
    spec = _mapping_vehicle(sensor, schedule={"period_ns": minimum, "phase_ns": 0})
    assert _world(spec).tick == 0
    shorter = _mapping_vehicle(sensor, schedule={"period_ns": minimum - 1, "phase_ns": 0})
    with pytest.raises(ValueError, match=rf">= {minimum} ns.*got {minimum - 1} ns$"):
        _world(shorter)


def test_colder_fresher_water_is_a_slower_one_and_needs_a_longer_period() -> None:
    cold = WaterSpec(temperature_c=-5.0, salinity_psu=0.0)
    minimum, _ = _minimum_ns(_mapping_vehicle(), "side_scan", WaterSpec())
    cold_minimum, cold_c = _minimum_ns(_mapping_vehicle(), "side_scan", cold)
    assert cold_minimum > minimum
    spec = _mapping_vehicle("side_scan", schedule={"period_ns": minimum, "phase_ns": 0})
    with pytest.raises(ValueError, match=re.escape(f"c = {cold_c:.3f} m/s")):
        _world(spec, cold)


def test_a_sensors_edit_with_a_too_short_period_is_refused_and_changes_nothing() -> None:
    world = _world(_mapping_vehicle())
    world.step(3)
    before = world.snapshot().content_hash
    sensors = _mapping_vehicle(
        "multibeam", schedule={"period_ns": SHORT_PERIOD_NS, "phase_ns": 0}
    ).sensors
    with pytest.raises(ValueError, match=r"^auv/multibeam\.schedule\.period_ns: expected"):
        world.edit(vehicle="auv", sensors=sensors)
    assert world.snapshot().content_hash == before
    assert world.vehicle_spec("auv") == _mapping_vehicle()


def test_an_environment_edit_to_slower_water_is_refused_and_changes_nothing() -> None:
    minimum, _ = _minimum_ns(_mapping_vehicle(), "side_scan", WaterSpec())
    world = _world(_mapping_vehicle("side_scan", schedule={"period_ns": minimum, "phase_ns": 0}))
    world.step(2)
    before = world.snapshot().content_hash
    cold = Environment(water=WaterSpec(temperature_c=-5.0, salinity_psu=0.0))
    with pytest.raises(ValueError, match=r"^auv/side_scan\.schedule\.period_ns: expected"):
        world.edit(environment=cold)
    assert world.snapshot().content_hash == before
    assert world.environment.water == WaterSpec()


def test_each_ping_checks_again_at_the_sensors_depth_then() -> None:
    # Sound is faster deeper (Mackenzie), so a period that fits at 2000 m is too short
    # once the vehicle has risen to the surface: the check of a ping uses its own pose.
    spec = _mapping_vehicle()
    fan = next(s for s in spec.sensors if s.name == "side_scan")
    deep = Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 2000.0))
    surface = Transform.identity()
    water = WaterSpec()
    depth = float(sensor_pose(deep, fan.mount.transform()).translation[2])
    c_deep = sound_speed_m_per_s(temperature_c=10.0, salinity_psu=35.0, depth_m=depth)
    period = math.ceil(2.0 * fan.range_max_m / c_deep * 1e9)
    fan = fan.model_copy(update={"schedule": fan.schedule.model_copy(update={"period_ns": period})})
    check = sensor_declarations("side_scan").check_water
    assert check(fan, water, deep, "auv/side_scan") is None
    with pytest.raises(ValueError, match=r"^auv/side_scan\.schedule\.period_ns"):
        check(fan, water, surface, "auv/side_scan")
    context = SampleContext(
        sensor_id="auv/side_scan",
        sample_index=0,
        time_ns=0,
        kinematics=BodyKinematics(T_world_body=surface),
        scene=Scene([]),
        root_seed=0,
        water=water,
        backend="reference",
        device="cpu",
    )
    with pytest.raises(ValueError, match=rf"^auv/side_scan\.schedule\.period_ns.*got {period} ns$"):
        sample_sensor(fan, context)


class _PickyIMU:
    """The registered IMU, with a ``check_water`` that refuses water warmer than 20 °C."""

    def __init__(self, imu) -> None:
        self._imu = imu
        self.kind, self.spec_type, self.product_type = imu.kind, imu.spec_type, imu.product_type
        self.channels, self.reads_scene, self.reads_surfaces = imu.channels, False, False
        self.calls: list[str] = []

    def sample(self, spec, context):
        return self._imu.sample(spec, context)

    def check_water(self, spec, water, T_world_body, sensor_id) -> None:
        self.calls.append(sensor_id)
        if water.temperature_c > 20.0:
            raise ValueError(f"{sensor_id}.water: expected water at most 20 °C, got {water}")


def test_the_world_asks_every_kind_that_declares_check_water() -> None:
    from leviathan.sensors import register_sensor_kind, registered_sensor_kinds

    original = registered_sensor_kinds()["imu"]
    picky = register_sensor_kind(_PickyIMU(original), replace=True)
    try:
        spec = _mapping_vehicle()
        assert _world(spec).tick == 0
        assert picky.calls == ["auv/imu"]
        with pytest.raises(ValueError, match=r"^auv/imu\.water: expected water at most 20"):
            _world(spec, WaterSpec(temperature_c=25.0))
    finally:
        register_sensor_kind(original, replace=True)
