"""Batched learning-tier observations (float32 Warp ray casts) against analytic answers.

Every test taking ``device`` runs on each Warp device present (CPU always; see
tests/conftest.py). The state is written straight into :class:`BatchedVehicles`'
device arrays, the observation is read back and compared with the documented
layout of :class:`Sensing`:

* copies of the state are exact (``assert_array_equal``);
* derived values (attitude sin/cos, altitude, sonar ranges) are float32
  computations and are compared with float64 references within a tolerance
  stated, with its reason, next to each.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import warp as wp

from leviathan.catalogue import get_vehicle
from leviathan.frames import euler_from_rotation, quaternion_from_rotation, rotation_from_euler
from leviathan.geometry import seabed_mesh
from leviathan.learning.sensing import (
    OBS_ALTITUDE,
    OBS_ANGULAR_VELOCITY,
    OBS_BASE_SIZE,
    OBS_BOTTOM_VELOCITY,
    OBS_DEPTH,
    OBS_DVL_VALID,
    OBS_LINEAR_VELOCITY,
    OBS_QUATERNION,
    OBS_ROLL_SIN,
    OBS_SONAR,
    Sensing,
    Terrain,
)
from leviathan.learning.vehicles import BatchedVehicles

VEHICLE = get_vehicle("reference_survey_vehicle")
PLANE_DEPTH_M = 30.0
PLANE_HALF_SIZE_M = 100.0

# Ray/plane distances over a plane spanning +/-100 m: Warp's float32 ray-triangle test rounds
# products of coordinates up to ~100 m, so the hit distance carries a few ulp of 100 m
# (ulp = 7.6e-6 m). Measured worst error over 2000 random poses: 1.05e-5 m (1.4 ulp); the
# bound is 4 ulp, about three times that.
DISTANCE_TOLERANCE_M = 4.0 * float(np.spacing(np.float32(PLANE_HALF_SIZE_M)))


def _plane(
    depth_m: float = PLANE_DEPTH_M,
    north_m: tuple[float, float] = (-PLANE_HALF_SIZE_M, PLANE_HALF_SIZE_M),
    east_m: tuple[float, float] = (-PLANE_HALF_SIZE_M, PLANE_HALF_SIZE_M),
    device: str = "cpu",
) -> Terrain:
    (n0, n1), (e0, e1) = north_m, east_m
    vertices = np.array(
        [[n0, e0, depth_m], [n1, e0, depth_m], [n1, e1, depth_m], [n0, e1, depth_m]]
    )
    return Terrain.from_mesh(vertices, np.array([[0, 1, 2], [0, 2, 3]]), device=device)


def _quaternions(euler_rad: np.ndarray) -> np.ndarray:
    return np.array(
        [quaternion_from_rotation(rotation_from_euler(*e)) for e in euler_rad], dtype=np.float32
    )


def _vehicles(
    device: str,
    position: np.ndarray,
    *,
    quaternion: np.ndarray | None = None,
    linear: np.ndarray | None = None,
    angular: np.ndarray | None = None,
) -> BatchedVehicles:
    n = len(position)
    vehicles = BatchedVehicles(VEHICLE, n, device=device)
    vehicles.position_ned.assign(np.asarray(position, dtype=np.float32))
    if quaternion is not None:
        vehicles.attitude_q.assign(quaternion)
    if linear is not None:
        vehicles.linear_velocity.assign(np.asarray(linear, dtype=np.float32))
    if angular is not None:
        vehicles.angular_velocity.assign(np.asarray(angular, dtype=np.float32))
    return vehicles


def _observe(sensing: Sensing) -> np.ndarray:
    out = wp.zeros(
        (sensing.num_envs, sensing.observation_size), dtype=wp.float32, device=sensing.device
    )
    sensing.observe(out)
    return out.numpy()


def _random_state(seed: int, n: int) -> dict[str, np.ndarray]:
    """A random state of ``n`` vehicles, keyed like :func:`_vehicles`'s arguments."""
    rng = np.random.default_rng(seed)
    euler = np.c_[rng.uniform(-0.5, 0.5, n), rng.uniform(-0.5, 0.5, n), rng.uniform(-3, 3, n)]
    return {
        "position": np.c_[rng.uniform(-50, 50, (n, 2)), rng.uniform(1, 28, n)].astype(np.float32),
        "quaternion": _quaternions(euler),
        "linear": rng.normal(0, 1, (n, 3)).astype(np.float32),
        "angular": rng.normal(0, 0.3, (n, 3)).astype(np.float32),
    }


