"""``GET /worlds/{id}/scene``: the Viewport's geometry equals the World's own environment,
hulls and mounts (read in-process from the same documents), and fails in the one error shape."""

from __future__ import annotations

import base64
import math

import httpx
import numpy as np
import pytest
from service_helpers import ERROR_KEYS, small_setup, small_spec

from leviathan.client import ServiceClient
from leviathan.controllers import DirectThrust
from leviathan.frames import Transform
from leviathan.geometry import box_mesh, hull_mesh, plane_mesh
from leviathan.materials import get_material
from leviathan.specs import VehicleSpec, spec_from_dict
from leviathan.world import Environment, SceneObject, VehicleSetup

TARGET_VELOCITY = (0.5, -0.25, 0.125)  # exact binary fractions [m/s]


def _environment() -> Environment:
    seabed = SceneObject(
        "seabed",
        plane_mesh(40.0, 30.0, divisions_x=4, divisions_y=3),
        Transform.from_euler(0.0, 0.0, 0.1, translation=(1.0, -2.0, 20.0)),
        "seabed",
        get_material("test_lambert_medium"),
    )
    target = SceneObject(
        "target",
        box_mesh((2.0, 1.0, 0.5)),
        Transform.from_euler(0.0, 0.0, 0.0, translation=(10.0, 3.0, 18.0)),
        "target",
        None,
        velocity_ned_m_per_s=TARGET_VELOCITY,
    )
    return Environment(objects=(seabed, target), name="scene-test")


def _hull_less() -> VehicleSpec:
    doc = small_spec(sensors=("imu",)).model_dump(mode="json")
    doc.pop("hull")
    return spec_from_dict(doc, VehicleSpec)


def _create(client: ServiceClient, sensors: tuple[str, ...] = ("imu", "dvl", "sonar")):
    rov_spec = _hull_less()
    return client.create_world(
        vehicles=[
            small_setup("auv", sensors=sensors),
            VehicleSetup("bare", rov_spec, DirectThrust([0.0] * len(rov_spec.thrusters))),
        ],
        environment=_environment(),
        step_ns=20_000_000,
    )


def _scene(service, world_id: str, **params: str) -> httpx.Response:
    return httpx.get(f"{service.url}/worlds/{world_id}/scene", params=params, timeout=60)


def _pose(doc: dict) -> Transform:
    return Transform(np.asarray(doc["rotation"]), np.asarray(doc["translation"]))


def test_objects_equal_the_environment_exactly(service, client):
    world = _create(client)
    body = _scene(service, world.id).json()
    env = _environment()
    assert body["environment_name"] == "scene-test"
    assert body["environment_hash"] == env.content_hash
    assert body["sea_surface_down_m"] == 0.0
    assert [o["object_id"] for o in body["objects"]] == ["seabed", "target"]
    for doc, obj in zip(body["objects"], env.objects, strict=True):
        mesh = doc["mesh"]
        assert mesh["encoding"] == "lists"
        assert mesh["vertex_count"] == obj.mesh.vertices.shape[0]
        assert mesh["triangle_count"] == obj.mesh.faces.shape[0]
        vertices = np.asarray(mesh["vertices"], dtype=np.float64)
        faces = np.asarray(mesh["indices"], dtype=np.int64)
        assert vertices.shape == obj.mesh.vertices.shape
        assert faces.shape == obj.mesh.faces.shape
        np.testing.assert_array_equal(vertices, obj.mesh.vertices)
        np.testing.assert_array_equal(faces, obj.mesh.faces)
        assert _pose(doc["T_world_object_t0"]) == obj.T_world_object
        assert doc["semantic_label"] == obj.semantic_label
        assert doc["moving"] == obj.moving
        assert tuple(doc["velocity_ned_m_per_s"]) == obj.velocity_ned_m_per_s
    assert body["objects"][0]["material"] == "test_lambert_medium"
    assert body["objects"][1]["material"] is None


def test_moving_object_pose_follows_the_committed_time(service, client):
    world = _create(client, sensors=("imu",))  # stepping a sonar World costs pings
    world.step(25)  # 0.5 s of simulated time
    body = _scene(service, world.id).json()
    assert body["tick"] == 25
    assert body["time_ns"] == 500_000_000
    target = body["objects"][1]
    t_s = body["time_ns"] / 1e9
    expected = [x + v * t_s for x, v in zip((10.0, 3.0, 18.0), TARGET_VELOCITY, strict=True)]
    # 0.5 s times binary-fraction velocities: exact in float64.
    assert target["T_world_object"]["translation"] == expected
    assert target["T_world_object"]["rotation"] == target["T_world_object_t0"]["rotation"]
    seabed = body["objects"][0]
    assert seabed["T_world_object"] == seabed["T_world_object_t0"]


