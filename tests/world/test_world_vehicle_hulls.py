"""Vehicles in the scene: each vehicle's hull is geometry the other vehicles' sensors see.

Expected values come from closed forms of the two poses (ray/plane distances of
the box faces), never from the code under test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from world_cases import TICK_NS, seabed_scene, small_survey_spec, with_sensor

from leviathan.catalogue import get_vehicle
from leviathan.controllers import Autopilot
from leviathan.specs import HullSpec, VehicleSpec
from leviathan.world import Environment, SceneObject, VehicleSetup, World

ROV_HALF = (0.225, 0.17, 0.125)  # the catalogue ROV hull: half of 0.45 x 0.34 x 0.25 m
SONAR_MOUNT = (0.85, 0.0, 0.06)  # the catalogue survey sonar, pitched 15 deg down
DVL_MOUNT = (-0.2, 0.0, 0.09)  # the catalogue survey DVL, boresight body +z
DEPTH = 20.0


def _hold(depth_m: float) -> Autopilot:
    return Autopilot(speed_m_per_s=0.0, depth_m=depth_m, heading_rad=0.0)


def _world(setups: list[VehicleSetup], *, backend: str = "reference", device=None) -> World:
    return World.create(
        vehicles=setups,
        environment=seabed_scene(mover=False),
        root_seed=5,
        step_ns=TICK_NS,
        tracing_backend=backend,
        tracing_device=device,
    )


def _first(world: World, sensor_id: str):
    """The sensor's sample at tick 0 (every catalogue schedule has phase 0)."""
    return world.step(1)[0].samples[sensor_id]


def _survey_spec() -> VehicleSpec:
    # One elevation sample per beam (at elevation 0) and an odd bearing count, so
    # each beam is one ray whose direction has a closed form.
    return small_survey_spec(bearing_count=41, elevation_sample_count=1, range_bin_count=600)


def _rov_ahead(range_m: float) -> tuple[float, float]:
    """North and depth of an ROV whose centre lies on the sonar boresight at ``range_m``."""
    pitch = math.radians(15.0)
    return (
        SONAR_MOUNT[0] + range_m * math.cos(pitch),
        DEPTH + SONAR_MOUNT[2] + range_m * math.sin(pitch),
    )


def _survey_and_rov(range_m: float = 8.0) -> list[VehicleSetup]:
    north, down = _rov_ahead(range_m)
    return [
        VehicleSetup("survey", _survey_spec(), _hold(DEPTH), position_ned_m=(0.0, 0.0, DEPTH)),
        VehicleSetup(
            "rov", get_vehicle("inspection_rov"), _hold(down), position_ned_m=(north, 0.0, down)
        ),
    ]


def _expected_rov_returns(frame, range_m: float) -> dict[int, float]:
    """Bearing index -> closed-form slant range to the ROV's rear face, for beams that hit it.

    The sonar ray of bearing b (elevation 0) is (cos15 cos b, sin b, sin15 cos b) in
    world NED for a level vehicle heading north; the ROV's rear face is the plane
    x = north - 0.225, hit at t = (x_face - x_sonar) / d_x where |y| <= 0.17 and
    |z - z_rov| <= 0.125 (beams within 0.5 % of an edge are left out).
    """
    north, down = _rov_ahead(range_m)
    c15, s15 = math.cos(math.radians(15.0)), math.sin(math.radians(15.0))
    expected = {}
    for i, b in enumerate(frame.metadata["bearing_rad"]):
        d = (c15 * math.cos(b), math.sin(b), s15 * math.cos(b))
        t = (north - ROV_HALF[0] - SONAR_MOUNT[0]) / d[0]
        y = t * d[1]
        z = DEPTH + SONAR_MOUNT[2] + t * d[2] - down
        if abs(y) < 0.995 * ROV_HALF[1] and abs(z) < 0.995 * ROV_HALF[2]:
            expected[i] = t
        elif abs(y) < 1.005 * ROV_HALF[1]:
            expected[i] = math.nan  # too close to an edge to call
    return expected


def test_vehicle_ahead_appears_at_closed_form_range_and_bearing() -> None:
    frame = _first(_world(_survey_and_rov()), "survey/sonar")
    md, ch = frame.metadata, frame.channels
    rov = md["object_ids"].index("rov")
    expected = _expected_rov_returns(frame, 8.0)
    hit = ch["primary_object"] == rov
    assert hit.any()
    bearings = set(np.nonzero(hit.any(axis=0))[0].tolist())
    sure = {i for i, t in expected.items() if not math.isnan(t)}
    assert sure <= bearings <= set(expected)
    for i in sure:
        (cell,) = np.nonzero(hit[:, i])[0]
        assert ch["primary_range_m"][cell, i] == pytest.approx(expected[i], abs=1e-9)
    # The middle beam is the boresight: bearing 0 exactly, at range 8 - 0.225 / cos 15.
    assert md["bearing_rad"][20] == 0.0
    assert expected[20] == pytest.approx(8.0 - ROV_HALF[0] / math.cos(math.radians(15.0)))


