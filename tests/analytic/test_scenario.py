"""Scenario runs: canonical physics underneath (bit for bit), reproducible noise, outputs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from leviathan.analytic import canonical_world, load_scenario, run_scenario, scenario_from_dict
from leviathan.catalogue import get_vehicle
from tests.analytic.scenario_cases import DVL_NOISE, IMU_NOISE, scenario, survey_spec

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "survey_stern_failure.toml"


def two_vehicles(**overrides):
    rov = get_vehicle("inspection_rov").model_dump(mode="json")
    rov["sensors"] = []
    vehicles = [
        {
            "name": "survey",
            "spec": survey_spec("imu"),
            "position_ned_m": [-14.0, -8.0, 20.0],
            "controller": {
                "kind": "lawnmower",
                "origin_ne_m": [-12.0, -8.0],
                "heading_rad": 0.0,
                "leg_length_m": 6.0,
                "leg_spacing_m": 4.0,
                "legs": 2,
                "depth_m": 20.0,
                "speed_m_per_s": 1.5,
                "acceptance_radius_m": 1.0,
            },
        },
        {
            "name": "inspector",
            "spec": rov,
            "position_ned_m": [4.0, 4.0, 27.0],
            "rpy_rad": [0.0, 0.0, 0.3],
            "controller": {
                "kind": "autopilot",
                "speed_m_per_s": 0.2,
                "depth_m": 27.5,
                "heading_rad": 0.3,
            },
        },
    ]
    water = {"current_ned_m_per_s": [0.05, 0.02, 0.0]}
    return scenario(
        vehicles=vehicles,
        environment={"scene": "flat_seabed", "water": water},
        duration_ticks=300,
        **overrides,
    )


def test_without_faults_and_noise_trajectories_equal_a_canonical_world_bit_for_bit() -> None:
    doc = scenario_from_dict(two_vehicles(sensors=[{"id": "survey/imu", "seed": 1}]))
    result = run_scenario(doc)
    world = canonical_world(doc)
    groups = world.step(doc.tick_count)
    for name in ("inspector", "survey"):
        run, track = result.vehicles[name], world.track_states(name)
        assert run.states.dtype == np.float64 and run.states.shape == (301, 13)
        np.testing.assert_array_equal(run.ticks, track.ticks)
        np.testing.assert_array_equal(run.time_ns, track.times_ns)
        np.testing.assert_array_equal(run.states[:, :3], track.position_ned_m)
        np.testing.assert_array_equal(run.states[:, 3:7], track.attitude_q)
        np.testing.assert_array_equal(run.states[:, 7:], track.velocity_body)
        np.testing.assert_array_equal(run.applied_command_n, run.command_n)
    # The recorded IMU is the canonical IMU, sampled from the same committed states.
    imu = [g.samples["survey/imu"] for g in groups if "survey/imu" in g.samples]
    stream = result.sensors["survey/imu"].arrays
    assert stream["time_ns"].tolist() == [s.time_ns for s in imu]
    world_rate = np.array([s.channels["true_angular_rate_sensor_rad_s"] for s in imu])
    world_force = np.array([s.channels["true_specific_force_sensor_m_s2"] for s in imu])
    np.testing.assert_array_equal(stream["true_angular_rate_sensor_rad_s"], world_rate)
    np.testing.assert_array_equal(stream["true_specific_force_sensor_m_s2"], world_force)
    np.testing.assert_array_equal(
        stream["angular_rate_sensor_rad_s"], stream["true_angular_rate_sensor_rad_s"]
    )


def noisy(seed_imu=7, seed_dvl=8, **overrides) -> dict:
    return scenario(
        sensors=[
            {"id": "auv/imu", "seed": seed_imu, "noise": IMU_NOISE},
            {"id": "auv/dvl", "seed": seed_dvl, "noise": DVL_NOISE},
        ],
        faults=[{"vehicle": "auv", "thruster": "stern", "kind": "dead", "time_ns": 500_000_000}],
        **overrides,
    )


_CHILD = """
import json, sys
import numpy as np
from leviathan.analytic import run_scenario, scenario_from_dict
result = run_scenario(scenario_from_dict(json.loads(sys.argv[1])))
np.savez(sys.argv[2], **{sid.replace("/", "__") + "__" + k: v
         for sid, s in result.sensors.items() for k, v in s.arrays.items()})
