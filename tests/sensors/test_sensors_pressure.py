"""The pressure (depth) sensor: hydrostatics, density, keyed noise, MCAP, the analytic model."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from world_cases import TICK_NS, autopilot_setup, seabed_world

from leviathan.analytic import run_scenario, scenario_from_dict
from leviathan.catalogue import get_vehicle
from leviathan.datasets import DatasetRecorder
from leviathan.frames import Transform
from leviathan.sensors import (
    GRAVITY_NED,
    BodyKinematics,
    PressureNoiseModel,
    measure_pressure,
    seawater_density_kg_m3,
    sensor_declarations,
)
from leviathan.specs import MountSpec, PressureSpec, ScheduleSpec, WaterSpec
from leviathan.world import World

IDS = {"sensor_id": "auv/pressure", "sample_index": 3, "time_ns": 30_000_000}


def _spec(**update) -> PressureSpec:
    fields = {
        "name": "pressure",
        "schedule": ScheduleSpec(period_ns=100_000_000),
        "mount": MountSpec(translation_m=(0.2, 0.0, -0.1)),
        "hardware_note": "test",
        **update,
    }
    return PressureSpec(**fields)


def _at_depth(depth_m: float, pitch_rad: float = 0.0) -> BodyKinematics:
    return BodyKinematics(
        T_world_body=Transform.from_euler(0.0, pitch_rad, 0.3, translation=(5.0, 2.0, depth_m))
    )


def test_pressure_is_hydrostatic_at_the_port() -> None:
    water = WaterSpec(temperature_c=4.0, salinity_psu=34.5)
    kin = _at_depth(37.5, pitch_rad=0.2)
    sample = measure_pressure(_spec(), kin, **IDS, water=water)
    port = kin.T_world_body.apply_point(np.array([0.2, 0.0, -0.1]))
    rho = seawater_density_kg_m3(4.0, 34.5)
    expected = 101_325.0 + rho * float(GRAVITY_NED[2]) * float(port[2])
    assert sample["true_pressure_pa"].dtype == np.float64 and sample["true_pressure_pa"].shape == ()
    assert float(sample["true_pressure_pa"]) == expected
    assert float(sample["pressure_pa"]) == expected  # no noise declared
    assert float(sample["true_depth_m"]) == float(port[2])
    assert int(sample["submerged"]) == 1
    assert sample.metadata["density_kg_m3"] == rho


def test_density_matches_the_unesco_check_values() -> None:
    # UNESCO technical paper 44 (1983), one atmosphere, temperatures on IPTS-68.
    for s, t68, rho in ((0.0, 5.0, 999.96675), (35.0, 5.0, 1027.67547), (35.0, 25.0, 1023.34306)):
        assert seawater_density_kg_m3(t68 / 1.00024, s) == pytest.approx(rho, abs=1e-5)


def test_pressure_agrees_with_teos10_within_the_compressibility_bound() -> None:
    gsw = pytest.importorskip("gsw")
    # The latitude where TEOS-10's surface gravity equals the World's 9.81 m/s².
    lo, hi = 0.0, 90.0
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if gsw.grav(mid, 0) < 9.81 else (lo, mid)
    water = WaterSpec(temperature_c=0.0, salinity_psu=35.0)  # TEOS-10's standard ocean
    for depth in (1.0, 10.0, 100.0, 500.0, 1000.0):
        pose = Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, depth))
        kin = BodyKinematics(T_world_body=pose)
        spec = _spec(mount=MountSpec(translation_m=(0.0, 0.0, 0.0)))
        sample = measure_pressure(spec, kin, **IDS, water=water)
        gauge = float(sample["true_pressure_pa"]) - 101_325.0
        teos = float(gsw.p_from_z(-depth, lo)) * 1e4  # sea pressure [dbar] -> [Pa]
        relative = (gauge - teos) / teos
        # Constant density leaves out compression (pressure low by ~2.4e-6 per metre); the
        # two equations of state agree to ~2e-6 at the surface.
        assert -(2.5e-6 * depth + 5e-6) < relative < 5e-6, (depth, relative)


def test_a_port_above_the_surface_reads_the_surface_pressure() -> None:
    sample = measure_pressure(_spec(surface_pressure_pa=100_000.0), _at_depth(-0.5), **IDS)
    assert float(sample["true_pressure_pa"]) == 100_000.0
    assert int(sample["submerged"]) == 0
    assert float(sample["true_depth_m"]) < 0.0


def test_noise_is_keyed_and_needs_a_seed() -> None:
    spec = _spec(noise_std_pa=50.0)
    with pytest.raises(ValueError, match="seed"):
        measure_pressure(spec, _at_depth(20.0), **IDS)
    a = measure_pressure(spec, _at_depth(20.0), **IDS, seed=7)
    b = measure_pressure(spec, _at_depth(20.0), **IDS, seed=7)
    c = measure_pressure(spec, _at_depth(20.0), **{**IDS, "sample_index": 4}, seed=7)
    assert a.content_hash == b.content_hash != c.content_hash
    assert float(a["pressure_pa"]) != float(a["true_pressure_pa"])
    noise_free = measure_pressure(_spec(), _at_depth(20.0), **IDS, seed=7)
    assert noise_free.metadata["noise"][0]["root_seed"] is None  # the seed enters only when drawn


def test_many_samples_have_the_declared_noise_std() -> None:
    spec = _spec(noise_std_pa=50.0)
    errors = [
        float(s["pressure_pa"]) - float(s["true_pressure_pa"])
        for s in (
            measure_pressure(spec, _at_depth(20.0), **{**IDS, "sample_index": i}, seed=1)
            for i in range(4000)
        )
    ]
    assert abs(np.mean(errors)) < 3 * 50.0 / math.sqrt(4000)
    assert np.std(errors) == pytest.approx(50.0, rel=0.05)


def _world(period_ns: int = 5 * TICK_NS) -> World:
    doc = get_vehicle("reference_survey_vehicle").model_dump(mode="json")
    doc["sensors"] = [s for s in doc["sensors"] if s["kind"] in ("imu", "pressure")]
    for s in doc["sensors"]:
        if s["kind"] == "pressure":
            s["schedule"] = {"period_ns": period_ns}
    from leviathan.specs import VehicleSpec, spec_from_dict

    return seabed_world(
        autopilot_setup("auv", spec_from_dict(doc, VehicleSpec), depth_m=25.0),
        seed=9,
        tracing_backend="reference",
    )


def test_the_catalogue_survey_vehicle_carries_one() -> None:
    kinds = [s.kind for s in get_vehicle("reference_survey_vehicle").sensors]
    assert kinds.count("pressure") == 1


def test_a_world_samples_the_depth_it_commits() -> None:
    world = _world()
    groups = world.step(50)
    samples = [g.samples["auv/pressure"] for g in groups if "auv/pressure" in g.samples]
    assert [s.sample_index for s in samples] == list(range(11))
    depths = [float(s["true_depth_m"]) for s in samples]
    assert depths[-1] > depths[0]  # the autopilot dives towards 25 m
    state_depth = world.state()["vehicles"]["auv"]["depth_m"]
    mount_z = world.vehicle_spec("auv").sensor("pressure").mount.translation_m[2]
    assert depths[-1] == pytest.approx(state_depth + mount_z, abs=0.05)


def test_the_mcap_carries_fluid_pressure(tmp_path: Path) -> None:
    from rosbags.highlevel import AnyReader

    world = _world()
    with DatasetRecorder(world, mcap=tmp_path / "p.mcap", manifest={"job": "t"}) as recorder:
        groups = world.step(20)
        recorder.record(groups)
    samples = [g.samples["auv/pressure"] for g in groups if "auv/pressure" in g.samples]
    with AnyReader([tmp_path / "p.mcap"]) as reader:
        (connection,) = [c for c in reader.connections if c.topic == "/auv/pressure"]
        assert connection.msgtype == "sensor_msgs/msg/FluidPressure"
        messages = [
            reader.deserialize(raw, c.msgtype) for c, _, raw in reader.messages([connection])
        ]
    assert [m.fluid_pressure for m in messages] == [float(s["pressure_pa"]) for s in samples]
    std = world.vehicle_spec("auv").sensor("pressure").noise_std_pa
    assert {m.variance for m in messages} == {std * std}
    assert {m.header.frame_id for m in messages} == {"auv/pressure"}


def _scenario(noise: dict | None, *, seed: int = 3, ticks: int = 400) -> dict:
    return {
        "name": "depth",
        "step_ns": TICK_NS,
        "duration_ticks": ticks,
        "vehicles": [
            {
                "name": "auv",
                "spec": "reference_survey_vehicle",
                "position_ned_m": [0.0, 0.0, 30.0],
                "controller": {"kind": "direct_thrust", "commands_n": [0.0] * 5},
            }
        ],
        "sensors": [{"id": "auv/pressure", "seed": seed, "noise": noise}],
    }


def _stream(noise: dict | None, **kw):
    with pytest.warns(UserWarning, match="not recorded"):
        result = run_scenario(scenario_from_dict(_scenario(noise, **kw)))
    return result.sensors["auv/pressure"]


def test_the_analytic_model_is_reproducible_and_noise_free_without_one() -> None:
    clean = _stream(None)
    assert np.array_equal(clean.arrays["pressure_pa"], clean.arrays["true_pressure_pa"])
    noise = {"kind": "pressure", "noise_std_pa": 20.0, "offset_std_pa": 100.0}
    a, b = _stream(noise), _stream(noise)
    assert np.array_equal(a.arrays["pressure_pa"], b.arrays["pressure_pa"])
    assert not np.array_equal(a.arrays["pressure_pa"], _stream(noise, seed=4).arrays["pressure_pa"])
    assert isinstance(a.noise, PressureNoiseModel)


def test_the_analytic_offset_is_constant_and_the_white_noise_has_its_std() -> None:
    stream = _stream({"kind": "pressure", "noise_std_pa": 20.0, "offset_std_pa": 100.0}, ticks=2000)
    error = stream.errors()["pressure_pa"]
    assert error.shape == stream.arrays["time_ns"].shape
    assert np.std(error) == pytest.approx(20.0, rel=0.15)
    assert abs(np.mean(error)) > 3 * 20.0 / math.sqrt(error.size)  # the turn-on offset


def test_the_analytic_resolution_and_full_scale_are_applied() -> None:
    stream = _stream({"kind": "pressure", "resolution_pa": 250.0, "full_scale_pa": 1_000_000.0})
    measured = stream.arrays["pressure_pa"]
    assert np.array_equal(measured, 250.0 * np.round(stream.arrays["true_pressure_pa"] / 250.0))
    saturated = _stream({"kind": "pressure", "full_scale_pa": 200_000.0})
    assert np.all(saturated.arrays["pressure_pa"] == 200_000.0)  # 30 m is ~4 bar absolute
    assert np.all(saturated.arrays["saturated"] == 1)


def test_a_noise_model_of_another_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="is a pressure, so its noise model must be kind"):
        run_scenario(scenario_from_dict(_scenario({"kind": "imu"})))


def test_the_kind_declares_its_ros_message_and_channels() -> None:
    declared = sensor_declarations("pressure")
    assert declared.ros.topics[0].message_type == "sensor_msgs/msg/FluidPressure"
    assert set(declared.channels) == {
        "pressure_pa",
        "true_pressure_pa",
        "true_depth_m",
        "submerged",
    }
    assert declared.footprint(_spec()) is None and declared.reads_scene is False
