"""DVL beams on a moving surface measure the sensor's velocity relative to that surface."""

from __future__ import annotations

import numpy as np
import pytest

from leviathan.catalogue import get_vehicle
from leviathan.frames import Transform
from leviathan.geometry import plane_mesh
from leviathan.materials import TEST_LAMBERT_MEDIUM
from leviathan.scene import Instance, Scene
from leviathan.sensors import BodyKinematics, SampleContext, SensorSample, measure_dvl
from leviathan.sensors._dvl import dvl_beam_directions
from leviathan.sensors._dvl_relative import solve_beam_velocity
from leviathan.specs import DVLSpec, WaterSpec

SELF_Z_M = 10.0
OTHER_Z_M = 14.0  # the other vehicle's top face, 4 m below: every beam hits it
SEABED_Z_M = 30.0
SELF_POS = (5.0, 2.0, SELF_Z_M)


def _spec() -> DVLSpec:
    spec = get_vehicle("reference_survey_vehicle").sensor("dvl")
    assert isinstance(spec, DVLSpec)
    return DVLSpec.model_validate({**spec.model_dump(), "velocity_noise_std_m_per_s": 0.0})


def _self_kin(yaw: float = 0.3) -> BodyKinematics:
    return BodyKinematics(
        T_world_body=Transform.from_euler(0.0, 0.0, yaw, translation=SELF_POS),
        velocity_body_m_s=(1.5, 0.1, 0.05),
        angular_velocity_body_rad_s=(0.01, -0.02, 0.03),
    )


def _other_pose() -> Transform:
    # The hull frame's origin (its CG) sits 0.5 m below the face the beams hit.
    return Transform.from_euler(0.0, 0.0, 0.4, translation=(6.0, 1.0, OTHER_Z_M + 0.5))


def _hull(T_world_other: Transform, *, size: float = 200.0, center_y: float = 0.0) -> Instance:
    mesh = plane_mesh(size, size, center=(0.0, center_y, -0.5))
    return Instance(
        "other", mesh, T_world_other, "rov", TEST_LAMBERT_MEDIUM, moving=True, vehicle="other"
    )


def _seabed() -> Instance:
    mesh = plane_mesh(1000.0, 1000.0, center=(0.0, 0.0, SEABED_Z_M))
    return Instance("seabed", mesh, Transform.identity(), "seabed", TEST_LAMBERT_MEDIUM)


def _measure(scene: Scene, kin: BodyKinematics, surfaces=None) -> SensorSample:
    return measure_dvl(
        scene,
        _spec(),
        kin,
        sensor_id="auv/dvl",
        sample_index=3,
        time_ns=300,
        surface_kinematics=surfaces,
    )


def _closed_form(sample: SensorSample, kin: BodyKinematics, surfaces: dict) -> np.ndarray:
    """Independent least squares: per-beam hit points, surface velocities v + ω × r
    (numpy cross products), radial Doppler and numpy.linalg.lstsq."""
    spec = _spec()
    mount = spec.mount.transform()
    T_ws = kin.T_world_body.matrix @ mount.matrix
    R_ws, o = T_ws[:3, :3], T_ws[:3, 3]
    r_bs = mount.translation
    v_ground = mount.rotation.T @ (
        kin.velocity_body_m_s + np.cross(kin.angular_velocity_body_rad_s, r_bs)
    )
    dirs = dvl_beam_directions(spec)
    rows, rhs = [], []
    for k in range(spec.beam_count):
        if not sample["beam_valid"][k]:
            continue
        p = o + sample["beam_range_m"][k] * (R_ws @ dirs[k])
        obj = "other" if sample["beam_instance"][k] == 1 else "seabed"
        if obj in surfaces:
            s = surfaces[obj]
            R = s.T_world_body.rotation
            r = R.T @ (p - s.T_world_body.translation)
            u = R @ (s.velocity_body_m_s + np.cross(s.angular_velocity_body_rad_s, r))
        else:
            u = np.zeros(3)
        rows.append(dirs[k])
        rhs.append(dirs[k] @ (v_ground - R_ws.T @ u))
    return np.linalg.lstsq(np.array(rows), np.array(rhs), rcond=None)[0]