def test_vehicle_cells_carry_moving_flag_and_its_ids() -> None:
    frame = _first(_world(_survey_and_rov()), "survey/sonar")
    md, ch = frame.metadata, frame.channels
    hit = ch["primary_object"] == md["object_ids"].index("rov")
    # The environment's instances keep their indices; the hull follows them, before the sea.
    assert md["sea_surface_instance"] == 3
    assert set(ch["primary_instance"][hit].tolist()) == {2}
    assert set(ch["primary_moving"][hit].tolist()) == {1}
    assert set(ch["primary_semantic"][hit].tolist()) == {md["semantic_labels"].index("rov")}
    seabed = ch["primary_object"] == md["object_ids"].index("seabed")
    assert seabed.any() and set(ch["primary_moving"][seabed].tolist()) == {0}


def test_vehicle_in_sonar_is_bit_identical_on_reference_and_warp(devices) -> None:
    reference = _first(_world(_survey_and_rov()), "survey/sonar")
    assert (reference.channels["primary_object"] == 1).any()
    for device in devices:
        warp = _first(_world(_survey_and_rov(), backend="warp", device=device), "survey/sonar")
        assert warp.content_hash == reference.content_hash
        for name, array in reference.channels.items():
            assert_array_equal(warp.channels[name], array, err_msg=f"{device}: {name}")


def _camera_rov() -> VehicleSpec:
    return with_sensor(
        get_vehicle("inspection_rov"),
        "front_camera",
        width_px=64,
        height_px=48,
        fx_px=160.0,
        fy_px=160.0,
        cx_px=31.5,
        cy_px=23.5,
    )


def test_camera_sees_other_vehicle_silhouette_where_its_hull_projects() -> None:
    # Two ROVs heading north, the target 2.625 m ahead of the watcher: the target's
    # rear face (0.34 x 0.25 m) lies 2.2 m in front of the camera (mounted 0.2 m
    # forward) and normal to its axis, so it alone is the silhouette, and pixel
    # (u, v) sees it iff |u - cx| * 2.2 / fx <= 0.17 and |v - cy| * 2.2 / fy <= 0.125.
    depth_m = 2.625 - ROV_HALF[0] - 0.2
    setups = [
        VehicleSetup("watcher", _camera_rov(), _hold(DEPTH), position_ned_m=(0.0, 0.0, DEPTH)),
        VehicleSetup(
            "target", get_vehicle("inspection_rov"), _hold(DEPTH), position_ned_m=(2.625, 0, DEPTH)
        ),
    ]
    sample = _first(_world(setups), "watcher/front_camera")
    u = (np.arange(64) - 31.5) * depth_m / 160.0
    v = (np.arange(48) - 23.5) * depth_m / 160.0
    expected = (np.abs(v)[:, None] <= ROV_HALF[2]) & (np.abs(u)[None, :] <= ROV_HALF[1])
    target = sample.metadata["object_ids"].index("target")
    seen = sample.channels["object_id"] == target
    assert seen.dtype == np.bool_ and seen.shape == (48, 64)
    assert_array_equal(seen, expected)
    # Half extents 0.17 * 160 / 2.2 = 12.4 px and 0.125 * 160 / 2.2 = 9.1 px: 24 x 18 pixels.
    assert int(expected.sum()) == 24 * 18
    assert np.allclose(sample.channels["depth_z_m"][expected], depth_m, rtol=0, atol=1e-12)


def _rov_beneath_the_dvl(**rov_options) -> list[VehicleSetup]:
    """The survey holding depth, and the ROV whose top face is 0.3 m below its DVL."""
    rov_down = DEPTH + DVL_MOUNT[2] + 0.3 + ROV_HALF[2]
    return [
        VehicleSetup("survey", _survey_spec(), _hold(DEPTH), position_ned_m=(0.0, 0.0, DEPTH)),
        VehicleSetup(
            "rov",
            get_vehicle("inspection_rov"),
            _hold(rov_down),
            position_ned_m=(DVL_MOUNT[0], 0.0, rov_down),
            **rov_options,
        ),
    ]