# --------------------------------------------------------------------------- layout


@pytest.mark.parametrize("sonar", [None, (6, 3)])
def test_observation_has_the_documented_size_dtype_and_shape(device: str, sonar) -> None:
    sensing = Sensing(_vehicles(device, np.zeros((5, 3))), _plane(device=device), sonar=sonar)
    expected = OBS_BASE_SIZE + (0 if sonar is None else 2 * sonar[0] * sonar[1])
    assert sensing.observation_size == expected
    obs = _observe(sensing)
    assert obs.dtype == np.float32
    assert obs.shape == (5, expected)


def test_state_columns_are_exact_copies_of_the_vehicle_state(device: str) -> None:
    state = _random_state(3, 32)
    vehicles = _vehicles(device, **state)
    obs = _observe(Sensing(vehicles, None))
    lv, av, qu = OBS_LINEAR_VELOCITY, OBS_ANGULAR_VELOCITY, OBS_QUATERNION
    np.testing.assert_array_equal(obs[:, lv : lv + 3], state["linear"])
    np.testing.assert_array_equal(obs[:, av : av + 3], state["angular"])
    np.testing.assert_array_equal(obs[:, qu : qu + 4], state["quaternion"])
    np.testing.assert_array_equal(obs[:, OBS_DEPTH], state["position"][:, 2])