def test_all_beams_on_a_translating_hull_measure_the_velocity_difference() -> None:
    kin = _self_kin()
    other = BodyKinematics(T_world_body=_other_pose(), velocity_body_m_s=(0.7, -0.3, 0.2))
    scene = Scene([_seabed(), _hull(other.T_world_body)])
    ground = _measure(scene, kin)
    sample = _measure(scene, kin, {"other": other})
    assert sample["lock"] == 1
    np.testing.assert_array_equal(sample["beam_instance"], np.ones(4, dtype=np.int32))
    # v_self - v_other, the other's world velocity rotated into the sensor frame.
    R_ws = (kin.T_world_body.matrix @ _spec().mount.transform().matrix)[:3, :3]
    v_other_world = other.T_world_body.rotation @ other.velocity_body_m_s
    expected = ground["true_velocity_sensor_m_s"] - R_ws.T @ v_other_world
    for channel in ("velocity_sensor_m_s", "true_velocity_sensor_m_s"):
        assert sample[channel].dtype == np.float64 and sample[channel].shape == (3,)
        np.testing.assert_allclose(sample[channel], expected, rtol=0, atol=1e-12)
    track = sample.metadata["relative_track"]
    np.testing.assert_array_equal(
        track["ground_velocity_sensor_m_s"], ground["true_velocity_sensor_m_s"]
    )
    for u in track["beam_surface_velocity_world_m_s"]:
        np.testing.assert_allclose(u, v_other_world, rtol=0, atol=1e-15)


def test_rotating_hull_adds_omega_cross_r_at_each_hit_point() -> None:
    kin = _self_kin()
    other = BodyKinematics(
        T_world_body=_other_pose(),
        velocity_body_m_s=(0.2, 0.1, 0.0),
        angular_velocity_body_rad_s=(0.05, -0.08, 0.3),
    )
    scene = Scene([_seabed(), _hull(other.T_world_body)])
    sample = _measure(scene, kin, {"other": other})
    spec = _spec()
    T_ws = kin.T_world_body.matrix @ spec.mount.transform().matrix
    dirs_world = dvl_beam_directions(spec) @ T_ws[:3, :3].T
    R = other.T_world_body.rotation
    omega_world = R @ other.angular_velocity_body_rad_s
    surface = sample.metadata["relative_track"]["beam_surface_velocity_world_m_s"]
    for k in range(4):
        p = T_ws[:3, 3] + sample["beam_range_m"][k] * dirs_world[k]
        r = p - other.T_world_body.translation  # from the CG, in world NED
        expected = R @ other.velocity_body_m_s + np.cross(omega_world, r)
        np.testing.assert_allclose(surface[k], expected, rtol=0, atol=1e-13)
    # The spin makes the beams disagree: the solution is no single surface velocity.
    assert len({tuple(np.round(u, 9)) for u in surface}) == 4
    np.testing.assert_allclose(
        sample["velocity_sensor_m_s"],
        _closed_form(sample, kin, {"other": other}),
        rtol=0,
        atol=1e-12,
    )