def test_dvl_beams_lock_on_a_vehicle_passing_beneath() -> None:
    # The ROV's top face 0.3 m below the DVL, centred under it: every 30-degree beam
    # hits it at the slant range 0.3 / cos 30 (footprint 0.1225 m off axis in x and
    # y, inside the 0.45 x 0.34 m face).
    sample = _first(_world(_rov_beneath_the_dvl()), "survey/dvl")
    expected = 0.3 / math.cos(math.radians(30.0))
    assert_array_equal(sample.channels["beam_valid"], np.ones(4, dtype=np.uint8))
    assert np.allclose(sample.channels["beam_range_m"], expected, rtol=0, atol=1e-12)
    assert sample.channels["lock"] == 1
    surfaces = sample.metadata["beam_surfaces"]
    assert [dict(s) for s in surfaces] == [
        {"object_id": "rov", "semantic_label": "rov", "vehicle": "rov", "moving": True}
    ] * 4


def test_dvl_over_a_moving_vehicle_measures_the_velocity_relative_to_it() -> None:
    # The survey holds still; the ROV beneath it starts at 0.5 m/s ahead (world +x at
    # yaw 0). Every beam locks on the ROV, so the DVL reads the survey's velocity
    # relative to the ROV's hull (about -v_rov in the sensor frame).
    world = _world(_rov_beneath_the_dvl(velocity_body=(0.5, 0.0, 0.0, 0.0, 0.0, 0.0)))
    # The tick-0 committed kinematics, what the tick-0 sample reads.
    me, rov = world.body_kinematics("survey"), world.body_kinematics("rov")
    sample = world.step(1)[0].samples["survey/dvl"]
    assert sample.channels["lock"] == 1
    T_ws = sample.metadata["T_world_sensor"]
    R_ws, o = np.array(T_ws["rotation"]), np.array(T_ws["translation"])
    r_bs = np.array(DVL_MOUNT)
    R_bs = R_ws.T @ me.T_world_body.rotation  # sensor <- body
    v_ground = R_bs @ (me.velocity_body_m_s + np.cross(me.angular_velocity_body_rad_s, r_bs))
    dirs, rhs, surface = [], [], []
    for k, d_s in enumerate(sample.metadata["beam_directions_sensor"]):
        d_s = np.array(d_s)
        p = o + sample.channels["beam_range_m"][k] * (R_ws @ d_s)
        R = rov.T_world_body.rotation
        r = R.T @ (p - rov.T_world_body.translation)
        u = R @ (rov.velocity_body_m_s + np.cross(rov.angular_velocity_body_rad_s, r))
        dirs.append(d_s)
        rhs.append(d_s @ (v_ground - R_ws.T @ u))
        surface.append(u)
    expected = np.linalg.lstsq(np.array(dirs), np.array(rhs), rcond=None)[0]
    # The catalogue DVL is noisy: the noise-free channel carries the relative velocity.
    true = sample.channels["true_velocity_sensor_m_s"]
    np.testing.assert_allclose(true, expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(true, -(R_ws.T @ np.array([0.5, 0.0, 0.0])), rtol=0, atol=1e-12)
    track = sample.metadata["relative_track"]
    np.testing.assert_allclose(track["ground_velocity_sensor_m_s"], v_ground, atol=1e-14)
    np.testing.assert_allclose(track["beam_surface_velocity_world_m_s"], surface, atol=1e-14)


def test_dvl_reaches_the_seabed_when_no_vehicle_is_beneath() -> None:
    sample = _first(_world(_survey_and_rov()), "survey/dvl")
    expected = (30.0 - DEPTH - DVL_MOUNT[2]) / math.cos(math.radians(30.0))
    assert np.allclose(sample.channels["beam_range_m"], expected, rtol=0, atol=1e-9)
    assert {s["object_id"] for s in sample.metadata["beam_surfaces"]} == {"seabed"}


def test_vehicle_never_appears_in_its_own_sensors_by_default() -> None:
    world = _world(_survey_and_rov())
    group = world.step(1)[0]
    assert "survey" not in group.samples["survey/sonar"].metadata["object_ids"]
    assert "survey" not in group.samples["survey/dvl"].metadata["scene_hash"]
    assert "rov" not in group.samples["rov/front_camera"].metadata["object_ids"]
    assert "survey" in group.samples["rov/front_camera"].metadata["object_ids"]


def test_single_vehicle_samples_are_unchanged_by_its_hull() -> None:
    # A vehicle never sees itself, so declaring a hull changes none of its samples.
    spec = _survey_spec()
    bare = VehicleSpec.model_validate({k: v for k, v in spec.model_dump().items() if k != "hull"})
    assert spec.hull is not None and bare.hull is None

    def groups(vehicle: VehicleSpec) -> list[str]:
        setup = VehicleSetup("survey", vehicle, _hold(DEPTH), position_ned_m=(0.0, 0.0, DEPTH))
        return [g.content_hash for g in _world([setup]).step(25)]

    assert groups(spec) == groups(bare)


def test_opt_in_makes_a_vehicle_see_its_own_hull() -> None:
    spec = _survey_spec()
    seen = spec.model_copy(
        update={"hull": spec.hull.model_copy(update={"visible_to_own_sensors": True})}
    )
    setup = VehicleSetup("survey", seen, _hold(DEPTH), position_ned_m=(0.0, 0.0, DEPTH))
    frame = _first(_world([setup]), "survey/sonar")
    assert "survey" in frame.metadata["object_ids"]


def test_vehicle_named_like_an_environment_object_is_refused() -> None:
    setups = _survey_and_rov()
    env = Environment(objects=(*seabed_scene(mover=False).objects,))
    renamed = [
        setups[0],
        VehicleSetup("box", setups[1].spec, setups[1].controller, position_ned_m=(5.0, 0, 20.0)),
    ]
    with pytest.raises(ValueError, match=r"vehicles\['box'\]\.hull.*already an object"):
        World.create(vehicles=renamed, environment=env, step_ns=TICK_NS)


def test_edit_bringing_a_clashing_object_is_refused_and_changes_nothing() -> None:
    world = _world(_survey_and_rov())
    before = world.snapshot().content_hash
    clash = SceneObject(
        "rov", world.environment.objects[1].mesh, world.environment.objects[1].T_world_object, "x"
    )
    env = Environment(objects=(*world.environment.objects, clash))
    with pytest.raises(ValueError, match="already an object"):
        world.edit(environment=env)
    assert world.snapshot().content_hash == before


def test_mesh_hull_file_is_checked_against_its_sha256(tmp_path) -> None:
    import hashlib

    import trimesh

    path = tmp_path / "hull.stl"
    trimesh.creation.box(extents=(0.45, 0.34, 0.25)).export(path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    hull = HullSpec(shape="mesh", path=str(path), sha256=digest, material="test_lambert_bright")
    rov = get_vehicle("inspection_rov").model_copy(update={"hull": hull})
    setups = [_survey_and_rov()[0], VehicleSetup("rov", rov, _hold(22.1), position_ned_m=_pos())]
    frame = _first(_world(setups), "survey/sonar")
    assert "rov" in frame.metadata["object_ids"]
    wrong = rov.model_copy(update={"hull": hull.model_copy(update={"sha256": "0" * 64})})
    setups[1] = VehicleSetup("rov", wrong, _hold(22.1), position_ned_m=_pos())
    with pytest.raises(ValueError, match=r"vehicles\['rov'\]\.hull.*SHA-256"):
        _world(setups)


def _pos() -> tuple[float, float, float]:
    north, down = _rov_ahead(8.0)
    return (north, 0.0, down)


def test_analytic_image_of_a_worlds_vehicle_sees_the_other_vehicles_as_its_sonar_does() -> None:
    from leviathan.analytic import sonar_image

    world = _world(_survey_and_rov())
    canonical = _first(world, "survey/sonar")
    image = sonar_image(world=world, vehicle="survey", sensor="sonar", elevation_sample_count=1)
    frame = image.frame
    rov = frame.metadata["object_ids"].index("rov")
    hit = frame.channels["primary_object"] == rov
    # Same pose, same scene with the posed hull, same single-elevation rays: the same cells.
    assert hit.any()
    assert np.array_equal(hit, canonical.channels["primary_object"] == rov)
    assert np.array_equal(
        frame.channels["primary_range_m"][hit], canonical.channels["primary_range_m"][hit]
    )


def test_ticks_with_only_kinds_that_ignore_the_scene_pose_no_hulls(monkeypatch) -> None:
    import leviathan.world._sampling as sampling

    posed: list[set[str]] = []
    real = sampling.scenes_seen

    def counting(base, specs, poses, observers):
        posed.append(set(observers))
        return real(base, specs, poses, observers)

    monkeypatch.setattr(sampling, "scenes_seen", counting)
    world = _world(_survey_and_rov())
    groups = world.step(30)
    # The survey vehicle's IMU is due every tick; its sonar and DVL only on some. Hulls
    # are posed exactly at the ticks where a scene-reading sensor is due, for its vehicle.
    readers = [{k.split("/")[0] for k in g.samples if not k.endswith("/imu")} for g in groups]
    assert posed == [r for r in readers if r]
    assert any(not r for r in readers)