def test_attitude_sin_cos_match_the_euler_angles_of_the_stored_quaternion(device: str) -> None:
    state = _random_state(4, 64)
    vehicles = _vehicles(device, state["position"], quaternion=state["quaternion"])
    obs = _observe(Sensing(vehicles, None))
    reference = []
    for q in state["quaternion"].astype(np.float64):
        w, x, y, z = q / np.linalg.norm(q)
        rotation = np.array(
            [
                [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
            ]
        )
        roll, pitch, yaw = euler_from_rotation(rotation)
        reference.append([f(a) for a in (roll, pitch, yaw) for f in (math.sin, math.cos)])
    # float32 rotation entries, atan2, sin and cos each round to ~1 eps (1.2e-7); measured
    # worst 2.1e-7 before rounding the quaternion, so 1e-6 is a few times the error.
    np.testing.assert_allclose(
        obs[:, OBS_ROLL_SIN : OBS_ROLL_SIN + 6], reference, rtol=0, atol=1e-6
    )


# --------------------------------------------------------------------------- DVL


def test_altitude_of_a_level_vehicle_over_a_flat_plane_is_the_depth_difference(
    device: str,
) -> None:
    position = np.array([[0, 0, 1], [10, -20, 5], [-40, 30, 17.5], [50, 50, 29]], np.float32)
    sensing = Sensing(_vehicles(device, position), _plane(device=device))
    altitude = sensing.altitude_numpy()
    assert altitude.dtype == np.float32 and altitude.shape == (4,)
    np.testing.assert_allclose(
        altitude,
        PLANE_DEPTH_M - position[:, 2].astype(np.float64),
        rtol=0,
        atol=DISTANCE_TOLERANCE_M,
    )


def test_altitude_of_a_tilted_vehicle_is_still_the_depth_difference(device: str) -> None:
    state = _random_state(5, 64)
    vehicles = _vehicles(device, state["position"], quaternion=state["quaternion"])
    altitude = Sensing(vehicles, _plane(device=device)).altitude_numpy()
    np.testing.assert_allclose(
        altitude,
        PLANE_DEPTH_M - state["position"][:, 2].astype(np.float64),
        rtol=0,
        atol=DISTANCE_TOLERANCE_M,
    )


def test_no_beam_hit_gives_the_range_sentinel_without_lock(device: str) -> None:
    # Env 0: the plane (100 m down) is beyond 60 m of slant range; env 1: off the plane.
    position = np.array([[0, 0, 0], [500, 0, 0]], np.float32)
    vehicles = _vehicles(device, position, linear=np.ones((2, 3)))
    obs = _observe(Sensing(vehicles, _plane(depth_m=100.0, device=device), dvl_range_m=60.0))
    np.testing.assert_array_equal(obs[:, OBS_ALTITUDE], np.float32(60.0))
    np.testing.assert_array_equal(obs[:, OBS_DVL_VALID], 0.0)
    np.testing.assert_array_equal(obs[:, OBS_BOTTOM_VELOCITY : OBS_BOTTOM_VELOCITY + 3], 0.0)


def test_bottom_velocity_is_the_body_velocity_with_lock(device: str) -> None:
    state = _random_state(6, 16)
    vehicles = _vehicles(
        device, state["position"], quaternion=state["quaternion"], linear=state["linear"]
    )
    obs = _observe(Sensing(vehicles, _plane(device=device)))
    np.testing.assert_array_equal(obs[:, OBS_DVL_VALID], 1.0)
    np.testing.assert_array_equal(
        obs[:, OBS_BOTTOM_VELOCITY : OBS_BOTTOM_VELOCITY + 3], state["linear"]
    )


def test_two_beams_on_the_bottom_give_an_altitude_but_no_lock(device: str) -> None:
    # The plane covers north >= 0 only: of a level, north-facing vehicle at north 0 only the
    # two forward beams (azimuths 45 and 315 deg) reach it.
    position = np.array([[0.0, 0.0, 10.0]], np.float32)
    terrain = _plane(north_m=(0.0, 100.0), device=device)
    obs = _observe(Sensing(_vehicles(device, position, linear=np.ones((1, 3))), terrain))
    np.testing.assert_allclose(
        obs[0, OBS_ALTITUDE], PLANE_DEPTH_M - 10.0, rtol=0, atol=DISTANCE_TOLERANCE_M
    )
    assert obs[0, OBS_DVL_VALID] == 0.0
    np.testing.assert_array_equal(obs[0, OBS_BOTTOM_VELOCITY : OBS_BOTTOM_VELOCITY + 3], 0.0)


# --------------------------------------------------------------------------- sonar


def test_sonar_image_matches_an_analytic_plane(device: str) -> None:
    bearings, elevations, fov_h, fov_v, tilt, range_m = 12, 5, 1.4, 0.5, 0.4, 50.0
    yaw = np.array([0.0, 0.7, -2.0])
    position = np.array([[0, 0, 12], [5, -3, 20], [-10, 10, 26]], np.float32)
    quaternion = _quaternions(np.c_[np.zeros(3), np.zeros(3), yaw])
    sensing = Sensing(
        _vehicles(device, position, quaternion=quaternion),
        _plane(device=device),
        sonar=(bearings, elevations),
        sonar_fov_rad=(fov_h, fov_v),
        sonar_range_m=range_m,
        sonar_tilt_rad=tilt,
    )
    obs = _observe(sensing)
    # Ray directions from the documented grid; a yaw-only attitude keeps each ray's down
    # component, so the plane is reached at t = (D - z) / d_z with |cos incidence| = d_z.
    el = tilt + fov_v * ((np.arange(elevations) + 0.5) / elevations - 0.5)
    az = fov_h * ((np.arange(bearings) + 0.5) / bearings - 0.5)
    down = np.repeat(np.sin(el)[:, None], bearings, axis=1)  # [E, B]
    assert np.all(down > 0)
    t = (PLANE_DEPTH_M - position[:, 2, None, None].astype(np.float64)) / down  # [N, E, B]
    assert np.all(np.abs(t - range_m) > 1e-2), "a ray ends too near the range limit to test"
    hit = t <= range_m
    assert hit.any() and (~hit).any()
    image = obs[:, OBS_SONAR:].reshape(3, 2, elevations, bearings)
    np.testing.assert_array_equal(image[:, 0][~hit], 1.0)
    np.testing.assert_array_equal(image[:, 1][~hit], 0.0)
    np.testing.assert_allclose(
        image[:, 0][hit], (t / range_m)[hit], rtol=0, atol=DISTANCE_TOLERANCE_M / range_m
    )
    # |n . d| in float32 from a float32 direction: a few eps.
    np.testing.assert_allclose(
        image[:, 1][hit], np.broadcast_to(down, t.shape)[hit], rtol=0, atol=1e-6
    )
    directions = np.stack(
        [
            np.cos(el)[:, None] * np.cos(az),
            np.cos(el)[:, None] * np.sin(az),
            np.repeat(np.sin(el)[:, None], bearings, axis=1),
        ],
        axis=-1,
    )
    np.testing.assert_allclose(sensing.sonar_ray_directions_body, directions, rtol=0, atol=1e-7)


def test_without_terrain_nothing_is_hit(device: str) -> None:
    sensing = Sensing(_vehicles(device, np.zeros((3, 3))), None, sonar=(4, 2), dvl_range_m=45.0)
    obs = _observe(sensing)
    np.testing.assert_array_equal(obs[:, OBS_ALTITUDE], np.float32(45.0))
    np.testing.assert_array_equal(obs[:, OBS_DVL_VALID], 0.0)
    np.testing.assert_array_equal(obs[:, OBS_SONAR : OBS_SONAR + 8], 1.0)
    np.testing.assert_array_equal(obs[:, OBS_SONAR + 8 :], 0.0)


# --------------------------------------------------------------------------- determinism


def test_observations_are_bit_identical_on_repeat(device: str) -> None:
    state = _random_state(7, 48)
    terrain = Terrain.generated(
        size_m=(120.0, 120.0), relief_m=6.0, seed=11, resolution=24, device=device
    )
    rows = []
    for _ in range(2):
        vehicles = _vehicles(device, **state)
        sensing = Sensing(vehicles, terrain, sonar=(8, 4), sonar_tilt_rad=0.5)
        rows += [_observe(sensing), _observe(sensing)]
    for other in rows[1:]:
        np.testing.assert_array_equal(other, rows[0])
    assert np.all(np.isfinite(rows[0]))


def test_the_sonar_chunked_over_cpu_threads_equals_one_launch(monkeypatch) -> None:
    import leviathan.learning.sensing as sensing_module

    state = _random_state(9, 200)
    terrain = Terrain.generated(size_m=(120.0, 120.0), relief_m=6.0, seed=3, resolution=24)
    sensing = Sensing(_vehicles("cpu", **state), terrain, sonar=(16, 4), sonar_tilt_rad=0.5)
    assert len(sensing_module._env_chunks(200)) > 1
    chunked = _observe(sensing)
    monkeypatch.setattr(sensing_module, "_env_chunks", lambda n: [(0, n)])
    whole = _observe(sensing)
    np.testing.assert_array_equal(chunked, whole)
    assert (whole[:, OBS_SONAR : OBS_SONAR + 64] < 1.0).any()  # some rays hit


def test_env_chunks_cover_every_env_once() -> None:
    from leviathan.learning.sensing import _env_chunks

    for n in (1, 15, 16, 17, 100, 1024, 4099):
        chunks = _env_chunks(n)
        assert chunks[0][0] == 0 and chunks[-1][1] == n
        assert all(a < b for a, b in chunks)
        assert all(b == a2 for (_, b), (a2, _) in itertools.pairwise(chunks))


# --------------------------------------------------------------------------- terrain


def test_generated_terrain_is_the_seabed_mesh_rounded_to_float32() -> None:
    terrain = Terrain.generated(
        size_m=(80.0, 60.0), depth_m=25.0, relief_m=3.0, seed=9, resolution=10
    )
    surface = seabed_mesh(
        triangle_count=200,
        size_m=(80.0, 60.0),
        mean_depth_m=25.0,
        relief_m=3.0,
        seed=9,
        origin=(-40.0, -30.0),
    )
    np.testing.assert_array_equal(terrain.vertices_ned, surface.vertices.astype(np.float32))
    np.testing.assert_array_equal(terrain.triangles, surface.faces)
    assert terrain.vertices_ned.dtype == np.float32 and terrain.triangles.dtype == np.int32


def test_depth_at_gives_the_surface_depth_and_nan_off_the_terrain(device: str) -> None:
    terrain = Terrain.generated(
        size_m=(80.0, 80.0), relief_m=5.0, seed=2, resolution=8, device=device
    )
    # Triangle centroids: the surface there is the mean of the three vertex depths.
    corners = terrain.vertices_ned[terrain.triangles].astype(np.float64)  # [T, 3, 3]
    centroid = corners.mean(axis=1)
    depth = terrain.depth_at(centroid[:, 0], centroid[:, 1])
    assert depth.dtype == np.float32 and depth.shape == (len(centroid),)
    # float32 coordinates up to 40 m and a 1 m-above start: a few ulp of 40 m (3.8e-6).
    np.testing.assert_allclose(depth, centroid[:, 2], rtol=0, atol=2e-5)
    assert np.isnan(
        terrain.depth_at(np.array([41.0, 0.0, -60.0]), np.array([0.0, 41.0, -60.0]))
    ).all()


def test_terrain_rejects_a_triangle_index_past_the_vertices() -> None:
    vertices = np.zeros((3, 3))
    with pytest.raises(ValueError, match=r"triangles: index 3 .*vertex_count = 3"):
        Terrain.from_mesh(vertices, np.array([[0, 1, 3]]))


def test_terrain_rejects_vertices_not_finite_in_float32() -> None:
    vertices = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1e39, 0.0]])
    with pytest.raises(ValueError, match=r"vertices_ned: .*\(2, 1\) is not finite in float32"):
        Terrain.from_mesh(vertices, np.array([[0, 1, 2]]))