def test_base64_meshes_are_the_float32_and_uint32_of_the_same_arrays(service, client):
    world = _create(client)
    exact = _scene(service, world.id).json()
    packed = _scene(service, world.id, encoding="base64").json()
    pairs = [
        (a["mesh"], b["mesh"]) for a, b in zip(exact["objects"], packed["objects"], strict=True)
    ]
    pairs.append((exact["vehicles"][0]["hull"], packed["vehicles"][0]["hull"]))
    for lists, b64 in pairs:
        assert b64["encoding"] == "base64"
        vertices = np.frombuffer(base64.b64decode(b64["vertices"]), dtype="<f4")
        indices = np.frombuffer(base64.b64decode(b64["indices"]), dtype="<u4")
        assert vertices.shape == (3 * lists["vertex_count"],)
        assert indices.shape == (3 * lists["triangle_count"],)
        expected_v = np.asarray(lists["vertices"], dtype=np.float64).astype(np.float32).ravel()
        np.testing.assert_array_equal(vertices, expected_v)
        np.testing.assert_array_equal(indices, np.asarray(lists["indices"]).ravel())


def test_vehicles_carry_their_hulls_and_sensor_mounts(service, client):
    world = _create(client)
    body = _scene(service, world.id).json()
    assert [v["name"] for v in body["vehicles"]] == ["auv", "bare"]
    auv, bare = body["vehicles"]
    spec = world.vehicle_spec("auv")
    expected_hull = hull_mesh(spec.hull)
    assert auv["hull_shape"] == "cylinder"
    assert auv["hull_label"] == spec.hull.semantic_label
    assert auv["hull"]["vertex_count"] == expected_hull.vertices.shape[0]
    np.testing.assert_array_equal(np.asarray(auv["hull"]["vertices"]), expected_hull.vertices)
    np.testing.assert_array_equal(np.asarray(auv["hull"]["indices"]), expected_hull.faces)
    assert bare["hull"] is None and bare["hull_shape"] is None
    assert [s["sensor_id"] for s in auv["sensors"]] == [f"auv/{s.name}" for s in spec.sensors]
    for doc, sensor in zip(auv["sensors"], spec.sensors, strict=True):
        assert doc["kind"] == sensor.kind
        assert _pose(doc["T_body_sensor"]) == sensor.mount.transform()
    sonar = next(s for s in auv["sensors"] if s["kind"] == "imaging_sonar")
    sonar_spec = spec.sensor(sonar["name"])
    # The footprint the sonar kind declares: the centre fan and the volume's edges, every
    # point inside the spec's field of view and range window (sensor FRD).
    parts = {part["name"]: part for part in sonar["footprint"]["parts"]}
    assert sorted(parts) == ["sonar-fan", "sonar-volume"]
    assert parts["sonar-fan"]["style"] == "surface" and parts["sonar-volume"]["style"] == "lines"
    for part in parts.values():
        points = np.asarray(part["points_sensor_m"]).reshape(-1, 3)
        r = np.linalg.norm(points, axis=1)
        assert r.min() == pytest.approx(sonar_spec.range_min_m)
        assert r.max() == pytest.approx(sonar_spec.range_max_m)
        bearing = np.degrees(np.arctan2(points[:, 1], points[:, 0]))
        elevation = np.degrees(np.arcsin(points[:, 2] / r))
        assert np.abs(bearing).max() == pytest.approx(sonar_spec.azimuth_fov_deg / 2)
        assert np.abs(elevation).max() == pytest.approx(
            sonar_spec.elevation_aperture_deg / 2 if part["style"] == "lines" else 0.0, abs=1e-9
        )
    # The mount is the spec's ZYX angles: the boresight's pitch is read back from R.
    R = np.asarray(sonar["T_body_sensor"]["rotation"])
    pitch_deg = math.degrees(math.asin(-R[2, 0]))
    assert pitch_deg == pytest.approx(sonar_spec.mount.rpy_deg[1], abs=1e-12)
    imu = next(s for s in auv["sensors"] if s["kind"] == "imu")
    assert imu["footprint"] is None
    assert [s["kind"] for s in bare["sensors"]] == ["imu"]


def test_an_edited_environment_is_what_the_scene_returns(service, client):
    world = _create(client)
    before = _scene(service, world.id).json()
    world.edit(environment=Environment(objects=_environment().objects[:1], name="edited"))
    after = _scene(service, world.id).json()
    assert after["environment_hash"] != before["environment_hash"]
    assert after["environment_name"] == "edited"
    assert [o["object_id"] for o in after["objects"]] == ["seabed"]


@pytest.mark.parametrize(
    ("world_id", "params", "status", "code", "field"),
    [
        ("no-such-world", {}, 404, "world_not_found", "world_id"),
        (None, {"encoding": "float16"}, 422, "invalid", "encoding"),
    ],
)
def test_errors_have_the_one_shape(service, client, world_id, params, status, code, field):
    if world_id is None:
        world_id = _create(client).id
    response = _scene(service, world_id, **params)
    assert response.status_code == status
    body = response.json()
    assert set(body) == ERROR_KEYS
    assert body["code"] == code
    assert body["field"] == field
    assert body["message"]


def test_a_deleted_world_has_no_scene(service, client):
    world = _create(client)
    world.delete()
    response = _scene(service, world.id)
    assert response.status_code == 404
    body = response.json()
    assert set(body) == ERROR_KEYS
    assert body["code"] == "world_not_found"