def test_beams_split_between_hull_and_seabed_give_the_least_squares_solution() -> None:
    kin = _self_kin(yaw=0.0)
    # A hull whose face covers only world y > 2 (north of the DVL in y), at yaw 0.
    T_other = Transform(np.eye(3), (6.0, 2.0, OTHER_Z_M + 0.5))
    other = BodyKinematics(
        T_world_body=T_other,
        velocity_body_m_s=(0.9, -0.4, 0.1),
        angular_velocity_body_rad_s=(0.0, 0.0, 0.1),
    )
    scene = Scene([_seabed(), _hull(T_other, size=100.0, center_y=50.0)])
    sample = _measure(scene, kin, {"other": other})
    hit = sample["beam_instance"].tolist()
    assert sorted(hit) == [0, 0, 1, 1], hit
    radial = sample.metadata["relative_track"]["beam_radial_velocity_m_s"]
    assert all(m is not None for m in radial)
    np.testing.assert_allclose(
        sample["velocity_sensor_m_s"],
        _closed_form(sample, kin, {"other": other}),
        rtol=0,
        atol=1e-12,
    )
    # Seabed beams use a static surface.
    surface = sample.metadata["relative_track"]["beam_surface_velocity_world_m_s"]
    assert [list(surface[k]) for k in range(4) if hit[k] == 0] == [[0.0, 0.0, 0.0]] * 2


@pytest.mark.parametrize("case", ["no_mapping", "static_hit", "unknown_motion", "not_hit"])
def test_static_surfaces_keep_the_ground_track_bit_for_bit(case: str) -> None:
    kin = _self_kin()
    other = BodyKinematics(T_world_body=_other_pose(), velocity_body_m_s=(0.7, -0.3, 0.2))
    seabed_only = Scene([_seabed()])
    reference = _measure(seabed_only, kin)
    scene, surfaces = {
        "no_mapping": (seabed_only, None),
        "static_hit": (seabed_only, {"seabed": other}),  # seabed is not moving
        "unknown_motion": (Scene([_seabed(), _hull(other.T_world_body)]), {}),
        "not_hit": (seabed_only, {"other": other}),
    }[case]
    sample = _measure(scene, kin, surfaces)
    assert "relative_track" not in sample.metadata
    np.testing.assert_array_equal(sample["velocity_sensor_m_s"], reference["velocity_sensor_m_s"])
    if scene is seabed_only:
        assert sample.content_hash == reference.content_hash


def test_no_lock_over_a_moving_surface_takes_no_relative_track() -> None:
    kin = _self_kin()
    other = BodyKinematics(T_world_body=_other_pose(), velocity_body_m_s=(0.7, -0.3, 0.2))
    # A hull far beyond the range window: nothing valid, no lock.
    far = Transform(np.eye(3), (6.0, 1.0, 500.0))
    sample = _measure(Scene([_hull(far)]), kin, {"other": other})
    assert sample["lock"] == 0 and "relative_track" not in sample.metadata
    assert np.isnan(sample["velocity_sensor_m_s"]).all()


def test_cofactor_solve_matches_numpy_least_squares() -> None:
    rng = np.random.default_rng(11)
    dirs = rng.normal(size=(5, 3))
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    radial = rng.normal(size=5)
    solution = solve_beam_velocity(dirs.tolist(), radial.tolist())
    expected = np.linalg.lstsq(dirs, radial, rcond=None)[0]
    np.testing.assert_allclose(solution, expected, rtol=0, atol=1e-12)
    assert solve_beam_velocity([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], [1.0, 2.0]) is None


def test_context_carries_read_only_surface_kinematics_and_refuses_bad_ones() -> None:
    kin = _self_kin()
    source = {"other": kin}
    base = dict(
        sensor_id="auv/dvl",
        sample_index=0,
        time_ns=0,
        kinematics=kin,
        scene=Scene([_seabed()]),
        root_seed=1,
        water=WaterSpec(),
        backend="reference",
        device="cpu",
    )
    assert dict(SampleContext(**base).surface_kinematics) == {}
    context = SampleContext(**base, surface_kinematics=source)
    source["x"] = kin  # the context keeps its own copy
    assert list(context.surface_kinematics) == ["other"]
    with pytest.raises(TypeError):
        context.surface_kinematics["y"] = kin  # type: ignore[index]
    with pytest.raises(TypeError, match="surface_kinematics"):
        SampleContext(**base, surface_kinematics={"other": (1.0, 0.0, 0.0)})
    with pytest.raises(TypeError, match="surface_kinematics"):
        SampleContext(**base, surface_kinematics=[kin])