@pytest.mark.parametrize(
    ("options", "error", "field"),
    [
        ({"resolution": 0}, ValueError, "resolution"),
        ({"resolution": 2.0}, TypeError, "resolution"),
        ({"relief_m": -1.0}, ValueError, "relief_m"),
        ({"size_m": (0.0, 10.0)}, ValueError, r"size_m\[0\]"),
        ({"seed": -1}, ValueError, "seed"),
        ({"depth_m": math.nan}, ValueError, "depth_m"),
    ],
)
def test_generated_terrain_rejects_bad_arguments(options, error, field) -> None:
    with pytest.raises(error, match=field):
        Terrain.generated(**options)


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("make_out", "error", "message"),
    [
        (lambda: np.zeros((2, OBS_BASE_SIZE), np.float32), TypeError, "out: expected a float32 W"),
        (lambda: wp.zeros((2, OBS_BASE_SIZE), dtype=wp.float64), TypeError, "out: expected dtype"),
        (lambda: wp.zeros((2, OBS_BASE_SIZE + 1), dtype=wp.float32), ValueError, "out: expected s"),
        (lambda: wp.zeros((3, OBS_BASE_SIZE), dtype=wp.float32), ValueError, "out: expected s"),
    ],
)
def test_observe_rejects_a_wrong_output_array(make_out, error, message) -> None:
    sensing = Sensing(_vehicles("cpu", np.zeros((2, 3))), None)
    with pytest.raises(error, match=message):
        sensing.observe(make_out())