print(result.analytic_hash)
"""


def test_seeded_runs_are_identical_across_processes(tmp_path: Path) -> None:
    doc = noisy()
    hashes, files = [], []
    for i in range(2):
        path = tmp_path / f"run{i}.npz"
        out = subprocess.run(
            [sys.executable, "-c", _CHILD, json.dumps(doc), str(path)],
            check=True,
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        hashes.append(out.stdout.strip().splitlines()[-1])
        files.append(np.load(path))
    here = run_scenario(scenario_from_dict(doc))
    assert hashes[0] == hashes[1] == here.analytic_hash
    assert sorted(files[0].files) == sorted(files[1].files)
    for key in files[0].files:
        np.testing.assert_array_equal(files[0][key], files[1][key])
    np.testing.assert_array_equal(
        files[0]["auv__imu__angular_rate_sensor_rad_s"],
        here.sensors["auv/imu"].arrays["angular_rate_sensor_rad_s"],
    )


def test_unseeded_runs_differ_and_say_so_with_replayable_entropy() -> None:
    doc = noisy(seed_imu=None, seed_dvl=None)
    a = run_scenario(scenario_from_dict(doc))
    b = run_scenario(scenario_from_dict(doc))
    rate_a = a.sensors["auv/imu"].arrays["angular_rate_sensor_rad_s"]
    assert not np.array_equal(rate_a, b.sensors["auv/imu"].arrays["angular_rate_sensor_rad_s"])
    assert a.analytic_hash != b.analytic_hash
    # The trajectories are the same: noise never feeds back into the canonical physics.
    np.testing.assert_array_equal(a.vehicles["auv"].states, b.vehicles["auv"].states)
    manifest = a.manifest()["sensors"]["auv/imu"]["generator"]
    assert manifest["seed"] == "unseeded"
    replay = run_scenario(scenario_from_dict(noisy(seed_imu=int(manifest["entropy"]), seed_dvl=1)))
    np.testing.assert_array_equal(
        replay.sensors["auv/imu"].arrays["angular_rate_sensor_rad_s"], rate_a
    )


def test_one_sensors_draws_never_shift_anothers() -> None:
    both = run_scenario(scenario_from_dict(noisy()))
    alone_doc = noisy()
    alone_doc["sensors"] = alone_doc["sensors"][:1]
    alone = run_scenario(scenario_from_dict(alone_doc))
    reseeded = run_scenario(scenario_from_dict(noisy(seed_dvl=999)))
    for other in (alone, reseeded):
        for key, value in both.sensors["auv/imu"].arrays.items():
            np.testing.assert_array_equal(other.sensors["auv/imu"].arrays[key], value)
    assert not np.array_equal(
        both.sensors["auv/dvl"].arrays["beam_velocity_m_s"],
        reseeded.sensors["auv/dvl"].arrays["beam_velocity_m_s"],
    )


def test_outputs_hold_streams_manifest_and_plots(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = run_scenario(scenario_from_dict(noisy()), out=out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["tier"] == "analytic"
    assert manifest["analytic_hash"] == result.analytic_hash
    assert manifest["faults"][0]["effective_tick"] == 50
    assert manifest["faults"][0]["effective_time_ns"] == 500_000_000
    assert manifest["sensors"]["auv/imu"]["generator"]["seed"] == 7
    assert manifest["scenario"]["name"] == "case"
    with np.load(out / manifest["sensors"]["auv/dvl"]["file"]) as dvl:
        np.testing.assert_array_equal(
            dvl["velocity_sensor_m_s"], result.sensors["auv/dvl"].arrays["velocity_sensor_m_s"]
        )
    with np.load(out / "tracks" / "auv.npz") as track:
        np.testing.assert_array_equal(track["states"], result.vehicles["auv"].states)
    for plot in manifest["plots"]:
        assert (out / plot).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert {"plots/track.png", "plots/depth_thrust.png", "plots/error_auv__imu.png"} <= set(
        manifest["plots"]
    )
    # A rerun replaces its own previous output; a foreign folder is refused, untouched.
    run_scenario(scenario_from_dict(noisy()), out=out)
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "keep.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="not empty"):
        run_scenario(scenario_from_dict(noisy()), out=foreign)
    assert [p.name for p in foreign.iterdir()] == ["keep.txt"]


def test_cli_runs_a_scenario_file_as_the_library_does(tmp_path: Path) -> None:
    doc = noisy(duration_ticks=40)
    path = tmp_path / "short.json"
    path.write_text(json.dumps(doc))
    out = tmp_path / "out"
    command = [sys.executable, "-m", "leviathan", "scenario", "run", "--quiet"]
    done = subprocess.run(
        [*command, str(path), "--out", str(out)], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert "fault auv/stern dead: effective on tick 50" in done.stdout
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["analytic_hash"] == run_scenario(scenario_from_dict(doc)).analytic_hash
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**doc, "step_ns": "10"}))
    refused = tmp_path / "refused"
    done = subprocess.run(
        [*command, str(bad), "--out", str(refused)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 2 and "step_ns" in done.stderr
    assert not refused.exists()


def test_the_shipped_example_is_a_seeded_survey_with_a_thruster_failing_mid_run() -> None:
    doc = load_scenario(EXAMPLE)
    assert doc.environment.scene == "survey"
    assert [f.kind for f in doc.faults] == ["dead"]
    assert 0 < doc.faults[0].time_ns < doc.tick_count * doc.step_ns
    assert all(s.seed is not None and s.noise is not None for s in doc.sensors)
    assert {s.id for s in doc.sensors} == {"survey/imu", "survey/dvl"}


def test_a_recorded_sonar_gets_the_analytic_sonar_noise_from_its_own_generator() -> None:
    from leviathan.analytic import sensor_generator
    from leviathan.sensors import SonarNoiseModel, apply_sonar_noise

    spec = survey_spec("sonar")
    spec["sensors"][0].update(bearing_count=16, elevation_sample_count=8, range_bin_count=32)
    noise = {"kind": "imaging_sonar", "speckle": True, "gain_db": 3.0}
    doc = scenario(duration_ticks=40, sensors=[{"id": "auv/sonar", "seed": 4, "noise": noise}])
    doc["vehicles"][0]["spec"] = spec
    stream = run_scenario(scenario_from_dict(doc)).sensors["auv/sonar"].arrays
    assert stream["linear_return"].shape == (3, 32, 16)  # pings at 0, 0.2 and 0.4 s
    generator, _ = sensor_generator("auv/sonar", 4)
    model = SonarNoiseModel(speckle=True, gain_db=3.0)
    for ping in range(3):
        expected = apply_sonar_noise(stream["true_linear_return"][ping], model, generator)
        np.testing.assert_array_equal(stream["linear_return"][ping], expected)