@pytest.mark.parametrize(
    ("options", "error", "field"),
    [
        ({"sonar": (0, 8)}, ValueError, r"sonar\[0\]"),
        ({"sonar": (64, True)}, TypeError, r"sonar\[1\]"),
        ({"sonar": (1024, 1024)}, ValueError, "rays per env"),
        ({"sonar_fov_rad": (0.0, 0.3)}, ValueError, r"sonar_fov_rad\[0\]"),
        ({"sonar_range_m": -5.0}, ValueError, "sonar_range_m"),
        ({"dvl_range_m": math.inf}, ValueError, "dvl_range_m"),
        ({"sonar_tilt_rad": 2.0}, ValueError, "sonar_tilt_rad"),
    ],
)
def test_sensing_rejects_bad_options(options, error, field) -> None:
    with pytest.raises(error, match=field):
        Sensing(_vehicles("cpu", np.zeros((1, 3))), None, **options)


# Builds the terrain on a second (CUDA) device: a CUDA test, skipped where there is none.
@pytest.mark.cuda
def test_sensing_rejects_a_terrain_on_another_device(devices: tuple[str, ...]) -> None:
    if len(devices) < 2:
        pytest.skip("needs a second Warp device")
    with pytest.raises(ValueError, match=r"terrain\.device"):
        Sensing(_vehicles("cpu", np.zeros((1, 3))), _plane(device=devices[1]))
